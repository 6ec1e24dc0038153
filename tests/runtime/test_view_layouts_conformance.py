"""The runtime's view layouts agree with real PyTorch and real NumPy.

Random shapes go through random chains of view ops (transpose, permute,
expand, stepped slices, narrow, diagonal, unsqueeze, select, squeeze,
unfold, movedim, ...). After every step the layout the op table computes
(``ops.output_layout``) must be the real tensor's storage offset, shape and
strides; "maybe" ops (reshape, contiguous) must view exactly when the real
library does; and torch's ``.view`` must fail exactly when the runtime says
the layout cannot be viewed, with torch's own message. For NumPy the layout
is also compared through ``np.shares_memory``.
"""

from __future__ import annotations

import collections
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.runtime import ops
from shapecheck.runtime.dialects import NUMPY, TORCH
from shapecheck.runtime.layout import Layout, overlap
from shapecheck.runtime.verdicts import ShapeError

TALLY: collections.Counter = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _print_tally():
    yield
    for key in sorted(TALLY):
        print(f"view layout conformance {key}: {TALLY[key]}")


def conformance(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


def _dim(data, n: int) -> int:
    return data.draw(st.integers(-n, n - 1))


def torch_step(data, shape: tuple) -> tuple[str, tuple]:
    """One view op that applies to a tensor of this shape: (op name, call arguments)."""
    n = len(shape)
    choices = ["unsqueeze", "expand", "reshape", "contiguous"]
    if n >= 1:
        choices += ["transpose", "permute", "slice", "squeeze", "movedim"]
    filled = [d for d in range(n) if shape[d] > 0]
    if filled:
        choices += ["narrow", "select", "unfold"]
    if n <= 2:
        choices.append("t")
    if n >= 2:
        choices += ["diagonal", "mT"]
    name = data.draw(st.sampled_from(choices))
    if name in ("t", "mT", "contiguous"):
        return name, ()
    if name == "transpose":
        return name, (_dim(data, n), _dim(data, n))
    if name == "permute":
        return name, tuple(data.draw(st.permutations(range(n))))
    if name == "movedim":
        return name, (_dim(data, n), _dim(data, n))
    if name == "unsqueeze":
        return name, (data.draw(st.integers(-n - 1, n)),)
    if name == "expand":
        sizes = [data.draw(st.integers(1, 3)) if s == 1 else data.draw(st.sampled_from([s, -1]))
                 for s in shape]
        lead = data.draw(st.lists(st.integers(1, 3), max_size=1))
        return name, tuple(lead + sizes)
    if name == "slice":
        d = data.draw(st.integers(0, n - 1))
        start = data.draw(st.integers(0, shape[d]))
        stop = data.draw(st.integers(start, shape[d]))
        step = data.draw(st.integers(1, 3))
        return "__getitem__", ((slice(None),) * d + (slice(start, stop, step),),)
    if name == "narrow":
        d = data.draw(st.sampled_from(filled))
        start = data.draw(st.integers(-shape[d], shape[d] - 1))
        length = data.draw(st.integers(0, shape[d] - start % shape[d]))
        return name, (d, start, length)
    if name == "select":
        d = data.draw(st.sampled_from(filled))
        return name, (d, data.draw(st.integers(-shape[d], shape[d] - 1)))
    if name == "squeeze":
        return name, data.draw(st.sampled_from([(), (_dim(data, n),)]))
    if name == "unfold":
        d = data.draw(st.sampled_from(filled))
        return name, (d, data.draw(st.integers(1, shape[d])), data.draw(st.integers(1, 2)))
    if name == "diagonal":
        d1 = data.draw(st.integers(0, n - 1))
        d2 = data.draw(st.integers(0, n - 1).filter(lambda d: d != d1))
        return name, (data.draw(st.integers(-2, 2)), d1, d2)
    return "reshape", (_target_shape(data, shape),)


def _target_shape(data, shape: tuple) -> tuple:
    """Another shape with the same number of elements: -1, merged neighbours, or a split."""
    numel = math.prod(shape)
    kind = data.draw(st.sampled_from(["flat", "merge", "factor"]))
    if kind == "flat" or len(shape) < 2 or numel == 0:
        return (-1,)
    if kind == "merge":
        i = data.draw(st.integers(0, len(shape) - 2))
        return shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2:]
    divisors = [k for k in range(1, numel + 1) if numel % k == 0]
    first = data.draw(st.sampled_from(divisors))
    return (first, numel // first)


def runtime_layout(name: str, args: tuple, shape: tuple, layout: Layout, dialect=TORCH):
    """The op table's verdict for one call: (output shape, layout or None, resolved kind)."""
    spec = ops.lookup(name, dialect)
    call = (ops.ArrayArg(shape, "float32", layout),) + args
    out = tuple(spec.rule(*call, dialect=dialect).shape)
    kind = ops.resolved_view_kind(spec, call, {}, dialect)
    return out, ops.output_layout(spec, call, {}, dialect, out), kind


def torch_layout(t) -> Layout:
    return Layout(t.storage_offset(), tuple(t.shape), tuple(t.stride()))


def same_place(got: Layout | None, want: Layout, *, unit_strides: bool = True) -> bool:
    """The same elements in the same order. An empty view touches nothing, and the libraries
    leave its offset wherever they like (torch at the slice start, NumPy at the base). NumPy
    gives a unit dim whatever stride is handy (0 for ``None``), which steps nowhere, so
    ``unit_strides=False`` compares only the strides of the longer dims."""
    if got is None or got.shape != want.shape:
        return False
    if want.numel == 0:
        return True
    if unit_strides:
        return got == want
    return got.offset == want.offset and all(
        a == b for n, a, b in zip(want.shape, got.strides, want.strides) if n != 1)


@given(shapes, st.data())
@conformance(400)
def test_torch_view_chains_have_the_runtimes_layouts(shape, data):
    torch = pytest.importorskip("torch")
    t = torch.arange(math.prod(shape), dtype=torch.float32).reshape(shape)
    layout = Layout.contiguous(shape)
    for _ in range(data.draw(st.integers(1, 5))):
        name, args = torch_step(data, tuple(t.shape))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                real = getattr(t, name)
                real = real(*args) if callable(real) else real
        except (RuntimeError, IndexError, TypeError) as exc:
            TALLY[f"torch {name} raises"] += 1
            with pytest.raises(ShapeError):
                runtime_layout(name, args, tuple(t.shape), layout)
            assert "view size is not compatible" not in str(exc)
            continue
        shape_out, got, kind = runtime_layout(name, args, tuple(t.shape), layout)
        assert shape_out == tuple(real.shape), (name, args)
        shares = real.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
        if kind == "none":
            TALLY[f"torch {name} copies"] += 1
            assert not shares or t.numel() == 0, (name, args, layout)
            layout = Layout.contiguous(tuple(real.shape))
        else:
            TALLY[f"torch {name} views"] += 1
            assert shares or real.numel() == 0, (name, args, layout)
            assert same_place(got, torch_layout(real)), (name, args, layout)
            layout = got
        t = real
    _check_view(t, layout, _target_shape(data, tuple(t.shape)))


def _check_view(t, layout: Layout, target: tuple) -> None:
    """``.view(target)`` fails in torch exactly when the runtime's view rule says so."""
    spec = ops.lookup("view", TORCH)
    arg = ops.ArrayArg(tuple(t.shape), "float32", layout)
    try:
        real = t.view(*target)
    except RuntimeError as exc:
        TALLY["torch .view refused"] += 1
        with pytest.raises(ShapeError) as refused:
            spec.rule(arg, *target, dialect=TORCH)
        assert refused.value.message == str(exc)
        assert refused.value.kind == "view-layout"
        return
    TALLY["torch .view allowed"] += 1
    out = tuple(spec.rule(arg, *target, dialect=TORCH).shape)
    got = ops.output_layout(spec, (arg,) + target, {}, TORCH, out)
    assert same_place(got, torch_layout(real))


def numpy_step(data, shape: tuple) -> tuple[str, tuple]:
    n = len(shape)
    choices = ["np.expand_dims", "np.broadcast_to", "reshape", "ravel", "T"]
    if n >= 1:
        choices += ["transpose", "swapaxes", "np.moveaxis", "slice", "index", "squeeze"]
    if n >= 2:
        choices.append("diagonal")
    name = data.draw(st.sampled_from(choices))
    if name in ("T", "ravel"):
        return name, ()
    if name == "transpose":
        return name, tuple(data.draw(st.permutations(range(n))))
    if name in ("swapaxes", "np.moveaxis"):
        return name, (_dim(data, n), _dim(data, n))
    if name == "np.expand_dims":
        return name, (data.draw(st.integers(-n - 1, n)),)
    if name == "np.broadcast_to":
        lead = data.draw(st.lists(st.integers(1, 3), max_size=1))
        return name, (tuple(lead) + tuple(data.draw(st.integers(1, 3)) if s == 1 else s
                                          for s in shape),)
    if name == "slice":
        d = data.draw(st.integers(0, n - 1))
        start = data.draw(st.integers(-shape[d], shape[d]))
        stop = data.draw(st.integers(-shape[d], shape[d]))
        step = data.draw(st.sampled_from([1, 2, 3, -1, -2]))
        return "__getitem__", ((slice(None),) * d + (slice(start, stop, step),),)
    if name == "index":
        filled = [d for d in range(n) if shape[d] > 0]
        if not filled:
            return "T", ()
        d = data.draw(st.sampled_from(filled))
        key = (slice(None),) * d + (data.draw(st.integers(-shape[d], shape[d] - 1)),)
        if data.draw(st.booleans()):
            key = (None,) + key
        if len(key) - key.count(None) == n:
            key = key + (Ellipsis,)  # keep it a view: a full integer index gives a scalar
        return "__getitem__", (key,)
    if name == "squeeze":
        ones = [d for d, s in enumerate(shape) if s == 1]
        return name, ((data.draw(st.sampled_from(ones)),) if ones and data.draw(st.booleans())
                      else ())
    if name == "diagonal":
        d1 = data.draw(st.integers(0, n - 1))
        d2 = data.draw(st.integers(0, n - 1).filter(lambda d: d != d1))
        return name, (data.draw(st.integers(-2, 2)), d1, d2)
    return "reshape", (_target_shape(data, shape),)


def _numpy_call(a: np.ndarray, name: str, args: tuple) -> np.ndarray:
    if name.startswith("np."):
        return getattr(np, name[3:])(a, *args)
    if name == "__getitem__":
        return a[args[0]]
    if name == "T":
        return a.T
    return getattr(a, name)(*args)


def numpy_chain(shape: tuple, data, root: np.ndarray):
    a, layout = root, Layout.contiguous(shape)
    for _ in range(data.draw(st.integers(1, 5))):
        name, args = numpy_step(data, a.shape)
        real = _numpy_call(a, name, args)
        shape_out, got, kind = runtime_layout(name, args, a.shape, layout, NUMPY)
        assert shape_out == real.shape, (name, args)
        if kind == "none":
            TALLY[f"numpy {name} copies"] += 1
            assert not np.shares_memory(real, root), (name, args, layout)
            return real, None
        TALLY[f"numpy {name} views"] += 1
        assert np.shares_memory(real, root) or real.size == 0, (name, args, layout)
        assert same_place(got, Layout.of(real), unit_strides=False), (name, args, layout)
        a, layout = real, got
    return a, layout


@given(shapes, st.data())
@conformance(400)
def test_numpy_view_chains_have_the_runtimes_layouts(shape, data):
    numpy_chain(shape, data, np.arange(math.prod(shape), dtype=np.float64).reshape(shape))


@given(shapes, st.data())
@conformance(200)
def test_overlap_of_two_numpy_views_is_shares_memory(shape, data):
    root = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    a, la = numpy_chain(shape, data, root)
    b, lb = numpy_chain(shape, data, root)
    if la is None or lb is None:
        return
    verdict = overlap(la, lb)
    assert verdict is not None
    TALLY[f"numpy overlap {verdict}"] += 1
    assert verdict == np.shares_memory(a, b, max_work=None)


def test_layout_of_reads_numpy_strides_in_elements():
    root = np.zeros((4, 6), dtype=np.int32)
    view = root[1:, ::2].T
    assert Layout.of(view) == Layout(6, (3, 3), (2, 6))
    assert Layout.of(root) == Layout.contiguous((4, 6))
