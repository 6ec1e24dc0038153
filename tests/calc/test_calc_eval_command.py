"""``shapecheck eval`` end to end through register(): text and JSON output, dialects, exit codes."""

import json
import re

import numpy as np
import pytest
from eval_cli import run
from hypothesis import given, settings
from hypothesis import strategies as st


def run_json(*args: str):
    result = run(*args, "--format", "json")
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout)


# ---------------------------------------------------------------------- the examples

def test_broadcast_example_explains_each_column_and_is_confirmed_on_numpy():
    result = run("x + y", "--shapes", "x=5,1,4,1", "--shapes", "y=3,1,1")
    assert result.exit_code == 0
    out = result.stdout
    lines = out.splitlines()
    rule_line = next(line for line in lines if line.startswith("rule"))
    assert rule_line.split()[1:] == ["missing", "1", "stretched", "1", "stretched", "equal"]
    assert next(line for line in lines if line.startswith("result")).split()[1:] == ["5", "3", "4", "1"]
    # right-aligned by trailing dimension: y's first dim sits under x's second
    header = next(i for i, line in enumerate(lines) if line.split()[:1] == ["-4"])
    x_line, y_line = lines[header + 1], lines[header + 2]
    assert x_line.split()[0] == "x" and y_line.split()[0] == "y"
    x_ends = [m.end() for m in re.finditer(r"\d+", x_line)]
    y_ends = [m.end() for m in re.finditer(r"\d+", y_line)]
    assert y_ends == x_ends[1:]
    assert "= (5, 3, 4, 1)" in out
    assert "confirmed by running it on NumPy" in out
    # no prefix: all dialects, and they agree, so they are shown once
    assert "[numpy, numpy-1, torch, torch-legacy]" in out


def test_inplace_resize_in_torch_shows_torchs_error_and_exits_1():
    result = run("x.add_(y)", "-s", "x=1,3,1", "-s", "y=3,1,7", "--dialect", "torch")
    assert result.exit_code == 1
    assert ("RuntimeError: output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"
            in result.stdout)
    assert "mismatch (in place)" in result.stdout


def test_symbolic_attention_scores_keep_the_symbols():
    code, data = run_json("q @ k.transpose(-2, -1)", "-s", "q=B,H,T,D k=B,H,T,D", "-d", "torch")
    assert code == 0
    assert data["torch"]["shape"] == ["B", "H", "T", "T"]
    assert data["torch"]["steps"] == [["B", "H", "D", "T"], ["B", "H", "T", "T"]]
    assert data["torch"]["confirmed"][0]["status"] == "skipped"  # nothing concrete to run


def test_solve_under_all_dialects_shows_the_disagreement_side_by_side():
    result = run("np.linalg.solve(a, b)", "-s", "a=5,5,5", "-s", "b=5,5", "--dialect", "all")
    assert result.exit_code == 0
    out = result.stdout
    assert "dialects disagree" in out
    assert "= (5, 5, 5)" in out and "= (5, 5)" in out
    real = np.linalg.solve(np.random.default_rng(0).standard_normal((5, 5, 5)),
                           np.random.default_rng(1).standard_normal((5, 5)))
    code, data = run_json("np.linalg.solve(a, b)", "-s", "a=5,5,5", "-s", "b=5,5", "-d", "all")
    assert data["numpy"]["shape"] == list(real.shape)
    assert data["numpy"]["confirmed"][0]["status"] == "confirmed"
    torch = pytest.importorskip("torch")
    real_torch = torch.linalg.solve(torch.randn(5, 5, 5), torch.randn(5, 5))
    assert data["torch"]["shape"] == list(real_torch.shape)


# ---------------------------------------------------------------------- JSON contract

def test_json_is_one_object_keyed_by_dialect_with_the_contract_fields():
    code, data = run_json("x + y", "-s", "x=5,2,4,1", "-s", "y=3,1,1")
    assert code == 1
    assert list(data) == ["numpy", "numpy-1", "torch", "torch-legacy"]
    for value in data.values():
        assert {"ok", "shape", "warnings", "error", "steps"} <= set(value)
        assert value["ok"] is False and value["shape"] is None
        assert value["steps"] == [None]
    assert data["numpy"]["error"] == {
        "kind": "broadcast",
        "message": "operands could not be broadcast together with shapes (5,2,4,1) (3,1,1) "}
    assert data["torch"]["error"]["message"] == (
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1")


def test_json_warnings_carry_a_code_and_the_message():
    code, data = run_json("x + y", "-s", "x=4", "-s", "y=2,2", "-d", "torch-legacy")
    assert code == 0
    assert data["torch-legacy"]["shape"] == [4]
    (warning,) = data["torch-legacy"]["warnings"]
    assert warning["code"] == "SC104" and "deprecated pointwise behavior" in warning["message"]


def test_implicit_outer_product_is_warned_with_an_explanation():
    result = run("x - y", "-s", "x=100,1", "-s", "y=100", "-d", "numpy")
    assert result.exit_code == 0
    assert "SC102" in result.stdout and "outer product" in result.stdout
    assert "= (100, 100)" in result.stdout


# ---------------------------------------------------------------------- the expression language

@pytest.mark.parametrize("source, shapes, dialect, expected", [
    ("x + y", ["x=5,1", "y=3"], "numpy", lambda x, y: x + y),
    ("x * y - x / y", ["x=2,1,3", "y=4,1"], "numpy", lambda x, y: x * y - x / y),
    ("x // y % y ** x", ["x=2,3", "y=3"], "numpy", lambda x, y: x // y % y ** x),
    ("x @ y", ["x=7,2,3", "y=3,4"], "numpy", lambda x, y: x @ y),
    ("x < y", ["x=2,1", "y=5"], "numpy", lambda x, y: x < y),
    ("x.T", ["x=2,3,4"], "numpy", lambda x: x.T),
    ("x.mT", ["x=2,3,4"], "torch", lambda x: np.swapaxes(x, -1, -2)),
    ("x.sum(1, keepdims=True)", ["x=2,3,4"], "numpy", lambda x: x.sum(1, keepdims=True)),
    ("x.reshape(4, -1)", ["x=2,3,4"], "numpy", lambda x: x.reshape(4, -1)),
    ("x[0, 1:3, None, ...]", ["x=4,5,6"], "numpy", lambda x: x[0, 1:3, None, ...]),
    ("x[..., ::2]", ["x=4,5,6"], "numpy", lambda x: x[..., ::2]),
    ("np.matmul(x, y)", ["x=5,1,2,3", "y=4,3,6"], "numpy", lambda x, y: np.matmul(x, y)),
    ("matmul(x, y)", ["x=2,3", "y=3"], "numpy", lambda x, y: np.matmul(x, y)),
    ("z = x @ y; z.sum(0)", ["x=5,4", "y=4,3"], "numpy", lambda x, y: (x @ y).sum(0)),
    ("z = x @ y\nw = z.T\nw + 1", ["x=5,4", "y=4,3"], "numpy", lambda x, y: (x @ y).T + 1),
    ("np.concatenate([x, y], axis=1)", ["x=2,3", "y=2,5"], "numpy",
     lambda x, y: np.concatenate([x, y], axis=1)),
    ("s + x", ["s=()", "x=3"], "numpy", lambda s, x: s + x),
])
def test_expressions_give_the_shape_numpy_gives(source, shapes, dialect, expected):
    args = [a for shape in shapes for a in ("-s", shape)]
    code, data = run_json(source, *args, "-d", dialect)
    arrays = []
    for shape in shapes:
        dims = shape.split("=")[1].strip("()")
        arrays.append(np.ones(tuple(int(d) for d in dims.split(",") if d)))
    assert code == 0, data
    assert data[dialect]["shape"] == list(np.shape(expected(*arrays)))
    assert data[dialect]["confirmed"][0]["status"] == "confirmed"


@pytest.mark.parametrize("source, shapes, message", [
    ("x.view(2, -1)", ["x=3,5"], "shape '[2, -1]' is invalid for input of size 15"),
    ("x.unsqueeze(0).expand(3, -1, -1)", ["x=2,4"], None),
    ("x.permute(2, 0, 1)", ["x=2,3,4"], None),
    ("x.transpose(0, 1)", ["x=2,3,4"], None),
    ("x.add_(y)", ["x=3,4", "y=4"], None),
    ("x += y", ["x=3,4", "y=1,4"], None),
    ("torch.cat([x, y], dim=0)", ["x=2,3", "y=4,3"], None),
    ("F.relu(x)", ["x=2,3"], None),
])
def test_torch_dialect_matches_real_torch(source, shapes, message):
    torch = pytest.importorskip("torch")
    args = [a for shape in shapes for a in ("-s", shape)]
    code, data = run_json(source, *args, "-d", "torch")
    env = {}
    for shape in shapes:
        name, dims = shape.split("=")
        env[name] = torch.ones(tuple(int(d) for d in dims.split(",")))
    runners = {
        "x.view(2, -1)": lambda x: x.view(2, -1),
        "x.unsqueeze(0).expand(3, -1, -1)": lambda x: x.unsqueeze(0).expand(3, -1, -1),
        "x.permute(2, 0, 1)": lambda x: x.permute(2, 0, 1),
        "x.transpose(0, 1)": lambda x: x.transpose(0, 1),
        "x.add_(y)": lambda x, y: x.add_(y),
        "x += y": lambda x, y: x.__iadd__(y),
        "torch.cat([x, y], dim=0)": lambda x, y: torch.cat([x, y], dim=0),
        "F.relu(x)": lambda x: torch.nn.functional.relu(x),
    }
    try:
        real = runners[source](**env)
    except RuntimeError as exc:
        assert code == 1 and data["torch"]["error"]["message"] == str(exc) == message
        return
    assert code == 0 and data["torch"]["shape"] == list(real.shape)


def test_a_method_the_library_lacks_fails_under_that_dialect_only():
    code, data = run_json("x.add_(y)", "-s", "x=3", "-s", "y=3", "-d", "all")
    assert code == 1
    assert data["numpy"]["error"]["message"] == "'numpy.ndarray' object has no attribute 'add_'"
    assert data["torch"]["ok"] is True and data["torch"]["shape"] == [3]


def test_terabyte_shapes_are_answered_in_shape_only_mode():
    code, data = run_json("x @ y + z", "-s", "x=1000000,1000000", "-s", "y=1000000,1000000",
                          "-s", "z=1000000", "-d", "numpy")
    assert code == 0
    assert data["numpy"]["shape"] == [1000000, 1000000]
    assert data["numpy"]["confirmed"][0] == {"engine": "NumPy", "status": "shape-only",
                                             "detail": "arrays too large to allocate"}


def test_dialect_defaults_follow_the_prefix():
    assert list(run_json("np.add(x, y)", "-s", "x=2", "-s", "y=2")[1]) == ["numpy"]
    assert list(run_json("torch.add(x, y)", "-s", "x=2", "-s", "y=2")[1]) == ["torch"]
    assert list(run_json("x + y", "-s", "x=2", "-s", "y=2")[1]) == [
        "numpy", "numpy-1", "torch", "torch-legacy"]


def test_the_prefix_names_the_op_so_other_dialects_use_their_own_library():
    code, data = run_json("np.matmul(x, y)", "-s", "x=2,3", "-s", "y=3", "-d", "torch")
    assert code == 0 and data["torch"]["shape"] == [2]


@pytest.mark.parametrize("args, fragment", [
    (["np.frobnicate(x)", "-s", "x=3"], "unknown function 'frobnicate' at column 1"),
    (["x.frob()", "-s", "x=3"], "unknown method 'frob' at column 1"),
    (["F.softmaxx(x)", "-s", "x=3"], "unknown function 'softmaxx'"),
])
def test_unknown_functions_are_usage_errors(args, fragment):
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {fragment}" or fragment in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_check_torch_runs_it_on_torch_and_reports_agreement():
    pytest.importorskip("torch")
    result = run("x.sum(1, keepdim=True).T", "-s", "x=3,4", "-d", "torch", "--check-torch")
    assert result.exit_code == 0
    assert "confirmed by running it on torch" in result.stdout
    code, data = run_json("x.add_(y)", "-s", "x=1,3,1", "-s", "y=3,1,7", "-d", "torch",
                          "--check-torch")
    assert code == 1
    assert {"engine": "torch", "status": "confirmed", "detail": "same error"} in data["torch"]["confirmed"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=0, max_size=3),
       st.lists(st.integers(1, 3), min_size=0, max_size=3))
def test_broadcasting_verdict_and_message_equal_numpys(a, b):
    args = ["-s", f"x=({','.join(map(str, a))})", "-s", f"y=({','.join(map(str, b))})"]
    code, data = run_json("x + y", *args, "-d", "numpy")
    try:
        expected = np.ones(a) + np.ones(b)
    except ValueError as exc:
        assert code == 1 and data["numpy"]["error"]["message"] == str(exc)
    else:
        assert code == 0 and data["numpy"]["shape"] == list(expected.shape)


def test_a_dtype_in_the_shapes_reaches_the_inplace_casting_rule():
    code, data = run_json("x += y", "-s", "x=3:int64", "-s", "y=3:float64", "-d", "numpy")
    x = np.zeros(3, dtype=np.int64)
    with pytest.raises(TypeError) as real:
        x += np.zeros(3)
    assert code == 1
    assert data["numpy"]["error"]["message"] == str(real.value)


def test_an_expression_nested_too_deeply_is_one_line_not_a_traceback():
    result = run("x" + "+x" * 500, "-s", "x=3", "-d", "numpy")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: the expression nests too deeply"
