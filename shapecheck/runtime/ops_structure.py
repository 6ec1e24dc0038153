"""Ops that rearrange or select whole pieces, in the op table: stacks and splits of every
spelling, Kronecker products and traces, triangles, grids, index writes, and the creation
functions (the selections whose sizes the values decide are ops_selection.py's).

Each rule raises the library's error only when it is certain, and raises
NotImplementedError (an unknown answer) for arguments it does not model. Registered into the table on import; runtime/ops.py imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from . import dtypes
from .arguments import arg as _arg
from .arguments import dtype_of as _dtype
from .arguments import is_array as _is_array
from .arguments import shape_of as _shape
from .arguments import size_args
from .creation import ARRAY, Created, creation
from .dialects import Dialect
from .dims import UNKNOWN, Sym, dims_equal, eq, format_shape, mul, numel
from .optable import add_op as _add
from .optable import shape_keeping as _shape_keeping
from .verdicts import Result, ShapeError

_axes = importlib.import_module(".rules.axes", __package__)
_broadcast = importlib.import_module(".rules.broadcast", __package__)
_joins = importlib.import_module(".rules.joins", __package__)
_lapack = importlib.import_module(".rules.lapack", __package__)
_scatter_gather = importlib.import_module(".rules.scatter_gather", __package__)
_splits = importlib.import_module(".rules.splits", __package__)

INDEX = "int64"



def _index_dtype(*args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    return INDEX


# ---------------------------------------------------------------------------- stacks

def _atleast(shape: tuple, n: int) -> tuple:
    """np.atleast_2d / atleast_3d: (n,) -> (1, n) -> (1, n, 1)."""
    if n == 2:
        return shape if len(shape) >= 2 else ((1,) + shape if shape else (1, 1))
    if len(shape) >= 3:
        return shape
    if len(shape) == 2:
        return shape + (1,)
    return (1,) + (shape if shape else (1,)) + (1,)


def _dstack_rule(arrays: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    return _joins.concatenate([_atleast(_shape(a), 3) for a in arrays], 2, dialect=dialect)


def _column_stack_rule(arrays: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    shapes = [_shape(a) for a in arrays]
    columns = [(s[0] if s else 1, 1) if len(s) < 2 else s for s in shapes]
    return _joins.concatenate(columns, 1, dialect=dialect)


def sequence_dtype(arrays: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    """Joined arrays take their common dtype (no weak operands: every one is an array)."""
    if "dtype" in kwargs:
        return dtypes.dtype_spelling(kwargs["dtype"])
    found = [_dtype(a) for a in arrays]
    if not found or None in found:
        return None
    out = found[0]
    for d in found[1:]:
        out = (dtypes.numpy_promote_types(out, d) if dialect.is_numpy
               else dtypes.torch_promote_types(out, d))
    return out


def product_dtype(a: Any, b: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    """NumPy's products promote their operands' dtypes; torch's refuse two different ones."""
    left, right = _dtype(a), _dtype(b)
    if left is None or right is None:
        return None
    if dialect.is_numpy:
        return dtypes.numpy_promote_types(left, right)
    return left if left == right else None


def torch_elementwise_product_dtype(a: Any, b: Any, *args: Any, dialect: Dialect,
                                    **kwargs: Any) -> Any:
    """torch's outer (and inner or kron with a 0-dim operand) multiply element by element,
    promoting as ``mul`` does."""
    if dialect.is_numpy:
        return product_dtype(a, b, dialect=dialect)
    return dtypes.op_result_type("mul", _dtype(a), _dtype(b), dialect, len(_shape(a)),
                                 len(_shape(b)))


def torch_inner_rule(rule: Callable[..., Result]) -> Callable[..., Result]:
    """torch.inner contracts through tensordot, which refuses two dtypes, unless an operand is
    0-dim (then it multiplies)."""
    def checked(a: Any, b: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        if _shape(a) and _shape(b) and _dtype(a) and _dtype(b) and _dtype(a) != _dtype(b):
            raise ShapeError("dtype", "both inputs should have same dtype", "RuntimeError")
        return rule(a, b, *args, dialect=dialect, **kwargs)
    return checked


# ---------------------------------------------------------------------------- splits

_NUMPY_SPLIT_AXIS = {"hsplit": (1, 0), "vsplit": (2, 0), "dsplit": (3, 2)}


def _numpy_directional_split(op: str) -> Callable[..., Result]:
    """np.hsplit (axis 1, or 0 for 1-D), vsplit (axis 0), dsplit (axis 2): np.split after a
    rank check."""
    least, axis = _NUMPY_SPLIT_AXIS[op]
    def rule(x: Any, sections: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(x)
        if len(shape) < least:
            text = {"hsplit": "1 or more", "vsplit": "2 or more", "dsplit": "3 or more"}[op]
            raise ShapeError("argument", f"{op} only works on arrays of {text} dimensions",
                             "ValueError")
        where = 1 if op == "hsplit" and len(shape) > 1 else axis
        return _splits.split(shape, _sections(sections), where, dialect=dialect)
    return rule


def _sections(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise NotImplementedError("split points that are not ints")
        return list(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise NotImplementedError("sections that are not an int")
    return value


def _tensor_split(shape: tuple, sections: Any, dim: int, dialect: Dialect) -> Result:
    if not shape:
        raise ShapeError("argument", "tensor_split expected at least a 1-dimensional tensor, but "
                         "got a tensor with 0 dims", "RuntimeError")
    sections = _sections(sections)
    if isinstance(sections, int) and sections <= 0:
        raise ShapeError("argument", f"number of sections must be larger than 0, got {sections}",
                         "RuntimeError")
    axis = _axes.wrap_torch_dim(dim, len(shape))
    from .dialects import NUMPY  # the same pieces as np.array_split

    return _splits.array_split(shape, sections, axis, dialect=NUMPY)


def _tensor_split_rule(x: Any, sections: Any, *args: Any, dialect: Dialect,
                       **kwargs: Any) -> Result:
    if "indices" in kwargs or "tensor_indices_or_sections" in kwargs:
        raise NotImplementedError("keyword spellings of the split points")
    dim = _arg(args, 0, kwargs, "dim", default=0)
    return _tensor_split(_shape(x), sections, dim, dialect)


_TORCH_SPLIT_DIM = {"hsplit": (1, 1), "vsplit": (2, 0), "dsplit": (3, 2)}


def _torch_directional_split(op: str) -> Callable[..., Result]:
    least, dim = _TORCH_SPLIT_DIM[op]
    def rule(x: Any, sections: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(x)
        if len(shape) < least:
            plural = "dimension" if least == 1 else "dimensions"
            raise ShapeError("argument", f"torch.{op} requires a tensor with at least {least} "
                             f"{plural}, but got a tensor with {len(shape)} dimensions!",
                             "RuntimeError")
        where = 0 if op == "hsplit" and len(shape) == 1 else dim
        if isinstance(sections, int) and not isinstance(sections, bool):
            size = shape[where]
            if sections == 0 or isinstance(size, int) and size % sections:
                raise ShapeError("split", f"torch.{op} attempted to split along dimension "
                                 f"{where}, but the size of the dimension {size} is not "
                                 f"divisible by the split_size {sections}!", "RuntimeError")
        return _tensor_split(shape, sections, where, dialect)
    return rule


# ---------------------------------------------------------------------------- products

def _kron_rule(a: Any, b: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    x, y = _shape(a), _shape(b)
    n = max(len(x), len(y))
    x, y = (1,) * (n - len(x)) + x, (1,) * (n - len(y)) + y
    return Result.of(tuple(mul(p, q) for p, q in zip(x, y)))


def _kron_dtype(a: Any, b: Any, *, dialect: Dialect, **kwargs: Any) -> Any:
    return dtypes.op_result_type("mul", _dtype(a), _dtype(b), dialect, 1, 1)


def _trace_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    shape = _shape(x)
    if dialect.is_torch:
        if len(shape) != 2:
            raise ShapeError("argument", f"trace: expected a matrix, but got tensor with dim "
                             f"{len(shape)}", "RuntimeError")
        return Result.of(())
    if len(shape) < 2:
        raise ShapeError("argument", "diag requires an array of at least two dimensions",
                         "ValueError")
    if len(args) > 1 or set(kwargs) - {"offset"}:
        raise NotImplementedError("axis1, axis2, dtype or out")
    return Result.of(shape[2:])


def _sum_dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    """A sum accumulates small ints (and bools) in int64; unsigned ones in uint64 in NumPy."""
    dtype = _dtype(x)
    if dtype is None or (dtypes.category(dtype) or 0) >= 2:
        return dtype
    if dialect.is_numpy and dtype.startswith("uint"):
        return "uint64"
    return "int64"


def _square_stack(shape: tuple, dialect: Dialect, name: str) -> None:
    if len(shape) < 2:
        if dialect.is_torch:
            raise ShapeError("argument", f"linalg.{name}: The input tensor A must have at least "
                             "2 dimensions.", "RuntimeError")
        raise ShapeError("argument", f"{len(shape)}-dimensional array given. Array must be at "
                         "least two-dimensional", "LinAlgError")
    if eq(shape[-1], shape[-2]) is False:
        if dialect.is_torch:
            raise ShapeError("argument", f"linalg.{name}: A must be batches of square matrices, "
                             f"but they are {shape[-2]} by {shape[-1]} matrices", "RuntimeError")
        raise ShapeError("argument", "Last 2 dimensions of the array must be square",
                         "LinAlgError")


def _matrix_power_rule(x: Any, n: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    shape = _shape(x)
    _square_stack(shape, dialect, "matrix_power")
    if not isinstance(n, int) or n < 0 and (dtypes.category(_dtype(x) or "float64") or 0) < 2:
        raise NotImplementedError("a power read by value")
    return Result.of(shape)


def _multi_dot_rule(arrays: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    shapes = [_shape(a) for a in arrays]
    if len(shapes) < 2:
        raise NotImplementedError("multi_dot of fewer than two arrays")
    kinds = {_dtype(a) for a in arrays}
    if dialect.is_torch and None not in kinds and len(kinds) > 1:
        raise ShapeError("dtype", "multi_dot(): all tensors must have be the same dtype",
                         "RuntimeError")
    first, last = shapes[0], shapes[-1]
    if len(first) not in (1, 2) or len(last) not in (1, 2) or \
            any(len(s) != 2 for s in shapes[1:-1]):
        raise NotImplementedError("ranks multi_dot refuses, with a message per library")
    matrices = [(1,) + first if len(first) == 1 else first] + shapes[1:-1] + \
        [last + (1,) if len(last) == 1 else last]
    for left, right in zip(matrices, matrices[1:]):
        if eq(left[1], right[0]) is False:
            raise ShapeError("matmul", "shapes not aligned for multi_dot", "ValueError")
        if eq(left[1], right[0]) is None:
            raise NotImplementedError("symbolic inner sizes")
    out = (matrices[0][0], matrices[-1][1])
    return Result.of(out[1 if len(first) == 1 else 0:2 if len(last) == 2 else 1])


def _vecdot_rule(a: Any, b: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    """np.vecdot: a gufunc (n),(n)->() over ``axis``; torch.linalg.vecdot broadcasts the two
    whole and then sums over ``dim``."""
    x, y = _shape(a), _shape(b)
    if dialect.is_torch:
        if _dtype(a) and _dtype(b) and _dtype(a) != _dtype(b):
            raise ShapeError("dtype", "linalg.vecdot: Expected x and y to have the same dtype",
                             "RuntimeError")
        if len(x) == 1 and len(y) == 1:  # two vectors: a dot product, sizes must match
            if eq(x[0], y[0]) is False:
                raise ShapeError("matmul", "inconsistent tensor size, expected tensor "
                                 f"[{x[0]}] and src [{y[0]}] to have the same number of "
                                 "elements", "RuntimeError")
            return Result.of(())
        full = _broadcast.broadcast_shapes(x, y, dialect=dialect).shape
        dim = kwargs.get("dim", -1)
        if not -max(len(full), 1) <= dim < max(len(full), 1):
            raise NotImplementedError("torch checks this dim along another path for 1-D inputs")
        w = _axes.wrap_torch_dim(dim, len(full))
        return Result.of(full[:w] + full[w + 1:])
    axis = kwargs.get("axis", -1)
    for i, shape in enumerate((x, y)):
        if not shape:
            raise ShapeError("matmul", f"vecdot: Input operand {i} does not have enough "
                             "dimensions (has 0, gufunc core with signature (n),(n)->() "
                             "requires 1)", "ValueError")
    wx, wy = _axes.normalize_numpy_axis(axis, len(x)), _axes.normalize_numpy_axis(axis, len(y))
    if eq(x[wx], y[wy]) is False:
        raise ShapeError("matmul", "vecdot: Input operand 1 has a mismatch in its core "
                         "dimension 0", "ValueError")
    loops = (x[:wx] + x[wx + 1:], y[:wy] + y[wy + 1:])
    return _broadcast.broadcast_shapes(*loops, dialect=dialect)


def _inv_ex_rule(a: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    """torch.linalg.inv_ex: (inverse, info), info one int32 per matrix of the batch."""
    shape = _lapack.inv(_shape(a), dialect=dialect).shape
    return Result((shape, shape[:-2]))


def _lu_factor_rule(a: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    """torch.linalg.lu_factor: (LU, pivots), pivots min(m, n) int32 per matrix."""
    shape = _shape(a)
    if len(shape) < 2:
        raise ShapeError("argument", "torch.linalg.lu_factor: Expected tensor with 2 or more "
                         f"dimensions. Got size: {list(shape)} instead", "RuntimeError")
    return Result((shape, shape[:-2] + (_axes.min_dim(shape[-2], shape[-1]),)))


def _factor_info_dtype(a: Any, *, dialect: Dialect, **kwargs: Any) -> Any:
    return (_dtype(a), "int32")


def _lstsq_rule(a: Any, b: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """np.linalg.lstsq(a, b, rcond) / torch.linalg.lstsq(A, B, rcond, *, driver): torch's
    LAPACK drivers take floats only (NumPy computes integers in float64)."""
    if dialect.is_torch:
        kinds = {_dtype(a), _dtype(b)}
        if None not in kinds and not kinds <= {"float32", "float64", "complex64", "complex128"}:
            raise ShapeError("dtype", "This function doesn't handle types other than float and "
                             "double", "RuntimeError")
        if None not in kinds and len(kinds) > 1:
            left, right = (dtypes.torch_dtype_name(k) for k in (_dtype(a), _dtype(b)))
            raise ShapeError("dtype", "torch.linalg.lstsq: Expected input and other to have the "
                             f"same dtype, but got input's dtype {left} and other's dtype "
                             f"{right}", "RuntimeError")
    elif "float16" in (_dtype(a), _dtype(b)):
        raise ShapeError("dtype", "array type float16 is unsupported in linalg", "TypeError")
    return _lapack.lstsq(_shape(a), _shape(b), driver=kwargs.get("driver"), dialect=dialect)


def _lstsq_dtype(a: Any, b: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    """The solution's dtype for the residuals and singular values too; the rank an int (int32
    from NumPy's LAPACK, int64 in torch)."""
    kinds = (_dtype(a), _dtype(b))
    if None in kinds:
        return None
    common = dtypes.result_type(kinds[0], kinds[1], dialect)
    if common is not None and dialect.is_numpy and (dtypes.category(common) or 0) < 2:
        common = "float64"
    return (common, common, "int32" if dialect.is_numpy else "int64", common)


# ---------------------------------------------------------------------------- triangles, grids

def _numpy_triangle_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """np.tril / np.triu: a 1-D input is read as a row repeated into a square matrix."""
    shape = _shape(x)
    if not shape:
        raise ShapeError("argument", "tri() missing 1 required positional argument: 'N'",
                         "TypeError")
    return Result.of(shape * 2 if len(shape) == 1 else shape)


def _torch_triangle_rule(op: str) -> Callable[..., Result]:
    @_shape_keeping
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        shape = _shape(x)
        if len(shape) < 2:
            raise ShapeError("argument", f"{op}: input tensor must have at least 2 dimensions",
                             "RuntimeError")
        return Result.of(shape)
    return rule


def _triangle_count(rows: int, cols: int, offset: int, lower: bool) -> int:
    """How many (i, j) of a rows x cols grid lie on or below (above) diagonal ``offset``."""
    if lower:
        return sum(max(0, min(cols, i + offset + 1)) for i in range(rows))
    return sum(max(0, cols - max(0, i + offset)) for i in range(rows))


def _numpy_indices_rule(op: str) -> Callable[..., Result]:
    def rule(n: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        k = _arg(args, 0, kwargs, "k", default=0)
        m = _arg(args, 1, kwargs, "m", default=n)
        if not all(isinstance(v, int) for v in (n, k, m)):
            raise NotImplementedError("sizes that are not ints")
        count = _triangle_count(n, m, k, op == "tril")
        return Result(((count,), (count,)))
    return rule


def _torch_indices_rule(op: str) -> Callable[..., Result]:
    def rule(row: Any, col: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        offset = _arg(args, 0, kwargs, "offset", default=0)
        if not all(isinstance(v, int) for v in (row, col, offset)) or row < 0 or col < 0:
            raise NotImplementedError("sizes that are not non-negative ints")
        return Result.of((2, _triangle_count(row, col, offset, op == "tril")))
    return rule


def _meshgrid_rule(*arrays: Any, dialect: Dialect, **kwargs: Any) -> Result:
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    if not all(_is_array(a) for a in arrays) or set(kwargs) - {"indexing", "sparse", "copy"}:
        raise NotImplementedError("meshgrid of other than arrays")
    indexing = kwargs.get("indexing", "xy" if dialect.is_numpy else "ij")
    if dialect.is_torch:
        if any(len(a.shape) > 1 for a in arrays):
            raise ShapeError("argument", "torch.meshgrid: Expected 0D or 1D tensor in the tensor "
                             "list", "RuntimeError")
        if len({a.dtype for a in arrays}) > 1:
            raise ShapeError("dtype", "meshgrid expects all tensors to have the same dtype",
                             "RuntimeError")
        sizes = [a.shape[0] if a.shape else 1 for a in arrays]
    else:
        sizes = [numel(a.shape) for a in arrays]
    if indexing == "xy" and len(sizes) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = tuple(sizes)
    if kwargs.get("sparse"):
        pieces = []
        for i in range(len(sizes)):
            axis = {0: 1, 1: 0}.get(i, i) if indexing == "xy" and len(sizes) > 1 else i
            pieces.append(tuple(s if j == axis else 1 for j, s in enumerate(sizes)))
        return Result(tuple(pieces))
    return Result((out,) * len(sizes))


def _meshgrid_dtype(*arrays: Any, dialect: Dialect, **kwargs: Any) -> Any:
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    return tuple(_dtype(a) for a in arrays)


# ---------------------------------------------------------------------------- index writes

def _scatter_rule(x: Any, dim: Any, index: Any, src: Any = None, *, dialect: Dialect,
                  **kwargs: Any) -> Result:
    src = kwargs.get("src", kwargs.get("value", src))
    if set(kwargs) - {"src", "value", "reduce", "include_self"}:
        raise NotImplementedError("keyword arguments scatter does not take")
    return _scatter_gather.scatter(_shape(x), dim, _shape(index),
                                   _shape(src) if _is_array(src) else None, dialect=dialect)


def _index_add_rule(x: Any, dim: Any, index: Any, source: Any, *, dialect: Dialect,
                    **kwargs: Any) -> Result:
    return _scatter_gather.index_add(_shape(x), dim, _shape(index), _shape(source),
                                     dialect=dialect, index_dtype=_dtype(index) or INDEX)


def _index_copy_rule(x: Any, dim: Any, index: Any, source: Any, *, dialect: Dialect,
                     **kwargs: Any) -> Result:
    return _scatter_gather.index_copy(_shape(x), dim, _shape(index), _shape(source),
                                      dialect=dialect)


def _index_fill_rule(x: Any, dim: Any, index: Any, value: Any, *, dialect: Dialect,
                     **kwargs: Any) -> Result:
    shape = _shape(x)
    _axes.wrap_torch_dim(dim, len(shape))
    if len(_shape(index)) > 1:
        raise ShapeError("index", "index_fill_(): Expected dim of index to be 1 or 0 but got "
                         f"{len(_shape(index))}", "IndexError")
    return Result.of(shape)


def _put_along_rule(x: Any, indices: Any, values: Any, *args: Any, dialect: Dialect,
                    **kwargs: Any) -> Result:
    """np.put_along_axis(arr, indices, values, axis): indices of arr's rank pick along the axis
    (the other dims broadcast with arr's), values broadcast to what they pick; arr keeps its
    shape. With axis=None, 1-d indices pick from arr flattened."""
    shape, picked = _shape(x), _shape(indices)
    axis = _arg(args, 0, kwargs, "axis")
    if axis is None:
        if len(picked) != 1:
            raise ShapeError("argument", "when axis=None, `indices` must have a single "
                             "dimension.", "ValueError")
        target = picked
    else:
        if len(picked) != len(shape):
            raise ShapeError("argument", "`indices` and `arr` must have the same number of "
                             "dimensions", "ValueError")
        w = _axes.normalize_numpy_axis(axis, len(shape))
        others = tuple(1 if i == w else n for i, n in enumerate(shape))
        try:
            target = _broadcast.broadcast_shapes(picked, others, dialect=dialect).shape
        except ShapeError:
            raise ShapeError("index", "shape mismatch: indexing arrays could not be broadcast "
                             "together", "IndexError") from None
    given = _shape(values)
    while len(given) > len(target) and eq(given[0], 1) is True:
        given = given[1:]  # as in any assignment, leading 1s of the values are dropped
    if len(given) > len(target) and eq(given[0], 1) is None:
        raise NotImplementedError("a leading dim of the values that may be 1")
    together, _ = _broadcast.broadcast_pair(given, target)
    if len(given) > len(target) or together is None or dims_equal(together, target) is False:
        raise ShapeError("argument", f"shape mismatch: value array of shape "
                         f"{format_shape(given, 'numpy')} could not be broadcast to indexing "
                         f"result of shape {format_shape(target, 'numpy')}", "ValueError")
    return Result.of(shape)


def _take_rule(x: Any, index: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """np.take(x, index, axis=None) / torch.take(x, index): flat unless an axis is given."""
    axis = _arg(args, 0, kwargs, "axis") if dialect.is_numpy else None
    shape, picked = _shape(x), _shape(index)
    if axis is None:
        return Result.of(picked)
    w = _axes.normalize_numpy_axis(axis, len(shape))
    return Result.of(shape[:w] + picked + shape[w + 1:])


# ---------------------------------------------------------------------------- creation

def _creation_rule(library: str, name: str) -> Callable[..., Result]:
    """zeros / ones / full / eye / *_like through runtime/creation.py."""
    def rule(*args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        made = _made(library, name, args, kwargs)
        return Result.of(made.shape)
    return rule


def _made(library: str, name: str, args: tuple, kwargs: dict) -> Created:
    plain = tuple(ARRAY if _is_array(a) else a for a in args)
    made = creation(library, name, plain, {k: ARRAY if _is_array(v) else v
                                            for k, v in kwargs.items()})
    if not isinstance(made, Created):
        raise NotImplementedError("a creation this table does not model")
    if made.like is not None:
        source = args[made.like]
        made = Created(_shape(source), made.dtype or _dtype(source))
    if made.shape is None:
        raise NotImplementedError("a size nobody knows")
    return made


def _creation_dtype(library: str, name: str) -> Callable[..., Any]:
    def dtype(*args: Any, dialect: Dialect, **kwargs: Any) -> Any:
        return _made(library, name, args, kwargs).dtype
    return dtype


def _new_rule(op: str) -> Callable[..., Result]:
    """Tensor.new_zeros(size) / new_ones / new_empty / new_full(size, fill): input 0's dtype."""
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        sizes = args[:1] if op == "new_full" else args
        size = size_args(sizes) if sizes else tuple(kwargs.get("size", ()))
        if not all(isinstance(s, (int, Sym)) and not isinstance(s, bool) or s is UNKNOWN
                   for s in size):
            raise NotImplementedError("sizes that are not ints")  # x.new_zeros(sizes) of B
        return Result.of(tuple(size))
    return rule


def _new_dtype(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    return dtypes.dtype_spelling(kwargs["dtype"]) if "dtype" in kwargs else _dtype(x)


_CREATIONS = ("zeros", "ones", "empty", "full", "eye", "zeros_like", "ones_like", "empty_like",
              "full_like")


# ---------------------------------------------------------------------------- the table

def _register() -> None:
    for lib, pre in (("numpy", "np"), ("torch", "torch")):
        _add(f"{pre}.dstack", lib, _dstack_rule, takes_sequence=True, dtype=sequence_dtype)
        _add(f"{pre}.column_stack", lib, _column_stack_rule, takes_sequence=True,
             dtype=sequence_dtype)
        _add(f"{pre}.kron", lib, _kron_rule, dtype=_kron_dtype)
        _add(f"{pre}.trace", lib, _trace_rule, dtype=_sum_dtype)
        _add(f"{pre}.linalg.matrix_power", lib, _matrix_power_rule)
        _add(f"{pre}.linalg.multi_dot", lib, _multi_dot_rule, takes_sequence=True,
             dtype=sequence_dtype)
        _add("np.vecdot" if lib == "numpy" else "torch.linalg.vecdot", lib, _vecdot_rule,
             dtype=product_dtype)
        _add(f"{pre}.meshgrid", lib, _meshgrid_rule, multi_output=True, dtype=_meshgrid_dtype)
        _add(f"{pre}.take", lib, _take_rule)
        for name in _CREATIONS + (("identity",) if lib == "numpy" else ()):
            _add(f"{pre}.{name}", lib, _creation_rule(lib, name),
                 dtype=_creation_dtype(lib, name))
    for op in ("hsplit", "vsplit", "dsplit"):
        _add(f"np.{op}", "numpy", _numpy_directional_split(op), view_kind="view",
             multi_output=True)
        _add(f"torch.{op}", "torch", _torch_directional_split(op), view_kind="view",
             multi_output=True)
        _add(op, "torch", _torch_directional_split(op), view_kind="view", multi_output=True)
    _add("torch.linalg.inv_ex", "torch", _inv_ex_rule, multi_output=True,
         dtype=_factor_info_dtype)
    _add("torch.linalg.lu_factor", "torch", _lu_factor_rule, multi_output=True,
         dtype=_factor_info_dtype)
    for name in ("np.linalg.lstsq", "torch.linalg.lstsq"):
        _add(name, "numpy" if name.startswith("np") else "torch", _lstsq_rule, multi_output=True,
             dtype=_lstsq_dtype)
    _add("torch.tensor_split", "torch", _tensor_split_rule, view_kind="view", multi_output=True)
    _add("tensor_split", "torch", _tensor_split_rule, view_kind="view", multi_output=True)
    _add("trace", "torch", _trace_rule, dtype=_sum_dtype)
    _add("take", "torch", _take_rule)
    _add("np.put_along_axis", "numpy", _put_along_rule, inplace=True)
    _add("take", "numpy", _take_rule)
    for op in ("tril", "triu"):
        _add(f"torch.{op}", "torch", _torch_triangle_rule(op))
        _add(op, "torch", _torch_triangle_rule(op))
        _add(f"{op}_", "torch", _torch_triangle_rule(op), inplace=True)
        _add(f"np.{op}", "numpy", _numpy_triangle_rule)
        _add(f"np.{op}_indices", "numpy", _numpy_indices_rule(op), multi_output=True,
             from_sizes=True, dtype=_index_dtype)
        _add(f"torch.{op}_indices", "torch", _torch_indices_rule(op), from_sizes=True,
             dtype=_index_dtype)
    for op in ("scatter", "scatter_add", "scatter_reduce"):
        _add(f"torch.{op}", "torch", _scatter_rule)
        _add(op, "torch", _scatter_rule)
    for op, rule in (("index_add", _index_add_rule), ("index_copy", _index_copy_rule),
                     ("index_fill", _index_fill_rule)):
        _add(f"torch.{op}", "torch", rule)
        _add(op, "torch", rule)
    for op in ("new_zeros", "new_ones", "new_empty", "new_full"):
        _add(op, "torch", _new_rule(op), dtype=_new_dtype)


_register()


__all__ = ["INDEX", "product_dtype", "sequence_dtype", "torch_elementwise_product_dtype",
           "torch_inner_rule"]
