"""A literal list index says what it selects: its integers are checked against the dim they
index (NumPy always, torch when the result has elements to gather), and a list of booleans
selects as many as it holds True."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime.arguments import index_items
from shapecheck.runtime.dialects import NUMPY, TORCH
from shapecheck.runtime.rules.indexing import index
from shapecheck.runtime.verdicts import ShapeError

KEYS = [([0, 2],), ([3, 0],), ([-1, 3, -1],), ([-4],), ([-5],), (slice(None), [1, 3]),
        (slice(None), [4]), (slice(0, 0), [5]), ([5], slice(0, 0)), ([0, 1], [2, 9]),
        ([True, False, True, False],), (slice(None), [True, False, True]),
        (None, [1], Ellipsis), ([2], 1)]


def ours(key: tuple, dialect) -> object:
    try:
        return tuple(index((4, 3), index_items(key), dialect=dialect).shape)
    except ShapeError:
        return "refused"


def real(key: tuple, library: str) -> object:
    x = np.zeros((4, 3)) if library == "numpy" else pytest.importorskip("torch").zeros(4, 3)
    try:
        return tuple(x[key].shape)
    except IndexError:
        return "refused"


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_literal_list_indices_select_or_are_refused_as_in_the_library(key):
    assert ours(key, NUMPY) == real(key, "numpy")
    assert ours(key, TORCH) == real(key, "torch")


def test_an_index_array_broadcast_to_nothing_reads_no_value_to_check():
    key = ([False, False], [1], [False, False, False, False])
    assert tuple(index((2, 1, 4), index_items(key), dialect=NUMPY).shape) == \
        np.zeros((2, 1, 4))[key].shape == (0,)
    key = ([True, False], [1], [False, False, False, True])
    with pytest.raises(ShapeError):
        index((2, 1, 4), index_items(key), dialect=NUMPY)
    with pytest.raises(IndexError):
        np.zeros((2, 1, 4))[key]
