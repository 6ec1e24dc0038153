"""The vectorized verdicts agree pair by pair with rules.broadcast, real NumPy and real PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck.runtime import dims
from shapecheck.runtime.dialects import DIALECTS, NUMPY, TORCH, TORCH_LEGACY
from shapecheck.runtime.rules import pointwise
from shapecheck.runtime.rules.broadcast import broadcast_pair, broadcast_shapes
from shapecheck.runtime.vectorized import (
    FALLBACK_ERROR,
    FALLBACK_NONE,
    FALLBACK_WARNING,
    MISSING,
    ShapeBatch,
    broadcast_verdicts,
    broadcast_verdicts_of,
)
from shapecheck.runtime.verdicts import ShapeError


def random_pairs(seed: int, count: int, max_ndim: int = 5, max_dim: int = 3):
    """Pairs with ndim 0..max_ndim and dims 0..max_dim, half of b derived from a so many broadcast."""
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(count):
        a = tuple(int(d) for d in rng.integers(0, max_dim + 1, rng.integers(0, max_ndim + 1)))
        if rng.random() < 0.5:
            b = tuple(int(d) for d in rng.integers(0, max_dim + 1, rng.integers(0, max_ndim + 1)))
        else:
            # Take a's trailing dims, set some to 1, maybe prepend some: mostly broadcastable.
            keep = a[len(a) - int(rng.integers(0, len(a) + 1)):]
            b = tuple(1 if rng.random() < 0.3 else d for d in keep)
            b = tuple(int(d) for d in rng.integers(0, max_dim + 1, rng.integers(0, 2))) + b
        if rng.random() < 0.5:
            a, b = b, a
        pairs.append((a, b))
    return pairs


def scalar_expectation(a, b, dialect):
    """Every verdict the vectorized module makes, computed by the scalar rules."""
    try:
        result = broadcast_shapes(a, b, dialect=dialect).shape
    except ShapeError:
        result = None
    _, failing = broadcast_pair(a, b)
    if result is None and failing is None:
        failing_index = -1  # torch-legacy refused a 0-d operand; no dim failed
    else:
        failing_index = -1 if result is not None else failing
    equal_numel = dims.numel(a) == dims.numel(b)
    inplace_ok = result is not None and tuple(result) == tuple(a)
    # Old PyTorch had no 0-d tensors: with one, legacy is an error, never a fallback.
    can_fall_back = dialect.is_torch and equal_numel and not (
        dialect.legacy and (len(a) == 0 or len(b) == 0))
    code = FALLBACK_WARNING if dialect.legacy else FALLBACK_ERROR
    return {
        "broadcastable": result is not None,
        "result": result,
        "failing_index": failing_index,
        "inplace_ok": inplace_ok,
        "fallback": code if can_fall_back and result is None else FALLBACK_NONE,
        "inplace_fallback": code if can_fall_back and not inplace_ok else FALLBACK_NONE,
        "backcompat": result is not None and equal_numel and tuple(a) != tuple(b),
    }


def vectorized_row(verdicts, i):
    ok = bool(verdicts.broadcastable[i])
    return {
        "broadcastable": ok,
        "result": verdicts.result.shape(i) if ok else None,
        "failing_index": int(verdicts.failing_index[i]),
        "inplace_ok": bool(verdicts.inplace_ok[i]),
        "fallback": int(verdicts.fallback[i]),
        "inplace_fallback": int(verdicts.inplace_fallback[i]),
        "backcompat": bool(verdicts.backcompat[i]),
    }


@pytest.mark.parametrize("dialect", list(DIALECTS.values()), ids=str)
def test_every_verdict_matches_the_pointwise_rules_for_add_and_add_(dialect):
    """rules.pointwise owns the fallback and in-place semantics; the twin must say the same."""
    pairs = random_pairs(seed=9, count=2000)
    verdicts = broadcast_verdicts_of(pairs, dialect)
    for i, (a, b) in enumerate(pairs):
        out_of_place = _outcome(lambda: pointwise.pointwise(a, b, op="add", dialect=dialect))
        in_place = _outcome(lambda: pointwise.inplace(a, b, op="add", dialect=dialect))
        expected_out = verdicts.result.shape(i) if verdicts.broadcastable[i] else (
            a if verdicts.fallback[i] == FALLBACK_WARNING else None)
        expected_in = a if verdicts.inplace_ok[i] or verdicts.inplace_fallback[i] == \
            FALLBACK_WARNING else None
        assert out_of_place[0] == expected_out, (a, b)
        assert in_place[0] == expected_in, (a, b)
        legacy_backcompat = dialect.legacy and dialect.is_torch and bool(verdicts.backcompat[i])
        assert ("backcompat" in out_of_place[1]) == legacy_backcompat, (a, b)
        assert ("backcompat" in in_place[1]) == (legacy_backcompat and bool(verdicts.inplace_ok[i]))
        assert ("legacy-fallback" in out_of_place[1]) == (verdicts.fallback[i] == FALLBACK_WARNING)
        assert ("legacy-fallback" in in_place[1]) == \
            (verdicts.inplace_fallback[i] == FALLBACK_WARNING)


def _outcome(call):
    """(result shape or None on ShapeError, warning kinds)."""
    try:
        result = call()
    except ShapeError:
        return None, []
    return result.shape, [w.kind for w in result.warnings]


@pytest.mark.parametrize("dialect", list(DIALECTS.values()), ids=str)
def test_every_verdict_matches_the_scalar_rules_on_random_pairs(dialect):
    pairs = random_pairs(seed=7, count=4000)
    verdicts = broadcast_verdicts_of(pairs, dialect)
    assert len(verdicts) == len(pairs)
    for i, (a, b) in enumerate(pairs):
        assert vectorized_row(verdicts, i) == scalar_expectation(a, b, dialect), (a, b)


shape_st = st.lists(st.integers(0, 4), min_size=0, max_size=6).map(tuple)


@settings(max_examples=150, deadline=None)
@given(pairs=st.lists(st.tuples(shape_st, shape_st), min_size=0, max_size=40),
       extra_width=st.integers(0, 2),
       dialect=st.sampled_from(list(DIALECTS.values())))
def test_verdicts_do_not_depend_on_padding_width_or_batch_mates(pairs, extra_width, dialect):
    """Each row depends only on its own pair, whatever the padding width or batch mates."""
    width = max((max(len(a), len(b)) for a, b in pairs), default=0) + extra_width
    # a and b may be padded to different widths; broadcast_verdicts widens the narrower.
    a = ShapeBatch.from_shapes([a for a, _ in pairs], width)
    b = ShapeBatch.from_shapes([b for _, b in pairs], max((len(b) for _, b in pairs), default=0))
    verdicts = broadcast_verdicts(a, b, dialect)
    for i, (x, y) in enumerate(pairs):
        assert vectorized_row(verdicts, i) == scalar_expectation(x, y, dialect), (x, y)


def test_shape_batch_round_trips_shapes_and_marks_missing_leading_dims():
    shapes = [(), (0,), (5, 1, 4, 1), (3, 1, 1)]
    batch = ShapeBatch.from_shapes(shapes, width=5)
    assert batch.to_shapes() == shapes
    assert batch.ndim.tolist() == [0, 1, 4, 3]
    assert batch.dims[2].tolist() == [MISSING, 5, 1, 4, 1]
    assert batch.width == 5 and len(batch) == 4
    with pytest.raises(ValueError):
        batch.dims[0, 0] = 3  # verdicts share these arrays; they must not change under them


@pytest.mark.parametrize("bad, words", [
    (np.array([[2, -1]]), "after a present"),
    (np.array([[-2, 3]]), "negative"),
    (np.array([1, 2]), "2-D"),
    (np.array([[1.5, 2.0]]), "integers"),
])
def test_shape_batch_rejects_malformed_arrays_with_one_clear_error(bad, words):
    with pytest.raises(ValueError, match=words):
        ShapeBatch(bad)


def test_from_shapes_rejects_negative_dims_and_too_small_width():
    with pytest.raises(ValueError, match="negative"):
        ShapeBatch.from_shapes([(2, -3)])
    with pytest.raises(ValueError, match="width"):
        ShapeBatch.from_shapes([(2, 3, 4)], width=2)


def test_batches_of_different_length_or_unknown_dialect_are_refused():
    a = ShapeBatch.from_shapes([(1,), (2,)])
    with pytest.raises(ValueError, match="length"):
        broadcast_verdicts(a, ShapeBatch.from_shapes([(1,)]), "numpy")
    with pytest.raises(ValueError, match="unknown dialect"):
        broadcast_verdicts(a, a, "jax")


def test_all_zero_dim_and_empty_batches_work():
    verdicts = broadcast_verdicts_of([((), ()), ((), ())], "numpy")
    assert verdicts.broadcastable.tolist() == [True, True]
    assert verdicts.result.to_shapes() == [(), ()]
    assert verdicts.inplace_ok.tolist() == [True, True]
    legacy = broadcast_verdicts_of([((), ())], TORCH_LEGACY)
    assert legacy.broadcastable.tolist() == [False]
    # Old PyTorch had no 0-d tensors to view as 1-D: an error, not the fallback.
    assert legacy.fallback.tolist() == [FALLBACK_NONE]
    assert legacy.inplace_fallback.tolist() == [FALLBACK_NONE]
    empty = broadcast_verdicts_of([], "torch")
    assert len(empty) == 0 and empty.result.to_shapes() == []


def test_equal_numel_stays_exact_where_int64_products_would_wrap():
    # 2**32 * 2**32 wraps to 0 in int64, which would falsely equal the numel of (0,).
    big = (2**32, 2**32)
    verdicts = broadcast_verdicts_of([(big, (0,)), (big, (2**31, 2**31, 4))], TORCH)
    assert verdicts.broadcastable.tolist() == [False, False]
    assert verdicts.fallback.tolist() == [FALLBACK_NONE, FALLBACK_ERROR]


def test_numpy_dialects_never_report_the_torch_fallback():
    pairs = random_pairs(seed=11, count=500)
    for name in ("numpy", "numpy-1"):
        assert (broadcast_verdicts_of(pairs, name).fallback == FALLBACK_NONE).all()
    torch_fallbacks = broadcast_verdicts_of(pairs, "torch").fallback
    assert (torch_fallbacks == FALLBACK_ERROR).any()  # the sample exercises the case


def test_broadcast_and_inplace_verdicts_match_real_numpy():
    pairs = random_pairs(seed=3, count=1000)
    verdicts = broadcast_verdicts_of(pairs, NUMPY)
    for i, (a, b) in enumerate(pairs):
        try:
            expected = np.broadcast_shapes(a, b)
        except ValueError:
            expected = None
        assert (verdicts.result.shape(i) if verdicts.broadcastable[i] else None) == expected
        x = np.zeros(a)
        try:
            x += np.ones(b)
            inplace = True
        except ValueError:
            inplace = False
        assert bool(verdicts.inplace_ok[i]) == inplace, (a, b)


def test_broadcast_inplace_and_fallback_verdicts_match_real_torch():
    torch = pytest.importorskip("torch")
    pairs = random_pairs(seed=5, count=800)
    verdicts = broadcast_verdicts_of(pairs, TORCH)
    for i, (a, b) in enumerate(pairs):
        try:
            expected = tuple(torch.broadcast_shapes(a, b))
        except RuntimeError:
            expected = None
        assert (verdicts.result.shape(i) if verdicts.broadcastable[i] else None) == expected
        try:
            torch.add(torch.zeros(a), torch.ones(b))
            added = True
        except RuntimeError:
            added = False
        # Today's torch has no 1-D fallback: every non-broadcastable pair errors.
        assert added == bool(verdicts.broadcastable[i])
        if verdicts.fallback[i] == FALLBACK_ERROR:
            assert not added
        x = torch.zeros(a)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x.add_(torch.ones(b))
            inplace = True
        except RuntimeError:
            inplace = False
        assert bool(verdicts.inplace_ok[i]) == inplace, (a, b)


def test_batches_of_different_storage_widths_give_the_same_verdicts():
    # int16, int32 and int64 storage (sizes past 32767 and 2**31) meet in one call.
    big, huge = 40_000, 2**31 + 3
    pairs = [((big, 1), (3, 1, big)), ((5,), (huge,)), ((huge, 1), (1, huge)), ((1,), (big,)),
             ((2, big), (big, 2)), ((huge,), (huge,))]
    for dialect in DIALECTS.values():
        verdicts = broadcast_verdicts(ShapeBatch.from_shapes([a for a, _ in pairs]),
                                      ShapeBatch.from_shapes([b for _, b in pairs]), dialect)
        for i, (a, b) in enumerate(pairs):
            assert vectorized_row(verdicts, i) == scalar_expectation(a, b, dialect), (a, b)
    assert ShapeBatch.from_shapes([(big,)]).dims.dtype == np.int32
    assert ShapeBatch.from_shapes([(huge,)]).dims.dtype == np.int64
    assert ShapeBatch.from_shapes([(7,)]).dims.dtype == np.int16
