"""Reductions that also say where, orderings, running totals and norms, in the op table.

torch's ``max(x, dim)`` / ``min`` / ``median`` / ``mode`` / ``kthvalue`` /
``topk`` / ``sort`` / ``cummax`` / ``aminmax`` return (values, indices) named
tuples; ``max(x, other)`` is the element-wise maximum, and ``max(x)`` one
value. ``argmax`` / ``argsort`` give int64 indices; running totals
(``cumsum``, ``cumprod``) keep the shape (NumPy flattens without an axis);
the norms reduce like a sum, with ``ord`` deciding between a vector and a
matrix norm. Each rule raises the library's error only when it is certain,
and raises NotImplementedError (an unknown answer) for arguments it does not
model. Registered into the table on import; runtime/ops.py imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from . import dtypes
from .arguments import arg as _arg
from .arguments import dtype_of as _dtype
from .arguments import is_array as _is_array
from .arguments import kw as _kw
from .arguments import shape_of as _shape
from .dialects import Dialect
from .dims import Sym, UnknownDim, is_zero, le, numel
from .optable import add_op as _add
from .optable import shape_keeping as _shape_keeping
from .verdicts import Result, ShapeError

_axes = importlib.import_module(".rules.axes", __package__)
_pointwise = importlib.import_module(".rules.pointwise", __package__)
_reductions = importlib.import_module(".rules.reductions", __package__)

INDEX = "int64"



def _as_axis(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _float_dtype(dtype: str | None, dialect: Dialect) -> str | None:
    """The dtype of a float-valued result (a mean, a norm, a log): ints become the default float."""
    if dtype is None:
        return None
    if dtypes.category(dtype) is not None and dtypes.category(dtype) >= 2:
        return dtype
    return "float64" if dialect.is_numpy else "float32"


def _wrap(dim: Any, ndim: int, dialect: Dialect) -> int:
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise NotImplementedError("a dim that is not an int")
    return _axes.wrap_axis(dim, ndim, dialect)


def _replace(shape: tuple, axis: int, size: Any, keep: bool = True) -> tuple:
    if not shape:
        return ()
    if keep:
        return shape[:axis] + (size,) + shape[axis + 1:]
    return shape[:axis] + shape[axis + 1:]


# ---------------------------------------------------------------------------- torch max / min

def _extreme_rule(op: str) -> Callable[..., Result]:
    """torch ``max(x)``, ``max(x, dim, keepdim)`` (values, indices), ``max(x, other)``."""
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        other = args[0] if args and _is_array(args[0]) else kwargs.get("other")
        if _is_array(other):
            return _pointwise.pointwise(_shape(x), _shape(other),
                                        op="maximum" if op == "max" else "minimum", dialect=dialect)
        dim = _arg(args, 0, kwargs, "dim")
        keep = _arg(args, 1, kwargs, "keepdim", default=False)
        if dim is None and (keep or "keepdim" in kwargs):
            raise NotImplementedError("keepdim without dim is an overload error")
        return _reductions.reduce(_shape(x), dim, bool(keep), op=op, dialect=dialect)
    return rule


def _extreme_dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    other = args[0] if args and _is_array(args[0]) else kwargs.get("other")
    if _is_array(other):
        return dtypes.op_result_type("maximum", _dtype(x), _dtype(other), dialect,
                                     x.ndim, other.ndim)
    if _arg(args, 0, kwargs, "dim") is None:
        return _dtype(x)
    return (_dtype(x), INDEX)


def _values_indices_dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    return (_dtype(x), INDEX)


def _median_rule(op: str) -> Callable[..., Result]:
    """``median(x)`` one value; ``median(x, dim)`` / ``mode(x, dim=-1)`` (values, indices)."""
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        dim = _arg(args, 0, kwargs, "dim", default=-1 if op == "mode" else None)
        keep = bool(_arg(args, 1, kwargs, "keepdim", default=False))
        return _reductions.reduce(_shape(x), dim, keep, op=op, dialect=dialect)
    return rule


def _median_dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    if _arg(args, 0, kwargs, "dim") is None:
        return _dtype(x)
    return (_dtype(x), INDEX)


def _aminmax_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    if args:
        raise NotImplementedError("aminmax takes its dim by keyword only")
    dim, keep = kwargs.get("dim"), bool(kwargs.get("keepdim", False))
    if isinstance(dim, (tuple, list)):
        raise ShapeError("argument", f"aminmax(): argument 'dim' must be int, not "
                         f"{type(dim).__name__}", "TypeError")
    shape = _reductions.reduce(_shape(x), dim, keep, op="aminmax", dialect=dialect).shape
    return Result((shape, shape))


def _selection_rule(op: str) -> Callable[..., Result]:
    """``kthvalue(x, k, dim=-1, keepdim)`` and ``topk(x, k, dim=-1, largest, sorted)``.

    A k that may exceed the dim's size (a symbol, or an int nobody knows) raises only when it
    does: the result is the one the call returns whenever it returns."""
    def rule(x: Any, k: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(x)
        dim = _wrap(_arg(args, 0, kwargs, "dim", default=-1), len(shape), dialect)
        if isinstance(k, bool) or not isinstance(k, (int, Sym, UnknownDim)):
            raise NotImplementedError("k is not a size")
        size = shape[dim] if shape else 1
        if op == "topk":
            if isinstance(k, int) and k < 0 or le(k, size) is False:
                raise ShapeError("argument", "selected index k out of range", "RuntimeError")
            out = _replace(shape, dim, k)
            return Result((out, out))
        if isinstance(k, int) and k < 1 or le(k, size) is False:
            raise ShapeError("argument", f"kthvalue(): selected number k out of range for "
                             f"dimension {dim}", "RuntimeError", dim=dim)
        keep = bool(_arg(args, 1, kwargs, "keepdim", default=False))
        out = _replace(shape, dim, 1, keep)
        return Result((out, out))
    return rule


# ---------------------------------------------------------------------------- arg-reductions

def _argreduce_rule(op: str) -> Callable[..., Result]:
    """NumPy ``argmax(x, axis=None, out=None, *, keepdims)``; torch ``argmax(x, dim, keepdim)``."""
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        axis = _arg(args, 0, kwargs, "axis" if dialect.is_numpy else "dim")
        if dialect.is_numpy:
            keep = _kw(kwargs, "keepdims", default=False)
        else:
            keep = _arg(args, 1, kwargs, "keepdim", default=False)
        if "out" in kwargs or len(args) > (1 if dialect.is_numpy else 2):
            raise NotImplementedError("out=")
        return _reductions.reduce(_shape(x), axis, bool(keep), op=op, dialect=dialect)
    return rule


def _index_dtype(*args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    return INDEX


def _logsumexp_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    if not args and "dim" not in kwargs:
        raise ShapeError("argument", 'logsumexp() missing 1 required positional arguments: "dim"',
                         "TypeError")
    dim = _as_axis(_arg(args, 0, kwargs, "dim"))
    keep = bool(_arg(args, 1, kwargs, "keepdim", default=False))
    if dim == ():  # no dims: a 0-d tensor as it is, else every dim and only with keepdim
        ndim = len(_shape(x))
        if ndim and not keep:
            raise ShapeError("argument", f"output with shape [] doesn't match the broadcast "
                             f"shape {list((1,) * ndim)}", "RuntimeError")
        return Result.of((1,) * ndim)
    return _reductions.reduce(_shape(x), dim, keep, op="logsumexp", dialect=dialect)


def _float_result_dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    return _float_dtype(_dtype(x), dialect)


# ---------------------------------------------------------------------------- rolls and flips

def _dims_of(value: Any) -> tuple[int, ...] | None:
    """An int or a sequence of ints as a tuple; None when absent."""
    if value is None:
        return None
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in items):
        raise NotImplementedError("dims that are not ints")
    return items


@_shape_keeping
def _roll_rule(x: Any, shifts: Any = None, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """``torch.roll(x, shifts, dims=None)`` and ``np.roll(a, shift, axis=None)``: the same
    shape, each dim checked; without dims torch rolls the flattened tensor by one shift."""
    shape = _shape(x)
    dims = _dims_of(_arg(args, 0, kwargs, "axis" if dialect.is_numpy else "dims"))
    if dims is None:
        if dialect.is_torch and isinstance(shifts, (tuple, list)) and len(shifts) != 1:
            raise ShapeError("argument", f"shifts and dimensions must align. shifts: "
                             f"{len(shifts)}, dims:0", "RuntimeError")
        return Result.of(shape)
    if dialect.is_torch and not shape:
        raise NotImplementedError("torch.roll wraps no dim of a 0-d tensor")
    for dim in dims:
        _axes.wrap_axis(dim, len(shape), dialect)
    if dialect.is_torch and shifts is not None:
        count = len(shifts) if isinstance(shifts, (tuple, list)) else 1
        if count != len(dims):
            raise ShapeError("argument", f"shifts and dimensions must align. shifts: {count}, "
                             f"dims:{len(dims)}", "RuntimeError")
    return Result.of(shape)


@_shape_keeping
def _flip_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """``torch.flip(x, dims)`` and ``np.flip(m, axis=None)``: the same shape; a dim twice is
    refused."""
    shape = _shape(x)
    given = _arg(args, 0, kwargs, "axis" if dialect.is_numpy else "dims")
    if dialect.is_torch and isinstance(given, int):
        raise NotImplementedError("torch.flip takes a sequence of dims")
    dims = _dims_of(given)
    if dims is None:
        return Result.of(shape)
    wrapped = [_axes.wrap_axis(dim, len(shape), dialect) for dim in dims]
    if len(set(wrapped)) != len(wrapped):
        if dialect.is_numpy:
            raise ShapeError("axis", "repeated axis", "ValueError")
        twice = next(d for d in dims if wrapped.count(_axes.wrap_axis(d, len(shape), dialect)) > 1)
        raise ShapeError("axis", f"dim {twice} appears multiple times in the list of dims",
                         "RuntimeError")
    return Result.of(shape)


def _flip_side_rule(least: int) -> Callable[..., Result]:
    """``fliplr`` needs 2 dims, ``flipud`` 1, in both libraries."""
    @_shape_keeping
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(x)
        if len(shape) < least:
            raise ShapeError("axis", f"Input must be >= {least}-d.",
                             "ValueError" if dialect.is_numpy else "RuntimeError")
        return Result.of(shape)
    return rule


# ---------------------------------------------------------------------------- running totals

def _numpy_cumulative_rule(op: str) -> Callable[..., Result]:
    """``np.cumsum(x, axis=None)`` flattens without an axis; ``np.cumulative_sum`` needs one
    for more than one dim and refuses 0-d arrays."""
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(x)
        axis = _arg(args, 0, kwargs, "axis")
        if kwargs.get("include_initial"):
            raise NotImplementedError("include_initial")
        if isinstance(axis, (tuple, list)):
            raise ShapeError("axis", f"'{type(axis).__name__}' object cannot be interpreted as "
                             "an integer", "TypeError")
        if op.startswith("cumulative"):
            if axis is None and len(shape) > 1:
                raise ShapeError("argument", "For arrays which have more than one dimension "
                                 "``axis`` argument is required.", "ValueError")
            if axis is None:
                return Result.of(shape if shape else (1,))
        elif axis is None:
            return Result.of((numel(shape),))
        if not shape:
            _axes.normalize_numpy_axis(axis, 1)  # a 0-d array runs as a 1-element one
            return Result.of((1,))
        _axes.normalize_numpy_axis(axis, len(shape))
        return Result.of(shape)
    return rule


def _torch_cumulative_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    dim = _arg(args, 0, kwargs, "dim")
    if dim is None:
        raise NotImplementedError("dim is required; torch names the overloads in its message")
    shape = _shape(x)
    _wrap(dim, len(shape), dialect)
    return Result.of(shape)


def _logcumsumexp_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    dtype = _dtype(x)
    if dtype is not None and (dtypes.category(dtype) or 0) < 2:
        raise ShapeError("dtype", f'"logcumsumexp_out_cpu" not implemented for '
                         f"'{_axes.torch_scalar_type(dtype)}'", "NotImplementedError")
    return _torch_cumulative_rule(x, *args, dialect=dialect, **kwargs)


def _torch_cumulative_pair_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    shape = _torch_cumulative_rule(x, *args, dialect=dialect, **kwargs).shape
    return Result((shape, shape))


def _running_total_dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    """A sum of ints accumulates in the platform's long (uint64 for unsigned in NumPy)."""
    given = kwargs.get("dtype") if dialect.is_torch else _arg(args, 1, kwargs, "dtype")
    if given is not None:
        return dtypes.dtype_spelling(given)
    dtype = _dtype(x)
    if dtype is None or dtypes.category(dtype) is None or dtypes.category(dtype) >= 2:
        return dtype
    if dialect.is_numpy and dtype.startswith("uint"):
        return "uint64"
    return "int64"


# ---------------------------------------------------------------------------- orderings

def _numpy_sort_rule(op: str) -> Callable[..., Result]:
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(x)
        axis = _arg(args, 0, kwargs, "axis", default=-1)
        if axis is None:
            return Result.of((numel(shape),))
        if not shape and op == "argsort":
            _axes.normalize_numpy_axis(axis, 1)  # argsort runs a 0-d array as 1-d
            return Result.of((1,))
        _axes.normalize_numpy_axis(axis, len(shape))
        return Result.of(shape)
    return rule


def _torch_sort_rule(pair: bool) -> Callable[..., Result]:
    """torch ``sort(x, dim=-1, descending)`` (values, indices) and ``argsort``."""
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(x)
        dim = args[0] if args and not isinstance(args[0], bool) else kwargs.get("dim", -1)
        if args and isinstance(args[0], bool):
            raise NotImplementedError("sort(stable, dim=...) overload")
        _wrap(dim, len(shape), dialect)
        return Result((shape, shape)) if pair else Result.of(shape)
    return rule


def _msort_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    shape = _shape(x)
    _wrap(0, len(shape), dialect)
    return Result.of(shape)


# ---------------------------------------------------------------------------- norms

_MATRIX_ORDS = (None, 1, -1, 2, -2, float("inf"), float("-inf"), "fro", "nuc")


def _numpy_norm_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    shape = _shape(x)
    order = _arg(args, 0, kwargs, "ord")
    axis = _as_axis(_arg(args, 1, kwargs, "axis"))
    keep = bool(_arg(args, 2, kwargs, "keepdims", default=False))
    ndim = len(shape)
    if axis is None:
        if order is None:
            return Result.of((1,) * ndim if keep else ())
        if ndim not in (1, 2):
            raise ShapeError("argument", "Improper number of dimensions to norm.", "ValueError")
        axis = tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(axes) == 1:
        if isinstance(order, str):
            raise ShapeError("argument", f"Invalid norm order '{order}' for vectors", "ValueError")
        wrapped = (_axes.normalize_numpy_axis(axes[0], ndim),)
    elif len(axes) == 2:
        wrapped = tuple(_axes.normalize_numpy_axis(a, ndim) for a in axes)
        if wrapped[0] == wrapped[1]:
            raise ShapeError("argument", "Duplicate axes given.", "ValueError")
        if order not in _MATRIX_ORDS:
            raise ShapeError("argument", "Invalid norm order for matrices.", "ValueError")
    else:
        raise ShapeError("argument", "Improper number of dimensions to norm.", "ValueError")
    if order in (2, -2, "nuc") and len(axes) == 2 and any(is_zero(shape[a]) for a in wrapped):
        raise NotImplementedError("an SVD of an empty matrix")
    return Result.of(_kept(shape, wrapped, keep))


def _kept(shape: tuple, axes: tuple, keep: bool) -> tuple:
    if keep:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _torch_float_input(x: Any, name: str) -> None:
    dtype = _dtype(x)
    if dtype is not None and (dtypes.category(dtype) or 0) < 2:
        raise ShapeError("dtype", f"{name}: Expected a floating point or complex tensor as "
                         f"input. Got {_axes.torch_scalar_type(dtype)}", "RuntimeError")


def _torch_dims(shape: tuple, dim: Any) -> tuple[int, ...] | None:
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    ndim = len(shape)
    wrapped = []
    for d in dims:
        w = _axes.wrap_torch_dim(d, ndim)
        if w in wrapped:
            raise ShapeError("axis", f"dim {w} appears multiple times in the list of dims",
                             "RuntimeError")
        wrapped.append(w)
    return tuple(wrapped)


def _vector_norm(shape: tuple, dim: Any, keep: bool, x: Any) -> Result:
    _torch_float_input(x, "linalg.vector_norm")
    dims = _torch_dims(shape, dim)
    if dims is None or dims == ():
        return Result.of((1,) * len(shape) if keep else ())
    if any(is_zero(shape[d]) is not False for d in dims if shape):
        raise NotImplementedError("a norm over a dim that may be empty")
    return Result.of(_kept(shape, dims, keep) if shape else ())


def _matrix_norm(shape: tuple, dim: Any, keep: bool, x: Any, order: Any) -> Result:
    if len(shape) < 2:
        raise ShapeError("argument", "linalg.matrix_norm: The input tensor A must have at least "
                         "2 dimensions.", "RuntimeError")
    dim = (-2, -1) if dim is None else dim
    if isinstance(dim, int) or len(dim) != 2:
        raise NotImplementedError("matrix_norm with other than two dims")
    _torch_float_input(x, "linalg.matrix_norm")
    dims = _torch_dims(shape, dim)
    if order not in _MATRIX_ORDS or any(is_zero(shape[d]) is not False for d in dims):
        raise NotImplementedError("an order or size matrix_norm checks by value")
    return Result.of(_kept(shape, dims, keep))


def _torch_vector_norm_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    dim = _as_axis(_arg(args, 1, kwargs, "dim"))
    return _vector_norm(_shape(x), dim, bool(_arg(args, 2, kwargs, "keepdim", default=False)), x)


def _torch_matrix_norm_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    order = _arg(args, 0, kwargs, "ord", default="fro")
    dim = _as_axis(_arg(args, 1, kwargs, "dim"))
    return _matrix_norm(_shape(x), dim, bool(_arg(args, 2, kwargs, "keepdim", default=False)),
                        x, order)


def _torch_linalg_norm_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    shape = _shape(x)
    order = _arg(args, 0, kwargs, "ord")
    dim = _as_axis(_arg(args, 1, kwargs, "dim"))
    keep = bool(_arg(args, 2, kwargs, "keepdim", default=False))
    if dim is None and order is not None and len(shape) not in (1, 2):
        raise ShapeError("argument", "linalg.norm: If dim is not specified but ord is, the input "
                         f"must be 1D or 2D. Got {len(shape)}D.", "RuntimeError")
    if isinstance(order, str):
        return _matrix_norm(shape, dim, keep, x, order)
    if dim is None and order is not None and len(shape) == 2:
        return _matrix_norm(shape, None, keep, x, order)
    if dim is not None and not isinstance(dim, int) and len(dim) == 2:
        return _matrix_norm(shape, dim, keep, x, order)
    return _vector_norm(shape, dim, keep, x)


def _torch_norm_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """``torch.norm(x, p='fro', dim=None, keepdim=False)``: a vector norm but for a 2-dim
    Frobenius or nuclear norm."""
    shape = _shape(x)
    order = _arg(args, 0, kwargs, "p", default="fro")
    dim = _as_axis(_arg(args, 1, kwargs, "dim"))
    keep = bool(_arg(args, 2, kwargs, "keepdim", default=False))
    if order == "nuc" or isinstance(order, str) and order != "fro":
        raise NotImplementedError("nuclear and other named norms")
    if order == "fro" and dim is not None and not isinstance(dim, int) and len(dim) > 2:
        raise ShapeError("argument", "linalg.matrix_norm: dim must be a 2-tuple. Got "
                         + " ".join(str(d) for d in dim), "RuntimeError")
    return _vector_norm(shape, dim, keep, x)


# ---------------------------------------------------------------------------- the table

def _register() -> None:
    for op in ("max", "min"):
        _add(f"torch.{op}", "torch", _extreme_rule(op), dtype=_extreme_dtype)
        _add(op, "torch", _extreme_rule(op), dtype=_extreme_dtype)
    for op in ("median", "mode", "nanmedian"):
        rule = _median_rule("median" if op == "nanmedian" else op)
        dtype = _values_indices_dtype if op == "mode" else _median_dtype
        _add(f"torch.{op}", "torch", rule, dtype=dtype)
        _add(op, "torch", rule, dtype=dtype)
    for op in ("kthvalue", "topk"):
        _add(f"torch.{op}", "torch", _selection_rule(op), multi_output=True,
             dtype=_values_indices_dtype)
        _add(op, "torch", _selection_rule(op), multi_output=True, dtype=_values_indices_dtype)
    _add("torch.aminmax", "torch", _aminmax_rule, multi_output=True)
    _add("aminmax", "torch", _aminmax_rule, multi_output=True)
    for op in ("argmax", "argmin"):
        _add(f"np.{op}", "numpy", _argreduce_rule(op), dtype=_index_dtype)
        _add(op, "numpy", _argreduce_rule(op), dtype=_index_dtype)
        _add(f"torch.{op}", "torch", _argreduce_rule(op), dtype=_index_dtype)
        _add(op, "torch", _argreduce_rule(op), dtype=_index_dtype)
    _add("torch.logsumexp", "torch", _logsumexp_rule, dtype=_float_result_dtype)
    _add("logsumexp", "torch", _logsumexp_rule, dtype=_float_result_dtype)
    for op in ("cumsum", "cumprod"):
        _add(f"np.{op}", "numpy", _numpy_cumulative_rule(op), dtype=_running_total_dtype)
        _add(op, "numpy", _numpy_cumulative_rule(op), dtype=_running_total_dtype)
        _add(f"torch.{op}", "torch", _torch_cumulative_rule, dtype=_running_total_dtype)
        _add(op, "torch", _torch_cumulative_rule, dtype=_running_total_dtype)
    for op in ("cumulative_sum", "cumulative_prod"):
        _add(f"np.{op}", "numpy", _numpy_cumulative_rule(op), dtype=_running_total_dtype)
    for op in ("nancumsum", "nancumprod"):  # NaN counts as 0 (1): the shape is cumsum's
        _add(f"np.{op}", "numpy", _numpy_cumulative_rule(op), dtype=_running_total_dtype)
    _add("torch.logcumsumexp", "torch", _logcumsumexp_rule)
    _add("logcumsumexp", "torch", _logcumsumexp_rule)
    for op in ("cummax", "cummin"):
        _add(f"torch.{op}", "torch", _torch_cumulative_pair_rule, multi_output=True,
             dtype=_values_indices_dtype)
        _add(op, "torch", _torch_cumulative_pair_rule, multi_output=True,
             dtype=_values_indices_dtype)
    _add("np.sort", "numpy", _numpy_sort_rule("sort"))
    _add("np.argsort", "numpy", _numpy_sort_rule("argsort"), dtype=_index_dtype)
    _add("argsort", "numpy", _numpy_sort_rule("argsort"), dtype=_index_dtype)
    _add("torch.sort", "torch", _torch_sort_rule(True), multi_output=True,
         dtype=_values_indices_dtype)
    _add("sort", "torch", _torch_sort_rule(True), multi_output=True, dtype=_values_indices_dtype)
    _add("torch.argsort", "torch", _torch_sort_rule(False), dtype=_index_dtype)
    _add("argsort", "torch", _torch_sort_rule(False), dtype=_index_dtype)
    _add("torch.msort", "torch", _msort_rule)
    _add("np.linalg.norm", "numpy", _numpy_norm_rule, dtype=_float_result_dtype)
    _add("torch.linalg.norm", "torch", _torch_linalg_norm_rule)
    _add("torch.linalg.vector_norm", "torch", _torch_vector_norm_rule)
    _add("torch.linalg.matrix_norm", "torch", _torch_matrix_norm_rule)
    _add("torch.norm", "torch", _torch_norm_rule)
    _add("norm", "torch", _torch_norm_rule)
    for prefix, library in (("np.", "numpy"), ("torch.", "torch")):
        _add(f"{prefix}roll", library, _roll_rule)
        _add(f"{prefix}flip", library, _flip_rule)
        _add(f"{prefix}fliplr", library, _flip_side_rule(2))
        _add(f"{prefix}flipud", library, _flip_side_rule(1))
    for op, rule in (("roll", _roll_rule), ("flip", _flip_rule), ("fliplr", _flip_side_rule(2)),
                     ("flipud", _flip_side_rule(1))):
        _add(op, "torch", rule)


_register()


__all__ = ["INDEX"]
