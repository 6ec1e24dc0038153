"""lstsq in both libraries: the solution, residuals, rank and singular values have the shapes
and dtypes the real library gives (residuals the values decide are left unknown), and the
calls the library refuses are refused."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime import ops
from shapecheck.runtime.arguments import ArrayArg
from shapecheck.runtime.dialects import get_dialect
from shapecheck.runtime.dims import fits
from shapecheck.runtime.optable import result_dtypes
from shapecheck.runtime.verdicts import ShapeError

PAIRS = [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 5), (3,)), ((3, 5), (3, 2)), ((5, 3), (4,)),
         ((5, 3), (5, 2, 1)), ((2, 5, 3), (2, 5, 2)), ((2, 5, 3), (5, 2)), ((1, 5, 3), (3, 5, 2)),
         ((2, 5, 3), (2, 5)), ((5,), (5,)), ((0, 3), (0,)), ((5, 3), (5, 2)),
         ((2, 2, 3), (2, 2))]


def ours(library: str, a: tuple, b: tuple, dtype: str, **kwargs):
    dialect = get_dialect(library)
    name = "np.linalg.lstsq" if library == "numpy" else "torch.linalg.lstsq"
    spec = ops.lookup(name, dialect)
    args = (ArrayArg(a, dtype), ArrayArg(b, dtype))
    try:
        result = spec.rule(*args, dialect=dialect, **kwargs)
    except ShapeError as err:
        return err
    return result.outputs, result_dtypes(spec, args, kwargs, dialect)


@pytest.mark.parametrize("a,b", PAIRS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_numpy_lstsq_matches_numpy(a, b, dtype):
    rng = np.random.default_rng(0)
    try:
        real = np.linalg.lstsq(rng.random(a).astype(dtype), rng.random(b).astype(dtype))
    except Exception as exc:
        assert isinstance(ours("numpy", a, b, dtype), ShapeError), exc
        return
    shapes, kinds = ours("numpy", a, b, dtype)
    assert all(fits(s, np.shape(r)) for s, r in zip(shapes, real))
    assert list(kinds) == [np.asarray(r).dtype.name for r in real]


@pytest.mark.parametrize("a,b", PAIRS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("driver", [None, "gelsd", "gels"])
def test_torch_lstsq_matches_torch(a, b, dtype, driver):
    torch = pytest.importorskip("torch")
    kwargs = {"driver": driver} if driver else {}
    try:
        real = torch.linalg.lstsq(torch.rand(a).to(getattr(torch, dtype)),
                                  torch.rand(b).to(getattr(torch, dtype)), **kwargs)
    except Exception as exc:
        try:
            assert isinstance(ours("torch", a, b, dtype, **kwargs), ShapeError), exc
        except NotImplementedError:  # a reading of b torch has rules of its own for: unknown
            pass
        return
    try:
        shapes, kinds = ours("torch", a, b, dtype, **kwargs)
    except NotImplementedError:  # residuals of a stack (the values decide) or such a b
        return
    assert all(fits(s, tuple(r.shape)) for s, r in zip(shapes, real))
    assert list(kinds) == [str(r.dtype).removeprefix("torch.") for r in real]
