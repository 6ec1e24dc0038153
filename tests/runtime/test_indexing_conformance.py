"""Indexing rules agree with real NumPy and real PyTorch for x[items] and x[items] = value."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.runtime.dialects import NUMPY, TORCH
from shapecheck.runtime.dims import add, sub, sym
from shapecheck.runtime.rules.indexing import (ArrayIndex, EllipsisIndex, IntIndex, NoneIndex, SliceIndex,
                                               index, index_is_view, setitem, slice_length)
from shapecheck.runtime.verdicts import ShapeError

TALLY: collections.Counter = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _print_tally():
    yield
    for key in sorted(TALLY):
        print(f"indexing conformance {key}: {TALLY[key]}")


def conformance(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# A generated item: (model item, numpy index object, torch index factory).
@st.composite
def item_st(draw, ndim: int):
    kind = draw(st.sampled_from(["int", "int", "slice", "slice", "none", "ellipsis", "array", "array",
                                 "bool", "bool0d", "array0d"]))
    if kind == "int":
        v = draw(st.integers(-5, 4))
        return IntIndex(v), v, lambda torch: v
    if kind == "slice":
        bound = st.one_of(st.none(), st.integers(-5, 5))
        start, stop = draw(bound), draw(bound)
        step = draw(st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2, 0])))
        return SliceIndex(start, stop, step), slice(start, stop, step), lambda torch: slice(start, stop, step)
    if kind == "none":
        return NoneIndex(), None, lambda torch: None
    if kind == "ellipsis":
        return EllipsisIndex(), Ellipsis, lambda torch: Ellipsis
    if kind == "array":
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
        return (ArrayIndex(shape, "int64"), np.zeros(shape, dtype=np.intp),
                lambda torch: torch.zeros(shape, dtype=torch.long))
    if kind == "array0d":
        return ArrayIndex((), "int64"), np.array(0), lambda torch: torch.tensor(0)
    if kind == "bool0d":
        value = draw(st.booleans())
        return (ArrayIndex((), "bool", count=int(value)), np.array(value),
                lambda torch: torch.tensor(value))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=2)))
    size = int(np.prod(shape))
    bits = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    mask = np.array(bits, dtype=bool).reshape(shape)
    return (ArrayIndex(shape, "bool", count=int(mask.sum())), mask,
            lambda torch: torch.from_numpy(mask.copy()))


@st.composite
def index_case(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    k = draw(st.integers(0, len(shape) + 1))
    items = [draw(item_st(len(shape))) for _ in range(k)]
    # Bool masks mostly shaped like the dims they will meet, so both verdicts are frequent.
    fixed = []
    pos = 0
    for model_item, np_obj, torch_fn in items:
        if isinstance(model_item, ArrayIndex) and model_item.is_bool and model_item.shape and draw(st.booleans()):
            want = shape[pos:pos + len(model_item.shape)]
            if len(want) == len(model_item.shape):
                bits = draw(st.lists(st.booleans(), min_size=int(np.prod(want)), max_size=int(np.prod(want))))
                mask = np.array(bits, dtype=bool).reshape(want)
                model_item = ArrayIndex(tuple(want), "bool", count=int(mask.sum()))
                np_obj, torch_fn = mask, (lambda m: lambda torch: torch.from_numpy(m.copy()))(mask)
        pos += len(model_item.shape) if isinstance(model_item, ArrayIndex) and model_item.is_bool else (
            1 if isinstance(model_item, (IntIndex, SliceIndex, ArrayIndex)) else 0)
        fixed.append((model_item, np_obj, torch_fn))
    return shape, fixed


def real(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", tuple(fn().shape))
    except Exception as exc:  # noqa: BLE001 - compare whatever the library raises
        return ("err", type(exc).__name__, str(exc))


def model(fn):
    try:
        return ("ok", tuple(fn().shape))
    except ShapeError as exc:
        return ("err", exc.exc_type, exc.message)


def value_dependent(want, items) -> bool:
    """Index arrays hold zeros; on an empty dim that is an out-of-range value, which shapes cannot see."""
    return (want[0] == "err" and want[2].startswith(("index 0 is out of bounds",
                                                      "index is out of bounds for dimension with size 0"))
            and any(isinstance(it, ArrayIndex) and not it.is_bool for it in items))


def check(family, real_fn, model_fn, items):
    want = real(real_fn)
    got = model(model_fn)
    if value_dependent(want, items):
        TALLY[f"{family} skipped (value-dependent)"] += 1
        return
    TALLY[f"{family} {want[0]}"] += 1
    assert got == want, f"{family}: model {got} != real {want}"


def torch_ellipsis_is_undefined(items) -> bool:
    """torch skips dims for every ellipsis; an index after a second one reads past the sizes (undefined)."""
    seen = 0
    for it in items:
        if isinstance(it, EllipsisIndex):
            seen += 1
        elif seen >= 2 and isinstance(it, (IntIndex, SliceIndex, ArrayIndex)):
            return True
    return False


@conformance(1000)
@given(index_case())
def test_getitem_shapes_match_numpy_and_torch(case):
    torch = pytest.importorskip("torch")
    shape, items = case
    model_items = tuple(m for m, _, _ in items)
    np_index = tuple(o for _, o, _ in items)
    check("getitem[numpy]", lambda: np.zeros(shape)[np_index], lambda: index(shape, model_items, dialect=NUMPY),
          model_items)
    if torch_ellipsis_is_undefined(model_items):
        TALLY["getitem[torch] skipped (undefined behaviour)"] += 1
        return
    t_index = tuple(f(torch) for _, _, f in items)
    check("getitem[torch]", lambda: torch.zeros(shape)[t_index], lambda: index(shape, model_items, dialect=TORCH),
          model_items)


@st.composite
def setitem_case(draw):
    shape, items = draw(index_case())
    model_items = tuple(m for m, _, _ in items)
    try:
        target = index(shape, model_items, dialect=NUMPY).shape
    except ShapeError:
        target = ()
    target = [d if isinstance(d, int) else 2 for d in target]
    choice = draw(st.integers(0, 4))
    if choice == 0:
        value = target
    elif choice == 1:
        value = target[draw(st.integers(0, len(target))):]
    elif choice == 2:
        value = [draw(st.sampled_from([d, 1, d + 1])) for d in target]
    elif choice == 3:
        value = [1, 1] + target
    else:
        value = draw(st.lists(st.integers(0, 4), max_size=4))
    return shape, items, tuple(value)


@conformance(800)
@given(setitem_case())
def test_setitem_value_shapes_match_numpy_and_torch(case):
    torch = pytest.importorskip("torch")
    shape, items, value = case
    model_items = tuple(m for m, _, _ in items)
    np_index = tuple(o for _, o, _ in items)

    def np_set():
        x = np.zeros(shape)
        x[np_index] = np.zeros(value)
        return x

    def torch_set():
        x = torch.zeros(shape)
        x[tuple(f(torch) for _, _, f in items)] = torch.zeros(value)
        return x

    check("setitem[numpy]", np_set, lambda: setitem(shape, model_items, value, dialect=NUMPY), model_items)
    if torch_ellipsis_is_undefined(model_items):
        return
    check("setitem[torch]", torch_set, lambda: setitem(shape, model_items, value, dialect=TORCH), model_items)


@conformance(500)
@given(index_case())
def test_index_is_view_matches_memory_sharing(case):
    torch = pytest.importorskip("torch")
    shape, items = case
    model_items = tuple(m for m, _, _ in items)
    x = np.arange(int(np.prod(shape)), dtype=float).reshape(shape)
    try:
        r = x[tuple(o for _, o, _ in items)]
    except Exception:  # noqa: BLE001 - only successful reads have a view-ness
        return
    if not isinstance(r, np.ndarray) or r.size == 0:
        return  # a scalar (full integer index) or an empty result shares nothing observable
    TALLY["index_is_view[numpy]"] += 1
    assert index_is_view(model_items, NUMPY) == np.shares_memory(x, r)
    t = torch.arange(int(np.prod(shape)), dtype=torch.float64).reshape(shape)
    try:
        tr = t[tuple(f(torch) for _, _, f in items)]
    except Exception:  # noqa: BLE001
        return
    if tr.numel() == 0:
        return
    TALLY["index_is_view[torch]"] += 1
    assert index_is_view(model_items, TORCH) == (tr.untyped_storage().data_ptr() == t.untyped_storage().data_ptr())


def test_advanced_index_placement_differs_between_libraries_for_integers():
    items = (IntIndex(0), SliceIndex(), ArrayIndex((2,)))
    assert index((3, 4, 5), items, dialect=NUMPY).shape == (2, 4)   # the integer joins the advanced group
    assert index((3, 4, 5), items, dialect=TORCH).shape == (4, 2)   # torch selects the integer away first


def test_symbolic_slices_assume_bounds_in_range():
    T = sym("T")
    assert slice_length(T, 1, None, None) == sub(T, 1)
    assert slice_length(T, None, -1, None) == sub(T, 1)
    assert slice_length(T, None, 3, None) == 3
    assert slice_length(T, -2, None, None) == 2
    assert index((sym("B"), T), (SliceIndex(), SliceIndex(1, None)), dialect=TORCH).shape == (sym("B"), sub(T, 1))
    assert index((add(T, 2),), (SliceIndex(None, None, 2),), dialect=NUMPY).shape[0] is not None


def test_boolean_mask_count_is_unknown_unless_given():
    from shapecheck.runtime.dims import UNKNOWN
    assert index((3, 4), (ArrayIndex((3, 4), "bool"),), dialect=NUMPY).shape == (UNKNOWN,)
    assert index((3, 4), (ArrayIndex((3, 4), "bool", count=5),), dialect=TORCH).shape == (5,)
    with pytest.raises(ShapeError) as err:
        index((3, 4), (ArrayIndex((3, 5), "bool"),), dialect=NUMPY)
    assert err.value.exc_type == "IndexError"


def test_symbolic_out_of_range_integer_is_not_an_error():
    T = sym("T")
    assert index((T, 3), (IntIndex(7),), dialect=NUMPY).shape == (3,)
    with pytest.raises(ShapeError):
        index((T, 3), (SliceIndex(), IntIndex(3)), dialect=NUMPY)
