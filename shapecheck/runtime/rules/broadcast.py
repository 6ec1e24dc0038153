"""Broadcasting: the one implementation every pointwise, in-place and fused rule uses.

A rule raises ShapeError only when the failure is certain for every value of
the symbolic sizes involved; when it depends on them, the result carries the
dims it can know and UNKNOWN for the rest.
"""

from __future__ import annotations

from ..dialects import Dialect
from ..dims import UNKNOWN, Dim, Shape, eq, format_shape, is_one
from ..verdicts import Result, ShapeError


def broadcast_dim(a: Dim, b: Dim) -> tuple[Dim | None, bool]:
    """Broadcast two aligned dims: (result, certain_error).

    Returns (dim, False) when they broadcast (dim may be UNKNOWN when it
    depends on sizes), (None, True) when they certainly do not.
    """
    if eq(a, b) is True:
        return a, False
    one_a, one_b = is_one(a), is_one(b)
    if one_a is True:
        return b, False
    if one_b is True:
        return a, False
    if eq(a, b) is False and one_a is False and one_b is False:
        return None, True
    # Not certain either way. If one side is surely not 1, a valid broadcast
    # must produce it.
    if one_a is False:
        return a, False
    if one_b is False:
        return b, False
    return UNKNOWN, False


def _mismatch_error(shapes: tuple[Shape, ...], left: Shape, right: Shape, index: int,
                    dialect: Dialect) -> ShapeError:
    """The library's own words for shapes that cannot broadcast.

    left is the shape accumulated so far (torch's "tensor a"), right the next
    operand ("tensor b"), index the failing position in the output.
    """
    ndim = max(len(left), len(right))
    da = left[index - (ndim - len(left))] if index >= ndim - len(left) else 1
    db = right[index - (ndim - len(right))] if index >= ndim - len(right) else 1
    if dialect.is_torch:
        message = (f"The size of tensor a ({da}) must match the size of tensor b ({db}) "
                   f"at non-singleton dimension {index}")
        return ShapeError("broadcast", message, "RuntimeError", dim=index - ndim, shapes=shapes)
    listed = " ".join(format_shape(s, "numpy") for s in shapes)
    message = f"operands could not be broadcast together with shapes {listed} "
    return ShapeError("broadcast", message, "ValueError", dim=index - ndim, shapes=shapes)


def broadcast_pair(a: Shape, b: Shape) -> tuple[Shape | None, int | None]:
    """Broadcast two shapes: (result, None), or (None, failing output index)."""
    ndim = max(len(a), len(b))
    pa = (1,) * (ndim - len(a)) + tuple(a)
    pb = (1,) * (ndim - len(b)) + tuple(b)
    out: list[Dim] = []
    # Scan from the trailing dim, as torch's infer_size does: when several dims
    # clash, its message names the last one.
    for i in range(ndim - 1, -1, -1):
        d, failed = broadcast_dim(pa[i], pb[i])
        if failed:
            return None, i
        out.append(d)
    return tuple(reversed(out)), None


def broadcast_shapes(*shapes: Shape, dialect: Dialect) -> Result:
    """The broadcast of all operands, left to right as the libraries do.

    torch-legacy also requires every operand to have at least one dimension,
    as PyTorch did when the broadcasting notes were written.
    """
    shapes = tuple(tuple(s) for s in shapes)
    if dialect.is_torch and dialect.legacy:
        for s in shapes:
            if len(s) == 0 and len(shapes) > 1:
                raise ShapeError(
                    "broadcast",
                    "tensors with no dimensions are not broadcastable "
                    "(each tensor must have at least one dimension)",
                    "RuntimeError", shapes=shapes)
    acc: Shape = shapes[0] if shapes else ()
    for s in shapes[1:]:
        out, failed = broadcast_pair(acc, s)
        if out is None:
            raise _mismatch_error(shapes, acc, s, failed, dialect)
        acc = out
    return Result.of(acc)


def broadcastable(a: Shape, b: Shape) -> bool | None:
    """Three-valued: do two shapes broadcast?"""
    out, failed = broadcast_pair(a, b)
    if out is None:
        return False
    # broadcast_pair only fails when certain; when it succeeded with unknowns,
    # the answer may still be no.
    ndim = max(len(a), len(b))
    pa = (1,) * (ndim - len(a)) + tuple(a)
    pb = (1,) * (ndim - len(b)) + tuple(b)
    for x, y in zip(pa, pb):
        if eq(x, y) is not True and is_one(x) is not True and is_one(y) is not True:
            return None
    return True
