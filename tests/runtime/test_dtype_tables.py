"""The dtype every unary element-wise op and every reduction of the op table computes in, for
every dtype, is the real library's (or the op is refused where the library refuses it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from shapecheck.runtime import ops
from shapecheck.runtime.arguments import ArrayArg
from shapecheck.runtime.dialects import get_dialect
from shapecheck.runtime.optable import result_dtypes
from shapecheck.runtime.verdicts import ShapeError

NUMPY_DTYPES = ("bool", "uint8", "int8", "int16", "uint16", "int32", "int64", "float16",
                "float32", "float64", "complex64")
TORCH_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64", "complex64")
NUMPY_UNARY = ("sqrt", "exp", "log", "sin", "tanh", "abs", "absolute", "negative", "positive",
               "floor", "ceil", "trunc", "rint", "round", "sign", "square", "reciprocal",
               "invert", "logical_not", "isnan", "isfinite", "exp2", "log1p", "cbrt", "fabs",
               "arctan", "deg2rad", "signbit", "conj", "sinc", "nan_to_num")
TORCH_UNARY = ("sqrt", "exp", "log", "sin", "tanh", "abs", "neg", "floor", "ceil", "trunc",
               "round", "sign", "square", "reciprocal", "bitwise_not", "logical_not", "isnan",
               "isfinite", "exp2", "log1p", "sigmoid", "relu", "frac", "rsqrt", "erf",
               "positive", "sgn", "atan", "deg2rad", "signbit", "conj", "angle", "isinf")
NUMPY_REDUCTIONS = ("sum", "prod", "mean", "std", "var", "max", "min", "amax", "any", "all",
                    "ptp", "average")
TORCH_REDUCTIONS = ("sum", "prod", "mean", "std", "var", "amax", "amin", "any", "all")


def ours(name: str, library: str, dtype: str) -> str:
    dialect = get_dialect(library)
    spec = ops.lookup(name, dialect)
    x = ArrayArg((2, 3), dtype)
    try:
        spec.rule(x, dialect=dialect)
    except ShapeError:
        return "refused"
    return result_dtypes(spec, (x,), {}, dialect)


def real_numpy(op: str, dtype: str) -> str:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return np.asarray(getattr(np, op)(np.ones((2, 3), dtype=dtype))).dtype.name
    except Exception:
        return "refused"


def real_torch(op: str, dtype: str) -> str:
    torch = pytest.importorskip("torch")
    try:
        value = getattr(torch, op)(torch.ones(2, 3, dtype=getattr(torch, dtype)))
    except Exception:
        return "refused"
    return str(value.dtype).removeprefix("torch.")


@pytest.mark.parametrize("op", NUMPY_UNARY + NUMPY_REDUCTIONS)
def test_numpy_ops_compute_in_the_dtype_numpy_does(op):
    for dtype in NUMPY_DTYPES:
        assert ours(f"np.{op}", "numpy", dtype) == real_numpy(op, dtype), (op, dtype)


@pytest.mark.parametrize("op", TORCH_UNARY + TORCH_REDUCTIONS)
def test_torch_ops_compute_in_the_dtype_torch_does(op):
    for dtype in TORCH_DTYPES:
        assert ours(f"torch.{op}", "torch", dtype) == real_torch(op, dtype), (op, dtype)


def test_keyword_dtypes_the_libraries_refuse_are_refused():
    torch = pytest.importorskip("torch")
    x = ArrayArg((2, 3), "bool")
    std = ops.lookup("np.std", get_dialect("numpy"))
    with pytest.raises(ShapeError):
        std.rule(x, dialect=get_dialect("numpy"), axis=0, dtype="int64")
    with pytest.raises(TypeError):  # numpy.exceptions.UFuncTypeError is a TypeError
        np.std(np.ones((2, 3), dtype=bool), axis=0, dtype=np.int64)
    assert std.rule(x, dialect=get_dialect("numpy"), dtype="int64").shape == ()
    assert np.std(np.ones((2, 3), dtype=bool), dtype=np.int64).dtype == np.int64
    div = ops.lookup("torch.div", get_dialect("torch"))
    for mode in ("floor", "trunc"):
        with pytest.raises(ShapeError):
            div.rule(x, True, dialect=get_dialect("torch"), rounding_mode=mode)
        with pytest.raises(NotImplementedError):
            torch.div(torch.ones(3, dtype=torch.bool), True, rounding_mode=mode)


def test_a_bool_array_to_a_negative_integer_power_is_refused_as_integers_are():
    power = ops.lookup("__pow__", get_dialect("numpy"))
    with pytest.raises(ShapeError):
        power.rule(ArrayArg((), "bool"), -1, dialect=get_dialect("numpy"))
    with pytest.raises(ValueError):
        np.array(True) ** -1
    assert power.rule(ArrayArg((3,), "bool"), 2, dialect=get_dialect("numpy")).shape == (3,)
