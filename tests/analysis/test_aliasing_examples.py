"""Every aliasing rule (SC301-SC307) is proven by its own examples: linted, and run for real.

A bad example either raises with the real library at or after its first
marked line (the library's own message for that hazard), or runs to the end
with ``assert`` lines after the marker that state the surprising outcome, so
the run proves the hazard happened. Good examples lint clean and run clean.
"""

from __future__ import annotations

import traceback

import pytest

from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.rules import all_rules
from shapecheck.analysis.rules.aliasing import ALIAS_RULES
from rule_examples import marked, run

CODES = ("SC301", "SC302", "SC303", "SC304", "SC305", "SC306", "SC307")
# The library's own words for each hazard that raises.
RAISES = {
    "SC302": ("read-only", "more than one element of the written-to tensor"),
    "SC303": ("some elements of the input tensor and the written-to tensor refer to a single "
              "memory location",),
    "SC306": ("view size is not compatible with input tensor's size and stride",),
    "SC307": ("a leaf Variable that requires grad is being used in an in-place operation",
              "one of the variables needed for gradient computation has been modified by an "
              "inplace operation", "This view is the output of a function that returns multiple "
              "views"),
}
BAD = [(code, i, ex) for code in CODES for i, ex in enumerate(ALIAS_RULES[code].bad)]
GOOD = [(code, i, ex) for code in CODES for i, ex in enumerate(ALIAS_RULES[code].good)]


def lint(code: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(code, "example.py"))


def test_aliasing_rules_are_in_the_catalog_with_bad_and_good_examples():
    catalog = all_rules()
    for code in CODES:
        spec = catalog[code]
        assert spec is ALIAS_RULES[code]
        assert spec.bad and spec.good, code
        for example in spec.bad:
            assert {c for _, c in marked(example.code)} == {code}, code


@pytest.mark.parametrize("code,index,example", BAD, ids=[f"{c}-bad{i}" for c, i, _ in BAD])
def test_bad_example_reports_exactly_its_marked_lines(code, index, example):
    assert lint(example.code) == marked(example.code)


@pytest.mark.parametrize("code,index,example", GOOD, ids=[f"{c}-good{i}" for c, i, _ in GOOD])
def test_good_example_is_clean(code, index, example):
    assert lint(example.code) == []


@pytest.mark.parametrize("code,index,example", BAD, ids=[f"{c}-bad{i}" for c, i, _ in BAD])
def test_bad_example_misbehaves_with_the_real_library(code, index, example):
    exc = run(example)
    first = marked(example.code)[0][0]
    if exc is None:
        # A silent hazard: the example's own asserts after the marker state what went wrong.
        after = example.code.splitlines()[first:]
        assert any(line.lstrip().startswith("assert ") for line in after), \
            "a silent hazard needs an assert that proves it"
        return
    assert not isinstance(exc, AssertionError), f"the hazard did not happen: {exc}"
    assert any(text in str(exc) for text in RAISES.get(code, ())), f"{type(exc).__name__}: {exc}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<example>"]
    assert frames[-1].lineno >= first


@pytest.mark.parametrize("code,index,example", GOOD, ids=[f"{c}-good{i}" for c, i, _ in GOOD])
def test_good_example_runs_with_the_real_library(code, index, example):
    exc = run(example)
    assert exc is None, f"{type(exc).__name__}: {exc}"


def test_every_marked_line_of_a_raising_example_is_where_the_library_complains():
    """Raising examples other than SC307's saved-output ones fail exactly at the marker."""
    for code, _, example in BAD:
        exc = run(example)
        if exc is None or "gradient computation" in str(exc):
            continue
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<example>"]
        assert frames[-1].lineno == marked(example.code)[0][0], (code, example.code)
