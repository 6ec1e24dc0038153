"""Shape rules of the broadcast views: torch's expand, broadcast_to and broadcast_arrays.

The dim-by-dim broadcasting itself lives in rules.broadcast; these add each
library's view-specific checks and messages.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import Dialect
from ..dims import Dim, Shape, eq, format_shape, is_one
from ..verdicts import Result, ShapeError
from .axes import torch_scalar_type
from .broadcast import broadcast_pair, broadcast_shapes
from .messages import torch_list

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


__all__ = ["expand", "broadcast_to", "broadcast_arrays"]
