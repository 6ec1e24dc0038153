"""Shape rules of pointwise ops: broadcasting, in-place targets, out=, copies, masked fills, legacy fallback."""

from __future__ import annotations

from ..dialects import Dialect
from ..dims import UNKNOWN, Dim, Shape, dims_equal, eq, format_shape, is_one, numel
from ..dtypes import inplace_dtype
from ..verdicts import Result, RuleWarning, ShapeError
from .broadcast import broadcast_shapes, broadcastable

FALLBACK_OPS = frozenset({"pow", "add", "sub", "mul", "div", "fmod", "remainder",
                          "addcmul", "addcdiv"})
"""The functions that had the deprecated 1-D pointwise fallback in old PyTorch
(the broadcasting notes' list, torch spellings)."""

TERNARY_OPS = frozenset({"where", "addcmul", "addcdiv"})
"""Ops whose three tensor operands broadcast together (lerp takes a third too)."""

POINTWISE_BINARY = frozenset({
    # torch spellings
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "pow", "fmod", "remainder",
    "atan2", "lerp", "dist", "eq", "ne", "lt", "le", "gt", "ge", "max", "min",
    "maximum", "minimum", "fmax", "fmin", "hypot", "copysign", "logaddexp",
    "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor",
    # NumPy spellings that differ
    "subtract", "multiply", "divide", "power", "mod", "arctan2", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal",
})
"""Binary pointwise ops (lerp with a scalar weight)."""

POINTWISE_OPS = POINTWISE_BINARY | TERNARY_OPS
"""Every pointwise op these rules model, NumPy and torch spellings."""

_REDUCING_OPS = frozenset({"dist"})  # broadcast, then reduce to a 0-dim result

_FALLBACK_TEXT = "Falling back to deprecated pointwise behavior."
_BACKCOMPAT_TEXT = ("do not have the same shape, but are broadcastable, and have the same number "
                    "of elements.  Changing behavior in a backwards incompatible manner to "
                    "broadcasting rather than viewing as 1-dimensional.")
_RESIZE_TEXT = ("An output with one or more elements was resized since it had shape {old}, which "
                "does not match the required output shape {new}. This behavior is deprecated, "
                "and in a future PyTorch release outputs will not be resized unless they have "
                "zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, "
                "to zero elements with t.resize_(0).")


def _op_name(op: str) -> str:
    """The out-of-place name: ``add_`` and ``__iadd__``-style spellings are not used here."""
    return op[:-1] if op.endswith("_") and not op.endswith("__") else op


def _check_arity(op: str, count: int) -> None:
    if op == "lerp":
        expected: tuple[int, ...] = (2, 3)
    elif op in TERNARY_OPS:
        expected = (3,)
    elif op in POINTWISE_BINARY:
        expected = (2,)
    else:
        raise ValueError(f"unknown pointwise op {op!r}")
    if count not in expected:
        raise ValueError(f"{op} takes {' or '.join(map(str, expected))} tensor operands, got {count}")


def _operand_names(op: str, count: int) -> tuple[str, ...]:
    """The argument names old PyTorch's generated bindings used in its warnings."""
    if op in ("addcmul", "addcdiv"):
        return ("self", "tensor1", "tensor2")
    return ("self", "other", "weight")[:count]


def _numels_equal(shapes: tuple[Shape, ...]) -> bool | None:
    """Three-valued: do all shapes hold the same number of elements?"""
    first = numel(shapes[0])
    verdict: bool | None = True
    for s in shapes[1:]:
        same = eq(first, numel(s))
        if same is False:
            return False
        if same is None:
            verdict = None
    return verdict


def _merge(a: Shape, b: Shape) -> Shape:
    """A shape covering both possible outcomes, dim by dim (a when ranks differ)."""
    if len(a) != len(b):
        return a
    return tuple(x if eq(x, y) is True else UNKNOWN for x, y in zip(a, b))


def _is_legacy_torch(dialect: Dialect) -> bool:
    return dialect.is_torch and dialect.legacy


def _legacy_refuses_scalars(shapes: tuple[Shape, ...], dialect: Dialect) -> None:
    """Old PyTorch had no 0-dim tensors to broadcast; broadcast_shapes owns that error."""
    if any(len(s) == 0 for s in shapes):
        broadcast_shapes(*shapes, dialect=dialect)


def pointwise(*shapes: Shape, op: str, dialect: Dialect) -> Result:
    """The result shape of an out-of-place pointwise op (binary, or ternary for
    where/addcmul/addcdiv/lerp with a tensor weight), broadcasting all operands.

    torch-legacy keeps old PyTorch's era: for FALLBACK_OPS, operands that do
    not broadcast but hold the same number of elements were viewed as 1-D
    (result shaped like the first operand, with a "legacy-fallback" warning),
    and broadcastable operands of other shapes but equal element counts get
    the "backcompat" warning.
    """
    op = _op_name(op)
    _check_arity(op, len(shapes))
    shapes = tuple(tuple(s) for s in shapes)
    legacy_fallback = _is_legacy_torch(dialect) and op in FALLBACK_OPS
    if legacy_fallback:
        _legacy_refuses_scalars(shapes, dialect)
        result = _legacy_outplace(shapes, op, dialect)
    else:
        result = broadcast_shapes(*shapes, dialect=dialect)
    if op in _REDUCING_OPS:
        return Result.of((), *result.warnings)
    return result


def _legacy_outplace(shapes: tuple[Shape, ...], op: str, dialect: Dialect) -> Result:
    names = _operand_names(op, len(shapes))
    same_numel = _numels_equal(shapes)
    try:
        result = broadcast_shapes(*shapes, dialect=dialect)
    except ShapeError:
        if same_numel is True:
            if len(shapes) == 2:
                text = (f"{names[0]} and {names[1]} not broadcastable, but have the same number "
                        "of elements.  ")
            else:
                # Old PyTorch's three-operand text, double space included.
                text = (f"{names[0]}, {names[1]}, and {names[2]}  not broadcastable, but have "
                        "the same number of elements.  ")
            return Result.of(shapes[0], RuleWarning("legacy-fallback", text + _FALLBACK_TEXT))
        if same_numel is None:
            return Result.of(shapes[0])  # a fallback or an error, depending on sizes
        raise
    # Operands that broadcast pairwise broadcast together.
    can = all(broadcastable(shapes[i], shapes[j]) is True
              for i in range(len(shapes)) for j in range(i + 1, len(shapes)))
    if not can and same_numel is not False:
        # Some sizes fail to broadcast yet have equal counts: a fallback shaped like self.
        return Result.of(_merge(result.shape, shapes[0]))
    warnings = []
    if can:
        for name, other in zip(names[1:], shapes[1:]):
            if dims_equal(shapes[0], other) is False and eq(numel(shapes[0]), numel(other)) is True:
                warnings.append(RuleWarning("backcompat", f"{names[0]} and {name} {_BACKCOMPAT_TEXT}"))
    return result.with_warnings(*warnings)


def _torch_output_check(target: Shape, full: Shape) -> None:
    """TensorIterator's check that the output is not resized by the broadcast."""
    if _certainly_differs(target, full):
        raise ShapeError(
            "inplace",
            f"output with shape {format_shape(target, 'torch')} doesn't match the broadcast shape "
            f"{format_shape(full, 'torch')}",
            "RuntimeError", shapes=(target, full))


def _certainly_differs(target: Shape, full: Shape) -> bool:
    """True when the broadcast certainly changed the target (ranks, or a known dim)."""
    if len(target) != len(full):
        return True
    return any(eq(t, f) is False for t, f in zip(target, full))


def _numpy_output_check(operands: tuple[Shape, ...], out: Shape, dialect: Dialect) -> Shape:
    """NumPy's iterator: all operands (out included) broadcast, and out needs no broadcasting."""
    full = broadcast_shapes(*operands, out, dialect=dialect).shape
    if _certainly_differs(out, full):
        raise ShapeError(
            "inplace",
            f"non-broadcastable output operand with shape {format_shape(out, 'numpy')} doesn't "
            f"match the broadcast shape {format_shape(full, 'numpy')}",
            "ValueError", shapes=(out, full))
    return out


def inplace(target: Shape, *others: Shape, op: str, dialect: Dialect) -> Result:
    """``x.add_(y)``, ``x += y``, ``x.addcmul_(a, b)``: the result must keep x's shape."""
    op = _op_name(op)
    target = tuple(target)
    others = tuple(tuple(s) for s in others)
    _check_arity(op, 1 + len(others))
    if dialect.is_numpy:
        return Result.of(_numpy_output_check((target, *others), target, dialect))
    if _is_legacy_torch(dialect):
        return _legacy_inplace(target, others, op, dialect)
    full = broadcast_shapes(target, *others, dialect=dialect).shape
    _torch_output_check(target, full)
    return Result.of(target)


def _legacy_expand(src: Shape, target: Shape) -> tuple[bool | None, str]:
    """Old THTensor expand of src to target: (fails?, its error text)."""
    if len(src) > len(target):
        return True, ("the number of sizes provided must be greater or equal to the number of "
                      "dimensions in the tensor")
    verdict: bool | None = False
    message = ""
    offset = len(target) - len(src)
    for i in range(len(target) - 1, -1, -1):
        size: Dim = src[i - offset] if i >= offset else 1
        same, one = eq(size, target[i]), is_one(size)
        if same is True or one is True:
            continue
        if same is False and one is False:
            return True, (f"The expanded size of the tensor ({target[i]}) must match the existing "
                          f"size ({size}) at non-singleton dimension {i}.")
        verdict = None
    return verdict, message


def _legacy_inplace(target: Shape, others: tuple[Shape, ...], op: str,
                    dialect: Dialect) -> Result:
    """Old PyTorch expanded each other operand to the target; FALLBACK_OPS fell
    back to 1-D when the element counts matched."""
    _legacy_refuses_scalars((target, *others), dialect)
    names = _operand_names(op, 1 + len(others))
    fallback = op in FALLBACK_OPS
    same_numel = _numels_equal((target, *others)) if fallback else False
    uncertain = False
    for name, other in zip(names[1:], others):
        fails, message = _legacy_expand(other, target)
        if fails is None:
            uncertain = True
            continue
        if not fails:
            continue
        if same_numel is True:
            if len(others) == 1:
                text = (f"{name} is not broadcastable to {names[0]}, but they have the same "
                        "number of elements.  ")
            else:
                text = (f"{', '.join(names[1:])} are not broadcastable to {names[0]}, but they all "
                        "have the same number of elements.  ")
            return Result.of(target, RuleWarning("legacy-fallback", text + _FALLBACK_TEXT))
        if same_numel is None:
            return Result.of(target)
        raise ShapeError("inplace", message, "RuntimeError", shapes=(target, other))
    warnings = []
    if fallback and not uncertain:
        for name, other in zip(names[1:], others):
            if dims_equal(target, other) is False and eq(numel(target), numel(other)) is True:
                warnings.append(RuleWarning("backcompat", f"{names[0]} and {name} {_BACKCOMPAT_TEXT}"))
    return Result.of(target, *warnings)


def out_param(inputs: tuple[Shape, ...], out: Shape, *, op: str, dialect: Dialect) -> Result:
    """``np.add(a, b, out=o)`` / ``torch.add(a, b, out=o)``.

    NumPy broadcasts out with the inputs and refuses to broadcast out itself;
    the result has out's shape. torch computes the result and resizes out to
    it, warning (kind "out-resize") when out had elements; old PyTorch
    resized silently.
    """
    op = _op_name(op)
    inputs = tuple(tuple(s) for s in inputs)
    out = tuple(out)
    _check_arity(op, len(inputs))
    if dialect.is_numpy:
        return Result.of(_numpy_output_check(inputs, out, dialect))
    result = pointwise(*inputs, op=op, dialect=dialect)
    shape = result.shape
    if _is_legacy_torch(dialect):
        return result
    if dims_equal(out, shape) is False and _certainly_differs(out, shape) \
            and eq(numel(out), 0) is False:
        text = _RESIZE_TEXT.format(old=format_shape(out, "torch"), new=format_shape(shape, "torch"))
        return result.with_warnings(RuleWarning("out-resize", text))
    return result


def _torch_resized(result: Result, out: Shape) -> Result:
    """torch resizes out= to the result: silently when out is empty, else with a warning."""
    shape = result.shape
    if _certainly_differs(out, shape) and eq(numel(out), 0) is False:
        text = _RESIZE_TEXT.format(old=format_shape(out, "torch"), new=format_shape(shape, "torch"))
        return result.with_warnings(RuleWarning("out-resize", text))
    return result


def unary_out(x: Shape, out: Shape, *, dialect: Dialect) -> Result:
    """``np.exp(x, out=o)`` / ``torch.exp(x, out=o)``: as out_param, with one input."""
    x, out = tuple(x), tuple(out)
    if dialect.is_numpy:
        return Result.of(_numpy_output_check((x,), out, dialect))
    if _is_legacy_torch(dialect):
        return Result.of(x)
    return _torch_resized(Result.of(x), out)


_NUMPY_REDUCING_UFUNC = {"sum": "add", "mean": "add", "prod": "multiply", "max": "maximum",
                         "min": "minimum", "amax": "maximum", "amin": "minimum", "all": "logical_and",
                         "any": "logical_or"}


def reduction_out(result: Result, out: Shape, *, op: str, dialect: Dialect) -> Result:
    """``np.sum(x, axis, out=o)``: NumPy writes the reduced array into out as it is, so out must
    have exactly the reduced shape; torch resizes out as for any op."""
    out = tuple(out)
    shape = tuple(result.shape)
    if dialect.is_torch:
        return result if _is_legacy_torch(dialect) else _torch_resized(result, out)
    if len(out) != len(shape):
        ufunc = _NUMPY_REDUCING_UFUNC.get(op, op)
        raise ShapeError("out", f"output parameter for reduction operation {ufunc} has the wrong "
                         f"number of dimensions: Found {len(out)} but expected {len(shape)}",
                         "ValueError", shapes=(out, shape))
    for axis, (o, r) in enumerate(zip(out, shape)):
        if eq(o, r) is False:
            if eq(o, 1) is True:
                raise ShapeError("out", f"output operand requires a reduction along dimension "
                                 f"{axis}, but the reduction is not enabled. The dimension size "
                                 "of 1 does not match the expected output shape.", "ValueError",
                                 shapes=(out, shape))
            raise ShapeError("out", "operands could not be broadcast together with remapped "
                             f"shapes: out {format_shape(out, 'numpy')} and the reduced "
                             f"{format_shape(shape, 'numpy')}", "ValueError", shapes=(out, shape))
    return Result.of(out)


def copy_into(dst: Shape, src: Shape, *, dialect: Dialect) -> Result:
    """``dst.copy_(src)`` / ``np.copyto(dst, src)``: src broadcasts to dst, dst keeps its shape."""
    dst, src = tuple(dst), tuple(src)
    if dialect.is_torch:
        return _torch_copy(dst, src, dialect)
    # NumPy drops src's leading length-1 dims beyond dst's rank, then broadcasts.
    stripped = src
    while len(stripped) > len(dst) and is_one(stripped[0]) is True:
        stripped = stripped[1:]
    if len(stripped) > len(dst) and is_one(stripped[0]) is None:
        return Result.of(dst)
    fails = len(stripped) > len(dst)
    offset = len(dst) - len(stripped)
    for i, size in enumerate(stripped if not fails else ()):
        same, one = eq(size, dst[i + offset]), is_one(size)
        if same is True or one is True:
            continue
        if same is False and one is False:
            fails = True
    if fails:
        raise ShapeError(
            "inplace",
            f"could not broadcast input array from shape {format_shape(stripped, 'numpy')} into "
            f"shape {format_shape(dst, 'numpy')}",
            "ValueError", shapes=(dst, src))
    return Result.of(dst)


def _torch_copy(dst: Shape, src: Shape, dialect: Dialect) -> Result:
    # copy_ runs through TensorIterator like an in-place binary op; it never had
    # the 1-D fallback, so the legacy dialect only differs in refusing 0-dim.
    if _is_legacy_torch(dialect):
        _legacy_refuses_scalars((dst, src), dialect)
    full = broadcast_shapes(dst, src, dialect=dialect).shape
    _torch_output_check(dst, full)
    return Result.of(dst)


def masked_fill(x: Shape, mask: Shape, *, dialect: Dialect, inplace: bool = False,
                value_ndim: int | None = 0) -> Result:
    """``x.masked_fill(mask, v)`` and ``x.masked_fill_(mask, v)``; NumPy's
    nearest relative, ``np.putmask(x, mask, v)``, only needs equal sizes.

    Out of place, torch broadcasts mask with x (mask first); in place, mask
    must broadcast to x without changing it. A tensor value must be 0-dim.
    """
    x, mask = tuple(x), tuple(mask)
    if dialect.is_numpy:
        if eq(numel(x), numel(mask)) is False:
            raise ShapeError("inplace", "putmask: mask and data must be the same size",
                             "ValueError", shapes=(x, mask))
        return Result.of(x)
    value_error = ShapeError(
        "argument",
        f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
        f"{value_ndim} dimension(s).", "RuntimeError")
    if not inplace:
        result = broadcast_shapes(mask, x, dialect=dialect)
        if value_ndim:
            raise value_error
        return result
    if value_ndim:
        raise value_error
    if _is_legacy_torch(dialect):
        return _legacy_masked_fill_(x, mask, dialect)
    full = broadcast_shapes(x, mask, dialect=dialect).shape
    _torch_output_check(x, full)
    return Result.of(x)


def _legacy_masked_fill_(x: Shape, mask: Shape, dialect: Dialect) -> Result:
    # Old masked_fill_ expanded mask to self with the 1-D fallback (its warning
    # is seen in the wild: "mask is not broadcastable to self, ...").
    _legacy_refuses_scalars((x, mask), dialect)
    fails, message = _legacy_expand(mask, x)
    if not fails:
        return Result.of(x)
    same = eq(numel(x), numel(mask))
    if same is True:
        return Result.of(x, RuleWarning(
            "legacy-fallback",
            "mask is not broadcastable to self, but they have the same number of elements.  "
            + _FALLBACK_TEXT))
    if same is None:
        return Result.of(x)
    raise ShapeError("inplace", message, "RuntimeError", shapes=(x, mask))


__all__ = [
    "FALLBACK_OPS", "POINTWISE_BINARY", "POINTWISE_OPS", "TERNARY_OPS", "pointwise", "inplace",
    "out_param", "unary_out", "reduction_out", "copy_into", "masked_fill", "inplace_dtype",
]
