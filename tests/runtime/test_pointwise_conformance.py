"""Pointwise, in-place, out=, copy and masked-fill shape rules against real NumPy and torch.

Each property draws mostly-broadcastable shapes (dims dropped, set to 1 or
perturbed, or reshaped to the same element count) and compares verdict,
result shape, exception class, exact message and warnings with the real
library for every op of the family. Set SHAPECHECK_COUNT_CASES=1 and run
with -s to print how many cases each family compared.
"""

from __future__ import annotations

import os
import re
import warnings
from collections import Counter
from math import prod

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.runtime.dialects import NUMPY, TORCH, TORCH_LEGACY
from shapecheck.runtime.dims import UNKNOWN, Sym, sym
from shapecheck.runtime.rules.pointwise import (
    FALLBACK_OPS, POINTWISE_OPS, copy_into, inplace, masked_fill, out_param, pointwise)
from shapecheck.runtime.verdicts import ShapeError

torch = pytest.importorskip("torch")

CASES: Counter = Counter()


def teardown_module() -> None:
    if os.environ.get("SHAPECHECK_COUNT_CASES"):
        print("\ncases per family:", dict(CASES))


def fast(n: int):
    # SHAPECHECK_EXAMPLES_FACTOR scales the search for a deeper local run.
    n *= int(os.environ.get("SHAPECHECK_EXAMPLES_FACTOR", "1"))
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- shapes ------------------------------------------------------------------

DIM = st.sampled_from([0, 1, 1, 2, 3, 4])
SHAPE = st.lists(DIM, min_size=0, max_size=4).map(tuple)


@st.composite
def near(draw, base: tuple) -> tuple:
    """A shape near base; often broadcastable with it, sometimes just the same size."""
    s = list(base)
    choice = draw(st.integers(0, 11))
    if choice == 0 and s:
        return tuple(draw(st.permutations(s)))
    if choice == 1:
        return (prod(s),) if draw(st.booleans()) else tuple(reversed(s))
    if choice == 2 and len(s) >= 2:
        return (s[0] * s[1],) + tuple(s[2:])
    if s and draw(st.integers(0, 3)) == 0:
        s = s[draw(st.integers(0, len(s))):]
    s = [1 if draw(st.integers(0, 3)) == 0 else d for d in s]
    if s and draw(st.integers(0, 3)) == 0:
        s[draw(st.integers(0, len(s) - 1))] = draw(DIM)
    if draw(st.integers(0, 6)) == 0:
        s = [draw(DIM)] + s
    return tuple(s)


@st.composite
def group(draw, n: int) -> tuple:
    base = draw(SHAPE)
    return tuple(draw(near(base)) for _ in range(n))


# -- running both sides -------------------------------------------------------

_TRIGGERED = re.compile(r" \(Triggered internally at .*\)$", re.S)


def real(fn) -> tuple:
    """(verdict, shape or message, warnings) of running fn on the real library."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = fn()
            result = ("ok", tuple(value.shape))
        except (ValueError, RuntimeError, TypeError) as err:
            result = (type(err).__name__, str(err))
    texts = tuple(_TRIGGERED.sub("", str(w.message)) for w in caught
                  if issubclass(w.category, UserWarning))
    return result + (texts,)


def model(fn) -> tuple:
    try:
        value = fn()
    except ShapeError as err:
        return (err.exc_type, err.message, ())
    return ("ok", tuple(value.shape), tuple(w.message for w in value.warnings))


def t(shape):
    return torch.ones(shape)


def n(shape):
    return np.ones(shape)


# torch spelling -> call on tensors
TORCH_BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "true_divide": torch.true_divide, "floor_divide": torch.floor_divide, "pow": torch.pow,
    "fmod": torch.fmod, "remainder": torch.remainder, "atan2": torch.atan2, "eq": torch.eq,
    "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge,
    "max": torch.max, "min": torch.min, "maximum": torch.maximum, "minimum": torch.minimum,
    "dist": torch.dist, "lerp": lambda a, b: torch.lerp(a, b, 0.5),
}
NUMPY_BINARY = {
    name: getattr(np, name) for name in (
        "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
        "fmod", "remainder", "mod", "arctan2", "equal", "not_equal", "less", "less_equal",
        "greater", "greater_equal", "maximum", "minimum")
}
TORCH_INPLACE = {
    "add": "add_", "sub": "sub_", "mul": "mul_", "div": "div_", "true_divide": "true_divide_",
    "floor_divide": "floor_divide_", "pow": "pow_", "fmod": "fmod_", "remainder": "remainder_",
    "atan2": "atan2_", "eq": "eq_", "ne": "ne_", "lt": "lt_", "le": "le_", "gt": "gt_",
    "ge": "ge_",
}
TORCH_OUT = ("add", "sub", "mul", "div", "pow", "atan2", "maximum", "minimum", "fmod")
TORCH_TERNARY = {
    "addcmul": lambda a, b, c: torch.addcmul(a, b, c),
    "addcdiv": lambda a, b, c: torch.addcdiv(a, b, c),
    "where": lambda a, b, c: torch.where(a > 0, b, c),
    "lerp": lambda a, b, c: torch.lerp(a, b, c),
}


def test_op_tables_are_modelled():
    assert set(TORCH_BINARY) | set(NUMPY_BINARY) | set(TORCH_TERNARY) <= POINTWISE_OPS
    assert FALLBACK_OPS == {"pow", "add", "sub", "mul", "div", "fmod", "remainder",
                            "addcmul", "addcdiv"}


# -- binary math and comparisons -------------------------------------------------

@fast(250)
@given(group(2))
def test_binary_ops_match_numpy_and_torch(shapes):
    a, b = shapes
    for name, fn in NUMPY_BINARY.items():
        expected = real(lambda: fn(n(a), n(b)))
        assert model(lambda: pointwise(a, b, op=name, dialect=NUMPY)) == expected, name
        CASES["binary"] += 1
    for name, fn in TORCH_BINARY.items():
        expected = real(lambda: fn(t(a), t(b)))
        assert model(lambda: pointwise(a, b, op=name, dialect=TORCH)) == expected, name
        CASES["binary"] += 1


@fast(250)
@given(group(3))
def test_ternary_ops_broadcast_all_three_operands_like_torch_and_numpy(shapes):
    # Rotating the operands changes which one torch names "tensor a".
    for a, b, c in (shapes, shapes[1:] + shapes[:1]):
        for name, fn in TORCH_TERNARY.items():
            expected = real(lambda: fn(t(a), t(b), t(c)))
            assert model(lambda: pointwise(a, b, c, op=name, dialect=TORCH)) == expected, name
            CASES["ternary"] += 1
        expected = real(lambda: np.where(n(a) > 0, n(b), n(c)))
        assert model(lambda: pointwise(a, b, c, op="where", dialect=NUMPY)) == expected
        CASES["ternary"] += 1


# -- in place -------------------------------------------------------------------

def _torch_inplace(method, a, *others):
    target = t(a)
    return getattr(target, method)(*others)


@fast(200)
@given(group(3))
def test_inplace_ops_keep_the_target_shape_like_numpy_and_torch(shapes):
    a, b, c = shapes
    for name, fn in NUMPY_BINARY.items():
        def run():
            target = n(a)
            return fn(target, n(b), out=target)
        assert model(lambda: inplace(a, b, op=name, dialect=NUMPY)) == real(run), name
        CASES["inplace"] += 1
    for name, method in TORCH_INPLACE.items():
        expected = real(lambda: _torch_inplace(method, a, t(b)))
        assert model(lambda: inplace(a, b, op=method, dialect=TORCH)) == expected, name
        CASES["inplace"] += 1
    expected = real(lambda: _torch_inplace("lerp_", a, t(b), 0.5))
    assert model(lambda: inplace(a, b, op="lerp_", dialect=TORCH)) == expected
    for method in ("addcmul_", "addcdiv_", "lerp_"):
        expected = real(lambda: _torch_inplace(method, a, t(b), t(c)))
        assert model(lambda: inplace(a, b, c, op=method, dialect=TORCH)) == expected, method
        CASES["inplace"] += 1


# -- out= -------------------------------------------------------------------------

@fast(200)
@given(group(4))
def test_out_param_numpy_refuses_and_torch_resizes_with_its_warning(shapes):
    a, b, c, o = shapes
    for name, fn in NUMPY_BINARY.items():
        expected = real(lambda: fn(n(a), n(b), out=n(o)))
        assert model(lambda: out_param((a, b), o, op=name, dialect=NUMPY)) == expected, name
        CASES["out"] += 1
    for name in TORCH_OUT:
        fn = TORCH_BINARY[name]
        expected = real(lambda: fn(t(a), t(b), out=t(o)))
        assert model(lambda: out_param((a, b), o, op=name, dialect=TORCH)) == expected, name
        CASES["out"] += 1
    expected = real(lambda: torch.addcmul(t(a), t(b), t(c), out=t(o)))
    assert model(lambda: out_param((a, b, c), o, op="addcmul", dialect=TORCH)) == expected
    CASES["out"] += 1


def test_out_resize_warning_is_torchs_text_and_only_for_nonempty_out():
    result = out_param(((3,), (3,)), (2,), op="add", dialect=TORCH)
    assert [w.kind for w in result.warnings] == ["out-resize"]
    assert result.warnings[0].message.startswith(
        "An output with one or more elements was resized since it had shape [2], which does "
        "not match the required output shape [3]. This behavior is deprecated, ")
    assert out_param(((3,), (3,)), (0,), op="add", dialect=TORCH).warnings == ()
    assert out_param(((3,), (3,)), (2,), op="add", dialect=TORCH_LEGACY).warnings == ()


# -- copy_ / copyto -------------------------------------------------------------------

def _copyto(dst, src):
    target = n(dst)
    np.copyto(target, n(src))
    return target


@fast(500)
@given(group(2))
def test_copy_into_matches_copy_and_copyto(shapes):
    for dst, src in (shapes, shapes[::-1]):
        expected = real(lambda: t(dst).copy_(t(src)))
        assert model(lambda: copy_into(dst, src, dialect=TORCH)) == expected
        assert model(lambda: copy_into(dst, src, dialect=NUMPY)) == real(lambda: _copyto(dst, src))
        CASES["copy"] += 2


# -- masked_fill -------------------------------------------------------------------------

def _putmask(x, mask):
    target = n(x)
    np.putmask(target, n(mask) > 0, 1.0)
    return target


@fast(400)
@given(group(2), st.sampled_from([0, 0, 1]))
def test_masked_fill_matches_torch_out_of_place_in_place_and_numpy_putmask(shapes, value_ndim):
    value = torch.ones((1,) * value_ndim)
    for x, mask in (shapes, shapes[::-1]):
        expected = real(lambda: t(x).masked_fill(t(mask) > 0, value))
        got = model(lambda: masked_fill(x, mask, dialect=TORCH, value_ndim=value_ndim))
        assert got == expected
        expected = real(lambda: t(x).masked_fill_(t(mask) > 0, value))
        got = model(lambda: masked_fill(x, mask, dialect=TORCH, inplace=True,
                                        value_ndim=value_ndim))
        assert got == expected
        assert model(lambda: masked_fill(x, mask, dialect=NUMPY)) == real(lambda: _putmask(x, mask))
        CASES["masked_fill"] += 3


# -- torch-legacy: the deprecated 1-D fallback and the backcompat warning ---------------

FALLBACK_TEXT = ("self and other not broadcastable, but have the same number of elements.  "
                 "Falling back to deprecated pointwise behavior.")
BACKCOMPAT_TEXT = ("self and other do not have the same shape, but are broadcastable, and have "
                   "the same number of elements.  Changing behavior in a backwards incompatible "
                   "manner to broadcasting rather than viewing as 1-dimensional.")


@fast(250)
@given(group(2))
def test_legacy_fallback_exactly_when_today_torch_refuses_equal_sized_operands(shapes):
    a, b = shapes
    same_size = prod(a) == prod(b)
    for name, fn in TORCH_BINARY.items():
        today = real(lambda: fn(t(a), t(b)))
        legacy = model(lambda: pointwise(a, b, op=name, dialect=TORCH_LEGACY))
        CASES["legacy"] += 1
        if not a or not b:
            assert legacy[0] == "RuntimeError"  # old PyTorch broadcast no 0-dim tensors
        elif today[0] != "ok" and same_size and name in FALLBACK_OPS:
            assert legacy == ("ok", a, (FALLBACK_TEXT,))
        elif today[0] != "ok":
            assert legacy == today
        elif name in FALLBACK_OPS and same_size and a != b:
            shape = today[1] if name != "dist" else ()
            assert legacy == ("ok", shape, (BACKCOMPAT_TEXT,))
        else:
            assert legacy == today


@fast(250)
@given(group(2))
def test_legacy_inplace_expands_other_to_self_with_old_messages(shapes):
    a, b = shapes
    if not a or not b:
        return
    expand = real(lambda: t(b).expand(a))
    same_size = prod(a) == prod(b)
    for name in ("add", "atan2"):
        legacy = model(lambda: inplace(a, b, op=name + "_", dialect=TORCH_LEGACY))
        CASES["legacy"] += 1
        if expand[0] == "ok":
            backcompat = name in FALLBACK_OPS and same_size and a != b
            assert legacy == ("ok", a, (BACKCOMPAT_TEXT,) if backcompat else ())
        elif name in FALLBACK_OPS and same_size:
            assert legacy == ("ok", a, ("other is not broadcastable to self, but they have the "
                                        "same number of elements.  Falling back to deprecated "
                                        "pointwise behavior.",))
        elif len(b) <= len(a):
            # Today's expand message is the old one plus the sizes.
            assert legacy[0] == "RuntimeError"
            assert expand[1].startswith(legacy[1])
        else:
            assert legacy[0] == "RuntimeError"


def test_legacy_examples_from_the_notes():
    with pytest.raises(ShapeError) as err:
        inplace((1, 3, 1), (3, 1, 7), op="add_", dialect=TORCH_LEGACY)
    assert err.value.message == ("The expanded size of the tensor (1) must match the existing "
                                 "size (7) at non-singleton dimension 2.")
    assert pointwise((4, 1), (4,), op="add", dialect=TORCH_LEGACY).warnings[0].message == \
        BACKCOMPAT_TEXT
    fallback = pointwise((4,), (2, 2), op="add", dialect=TORCH_LEGACY)
    assert fallback.shape == (4,) and fallback.warnings[0].kind == "legacy-fallback"
    with pytest.raises(ShapeError):
        pointwise((4,), (2, 2), op="add", dialect=TORCH)
    with pytest.raises(ShapeError):
        pointwise((4,), (2, 2), op="atan2", dialect=TORCH_LEGACY)  # not a fallback function
    three = pointwise((4,), (2, 2), (4, 1, 1), op="addcmul", dialect=TORCH_LEGACY)
    assert three.shape == (4,) and three.warnings[0].kind == "legacy-fallback"


# -- symbolic sizes: three-valued, errors only when certain ------------------------------

SYM_DIM = st.sampled_from([0, 1, 2, 3, "B", "C"])
SYM_SHAPE = st.lists(SYM_DIM, max_size=3)


def _dims(raw):
    return tuple(sym(d) if isinstance(d, str) else d for d in raw)


def evaluate(d, env):
    if isinstance(d, int):
        return d
    assert isinstance(d, Sym)
    return sum(c * prod(env[a] for a in mono) for mono, c in d.terms)


ENVS = [{"B": b, "C": c} for b in range(4) for c in range(4)]


def _check_symbolic(rule, shapes, concrete_rule):
    """A symbolic verdict must hold for every assignment of the symbols."""
    try:
        result = rule(*shapes)
    except ShapeError:
        result = None
    for env in ENVS:
        concrete = [tuple(evaluate(d, env) for d in s) for s in shapes]
        outcome = concrete_rule(*concrete)
        if result is None:
            assert outcome[0] != "ok", (shapes, env)
        elif outcome[0] == "ok":
            assert len(result.shape) == len(outcome[1]), (shapes, env)
            for mine, theirs in zip(result.shape, outcome[1]):
                assert mine is UNKNOWN or evaluate(mine, env) == theirs, (shapes, env)
            # A warning only when it is certain (its text may name symbols).
            assert len(result.warnings) <= len(outcome[2]), (shapes, env)
    CASES["symbolic"] += 1


@fast(200)
@given(st.lists(SYM_SHAPE, min_size=4, max_size=4))
def test_symbolic_rules_are_sound_for_every_assignment(raw):
    a, b, c, o = (_dims(r) for r in raw)
    _check_symbolic(lambda x, y: pointwise(x, y, op="add", dialect=NUMPY), (a, b),
                    lambda x, y: real(lambda: np.add(n(x), n(y))))
    _check_symbolic(lambda x, y: inplace(x, y, op="add", dialect=NUMPY), (a, b),
                    lambda x, y: real(lambda: np.add(n(x), n(y), out=n(x))))
    _check_symbolic(lambda x, y, z: out_param((x, y), z, op="add", dialect=NUMPY), (a, b, o),
                    lambda x, y, z: real(lambda: np.add(n(x), n(y), out=n(z))))
    _check_symbolic(lambda x, y: copy_into(x, y, dialect=NUMPY), (a, b),
                    lambda x, y: real(lambda: np.copyto(n(x), n(y)) or n(x)))
    _check_symbolic(lambda x, y: masked_fill(x, y, dialect=NUMPY), (a, b),
                    lambda x, y: real(lambda: np.putmask(n(x), n(y) > 0, 1.0) or n(x)))
    _check_symbolic(lambda x, y, z: pointwise(x, y, z, op="addcmul", dialect=TORCH), (a, b, c),
                    lambda x, y, z: model(lambda: pointwise(x, y, z, op="addcmul",
                                                            dialect=TORCH)))
    _check_symbolic(lambda x, y: inplace(x, y, op="add_", dialect=TORCH), (a, b),
                    lambda x, y: model(lambda: inplace(x, y, op="add_", dialect=TORCH)))
    if len(a) == len(b):
        # Known limit: when the fallback (self's rank) and broadcasting (a larger
        # rank) are both possible, no single shape covers both.
        _check_symbolic(lambda x, y: pointwise(x, y, op="add", dialect=TORCH_LEGACY), (a, b),
                        lambda x, y: model(lambda: pointwise(x, y, op="add",
                                                             dialect=TORCH_LEGACY)))
    _check_symbolic(lambda x, y: inplace(x, y, op="add_", dialect=TORCH_LEGACY), (a, b),
                    lambda x, y: model(lambda: inplace(x, y, op="add_", dialect=TORCH_LEGACY)))
    _check_symbolic(lambda x, y, z: out_param((x, y), z, op="add", dialect=TORCH), (a, b, o),
                    lambda x, y, z: model(lambda: out_param((x, y), z, op="add",
                                                            dialect=TORCH)))


def test_symbolic_examples_are_three_valued():
    B = sym("B")
    assert pointwise((B,), (3,), op="add", dialect=TORCH).shape == (3,)
    assert pointwise((B, 1), (B,), op="mul", dialect=NUMPY).shape == (B, B)
    with pytest.raises(ShapeError):
        pointwise((2,), (3,), op="add", dialect=TORCH)
    # Target (1,) may or may not grow: not certain, so no error.
    assert inplace((1,), (B,), op="add_", dialect=TORCH).shape == (1,)
    with pytest.raises(ShapeError):
        inplace((1,), (B, 2), op="add_", dialect=TORCH)
    # (B, 2) vs (2, B): same numel for every B, but broadcastable when B is 1 or 2.
    assert pointwise((B, 2), (2, B), op="add", dialect=TORCH_LEGACY).warnings == ()
    # (2, B) vs (B, 3): sizes differ unless B == 0, so no certain fallback either.
    assert pointwise((2, B, 1), (B, 2, 3), op="add", dialect=TORCH_LEGACY).warnings == ()
