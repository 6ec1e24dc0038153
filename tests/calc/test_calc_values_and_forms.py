"""What ``shapecheck eval`` shows for a whole expression that is no array (a size, a shape),
the unpacking and dunder forms it reads, and the calls it answers outside the op table
(creations, nn functional ops). Each answer is checked against the real library."""

from __future__ import annotations

import json

import numpy as np
import pytest
from eval_cli import run


def run_json(*args: str) -> tuple[int, dict]:
    result = run(*args, "--format", "json")
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("expr,value", [
    ("(x @ y).shape", lambda x, y: (x @ y).shape),
    ("(x + 1).shape[1]", lambda x, y: (x + 1).shape[1]),
    ("(x @ y).shape[0] + 1", lambda x, y: (x @ y).shape[0] + 1),
    ("x.ndim", lambda x, y: x.ndim),
])
def test_a_trailing_attribute_or_index_shows_the_value_of_the_whole_expression(expr, value):
    x, y = np.zeros((3, 4)), np.zeros((4, 5))
    real = value(x, y)
    code, out = run_json(expr, "-s", "x=3,4", "-s", "y=4,5", "-d", "numpy")
    expected = list(real) if isinstance(real, tuple) else real
    assert code == 0 and out["numpy"]["value"] == expected
    text = run(expr, "-s", "x=3,4", "-s", "y=4,5", "-d", "numpy").stdout
    shown = f"({', '.join(map(str, real))})" if isinstance(real, tuple) else str(real)
    assert f"= {shown}" in text


def test_an_array_result_has_no_value_but_its_shape():
    code, out = run_json("(x + 1).T", "-s", "x=3,4", "-d", "numpy")
    assert code == 0 and out["numpy"]["value"] is None and out["numpy"]["shape"] == [4, 3]


def test_unpacking_binds_each_result():
    torch = pytest.importorskip("torch")
    code, out = run_json("values, indices = torch.max(x, 1); values + indices", "-s", "x=3,4")
    real = torch.max(torch.zeros(3, 4), 1)
    assert code == 0 and out["torch"]["shape"] == list((real.values + real.indices).shape)
    code, out = run_json("q, r = np.linalg.qr(x); q @ r", "-s", "x=3,4")
    q, r = np.linalg.qr(np.zeros((3, 4)))
    assert code == 0 and out["numpy"]["shape"] == list((q @ r).shape)


@pytest.mark.parametrize("expr", ["a, *b = x", "*a, = x", "(a, b), c = x"])
def test_an_unsupported_unpacking_is_one_line_and_exit_2(expr):
    result = run(expr, "-s", "x=3,4")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("expr,operator", [
    ("x.__add__(y)", lambda x, y: x + y),
    ("x.__radd__(2.5)", lambda x, y: 2.5 + x),
    ("x.__matmul__(y.T)", lambda x, y: x @ y.T),
    ("x.__getitem__(0)", lambda x, y: x[0]),
    ("x.__lt__(y)", lambda x, y: x < y),
    ("x.__pow__(2)", lambda x, y: x ** 2),
    ("x.__neg__()", lambda x, y: -x),
])
def test_dunder_calls_are_their_operators(expr, operator):
    x, y = np.ones((3, 4), dtype=np.int32), np.ones((4,), dtype=np.float32)
    real = operator(x, y)
    code, out = run_json(expr, "-s", "x=3,4:int32", "-s", "y=4:float32", "-d", "numpy")
    assert code == 0 and out["numpy"]["shape"] == list(real.shape)


def test_a_boolean_square_is_int8_by_the_operator_and_int64_by_power():
    from shapecheck.calc.checker import check_expression
    from shapecheck.calc.evaluation import evaluate_dialect
    from shapecheck.calc.shapes import ShapeBinding

    x = np.ones((2, 3), dtype=bool)
    env = {"x": ShapeBinding("x", (2, 3), "bool")}
    for text, real in (("r = x ** 2", x ** 2), ("r = x.__pow__(2)", x.__pow__(2)),
                       ("r = np.power(x, 2)", np.power(x, 2)), ("r = x ** 3", x ** 3)):
        outcome = evaluate_dialect(check_expression(text, {"x"}), env, "numpy")
        assert dict(outcome.bindings)["r"].dtype == real.dtype.name, text


def test_a_creation_alone_is_answered():
    code, out = run_json("np.random.default_rng(0).integers(0, 5, size=(2, 3))")
    assert code == 0
    assert out["numpy"]["shape"] == list(np.random.default_rng(0).integers(0, 5, (2, 3)).shape)
    code, out = run_json("np.zeros((2, 3)) + x", "-s", "x=3")
    assert code == 0 and out["numpy"]["shape"] == [2, 3]
    assert {"engine": "NumPy", "status": "confirmed", "detail": ""} in out["numpy"]["confirmed"]


@pytest.mark.parametrize("expr", ["F.pad(x, (1, 2))", "F.pad(x, (1, 1), mode='reflect')",
                                  "F.pad(x, (4, 4), mode='reflect')",
                                  "torch.nn.functional.pad(x, (1, 1, 2, 2))"])
def test_nn_functional_pad_answers_as_torch_does(expr):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    code, out = run_json(expr, "-s", "x=3,4")
    try:
        real = eval(expr, {"F": F, "torch": torch, "x": torch.zeros(3, 4)})  # fixed test text
    except RuntimeError as exc:
        assert code == 1 and out["torch"]["error"]["message"] == str(exc)
    else:
        assert code == 0 and out["torch"]["shape"] == list(real.shape)
    # F.pad is torch's own: torch, not the NumPy engine, confirms it.
    confirmed = {c["engine"]: c["status"] for c in out["torch"]["confirmed"]}
    assert confirmed["torch"] == "confirmed" and confirmed["NumPy"] == "skipped"
