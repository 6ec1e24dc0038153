"""What the linear-algebra rules share: NumPy's gufunc loop dims and core-dim errors, and the message formats.

The lowest of the linear-algebra rule modules (products, contractions,
lapack): they import from here, never the other way round.
"""

from __future__ import annotations

from typing import Sequence

from ..dims import Dim, Shape, eq
from ..verdicts import ShapeError
from .broadcast import broadcast_pair

# --------------------------------------------------------------------------- formatting


def np_shape(shape: Shape) -> str:
    """NumPy's shape text in error messages: ``(2,3)``, ``(3,)``, ``()``."""
    body = [str(d) for d in shape]
    if len(body) == 1:
        return f"({body[0]},)"
    return "(" + ",".join(body) + ")"


def np_remap(dims: Sequence[Dim | None]) -> str:
    """An nditer remapped shape: None is ``newaxis``; leading newaxes are not printed.

    nditer writes the one-element form ``(3,)`` only when the remapped shape
    has a single axis in all, counting the newaxes it left out.
    """
    items = list(dims)
    total = len(items)
    while items and items[0] is None:
        items.pop(0)
    if not items:
        return "()"
    body = ",".join("newaxis" if d is None else str(d) for d in items)
    return f"({body},)" if total == 1 else f"({body})"


def shape_error(kind: str, message: str, exc_type: str, *shapes: Shape) -> ShapeError:
    return ShapeError(kind, message, exc_type, shapes=tuple(tuple(s) for s in shapes))


def differ(a: Dim, b: Dim) -> bool:
    """True only when two dims are certainly different."""
    return eq(a, b) is False


# --------------------------------------------------------------------------- NumPy gufuncs


def np_gufunc_loop(operands: Sequence[tuple[Shape, int]], out_core: Shape, kind: str) -> Shape:
    """Broadcast the loop (batch) dims of a gufunc's operands, NumPy's nditer message on failure.

    operands are (shape, number of core dims); out_core the output's core dims,
    which nditer prints as the "requested shape".
    """
    batches = [tuple(s[:len(s) - ncore]) for s, ncore in operands]
    acc: Shape = ()
    for batch in batches:
        out, _ = broadcast_pair(acc, batch)
        if out is None:
            parts = []
            for (s, _n), b in zip(operands, batches):
                parts.append(f"{np_shape(s)}->{np_remap(tuple(b) + (None,) * len(out_core))} ")
            requested = "(" + ",".join(str(d) for d in out_core) + ")"
            message = ("operands could not be broadcast together with remapped shapes "
                       "[original->remapped]: " + "".join(parts)
                       + f" and requested shape {requested}")
            raise shape_error(kind, message, "ValueError", *(s for s, _ in operands))
        acc = out
    return acc


def np_core_too_small(name: str, index: int, shape: Shape, signature: str, needed: int,
                       kind: str) -> ShapeError:
    return shape_error(kind, f"{name}: Input operand {index} does not have enough dimensions (has "
                f"{len(shape)}, gufunc core with signature {signature} requires {needed})",
                "ValueError", shape)


def np_core_mismatch(name: str, index: int, core_dim: int, signature: str, got: Dim,
                      expected: Dim, kind: str, *shapes: Shape) -> ShapeError:
    return shape_error(kind, f"{name}: Input operand {index} has a mismatch in its core dimension "
                f"{core_dim}, with gufunc signature {signature} (size {got} is different from "
                f"{expected})", "ValueError", *shapes)


def torch_size(shape: Shape, dim: int) -> Dim:
    """``t.size(dim)`` with torch's IndexError for a missing dim."""
    nd = len(shape)
    if nd == 0:
        raise shape_error("matmul", f"Dimension specified as {dim} but tensor has no dimensions",
                   "IndexError", shape)
    if not -nd <= dim < nd:
        raise shape_error("matmul", f"Dimension out of range (expected to be in range of [{-nd}, "
                   f"{nd - 1}], but got {dim})", "IndexError", shape)
    return shape[dim]
