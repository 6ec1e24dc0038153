"""``shapecheck eval --batch`` and shapecheck.batch.check: the vectorized verdicts agree with the scalar eval and the libraries."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.batch import check
from shapecheck.calc.arguments import main
from shapecheck.calc.batch_plan import build_plan
from shapecheck.calc.checker import check_expression
from shapecheck.calc.evaluation import evaluate_dialect
from shapecheck.calc.shapes import ShapeBinding
from shapecheck.runtime.dialects import get_dialect

EXPRESSIONS = {
    "x + y": lambda lib, x, y: x + y,
    "x * 2 - y": lambda lib, x, y: x * 2 - y,
    "x < y": lambda lib, x, y: x < y,
    "np.maximum(x, y)": lambda lib, x, y: lib.maximum(x, y),
    "x @ y": lambda lib, x, y: x @ y,
    "np.matmul(x, y) + x.sum(-1, keepdims=True)": None,  # keywords differ: numpy only
    "x.sum(0)": lambda lib, x, y: x.sum(0),
    "(x + y).mean(-1)": lambda lib, x, y: (x + y).mean(-1),
    "x.prod(1) @ y": lambda lib, x, y: x.prod(1) @ y,
}

_shape = st.lists(st.sampled_from([0, 1, 1, 2, 3, 4]), min_size=0, max_size=4).map(tuple)
_rows = st.lists(st.tuples(_shape, _shape), min_size=1, max_size=25)


def _scalar(expression: str, x: tuple, y: tuple, dialect: str):
    checked = check_expression(expression, {"x", "y"})
    env = {"x": ShapeBinding("x", x), "y": ShapeBinding("y", y)}
    return evaluate_dialect(checked, env, dialect, confirm=False)


def _library(expression: str, lib, x: tuple, y: tuple):
    """The shape the real library gives, or None when it raises."""
    run = EXPRESSIONS[expression]
    try:
        if lib is np:
            return tuple(run(np, np.ones(x), np.ones(y)).shape)
        return tuple(run(lib, lib.ones(x), lib.ones(y)).shape)
    except (ValueError, RuntimeError, IndexError, TypeError, np.exceptions.AxisError):
        return None


# numpy's keepdims= is not torch's keyword: that expression is numpy's only.
CASES = [(e, d) for e in EXPRESSIONS for d in ("numpy", "torch")
         if not (d == "torch" and "keepdims" in e)]


@pytest.mark.parametrize("expression, dialect", CASES)
def test_every_listed_expression_is_answered_by_the_vectorized_core(expression, dialect):
    checked = check_expression(expression, {"x", "y"})
    assert build_plan(checked.module, {"x", "y"}, get_dialect(dialect)) is not None


@pytest.mark.parametrize("expression, dialect", CASES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_rows)
def test_vectorized_verdicts_agree_with_the_scalar_eval(expression, dialect, rows):
    verdicts = check(expression, {"x": [x for x, _ in rows], "y": [y for _, y in rows]}, dialect)
    assert verdicts.vectorized.all()
    for i, (x, y) in enumerate(rows):
        scalar = _scalar(expression, x, y, dialect)
        assert bool(verdicts.ok[i]) == scalar.ok, (x, y)
        assert verdicts.shape(i) == scalar.shape
        if not scalar.ok:
            assert verdicts.error(i).message == scalar.error.message


@pytest.mark.parametrize("expression", [e for e, run in EXPRESSIONS.items() if run is not None])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_rows)
def test_vectorized_verdicts_agree_with_numpy(expression, rows):
    verdicts = check(expression, {"x": [x for x, _ in rows], "y": [y for _, y in rows]}, "numpy")
    for i, (x, y) in enumerate(rows):
        assert verdicts.shape(i) == _library(expression, np, x, y), (x, y)


@pytest.mark.parametrize("expression", [e for e, run in EXPRESSIONS.items() if run is not None])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=_rows)
def test_vectorized_verdicts_agree_with_torch(expression, rows):
    torch = pytest.importorskip("torch")
    verdicts = check(expression.replace("np.", "torch."),
                     {"x": [x for x, _ in rows], "y": [y for _, y in rows]}, "torch")
    for i, (x, y) in enumerate(rows):
        assert verdicts.shape(i) == _library(expression, torch, x, y), (x, y)


def test_an_expression_outside_the_families_goes_row_by_row_with_the_same_verdicts():
    verdicts = check("x.reshape(-1, 2) + y", {"x": [(2, 4), (3, 3)], "y": [(2,), (2,)]})
    assert not verdicts.vectorized.any()
    assert verdicts.ok.tolist() == [True, False]
    assert verdicts.shape(0) == (4, 2)
    assert "cannot reshape array of size 9" in verdicts.error(1).message


def test_a_fixed_shape_holds_for_every_row():
    verdicts = check("x @ w", {"x": [(8, 4), (8, 3)], "w": (4, 2)}, "torch")
    assert verdicts.ok.tolist() == [True, False]
    assert verdicts.shape(0) == (8, 2)
    assert verdicts.error(1).message == "mat1 and mat2 shapes cannot be multiplied (8x3 and 4x2)"


# ---------------------------------------------------------------------------- the command line


def _run(tmp_path, *args):
    import io

    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _structured(rows_x, rows_y, width=4):
    array = np.full(len(rows_x), -1, dtype=[("x", np.int64, (width,)), ("y", np.int64, (width,))])
    for i, (x, y) in enumerate(zip(rows_x, rows_y)):
        array["x"][i, width - len(x):] = x
        array["y"][i, width - len(y):] = y
    return array


XS = [(5, 2, 4), (3, 4), (2, 1), ()]
YS = [(3, 1, 1), (4,), (1, 7), (6,)]
EXPECTED = [None, (3, 4), (2, 7), (6,)]


def _cell(shape: tuple) -> str:
    return "x".join(map(str, shape)) if shape else "()"


def _formats(tmp_path):
    csv = _write(tmp_path, "cases.csv", "x,y\n" + "".join(
        f"{_cell(x)},\"{','.join(map(str, y)) or '()'}\"\n" for x, y in zip(XS, YS)))
    jsonl = _write(tmp_path, "cases.jsonl", "".join(
        json.dumps({"x": list(x), "y": list(y)}) + "\n\n" for x, y in zip(XS, YS)))
    npy = str(tmp_path / "cases.npy")
    np.save(npy, _structured(XS, YS))
    npz = str(tmp_path / "cases.npz")
    np.savez(npz, x=_structured(XS, YS)["x"], y=_structured(XS, YS)["y"])
    return {"csv": csv, "jsonl": jsonl, "npy": npy, "npz": npz}


@pytest.mark.parametrize("kind", ["csv", "jsonl", "npy", "npz"])
def test_each_input_format_gives_one_json_verdict_per_row(tmp_path, kind):
    path = _formats(tmp_path)[kind]
    code, out, err = _run(tmp_path, "x + y", "--batch", path, "-d", "numpy", "-f", "json")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and err == ""
    assert [r["row"] for r in records] == [1, 2, 3, 4]
    assert [tuple(r["numpy"]["shape"]) if r["numpy"]["ok"] else None for r in records] == EXPECTED
    assert records[0]["numpy"]["error"] == {
        "kind": "broadcast", "dim": -3,
        "message": "operands could not be broadcast together with shapes (5,2,4) (3,1,1) "}


def test_the_summary_counts_rows_and_explains_the_first_failures_as_eval_does(tmp_path):
    path = _formats(tmp_path)["csv"]
    code, out, _ = _run(tmp_path, "x + y", "--batch", path, "-d", "torch")
    assert code == 1
    assert "valid     3 rows (75.0%)" in out
    assert "failing   1 row (25.0%)" in out
    assert "row 1   x=(5, 2, 4) y=(3, 1, 1)   dim -3" in out
    assert ("error RuntimeError: The size of tensor a (5) must match the size of tensor b (3) "
            "at non-singleton dimension 0") in out
    assert "4 rows at once (vectorized), 0 rows one by one" in out


def test_a_mixed_file_answers_symbolic_rows_one_by_one(tmp_path):
    path = _write(tmp_path, "mixed.csv", 'x,y\n5x4,4\n"B,4",4\n"B,3",4\n2x3,3\n')
    code, out, _ = _run(tmp_path, "x + y", "--batch", path, "-d", "numpy", "-f", "json")
    records = [json.loads(line)["numpy"] for line in out.splitlines()]
    assert [r["vectorized"] for r in records] == [True, False, False, True]
    assert [r["shape"] for r in records] == [[5, 4], ["B", 4], None, [2, 3]]
    assert records[2]["error"]["message"] == \
        "operands could not be broadcast together with shapes (B,3) (4,) "
    assert code == 1


def test_all_valid_rows_exit_zero(tmp_path):
    path = _write(tmp_path, "ok.csv", "x,y\n5x4,4\n3,1\n")
    assert _run(tmp_path, "x * y", "--batch", path, "-d", "numpy")[0] == 0


@pytest.mark.parametrize("name, text, expected", [
    ("neg.csv", "x,y\n5,3\n4,\"3,-2\"\n",
     "neg.csv: row 2: column 'y': bad shape '3,-2': negative dimension -2"),
    ("unknown.csv", "x,z\n5,3\n", "unknown.csv: unknown column 'z'"),
    ("missing.csv", "x\n5\n", "missing.csv: no column 'y' (add one, or give -s y=...)"),
    ("cells.csv", "x,y\n5,3\n5,3,4\n", "cells.csv: row 2: 3 cells for 2 columns"),
    ("empty.csv", "x,y\n5,\n", "empty.csv: row 1: column 'y' is empty"),
    ("bad.jsonl", '{"x": [5], "y": [3]}\n{"x": [5], "y": [3]\n', "bad.jsonl: row 2: not JSON"),
    ("neg.jsonl", '{"x": [5], "y": [-3]}\n', "neg.jsonl: row 1: column 'y': negative dimension -3"),
    ("extra.jsonl", '{"x": [5], "y": [3]}\n{"x": [5], "y": [3], "w": [1]}\n',
     "extra.jsonl: row 2: unknown column 'w'"),
    ("odd.txt", "x,y\n", "odd.txt: cannot tell the format"),
])
def test_bad_input_is_one_line_naming_the_file_and_row_and_exit_2(tmp_path, name, text, expected):
    path = _write(tmp_path, name, text)
    code, out, err = _run(tmp_path, "x + y", "--batch", path, "-d", "numpy")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and expected in err


def test_a_missing_file_and_a_bad_npy_are_one_line(tmp_path):
    code, _, err = _run(tmp_path, "x + y", "--batch", str(tmp_path / "none.csv"))
    assert code == 2 and "none.csv: No such file or directory" in err
    bad = _structured([(5,)], [(3,)])
    bad["y"][0] = [-1, 2, -1, 3]
    np.save(tmp_path / "pad.npy", bad)
    code, _, err = _run(tmp_path, "x + y", "--batch", str(tmp_path / "pad.npy"))
    assert code == 2 and "pad.npy: row 1: column 'y': -1 after a dim" in err
    bad["y"][0] = [-1, -1, -4, 3]
    np.save(tmp_path / "neg.npy", bad)
    code, _, err = _run(tmp_path, "x + y", "--batch", str(tmp_path / "neg.npy"))
    assert code == 2 and "neg.npy: row 1: column 'y': negative dimension -4" in err
