"""Dtype promotion and in-place casting rules, checked exhaustively against real NumPy and torch."""

from __future__ import annotations

import os
import warnings
from collections import Counter

import numpy as np
import pytest

from shapecheck.runtime.dialects import NUMPY, NUMPY1, TORCH
from shapecheck.runtime.dtypes import (
    NUMPY_DTYPES, TORCH_DTYPES, WEAK_SCALARS, can_cast_inplace, inplace_dtype,
    numpy_promote_types, op_result_type, result_type, torch_dtype_name, torch_promote_types)
from shapecheck.runtime.verdicts import ShapeError

CASES: Counter = Counter()

PY_VALUES = {"pybool": True, "pyint": 1, "pyfloat": 1.0, "pycomplex": 1j}
NUMPY_LIST = sorted(NUMPY_DTYPES)
TORCH_LIST = sorted(TORCH_DTYPES)


def teardown_module() -> None:
    if os.environ.get("SHAPECHECK_COUNT_CASES"):
        print("\ndtype cases:", dict(CASES))


# -- NumPy ---------------------------------------------------------------------------------

def test_numpy_promote_types_matches_numpy_for_every_pair():
    for a in NUMPY_LIST:
        for b in NUMPY_LIST:
            assert numpy_promote_types(a, b) == np.promote_types(a, b).name, (a, b)
            CASES["promotion"] += 1


def _numpy_operand(kind: str, ndim: int):
    return PY_VALUES[kind] if kind in WEAK_SCALARS else np.ones((2,) * ndim, dtype=kind)


def test_numpy_result_type_follows_nep50_for_arrays_0d_arrays_and_python_scalars():
    kinds = NUMPY_LIST + sorted(WEAK_SCALARS)
    for a in kinds:
        for b in kinds:
            for a_ndim, b_ndim in ((1, 1), (0, 1), (1, 0)):
                real = np.add(_numpy_operand(a, a_ndim), _numpy_operand(b, b_ndim))
                got = result_type(a, b, NUMPY, a_ndim, b_ndim)
                assert got == np.asarray(real).dtype.name, (a, b, a_ndim, b_ndim)
                CASES["promotion"] += 1


def test_numpy1_result_type_is_unknown_where_values_decided():
    assert result_type("int8", "pyfloat", NUMPY1) is None
    assert result_type("int8", "float64", NUMPY1, 1, 0) is None
    assert result_type("int8", "float64", NUMPY1, 1, 1) == "float64"


def test_numpy_same_kind_casting_matches_can_cast_for_every_pair():
    for a in NUMPY_LIST:
        for b in NUMPY_LIST:
            assert can_cast_inplace(a, b, NUMPY) is bool(np.can_cast(a, b, "same_kind")), (a, b)
            CASES["inplace-cast"] += 1


NUMPY_OPS = ("add", "divide", "equal", "arctan2", "floor_divide", "power", "maximum")


def _numpy_inplace(op: str, target: str, other: str):
    out = np.ones(2, dtype=target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(np, op)(out, _numpy_operand(other, 1), out=out)
        except TypeError as err:
            names = [c.__name__ for c in type(err).__mro__]
            if "UFuncTypeError" in names and "Cannot cast ufunc" in str(err):
                return ("UFuncTypeError", str(err))
            return ("no-loop", str(err))
    return ("ok",)


def _model_inplace(op: str, target: str, other: str, dialect, target_ndim=1, other_ndim=1):
    result = op_result_type(op, target, other, dialect, target_ndim, other_ndim)
    try:
        inplace_dtype(target, result, op=op, dialect=dialect)
    except ShapeError as err:
        assert err.kind == "dtype"
        return (err.exc_type, err.message)
    return ("ok",)


def test_numpy_inplace_casting_errors_match_numpy_text():
    for op in NUMPY_OPS:
        for target in NUMPY_LIST:
            for other in NUMPY_LIST + sorted(WEAK_SCALARS):
                real = _numpy_inplace(op, target, other)
                if real[0] == "no-loop":  # e.g. arctan2 on complex: no loop at all
                    continue
                assert _model_inplace(op, target, other, NUMPY) == real, (op, target, other)
                CASES["inplace-cast"] += 1


def test_numpy_op_result_type_matches_the_ufunc_loop():
    for op in NUMPY_OPS:
        for a in NUMPY_LIST:
            for b in NUMPY_LIST + sorted(WEAK_SCALARS):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        real = np.asarray(getattr(np, op)(np.ones(2, a), _numpy_operand(b, 1)))
                    except TypeError:
                        continue
                assert op_result_type(op, a, b, NUMPY) == real.dtype.name, (op, a, b)
                CASES["promotion"] += 1


# -- torch --------------------------------------------------------------------------------

def _tdtype(torch, name):
    return getattr(torch, name)


def test_torch_promote_types_matches_torch_for_every_pair():
    torch = pytest.importorskip("torch")
    for a in TORCH_LIST:
        for b in TORCH_LIST:
            real = torch.promote_types(_tdtype(torch, a), _tdtype(torch, b))
            assert torch_promote_types(a, b) == str(real).removeprefix("torch."), (a, b)
            CASES["promotion"] += 1


def _torch_operand(torch, kind: str, ndim: int):
    if kind in WEAK_SCALARS:
        return PY_VALUES[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ComplexHalf is "experimental"
        return torch.ones((2,) * ndim, dtype=_tdtype(torch, kind))


def test_torch_result_type_weighs_dims_zero_dim_tensors_and_scalars():
    torch = pytest.importorskip("torch")
    kinds = TORCH_LIST + sorted(WEAK_SCALARS)
    for a in kinds:
        for b in kinds:
            if a in WEAK_SCALARS and b in WEAK_SCALARS:
                continue  # torch.result_type wants a tensor
            reals = {}
            for a_ndim in (0, 1):
                for b_ndim in (0, 1):
                    real = torch.result_type(_torch_operand(torch, a, a_ndim),
                                             _torch_operand(torch, b, b_ndim))
                    reals[a_ndim, b_ndim] = str(real).removeprefix("torch.")
                    got = result_type(a, b, TORCH, a_ndim, b_ndim)
                    assert got == reals[a_ndim, b_ndim], (a, b, a_ndim, b_ndim)
                    CASES["promotion"] += 1
            # Unknown rank: an answer only when every rank gives the same one.
            for b_ndim in (0, 1):
                both = {reals[0, b_ndim], reals[1, b_ndim]}
                expected = both.pop() if len(both) == 1 else None
                assert result_type(a, b, TORCH, None, b_ndim) == expected, (a, b, b_ndim)


def test_torch_can_cast_matches_torch_for_every_pair():
    torch = pytest.importorskip("torch")
    for a in TORCH_LIST:
        for b in TORCH_LIST:
            real = torch.can_cast(_tdtype(torch, a), _tdtype(torch, b))
            assert can_cast_inplace(a, b, TORCH) is real, (a, b)
            CASES["inplace-cast"] += 1


TORCH_INPLACE_OPS = ("add", "div", "eq", "mul")
_UNSUPPORTED = ("not implemented for", "not supported", "is not supported")


def test_torch_inplace_casting_errors_match_torch_text():
    torch = pytest.importorskip("torch")
    for op in TORCH_INPLACE_OPS:
        for target in TORCH_LIST:
            for target_ndim in (0, 1):
                for other in TORCH_LIST + sorted(WEAK_SCALARS):
                    for other_ndim in sorted({0, target_ndim}):
                        self_t = _torch_operand(torch, target, target_ndim)
                        operand = _torch_operand(torch, other, other_ndim)
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            try:
                                getattr(self_t, op + "_")(operand)
                                real = ("ok",)
                            except RuntimeError as err:
                                real = ("RuntimeError", str(err))
                        if real[0] != "ok" and any(s in real[1] for s in _UNSUPPORTED):
                            continue  # the kernel does not exist for this dtype
                        got = _model_inplace(op, target, other, TORCH, target_ndim, other_ndim)
                        assert got == real, (op, target, target_ndim, other, other_ndim)
                        CASES["inplace-cast"] += 1


def test_torch_dtype_names_are_torchs_own():
    torch = pytest.importorskip("torch")
    for name in TORCH_LIST:
        # torch's repr of a legacy tensor type carries the same name: torch.FloatTensor.
        tensor = torch.ones(1, dtype=_tdtype(torch, name))
        assert torch_dtype_name(name) in ("Bool", "Byte", "Char", "Short", "Int", "Long", "Half",
                                          "BFloat16", "Float", "Double", "ComplexHalf",
                                          "ComplexFloat", "ComplexDouble")
        if name not in ("complex32",):
            assert tensor.type().removeprefix("torch.").removesuffix("Tensor") == \
                torch_dtype_name(name)


def test_unknown_dtypes_give_unknown_answers():
    assert result_type(None, "int64", NUMPY) is None
    assert result_type("bfloat16", "int64", NUMPY) is None
    assert can_cast_inplace(None, "int64", TORCH) is None
    inplace_dtype(None, "float64", op="add", dialect=NUMPY)  # unknown: no error
    with pytest.raises(ShapeError) as err:
        inplace_dtype("int64", "float64", op="add", dialect=NUMPY)
    assert err.value.message == ("Cannot cast ufunc 'add' output from dtype('float64') to "
                                 "dtype('int64') with casting rule 'same_kind'")
    assert err.value.exc_type == "UFuncTypeError"
    with pytest.raises(ShapeError) as err:
        inplace_dtype("int64", "float32", op="add_", dialect=TORCH)
    assert err.value.message == "result type Float can't be cast to the desired output type Long"
