"""Every shape and in-place rule is proven by its own examples, linted and run for real."""

from __future__ import annotations

import traceback

import pytest
from rule_examples import marked, run

from shapecheck.analysis.api import AnalysisSettings, analyze_source
from shapecheck.analysis.rules import all_rules

SHAPE_CODES = ("SC101", "SC102", "SC103", "SC104", "SC105", "SC106", "SC107", "SC108", "SC109",
               "SC110", "SC111", "SC112", "SC113", "SC114", "SC201", "SC202", "SC203")
SILENT_CODES = {"SC102", "SC103", "SC105", "SC107", "SC110", "SC114"}
DIALECT_FOR = {"SC105": "torch-legacy"}

RULES = all_rules()
BAD = [(code, i, ex) for code in SHAPE_CODES for i, ex in enumerate(RULES[code].bad)]
GOOD = [(code, i, ex) for code in SHAPE_CODES for i, ex in enumerate(RULES[code].good)]


def lint(code: str, rule: str) -> list[tuple[int, str]]:
    settings = AnalysisSettings(dialect=DIALECT_FOR.get(rule))
    return sorted((f.line, f.code) for f in analyze_source(code, "example.py", settings))


def test_every_shape_rule_has_bad_and_good_examples():
    for code in SHAPE_CODES:
        spec = RULES[code]
        assert spec.bad and spec.good, code
        assert all(marked(ex.code) == [(marked(ex.code)[0][0], code)] for ex in spec.bad), code


@pytest.mark.parametrize("code,index,example", BAD, ids=[f"{c}-bad{i}" for c, i, _ in BAD])
def test_bad_example_reports_exactly_its_code_at_the_marked_line(code, index, example):
    assert lint(example.code, code) == marked(example.code)


@pytest.mark.parametrize("code,index,example", GOOD, ids=[f"{c}-good{i}" for c, i, _ in GOOD])
def test_good_example_is_clean(code, index, example):
    assert lint(example.code, code) == []


@pytest.mark.parametrize("code,index,example", BAD, ids=[f"{c}-bad{i}" for c, i, _ in BAD])
def test_bad_example_misbehaves_with_the_real_library(code, index, example):
    exc = run(example)
    line = marked(example.code)[0][0]
    if code in SILENT_CODES:
        # Silent bugs: the example runs and its assertion about the surprising result holds.
        assert exc is None, f"{type(exc).__name__}: {exc}"
    else:
        assert exc is not None and not isinstance(exc, AssertionError), "the bug did not raise"
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<example>"]
        assert frames[-1].lineno == line


@pytest.mark.parametrize("code,index,example", GOOD, ids=[f"{c}-good{i}" for c, i, _ in GOOD])
def test_good_example_runs_with_the_real_library(code, index, example):
    exc = run(example)
    assert exc is None, f"{type(exc).__name__}: {exc}"
