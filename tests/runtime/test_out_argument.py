"""out= as each library treats it, for the functions that are no ufunc as well as the ufuncs:
which outs are refused (shape or dtype), and that the call returns out (its dtype, and in
NumPy its shape), against the real libraries."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from shapecheck.runtime import ops
from shapecheck.runtime.arguments import ArrayArg
from shapecheck.runtime.dialects import get_dialect
from shapecheck.runtime.optable import result_dtypes
from shapecheck.runtime.verdicts import ShapeError

X = (3, 4)
# name, arguments after x (a literal or "x" for x itself), keyword arguments, result shape
NUMPY_CALLS = [
    ("np.concatenate", (), {"axis": 0}, (6, 4)), ("np.dot", ("xT",), {}, (3, 3)),
    ("np.cumsum", (), {"axis": 1}, (3, 4)), ("np.clip", (0, 1), {}, (3, 4)),
    ("np.mean", (), {"axis": 1}, (3,)), ("np.argmax", (), {"axis": 1}, (3,)),
    ("np.round", (), {}, (3, 4)), ("np.sum", (), {"axis": 1}, (3,)),
    ("np.std", (), {"axis": 1}, (3,)), ("np.matmul", ("xT",), {}, (3, 3)),
    ("np.exp", (), {}, (3, 4)), ("np.add", ("x",), {}, (3, 4)),
]
TORCH_CALLS = [
    ("torch.cat", (), {}, (6, 4)), ("torch.matmul", ("xT",), {}, (3, 3)),
    ("torch.cumsum", (1,), {}, (3, 4)), ("torch.clamp", (0, 1), {}, (3, 4)),
    ("torch.mean", (1,), {}, (3,)), ("torch.argmax", (1,), {}, (3,)),
    ("torch.round", (), {}, (3, 4)), ("torch.sum", (1,), {}, (3,)),
    ("torch.std", (1,), {}, (3,)), ("torch.exp", (), {}, (3, 4)),
    ("torch.add", ("x",), {}, (3, 4)), ("torch.amax", (1,), {}, (3,)),
]
DTYPES = ("float32", "float64", "int64", "int32", "bool", "float16")


def outs(result: tuple) -> list:
    return [result, result[1:], result + (1,), (1,) + result, (2,) + result, (5,),
            tuple(reversed(result))]


def ours(library: str, name: str, extra: tuple, kwargs: dict, out: tuple, dtype: str):
    dialect = get_dialect(library)
    x = ArrayArg(X, "float32")
    first = [x, x] if name in ("np.concatenate", "torch.cat") else x
    args = (first,) + tuple(ArrayArg(X[::-1], "float32") if a == "xT" else x if a == "x" else a
                            for a in extra)
    kwargs = dict(kwargs, out=ArrayArg(out, dtype))
    spec = ops.lookup(name, dialect)
    try:
        result = spec.rule(*args, dialect=dialect, **kwargs)
    except ShapeError:
        return "refused"
    except NotImplementedError:
        return "unknown"
    return (tuple(result.shape) if library == "numpy" else None,
            result_dtypes(spec, args, kwargs, dialect))


def real(library: str, name: str, extra: tuple, kwargs: dict, out: tuple, dtype: str):
    if library == "numpy":
        lib, x = np, np.ones(X, dtype="float32")
        o = np.zeros(out, dtype=dtype)
    else:
        lib = pytest.importorskip("torch")
        x, o = lib.ones(X), lib.zeros(out, dtype=getattr(lib, dtype))
    target = lib
    for part in name.split(".")[1:]:
        target = getattr(target, part)
    first = [x, x] if name in ("np.concatenate", "torch.cat") else x
    args = tuple(x.T if a == "xT" else x if a == "x" else a for a in extra)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = target(first, *args, **kwargs, out=o)
    except Exception:
        return "refused"
    shape = tuple(value.shape) if library == "numpy" else None
    return shape, str(value.dtype).removeprefix("torch.")


@pytest.mark.parametrize("library,call", [("numpy", c) for c in NUMPY_CALLS] +
                         [("torch", c) for c in TORCH_CALLS])
def test_out_is_refused_or_returned_as_the_library_does(library, call):
    name, extra, kwargs, result = call
    for out in outs(result):
        for dtype in DTYPES if out == result else ("float32",):
            verdict = ours(library, name, extra, kwargs, out, dtype)
            if verdict == "unknown":
                continue
            assert verdict == real(library, name, extra, kwargs, out, dtype), (out, dtype)
