"""Which reductions take keepdims (NumPy) / keepdim (torch) and give one array: checked on the real libraries."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime.rules.reductions import REDUCE_OPS, keepdims_keyword


def numpy_function(op: str):
    return np.linalg.norm if op == "norm" else getattr(np, op, None)


@pytest.mark.parametrize("op", sorted(REDUCE_OPS))
def test_numpy_keyword_is_accepted_and_keeps_the_axis_exactly_when_claimed(op):
    keyword, function = keepdims_keyword(op, "numpy"), numpy_function(op)
    x = np.arange(1.0, 13.0).reshape(3, 4)
    if keyword is None:
        assert function is None  # only an op NumPy does not have goes without the keyword
        return
    assert keyword == "keepdims"
    result = function(x, axis=1, **{keyword: True})
    assert isinstance(result, np.ndarray) and result.shape == (3, 1)


@pytest.mark.parametrize("op", sorted(REDUCE_OPS))
def test_torch_keyword_is_accepted_and_gives_one_tensor_exactly_when_claimed(op):
    torch = pytest.importorskip("torch")
    keyword, function = keepdims_keyword(op, "torch"), getattr(torch, op, None)
    x = torch.arange(1.0, 13.0).reshape(3, 4)
    if keyword is None:
        if function is None:
            return
        try:
            result = function(x, 1, keepdim=True)
        except TypeError:
            return  # no keepdim at all (count_nonzero)
        assert isinstance(result, tuple)  # (values, indices): no single array to keep dims of
        return
    assert keyword == "keepdim"
    result = function(x, dim=1, **{keyword: True})
    assert isinstance(result, torch.Tensor) and tuple(result.shape) == (3, 1)
