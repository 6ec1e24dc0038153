"""The reductions SC103 reports on arrays of unknown library: the first argument is the axis
and keepdims=True keeps it, in NumPy and in torch alike (its certain fix relies on both)."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime.rules.reductions import AXIS_FIRST_REDUCTIONS


@pytest.mark.parametrize("op", sorted(AXIS_FIRST_REDUCTIONS))
def test_axis_first_and_keepdims_in_both_libraries(op):
    torch = pytest.importorskip("torch")
    x = np.arange(24.0).reshape(2, 3, 4) + 1
    t = torch.tensor(x)
    assert getattr(x, op, None) is None or getattr(x, op)(1).shape == (2, 4)
    assert getattr(np, op)(x, 1, keepdims=True).shape == (2, 1, 4)
    assert getattr(t, op)(1).shape == (2, 4)
    assert getattr(t, op)(1, keepdims=True).shape == (2, 1, 4)
