"""SC308 view-layout-error is proven by its own examples, linted and run on real torch, and its
verdict is the runtime's: the same ShapeError the calculator shows."""

from __future__ import annotations

import traceback

import pytest

from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.rules import all_rules
from shapecheck.runtime import ops
from shapecheck.runtime.dialects import TORCH
from shapecheck.runtime.layout import Layout
from shapecheck.runtime.verdicts import ShapeError
from rule_examples import marked, run

SPEC = all_rules()["SC308"]
BAD = list(enumerate(SPEC.bad))
GOOD = list(enumerate(SPEC.good))
TORCH_TEXT = ("view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


def lint(code: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(code, "example.py"))


def test_sc308_is_an_error_with_bad_and_good_examples():
    assert SPEC.name == "view-layout-error" and str(SPEC.severity) == "error"
    assert SPEC.bad and SPEC.good
    assert all({c for _, c in marked(ex.code)} == {"SC308"} for ex in SPEC.bad)


@pytest.mark.parametrize("index,example", BAD, ids=[f"bad{i}" for i, _ in BAD])
def test_bad_example_reports_sc308_at_the_marked_line(index, example):
    assert lint(example.code) == marked(example.code)


@pytest.mark.parametrize("index,example", BAD, ids=[f"bad{i}" for i, _ in BAD])
def test_bad_example_raises_torchs_error_at_the_marked_line(index, example):
    exc = run(example)
    assert isinstance(exc, RuntimeError) and str(exc) == TORCH_TEXT
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<example>"]
    assert frames[-1].lineno == marked(example.code)[0][0]


@pytest.mark.parametrize("index,example", GOOD, ids=[f"good{i}" for i, _ in GOOD])
def test_good_example_is_clean_and_runs(index, example):
    assert lint(example.code) == []
    exc = run(example)
    assert exc is None, f"{type(exc).__name__}: {exc}"


def test_the_runtime_view_rule_refuses_a_transposed_layout_with_torchs_text():
    view = ops.lookup("view", TORCH)
    t = ops.lookup("t", TORCH)
    x = ops.ArrayArg((3, 4), "float32", Layout.contiguous((3, 4)))
    transposed = ops.ArrayArg((4, 3), "float32", ops.output_layout(t, (x,), {}, TORCH))
    with pytest.raises(ShapeError) as refused:
        view.rule(transposed, -1, dialect=TORCH)
    assert refused.value.kind == "view-layout" and refused.value.message == TORCH_TEXT
    assert tuple(view.rule(transposed, 4, 3, dialect=TORCH).shape) == (4, 3)
    # Without a layout the rule cannot tell, so it answers the shape (precision first).
    assert tuple(view.rule(ops.ArrayArg((4, 3)), -1, dialect=TORCH).shape) == (12,)
    view_as = ops.lookup("view_as", TORCH)
    with pytest.raises(ShapeError):
        view_as.rule(transposed, ops.ArrayArg((12,)), dialect=TORCH)


def test_rule_command_renders_sc308():
    from typer.testing import CliRunner

    from shapecheck.cli import app

    result = CliRunner().invoke(app, ["rule", "SC308"])
    assert result.exit_code == 0, result.output
    assert "view-layout-error" in result.output and "x.t().view(-1)" in result.output


def test_a_view_through_a_helper_is_reported_at_the_call_and_fails_in_torch():
    from types import SimpleNamespace

    code = ("import torch\n"
            "def flat(t):\n"
            "    return t.view(-1)\n"
            "x = torch.zeros(3, 4)\n"
            "a = flat(x)\n"
            "b = flat(x.t())\n")
    findings = analyze_source(code, "example.py")
    assert sorted((f.line, f.code) for f in findings) == [(6, "SC308")]
    assert "[in flat, line 3" in findings[0].message and TORCH_TEXT in findings[0].message
    exc = run(SimpleNamespace(code=code, library="torch"))
    assert isinstance(exc, RuntimeError) and str(exc) == TORCH_TEXT
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<example>"]
    assert [f.lineno for f in frames][-2:] == [6, 3]
