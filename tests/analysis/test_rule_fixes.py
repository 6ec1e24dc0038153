"""Each rule example with a certain fix: fixed, it lints clean, and the real library no longer shows the bug."""

from __future__ import annotations

import pytest

from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.rules import all_rules
from shapecheck.lint.fixes import fixed_bytes
from rule_examples import marked


def run(source: str) -> None:
    exec(compile(source, "<fixed>", "exec"), {})  # our own rule examples, never user input


FIXED_CODES = ("SC103", "SC301", "SC304", "SC308")
EXAMPLES = [(code, i, ex) for code in FIXED_CODES for i, ex in enumerate(all_rules()[code].bad)]


@pytest.mark.parametrize("code,index,example", EXAMPLES, ids=[f"{c}-bad{i}" for c, i, _ in EXAMPLES])
def test_a_fixed_rule_example_lints_clean_and_no_longer_misbehaves_with_the_real_library(code, index, example):
    findings = [f for f in analyze_source(example.code, "example.py") if f.code == code]
    fixes = [f.fix for f in findings if f.fix is not None]
    if not fixes:
        pytest.skip("no certain fix for this form")
    fixed, applied = fixed_bytes(example.code.encode(), fixes)
    fixed_text = fixed.decode()
    assert applied and analyze_source(fixed_text, "example.py") == []
    changed = [a for a, b in zip(example.code.splitlines(), fixed_text.splitlines()) if a != b]
    assert len(fixed_text.splitlines()) == len(example.code.splitlines()) and len(changed) == len(applied)
    if example.library == "torch":
        pytest.importorskip("torch")
    line = marked(example.code)[0][0]
    try:
        run(fixed_text)
    except AssertionError as exc:
        # The example asserts the bug's effect: after the fix that assertion no longer holds.
        assert exc.__traceback__.tb_next.tb_lineno > line
    else:
        # An example whose bug raised runs now; one that asserted its effect must have failed.
        assert code == "SC308"


def test_the_examples_with_a_certain_fix_are_exactly_the_foldable_forms():
    fixable = {f"{code}-bad{i}" for code, i, ex in EXAMPLES
               if any(f.fix is not None for f in analyze_source(ex.code, "example.py") if f.code == code)}
    # Not fixable: a[mask][0] (no single index says 'the first True'), torch's x[[1, 3]].fill_ and
    # index_select(...).zero_ (methods on a copy), and a state_dict (many tensors, no .clone()).
    assert fixable == {"SC103-bad0", "SC301-bad1", "SC304-bad0", "SC304-bad1", "SC304-bad2",
                       "SC308-bad0", "SC308-bad1"}
