"""Shape rules of torch's gather/scatter family: scatter(_add/_reduce), index_select, index_add and index_copy.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import Dialect
from ..dims import Dim, Maybe, Shape, eq, is_zero, le, numel
from ..verdicts import Result, ShapeError
from .axes import (
    nonempty_size,
    normalize_numpy_axis,
    torch_scalar_type,
    with_dim,
    wrap_torch_dim,
)
from .messages import dim_range_error, torch_list

# ---------------------------------------------------------------------------
# Gather / scatter family (torch's own rules; the 2017 notes' broadcasting
# never shipped: index must have self's rank and be no larger apart from dim).
# ---------------------------------------------------------------------------


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


__all__ = ["scatter", "index_select", "index_add", "index_copy"]
