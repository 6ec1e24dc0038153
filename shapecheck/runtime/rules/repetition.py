"""Shape rules of repetition: repeat, repeat_interleave and tile, per library.
"""

from __future__ import annotations

from ..dialects import Dialect
from ..dims import Dim, Shape, eq, mul, numel
from ..verdicts import Result, ShapeError
from .axes import with_dim, wrap_axis
from .messages import torch_list

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
        if not shape and dialect.is_numpy:
            shape = (1,)  # NumPy's axis check reads a 0-d array as 1-d: axis 0 and -1 are valid
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


__all__ = ["repeat", "repeat_interleave", "tile"]
