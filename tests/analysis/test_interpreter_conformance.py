"""Linting an op on literal shapes reports an error exactly when real NumPy raises."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from shapecheck.analysis.api import analyze_source

shapes = st.lists(st.integers(min_value=1, max_value=4), min_size=0, max_size=3).map(tuple)
nonscalar = st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=3).map(tuple)

TEMPLATES = {
    "+": ("c = a + b", "SC101", lambda a, b: a + b),
    "+=": ("a += b", "SC201", None),
    "@": ("c = a @ b", "SC106", lambda a, b: a @ b),
    "concatenate": ("c = np.concatenate([a, b])", "SC108", lambda a, b: np.concatenate([a, b])),
}


def _raises(fn) -> bool:
    try:
        fn()
    except (ValueError, IndexError, TypeError):
        return True
    return False


@settings(max_examples=120, deadline=None)
@given(op=st.sampled_from(sorted(TEMPLATES)), sa=nonscalar, sb=shapes)
def test_lint_verdict_matches_numpy(op, sa, sb):
    statement, code, fn = TEMPLATES[op]
    if op == "@" and not sb:
        sb = (1,)
    source = f"import numpy as np\na = np.ones({sa!r})\nb = np.ones({sb!r})\n{statement}\n"
    a, b = np.ones(sa), np.ones(sb)
    if fn is None:
        def fn(a=a, b=b):
            a += b
    raised = _raises(lambda: fn(a, b)) if op != "+=" else _raises(fn)
    # Warnings (SC102 on (2,) + (2, 1)) describe code that runs; only errors are compared.
    found = [(f.line, f.code) for f in analyze_source(source, "p.py") if f.severity == "error"]
    expected = [(4, code)] if raised else []
    if op == "concatenate" and raised and len(sa) != len(sb):
        expected = [(4, code)]
    assert found == expected, (source, found)
