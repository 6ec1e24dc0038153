"""Shapes of x[items] and x[items] = value under NumPy's and PyTorch's indexing rules.

Items are frozen dataclasses: IntIndex, SliceIndex, NoneIndex, EllipsisIndex
and ArrayIndex (an integer or boolean array used as an advanced index).

The two libraries agree on most shapes but not all:
- NumPy treats integers as advanced indices once any array index is present,
  so ``a[0, :, idx]`` puts idx's dims first; PyTorch selects integers away
  first, so ``t[0, :, idx]`` keeps the slice dim first.
- A 0-d integer array acts like an integer in both (NumPy converts it, PyTorch
  selects with it).
- PyTorch rejects negative slice steps; it names an out-of-range integer by the
  position of the item, NumPy by the axis of the array.

Assumptions for symbolic sizes (documented because verdicts rely on them):
a slice bound on a symbolic dim is taken to lie inside the dim, so ``x[1:]``
of a dim ``T`` has ``T - 1`` elements (assuming T >= 1), ``x[:3]`` has 3
(assuming T >= 3) and ``x[-2:]`` has 2; a stepped slice of a symbolic dim is
``(len + step - 1) // step``. The number of True values of a boolean index is
UNKNOWN unless ArrayIndex.count gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from ..dialects import Dialect
from ..dims import (
    UNKNOWN,
    Dim,
    Shape,
    add,
    eq,
    floordiv,
    format_shape,
    is_known,
    is_one,
    is_zero,
    le,
    lt,
    numel,
    sub,
)
from ..verdicts import Result, ShapeError
from .axes import nonempty_size, normalize_numpy_axis, with_dim, wrap_torch_dim
from .broadcast import broadcast_pair, broadcast_shapes
from .broadcast_views import expand
from .messages import dim_range_error, torch_list


@dataclass(frozen=True)
class IntIndex:
    """A constant (or symbolic) integer index: removes one dim."""

    value: Dim


@dataclass(frozen=True)
class SliceIndex:
    """start:stop:step; bounds are ints (or dims) or None."""

    start: Dim | None = None
    stop: Dim | None = None
    step: int | None = None


@dataclass(frozen=True)
class NoneIndex:
    """None / np.newaxis: inserts a dim of size 1."""


@dataclass(frozen=True)
class EllipsisIndex:
    """``...``: as many full slices as the other items leave."""


@dataclass(frozen=True)
class ArrayIndex:
    """An integer or boolean array used as an index (advanced indexing).

    count is the number of True values of a boolean index when known; values are the
    entries of a literal integer index (``x[[0, 3]]``), in order, when known.
    dtype None means unknown (assumed integer).
    """

    shape: Shape
    dtype: str | None = "int64"
    count: Dim | None = None
    values: tuple | None = None

    @property
    def is_bool(self) -> bool:
        return self.dtype == "bool"

    @property
    def is_integer(self) -> bool:
        return self.dtype is None or self.dtype.startswith(("int", "uint"))


Item = Union[IntIndex, SliceIndex, NoneIndex, EllipsisIndex, ArrayIndex]


def _as_list(items: Sequence[Item]) -> list[Item]:
    return list(items) if isinstance(items, (tuple, list)) else [items]


# ---------------------------------------------------------------------------
# Slices.
# ---------------------------------------------------------------------------


def slice_length(n: Dim, start: Dim | None, stop: Dim | None, step: int | None) -> Dim:
    """Elements of range(n)[start:stop:step]; on a symbolic n, bounds are assumed in range."""
    step = 1 if step is None else step
    if isinstance(n, int) and all(isinstance(v, int) or v is None for v in (start, stop)):
        return len(range(n)[slice(start, stop, step)])
    if not is_known(n):
        if start is None and stop is None and step in (1, -1):
            return n
        return UNKNOWN

    def resolve(v: Dim | None, default: Dim) -> Dim:
        if v is None:
            return default
        if isinstance(v, int) and v < 0:
            return add(n, v)
        return v

    if step > 0:
        lo, hi = resolve(start, 0), resolve(stop, n)
        span = sub(hi, lo)
    else:
        hi, lo = resolve(start, sub(n, 1)), resolve(stop, -1)  # a missing stop is "before index 0"
        span = sub(hi, lo)
        step = -step
    if isinstance(span, int) and span <= 0:
        return 0
    if step == 1:
        return span
    return floordiv(add(span, step - 1), step)


# ---------------------------------------------------------------------------
# Reading: x[items].
# ---------------------------------------------------------------------------


def _consumed(item: Item) -> int:
    if isinstance(item, (IntIndex, SliceIndex)):
        return 1
    if isinstance(item, ArrayIndex):
        return len(item.shape) if item.is_bool else 1
    return 0


def _bool_count(item: ArrayIndex) -> Dim:
    return item.count if item.count is not None else UNKNOWN


def _int_out_of_range(value: Dim, n: Dim) -> bool:
    """Certainly out of range: value >= n or value < -n."""
    if isinstance(value, int) and value < 0:
        return lt(value, sub(0, n)) is True
    return le(n, value) is True


def _first_out_of_range(item: ArrayIndex, n: Dim) -> int | None:
    """The first entry of a literal integer index certainly out of range of a dim of n."""
    for value in item.values or ():
        if _int_out_of_range(value, n):
            return value
    return None


def index(shape: Shape, items: Sequence[Item] | Item, *, dialect: Dialect) -> Result:
    """The shape of x[items]."""
    shape = tuple(shape)
    bare = not isinstance(items, (tuple, list))  # x[0] rather than x[(0,)]: torch words a 0-d error apart
    items = _as_list(items)
    if dialect.is_torch:
        return _index_torch(shape, items, bare)
    return _index_numpy(shape, items)


def _advanced_shape(shapes: list[Shape], message) -> Shape:
    acc: Shape = ()
    for s in shapes:
        out, failed = broadcast_pair(acc, s)
        if out is None:
            raise ShapeError("index", message(shapes), "IndexError", shapes=tuple(shapes))
        acc = out
    return acc


def _index_numpy(shape: Shape, items: list[Item]) -> Result:
    ndim = len(shape)
    n_ellipsis = 0
    for item in items:
        if isinstance(item, EllipsisIndex):
            n_ellipsis += 1
            if n_ellipsis > 1:
                raise ShapeError("index", "an index can only have a single ellipsis ('...')", "IndexError")
        if isinstance(item, ArrayIndex) and not (item.is_bool or item.is_integer):
            raise ShapeError("index", "arrays used as indices must be of integer (or boolean) type", "IndexError")
    # NumPy turns a 0-d integer array into an integer.
    items = [IntIndex(UNKNOWN) if isinstance(it, ArrayIndex) and it.is_integer and not it.shape else it
             for it in items]
    used = sum(_consumed(it) for it in items)
    if used > ndim:
        raise ShapeError("index", f"too many indices for array: array is {ndim}-dimensional, but {used} were "
                         "indexed", "IndexError")
    fancy = any(isinstance(it, ArrayIndex) for it in items)
    ellipsis_len = ndim - used
    # entries: ("basic", dims) or ("adv", shape); basic entries of no dims do not separate.
    entries: list[tuple[str, Shape]] = []
    adv_shapes: list[Shape] = []
    # Masks are checked while the index is prepared; integers and slices only when it is
    # applied, so their errors wait until every mask has been checked.
    deferred: list[ShapeError] = []
    outside: list[ShapeError] = []  # literal index arrays past their dim
    p = 0
    for item in items:
        if isinstance(item, IntIndex):
            n = shape[p]
            if _int_out_of_range(item.value, n):
                deferred.append(ShapeError("index", f"index {item.value} is out of bounds for axis {p} with size "
                                           f"{n}", "IndexError", dim=p))
            if fancy:
                entries.append(("adv", ()))
            p += 1
        elif isinstance(item, SliceIndex):
            if item.step == 0:
                deferred.append(ShapeError("index", "slice step cannot be zero", "ValueError"))
            entries.append(("basic", (slice_length(shape[p], item.start, item.stop, item.step or 1),)))
            p += 1
        elif isinstance(item, NoneIndex):
            entries.append(("basic", (1,)))
        elif isinstance(item, EllipsisIndex):
            if ellipsis_len:
                entries.append(("basic", shape[p:p + ellipsis_len]))
            p += ellipsis_len
        elif item.is_bool:
            k = len(item.shape)
            for j in range(k):
                # NumPy lets an empty mask axis meet an axis of any size.
                special = eq(item.shape[j], 0) is not False
                if eq(item.shape[j], shape[p + j]) is False and not special:
                    raise ShapeError("index", f"boolean index did not match indexed array along axis {p + j}; size "
                                     f"of axis is {shape[p + j]} but size of corresponding boolean axis is "
                                     f"{item.shape[j]}", "IndexError", dim=p + j)
            entries.append(("adv", (_bool_count(item),)))
            # A k-d mask becomes k index arrays (its nonzero()), or one for a 0-d mask.
            adv_shapes.extend([(_bool_count(item),)] * max(k, 1))
            p += k
        else:
            bad = _first_out_of_range(item, shape[p])
            if bad is not None:
                outside.append(ShapeError("index", f"index {bad} is out of bounds for axis {p} "
                                          f"with size {shape[p]}", "IndexError", dim=p))
            entries.append(("adv", tuple(item.shape)))
            adv_shapes.append(tuple(item.shape))
            p += 1
    if p < ndim:
        entries.append(("basic", shape[p:]))
    if deferred:
        raise deferred[0]
    if not fancy:
        return Result.of(tuple(d for kind, dims in entries for d in dims))
    adv = _advanced_shape(adv_shapes, lambda shapes: "shape mismatch: indexing arrays could not be broadcast "
                          "together with shapes " + "".join(format_shape(s, "numpy") + " " for s in shapes))
    if outside and is_zero(numel(adv)) is False:  # an empty broadcast index reads no value
        raise outside[0]
    return Result.of(_place(entries, adv))


def _place(entries: list[tuple[str, Shape]], adv: Shape) -> Shape:
    """Advanced dims replace the advanced items when those are adjacent, else go first."""
    positions = [i for i, (kind, _) in enumerate(entries) if kind == "adv"]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    out: list[Dim] = []
    if not adjacent:
        out.extend(adv)
    placed = False
    for kind, dims in entries:
        if kind == "adv":
            if adjacent and not placed:
                out.extend(adv)
                placed = True
            continue
        out.extend(dims)
    return tuple(out)


def _index_torch(shape: Shape, items: list[Item], bare: bool = False) -> Result:
    ndim = len(shape)
    specified = sum(_consumed(it) for it in items if not (isinstance(it, ArrayIndex) and it.is_bool
                                                             and not it.shape))
    if specified > ndim:
        if ndim == 0 and bare and isinstance(items[0], IntIndex):
            raise ShapeError("index", "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number", "IndexError")
        raise ShapeError("index", f"too many indices for tensor of dimension {ndim}", "IndexError")
    for item in items:
        if isinstance(item, ArrayIndex) and not (item.is_bool or item.is_integer or item.dtype == "uint8"):
            raise ShapeError("index", "tensors used as indices must be long, int, byte or bool tensors",
                             "IndexError")
    # Basic indexing pass over the items, building the intermediate result and
    # the per-dim advanced index list (None for a full slice) as ATen does.
    ellipsis_len = ndim - specified
    # ATen walks a dim pointer through the intermediate result; every ellipsis advances it (a second
    # ellipsis followed by an int or slice reads past the sizes in ATen: undefined, not modelled).
    result: list[Dim] = list(shape)
    tensor_at: list[tuple[int, ArrayIndex]] = []  # (position in result, index)
    dim = 0

    def unsqueeze_at(d: int) -> None:
        if d > len(result):
            raise dim_range_error(d, len(result) + 1)
        result.insert(d, 1)

    for pos, item in enumerate(items):
        if isinstance(item, IntIndex) or (isinstance(item, ArrayIndex) and item.is_integer and not item.shape):
            n = result[dim] if dim < len(result) else UNKNOWN
            value = item.value if isinstance(item, IntIndex) else UNKNOWN
            if _int_out_of_range(value, n):
                raise ShapeError("index", f"index {value} is out of bounds for dimension {pos} with size {n}",
                                 "IndexError", dim=pos)
            if dim < len(result):
                del result[dim]
        elif isinstance(item, SliceIndex):
            if item.step == 0:
                raise ShapeError("index", "slice step cannot be zero", "ValueError")
            if item.step is not None and item.step < 0:
                raise ShapeError("index", "step must be greater than zero", "ValueError")
            if ndim == 0:
                raise ShapeError("index", "slice() cannot be applied to a 0-dim tensor.", "IndexError")
            if dim < len(result):
                result[dim] = slice_length(result[dim], item.start, item.stop, item.step)
            dim += 1
        elif isinstance(item, NoneIndex):
            unsqueeze_at(dim)
            dim += 1
        elif isinstance(item, EllipsisIndex):
            dim += ellipsis_len
        elif item.is_bool and not item.shape:
            unsqueeze_at(dim)
            tensor_at.append((dim, ArrayIndex((_bool_count(item),), "int64")))
            dim += 1
        else:
            tensor_at.append((dim, item))
            dim += len(item.shape) if item.is_bool else 1
    if not tensor_at:
        return Result.of(tuple(result))
    # at::index: masks become nonzero() columns, checked against the intermediate result.
    slots: dict[int, Shape] = {}
    for start, item in tensor_at:
        if item.is_bool:
            for j, d in enumerate(item.shape):
                if eq(d, result[start + j]) is False:
                    raise ShapeError("index", f"The shape of the mask {torch_list(item.shape)} at index {j} does not "
                                     f"match the shape of the indexed tensor {torch_list(result)} at index "
                                     f"{start + j}", "IndexError", dim=start + j)
            for j in range(len(item.shape)):
                slots[start + j] = (_bool_count(item),)
        else:
            slots[start] = tuple(item.shape)
    adv_shapes = [slots[k] for k in sorted(slots)]
    adv = _advanced_shape(adv_shapes, lambda shapes: "shape mismatch: indexing tensors could not be broadcast "
                          "together with shapes " + ", ".join(torch_list(s) for s in shapes))
    entries = [("adv", ()) if i in slots else ("basic", (d,)) for i, d in enumerate(result)]
    out = _place(entries, adv)
    # The kernel checks the indices as it gathers: an empty result reads none of them.
    for ordinal, (start, item) in enumerate(tensor_at):
        bad = None if item.is_bool else _first_out_of_range(item, result[start])
        if bad is not None and is_zero(numel(out)) is False:
            # at::index names the index tensor by its place among them.
            raise ShapeError("index", f"index {bad} is out of bounds for dimension {ordinal} with "
                             f"size {result[start]}", "IndexError", dim=start)
    return Result.of(out)


# ---------------------------------------------------------------------------
# Writing: x[items] = value.
# ---------------------------------------------------------------------------


def _is_advanced(items: list[Item], zero_d_int_is_int: bool) -> bool:
    for it in items:
        if isinstance(it, ArrayIndex):
            if it.is_integer and not it.shape and zero_d_int_is_int:
                continue
            return True
    return False


def setitem(shape: Shape, items: Sequence[Item] | Item, value_shape: Shape, *, dialect: Dialect) -> Result:
    """x[items] = value: the value must broadcast to the indexed shape; the result is x's shape."""
    shape = tuple(shape)
    value_shape = tuple(value_shape)
    items = _as_list(items)
    target = index(shape, items, dialect=dialect).shape
    advanced = _is_advanced(items, True)  # for shapes and messages a 0-d integer array is an integer
    # Leading 1s of the value are dropped by both libraries before broadcasting.
    stripped = value_shape
    while stripped and is_one(stripped[0]) is True and (dialect.is_torch or len(stripped) > len(target)):
        stripped = stripped[1:]  # torch's slicePrefix1sSize drops every leading 1
    if dialect.is_torch:
        if advanced:
            ok = _fits(stripped, target)
            if ok is False:
                raise ShapeError("inplace", f"shape mismatch: value tensor of shape {torch_list(stripped)} cannot "
                                 f"be broadcast to indexing result of shape {torch_list(target)}", "RuntimeError",
                                 shapes=(target, value_shape))
            return Result.of(shape)
        if len(stripped) == 0 or (len(stripped) == len(target) and all(eq(a, b) is True for a, b in
                                                                       zip(stripped, target))):
            return Result.of(shape)
        expand(stripped, target, dialect=dialect)
        return Result.of(shape)
    if (len(items) == 1 and isinstance(items[0], ArrayIndex) and items[0].is_bool
            and len(items[0].shape) == len(shape)):
        # NumPy's fast path for x[mask] = v with a full-rank mask: v is 0-d or 1-d, and a 1-d v has one
        # value or one per True.
        if len(value_shape) > 1:
            raise ShapeError("inplace", "NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                             f"input, input has {len(value_shape)} dimensions", "TypeError",
                             shapes=(target, value_shape))
        count = _bool_count(items[0])
        if value_shape and eq(value_shape[0], count) is False and is_one(value_shape[0]) is False:
            raise ShapeError("inplace", f"NumPy boolean array indexing assignment cannot assign {value_shape[0]} "
                             f"input values to the {count} output values where the mask is true", "ValueError",
                             shapes=(target, value_shape))
        return Result.of(shape)
    if _all_integer(items, len(shape)):
        # A full integer index assigns one element: only a 0-d value fits.
        if value_shape:
            raise ShapeError("inplace", "setting an array element with a sequence.", "ValueError",
                             shapes=(target, value_shape))
        return Result.of(shape)
    ok = _fits(stripped, target)
    if ok is False:
        if advanced:
            raise ShapeError("inplace", f"shape mismatch: value array of shape {format_shape(value_shape, 'numpy')} "
                             "could not be broadcast to indexing result of shape "
                             f"{format_shape(target, 'numpy')}", "ValueError", shapes=(target, value_shape))
        raise ShapeError("inplace", f"could not broadcast input array from shape {format_shape(stripped, 'numpy')} "
                         f"into shape {format_shape(target, 'numpy')}", "ValueError", shapes=(target, value_shape))
    return Result.of(shape)


def _all_integer(items: list[Item], ndim: int) -> bool:
    return len(items) == ndim and all(isinstance(it, IntIndex) or (isinstance(it, ArrayIndex) and it.is_integer
                                                                    and not it.shape) for it in items)


def _fits(value: Shape, target: Shape):
    """Three-valued: does value broadcast to target without changing target?"""
    if len(value) > len(target):
        return False
    verdict = True
    for v, t in zip(value[::-1], target[::-1]):
        if eq(v, t) is True or is_one(v) is True:
            continue
        if eq(v, t) is False and is_one(v) is False:
            return False
        verdict = None
    return verdict


def index_is_view(items: Sequence[Item] | Item, dialect: Dialect | None = None) -> bool:
    """Basic indexing gives a view, advanced indexing a copy.

    A 0-d integer index array shapes the result like an integer in both
    libraries, but NumPy still copies (advanced) while torch selects (view);
    without a dialect the answer is NumPy's. NumPy's full integer index gives
    a scalar, which aliases nothing, though this still answers True.
    """
    # torch selects with a 0-d integer tensor as with an int.
    return not _is_advanced(_as_list(items), dialect is not None and dialect.is_torch)




def gather(x: Shape, dim: int, index: Shape, *, dialect: Dialect) -> Result:
    """torch.gather(x, dim, index): the result has index's shape (numpy: take_along_axis)."""
    x, index = tuple(x), tuple(index)
    if dialect.is_numpy:
        return take_along_axis(x, index, dim, dialect=dialect)
    w = wrap_torch_dim(dim, len(x))
    empty = is_zero(numel(index))
    if empty is True:
        return Result.of(index)
    if max(len(x), 1) != max(len(index), 1):
        if empty is False:
            raise ShapeError("gather", "Index tensor must have the same number of dimensions as input tensor",
                             "RuntimeError", shapes=(x, index))
        return Result.of(index)
    for i in range(max(len(x), 1)):
        if i == w:
            continue
        if le(nonempty_size(index, i), nonempty_size(x, i)) is False and empty is False:
            raise ShapeError("gather", f"Size does not match at dimension {i} expected index {torch_list(index)} "
                             f"to be no larger than self {torch_list(x)} apart from dimension {w}",
                             "RuntimeError", dim=i, shapes=(x, index))
    return Result.of(index)


def take_along_axis(x: Shape, indices: Shape, axis: int | None = -1, *, dialect: Dialect) -> Result:
    """np.take_along_axis / torch.take_along_dim: index broadcast against x apart from axis."""
    x, indices = tuple(x), tuple(indices)
    if dialect.is_torch:
        if axis is None:
            return Result.of((numel(indices),))
        if len(x) != len(indices):
            raise ShapeError("gather", "torch.take_along_dim(): input and indices should have the same number of "
                             f"dimensions, but got {len(x)} dimensions for input, and {len(indices)} dimensions "
                             "for indices", "RuntimeError")
        w = wrap_torch_dim(axis, len(x))
        if not x:
            raise ShapeError("axis", "Dimension specified as 0 but tensor has no dimensions", "IndexError")
        self_sizes = with_dim(x, w, indices[w])
        return broadcast_shapes(self_sizes, indices, dialect=dialect)
    if axis is None:
        if len(indices) != 1:
            raise ShapeError("gather", "when axis=None, `indices` must have a single dimension.", "ValueError")
        return Result.of(indices)
    ax = normalize_numpy_axis(axis, len(x))
    if len(x) != len(indices):
        raise ShapeError("gather", "`indices` and `arr` must have the same number of dimensions", "ValueError")
    items = []
    for i, n in enumerate(x):
        if i == ax:
            items.append(ArrayIndex(indices, "int64"))
        else:
            items.append(ArrayIndex(tuple(n if k == i else 1 for k in range(len(x))), "int64"))
    return index(x, tuple(items), dialect=dialect)


__all__ = ["IntIndex", "SliceIndex", "NoneIndex", "EllipsisIndex", "ArrayIndex", "slice_length", "index",
           "setitem", "index_is_view", "gather", "take_along_axis"]
