"""Writes through engine views reach the base and sibling views exactly as in real NumPy and torch."""

from __future__ import annotations

import gc
import re
import warnings

import numpy as np
import pytest

from shapecheck.runtime.engine import Engine
from shapecheck.runtime.program import (NUMPY_READONLY_ASSIGN, NUMPY_READONLY_OUTPUT, TORCH_PARTIAL_OVERLAP,
                                        TORCH_REPEATED_WRITE, Ref, Step)

from real_library import call_real, class_names


# ---------------------------------------------------------------------------
# the same steps on the real libraries

def _real_array(lib, shape, dtype="float64", requires_grad=False):
    n = int(np.prod(shape))
    if lib == "numpy":
        return np.arange(n).astype(dtype).reshape(shape)
    import torch
    return torch.arange(n).to(getattr(torch, dtype)).reshape(shape).clone().requires_grad_(
        requires_grad)


def run_real(steps, lib):
    """Each step's (value, None, warnings) or (None, exception, warnings) under the real library."""
    results = []

    def resolve(v):
        if isinstance(v, Ref):
            value = results[v.step][0]
            return value if v.index is None else value[v.index]
        if isinstance(v, tuple):
            return tuple(resolve(x) for x in v)
        if isinstance(v, list):
            return [resolve(x) for x in v]
        return v

    for step in steps:
        if any(isinstance(a, Ref) and results[a.step][1] is not None for a in step.args):
            results.append((None, results[[a for a in step.args if isinstance(a, Ref)][0].step][1], []))
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                args = resolve(step.args)
                kwargs = {k: resolve(v) for k, v in step.kwargs.items()}
                if step.op == "array":
                    value = _real_array(lib, *args, **kwargs)
                else:
                    value = call_real(step.op, args, kwargs)
                results.append((value, None, list(caught)))
            except Exception as exc:  # the library's refusal is the thing compared
                results.append((None, exc, list(caught)))
    return results


def _values(value):
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return np.asarray(value)


def assert_same_as_real(steps, dialect, *, numel_limit=10**7, compare_values=True):
    """Engine and real library agree on every step's error (type and text), shape and, at the
    end (after all writes), every array's values."""
    lib = "torch" if dialect.startswith("torch") else "numpy"
    if lib == "torch":
        pytest.importorskip("torch")
    engine = Engine(dialect, numel_limit=numel_limit).run(steps)
    real = run_real(steps, lib)
    for i, (ours, (value, exc, _)) in enumerate(zip(engine, real)):
        where = f"step {i} {steps[i].op}"
        if exc is not None:
            assert ours.error is not None, f"{where}: real {lib} raised {exc!r}, engine did not"
            assert str(exc) == ours.error.message, where
            assert ours.error.exc_type in class_names(exc), where
            continue
        assert ours.error is None, f"{where}: engine raised {ours.error!r}, real {lib} did not"
        got = ours.value if isinstance(ours.value, tuple) else (ours.value,)
        want = value if isinstance(value, (tuple, list)) else (value,)
        assert [g.shape for g in got] == [tuple(w.shape) for w in want], where
    if not compare_values:
        return engine, real
    for i, (ours, (value, exc, _)) in enumerate(zip(engine, real)):
        if exc is None:
            got = ours.value if isinstance(ours.value, tuple) else (ours.value,)
            want = value if isinstance(value, (tuple, list)) else (value,)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.values(), _values(w), err_msg=f"step {i}")
    return engine, real


BOTH = ["numpy", "torch"]


# ---------------------------------------------------------------------------
# writes through views

@pytest.mark.parametrize("dialect", BOTH)
def test_write_through_basic_index_view_updates_base_and_transposed_sibling(dialect):
    steps = [
        Step.array((3, 4)),
        Step("T", (Ref(0),)),
        Step("__getitem__", (Ref(0), (slice(None), 1))),
        Step("__iadd__", (Ref(2), 100.0)),
        Step("__getitem__", (Ref(0), (slice(1, None), slice(None, None, 2)))),
        Step("__setitem__", (Ref(4), (0,), -1.0)),
    ]
    engine, _ = assert_same_as_real(steps, dialect)
    base = engine[0].value
    assert {id(v) for v in base.views()} == {id(engine[i].value) for i in (1, 2, 4)}
    assert base.values()[1, 0] == -1.0 and engine[1].value.values()[0, 1] == -1.0


@pytest.mark.parametrize("dialect", BOTH)
def test_write_through_transpose_reaches_base_and_slices(dialect):
    steps = [
        Step.array((2, 3)),
        Step("T", (Ref(0),)),
        Step("__setitem__", (Ref(1), 0, -7.0)),
        Step("__getitem__", (Ref(0), (slice(None), slice(1, None)))),
        Step("__imul__", (Ref(1), 3.0)),
        Step("swapaxes", (Ref(1), 0, 1)),
        Step("__isub__", (Ref(5), 1.0)),
    ]
    engine, _ = assert_same_as_real(steps, dialect)
    assert engine[5].value.chain[-1].op == "swapaxes" and engine[5].value.base is engine[0].value


@pytest.mark.parametrize("dialect", BOTH)
def test_write_through_reshape_and_unsqueeze_views_reaches_base(dialect):
    add_dim = ("np.expand_dims", (0,)) if dialect == "numpy" else ("unsqueeze", (0,))
    steps = [
        Step.array((2, 6)),
        Step("reshape", (Ref(0), 3, 4)),
        Step("__setitem__", (Ref(1), (1, 1), 99.0)),
        Step(add_dim[0], (Ref(1),) + add_dim[1]),
        Step("__isub__", (Ref(3), 1.0)),
    ]
    engine, _ = assert_same_as_real(steps, dialect)
    assert engine[1].value.view_kind == "view"  # reshape of contiguous memory is a view


@pytest.mark.parametrize("dialect", BOTH)
def test_reshape_of_a_transpose_copies_so_writes_do_not_reach_base(dialect):
    steps = [
        Step.array((3, 4)),
        Step("T", (Ref(0),)),
        Step("reshape", (Ref(1), 12)),
        Step("__setitem__", (Ref(2), 0, -5.0)),
    ]
    engine, _ = assert_same_as_real(steps, dialect)
    assert not engine[2].value.is_view and engine[0].value.values()[0, 0] == 0.0


def test_torch_expand_refuses_writes_that_hit_one_element_twice_but_allows_single_elements():
    steps = [
        Step.array((3, 1)),
        Step("expand", (Ref(0), 3, 4)),
        Step("__iadd__", (Ref(1), 1.0)),          # refused: repeated elements
        Step("__setitem__", (Ref(1), (0, 0), 7.0)),  # one element: allowed
        Step("__getitem__", (Ref(1), (slice(None), 0))),
        Step("__imul__", (Ref(4), 2.0)),          # a column has no repeats: allowed
        Step("__getitem__", (Ref(1), 0)),
        Step("neg_", (Ref(6),)),                  # a row is one element four times: refused
        Step("fill_", (Ref(6), 5.0)),             # ... but fill_ writes one value: allowed
        Step("__setitem__", (Ref(1), 0, 5.0)),    # assignment copies: refused
        Step("copy_", (Ref(1), Ref(1))),
    ]
    engine, _ = assert_same_as_real(steps, "torch")
    assert engine[2].error.message == TORCH_REPEATED_WRITE
    assert engine[7].error.message == TORCH_REPEATED_WRITE
    assert engine[8].ok and not engine[9].ok
    assert engine[1].value.view_kind == "repeated"


def test_numpy_broadcast_to_is_read_only_for_ufuncs_and_assignment():
    steps = [
        Step.array((3, 1)),
        Step("np.broadcast_to", (Ref(0), (3, 4))),
        Step("__iadd__", (Ref(1), 1.0)),
        Step("__setitem__", (Ref(1), (0, 0), 7.0)),
        Step("np.copyto", (Ref(1), 2.0)),
        Step("__getitem__", (Ref(1), (slice(None), 0))),
        Step("__setitem__", (Ref(5), 0, 1.0)),  # a view of a read-only view is read-only
    ]
    engine, _ = assert_same_as_real(steps, "numpy")
    assert [engine[i].error.message for i in (2, 3, 4, 6)] == [
        NUMPY_READONLY_OUTPUT, NUMPY_READONLY_ASSIGN, NUMPY_READONLY_ASSIGN, NUMPY_READONLY_ASSIGN]


def test_numpy_broadcast_arrays_are_writable_with_numpy_deprecation_warning():
    steps = [
        Step.array((3, 1)),
        Step.array((1, 4)),
        Step("np.broadcast_arrays", (Ref(0), Ref(1))),
        Step("__setitem__", (Ref(2, 0), (0, 1), 50.0)),
    ]
    engine, real = assert_same_as_real(steps, "numpy")
    assert engine[0].value.values()[0, 0] == 50.0
    real_texts = [str(w.message) for w in real[3][2] if w.category is DeprecationWarning]
    assert [w.message for w in engine[3].warnings if w.kind == "broadcast-write"] == real_texts
    assert real_texts


@pytest.mark.parametrize("dialect", BOTH)
def test_diagonal_is_read_only_in_numpy_and_a_writable_view_in_torch(dialect):
    steps = [
        Step.array((3, 3)),
        Step("diagonal", (Ref(0),)),
        Step("__iadd__", (Ref(1), 10.0)),
        Step("diagonal", (Ref(0), 1)),
        Step("__setitem__", (Ref(3), 0, -1.0)),
    ]
    engine, _ = assert_same_as_real(steps, dialect)
    if dialect == "numpy":
        assert engine[2].error.message == NUMPY_READONLY_OUTPUT
        assert engine[1].value.view_kind == "readonly"
    else:
        assert engine[0].value.values()[1, 1] == 14.0


@pytest.mark.parametrize("dialect", BOTH)
def test_overlapping_inplace_write_is_buffered_in_numpy_and_refused_in_torch(dialect):
    steps = [
        Step.array((5,)),
        Step("__getitem__", (Ref(0), slice(1, None))),
        Step("__getitem__", (Ref(0), slice(None, -1))),
        Step("__iadd__", (Ref(1), Ref(2))),
        Step.array((3, 3)),
        Step("T", (Ref(4),)),
        Step("__iadd__", (Ref(4), Ref(5))),
        Step("__setitem__", (Ref(0), slice(1, None), Ref(2))),
    ]
    engine, _ = assert_same_as_real(steps, dialect)
    if dialect == "torch":
        assert engine[3].error.message == TORCH_PARTIAL_OVERLAP
        assert engine[6].error.message == TORCH_PARTIAL_OVERLAP


def test_torch_refuses_inplace_on_a_leaf_requiring_grad_and_its_views_but_not_detached():
    pytest.importorskip("torch")
    steps = [
        Step.array((3,), requires_grad=True),
        Step("add_", (Ref(0), 1.0)),
        Step("__getitem__", (Ref(0), slice(0, 2))),
        Step("mul_", (Ref(2), 2.0)),
        Step("__setitem__", (Ref(0), 0, 1.0)),
        Step("detach", (Ref(0),)),
        Step("add_", (Ref(5), 1.0)),
        Step("__mul__", (Ref(0), 2.0)),
        Step("__getitem__", (Ref(7), slice(1, None))),
        Step("add_", (Ref(8), 1.0)),
    ]
    engine, _ = assert_same_as_real(steps, "torch")
    assert [r.ok for r in engine] == [True, False, True, False, False, True, True, True, True, True]


@pytest.mark.parametrize("dialect", BOTH)
def test_shape_only_mode_keeps_view_verdicts_without_values(dialect):
    """With every array over the element limit, the write refusals and shapes stay those of
    the real library; the values are simply not computed."""
    if dialect == "numpy":
        broadcast = Step("np.broadcast_to", (Ref(0), (3, 4)))
    else:
        broadcast = Step("expand", (Ref(0), 3, 4))
    steps = [
        Step.array((3, 1)),
        broadcast,
        Step("__iadd__", (Ref(1), 1.0)),
        Step("T", (Ref(1),)),
        Step("__setitem__", (Ref(3), (slice(None), slice(None)), 0.0)),
        Step("diagonal", (Ref(0),)),
        Step("__iadd__", (Ref(5), 1.0)),
        Step("reshape", (Ref(0), 3)),
        Step("__iadd__", (Ref(7), 1.0)),
    ]
    engine, _ = assert_same_as_real(steps, dialect, numel_limit=0, compare_values=False)
    assert all(not r.value.values_known for r in engine if r.ok)
    assert engine[7].value.base is engine[0].value and engine[7].value.view_kind == "view"


def test_huge_shapes_are_views_of_their_base_without_allocating():
    engine = Engine("torch")
    big = engine.array((100000, 100000, 100000))
    row, _ = engine.apply("__getitem__", big, 0)
    t, _ = engine.apply("transpose", row, 0, 1)
    assert not big.values_known and big.data.nbytes == 8 * 10**15  # logical size only
    assert big.data.strides == (0, 0, 0)  # ... held in one zero-stride element
    assert [v.chain[-1].op for v in big.views()] == ["__getitem__", "transpose"]
    with pytest.raises(ValueError):
        t.values()


def test_base_forgets_views_that_were_garbage_collected():
    engine = Engine("numpy")
    base = engine.array((4,))
    kept, _ = engine.apply("__getitem__", base, slice(1, 3))
    engine.apply("__getitem__", base, slice(0, 2))
    gc.collect()
    assert base.views() == [kept]


def test_write_the_engine_cannot_compute_makes_the_values_unknown_not_stale():
    engine = Engine("numpy", numel_limit=6)
    base = engine.array((2, 3))
    row, _ = engine.apply("__getitem__", base, 0)
    engine.apply("__iadd__", row, engine.array((3,)))
    assert base.values()[0].tolist() == [0.0, 2.0, 4.0]
    huge = engine.array((7, 3))  # over the limit: shape-only, and so is its sum
    total, _ = engine.apply("np.sum", huge, 0)
    assert total.shape == (3,) and not total.values_known
    engine.apply("__iadd__", row, total)
    assert not base.values_known and not row.values_known


@pytest.mark.parametrize("dialect", BOTH)
def test_out_argument_is_written_in_place_refused_or_resized_as_the_library_does(dialect):
    add = "np.add" if dialect == "numpy" else "torch.add"
    steps = [
        Step.array((3, 4)),
        Step.array((4,)),
        Step.array((3, 4)),
        Step("__getitem__", (Ref(2), 1)),
        Step(add, (Ref(0), Ref(1)), {"out": Ref(2)}),   # written through: the row view sees it
        Step.array((2,)),
        Step(add, (Ref(0), Ref(1)), {"out": Ref(5)}),   # NumPy refuses; torch resizes, warning
    ]
    engine, real = assert_same_as_real(steps, dialect)
    assert engine[4].value is engine[2].value
    if dialect == "torch":
        # torch appends where in its C++ it warned; the message proper is what is compared
        real_texts = [re.sub(r" \(Triggered internally at .*\)$", "", str(w.message), flags=re.S)
                      for w in real[6][2]]
        assert [w.message for w in engine[6].warnings] == real_texts and real_texts
        assert engine[6].value is engine[5].value and engine[5].value.shape == (3, 4)
