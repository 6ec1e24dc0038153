"""Sizes the values decide (how many elements a mask selects, how many distinct values there are)
are symbols named after the operand's contents: one mask, one size; two masks, two sizes."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime import ops
from shapecheck.runtime.arguments import ArrayArg, value_sizes
from shapecheck.runtime.dialects import get_dialect
from shapecheck.runtime.dims import UNKNOWN, Sym, fits
from shapecheck.runtime.engine import Engine
from shapecheck.runtime.program import Ref, Step

NUMPY, TORCH = get_dialect("numpy"), get_dialect("torch")


def rule(name: str, dialect, *args, **kwargs):
    return ops.lookup(name, dialect).rule(*args, dialect=dialect, **kwargs)


def test_selections_by_one_mask_have_one_size_and_by_two_masks_two():
    x = ArrayArg((3, 4), "float32")
    m = ArrayArg((3, 4), "bool", contents="m")
    other = ArrayArg((3, 4), "bool", contents="k")
    by_m = rule("__getitem__", NUMPY, x, m).shape
    assert by_m == rule("__getitem__", NUMPY, ArrayArg((3, 4), "int64"), m).shape
    assert by_m == rule("np.nonzero", NUMPY, m).outputs[0]
    assert by_m[0] == rule("torch.nonzero", TORCH, m).shape[0]
    assert by_m != rule("__getitem__", NUMPY, x, other).shape
    assert isinstance(by_m[0], Sym)


def test_a_mask_of_no_known_contents_selects_an_unknown_count():
    x = ArrayArg((3, 4), "float32")
    assert rule("__getitem__", NUMPY, x, ArrayArg((3, 4), "bool")).shape == (UNKNOWN,)


def test_a_literal_boolean_list_selects_as_many_as_it_holds_true():
    x = ArrayArg((5, 4), "float32")
    key = (slice(None), [True, False, True, False])
    assert rule("__getitem__", NUMPY, x, key).shape == (5, 2)
    assert np.zeros((5, 4))[key].shape == (5, 2)


def test_masked_select_counts_the_mask_once_per_repeat_of_its_broadcast():
    torch = pytest.importorskip("torch")
    m = ArrayArg((4,), "bool", contents="m")
    same = rule("torch.masked_select", TORCH, ArrayArg((4,), "float32"), m).shape[0]
    twice = rule("torch.masked_select", TORCH, ArrayArg((2, 4), "float32"), m).shape[0]
    assert str(twice) == f"2*({same})"
    mask = torch.tensor([True, False, True, True])
    assert torch.masked_select(torch.zeros(2, 4), mask).shape[0] == 2 * int(mask.sum())


def test_unique_values_and_their_counts_are_as_many():
    x = ArrayArg((3, 4), "float32", contents="x")
    values, counts = rule("np.unique", NUMPY, x, return_counts=True).outputs
    assert values == counts and isinstance(values[0], Sym)
    along = rule("np.unique", NUMPY, x, axis=1).shape
    assert along[0] == 3 and along[1] != values[0]


def test_repeat_interleave_by_counts_is_as_long_as_their_sum():
    r = ArrayArg((3,), "int64", contents="r")
    by_x = rule("torch.repeat_interleave", TORCH, ArrayArg((3, 2), "float32"), r, 0).shape
    alone = rule("torch.repeat_interleave", TORCH, r).shape
    assert by_x == (alone[0], 2) and value_sizes(alone) == [("sum(r)", "the sum of the values of r")]


def test_a_size_the_values_decide_fits_one_run_consistently():
    size = Sym.atom("nnz(m)")
    sizes: dict = {}
    assert fits((size, 2), (5, 2), sizes) and fits((size,), (5,), sizes)
    assert not fits((size,), (4,), sizes)
    assert not fits((size, 2), (5, 3))


def test_the_engine_runs_selections_on_values_and_keeps_their_real_sizes():
    engine = Engine("torch")
    m = np.array([[True, False], [True, True]])
    results = engine.run([Step("array", ((2, 2),), {"dtype": "bool", "values": m}),
                          Step("torch.nonzero", (Ref(0),)),
                          Step("torch.masked_select", (Ref(0), Ref(0)))])
    assert results[1].value.shape == (3, 2)
    assert results[2].value.shape == (3,)


def test_an_empty_or_one_element_operand_leaves_its_count_no_choice():
    torch = pytest.importorskip("torch")
    one, empty = ArrayArg((1,), "float32", contents="x"), ArrayArg((0, 3), "float32", contents="e")
    assert rule("np.unique", NUMPY, one).shape == (1,) == np.unique(np.zeros(1)).shape
    assert rule("np.unique", NUMPY, empty).shape == (0,) == np.unique(np.zeros((0, 3))).shape
    assert rule("torch.unique", TORCH, ArrayArg((1, 3), "float32", contents="y"), dim=0).shape \
        == (1, 3) == tuple(torch.unique(torch.zeros(1, 3), dim=0).shape)
    assert rule("np.flatnonzero", NUMPY, empty).shape == (0,)
