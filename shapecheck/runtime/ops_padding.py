"""Padding and interleaved repetition, in the op table: ``np.pad`` and torch's
``repeat_interleave`` (``F.pad`` is runtime/nn/padding.py's, with the padding layers).

``np.pad`` broadcasts its widths to one (before, after) pair per axis and grows each axis by
them; only ``constant`` and ``empty`` may extend an empty axis. ``repeat_interleave``
repeats each element along a dim (the flattened input without one) by an int or by a tensor
of counts, whose values decide that size: the sum of the counts, a symbol over the counts'
contents (ops_selection.py). Registered on import.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from .arguments import dtype_of as _dtype
from .arguments import is_array as _is_array
from .arguments import shape_of as _shape
from .dialects import Dialect
from .dims import add, is_zero, mul, numel
from .ops_selection import repeated_total
from .optable import add_op as _add
from .verdicts import Result, ShapeError

_axes = importlib.import_module(".rules.axes", __package__)

_NUMPY_MODES = frozenset({"constant", "edge", "linear_ramp", "maximum", "mean", "median",
                          "minimum", "reflect", "symmetric", "wrap", "empty"})


def _int_widths(width: Any) -> np.ndarray:
    """The widths as an int array; a symbolic or unread width is not modelled."""
    try:
        widths = np.asarray(width)
    except Exception:  # ragged nesting: numpy's own error is not modelled
        raise NotImplementedError("widths numpy cannot read as one array") from None
    if widths.dtype.kind not in "iub" or widths.dtype.kind == "b":
        if widths.dtype.kind == "f":
            raise ShapeError("argument", "`pad_width` must be of integral type.", "TypeError")
        raise NotImplementedError("widths that are not ints")
    return widths.astype(np.int64)


def _numpy_pad_rule(array: Any, pad_width: Any, mode: Any = "constant", *, dialect: Dialect,
                    **kwargs: Any) -> Result:
    """np.pad(array, pad_width, mode='constant', **kwargs)."""
    shape = _shape(array)
    if not isinstance(mode, str):
        raise NotImplementedError("a mode given as a function")
    if mode not in _NUMPY_MODES:
        raise ShapeError("argument", f"mode '{mode}' is not supported", "ValueError")
    widths = _int_widths(pad_width)
    if widths.size and widths.min() < 0:
        raise ShapeError("argument", "index can't contain negative values", "ValueError")
    try:
        pairs = np.broadcast_to(widths, (len(shape), 2))
    except ValueError:
        raise ShapeError("argument", "operands could not be broadcast together with remapped "
                         f"shapes [original->remapped]: {_numpy_shape(widths.shape)}  and "
                         f"requested shape ({len(shape)},2)", "ValueError") from None
    out = []
    for axis, (size, (before, after)) in enumerate(zip(shape, pairs.tolist())):
        if mode not in ("constant", "empty") and before + after > 0:
            empty = is_zero(size)
            if empty is None:
                raise NotImplementedError("an axis that may be empty")
            if empty:
                raise ShapeError("argument", f"can't extend empty axis {axis} using modes other "
                                 "than 'constant' or 'empty'", "ValueError")
        out.append(add(size, before + after))
    return Result.of(tuple(out))


def _numpy_shape(shape: tuple) -> str:
    return "(" + ",".join(str(n) for n in shape) + ")"


# ---------------------------------------------------------------------------- repeat_interleave

def _repeat_interleave_rule(x: Any, repeats: Any = None, dim: Any = None, *, dialect: Dialect,
                            output_size: Any = None, **kwargs: Any) -> Result:
    """torch.repeat_interleave(x, repeats, dim=None, *, output_size=None), and (repeats) alone."""
    if kwargs:
        raise NotImplementedError("arguments this rule does not model")
    if repeats is None:  # repeat_interleave(counts): each index i, counts[i] times
        return _counts_only(x)
    shape = _shape(x)
    if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
        raise NotImplementedError("a dim that is not an int")
    if dim is not None and not shape:
        # A 0-d tensor has no dim to repeat along; torch's wording depends on the repeats.
        if _is_array(repeats):
            raise ShapeError("axis", f"Dimension specified as {dim} but tensor has no "
                             "dimensions", "IndexError", dim=dim)
        raise ShapeError("axis", "Dimension out of range (expected to be in range of [-1, 0], "
                         "but got 1)", "IndexError", dim=dim)
    if dim is None:
        size, target, axis = numel(shape), (numel(shape),), 0
    else:
        axis = _axes.wrap_torch_dim(dim, len(shape))
        size, target = shape[axis], tuple(shape)
    if isinstance(repeats, int) and not isinstance(repeats, bool):
        if repeats < 0:
            raise ShapeError("argument", "Repeats must be non-negative", "RuntimeError")
        total = mul(size, repeats)
        if isinstance(output_size, int) and isinstance(total, int) and output_size != total:
            raise ShapeError("argument", "repeat_interleave: Invalid output_size, expected "
                             f"{total} but got {output_size}", "RuntimeError")
    elif _is_array(repeats):
        counts = _shape(repeats)
        if len(counts) > 1:
            raise ShapeError("argument", "repeats must be 0-dim or 1-dim tensor", "RuntimeError")
        if _dtype(repeats) not in ("int64", "int32"):
            raise NotImplementedError("counts of another dtype: torch's refusal is not modelled")
        if counts and is_zero(add(counts[0], -1)) is not True:
            matches = is_zero(add(counts[0], mul(size, -1)))
            if matches is False:
                raise ShapeError("argument", "repeats must have the same size as input along "
                                 f"dim, but got repeats.size(0) = {counts[0]} and "
                                 f"input.size({axis}) = {size}", "RuntimeError")
            if matches is None:
                raise NotImplementedError("counts that may not match the dim")
        if output_size is not None:
            raise NotImplementedError("output_size against counts no one knows")
        total = repeated_total(repeats, size)
    else:
        raise NotImplementedError("repeats that are neither an int nor a tensor")
    return Result.of(tuple(total if i == axis else n for i, n in enumerate(target)))


def _counts_only(counts: Any) -> Result:
    if not _is_array(counts):
        raise NotImplementedError("counts that are no tensor")
    if len(_shape(counts)) != 1:
        raise ShapeError("argument", "repeat_interleave only accept 1D vector as repeat",
                         "RuntimeError")
    if _dtype(counts) not in ("int64", "int32"):
        raise NotImplementedError("counts of another dtype")
    return Result.of((repeated_total(counts, _shape(counts)[0]),))


def _register() -> None:
    _add("np.pad", "numpy", _numpy_pad_rule)
    _add("torch.repeat_interleave", "torch", _repeat_interleave_rule, sized_by_values=True)
    _add("repeat_interleave", "torch", _repeat_interleave_rule, sized_by_values=True)


_register()
