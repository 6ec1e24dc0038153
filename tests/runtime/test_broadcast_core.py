"""broadcast.py against real NumPy and torch: verdicts, shapes, exact messages, symbolic soundness."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.runtime.dialects import NUMPY, TORCH, TORCH_LEGACY
from shapecheck.runtime.dims import UNKNOWN, Sym, sym
from shapecheck.runtime.rules.broadcast import broadcast_pair, broadcast_shapes, broadcastable
from shapecheck.runtime.verdicts import ShapeError

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

DIM = st.sampled_from([0, 1, 1, 2, 3, 4])
SHAPE = st.lists(DIM, min_size=0, max_size=4).map(tuple)


@st.composite
def variant(draw, base: tuple) -> tuple:
    """A shape near base: leading dims dropped, dims set to 1, one dim perturbed."""
    s = list(base)
    if s and draw(st.integers(0, 3)) == 0:
        s = s[draw(st.integers(0, len(s))):]
    s = [1 if draw(st.integers(0, 3)) == 0 else d for d in s]
    if s and draw(st.integers(0, 3)) == 0:
        s[draw(st.integers(0, len(s) - 1))] = draw(DIM)
    if draw(st.integers(0, 5)) == 0:
        s = [draw(DIM)] + s
    return tuple(s)


@st.composite
def shape_group(draw, min_size: int = 2, max_size: int = 4) -> list[tuple]:
    base = draw(SHAPE)
    n = draw(st.integers(min_size, max_size))
    return [draw(variant(base)) for _ in range(n)]


def model(shapes, dialect):
    try:
        return ("ok", tuple(broadcast_shapes(*shapes, dialect=dialect).shape))
    except ShapeError as err:
        return (err.exc_type, err.message)


def real(fn):
    try:
        return ("ok", tuple(fn().shape))
    except (ValueError, RuntimeError) as err:
        return (type(err).__name__, str(err))


@SETTINGS
@given(shape_group())
def test_broadcast_shapes_matches_numpy_iterator_verdict_shape_and_message(shapes):
    arrays = [np.empty(s) for s in shapes]
    expected = real(lambda: np.broadcast(*arrays)) if len(shapes) > 1 else ("ok", shapes[0])
    if expected[0] != "ok":
        # np.broadcast words it differently; the ufunc iterator's text is what users see.
        expected = real(lambda: np.nditer(arrays, flags=["zerosize_ok"]))
        expected = (expected[0], expected[1])
    assert model(shapes, NUMPY) == expected


@SETTINGS
@given(shape_group())
def test_broadcast_shapes_matches_torch_broadcast_tensors(shapes):
    torch = pytest.importorskip("torch")
    tensors = [torch.empty(s) for s in shapes]
    expected = real(lambda: torch.broadcast_tensors(*tensors)[0])
    assert model(shapes, TORCH) == expected


@SETTINGS
@given(shape_group(2, 2))
def test_broadcast_pair_and_broadcastable_agree_with_numpy(shapes):
    a, b = shapes
    try:
        expected = np.broadcast_shapes(a, b)
    except ValueError:
        expected = None
    out, failed = broadcast_pair(a, b)
    assert out == expected
    assert (failed is None) == (expected is not None)
    assert broadcastable(a, b) is (expected is not None)


@SETTINGS
@given(shape_group(2, 3))
def test_legacy_torch_refuses_zero_dim_operands_and_otherwise_matches_torch(shapes):
    verdict = model(shapes, TORCH_LEGACY)
    if any(len(s) == 0 for s in shapes):
        assert verdict[0] == "RuntimeError"
        assert "at least one dimension" in verdict[1]
    else:
        assert verdict == model(shapes, TORCH)


# -- symbolic sizes: errors only when certain, shapes right where known ------

SYMBOLS = ("B", "C")
SYM_DIM = st.sampled_from([0, 1, 2, 3, "B", "C"])


def _to_dim(d):
    return sym(d) if isinstance(d, str) else d


def evaluate(d, env):
    if isinstance(d, int):
        return d
    assert isinstance(d, Sym)
    total = 0
    for mono, coeff in d.terms:
        term = coeff
        for atom in mono:
            term *= env[atom]
        total += term
    return total


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(SYM_DIM, max_size=3), min_size=2, max_size=3))
def test_symbolic_broadcast_is_sound_for_every_assignment(raw):
    shapes = [tuple(_to_dim(d) for d in s) for s in raw]
    try:
        result = broadcast_shapes(*shapes, dialect=NUMPY).shape
        certain_error = False
    except ShapeError:
        certain_error = True
    pairwise = broadcastable(shapes[0], shapes[1])
    for b in range(4):
        for c in range(4):
            env = {"B": b, "C": c}
            concrete = [tuple(evaluate(d, env) for d in s) for s in shapes]
            try:
                real_shape = np.broadcast_shapes(*concrete)
            except ValueError:
                real_shape = None
            if certain_error:
                assert real_shape is None, (shapes, env)
                continue
            if real_shape is not None:
                assert len(result) == len(real_shape)
                for mine, theirs in zip(result, real_shape):
                    assert mine is UNKNOWN or evaluate(mine, env) == theirs, (shapes, env)
            pair_ok = True
            try:
                np.broadcast_shapes(concrete[0], concrete[1])
            except ValueError:
                pair_ok = False
            if pairwise is True:
                assert pair_ok
            if pairwise is False:
                assert not pair_ok


def test_symbolic_examples_from_the_brief():
    B = sym("B")
    assert broadcast_shapes((B,), (3,), dialect=TORCH).shape == (3,)
    assert broadcast_shapes((B, 1), (B,), dialect=NUMPY).shape == (B, B)
    with pytest.raises(ShapeError) as err:
        broadcast_shapes((2,), (3,), dialect=TORCH)
    assert err.value.message == ("The size of tensor a (2) must match the size of tensor b (3) "
                                 "at non-singleton dimension 0")
    assert broadcastable((B,), (3,)) is None
