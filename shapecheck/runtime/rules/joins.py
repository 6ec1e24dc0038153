"""Shape rules of joins: concatenate/cat, stack, hstack and vstack, per library.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import Dialect
from ..dims import UNKNOWN, Dim, Maybe, Shape, add, eq, is_known, is_zero, numel
from ..verdicts import Result, ShapeError
from .axes import normalize_numpy_axis, wrap_torch_dim
from .messages import torch_list

# ---------------------------------------------------------------------------
# Joins.
# ---------------------------------------------------------------------------


def _pick(a: Dim, b: Dim) -> Dim:
    """Of two dims a valid program makes equal, the more informative one."""
    return b if not is_known(a) or (not isinstance(a, int) and isinstance(b, int)) else a


def concatenate(shapes: Sequence[Shape], axis: int | None = 0, *, dialect: Dialect) -> Result:
    """np.concatenate / torch.cat (with torch's skipping of 1-D empty tensors)."""
    shapes = [tuple(s) for s in shapes]
    if dialect.is_torch:
        return _cat_torch(shapes, axis)
    if not shapes:
        raise ShapeError("join", "need at least one array to concatenate", "ValueError")
    if axis is None:
        total: Dim = 0
        for s in shapes:
            total = add(total, numel(s))
        return Result.of((total,))
    ndim = len(shapes[0])
    if ndim == 0:
        raise ShapeError("join", "zero-dimensional arrays cannot be concatenated", "ValueError")
    ax = normalize_numpy_axis(axis, ndim)
    out = list(shapes[0])
    for j, s in enumerate(shapes[1:], start=1):
        if len(s) != ndim:
            raise ShapeError("join", "all the input arrays must have same number of dimensions, but the array at "
                             f"index 0 has {ndim} dimension(s) and the array at index {j} has {len(s)} "
                             "dimension(s)", "ValueError", shapes=tuple(shapes))
        for i in range(ndim):
            if i == ax:
                out[i] = add(out[i], s[i])
            elif eq(out[i], s[i]) is False:
                raise ShapeError("join", "all the input array dimensions except for the concatenation axis must "
                                 f"match exactly, but along dimension {i}, the array at index 0 has size "
                                 f"{out[i]} and the array at index {j} has size {s[i]}", "ValueError",
                                 dim=i, shapes=tuple(shapes))
            else:
                out[i] = _pick(out[i], s[i])
    return Result.of(tuple(out))


def _cat_torch(shapes: list[Shape], dim: int | None) -> Result:
    if not shapes:
        raise ShapeError("join", "torch.cat(): expected a non-empty list of Tensors", "ValueError")
    if dim is None:
        dim = 0
    for i, s in enumerate(shapes):
        if len(s) == 0:
            raise ShapeError("join", f"zero-dimensional tensor (at position {i}) cannot be concatenated",
                             "RuntimeError")
    # Tensors of shape (0,) are skipped for backward compatibility; a 1-D
    # tensor of symbolic length may or may not be one.
    skip = [len(s) == 1 and is_zero(s[0]) for s in shapes]
    if any(k is None for k in skip) and any(len(s) != 1 for s in shapes):
        return _cat_torch_uncertain(shapes, dim, skip)
    kept = [(i, s) for i, s in enumerate(shapes) if skip[i] is not True]
    if not kept:
        return Result.of((0,))
    ref_i, ref = kept[0]
    ndim = len(ref)
    wdim = wrap_torch_dim(dim, ndim)
    out = list(ref)
    for i, s in kept[1:]:
        if len(s) != ndim:
            raise ShapeError("join", f"Tensors must have same number of dimensions: got {ndim} and {len(s)}",
                             "RuntimeError", shapes=tuple(shapes))
        for k in range(ndim):
            if k == wdim:
                out[k] = add(out[k], s[k])
            elif eq(ref[k], s[k]) is False:
                raise ShapeError("join", f"Sizes of tensors must match except in dimension {wdim}. Expected size "
                                 f"{ref[k]} but got size {s[k]} for tensor number {i} in the list.",
                                 "RuntimeError", dim=k, shapes=tuple(shapes))
            else:
                out[k] = _pick(out[k], s[k])
    return Result.of(tuple(out))


def _cat_torch_uncertain(shapes: list[Shape], dim: int, skip: list[Maybe]) -> Result:
    """Some 1-D input may be empty (skipped) or not: check only what holds either way."""
    certain = [s for s, k in zip(shapes, skip) if k is False]
    if not certain:
        return Result.of((UNKNOWN,) * max(len(s) for s in shapes))
    ndim = len(certain[0])
    wdim = wrap_torch_dim(dim, ndim)
    result = _cat_torch(certain, dim)
    maybe = [s for s, k in zip(shapes, skip) if k is None]
    if ndim == 1:
        total = result.shape[0]
        for s in maybe:
            total = add(total, s[0])
        return Result.of((total,))
    out = list(result.shape)
    out[wdim] = UNKNOWN
    return Result.of(tuple(out))


def stack(shapes: Sequence[Shape], axis: int = 0, *, dialect: Dialect) -> Result:
    """np.stack / torch.stack: equal shapes, a new axis."""
    shapes = [tuple(s) for s in shapes]
    if not shapes:
        if dialect.is_torch:
            raise ShapeError("join", "stack expects a non-empty TensorList", "RuntimeError")
        raise ShapeError("join", "need at least one array to stack", "ValueError")
    first = shapes[0]
    if dialect.is_torch:
        w = wrap_torch_dim(axis, len(first) + 1)
    common = list(first)
    for j, s in enumerate(shapes[1:], start=1):
        same = len(s) == len(first) and all(eq(a, b) is not False for a, b in zip(first, s))
        if not same:
            if dialect.is_torch:
                raise ShapeError("join", f"stack expects each tensor to be equal size, but got {torch_list(first)} "
                                 f"at entry 0 and {torch_list(s)} at entry {j}", "RuntimeError",
                                 shapes=tuple(shapes))
            raise ShapeError("join", "all input arrays must have the same shape", "ValueError",
                             shapes=tuple(shapes))
        common = [_pick(a, b) for a, b in zip(common, s)]
    if dialect.is_numpy:
        w = normalize_numpy_axis(axis, len(first) + 1)
    return Result.of(tuple(common[:w]) + (len(shapes),) + tuple(common[w:]))


def _atleast(shape: Shape, n: int) -> Shape:
    shape = tuple(shape)
    if len(shape) >= n:
        return shape
    if n == 2 and len(shape) == 1:
        return (1,) + shape
    return (1,) * (n - len(shape)) + shape


def hstack(shapes: Sequence[Shape], *, dialect: Dialect) -> Result:
    """np.hstack / torch.hstack: atleast_1d, then join on axis 0 for 1-D inputs, else axis 1."""
    parts = [_atleast(s, 1) for s in shapes]
    if not parts:
        if dialect.is_torch:
            raise ShapeError("join", "hstack expects a non-empty TensorList", "RuntimeError")
        return concatenate(parts, 0, dialect=dialect)
    return concatenate(parts, 0 if len(parts[0]) == 1 else 1, dialect=dialect)


def vstack(shapes: Sequence[Shape], *, dialect: Dialect) -> Result:
    """np.vstack / torch.vstack: atleast_2d, then join on axis 0."""
    if not shapes and dialect.is_torch:
        raise ShapeError("join", "vstack expects a non-empty TensorList", "RuntimeError")
    return concatenate([_atleast(s, 2) for s in shapes], 0, dialect=dialect)


__all__ = ["concatenate", "stack", "hstack", "vstack"]
