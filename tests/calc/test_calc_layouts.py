"""The calculator confirms whole chains: a view made by one step reaches the next with its real
layout, so ``x.t().view(-1)`` fails as torch fails and ``x.t().reshape(-1)`` says it copies.
Every verdict here is checked against real torch / NumPy in the same test."""

from __future__ import annotations

import json

import numpy as np
import pytest
from eval_cli import APP
from typer.testing import CliRunner

TORCH_TEXT = ("view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


def run_json(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(APP, ["eval", *args, "--format", "json"])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)


def statuses(outcome: dict) -> dict[str, str]:
    return {c["engine"]: c["status"] for c in outcome["confirmed"]}


@pytest.mark.parametrize("expr", ["x.t().view(-1)", "y = x.t(); y.view(-1)",
                                  "x.permute(1, 0).view(12)", "x[:, ::2].t().view(6)"])
def test_view_of_a_transposed_chain_fails_as_in_torch(expr):
    torch = pytest.importorskip("torch")
    code, out = run_json(expr, "-s", "x=3,4", "-d", "torch", "--check-torch")
    outcome = out["torch"]
    assert code == 1 and not outcome["ok"]
    assert outcome["error"]["message"] == TORCH_TEXT
    assert statuses(outcome) == {"NumPy": "error-agrees", "torch": "confirmed"}
    x = torch.zeros(3, 4)
    namespace = {"x": x}
    with pytest.raises(RuntimeError) as real:
        for statement in expr.split(";"):
            exec(statement.strip(), namespace)  # our own fixed test expressions
    assert str(real.value) == TORCH_TEXT


@pytest.mark.parametrize("expr,copies", [("x.t().reshape(-1)", True), ("x.reshape(-1)", False),
                                         ("x.t().contiguous()", True), ("x[1:].reshape(8)", False),
                                         ("x.t().view(4, 3)", False)])
def test_reshape_answers_and_says_when_it_copies(expr, copies):
    torch = pytest.importorskip("torch")
    code, out = run_json(expr, "-s", "x=3,4", "-d", "torch", "--check-torch")
    outcome = out["torch"]
    x = torch.arange(12.0).reshape(3, 4)
    real = eval(expr, {"x": x})  # our own fixed test expressions
    assert code == 0 and outcome["shape"] == list(real.shape)
    # .t() is torch's own: the engine only emulates it on NumPy, torch confirms it.
    numpy_status = "emulated" if ".t()" in expr else "confirmed"
    assert statuses(outcome) == {"NumPy": numpy_status, "torch": "confirmed"}
    noted = [w for w in outcome["warnings"] if w["code"] == "SC306" and "copies" in w["message"]]
    shares = real.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert bool(noted) == copies == (not shares)


def test_numpy_reshape_of_a_transpose_copies_and_numpy_agrees():
    code, out = run_json("x.T.reshape(-1)", "-s", "x=3,4", "-d", "numpy")
    outcome = out["numpy"]
    assert code == 0 and outcome["shape"] == [12]
    assert any(w["code"] == "SC306" for w in outcome["warnings"])
    x = np.zeros((3, 4))
    assert not np.shares_memory(x.T.reshape(-1), x)
    code, out = run_json("x.reshape(-1)", "-s", "x=3,4", "-d", "numpy")
    assert out["numpy"]["warnings"] == [] and np.shares_memory(x.reshape(-1), x)


def test_an_input_used_twice_is_one_array_in_the_replay():
    # x.T + x.T needs x twice; the program makes x once and both steps read it.
    code, out = run_json("x.T + x.T", "-s", "x=3,3", "-d", "numpy")
    assert code == 0 and out["numpy"]["shape"] == [3, 3]
    assert statuses(out["numpy"]) == {"NumPy": "confirmed"}


@pytest.mark.parametrize("expr,shape", [("x.t().view(4, 3)", [4, 3]),
                                        ("x.permute(1, 0).view(2, 2, 3)", [2, 2, 3]),
                                        ("x.unsqueeze(0).expand(2, 3, 4).view(2, 12)", [2, 12])])
def test_a_torch_only_result_is_confirmed_on_torch_not_on_numpy(expr, shape):
    torch = pytest.importorskip("torch")
    code, out = run_json(expr, "-s", "x=3,4", "-d", "torch")  # no --check-torch
    assert code == 0 and out["torch"]["shape"] == shape
    assert statuses(out["torch"]) == {"NumPy": "emulated", "torch": "confirmed"}
    x = torch.zeros(3, 4)
    assert list(eval(expr, {"x": x}).shape) == shape  # our own fixed test expressions
    text = CliRunner().invoke(APP, ["eval", expr, "-s", "x=3,4", "-d", "torch"]).stdout
    assert "confirmed by running it on torch" in text
    assert "confirmed by running it on NumPy" not in text
