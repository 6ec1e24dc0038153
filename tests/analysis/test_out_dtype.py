"""A result written into out= or in place must cast to the target's dtype: checked on the real
libraries, which raise exactly where SC202 points."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source

PRELUDE = """
import numpy as np
import torch

ints = np.zeros(3, dtype=np.int64)
floats = np.ones(3)
longs = torch.zeros(3, dtype=torch.long)
bytes_ = torch.zeros(3, dtype=torch.uint8)
"""

BAD = [
    ("np.add(floats, floats, out=ints)", "UFuncTypeError"),
    ("np.multiply(floats, 2.0, out=np.zeros(3, dtype=np.uint8))", "UFuncTypeError"),
    ("np.divide(ints, 2, out=ints)", "UFuncTypeError"),
    ("torch.add(torch.ones(3), 1.0, out=longs)", "RuntimeError"),
    ("torch.div(bytes_, 2, out=bytes_)", "RuntimeError"),
    ("acc = np.zeros_like(ints)\nacc += floats", "UFuncTypeError"),
    ("acc = torch.zeros_like(longs)\nacc += torch.ones(3)", "RuntimeError"),
]

GOOD = [
    "np.add(ints, ints, out=ints)",
    "np.add(ints, ints, out=floats)",
    "np.add(floats, floats, out=ints, casting='unsafe')",
    "torch.mul(longs, 2, out=longs)",
    "torch.div(longs, 2, rounding_mode='floor', out=longs)",
    "acc = np.zeros_like(floats)\nacc += ints",
]


def findings(code: str) -> list[tuple[int, str]]:
    found = analyze_source(textwrap.dedent(code), "t.py", AnalysisSettings())
    return sorted((f.line, f.code) for f in found)


def run(code: str) -> None:
    """Run one of this file's own snippets (never user input)."""
    exec(compile(code, "<snippet>", "exec"), {})


@pytest.mark.parametrize(("statement", "error"), BAD)
def test_a_result_that_cannot_cast_to_its_target_is_sc202_and_raises(statement, error):
    pytest.importorskip("torch")
    code = PRELUDE + statement + "\n"
    last = len(code.splitlines())
    assert findings(code) == [(last, "SC202")]
    with pytest.raises(Exception) as raised:
        run(code)
    assert type(raised.value).__name__ == error


@pytest.mark.parametrize("statement", GOOD)
def test_a_result_that_casts_to_its_target_is_clean_and_runs(statement):
    pytest.importorskip("torch")
    code = PRELUDE + statement + "\n"
    assert findings(code) == []
    run(code)


def test_an_out_given_through_a_dict_of_known_keys_is_checked_at_the_call():
    import numpy as np

    source = ("import numpy as np\n"
              "a = np.ones((3, 4))\n"
              "for kw in [dict(out=np.empty((2, 4)))]:\n"
              "    np.add(a, a, **kw)\n")
    found = analyze_source(source, "t.py")
    assert [(f.span.line, f.code) for f in found] == [(4, "SC203")]
    with pytest.raises(ValueError):
        np.add(np.ones((3, 4)), np.ones((3, 4)), out=np.empty((2, 4)))
