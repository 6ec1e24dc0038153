"""Shape rules of axis permutations: transpose, permute, swapaxes, moveaxis, .T and .mT.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import Dialect
from ..dims import Shape
from ..verdicts import Result, RuleWarning, ShapeError
from .axes import normalize_numpy_axis, numpy_axis_tuple, wrap_torch_dim
from .messages import torch_list

# ---------------------------------------------------------------------------
# Axis permutations.
# ---------------------------------------------------------------------------


def transpose(shape: Shape, axes: Sequence[int] | None = None, *, dialect: Dialect) -> Result:
    """numpy transpose(axes) (None reverses); torch transpose(d0, d1), or t() when axes is None."""
    shape = tuple(shape)
    ndim = len(shape)
    if dialect.is_torch:
        if axes is None:
            if ndim > 2:
                raise ShapeError("axis", f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D",
                                 "RuntimeError")
            return Result.of(shape[::-1])
        return swapaxes(shape, axes[0], axes[1], dialect=dialect)
    if axes is None:
        return Result.of(shape[::-1])
    axes = tuple(axes)
    if len(axes) != ndim:
        raise ShapeError("axis", "axes don't match array", "ValueError")
    seen: set[int] = set()
    for a in axes:
        w = normalize_numpy_axis(a, ndim)
        if w in seen:
            raise ShapeError("axis", "repeated axis in transpose", "ValueError")
        seen.add(w)
    return Result.of(tuple(shape[a % ndim] for a in axes))


def permute(shape: Shape, dims: Sequence[int], *, dialect: Dialect) -> Result:
    """x.permute(dims) (torch) / np.permute_dims (numpy transpose)."""
    shape = tuple(shape)
    ndim = len(shape)
    if dialect.is_numpy:
        return transpose(shape, tuple(dims), dialect=dialect)
    dims = tuple(dims)
    if len(dims) != ndim:
        raise ShapeError("axis", "permute(sparse_coo): number of dimensions in the tensor input does not match "
                         "the length of the desired ordering of dimensions i.e. input.dim() = "
                         f"{ndim} is not equal to len(dims) = {len(dims)}", "RuntimeError")
    seen: set[int] = set()
    out = []
    for d in dims:
        w = wrap_torch_dim(d, ndim)
        if w in seen:
            raise ShapeError("axis", "permute(): duplicate dims are not allowed.", "RuntimeError")
        seen.add(w)
        out.append(shape[w] if ndim else None)
    return Result.of(tuple(out) if ndim else ())


def swapaxes(shape: Shape, a: int, b: int, *, dialect: Dialect) -> Result:
    """x.swapaxes(a, b) / x.transpose(a, b) in torch."""
    shape = tuple(shape)
    ndim = len(shape)
    if dialect.is_torch:
        wa, wb = wrap_torch_dim(a, ndim), wrap_torch_dim(b, ndim)
        if ndim == 0:
            return Result.of(())
    else:
        wa = normalize_numpy_axis(a, ndim, "axis1: ")
        wb = normalize_numpy_axis(b, ndim, "axis2: ")
    out = list(shape)
    out[wa], out[wb] = out[wb], out[wa]
    return Result.of(tuple(out))


def moveaxis(shape: Shape, source, destination, *, dialect: Dialect) -> Result:
    """np.moveaxis / torch.movedim (moveaxis)."""
    shape = tuple(shape)
    ndim = len(shape)
    if dialect.is_torch:
        src = (source,) if isinstance(source, int) else tuple(source)
        dst = (destination,) if isinstance(destination, int) else tuple(destination)
        if len(src) != len(dst):
            raise ShapeError("axis", "movedim: Invalid source or destination dims: source "
                             f"({torch_list(src)} dims) should contain the same number of dims as destination "
                             f"({torch_list(dst)} dims)", "RuntimeError")
        nsrc = [wrap_torch_dim(d, ndim) for d in src]
        ndst = [wrap_torch_dim(d, ndim) for d in dst]
        if len(set(nsrc)) != len(nsrc):
            raise ShapeError("axis", f"movedim: repeated dim in `source` ({torch_list(src)})", "RuntimeError")
        if len(set(ndst)) != len(ndst):
            raise ShapeError("axis", f"movedim: repeated dim in `destination` ({torch_list(dst)})",
                             "RuntimeError")
        if ndim == 0:
            return Result.of(())
    else:
        nsrc = list(numpy_axis_tuple(source, ndim, "source"))
        ndst = list(numpy_axis_tuple(destination, ndim, "destination"))
        if len(nsrc) != len(ndst):
            raise ShapeError("axis", "`source` and `destination` arguments must have the same number of "
                             "elements", "ValueError")
    order = [n for n in range(ndim) if n not in nsrc]
    for dest, src in sorted(zip(ndst, nsrc)):
        order.insert(dest, src)
    return Result.of(tuple(shape[i] for i in order))


def T_attr(shape: Shape, *, dialect: Dialect) -> Result:
    """x.T: numpy reverses; torch warns (deprecated) unless the tensor is 1-D or 2-D."""
    shape = tuple(shape)
    if dialect.is_torch:
        if len(shape) == 0:
            return Result.of(shape, RuleWarning("deprecated", "Tensor.T is deprecated on 0-D tensors. This "
                                                "function is the identity in these cases."))
        if len(shape) > 2:
            return Result.of(shape[::-1], RuleWarning(
                "deprecated", "The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                "is deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                "dimensions of a tensor."))
    return Result.of(shape[::-1])


def matrix_transpose(shape: Shape, *, dialect: Dialect) -> Result:
    """x.mT: swap the last two dims."""
    shape = tuple(shape)
    if len(shape) < 2:
        if dialect.is_numpy:
            raise ShapeError("axis", "matrix transpose with ndim < 2 is undefined", "ValueError")
        if len(shape) == 0:
            return Result.of(shape, RuleWarning("deprecated", "Tensor.mT is deprecated on 0-D tensors. This "
                                                "function is the identity in these cases."))
        raise ShapeError("axis", "tensor.mT is only supported on matrices or batches of matrices. Got 1-D "
                         "tensor.", "RuntimeError")
    return Result.of(shape[:-2] + (shape[-1], shape[-2]))


__all__ = ["transpose", "permute", "swapaxes", "moveaxis", "T_attr", "matrix_transpose"]
