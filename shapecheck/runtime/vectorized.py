"""Broadcast, in-place and fallback verdicts for N concrete shape pairs at once, as NumPy array operations.

A batch of N shapes is an (N, D) signed-integer array, right-aligned: row i
holds shape i's dims in its last ``ndim`` columns and -1 (MISSING) in the
leading columns it does not have, so column j of two batches of the same
width lines up the dims that broadcasting compares. Only concrete sizes are
supported; symbolic dims stay with the scalar rules in rules.broadcast.

The array is column-major and uses the narrowest of int16 / int32 / int64
that holds every size: the work is memory-bound, so contiguous int16
columns, processed in cache-sized blocks of rows, run several times faster
than row-major int64 (where reducing along short rows and streaming every
op from memory dominated).

This module is the vectorized twin DESIGN.md allows, not a second set of
semantics: tests check it against rules.broadcast pair by pair and against
real NumPy and PyTorch.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from itertools import chain
from typing import Iterable, Sequence

import numpy as np

from .dialects import Dialect, get_dialect

MISSING = -1
"""Marks a leading dim a shape does not have."""

FALLBACK_NONE = 0
"""No fallback: the pair broadcasts, numels differ, the dialect is NumPy, or
(torch-legacy) an operand is 0-d, which old PyTorch refused outright."""
FALLBACK_WARNING = 1
"""torch-legacy: not broadcastable, equal numel; runs viewed as 1-D with a deprecation warning."""
FALLBACK_ERROR = 2
"""torch: not broadcastable, equal numel; the deprecated fallback is gone, so it is an error."""

# Products of dims above this may not fit int64; those rows are recomputed
# with Python ints so equal-numel verdicts stay exact.
_NUMEL_EXACT_LIMIT = float(2**62)


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _storage_dtype(largest: int) -> type:
    """The narrowest signed integer type holding every size (and -1)."""
    for dtype in (np.int16, np.int32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    return np.int64


@dataclass(frozen=True, eq=False)
class ShapeBatch:
    """N concrete shapes, right-aligned in an (N, D) array with -1 for missing leading dims.

    Any integer array is accepted; it is validated and stored read-only,
    column-major, in the narrowest signed type that holds its sizes.
    """

    dims: np.ndarray

    def __post_init__(self) -> None:
        dims = np.asarray(self.dims)
        if dims.ndim != 2:
            raise ValueError(f"a shape batch is a 2-D (N, D) array, got {dims.ndim}-D")
        if dims.size and not np.issubdtype(dims.dtype, np.integer):
            raise ValueError(f"a shape batch holds integers, got dtype {dims.dtype}")
        low = int(dims.min()) if dims.size else 0
        largest = int(dims.max()) if dims.size else 0
        if low < MISSING:
            row = int(np.argwhere(dims < MISSING)[0, 0])
            raise ValueError(f"shape {row} has a negative dimension: {dims[row].tolist()}")
        if largest > np.iinfo(np.int64).max:
            raise ValueError("a dimension does not fit in int64")
        stored = np.array(dims, dtype=_storage_dtype(largest), order="F", copy=True)
        # Missing dims may only lead: once a row has a dim, every later column has one.
        misplaced = np.zeros(len(stored), dtype=bool)
        for j in range(1, stored.shape[1]):
            misplaced |= (stored[:, j - 1] != MISSING) & (stored[:, j] == MISSING)
        if misplaced.any():
            row = int(np.argmax(misplaced))
            raise ValueError(f"shape {row} has a missing dim (-1) after a present one: "
                             f"{stored[row].tolist()}")
        object.__setattr__(self, "dims", _readonly(stored))

    @staticmethod
    def _trusted(dims: np.ndarray) -> "ShapeBatch":
        """Wrap a column-major array this module built and knows to be valid, without re-checking."""
        batch = object.__new__(ShapeBatch)
        object.__setattr__(batch, "dims", _readonly(dims))
        return batch

    @staticmethod
    def from_shapes(shapes: Iterable[Sequence[int]], width: int | None = None) -> "ShapeBatch":
        """A batch from tuples of ints; ``width`` (at least the largest ndim) sets D."""
        shapes = shapes if isinstance(shapes, list) else list(shapes)
        try:
            lengths = np.fromiter(map(len, shapes), dtype=np.int64, count=len(shapes))
            # operator.index refuses floats and strings that int() would quietly accept.
            flat = np.fromiter(map(operator.index, chain.from_iterable(shapes)), dtype=np.int64,
                               count=int(lengths.sum()))
        except (TypeError, OverflowError) as error:
            raise ValueError(f"shapes must be sequences of integer sizes ({error})") from None
        if (flat < 0).any():
            where = int(np.searchsorted(np.cumsum(lengths), np.argmax(flat < 0), side="right"))
            raise ValueError(f"negative dimension in shape {tuple(shapes[where])}")
        return ShapeBatch.from_flat(lengths, flat, width)

    @staticmethod
    def from_flat(lengths: np.ndarray, flat: np.ndarray, width: int | None = None) -> "ShapeBatch":
        """A batch from every shape's ndim and all their dims end to end (non-negative ints)."""
        lengths = np.asarray(lengths, dtype=np.int64)
        count = len(lengths)
        longest = int(lengths.max()) if count else 0
        width = longest if width is None else width
        if width < longest:
            raise ValueError(f"width {width} is smaller than the largest ndim {longest}")
        dims = np.full((count, width), MISSING, dtype=np.int64)
        rows = np.repeat(np.arange(count), lengths)
        starts = np.cumsum(lengths) - lengths
        position = np.arange(len(flat)) - starts[rows]
        dims[rows, width - lengths[rows] + position] = flat
        return ShapeBatch(dims)

    @property
    def width(self) -> int:
        """D, the number of columns (the largest ndim the batch can hold)."""
        return int(self.dims.shape[1])

    @property
    def ndim(self) -> np.ndarray:
        """Each shape's number of dims, shape (N,)."""
        return (self.dims != MISSING).sum(axis=1)

    def __len__(self) -> int:
        return int(self.dims.shape[0])

    def shape(self, i: int) -> tuple[int, ...]:
        """Shape ``i`` as a tuple of ints."""
        row = self.dims[i]
        return tuple(int(d) for d in row[row != MISSING])

    def to_shapes(self) -> list[tuple[int, ...]]:
        return [tuple(d for d in row if d != MISSING) for row in self.dims.tolist()]

    def widened(self, width: int) -> "ShapeBatch":
        """The same shapes in ``width`` columns (>= the current width)."""
        if width < self.width:
            raise ValueError(f"cannot narrow a batch of width {self.width} to {width}")
        out = np.full((len(self), width), MISSING, dtype=self.dims.dtype, order="F")
        out[:, width - self.width:] = self.dims
        return ShapeBatch._trusted(out)

    def as_dtype(self, dtype: type) -> "ShapeBatch":
        """The same shapes stored in a wider ``dtype``."""
        if self.dims.dtype == dtype:
            return self
        return ShapeBatch._trusted(self.dims.astype(dtype, order="F"))


@dataclass(frozen=True, eq=False)
class BroadcastVerdicts:
    """The verdicts for N pairs (a[i], b[i]); every array has N rows and is read-only.

    broadcastable: the pair broadcasts under the dialect (as rules.broadcast.broadcast_shapes).
    result: the broadcast shapes, right-aligned; rows that do not broadcast are all -1.
    failing_index: the last dim that cannot broadcast, counted from the left of the
        broadcast result (torch's "at non-singleton dimension k", broadcast_pair's index);
        -1 when broadcastable, or when torch-legacy refused a 0-d operand (no dim failed).
        int8 (int64 for 127 columns or more).
    inplace_ok: the result equals a's shape, so ``a += b`` / ``a.add_(b)`` keeps a's shape.
    fallback: FALLBACK_NONE / FALLBACK_WARNING / FALLBACK_ERROR for torch's deprecated 1-D
        pointwise fallback case (not broadcastable but equal numel), as rules.pointwise
        has it for FALLBACK_OPS; torch-legacy refuses 0-d operands outright (an error).
    inplace_fallback: the same codes for ``a.add_(b)``: the in-place op cannot keep a's
        shape but the numels are equal (old PyTorch then viewed both as 1-D).
    backcompat: broadcastable, equal numel and different shapes (the old 1-D behaviour
        would have given another result shape).
    """

    dialect: Dialect
    broadcastable: np.ndarray
    result: ShapeBatch
    failing_index: np.ndarray
    inplace_ok: np.ndarray
    fallback: np.ndarray
    inplace_fallback: np.ndarray
    backcompat: np.ndarray

    def __len__(self) -> int:
        return int(self.broadcastable.shape[0])


# Rows are processed in blocks small enough that a block's columns and scratch
# arrays stay in cache; over whole 1M-row columns every op streamed from memory
# and ran several times slower.
_BLOCK_ROWS = 1 << 16


@dataclass(frozen=True, eq=False)
class _Outputs:
    """The per-row verdict arrays a block writes into (all length N)."""

    broadcastable: np.ndarray
    failing_index: np.ndarray
    result: np.ndarray
    inplace_ok: np.ndarray
    same_shape: np.ndarray
    equal_numel: np.ndarray
    zero_dim: np.ndarray

    def rows(self, lo: int, hi: int) -> "_Outputs":
        return _Outputs(*(getattr(self, f)[lo:hi] for f in self.__dataclass_fields__))


def _verdict_block(x_dims: np.ndarray, y_dims: np.ndarray, out: _Outputs, legacy_torch: bool) -> None:
    """Fill ``out`` for one block of rows; x_dims and y_dims are column-major slices."""
    n, width = x_dims.shape
    dtype = x_dims.dtype
    counter = out.failing_index.dtype.type
    broadcastable, result_is_a, same_shape = out.broadcastable, out.inplace_ok, out.same_shape
    broadcastable.fill(True)
    result_is_a.fill(True)
    same_shape.fill(True)
    last_failing = out.failing_index  # 1 + the last column that does not broadcast, for now
    last_failing.fill(0)
    both_missing = np.zeros(n, dtype=counter)  # leading columns neither shape has
    numel_x, numel_y = np.ones(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    size_x, size_y, low = (np.empty(n, dtype=dtype) for _ in range(3))
    ok, flag = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
    for j in range(width):
        x, y, column = x_dims[:, j], y_dims[:, j], out.result[:, j]  # contiguous views
        # abs maps a missing dim (-1) to 1, which is how it broadcasts.
        np.abs(x, out=size_x)
        np.abs(y, out=size_y)
        np.equal(size_x, size_y, out=ok)
        ok |= np.equal(size_x, 1, out=flag)
        ok |= np.equal(size_y, 1, out=flag)
        broadcastable &= ok
        # Columns run left to right, so the maximum keeps the last failure.
        np.maximum(last_failing, np.logical_not(ok, out=flag) * counter(j + 1), out=last_failing)
        # Compatible dims give the larger, unless one is 0 (then 0). On the raw
        # dims a missing side (-1) yields the other's dim, and -1 when both miss.
        np.maximum(x, y, out=column)
        column *= np.not_equal(np.minimum(x, y, out=low), 0, out=flag)
        both_missing += np.equal(column, MISSING, out=flag)
        result_is_a &= np.equal(column, x, out=flag)
        same_shape &= np.equal(x, y, out=flag)
        numel_x *= size_x
        numel_y *= size_y
    np.equal(numel_x, numel_y, out=out.equal_numel)

    # Like broadcast_pair (and torch's infer_size), report the last clashing dim,
    # counted from the left of the result, which starts after the columns both lack.
    # Broadcastable rows have last_failing 0, so masking both_missing leaves -1.
    both_missing *= np.logical_not(broadcastable, out=flag)
    last_failing -= 1
    last_failing -= both_missing
    if legacy_torch:
        # Pre-broadcasting torch: a tensor with no dims broadcasts with nothing.
        if width:
            zero_dim = np.equal(x_dims[:, -1], MISSING, out=out.zero_dim)
            zero_dim |= np.equal(y_dims[:, -1], MISSING, out=flag)
        else:
            zero_dim = out.zero_dim
            zero_dim.fill(True)
        broadcastable &= np.logical_not(zero_dim, out=flag)
        last_failing[zero_dim] = -1
    result_is_a &= broadcastable
    # Rows that do not broadcast have no result: (d + 1) * 0 - 1 = -1, with
    # in-place arithmetic on contiguous columns (masked stores were slower).
    for j in range(width):
        column = out.result[:, j]
        column += 1
        column *= broadcastable
        column -= 1


def _fix_wrapped_numels(a: ShapeBatch, b: ShapeBatch, largest: int, equal: np.ndarray) -> None:
    """Recompute with Python ints the equal-numel verdicts whose int64 products may have wrapped."""
    if largest <= 1 or a.width * np.log2(largest) < 62:
        return
    sizes_a = np.abs(a.dims).astype(np.float64).prod(axis=1)
    sizes_b = np.abs(b.dims).astype(np.float64).prod(axis=1)
    for i in np.flatnonzero((sizes_a > _NUMEL_EXACT_LIMIT) | (sizes_b > _NUMEL_EXACT_LIMIT)):
        exact_a = exact_b = 1
        for d in a.shape(int(i)):
            exact_a *= d
        for d in b.shape(int(i)):
            exact_b *= d
        equal[i] = exact_a == exact_b


def broadcast_verdicts(a: ShapeBatch, b: ShapeBatch, dialect: Dialect | str) -> BroadcastVerdicts:
    """Broadcast, in-place, fallback and backcompat verdicts for every pair (a[i], b[i])."""
    if isinstance(dialect, str):
        dialect = get_dialect(dialect)
    if len(a) != len(b):
        raise ValueError(f"batches differ in length: {len(a)} and {len(b)}")
    width = max(a.width, b.width)
    dtype = np.promote_types(a.dims.dtype, b.dims.dtype).type
    a = a.widened(width).as_dtype(dtype) if a.width != width else a.as_dtype(dtype)
    b = b.widened(width).as_dtype(dtype) if b.width != width else b.as_dtype(dtype)
    n = len(a)
    legacy_torch = dialect.is_torch and dialect.legacy

    out = _Outputs(
        broadcastable=np.empty(n, dtype=bool),
        failing_index=np.empty(n, dtype=np.int8 if width < 127 else np.int64),
        result=np.empty((n, width), dtype=dtype, order="F"),
        inplace_ok=np.empty(n, dtype=bool),
        same_shape=np.empty(n, dtype=bool),
        equal_numel=np.empty(n, dtype=bool),
        zero_dim=np.zeros(n, dtype=bool),
    )
    for lo in range(0, n, _BLOCK_ROWS):
        hi = min(lo + _BLOCK_ROWS, n)
        _verdict_block(a.dims[lo:hi], b.dims[lo:hi], out.rows(lo, hi), legacy_torch)

    largest = max(int(a.dims.max()) if a.dims.size else 0, int(b.dims.max()) if b.dims.size else 0)
    _fix_wrapped_numels(a, b, largest, out.equal_numel)
    broadcastable, inplace_ok, equal_numel = out.broadcastable, out.inplace_ok, out.equal_numel

    fallback = np.full(n, FALLBACK_NONE, dtype=np.int8)
    inplace_fallback = np.full(n, FALLBACK_NONE, dtype=np.int8)
    if dialect.is_torch:
        code = FALLBACK_WARNING if dialect.legacy else FALLBACK_ERROR
        # Old PyTorch had no 0-d tensors; with one, it is an error, not a fallback.
        candidates = equal_numel & ~out.zero_dim
        fallback[~broadcastable & candidates] = code
        inplace_fallback[~inplace_ok & candidates] = code

    backcompat = broadcastable & equal_numel & ~out.same_shape

    return BroadcastVerdicts(
        dialect=dialect,
        broadcastable=_readonly(broadcastable),
        result=ShapeBatch._trusted(out.result),
        failing_index=_readonly(out.failing_index),
        inplace_ok=_readonly(inplace_ok),
        fallback=_readonly(fallback),
        inplace_fallback=_readonly(inplace_fallback),
        backcompat=_readonly(backcompat),
    )


def broadcast_verdicts_of(pairs: Iterable[tuple[Sequence[int], Sequence[int]]],
                          dialect: Dialect | str) -> BroadcastVerdicts:
    """Verdicts for a list of (shape_a, shape_b) tuples; a convenience over ShapeBatch.from_shapes."""
    pairs = list(pairs)
    a = ShapeBatch.from_shapes([x for x, _ in pairs])
    b = ShapeBatch.from_shapes([y for _, y in pairs])
    return broadcast_verdicts(a, b, dialect)


# ---------------------------------------------------------------- matmul batching and reductions
#
# These verdicts are ok masks and result shapes only: the words of an error
# (which dim, the library's message) come from the scalar rules for the rows
# that fail, so there is one source of each message.


def right_aligned(dims: np.ndarray) -> ShapeBatch:
    """Rows whose present dims (not -1) may have holes anywhere, packed to the right in order."""
    dims = np.asarray(dims)
    present = dims != MISSING
    # A stable sort of the "present" flags moves the holes to the front and keeps the dims' order.
    order = np.argsort(present, axis=1, kind="stable")
    packed = np.take_along_axis(dims, order, axis=1)
    return ShapeBatch(np.asfortranarray(packed))


def matmul_verdicts(a: ShapeBatch, b: ShapeBatch) -> tuple[np.ndarray, ShapeBatch]:
    """``a[i] @ b[i]`` for every row, as np.matmul and torch.matmul agree on its shape.

    Returns (ok, result); rows that fail hold -1 everywhere. Both libraries
    refuse a 0-d operand, contract a's last dim with b's second to last (b's
    only dim when b is 1-D), drop the 1 a 1-D operand was promoted with, and
    broadcast the dims before the last two.
    """
    if len(a) != len(b):
        raise ValueError(f"batches differ in length: {len(a)} and {len(b)}")
    width = max(a.width, b.width, 2)
    dtype = np.promote_types(a.dims.dtype, b.dims.dtype).type
    x = a.widened(width).as_dtype(dtype).dims
    y = b.widened(width).as_dtype(dtype).dims
    x_vector = x[:, -2] == MISSING  # a is 1-D (or 0-d)
    y_vector = y[:, -2] == MISSING
    ok = (x[:, -1] != MISSING) & (y[:, -1] != MISSING)
    contracted_b = np.where(y_vector, y[:, -1], y[:, -2])
    ok &= x[:, -1] == contracted_b
    batch = broadcast_verdicts(ShapeBatch._trusted(np.asfortranarray(x[:, :-2])),
                               ShapeBatch._trusted(np.asfortranarray(y[:, :-2])), "numpy")
    ok &= batch.broadcastable
    n_dim = np.where(x_vector, MISSING, x[:, -2])
    m_dim = np.where(y_vector, MISSING, y[:, -1])
    out = np.concatenate([batch.result.dims, n_dim[:, None], m_dim[:, None]], axis=1)
    out[~ok] = MISSING
    return _readonly(ok), right_aligned(out)


def reduce_verdicts(a: ShapeBatch, axes: Sequence[int] | None, keepdims: bool,
                    scalar_axis: bool = False) -> tuple[np.ndarray, ShapeBatch]:
    """A reduction (sum, mean, prod...) of every row over ``axes`` (None: all).

    An axis must lie in [-ndim, ndim). ``scalar_axis``: a 0-d operand also
    takes axis 0 or -1, as torch's reductions do, and NumPy's ufunc reductions
    (sum, prod) given one int axis (not mean, not a tuple). An axis named
    twice (0 and -2 of a 2-D row) is an error in both libraries.
    """
    dims = a.dims
    ndim = a.ndim
    n, width = dims.shape
    if axes is None:
        out = np.where(dims == MISSING, MISSING, 1) if keepdims else \
            np.full((n, 0), MISSING, dtype=dims.dtype)
        return _readonly(np.ones(n, dtype=bool)), ShapeBatch(np.asfortranarray(out))
    ok = np.ones(n, dtype=bool)
    out = np.array(dims, order="C", copy=True)
    rows = np.arange(n)
    scalar = ndim == 0
    for axis in axes:
        inside = (axis < ndim) & (axis >= -ndim)
        if scalar_axis:
            inside |= scalar & (axis in (0, -1))  # the 0-d operand is treated as if it had one dim
        ok &= inside
        column = np.full(n, width + axis) if axis < 0 else width - ndim + axis
        column = np.clip(column, 0, max(width - 1, 0))
        if width:
            target = rows[inside & ~scalar]
            out[target, column[target]] = 1 if keepdims else MISSING
    for i, first in enumerate(axes):
        for second in axes[i + 1:]:
            ok &= (first - second) % np.maximum(ndim, 1) != 0
    for i, first in enumerate(axes):
        for second in axes[i + 1:]:
            ok &= (first - second) % np.maximum(ndim, 1) != 0
    out[~ok] = MISSING
    return _readonly(ok), right_aligned(out)


__all__ = [
    "MISSING", "FALLBACK_NONE", "FALLBACK_WARNING", "FALLBACK_ERROR", "ShapeBatch",
    "BroadcastVerdicts", "broadcast_verdicts", "broadcast_verdicts_of", "matmul_verdicts",
    "reduce_verdicts", "right_aligned",
]
