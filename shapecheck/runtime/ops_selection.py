"""Selections whose sizes the values decide, in the op table: ``nonzero``, ``argwhere``,
``flatnonzero``, ``where(condition)``, ``masked_select``, ``unique`` and ``count_nonzero``.

How many elements a mask selects is no shape fact, yet two selections by the same values
select as many: the size is a symbol named after the operand's contents
(``arguments.data_size``), so ``x[m] + y[m]`` is known to broadcast while ``x[m1] + x[m2]``
stays unknown. Without a name for the contents the size is UNKNOWN; the rank and every
other size stay known either way. Registered into the table on import; runtime/ops.py
imports it.
"""

from __future__ import annotations

import importlib
from typing import Any

from .arguments import ArrayArg, data_size
from .arguments import arg as _arg
from .arguments import dtype_of as _dtype
from .arguments import shape_of as _shape
from .dialects import Dialect
from .dims import UNKNOWN, Dim, dims_equal, eq, mul, numel
from .optable import add_op as _add
from .verdicts import Result, ShapeError

_axes = importlib.import_module(".rules.axes", __package__)
_broadcast = importlib.import_module(".rules.broadcast", __package__)

INDEX = "int64"


def _index_dtype(*args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    return INDEX


def _nnz(x: Any) -> Dim:
    """How many elements of x are nonzero (True, for a mask)."""
    return data_size("nnz", x)


def _numpy_nonzero(x: Any) -> Result:
    shape = _shape(x)
    if not shape:
        raise ShapeError("argument", "Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead.", "ValueError")
    return Result(((_nnz(x),),) * len(shape), as_tuple=True)


def _nonzero_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """np.nonzero: one index array per dim."""
    return _numpy_nonzero(x)


def _torch_nonzero_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """torch.nonzero: one (n, ndim) array of indices, or with as_tuple=True one index array
    per dim (one for a 0-d tensor). A rule of its own: NumPy's nonzero has no such result."""
    if kwargs.get("as_tuple"):
        return Result(((_nnz(x),),) * max(len(_shape(x)), 1), as_tuple=True)
    return Result.of((_nnz(x), len(_shape(x))))


def _argwhere_rule(x: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    return Result.of((_nnz(x), len(_shape(x))))


def _flatnonzero_rule(x: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    return Result.of((_nnz(x),))


def _count_nonzero_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    axis = _arg(args, 0, kwargs, "axis" if dialect.is_numpy else "dim")
    shape = _shape(x)
    if axis is None:
        return Result.of(())
    if kwargs.get("keepdims"):
        raise NotImplementedError("keepdims")
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    wrapped = {_axes.wrap_axis(a, len(shape), dialect) for a in axes}
    return Result.of(tuple(d for i, d in enumerate(shape) if i not in wrapped))


def where_one_rule(cond: Any, *, dialect: Dialect) -> Result:
    """``where(condition)`` alone is ``nonzero(condition, as_tuple=True)`` (ops_pointwise's
    where delegates here)."""
    if dialect.is_numpy:
        return _numpy_nonzero(cond)
    return Result(((_nnz(cond),),) * max(len(_shape(cond)), 1), as_tuple=True)


def _masked_select_rule(x: Any, mask: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    """The elements of x where the mask (broadcast with x) is True: as many as the broadcast
    mask has, which is the mask's own count times how often broadcasting repeats it."""
    shape = _broadcast.broadcast_shapes(_shape(x), _shape(mask), dialect=dialect).shape
    return Result.of((_broadcast_count(mask, shape),))


def _broadcast_count(mask: Any, shape: tuple) -> Dim:
    own = _shape(mask)
    if dims_equal(own, shape) is True:
        return _nnz(mask)
    padded = (1,) * (len(shape) - len(own)) + tuple(own)
    repeats: Dim = 1
    for have, out in zip(padded, shape):
        if have == 1:
            repeats = mul(repeats, out)
        elif eq(have, out) is not True:
            return UNKNOWN
    count = _nnz(mask)
    return mul(count, repeats) if count is not UNKNOWN else UNKNOWN


def _unique_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """np.unique: the unique values (or slices along an axis), then the index, inverse and
    counts asked for; as many unique values as the contents hold."""
    return _unique(x, args, kwargs, dialect)


def _torch_unique_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """torch.unique: as np.unique, with no first-index output and ``dim`` for the axis."""
    return _unique(x, args, kwargs, dialect)


def _unique(x: Any, args: tuple, kwargs: dict, dialect: Dialect) -> Result:
    shape = _shape(x)
    if args:
        raise NotImplementedError("positional flags")
    axis = kwargs.get("axis" if dialect.is_numpy else "dim")
    if axis is None:
        count = data_size("unique", x)
        values: tuple = (count,)
        inverse = shape
    else:
        if dialect.is_torch:
            w = _axes.wrap_torch_dim(axis, len(shape), wrap_scalar=False)
        else:
            w = _axes.wrap_axis(axis, len(shape), dialect)
        count = data_size("unique", x, f"axis={w}")
        values = shape[:w] + (count,) + shape[w + 1:]
        inverse = (shape[w],)
    outputs = [values]
    names = ("return_index", "return_inverse", "return_counts") if dialect.is_numpy else \
        ("return_inverse", "return_counts")
    for name in names:
        if kwargs.get(name):
            outputs.append(inverse if name == "return_inverse" else (count,))
    return Result(tuple(outputs), as_tuple=len(outputs) > 1)


def _unique_dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    names = ("return_index", "return_inverse", "return_counts") if dialect.is_numpy else \
        ("return_inverse", "return_counts")
    return (_dtype(x),) + tuple(INDEX for name in names if kwargs.get(name))


def repeated_total(repeats: ArrayArg, size: Dim) -> Dim:
    """How long ``repeat_interleave`` / ``np.repeat`` with an array of counts makes an axis of
    ``size``: the sum of the counts, when there is one count per element (a single count
    repeats every element that many times)."""
    counts = _shape(repeats)
    if len(counts) == 1 and eq(counts[0], size) is True:
        return data_size("sum", repeats)
    if numel(counts) == 1:
        value = data_size("value", repeats)
        return mul(size, value) if value is not UNKNOWN else UNKNOWN
    return UNKNOWN


def _register() -> None:
    def add(name: str, library: str, rule: Any, **facts: Any) -> None:
        _add(name, library, rule, sized_by_values=True, **facts)

    for lib, pre in (("numpy", "np"), ("torch", "torch")):
        add(f"{pre}.argwhere", lib, _argwhere_rule, dtype=_index_dtype)
        _add(f"{pre}.count_nonzero", lib, _count_nonzero_rule, dtype=_index_dtype)
    add("np.nonzero", "numpy", _nonzero_rule, dtype=_index_dtype)
    add("nonzero", "numpy", _nonzero_rule, dtype=_index_dtype)
    add("np.unique", "numpy", _unique_rule, dtype=_unique_dtype)
    for name in ("torch.nonzero", "nonzero"):
        add(name, "torch", _torch_nonzero_rule, dtype=_index_dtype)
    for name in ("torch.unique", "unique"):
        add(name, "torch", _torch_unique_rule, dtype=_unique_dtype)
    add("argwhere", "torch", _argwhere_rule, dtype=_index_dtype)
    _add("count_nonzero", "torch", _count_nonzero_rule, dtype=_index_dtype)
    add("np.flatnonzero", "numpy", _flatnonzero_rule, dtype=_index_dtype)
    add("torch.masked_select", "torch", _masked_select_rule)
    add("masked_select", "torch", _masked_select_rule)


_register()

__all__ = ["repeated_total", "where_one_rule"]
