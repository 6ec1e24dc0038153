"""Shape rules of reductions (sum, mean, max, argmax, ...), per library.

Each rule takes shapes (tuples of Dim) and plain python axes and returns a
Result, or raises ShapeError with the library's own message and exception
class when the failure is certain for every value of the symbolic sizes.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import Dialect
from ..dims import Shape, is_zero, numel
from ..verdicts import Result, ShapeError
from .axes import normalize_numpy_axis, wrap_torch_dim

# ---------------------------------------------------------------------------
# Reductions.
# ---------------------------------------------------------------------------

# NumPy reductions that have no identity, by the ufunc name in the message.
_NUMPY_NO_IDENTITY = {"max": "maximum", "amax": "maximum", "min": "minimum", "amin": "minimum",
                      "ptp": "maximum"}
_ARG_REDUCTIONS = ("argmax", "argmin")
_NUMPY_UFUNC_REDUCTIONS = {"sum", "prod", "max", "min", "amax", "amin", "any", "all"}
# torch reductions that refuse zero-size reduced dims.
_TORCH_NONEMPTY = {"max", "min", "amax", "amin", "argmax", "argmin", "median", "mode", "aminmax"}
# torch reductions that take only one int dim (a tuple is a TypeError).
_TORCH_INT_DIM_ONLY = {"max", "min", "argmax", "argmin", "prod", "median", "mode"}
# torch reductions whose dim=() means "no dims" rather than "all dims".
_TORCH_EMPTY_DIMS_IS_NOOP = {"any", "all"}
REDUCE_OPS = frozenset({"sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin",
                        "argmax", "argmin", "any", "all", "nansum", "nanmean", "nanstd", "nanvar",
                        "nanmax", "nanmin", "median", "logsumexp", "norm", "count_nonzero",
                        "average"})
"""Ops that reduce along ``axis`` / ``dim``, dropping it unless keepdims is set."""


def _reduced_shape(shape: Shape, axes: Sequence[int], keepdims: bool) -> Shape:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def reduce(shape: Shape, axis: int | Sequence[int] | None = None, keepdims: bool = False, *,
           op: str = "sum", dialect: Dialect) -> Result:
    """x.sum(axis, keepdims) and friends; torch's max/min with a dim give (values, indices)."""
    shape = tuple(shape)
    if dialect.is_torch:
        return _reduce_torch(shape, axis, keepdims, op)
    return _reduce_numpy(shape, axis, keepdims, op)


def _reduce_numpy(shape: Shape, axis, keepdims: bool, op: str) -> Result:
    ndim = len(shape)
    if op in _ARG_REDUCTIONS:
        if axis is not None and not isinstance(axis, int):
            raise ShapeError("argument", f"'{type(axis).__name__}' object cannot be interpreted as an integer",
                             "TypeError")
        if axis is None:
            axes = tuple(range(ndim))
        else:
            # argmax works on a 0-d array as if it were 1-d.
            axes = (normalize_numpy_axis(axis, max(ndim, 1)),)
            axes = axes if ndim else ()
        empty = is_zero(numel(shape)) if axis is None else (is_zero(shape[axes[0]]) if ndim else False)
        if empty is True:
            raise ShapeError("reduce", f"attempt to get {op} of an empty sequence", "ValueError")
        if axis is None:
            return Result.of((1,) * ndim if keepdims else ())
        return Result.of(_reduced_shape(shape, axes, keepdims))
    if axis is None:
        axes = tuple(range(ndim))
    elif isinstance(axis, int):
        if ndim == 0 and axis in (0, -1) and op in _NUMPY_UFUNC_REDUCTIONS:
            axes = ()  # a ufunc's reduce lets a 0-d array reduce along "axis 0".
        else:
            axes = (normalize_numpy_axis(axis, ndim),)
    else:
        axes = tuple(normalize_numpy_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ShapeError("axis", "duplicate value in 'axis'", "ValueError")
    if op in _NUMPY_NO_IDENTITY and axes:
        if any(is_zero(shape[a]) is True for a in axes):
            raise ShapeError("reduce", f"zero-size array to reduction operation {_NUMPY_NO_IDENTITY[op]} "
                             "which has no identity", "ValueError")
    return Result.of(_reduced_shape(shape, axes, keepdims))


def _reduce_torch(shape: Shape, axis, keepdims: bool, op: str) -> Result:
    ndim = len(shape)
    if axis is not None and not isinstance(axis, int) and op in _TORCH_INT_DIM_ONLY:
        # The exact text lists the overloads of the call as written; not modelled.
        raise ShapeError("argument", f"{op}() received an invalid combination of arguments - got "
                         f"(dim=tuple, ...)", "TypeError")
    if axis is not None and not isinstance(axis, int) and len(axis) == 0 \
            and op not in _TORCH_EMPTY_DIMS_IS_NOOP:
        # torch's legacy reading of dim=(): every dim, keepdim honoured.
        if op in _TORCH_NONEMPTY and is_zero(numel(shape)) is True:
            return _reduce_torch(shape, None, keepdims, op)
        return Result.of((1,) * ndim if keepdims else ())
    if axis is None:
        if op in _TORCH_NONEMPTY and is_zero(numel(shape)) is True:
            if op in _ARG_REDUCTIONS:
                raise ShapeError("reduce", f"{op}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.", "IndexError")
            raise ShapeError("reduce", f"{op}(): Expected reduction dim to be specified for input.numel() "
                             "== 0. Specify the reduction dim with the 'dim' argument.", "RuntimeError")
        out = (1,) * ndim if keepdims else ()
        if op in ("max", "min", "median", "mode"):
            return Result.of(())  # the values only; keepdim is not accepted without dim
        return Result.of(out)
    dims = (axis,) if isinstance(axis, int) else tuple(axis)
    wrapped = []
    for d in dims:
        w = wrap_torch_dim(d, ndim)
        if op in ("std", "var") and w in wrapped:
            # std/var wrap and check each dim in turn; the others wrap every dim first.
            raise ShapeError("axis", f"dim {w} appears multiple times in the list of dims", "RuntimeError")
        wrapped.append(w)
        if op in ("amax", "amin") and ndim and is_zero(shape[wrapped[-1]]) is True:
            # amax/amin check each dim as they wrap it, naming it as the caller wrote it.
            raise ShapeError("reduce", f"{op}(): Expected reduction dim {d} to have non-zero size.",
                             "IndexError", dim=wrapped[-1])

    if op in _TORCH_NONEMPTY and ndim:
        for w in wrapped:
            if is_zero(shape[w]) is True:
                raise ShapeError("reduce", f"{op}(): Expected reduction dim {w} to have non-zero size.",
                                 "IndexError", dim=w)
    seen: set[int] = set()
    for w in wrapped:
        if w in seen:
            raise ShapeError("axis", f"dim {w} appears multiple times in the list of dims", "RuntimeError")
        seen.add(w)
    if not dims and op in _TORCH_EMPTY_DIMS_IS_NOOP:
        return Result.of(shape)
    out = _reduced_shape(shape, set(wrapped), keepdims)
    if op in ("max", "min", "median", "mode"):
        return Result((out, out))  # (values, indices)
    return Result.of(out)


# The keyword that keeps the reduced axes, for the reductions that take it and give one array:
# torch's max, min, median and mode with a dim give (values, indices), count_nonzero has no
# keepdim, and NumPy has no logsumexp of its own.
_NUMPY_KEEPDIMS = REDUCE_OPS - {"logsumexp"}
_TORCH_KEEPDIM = frozenset({"sum", "prod", "mean", "std", "var", "amax", "amin", "argmax", "argmin",
                            "any", "all", "nansum", "nanmean", "logsumexp", "norm"})


def keepdims_keyword(op: str, library: str) -> str | None:
    """``keepdims`` (NumPy) or ``keepdim`` (torch) when ``op`` takes it and returns one array, else None."""
    if library == "numpy":
        return "keepdims" if op in _NUMPY_KEEPDIMS else None
    if library == "torch":
        return "keepdim" if op in _TORCH_KEEPDIM else None
    return None


__all__ = ["REDUCE_OPS", "keepdims_keyword", "reduce"]
