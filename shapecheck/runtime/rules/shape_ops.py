"""Shape rules for reductions, reshapes, axis moves, joins, splits and gather/scatter, per library.

Every function takes shapes (tuples of Dim) and plain python parameters and
returns a Result, or raises ShapeError with the library's own message and
exception class when the failure is certain for every value of the symbolic
sizes. Axis parameters are plain ints (the analyzer only calls these rules
with constant axes).

Assumptions made for symbolic sizes (documented because verdicts rely on them):
- reshape's -1 divides by the known part with dims.exact_div, which assumes
  that part is non-zero (``(B, T, C) -> (B*T, -1)`` gives ``C``).
- squeeze() without an axis, and torch's squeeze(dim) of a dim that may or may
  not be 1, keep a symbolic dim (a rank cannot be UNKNOWN); the Result then
  carries a "squeeze-uncertain" warning.
- split/chunk/unbind whose piece count depends on a symbolic size return one
  representative piece shape (UNKNOWN along the split dim) with a
  "piece-count-unknown" warning.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import Dialect
from ..dims import (UNKNOWN, Dim, Maybe, Shape, Sym, add, eq, exact_div, floordiv, format_shape, is_known,
                    is_one, is_zero, le, lt, mul, numel, product, sub)
from ..verdicts import Result, RuleWarning, ShapeError
from .broadcast import broadcast_pair, broadcast_shapes
from .messages import dim_range_error, torch_list

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


def _uncertain(kind: str, message: str) -> RuleWarning:
    return RuleWarning(kind, message)


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
                        "argmax", "argmin", "any", "all", "nansum", "nanmean", "median",
                        "logsumexp", "norm", "count_nonzero"})


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


# ---------------------------------------------------------------------------
# Reshape, view, flatten, ravel.
# ---------------------------------------------------------------------------


def _numpy_newshape_text(newshape: Sequence[Dim]) -> str:
    """numpy's convert_shape_to_string: leading unknowns dropped, others shown as newaxis."""
    vals = list(newshape)
    i = 0
    while i < len(vals) and isinstance(vals[i], int) and vals[i] < 0:
        i += 1
    if i == len(vals):
        return "()"
    parts = [str(vals[i])]
    parts += ["newaxis" if isinstance(v, int) and v < 0 else str(v) for v in vals[i + 1:]]
    body = ",".join(parts)
    return f"({body},)" if len(vals) == 1 else f"({body})"


def reshape(shape: Shape, newshape: Sequence[Dim] | Dim, *, dialect: Dialect, op: str = "reshape") -> Result:
    """x.reshape(newshape) / x.view(newshape): -1 inference, symbolic too.

    Whether the result is a view (reshape) or the call fails on a
    non-contiguous tensor (view) depends on strides and is not judged here.
    """
    shape = tuple(shape)
    if not isinstance(newshape, (tuple, list)):
        newshape = (newshape,)
    newshape = tuple(newshape)
    size = numel(shape)
    infer: int | None = None
    known: Dim = 1
    for i, d in enumerate(newshape):
        if isinstance(d, int) and d < 0:
            if dialect.is_torch and d != -1:
                raise ShapeError("reshape", f"invalid shape dimension {d} at index {i} of shape "
                                 f"{torch_list(newshape)}", "RuntimeError")
            if infer is not None:
                text = "only one dimension can be inferred" if dialect.is_torch \
                    else "can only specify one unknown dimension"
                raise ShapeError("reshape", text, "RuntimeError" if dialect.is_torch else "ValueError")
            infer = i
        else:
            known = mul(known, d)

    def mismatch() -> ShapeError:
        if dialect.is_torch:
            return ShapeError("reshape", f"shape '{torch_list(newshape)}' is invalid for input of size {size}",
                              "RuntimeError", shapes=(shape,))
        return ShapeError("reshape", f"cannot reshape array of size {size} into shape "
                          f"{_numpy_newshape_text(newshape)}", "ValueError", shapes=(shape,))

    if infer is None:
        if eq(size, known) is False:
            raise mismatch()
        return Result.of(newshape)
    known_zero = is_zero(known)
    if dialect.is_torch:
        if known_zero is True:
            if is_zero(size) is True:
                raise ShapeError("reshape", f"cannot reshape tensor of 0 elements into shape "
                                 f"{torch_list(newshape)} because the unspecified dimension size -1 can be "
                                 "any value and is ambiguous", "RuntimeError", shapes=(shape,))
            if is_zero(size) is False:
                raise mismatch()
    elif known_zero is True:
        raise mismatch()
    inferred = exact_div(size, known)
    if inferred is None:
        if isinstance(size, int) and isinstance(known, int):
            raise mismatch()
        inferred = _cancel_div(size, known)
    out = list(newshape)
    out[infer] = inferred
    return Result.of(tuple(out))


def _monomial(d: Dim) -> tuple[int, list[str]] | None:
    if isinstance(d, int):
        return d, []
    if isinstance(d, Sym) and len(d.terms) == 1:
        mono, coeff = d.terms[0]
        return coeff, list(mono)
    return None


def _cancel_div(a: Dim, b: Dim) -> Dim:
    """a / b for monomials after cancelling common factors: (B*T*C) / (B*T*H) is C//H.

    The remaining quotient is an opaque floor division: the program is taken
    to be valid (H divides C), since a reshape error needs certainty.
    """
    ma, mb = _monomial(a), _monomial(b)
    if ma is None or mb is None or mb[0] == 0:
        return UNKNOWN
    from math import gcd
    ca, atoms_a = ma
    cb, atoms_b = mb
    rest_b = []
    for atom in atoms_b:
        if atom in atoms_a:
            atoms_a.remove(atom)
        else:
            rest_b.append(atom)
    g = gcd(ca, cb) or 1
    num = mul(ca // g, product(Sym.atom(x) for x in atoms_a))
    den = mul(cb // g, product(Sym.atom(x) for x in rest_b))
    if den == 1:
        return num
    return floordiv(num, den)


def view(shape: Shape, newshape: Sequence[Dim] | Dim, *, dialect: Dialect) -> Result:
    """torch's x.view(shape): reshape's size rule."""
    return reshape(shape, newshape, dialect=dialect, op="view")


def flatten(shape: Shape, start: int = 0, end: int = -1, *, dialect: Dialect) -> Result:
    """x.flatten() (numpy, always 1-D) / torch.flatten(x, start_dim, end_dim)."""
    shape = tuple(shape)
    if dialect.is_numpy:
        return Result.of((numel(shape),))
    ndim = len(shape)
    s = wrap_torch_dim(start, ndim)
    e = wrap_torch_dim(end, ndim)
    if s > e:
        raise ShapeError("argument", "flatten() has invalid args: start_dim cannot come after end_dim",
                         "RuntimeError")
    if ndim == 0:
        return Result.of((1,))
    return Result.of(shape[:s] + (product(shape[s:e + 1]),) + shape[e + 1:])


def ravel(shape: Shape, *, dialect: Dialect) -> Result:
    """x.ravel(): always 1-D."""
    return Result.of((numel(tuple(shape)),))


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


def _numpy_axis_tuple(axis, ndim: int, argname: str) -> tuple[int, ...]:
    """numpy.lib.array_utils.normalize_axis_tuple."""
    if isinstance(axis, int):
        axis = (axis,)
    prefix = f"{argname}: " if argname else ""
    out = tuple(normalize_numpy_axis(a, ndim, prefix) for a in axis)
    if len(set(out)) != len(out):
        text = f"repeated axis in `{argname}` argument" if argname else "repeated axis"
        raise ShapeError("axis", text, "ValueError")
    return out


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
        nsrc = list(_numpy_axis_tuple(source, ndim, "source"))
        ndst = list(_numpy_axis_tuple(destination, ndim, "destination"))
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


# ---------------------------------------------------------------------------
# Adding and removing unit dims.
# ---------------------------------------------------------------------------


def squeeze(shape: Shape, axis: int | Sequence[int] | None = None, *, dialect: Dialect) -> Result:
    """x.squeeze(axis): numpy refuses a non-1 axis, torch leaves it alone."""
    shape = tuple(shape)
    ndim = len(shape)
    warnings: list[RuleWarning] = []
    if axis is None:
        out = []
        for d in shape:
            one = is_one(d)
            if one is None:
                warnings.append(_uncertain("squeeze-uncertain", f"kept dim {d}, assumed not to be 1"))
            if one is not True:
                out.append(d)
        return Result.of(tuple(out), *warnings)
    if dialect.is_torch:
        dims = (axis,) if isinstance(axis, int) else tuple(axis)
        wrapped: list[int] = []
        for d in dims:  # squeeze wraps and checks each dim in turn (dim_list_to_bitset)
            w = wrap_torch_dim(d, ndim)
            if w in wrapped:
                raise ShapeError("axis", f"dim {w} appears multiple times in the list of dims", "RuntimeError")
            wrapped.append(w)
        if ndim == 0:
            return Result.of(())
        out = []
        for i, d in enumerate(shape):
            one = is_one(d)
            if i in wrapped and one is None:
                warnings.append(_uncertain("squeeze-uncertain", f"kept dim {d}, assumed not to be 1"))
            if not (i in wrapped and one is True):
                out.append(d)
        return Result.of(tuple(out), *warnings)
    if isinstance(axis, int) and ndim == 0 and axis in (0, -1):
        return Result.of(())
    seen: list[int] = []
    for a in (axis,) if isinstance(axis, int) else axis:  # wrapped and checked in turn
        w = normalize_numpy_axis(a, ndim)
        if w in seen:
            raise ShapeError("axis", "duplicate value in 'axis'", "ValueError")
        seen.append(w)
    axes = tuple(seen)
    for a in axes:
        if is_one(shape[a]) is False:
            raise ShapeError("axis", "cannot select an axis to squeeze out which has size not equal to one",
                             "ValueError", dim=a)
    return Result.of(tuple(d for i, d in enumerate(shape) if i not in axes))


def expand_dims(shape: Shape, axis: int | Sequence[int], *, dialect: Dialect) -> Result:
    """np.expand_dims(x, axis); under torch, unsqueeze."""
    shape = tuple(shape)
    if dialect.is_torch:
        if not isinstance(axis, int):
            raise ShapeError("argument", "unsqueeze takes a single int dim", "TypeError")
        return unsqueeze(shape, axis, dialect=dialect)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out_ndim = len(axes) + len(shape)
    norm = _numpy_axis_tuple(axes, out_ndim, "")
    it = iter(shape)
    return Result.of(tuple(1 if i in norm else next(it) for i in range(out_ndim)))


def unsqueeze(shape: Shape, dim: int, *, dialect: Dialect) -> Result:
    """x.unsqueeze(dim) (torch); under numpy, expand_dims."""
    shape = tuple(shape)
    if dialect.is_numpy:
        return expand_dims(shape, dim, dialect=dialect)
    w = wrap_torch_dim(dim, len(shape) + 1)
    return Result.of(shape[:w] + (1,) + shape[w:])


# ---------------------------------------------------------------------------
# Broadcast views.
# ---------------------------------------------------------------------------


def expand(shape: Shape, sizes: Sequence[Dim], *, dialect: Dialect, dtype: str | None = None) -> Result:
    """torch x.expand(*sizes) (-1 keeps a dim); numpy has no expand, so broadcast_to."""
    shape = tuple(shape)
    sizes = tuple(sizes)
    if dialect.is_numpy:
        return broadcast_to(shape, sizes, dialect=dialect)
    ndim = len(shape)
    if len(sizes) < ndim:
        raise ShapeError("broadcast", f"expand(torch.{torch_scalar_type(dtype)}Tensor{{{torch_list(shape)}}}, "
                         f"size={torch_list(sizes)}): the number of sizes provided ({len(sizes)}) must be "
                         f"greater or equal to the number of dimensions in the tensor ({ndim})", "RuntimeError")
    if ndim == 0:
        return Result.of(sizes)
    out: list[Dim] = [0] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):
        k = ndim - (len(sizes) - i)
        size = shape[k] if k >= 0 else 1
        target = sizes[i]
        if isinstance(target, int) and target == -1:
            if k < 0:
                raise ShapeError("broadcast", f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                 f"non-existing dimension {i}", "RuntimeError")
            target = size
        same = eq(size, target)
        if same is False and is_one(size) is False:
            raise ShapeError("broadcast", f"The expanded size of the tensor ({target}) must match the existing "
                             f"size ({size}) at non-singleton dimension {i}.  Target sizes: "
                             f"{torch_list(sizes)}.  Tensor sizes: {torch_list(shape)}", "RuntimeError", dim=i)
        out[i] = target
    return Result.of(tuple(out))


def broadcast_to(shape: Shape, target: Sequence[Dim], *, dialect: Dialect, dtype: str | None = None) -> Result:
    """np.broadcast_to / torch.broadcast_to (torch's is expand)."""
    shape = tuple(shape)
    target = tuple(target)
    if dialect.is_torch:
        return expand(shape, target, dialect=dialect, dtype=dtype)
    if any(isinstance(t, int) and t < 0 for t in target):
        raise ShapeError("broadcast", "all elements of broadcast shape must be non-negative", "ValueError")
    if len(shape) > len(target):
        if len(target) == 0:
            raise ShapeError("broadcast", "cannot broadcast a non-scalar to a scalar array", "ValueError")
        raise ShapeError("broadcast", "input operand has more dimensions than allowed by the axis remapping",
                         "ValueError")
    pad = (1,) * (len(target) - len(shape)) + shape
    for have, want in zip(pad, target):
        if eq(have, want) is False and is_one(have) is False:
            raise ShapeError("broadcast", "operands could not be broadcast together with remapped shapes "
                             f"[original->remapped]: {format_shape(shape, 'numpy')}  and requested shape "
                             f"{format_shape(target, 'numpy')}", "ValueError", shapes=(shape, target))
    return Result.of(target)


def broadcast_arrays(*shapes: Shape, dialect: Dialect) -> Result:
    """np.broadcast_arrays / torch.broadcast_tensors: every output has the common shape."""
    shapes = tuple(tuple(s) for s in shapes)
    if dialect.is_torch:
        common = broadcast_shapes(*shapes, dialect=dialect).shape
        return Result(tuple(common for _ in shapes))
    acc: Shape = ()
    for s in shapes:
        out, failed = broadcast_pair(acc, s)
        if out is None:
            raise _numpy_multiiter_error(shapes)
        acc = out
    return Result(tuple(acc for _ in shapes))


def _numpy_multiiter_error(shapes: tuple[Shape, ...]) -> ShapeError:
    """NumPy's PyArray_Broadcast names the first conflicting pair, scanning dims left to right."""
    nd = max(len(s) for s in shapes)
    for i in range(nd):
        current: Dim = 1
        source = 0
        for j, s in enumerate(shapes):
            off = i - (nd - len(s))
            if off < 0:
                continue
            d = s[off]
            if is_one(d) is True:
                continue
            if is_one(current) is True:
                current, source = d, j
            elif eq(current, d) is False and is_one(d) is False:
                return ShapeError("broadcast", "shape mismatch: objects cannot be broadcast to a single shape.  "
                                  f"Mismatch is between arg {source} with shape {format_shape(shapes[source])} "
                                  f"and arg {j} with shape {format_shape(s)}.", "ValueError", shapes=shapes)
    return ShapeError("broadcast", "shape mismatch: objects cannot be broadcast to a single shape.",
                      "ValueError", shapes=shapes)


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


# ---------------------------------------------------------------------------
# Splits and single-dim selections.
# ---------------------------------------------------------------------------


def with_dim(shape: Shape, axis: int, size: Dim) -> Shape:
    out = list(shape)
    out[axis] = size
    return tuple(out)


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


# ---------------------------------------------------------------------------
# Repetition.
# ---------------------------------------------------------------------------


def repeat(shape: Shape, repeats, axis: int | None = None, *, dialect: Dialect) -> Result:
    """x.repeat(...): numpy repeats elements (np.repeat), torch tiles (Tensor.repeat(*sizes))."""
    shape = tuple(shape)
    if dialect.is_torch:
        sizes = (repeats,) if isinstance(repeats, int) else tuple(repeats)
        if len(sizes) < len(shape):
            raise ShapeError("argument", "Number of dimensions of repeat dims can not be smaller than number of "
                             "dimensions of tensor", "RuntimeError")
        padded = (1,) * (len(sizes) - len(shape)) + shape
        out = tuple(mul(d, r) for d, r in zip(padded, sizes))
        if any(isinstance(d, int) and d < 0 for d in out):
            bad = next(d for d in out if isinstance(d, int) and d < 0)
            raise ShapeError("argument", f"Trying to create tensor with negative dimension {bad}: "
                             f"{torch_list(out)}", "RuntimeError")
        return Result.of(out)
    return repeat_interleave(shape, repeats, axis, dialect=dialect)


def repeat_interleave(shape: Shape, repeats, axis: int | None = None, *, dialect: Dialect) -> Result:
    """np.repeat / torch.repeat_interleave with an int or a per-element list of repeats."""
    shape = tuple(shape)
    if axis is None:
        n = numel(shape)
        target: Shape = (n,)
        ax = 0
    else:
        ax = wrap_axis(axis, len(shape), dialect)
        target = shape if shape else (1,)
        n = target[ax]
    if isinstance(repeats, int):
        return Result.of(with_dim(target, ax, mul(n, repeats)))
    reps = list(repeats)
    if len(reps) != 1 and eq(n, len(reps)) is False:
        if dialect.is_torch:
            raise ShapeError("argument", "repeats must have the same size as input along dim, but got "
                             f"repeats.size(0) = {len(reps)} and input.size({ax}) = {n}", "RuntimeError")
        raise ShapeError("argument", f"operands could not be broadcast together with shape ({n},) ({len(reps)},)",
                         "ValueError")
    total: Dim = mul(n, reps[0]) if len(reps) == 1 else sum(reps)
    return Result.of(with_dim(target, ax, total))


def tile(shape: Shape, reps, *, dialect: Dialect) -> Result:
    """np.tile / torch.tile: reps padded with leading 1s, shape padded with leading 1s."""
    shape = tuple(shape)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    if len(reps) < len(shape):
        reps = (1,) * (len(shape) - len(reps)) + reps
    padded = (1,) * (len(reps) - len(shape)) + shape
    return Result.of(tuple(mul(d, r) for d, r in zip(padded, reps)))


# ---------------------------------------------------------------------------
# Gather / scatter family (torch's own rules; the 2017 notes' broadcasting
# never shipped: index must have self's rank and be no larger apart from dim).
# ---------------------------------------------------------------------------


def nonempty_size(shape: Shape, d: int) -> Dim:
    """ATen's ensure_nonempty_size: a 0-d tensor has size 1 at dim 0; else shape.size(d) (may raise)."""
    if len(shape) == 0:
        return 1
    if d >= len(shape):
        raise dim_range_error(d, len(shape))
    return shape[d]


def scatter(x: Shape, dim: int, index: Shape, src: Shape | None = None, *, dialect: Dialect) -> Result:
    """x.scatter_(dim, index, src) / scatter_add_ / scatter_reduce_; src None means a scalar value."""
    x, index = tuple(x), tuple(index)
    src = None if src is None else tuple(src)
    w = wrap_torch_dim(dim, len(x))
    empty = is_zero(numel(index))
    if empty is True:
        return Result.of(x)
    if max(len(x), 1) != max(len(index), 1):
        if empty is False:
            raise ShapeError("scatter", "Index tensor must have the same number of dimensions as self tensor",
                             "RuntimeError", shapes=(x, index))
        return Result.of(x)
    self_dims = max(len(x), 1)
    wrong: Maybe = False
    for d in range(self_dims):
        if d == w:
            continue
        r = le(nonempty_size(index, d), nonempty_size(x, d))
        if r is False:
            wrong = True
            break
        if r is None:
            wrong = None
    if wrong is False and src is not None:
        for d in range(self_dims):
            idx_d = nonempty_size(index, d)
            if len(src) and d >= len(src) and empty is False:
                raise dim_range_error(d, len(src))
            r = le(idx_d, nonempty_size(src, d))
            if r is False:
                wrong = True
                break
            if r is None:
                wrong = None
    if src is not None and max(len(src), 1) != max(len(index), 1) and empty is False:
        # ATen checks src's rank after its size loops, before reporting their verdict.
        raise ShapeError("scatter", "Index tensor must have the same number of dimensions as src tensor",
                         "RuntimeError", shapes=(x, index, src))
    if wrong is True and empty is False:
        text = (f"Expected index {torch_list(index)} to be no larger than self {torch_list(x)} apart from "
                f"dimension {w}")
        if src is not None:
            text += f" and to be no larger size than src {torch_list(src)}"
        raise ShapeError("scatter", text, "RuntimeError", shapes=(x, index) + ((src,) if src else ()))
    return Result.of(x)


def index_select(x: Shape, dim: int, index: Shape, *, dialect: Dialect) -> Result:
    """torch.index_select(x, dim, index) / np.take(x, index, axis)."""
    x, index = tuple(x), tuple(index)
    if dialect.is_numpy:
        ax = normalize_numpy_axis(dim, len(x))
        return Result.of(x[:ax] + index + x[ax + 1:])
    w = wrap_torch_dim(dim, len(x))
    if len(index) > 1:
        raise ShapeError("index", "index_select(): Index is supposed to be a vector", "IndexError")
    count = numel(index)
    if len(x) == 0:
        if eq(count, 1) is False:
            raise ShapeError("index", f"index_select(): Index to scalar can have only 1 value, got {count} value(s)",
                             "RuntimeError")
        return Result.of(())
    return Result.of(with_dim(x, w, count))


def _dims_text(values: Sequence[Dim]) -> str:
    """How a std::vector<int64_t> streams in ATen messages: space separated."""
    return " ".join(str(v) for v in values)


def index_add(x: Shape, dim: int, index: Shape, source: Shape, *, dialect: Dialect,
              index_dtype: str = "int64", op: str = "index_add") -> Result:
    """x.index_add_(dim, index, source); op="index_reduce"/"index_fill" share the checks' wording."""
    x, index, source = tuple(x), tuple(index), tuple(source)
    w = wrap_torch_dim(dim, len(x))
    if len(index) > 1:
        raise ShapeError("index", f"{op}_(): Index is supposed to be a vector, but got dim: {len(index)} with type: "
                         f"{torch_scalar_type(index_dtype)} and size: {torch_list(index)}", "IndexError")
    if not (w == 0 or w < len(source)):
        raise ShapeError("index", f"{op}_(): Indexing dim {w} is out of bounds of the source tensor with dim "
                         f"{len(source)}", "RuntimeError")
    count = numel(index)
    want = 1 if len(source) == 0 else source[w]
    if eq(count, want) is False:
        if len(source) == 0:
            raise ShapeError("index", "Dimension specified as 0 but tensor has no dimensions", "IndexError")
        raise ShapeError("index", f"{op}_(): Number of indices ({count}) should be equal to source.size(dim): "
                         f"({source[w]}), for dim: {w}", "RuntimeError")
    xs, ss = list(x), list(source)
    if len(source) and len(x):
        del xs[w]
        del ss[w]
    if len(xs) != len(ss) or any(eq(a, b) is False for a, b in zip(xs, ss)):
        raise ShapeError("index", "source tensor shape must match self tensor shape, excluding the specified "
                         f"dimension. Got self.shape = {torch_list(x)} source.shape = {torch_list(source)}",
                         "RuntimeError", shapes=(x, source))
    return Result.of(x)


def index_copy(x: Shape, dim: int, index: Shape, source: Shape, *, dialect: Dialect) -> Result:
    """x.index_copy_(dim, index, source)."""
    x, index, source = tuple(x), tuple(index), tuple(source)
    w = wrap_torch_dim(dim, len(x))
    if len(index) >= 2:
        raise ShapeError("index", f"index_copy_(): Index should have dimension 1 or 0 (got {len(index)})",
                         "IndexError")
    count = numel(index)
    if len(source) == 0 and eq(count, 1) is False:
        raise ShapeError("index", f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {count})", "IndexError")
    if len(source) != len(x) and len(source) != 0 and len(x) != 0:
        raise ShapeError("index", "index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({len(source)}), destination "
                         f"dimensionality ({len(x)})", "IndexError")
    xs, ss = list(x), list(source)
    if xs:
        del xs[w]
    if ss:
        if w >= len(ss):
            raise dim_range_error(w, len(ss))
        del ss[w]
    if len(xs) != len(ss) or any(eq(a, b) is False for a, b in zip(xs, ss)):
        raise ShapeError("index", "index_copy_(): Source/destination tensor must have same slice shapes. "
                         f"Destination slice shape: {_dims_text(xs)} at dimension {w} and source slice shape: "
                         f"{_dims_text(ss)} at dimension 0.", "RuntimeError", shapes=(x, source))
    if len(source) and eq(count, source[w]) is False:
        raise ShapeError("index", f"index_copy_(): Number of indices ({count}) should be equal to source.size(dim) "
                         f"({source[w]})", "IndexError")
    return Result.of(x)


__all__ = [
    "REDUCE_OPS", "reduce", "reshape", "view", "flatten", "ravel", "transpose", "permute", "swapaxes",
    "moveaxis", "T_attr", "matrix_transpose", "squeeze", "unsqueeze", "expand_dims", "expand",
    "broadcast_to", "broadcast_arrays", "concatenate", "stack", "hstack", "vstack", "split",
    "array_split", "chunk", "unbind", "narrow", "select", "unfold", "diagonal", "repeat",
    "repeat_interleave", "tile", "scatter", "index_select", "index_add",
    "index_copy",
]
