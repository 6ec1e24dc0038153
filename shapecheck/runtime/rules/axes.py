"""Axis wrapping, three-valued ordering of dims and the small formats every shape rule shares.

The lowest of the shape-op rule modules: the others (and rules.indexing) import
from here, never the other way round.
"""

from __future__ import annotations

from ..dialects import Dialect
from ..dims import UNKNOWN, Dim, Shape, le
from ..verdicts import ShapeError
from .messages import dim_range_error

# ---------------------------------------------------------------------------
# Small shared pieces: axis wrapping, three-valued ordering, message formats.
# ---------------------------------------------------------------------------


def axis_error(axis: int, ndim: int, prefix: str = "") -> ShapeError:
    """NumPy's AxisError, optionally with its ``axis1: `` style prefix."""
    return ShapeError("axis", f"{prefix}axis {axis} is out of bounds for array of dimension {ndim}",
                      "AxisError", dim=axis)


def normalize_numpy_axis(axis: int, ndim: int, prefix: str = "") -> int:
    """numpy.normalize_axis_index."""
    if -ndim <= axis < ndim:
        return axis % ndim
    raise axis_error(axis, ndim, prefix)


def wrap_torch_dim(dim: int, ndim: int, wrap_scalar: bool = True) -> int:
    """ATen's maybe_wrap_dim: a 0-d tensor accepts dims -1 and 0 when wrap_scalar."""
    if ndim <= 0:
        if not wrap_scalar:
            raise ShapeError("axis", f"Dimension specified as {dim} but tensor has no dimensions",
                             "IndexError", dim=dim)
        ndim = 1
    if -ndim <= dim < ndim:
        return dim % ndim
    raise dim_range_error(dim, ndim)


def wrap_axis(axis: int, ndim: int, dialect: Dialect, prefix: str = "") -> int:
    """Wrap an axis the way the dialect's library does for most functions."""
    if dialect.is_torch:
        return wrap_torch_dim(axis, ndim)
    return normalize_numpy_axis(axis, ndim, prefix)


def min_dim(a: Dim, b: Dim) -> Dim:
    r = le(a, b)
    if r is True:
        return a
    if r is False:
        return b
    return UNKNOWN


def max_dim(a: Dim, b: Dim) -> Dim:
    r = le(a, b)
    if r is True:
        return b
    if r is False:
        return a
    return UNKNOWN


def clamp_nonneg(d: Dim) -> Dim:
    """max(d, 0) for a dim that may be a negative difference."""
    return max_dim(d, 0)


_TORCH_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
    "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def torch_scalar_type(dtype: str | None) -> str:
    """ATen's ScalarType name; float32 when the dtype is unknown (torch's default)."""
    return _TORCH_TYPE_NAMES.get(dtype or "float32", "Float")


def numpy_axis_tuple(axis, ndim: int, argname: str) -> tuple[int, ...]:
    """numpy.lib.array_utils.normalize_axis_tuple."""
    if isinstance(axis, int):
        axis = (axis,)
    prefix = f"{argname}: " if argname else ""
    out = tuple(normalize_numpy_axis(a, ndim, prefix) for a in axis)
    if len(set(out)) != len(out):
        text = f"repeated axis in `{argname}` argument" if argname else "repeated axis"
        raise ShapeError("axis", text, "ValueError")
    return out


def with_dim(shape: Shape, axis: int, size: Dim) -> Shape:
    out = list(shape)
    out[axis] = size
    return tuple(out)


def nonempty_size(shape: Shape, d: int) -> Dim:
    """ATen's ensure_nonempty_size: a 0-d tensor has size 1 at dim 0; else shape.size(d) (may raise)."""
    if len(shape) == 0:
        return 1
    if d >= len(shape):
        raise dim_range_error(d, len(shape))
    return shape[d]
