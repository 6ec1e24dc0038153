"""Aliasing rules stay quiet where code deliberately tests view semantics (found on pandas' tests)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from shapecheck.analysis.api import analyze_source


def codes(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(textwrap.dedent(source), "t.py"))


CHECKS_THE_VIEW = """
import numpy as np

def test_ravel(data):
    result = data.ravel()
    result[0] = result[1]
    assert data[0] == data[1]
"""

RELIES_ON_THE_VIEW = """
import numpy as np

def zero_first(x):
    flat = x.reshape(-1)
    flat[0] = 0
    return x
"""


def test_an_assert_that_checks_whether_the_write_landed_is_not_a_layout_finding():
    assert codes(CHECKS_THE_VIEW) == []
    namespace: dict = {}
    exec(compile(textwrap.dedent(CHECKS_THE_VIEW), "t.py", "exec"), namespace)
    namespace["test_ravel"](np.arange(4.0))  # the check passes for a contiguous input


def test_code_that_relies_on_the_write_reaching_the_base_is_still_reported():
    assert codes(RELIES_ON_THE_VIEW) == [(6, "SC306")]
    namespace: dict = {}
    exec(compile(textwrap.dedent(RELIES_ON_THE_VIEW), "t.py", "exec"), namespace)
    assert namespace["zero_first"](np.ones((2, 3)))[0, 0] == 0  # a view: the write lands
    assert namespace["zero_first"](np.ones((3, 2)).T)[0, 0] == 1  # a copy: it is lost


def test_what_a_body_does_to_a_parameter_nothing_is_known_of_gives_it_a_shape():
    # x.reshape(3, 4) is (3, 4) whatever x was, in numpy and torch alike, so the matmul fails
    # for every x; what f returns is still unknown to its callers.
    inside = "import numpy as np\ndef f(x):\n    return x.reshape(3, 4) @ np.ones(5)\n"
    caller = "import numpy as np\ndef f(x):\n    return x.reshape(3, 4)\nz = f(a) + np.ones(5)\n"
    assert codes(inside) == [(3, "SC106")] and codes(caller) == []
    with pytest.raises(ValueError):
        np.arange(12).reshape(3, 4) @ np.ones(5)
    assert codes("import numpy as np\ndef f(x):\n    a = x[[1, 2]]\n    a[0] = 1\n") == []


def test_a_method_whose_meaning_differs_between_the_libraries_says_nothing_of_a_parameter():
    # numpy's transpose(1, 2) of a 3-d array fails, torch's swaps two dims: x may be either.
    code = "def f(x):\n    B, T, C = x.shape\n    return x.transpose(1, 2)\n"
    assert codes("import numpy as np\n" + code) == []
    with pytest.raises(ValueError):
        np.ones((2, 3, 4)).transpose(1, 2)


def test_a_layout_dependent_write_in_a_branch_is_reported_when_the_base_is_read_after():
    code = """
    import numpy as np

    def zero_first(x, flag):
        if flag:
            flat = x.ravel()
            flat[0] = 0
        return x
    """
    assert codes(code) == [(7, "SC306")]
    namespace: dict = {}
    exec(compile(textwrap.dedent(code), "t.py", "exec"), namespace)
    assert namespace["zero_first"](np.ones((2, 3)), True)[0, 0] == 0
    assert namespace["zero_first"](np.ones((3, 2)).T, True)[0, 0] == 1


def test_running_statistics_updated_in_place_are_by_design():
    # torch's batch-norm decomposition updates running_mean and running_var for its callers.
    code = """
    import torch

    def batch_norm_helper(x, running_mean, running_var, momentum):
        mean = x.mean(0)
        running_mean.mul_(1 - momentum)
        running_var.mul_(1 - momentum)
        return x - mean

    running_mean, running_var = torch.zeros(3), torch.ones(3)
    out = batch_norm_helper(torch.randn(4, 3), running_mean, running_var, 0.1)
    print(running_mean, running_var)
    """
    assert codes(code) == []
    renamed = code.replace("running_mean", "stats").replace("running_var", "spread")
    assert [c for _, c in codes(renamed)] == ["SC305"]  # one finding at the call


def test_a_maybe_view_read_again_under_a_callees_name_is_not_its_base():
    # transformers sew_d: out = conv(x).permute(0, 2, 1).contiguous(); out.masked_fill_(...);
    # then self.dropout(out) reads out as its parameter x: the written result, not the conv's.
    code = """
import torch
from torch import nn

def passthrough(x):
    return x

class ConvLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3, padding=1)

    def forward(self, hidden_states, mask):
        out = self.conv(hidden_states.permute(0, 2, 1).contiguous()).permute(0, 2, 1).contiguous()
        out.masked_fill_(mask, 0)
        return passthrough(out)
"""
    assert codes(code) == []


TILES = """
import numpy as np


def blend(x):
    x[0] *= 0.5
    return x.sum()


def blended_total(tiles):
    total = 0.0
    for i in range(len(tiles)):
        total += blend(tiles[i])
    return total


tiles = np.ones((4, 3, 2))
total = blended_total(tiles)
"""


def test_a_loop_that_writes_one_piece_per_pass_and_reads_the_next_is_not_reported():
    # Each pass reads tiles[i] before blend() has written it: the sum is the untouched one.
    assert codes(TILES) == []
    env: dict = {}
    exec(compile(TILES, "<snippet>", "exec"), env)  # noqa: S102 (our own snippet)
    assert env["total"] == 4 * (3 * 2 - 2 * 0.5)
    again = TILES.replace("total += blend(tiles[i])", "total += blend(tiles)")
    assert codes(again) == [(18, "SC305")]  # the whole array, written on every pass


COPY_FALSE_TEST = """
import numpy as np
from numpy.testing import assert_array_equal

def test_array_copy_false():
    d = np.array([1, 2, 3])
    e = np.array(d, copy=False)
    d[1] = 3
    assert_array_equal(e, [1, 3, 3])
    assert e[1] == 3
"""


def test_a_snapshot_read_only_by_asserts_tests_the_sharing_on_purpose():
    # Found on numpy's own tests: the assert checks that e shares d's memory.
    assert codes(COPY_FALSE_TEST) == []
    env: dict = {}
    exec(compile(COPY_FALSE_TEST, "<snippet>", "exec"), env)  # noqa: S102 (our own snippet)
    env["test_array_copy_false"]()
    relied_on = COPY_FALSE_TEST.replace("    assert e[1] == 3\n", "    return e.sum()\n")
    assert codes(relied_on) == [(7, "SC304")]


def test_a_name_bound_in_one_pass_of_a_loop_is_not_the_array_the_next_pass_makes():
    """numpy's chebder: ``c = der`` at the end of a pass, then ``der = np.empty(...)`` and
    writes into der in the next. The new der is other memory: c is no stale alias of it."""
    code = """
    import numpy as np

    def chebder(c, cnt, scl):
        c = np.array(c, ndmin=1, copy=True)
        n = len(c)
        for i in range(cnt):
            n = n - 1
            c *= scl
            der = np.empty((n,) + c.shape[1:], dtype=c.dtype)
            for j in range(n, 2, -1):
                der[j - 1] = (2 * j) * c[j]
                c[j - 2] += (j * c[j]) / (j - 2)
            if n > 1:
                der[1] = 4 * c[2]
            der[0] = c[1]
            c = der
        return c
    """
    assert analyze_source(textwrap.dedent(code), "t.py") == []
    namespace: dict = {}
    exec(compile(textwrap.dedent(code), "t.py", "exec"), namespace)
    coefficients = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert np.allclose(namespace["chebder"](coefficients, 2, 1.0),
                       np.polynomial.chebyshev.chebder(coefficients, 2))
    # The same loop with a real alias: old is x, and x changes before old is read.
    stale = """
    import numpy as np

    def f(k):
        for i in range(k):
            x = np.zeros(3)
            old = x
            x += 1
            print(old)
    """
    assert [f.code for f in analyze_source(textwrap.dedent(stale), "t.py")] == ["SC304"]


CLOBBERS_A_COPY = """
import numpy as np

def _find_repeats(arr):
    arr = np.asarray(arr, np.float64).ravel()
    arr.sort()
    return arr[1:] != arr[:-1]

def slopes(y):
    y = np.array(y, dtype=float, copy=True).ravel()
    reps = _find_repeats(y)
    return reps, READ

result = slopes([3.0, 1.0, 2.0])
"""


@pytest.mark.parametrize("read, expected", [
    ("len(y)", []), ("np.shape(y)", []), ("y.shape", []), ("y.sum()", [(6, "SC306")]),
])
def test_a_size_read_after_a_layout_dependent_write_reads_no_element(read, expected):
    # scipy's theilslopes copies y so that _find_repeats may sort it in place, then reads only
    # len(y): whether the sort reached y changes no value read. Its sum would: reported at the
    # sort, which slopes' own walk reaches (ravel() is 1-D whatever y is).
    code = CLOBBERS_A_COPY.replace("READ", read)
    assert codes(code) == expected
    namespace: dict = {}
    exec(compile(textwrap.dedent(code), "t.py", "exec"), namespace)
    data = [3.0, 1.0, 2.0]
    namespace["slopes"](data)
    assert data == [3.0, 1.0, 2.0]  # the caller's list is never clobbered


RUN_TWICE = """
import numpy as np

def _find_repeats(arr):
    arr = np.asarray(arr, np.float64).ravel()
    arr.sort()
    return arr[1:] != arr[:-1]

def slopes(y, method="joint"):
    y = np.array(y, dtype=float, copy=True).ravel()
    deltas = y[:, None] - y
    reps = _find_repeats(y)
    return reps, deltas, len(y)

first = slopes([3.0, 1.0, 2.0])
second = slopes([3.0, 1.0], method="separate")
"""


def test_a_write_in_one_call_is_not_seen_by_the_array_the_next_call_makes():
    # scipy's tests call theilslopes twice: the second call's y is new memory made by the
    # same line, and its read before the sort is no read of the first call's sorted copy.
    assert codes(RUN_TWICE) == []
    namespace: dict = {}
    exec(compile(textwrap.dedent(RUN_TWICE), "t.py", "exec"), namespace)
    assert namespace["second"][1].shape == (2, 2)
