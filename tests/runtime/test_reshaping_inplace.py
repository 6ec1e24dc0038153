"""In-place ops that change the target's own shape (unsqueeze_, t_, resize_, a.shape = s) give
the shape the real libraries give the target, by their out-of-place twin's rule, in the op table
and in the engine."""

from __future__ import annotations

import numpy as np
import pytest
from real_library import class_names

from shapecheck.runtime import ops
from shapecheck.runtime.dialects import NUMPY, TORCH
from shapecheck.runtime.engine import Engine
from shapecheck.runtime.layout import Layout
from shapecheck.runtime.ops import ArrayArg, lookup
from shapecheck.runtime.verdicts import ShapeError

# (op, its twin, the call's arguments after the target) on a (2, 1, 3) or a (2, 3) target
TORCH_CASES = [
    ("unsqueeze_", "unsqueeze", (0,)), ("unsqueeze_", "unsqueeze", (-1,)),
    ("unsqueeze_", "unsqueeze", (4,)), ("unsqueeze_", "unsqueeze", (5,)),
    ("squeeze_", "squeeze", ()), ("squeeze_", "squeeze", (1,)), ("squeeze_", "squeeze", (0,)),
    ("squeeze_", "squeeze", ((0, 1),)), ("squeeze_", "squeeze", (3,)),
    ("transpose_", "transpose", (0, 2)), ("transpose_", "transpose", (-1, 0)),
    ("transpose_", "transpose", (0, 3)),
    ("t_", "t", ()),
    ("swapdims_", "swapdims", (0, 1)), ("swapaxes_", "swapaxes", (2, 0)),
    ("as_strided_", "as_strided", ((3, 2), (1, 3))),
    ("resize_", "resize_", (4, 5)), ("resize_", "resize_", ((6,),)), ("resize_", "resize_", (2,)),
]


def _torch_target(torch, shape):
    return torch.arange(float(np.prod(shape))).reshape(shape)


def _real(call):
    try:
        target = call()
        return "ok", tuple(target.shape)
    except Exception as exc:  # noqa: BLE001 - the library's refusal is the thing compared
        return "err", class_names(exc), str(exc)


def _rule(spec, shape, args, dialect):
    try:
        return "ok", tuple(spec.rule(ArrayArg(shape, "float32"), *args, dialect=dialect).shape)
    except ShapeError as err:
        return "err", err.exc_type, err.message


def _same(real, ours):
    if real[0] == "ok" or ours[0] == "ok":
        return real == ours
    return ours[1] in real[1] and ours[2] == real[2]


@pytest.mark.parametrize("shape", [(2, 1, 3), (2, 3)])
@pytest.mark.parametrize("name,twin,args", TORCH_CASES)
def test_a_torch_inplace_reshape_gives_the_target_the_shape_torch_gives_it(name, twin, args,
                                                                            shape):
    torch = pytest.importorskip("torch")
    spec = lookup(name, TORCH)
    assert spec.inplace and spec.reshapes_target == twin
    real = _real(lambda: _applied(torch, shape, name, args))
    ours = _rule(spec, shape, args, TORCH)
    assert _same(real, ours), (name, args, shape, real, ours)
    if twin != name and real[0] == "ok":  # the twin's own rule: the same shape out of place
        assert tuple(lookup(twin, TORCH).rule(ArrayArg(shape), *args, dialect=TORCH).shape) == \
            real[1]


def _applied(torch, shape, name, args):
    target = _torch_target(torch, shape)
    returned = getattr(target, name)(*args)
    assert returned is target  # torch returns the target itself, reshaped
    return target


def test_resize_as_takes_the_other_tensors_shape_like_torch():
    torch = pytest.importorskip("torch")
    target, other = torch.zeros(2, 3), torch.zeros(7, 1)
    target.resize_as_(other)
    assert tuple(lookup("resize_as_", TORCH).rule(ArrayArg((2, 3)), ArrayArg((7, 1)),
                                                  dialect=TORCH).shape) == tuple(target.shape)


NUMPY_CASES = [
    ("resize", ((4, 5),)), ("resize", (4, 5)), ("resize", (2,)), ("resize", ((-1,),)),
    ("shape", ((3, 2),)), ("shape", ((-1,),)), ("shape", ((3, -1),)), ("shape", ((4,),)),
    ("shape", (6,)),
]


def _numpy_applied(name, shape, args):
    target = np.arange(float(np.prod(shape))).reshape(shape).copy()  # owning its memory
    if name == "shape":
        target.shape = args[0]
    else:
        assert target.resize(*args, refcheck=False) is None  # in place, returns None
    return target


@pytest.mark.parametrize("name,args", NUMPY_CASES)
def test_a_numpy_inplace_reshape_gives_the_array_the_shape_numpy_gives_it(name, args):
    shape = (2, 3)
    spec = lookup(name, NUMPY)
    assert spec.inplace and spec.reshapes_target is not None
    real = _real(lambda: _numpy_applied(name, shape, args))
    ours = _rule(spec, shape, args, NUMPY)
    assert _same(real, ours), (name, args, real, ours)


def test_np_resize_repeats_into_any_shape_like_numpy():
    for new in ((4, 5), 7, (0,)):
        real = np.resize(np.arange(6.0).reshape(2, 3), new).shape
        assert tuple(lookup("np.resize", NUMPY).rule(ArrayArg((2, 3)), new,
                                                     dialect=NUMPY).shape) == real


def test_a_shape_assignment_that_needs_a_copy_fails_like_numpy():
    transposed = np.zeros((2, 3)).T
    with pytest.raises(AttributeError) as raised:
        transposed.shape = (6,)
    layout = Layout(0, (3, 2), (1, 3))
    with pytest.raises(ShapeError) as ours:
        lookup("shape", NUMPY).rule(ArrayArg((3, 2), "float64", layout), (6,), dialect=NUMPY)
    assert ours.value.exc_type == "AttributeError" and ours.value.message == str(raised.value)
    transposed.shape = (3, 1, 2)  # a size-1 axis needs no copy
    assert tuple(lookup("shape", NUMPY).rule(ArrayArg((3, 2), "float64", layout), (3, 1, 2),
                                             dialect=NUMPY).shape) == transposed.shape


def test_every_inplace_reshape_is_inplace_and_names_an_op_of_its_library():
    reshaping = [s for s in ops.all_specs() if s.reshapes_target is not None]
    assert {s.name for s in reshaping} >= {"unsqueeze_", "squeeze_", "transpose_", "t_",
                                           "swapdims_", "swapaxes_", "as_strided_", "resize_",
                                           "resize_as_", "resize", "shape"}
    for spec in reshaping:
        dialect = TORCH if spec.library == "torch" else NUMPY
        assert spec.inplace and lookup(spec.reshapes_target, dialect) is not None, spec.name
    assert lookup("T", NUMPY).reshapes_target is None  # a.T is a new view, not in place


@pytest.mark.parametrize("name,twin,args", [c for c in TORCH_CASES if c[0] != "resize_"])
def test_the_engine_reshapes_the_target_itself_and_keeps_its_memory(name, twin, args):
    torch = pytest.importorskip("torch")
    engine = Engine("torch")
    target = engine.array((2, 1, 3))
    real = _real(lambda: _applied(torch, (2, 1, 3), name, args))
    try:
        value, _ = engine.apply(name, target, *args)
    except ShapeError as err:
        assert real[0] == "err" and err.message == real[2]
        return
    assert value is target and real == ("ok", target.shape)
    if target.values_known:  # a write through the reshaped target reaches the same memory
        expected = _applied(torch, (2, 1, 3), name, args)
        assert np.array_equal(target.data, expected.numpy())


def test_the_engine_resizes_like_the_libraries_keeping_the_first_elements():
    torch = pytest.importorskip("torch")
    engine = Engine("torch")
    target = engine.array((2, 3))
    engine.apply("resize_", target, 2, 2)
    assert np.array_equal(target.data, torch.arange(6.0).reshape(2, 3).resize_(2, 2).numpy())
    grown = engine.array((2, 3))
    engine.apply("resize_", grown, 4, 4)
    assert grown.shape == (4, 4) and not grown.values_known  # torch leaves new memory as is
    held = np.arange(6.0).reshape(2, 3).copy()
    held.resize((3, 3), refcheck=False)
    target = Engine("numpy").array((2, 3))
    Engine("numpy").apply("resize", target, (3, 3))
    assert np.array_equal(target.data, held)


def test_autograd_refuses_an_inplace_reshape_of_a_leaf_that_requires_grad_like_torch():
    torch = pytest.importorskip("torch")
    for name, args in (("unsqueeze_", (0,)), ("t_", ()), ("resize_", (3,))):
        leaf = torch.zeros(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError) as raised:
            getattr(leaf, name)(*args)
        engine = Engine("torch")
        with pytest.raises(ShapeError) as ours:
            engine.apply(name, engine.array((2, 3), requires_grad=True), *args)
        assert ours.value.message == str(raised.value).splitlines()[0]


def test_an_inplace_reshape_of_an_expanded_tensor_is_no_write_into_repeated_elements():
    torch = pytest.importorskip("torch")
    expanded = torch.zeros(3).expand(2, 3)
    expanded.unsqueeze_(0)  # torch allows it: no element is written
    engine = Engine("torch")
    view, _ = engine.apply("expand", engine.array((3,)), 2, 3)
    engine.apply("unsqueeze_", view, 0)
    assert view.shape == tuple(expanded.shape)
