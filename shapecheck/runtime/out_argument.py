"""``out=``: what each library does with an out array, by the family of the op.

The call returns out itself, so on success the result has out's dtype (and, in NumPy, out's
shape). What out must be differs by family, as measured on NumPy 2 and torch 2:

- NumPy ufuncs (``add``, ``exp``, ``clip``, ``matmul``): out broadcasts with the inputs and
  is not itself broadcast; the result casts to out's dtype by ``same_kind``. ``round`` also
  wants out of as many elements as the result.
- NumPy reductions (``sum``, ``mean``, ``var``, ``max``): out has the result's shape exactly;
  any cast is allowed (``std`` ends in a sqrt ufunc: same_kind). Accumulations (``cumsum``)
  are certain only for an out of the result's very shape.
- NumPy joins (``concatenate``, ``stack``): out has the result's dims, then its shape; the
  data casts by ``same_kind``. ``dot`` wants out of exactly the result's shape and dtype,
  ``argmax`` / ``argmin`` an out of the result's shape whose dtype casts to int64.
- torch resizes an out of another shape (with a warning when it had elements); the result
  must cast to out's dtype by torch's rules, except where an op wants exactly one dtype:
  argmax int64, matmul, dot, clamp and round their result's own, amax and amin the input's.
  Totals (``sum``, ``prod``) write any dtype, running totals (``cumsum``) any but bool.

``policy(name, library)`` says which family an op belongs to (None: not modelled, so out's
dtype is all that is said); ``with_out`` wraps a registered rule with the checks.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import dtypes
from .arguments import ArrayArg
from .dialects import Dialect
from .dims import dims_equal, eq, format_shape, numel
from .verdicts import Result, RuleWarning, ShapeError

_NUMPY_ANY_CAST = frozenset({"sum", "prod", "mean", "var", "max", "min", "amax", "amin", "any",
                             "all", "median", "nansum", "nanprod", "nanmean", "nanvar",
                             "nanmax", "nanmin", "ptp", "average"})
_NUMPY_ACCUMULATIONS = frozenset({"cumsum", "cumprod", "nancumsum", "nancumprod"})
_TORCH_SAME_DTYPE = frozenset({"matmul", "clamp", "clip", "round", "dot", "mm", "bmm", "mv"})
_TORCH_ANY_CAST = frozenset({"sum", "prod", "nansum"})


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def policy(name: str, library: str) -> tuple[str, str] | None:
    """The out= family of the op ``name`` in ``library``: (what out's shape must be, how the
    result casts to out's dtype); None when not modelled (see the module's text)."""
    import numpy as np

    short = _short(name)
    if library == "numpy":
        if short == "dot":
            return "exact", "exact"
        if short in ("argmax", "argmin"):
            return "exact", "index"
        if short in ("concatenate", "stack"):
            return "join", "array_same_kind"
        if short in _NUMPY_ACCUMULATIONS:
            return "accumulate", "any"
        if short in _NUMPY_ANY_CAST:
            return "exact", "any"
        if short in ("std", "nanstd"):
            return "exact", "same_kind"  # the last step is a sqrt ufunc
        if short in ("round", "around"):
            return "round", "same_kind"
        if short == "clip" or isinstance(getattr(np, short, None), np.ufunc):
            return "ufunc", "same_kind"
        return None
    if short in ("argmax", "argmin"):
        return "resize", "index"
    if short in _TORCH_SAME_DTYPE:
        return "resize", "same"
    if short in ("amax", "amin"):
        return "resize", "input"
    if short in _TORCH_ANY_CAST:
        return "resize", "any"
    if short in ("cumsum", "cumprod"):
        return "resize", "no_bool"  # any dtype, but the kernels have no bool out
    return "resize", "cast"


def handles_out(rule: Callable[..., Result]) -> Callable[..., Result]:
    """Mark a rule that checks out='s shape itself (the pointwise, reduction and matmul rules,
    with the library's exact words): ``with_out`` then checks only the dtype."""
    rule.handles_out = True  # type: ignore[attr-defined]
    return rule


def check_shape(kind: str, name: str, result: Result, out: tuple, dialect: Dialect) -> Result:
    """The result of writing ``result`` into an out of shape ``out`` (or the library's error):
    torch resizes out (warning when it had elements); NumPy wants ``kind``'s agreement."""
    shape, out = tuple(result.shape), tuple(out)
    same = dims_equal(shape, out)
    if kind == "resize":
        if same is not False or eq(numel(out), 0) is True:
            return result
        return result.with_warnings(RuleWarning(
            "out-resize", f"An output with one or more elements was resized since it had shape "
                          f"{format_shape(out, 'torch')}, which does not match the required output "
                          f"shape {format_shape(shape, 'torch')}."))
    if kind == "exact" and same is False:
        short = _short(name)
        message = "output array has wrong dimensions" if short == "dot" else \
            f"output array does not match result of np.{short}." if short.startswith("arg") \
            else "output parameter has the wrong shape for the result"
        raise ShapeError("out", message, "ValueError", shapes=(out, shape))
    if kind == "join" and same is False:
        message = "Output array has wrong dimensionality" if len(out) != len(shape) else \
            "Output array is the wrong shape"
        raise ShapeError("out", message, "ValueError", shapes=(out, shape))
    if kind == "accumulate" and same is not True:
        # An accumulation's out is matched against the input by rules of its own (an empty out
        # of a 1-d result passes): only an out of the result's very shape is certain.
        raise NotImplementedError("an accumulation into an out of another shape")
    if kind == "round" and eq(numel(out), numel(shape)) is False:
        # np.round writes through ufuncs, but first wants out of as many elements.
        raise ShapeError("out", "invalid output shape", "ValueError", shapes=(out, shape))
    if kind in ("ufunc", "round"):
        from .rules.pointwise import unary_out

        return unary_out(shape, out, dialect=dialect)
    return Result.of(out) if same is True else result


def check_dtype(cast: str, name: str, result: str | None, out: str | None, source: str | None,
                dialect: Dialect) -> None:
    """Raise the library's refusal to write a result of dtype ``result`` into out's."""
    if result is None or out is None:
        return
    if dialect.is_numpy:
        if cast == "exact" and out != result:
            raise ShapeError("dtype", "output array is not acceptable (must have the right "
                             "datatype, number of dimensions, and be a C-Array)", "ValueError")
        if cast == "array_same_kind" and dtypes.can_cast_inplace(result, out, dialect) is False:
            raise ShapeError("dtype", f"Cannot cast array data from dtype('{result}') to "
                             f"dtype('{out}') according to the rule 'same_kind'", "TypeError")
        if cast == "same_kind" and dtypes.can_cast_inplace(result, out, dialect) is False:
            ufunc = {"round": "rint", "around": "rint", "std": "sqrt", "nanstd": "sqrt"}.get(
                _short(name), _short(name))
            raise ShapeError("dtype", f"Cannot cast ufunc '{ufunc}' output from "
                             f"dtype('{result}') to dtype('{out}') with casting rule "
                             "'same_kind'", "UFuncTypeError")
        if cast == "index" and dtypes.can_cast_inplace(out, "int64", dialect) is False:
            raise ShapeError("dtype", f"Cannot cast array data from dtype('{out}') to "
                             "dtype('int64') according to the rule 'same_kind'", "TypeError")
        return
    torch_out = dtypes.torch_dtype_name(out) if out in dtypes.TORCH_DTYPES else out
    if cast == "index" and out != "int64":
        raise ShapeError("dtype", f"Expected out tensor to have dtype long int, but got "
                         f"{torch_out} instead", "RuntimeError")
    if cast == "same" and out != result:
        raise ShapeError("dtype", f"Found dtype {torch_out} but expected "
                         f"{dtypes.torch_dtype_name(result)}", "RuntimeError")
    if cast == "input" and source is not None and out != source:
        raise ShapeError("dtype", "Expected the dtype for input and out to match",
                         "RuntimeError")
    if cast == "no_bool" and out == "bool":
        raise ShapeError("dtype", "\"cumsum_out_cpu\" not implemented for 'Bool'",
                         "NotImplementedError")
    if cast == "cast" and dtypes.can_cast_inplace(result, out, dialect) is False:
        raise ShapeError("dtype", f"result type {dtypes.torch_dtype_name(result)} can't be cast "
                         f"to the desired output type {torch_out}", "RuntimeError")


def with_out(name: str, library: str, rule: Callable[..., Result],
             dtype: Callable[..., Any] | None) -> Callable[..., Result]:
    """``rule`` with out= checked as the op's family does; the rule itself when the family is
    not modelled."""
    family = policy(name, library)
    if family is None:
        return rule
    kind, cast = family
    own = getattr(rule, "handles_out", False) and kind != "round"  # round checks more

    @functools.wraps(rule)
    def checked(*args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        out = kwargs.get("out")
        if not isinstance(out, ArrayArg):
            return rule(*args, dialect=dialect, **kwargs)
        plain = {k: v for k, v in kwargs.items() if k != "out"}
        result = rule(*args, dialect=dialect, **kwargs) if own else \
            check_shape(kind, name, rule(*args, dialect=dialect, **plain), out.shape, dialect)
        source = args[0].dtype if args and isinstance(args[0], ArrayArg) else None
        check_dtype(cast, name, _plain_dtype(dtype, args, plain, dialect), out.dtype, source,
                    dialect)
        return result
    return checked


def _plain_dtype(dtype: Callable[..., Any] | None, args: tuple, kwargs: dict,
                 dialect: Dialect) -> str | None:
    """The dtype the op computes without out= (input 0's when it has no dtype rule)."""
    if dtype is None:
        first = args[0] if args else None
        if isinstance(first, (list, tuple)) and first:
            first = first[0]
        return first.dtype if isinstance(first, ArrayArg) else None
    try:
        value = dtype(*args, dialect=dialect, **kwargs)
    except Exception:  # arguments the dtype rule cannot read: unknown
        return None
    return value if isinstance(value, str) else None


def out_dtype(kwargs: dict) -> str | None:
    """out='s dtype when the call has an out array: the dtype of what it returns."""
    out = kwargs.get("out")
    return out.dtype if isinstance(out, ArrayArg) else None


__all__ = ["check_dtype", "check_shape", "handles_out", "out_dtype", "policy", "with_out"]
