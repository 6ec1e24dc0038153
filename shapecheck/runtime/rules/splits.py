"""Shape rules of splits and single-dim selections: split, chunk, unbind, narrow, select, unfold, diagonal.

split/chunk/unbind whose piece count depends on a symbolic size return one
representative piece shape (UNKNOWN along the split dim) with a
"piece-count-unknown" warning.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import Dialect
from ..dims import (
    UNKNOWN,
    Dim,
    Shape,
    add,
    eq,
    exact_div,
    floordiv,
    is_zero,
    le,
    lt,
    sub,
)
from ..verdicts import Result, RuleWarning, ShapeError
from .axes import clamp_nonneg, min_dim, normalize_numpy_axis, with_dim, wrap_torch_dim
from .messages import torch_list

# ---------------------------------------------------------------------------
# Splits and single-dim selections.
# ---------------------------------------------------------------------------


def _pieces_unknown(shape: Shape, axis: int) -> Result:
    return Result((with_dim(shape, axis, UNKNOWN),),
                  (RuleWarning("piece-count-unknown", "the number of pieces depends on a symbolic size"),))


def _python_slice_len(start: int | None, stop: int | None, n: int) -> int:
    return len(range(n)[slice(start, stop)])


def split(shape: Shape, sections: int | Sequence[int], axis: int = 0, *, dialect: Dialect) -> Result:
    """np.split(x, sections|indices, axis) / torch.split(x, size|sizes, dim): one output per piece."""
    shape = tuple(shape)
    ndim = len(shape)
    if dialect.is_torch:
        return _split_torch(shape, sections, axis)
    if not (-ndim <= axis < ndim):
        raise ShapeError("axis", "tuple index out of range", "IndexError")
    ax = axis % ndim
    n = shape[ax]
    if isinstance(sections, int):
        if sections == 0:
            raise ShapeError("argument", "integer modulo by zero", "ZeroDivisionError")
        if isinstance(n, int):
            if n % sections:
                raise ShapeError("split", "array split does not result in an equal division", "ValueError")
        elif exact_div(n, sections) is None and sections > 0:
            return _pieces_unknown(shape, ax)
    return array_split(shape, sections, axis, dialect=dialect)


def array_split(shape: Shape, sections: int | Sequence[int], axis: int = 0, *, dialect: Dialect) -> Result:
    """np.array_split: the first n % k pieces get one more element."""
    shape = tuple(shape)
    ndim = len(shape)
    if not (-ndim <= axis < ndim):
        raise ShapeError("axis", "tuple index out of range", "IndexError")
    ax = axis % ndim
    n = shape[ax]
    if isinstance(sections, int):
        if sections <= 0:
            raise ShapeError("split", "number sections must be larger than 0.", "ValueError")
        if not isinstance(n, int):
            each = exact_div(n, sections)
            if each is None:
                return Result(tuple(with_dim(shape, ax, UNKNOWN) for _ in range(sections)))
            return Result(tuple(with_dim(shape, ax, each) for _ in range(sections)))
        each, extras = divmod(n, sections)
        sizes = [each + 1] * extras + [each] * (sections - extras)
        return Result(tuple(with_dim(shape, ax, s) for s in sizes))
    points = list(sections)
    if not isinstance(n, int):
        return Result(tuple(with_dim(shape, ax, UNKNOWN) for _ in range(len(points) + 1)))
    bounds = [0] + points + [n]
    return Result(tuple(with_dim(shape, ax, _python_slice_len(bounds[i], bounds[i + 1], n))
                        for i in range(len(points) + 1)))


def _split_torch(shape: Shape, size: int | Sequence[int], dim: int) -> Result:
    ndim = len(shape)
    if ndim == 0:
        raise ShapeError("split", "split expects at least a 1-dimensional tensor", "RuntimeError")
    if isinstance(size, int):
        if size < 0:
            raise ShapeError("split", f"split expects split_size be non-negative, but got split_size={size}",
                             "RuntimeError")
        w = wrap_torch_dim(dim, ndim)
        n = shape[w]
        if size == 0:
            if is_zero(n) is False:
                raise ShapeError("split", f"split_size can only be 0 if dimension size is 0, but got dimension "
                                 f"size of {n}", "RuntimeError")
            return Result((with_dim(shape, w, 0),))
        if not isinstance(n, int):
            each = exact_div(n, size)
            if each is not None and isinstance(each, int):
                return Result(tuple(with_dim(shape, w, size) for _ in range(each)))
            return _pieces_unknown(shape, w)
        count = max((n + size - 1) // size, 1)
        last = size - (size * count - n)
        return Result(tuple(with_dim(shape, w, size) for _ in range(count - 1)) + (with_dim(shape, w, last),))
    sizes = list(size)
    w = wrap_torch_dim(dim, ndim)
    n = shape[w]
    if any(s < 0 for s in sizes):
        raise ShapeError("split", "split_with_sizes expects split_sizes have only non-negative entries, but got "
                         f"split_sizes={torch_list(sizes)}", "RuntimeError")
    if eq(n, sum(sizes)) is False:
        raise ShapeError("split", f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                         f"size at dimension {dim}), but got split_sizes={torch_list(sizes)}", "RuntimeError")
    return Result(tuple(with_dim(shape, w, s) for s in sizes))


def chunk(shape: Shape, chunks: int, dim: int = 0, *, dialect: Dialect) -> Result:
    """torch.chunk (numpy dialect: np.array_split)."""
    shape = tuple(shape)
    if dialect.is_numpy:
        return array_split(shape, chunks, dim, dialect=dialect)
    ndim = len(shape)
    if ndim == 0:
        raise ShapeError("split", "chunk expects at least a 1-dimensional tensor", "RuntimeError")
    if chunks <= 0:
        raise ShapeError("split", f"chunk expects `chunks` to be greater than 0, got: {chunks}", "RuntimeError")
    w = wrap_torch_dim(dim, ndim)
    n = shape[w]
    if not isinstance(n, int):
        each = exact_div(n, chunks)
        if each is not None:
            return Result(tuple(with_dim(shape, w, each) for _ in range(chunks)))
        return _pieces_unknown(shape, w)
    size = (n + chunks - 1) // chunks
    if size == 0 and n == 0:
        return Result(tuple(with_dim(shape, w, 0) for _ in range(chunks)))
    return _split_torch(shape, size, w)


def unbind(shape: Shape, dim: int = 0, *, dialect: Dialect) -> Result:
    """torch.unbind / np.unstack: one output per index along dim."""
    shape = tuple(shape)
    ndim = len(shape)
    if dialect.is_torch:
        w = wrap_torch_dim(dim, ndim)  # a 0-d tensor accepts -1 and 0 here, then has no dim 0
        if ndim == 0:
            raise ShapeError("axis", "Dimension specified as 0 but tensor has no dimensions", "IndexError")
    else:
        if ndim == 0:
            raise ShapeError("axis", "Input array must be at least 1-d.", "ValueError")
        w = normalize_numpy_axis(dim, ndim, "source: ")  # np.unstack is moveaxis(x, axis, 0)
    n = shape[w]
    piece = shape[:w] + shape[w + 1:]
    if not isinstance(n, int):
        return Result((piece,), (RuleWarning("piece-count-unknown",
                                             "the number of pieces depends on a symbolic size"),))
    return Result(tuple(piece for _ in range(n)))


def narrow(shape: Shape, dim: int, start: int, length: int, *, dialect: Dialect) -> Result:
    """torch narrow(dim, start, length) (numpy dialect: the same slice)."""
    shape = tuple(shape)
    ndim = len(shape)
    if ndim == 0:
        raise ShapeError("index", "narrow() cannot be applied to a 0-dim tensor.", "RuntimeError")
    if length < 0:
        raise ShapeError("index", "narrow(): length must be non-negative.", "RuntimeError")
    w = wrap_torch_dim(dim, ndim)
    n = shape[w]
    if le(sub(0, n), start) is False or le(start, n) is False:
        raise ShapeError("index", f"start out of range (expected to be in range of [{sub(0, n)}, {n}], but got "
                         f"{start})", "IndexError")
    begin: Dim = add(start, n) if start < 0 else start
    if le(begin, sub(n, length)) is False:
        raise ShapeError("index", f"start ({begin}) + length ({length}) exceeds dimension size ({n}).",
                         "RuntimeError")
    return Result.of(with_dim(shape, w, length))


def select(shape: Shape, dim: int, index: int, *, dialect: Dialect) -> Result:
    """torch select(dim, index): drops dim."""
    shape = tuple(shape)
    ndim = len(shape)
    if ndim == 0:
        raise ShapeError("index", "select() cannot be applied to a 0-dim tensor.", "IndexError")
    w = wrap_torch_dim(dim, ndim)
    n = shape[w]
    if lt(index, sub(0, n)) is True or le(n, index) is True:
        raise ShapeError("index", f"select(): index {index} out of range for tensor of size {torch_list(shape)} at "
                         f"dimension {w}", "IndexError", dim=w)
    return Result.of(shape[:w] + shape[w + 1:])


def unfold(shape: Shape, dimension: int, size: int, step: int, *, dialect: Dialect) -> Result:
    """torch x.unfold(dimension, size, step): sliding windows as a new last dim."""
    shape = tuple(shape)
    ndim = len(shape)
    d = wrap_torch_dim(dimension, ndim)
    max_size = shape[d] if ndim else 1
    if lt(max_size, size) is True:
        raise ShapeError("index", f"maximum size for tensor at dimension {d} is {max_size} but size is {size}",
                         "RuntimeError")
    if size < 0:
        raise ShapeError("argument", f"size is {size} but must be >= 0", "RuntimeError")
    if step <= 0:
        raise ShapeError("argument", f"step is {step} but must be > 0", "RuntimeError")
    if ndim == 0:
        return Result.of((size,))
    windows = add(floordiv(sub(shape[d], size), step), 1) if le(size, shape[d]) is True else UNKNOWN
    return Result.of(with_dim(shape, d, windows) + (size,))


def diagonal(shape: Shape, offset: int = 0, axis1: int = 0, axis2: int = 1, *, dialect: Dialect) -> Result:
    """x.diagonal(offset, axis1, axis2): both axes removed, the diagonal appended."""
    shape = tuple(shape)
    ndim = len(shape)
    if dialect.is_torch:
        a = wrap_torch_dim(axis1, ndim)
        b = wrap_torch_dim(axis2, ndim)
        if a == b:
            raise ShapeError("axis", f"diagonal dimensions cannot be identical {axis1}, {axis2}", "RuntimeError")
    else:
        if ndim < 2:
            raise ShapeError("axis", "diag requires an array of at least two dimensions", "ValueError")
        a = normalize_numpy_axis(axis1, ndim, "axis1: ")
        b = normalize_numpy_axis(axis2, ndim, "axis2: ")
        if a == b:
            raise ShapeError("axis", "axis1 and axis2 cannot be the same", "ValueError")
    n1, n2 = shape[a], shape[b]
    if offset >= 0:
        length = clamp_nonneg(min_dim(n1, sub(n2, offset)))
    else:
        length = clamp_nonneg(min_dim(add(n1, offset), n2))
    if length is UNKNOWN and offset == 0 and eq(n1, n2) is True:
        length = n1
    return Result.of(tuple(d for i, d in enumerate(shape) if i not in (a, b)) + (length,))


__all__ = ["split", "array_split", "chunk", "unbind", "narrow", "select", "unfold", "diagonal"]
