"""softmax along a dim, quantiles, medians and the NaN-ignoring reductions, in the op table.

``softmax`` / ``log_softmax`` keep the shape and check their dim as every torch op does (an
IndexError out of range); ``dtype=`` is the result's dtype. NumPy's ``quantile`` family puts
q's shape before the reduced shape; ``median`` and the ``nan*`` reductions reduce like
``sum`` (or ``max`` / ``argmax``, which refuse an empty reduction). NumPy's result dtypes
are read from NumPy itself, on a one-element array of the operand's dtype, so they follow
the installed library. Registered into the table on import; runtime/ops.py imports it.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from . import dtypes
from .arguments import arg as _arg
from .arguments import dtype_of as _dtype
from .arguments import is_array as _is_array
from .arguments import shape_of as _shape
from .autograd_saved import saves_output
from .dialects import Dialect
from .dims import eq, is_zero, numel
from .optable import add_op as _add
from .verdicts import Result, ShapeError

_axes = importlib.import_module(".rules.axes", __package__)
_reductions = importlib.import_module(".rules.reductions", __package__)


# ---------------------------------------------------------------------------- softmax

def _softmax_rule(x: Any, dim: Any = None, _stacklevel: Any = 3, dtype: Any = None, *,
                  dialect: Dialect, **kwargs: Any) -> Result:
    """softmax(x, dim, dtype=None): the same shape; dim is checked like any torch dim."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise NotImplementedError("an implicit dim (deprecated) or one that is not an int")
    shape = _shape(x)
    _axes.wrap_torch_dim(dim, len(shape))
    return Result.of(shape)


def _softmax_dtype(x: Any, dim: Any = None, _stacklevel: Any = 3, dtype: Any = None, *,
                   dialect: Dialect, **kwargs: Any) -> Any:
    if dtype is not None:
        return dtypes.dtype_spelling(dtype)
    given = _dtype(x)
    # Integer inputs have no softmax kernel; what torch says of them is not modelled.
    return given if given is not None and (dtypes.category(given) or 0) >= 2 else None


# ---------------------------------------------------------------------------- NumPy statistics

_NUMPY_LIKE = {"nansum": "sum", "nanprod": "sum", "nanmean": "sum", "nanstd": "sum",
               "nanvar": "sum", "median": "sum", "nanmedian": "sum", "nanmax": "max",
               "nanmin": "max", "nanargmax": "argmax", "nanargmin": "argmax"}
"""Each reduction's emptiness rule: sum-like ones give NaN or 0 for an empty reduction, max-like
ones raise ValueError, arg-reductions raise theirs."""
_QUANTILES = ("quantile", "nanquantile", "percentile", "nanpercentile")


@cache
def _numpy_dtype(op: str, dtype: str | None, q: Any = None) -> str | None:
    """The result dtype NumPy gives ``np.<op>`` on a one-element array of ``dtype`` (with a
    q of the same kind as the call's: a list of floats is an array that joins the promotion)."""
    if dtype is None:
        return None
    try:
        probe = np.ones((1,), dtype=dtype)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            value = getattr(np, op)(probe) if q is None else getattr(np, op)(probe, q)
    except Exception:  # refused (bool quantiles): the rule decides what is certain
        return None
    return np.asarray(value).dtype.name


def _axis_value(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def _numpy_statistic_rule(op: str) -> Callable[..., Result]:
    """np.median / nanmean / nansum / ... (a, axis=None, ..., keepdims=False)."""
    def rule(a: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(a)
        axis = _axis_value(_arg(args, 0, kwargs, "axis"))
        keep = bool(kwargs.get("keepdims", False))
        if set(kwargs) - {"axis", "keepdims", "dtype", "ddof", "out"} or len(args) > 1 \
                or "out" in kwargs:
            raise NotImplementedError("arguments this rule does not model")  # out=, where=
        if not shape and axis is not None:
            # The medians, and the means and deviations of integers (which NumPy hands to
            # np.mean and np.std), check the axis against no dims; the others reduce a 0-d
            # array as a one-element one, along axis 0 or -1.
            kind = _dtype(a)
            if kind is None:
                raise NotImplementedError("a 0-d array of unknown dtype")
            strict = "median" in op or (op in ("nanmean", "nanstd", "nanvar") and
                                        (dtypes.category(kind) or 0) < 2)
            for one in axis if isinstance(axis, tuple) else (axis,):
                _axes.normalize_numpy_axis(one, 0 if strict else 1)
            return Result.of(())
        result = _reductions.reduce(shape, axis, keep, op=_NUMPY_LIKE[op], dialect=dialect)
        return Result.of(result.shape)
    return rule


def _numpy_statistic_dtype(op: str) -> Callable[..., Any]:
    def dtype(a: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
        if "dtype" in kwargs:
            return dtypes.dtype_spelling(kwargs["dtype"])
        return _numpy_dtype(op, _dtype(a))
    return dtype


def _q_shape(q: Any) -> tuple | None:
    if isinstance(q, (int, float)) and not isinstance(q, bool):
        return ()
    if isinstance(q, (list, tuple)) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                            for v in q):
        return (len(q),)
    if _is_array(q):
        return _shape(q)
    return None


def _numpy_quantile_rule(op: str) -> Callable[..., Result]:
    """np.quantile(a, q, axis=None, ..., keepdims=False): q's shape, then the reduced shape."""
    def rule(a: Any, q: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(a)
        axis = _axis_value(_arg(args, 0, kwargs, "axis"))
        keep = bool(kwargs.get("keepdims", False))
        q_shape = _q_shape(q)
        if q_shape is None or len(args) > 1 or set(kwargs) - {"axis", "keepdims", "method"}:
            raise NotImplementedError("arguments this rule does not model")
        if not shape and axis is not None:
            for one in axis if isinstance(axis, tuple) else (axis,):
                _axes.normalize_numpy_axis(one, 0)  # a quantile of a 0-d array has no axis
        reduced = _reductions.reduce(shape, axis, keep, op="sum", dialect=dialect).shape
        if _dtype(a) == "bool":
            raise NotImplementedError("bool input: numpy's refusal is not modelled")
        if is_zero(numel(shape)) is not False and eq(numel(shape), numel(reduced)) is not True:
            raise NotImplementedError("an empty reduction: NumPy raises an IndexError inside")
        return Result.of(tuple(q_shape) + tuple(reduced))
    return rule


def _numpy_quantile_dtype(op: str) -> Callable[..., Any]:
    def dtype(a: Any, q: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
        if not isinstance(q, (int, float, list, tuple)):
            return None  # an array of q joins the promotion
        return _numpy_dtype(op, _dtype(a), 0.5 if isinstance(q, (int, float)) else (0.5,))
    return dtype


# ---------------------------------------------------------------------------- torch statistics

_TORCH_FLOATS = ("float32", "float64")


def _torch_dims(shape: tuple, dim: Any) -> tuple[int, ...] | None:
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        raise NotImplementedError("a dim that is not an int")
    wrapped = tuple(_axes.wrap_torch_dim(d, len(shape)) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise NotImplementedError("a repeated dim")
    return wrapped


def _reduced(shape: tuple, dims: tuple[int, ...] | None, keep: bool) -> tuple:
    if not shape:
        return ()
    if dims is None:
        return (1,) * len(shape) if keep else ()
    if keep:
        return tuple(1 if i in dims else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in dims)


def _torch_quantile_rule(x: Any, q: Any, dim: Any = None, keepdim: bool = False, *,
                         dialect: Dialect, **kwargs: Any) -> Result:
    """torch.quantile(x, q, dim=None, keepdim=False): float or double input, not empty."""
    shape = _shape(x)
    dtype = _dtype(x)
    if dtype is not None and dtype not in _TORCH_FLOATS:
        raise ShapeError("dtype", "quantile() input tensor must be either float or double dtype",
                         "RuntimeError")
    if isinstance(dim, (tuple, list)) or set(kwargs) - {"interpolation"}:
        raise NotImplementedError("a dim list (an overload error) or out=")
    q_shape = _q_shape(q)
    if q_shape is None or len(q_shape) > 1 or not _is_array(q) and q_shape:
        raise NotImplementedError("q that is not a float or a 1-d tensor")
    if is_zero(numel(shape)) is True:
        raise ShapeError("reduce", "quantile() input tensor must be non-empty", "RuntimeError")
    if is_zero(numel(shape)) is None:
        raise NotImplementedError("maybe empty")
    dims = _torch_dims(shape, dim)
    return Result.of(tuple(q_shape) + _reduced(shape, dims, bool(keepdim)))


def _torch_nan_reduction_rule(op: str) -> Callable[..., Result]:
    """torch.nanmean / nansum(x, dim=None, keepdim=False, *, dtype=None)."""
    def rule(x: Any, dim: Any = None, keepdim: bool = False, *, dialect: Dialect,
             **kwargs: Any) -> Result:
        shape = _shape(x)
        dtype = kwargs.get("dtype")
        if set(kwargs) - {"dtype"}:
            raise NotImplementedError("out=")
        given = dtypes.dtype_spelling(dtype) if dtype is not None else _dtype(x)
        if op == "nanmean" and given is not None and (dtypes.category(given) or 0) < 2:
            raise ShapeError("dtype", "nanmean(): expected input to have floating point or "
                             f"complex dtype but got {_axes.torch_scalar_type(given)}",
                             "RuntimeError")
        if isinstance(dim, (tuple, list)) and not dim:
            dim = None
        return Result.of(_reduced(shape, _torch_dims(shape, dim), bool(keepdim)))
    return rule


def _torch_nan_reduction_dtype(op: str) -> Callable[..., Any]:
    def dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
        if kwargs.get("dtype") is not None:
            return dtypes.dtype_spelling(kwargs["dtype"])
        given = _dtype(x)
        if op == "nansum" and given is not None and (dtypes.category(given) or 0) < 2:
            return "int64"  # integers and bools sum in int64
        return given
    return dtype


# ---------------------------------------------------------------------------- the table

def _register() -> None:
    for op in ("softmax", "log_softmax"):
        for name in (f"torch.{op}", f"F.{op}", op):
            _add(name, "torch", _softmax_rule, dtype=_softmax_dtype, keeps_shape=True,
                 saves_output=saves_output(op))
    for op in _NUMPY_LIKE:
        _add(f"np.{op}", "numpy", _numpy_statistic_rule(op), dtype=_numpy_statistic_dtype(op))
    for op in _QUANTILES:
        _add(f"np.{op}", "numpy", _numpy_quantile_rule(op), dtype=_numpy_quantile_dtype(op))
    for op in ("quantile", "nanquantile"):
        _add(f"torch.{op}", "torch", _torch_quantile_rule)
        _add(op, "torch", _torch_quantile_rule)
    for op in ("nanmean", "nansum"):
        _add(f"torch.{op}", "torch", _torch_nan_reduction_rule(op),
             dtype=_torch_nan_reduction_dtype(op))
        _add(op, "torch", _torch_nan_reduction_rule(op), dtype=_torch_nan_reduction_dtype(op))


_register()
