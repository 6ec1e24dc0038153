"""Error texts several rule families share, spelled as the libraries print them."""

from __future__ import annotations

from typing import Sequence

from ..verdicts import ShapeError


def dim_range_error(dim: int, ndim: int) -> ShapeError:
    """torch's maybe_wrap_dim failure (ndim already at least 1)."""
    return ShapeError("axis", f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                      f"but got {dim})", "IndexError", dim=dim)


def torch_list(values: Sequence) -> str:
    """How ATen prints an IntArrayRef: ``[1, 2]``."""
    return "[" + ", ".join(str(v) for v in values) + "]"


TORCH_VIEW_STRIDE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead.")
"""torch's refusal to ``.view`` a layout it cannot regroup without copying."""

NUMPY_SHAPE_IN_PLACE = ("Incompatible shape for in-place modification. Use `.reshape()` to make "
                        "a copy with the desired shape.")
"""NumPy's refusal of ``a.shape = s`` where the new shape needs a copy."""
