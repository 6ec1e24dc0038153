"""Creation functions: the shape and dtype of ``zeros``, ``arange``, ``array([...])``, random.

    creation("numpy", "zeros", ((2, 3),), {})          # Created((2, 3), "float64")
    creation("torch", "arange", (5,), {})              # Created((5,), "int64")
    creation("numpy", "array", ([[1, 2], [3, 4]],), {}) # Created((2, 2), "int64")

``name`` is the function's path below the library (``zeros``, ``random.rand``,
``zeros_like``); ``generator`` marks a method of ``np.random.default_rng()``.
Arguments are plain values: ints or Dims (UNKNOWN for an int nobody knows),
floats, bools, None, strings, nested lists and tuples, dtype names, and
:data:`UNREADABLE` for anything the caller could not read. An array argument
is :data:`ARRAY`: the answer then says which argument the result takes its
shape from (``np.array(x)``, ``zeros_like(x)``).

The answer is None when the call is not a creation this module models,
``SCALAR`` when it makes a Python scalar (``rng.normal()`` with no size), or a
:class:`Created` whose shape is None when only the rank is unknown. A call the library
certainly refuses (a zero step, a negative count) raises ShapeError.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from . import random_draws
from .arguments import ArrayArg
from .dims import UNKNOWN, Dim, add, eq, floordiv
from .dtypes import dtype_spelling
from .verdicts import ShapeError


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


UNREADABLE = _Marker("UNREADABLE")
"""An argument the caller could not read."""
ARRAY = _Marker("ARRAY")
"""An array argument."""
ANYTHING = _Marker("ANYTHING")
"""A value nothing is known of (an unannotated parameter): an int where a size is expected,
data of unknown shape where data is."""
SCALAR = _Marker("SCALAR")
"""The answer for a call that makes a Python scalar."""


@dataclass(frozen=True)
class Created:
    shape: tuple[Dim, ...] | None
    dtype: str | None
    like: int | None = None
    """The position of the array argument the result copies its shape (and, unless a dtype is
    given, its dtype) from."""


_KWARGS = frozenset({"dtype", "requires_grad", "device", "order", "copy", "like", "size", "shape",
                     "fill_value", "N", "M", "n", "m", "k", "num", "steps", "endpoint", "start",
                     "stop", "end", "step", "low", "high", "loc", "scale", "pin_memory", "layout",
                     "generator", "out", "input", "a", "base", "axis", "retstep", "replace",
                     "p", "shuffle", "x", "mean", "cov", "endpoint"} |
                    {p for params in random_draws.DISTRIBUTIONS.values() for p in params})
"""Keywords that change nothing this module cannot read; any other (ndmin=...) is not modelled."""

CREATORS = frozenset({"zeros", "ones", "empty", "full", "eye", "identity", "arange", "linspace",
                      "logspace", "geomspace", "array", "asarray", "tensor", "as_tensor", "asanyarray",
                      "ascontiguousarray", "from_numpy", "asfortranarray", "copy", "rand", "randn",
                      "randint", "normal", "zeros_like", "ones_like", "empty_like", "full_like",
                      "rand_like", "randn_like", "randint_like", "randperm"})
"""Functions that always make an array (of unknown shape when the arguments are not read)."""

_FROM_DATA = frozenset({"array", "asarray", "tensor", "as_tensor", "asanyarray",
                        "ascontiguousarray", "from_numpy", "asfortranarray", "copy"})
_LIKE = frozenset({"zeros", "ones", "empty", "full", "rand", "randn", "randint"})
# numpy's positional dtype: np.zeros(shape, dtype), np.full(shape, fill, dtype), ...
_NUMPY_POSITIONAL_DTYPE = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1}


def _is_int(value: Any) -> bool:
    return not isinstance(value, (bool, float, str, list, tuple, _Marker)) and value is not None


def _size_or_unknown(value: Any) -> Dim:
    return value if _is_int(value) else UNKNOWN


def _dims(value: Any) -> tuple | None:
    """A shape-like argument: ``(B, 3)``, ``[4]``, ``5``."""
    if _is_int(value):
        return (value,)
    if isinstance(value, (tuple, list)):
        dims = tuple(UNKNOWN if v is ANYTHING else v for v in value)  # an item of a size: an int
        return dims if all(_is_int(v) for v in dims) else None
    return None


def _size(args: tuple, kwargs: dict, varargs: bool) -> tuple | None:
    """torch takes sizes as ``zeros(2, 3)`` or ``zeros((2, 3))``; numpy only the second."""
    for key in ("size", "shape"):
        if key in kwargs and not args:
            return _dims(kwargs[key])
    if not args:
        return None
    if len(args) == 1:
        return _dims(args[0])
    if varargs and all(_is_int(a) or a is ANYTHING for a in args):
        return tuple(UNKNOWN if a is ANYTHING else a for a in args)
    return _dims(args[0]) if not varargs else None


def _arange_shape(args: tuple, torch: bool = False, dtype: str | None = None) -> tuple | None:
    """arange's length: ceil((stop - start) / step) in double precision, none when that is
    negative in NumPy; torch refuses a step of zero and bounds the step walks away from, and
    for int64 counts on the bounds truncated to integers."""
    args = tuple(UNKNOWN if a is ANYTHING else a for a in args)  # arange(n): n is a number
    numbers = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
    if args and len(numbers) == len(args) <= 3:
        start, stop, step = (0, numbers[0], 1) if len(numbers) == 1 else (*numbers, 1)[:3]
        if torch:
            return (_torch_arange_length(start, stop, step, dtype),)
        if step == 0:
            raise ShapeError("argument", "float division by zero" if any(
                isinstance(a, float) for a in numbers) else "division by zero",
                "ZeroDivisionError")
        return (max(0, math.ceil((stop - start) / step)),)
    if not args or not all(_is_int(a) for a in args):
        return None
    if len(args) == 1:
        return (args[0],)
    step = args[2] if len(args) > 2 else 1
    if eq(args[0], 0) is True and isinstance(step, int) and step > 0:
        return (floordiv(add(args[1], step - 1), step),)  # a size stop: ceil(stop / step)
    return (UNKNOWN,)


def _torch_arange_length(start: float, stop: float, step: float, dtype: str | None) -> int:
    if step == 0:
        raise ShapeError("argument", "step must be nonzero", "RuntimeError")
    if not ((step > 0 and stop >= start) or (step < 0 and stop <= start)):
        raise ShapeError("argument", "upper bound and lower bound inconsistent with step sign",
                         "RuntimeError")
    if dtype == "int64":
        first, last, stride = math.trunc(start), math.trunc(stop), math.trunc(step)
        if stride == 0:
            raise ShapeError("argument", "step must be nonzero", "ValueError")
        sign = 1 if stride > 0 else -1
        span = last - first + stride - sign
        return max(0, abs(span) // abs(stride) * (1 if (span >= 0) == (stride > 0) else -1))
    return max(0, math.ceil((stop - start) / step))


def _arange_dtype(args: tuple, kwargs: dict, default_float: str) -> str | None:
    values = list(args) + [kwargs[k] for k in ("start", "end", "stop", "step") if k in kwargs]
    if values and all(_is_int(a) for a in values):
        return "int64"
    if any(isinstance(a, float) for a in values):
        return default_float
    return None


def literal_shape(value: Any) -> tuple[tuple | None, str | None]:
    """The shape of a nested list literal and the kind of its numbers ("int", "float", "bool")."""
    if isinstance(value, ArrayArg):
        return tuple(value.shape), None
    if isinstance(value, bool):
        return (), "bool"
    if isinstance(value, float):
        return (), "float"
    if _is_int(value):
        return (), "int"
    if isinstance(value, (list, tuple)):
        if not value:
            return (0,), "float"
        inner = [literal_shape(v) for v in value]
        shapes = {s for s, _ in inner}
        if len(shapes) != 1 or None in shapes:
            return None, None
        kinds = {k for _, k in inner}
        kind = "float" if "float" in kinds else ("int" if "int" in kinds else (
            "bool" if kinds == {"bool"} else None))
        return (len(value),) + shapes.pop(), kind
    return None, None


def creation(library: str, name: str, args: tuple, kwargs: dict, *,
             generator: bool = False) -> Created | _Marker | None:
    """The array ``<library>.<name>(*args, **kwargs)`` makes (see the module's docstring)."""
    torch = library == "torch"
    default_float = "float32" if torch else "float64"
    if "dtype" in kwargs and kwargs["dtype"] is None:
        # dtype=None is the default in both libraries (timm passes dtype=dtype through).
        kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}
    dtype = dtype_spelling(kwargs["dtype"]) if "dtype" in kwargs else None
    makes_array = name in CREATORS or name.startswith("random.") or generator
    if ("dtype" in kwargs and dtype is None) or set(kwargs) - _KWARGS:
        # Object, structured or string dtypes, ndmin=...: shapes this module does not model.
        return Created(None, None) if makes_array else None
    position = _NUMPY_POSITIONAL_DTYPE.get(name) if not torch else None
    if position is not None and len(args) > position:
        dtype = dtype_spelling(args[position])
        if dtype is None:
            return Created(None, None)
        args = args[:position]

    def made(shape: tuple | None, default: str | None = default_float) -> Created:
        return Created(None if shape is None else tuple(shape), dtype or default)

    if name in ("zeros", "ones", "empty") or torch and name in ("rand", "randn"):
        if torch and not args and not ({"size", "shape"} & set(kwargs)):
            raise ShapeError("argument", f'{name}() missing 1 required positional arguments: '
                             '"size"', "TypeError")
        return made(_size(args, kwargs, torch))
    if torch and name == "randperm":
        n = args[0] if args else kwargs.get("n")
        if isinstance(n, int) and not isinstance(n, bool) and n < 0:
            raise ShapeError("argument", f"Trying to create tensor with negative dimension {n}: "
                             f"[{n}]", "RuntimeError")
        return made((n,) if _is_int(n) else None, "int64")
    if name in ("random.rand", "random.randn") and not generator:
        return made(_size(args, {}, True))
    if name == "full":
        fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
        default = "bool" if isinstance(fill, bool) else (
            "int64" if _is_int(fill) else default_float)
        return made(_size(args[:1], kwargs, False), default)
    if name in ("eye", "identity"):
        # Two dims whatever the sizes are: a size of another type is the library's TypeError.
        n = args[0] if args else kwargs.get("N", kwargs.get("n"))
        m = args[1] if len(args) > 1 and name == "eye" else kwargs.get("M", kwargs.get("m", n))
        return made(None if n is None else (_size_or_unknown(n), _size_or_unknown(m)))
    if name == "arange":
        kind = dtype or _arange_dtype(args, kwargs, default_float)
        return made(_arange_shape(args, torch, kind), kind)
    if name in ("linspace", "logspace", "geomspace"):
        num = args[2] if len(args) > 2 else kwargs.get("num", kwargs.get(
            "steps", 50 if not torch else None))
        if isinstance(num, int) and not isinstance(num, bool) and num < 0:
            raise ShapeError("argument", "number of steps must be non-negative" if torch else
                             f"Number of samples, {num}, must be non-negative.",
                             "RuntimeError" if torch else "ValueError")
        if name == "geomspace" and any(isinstance(v, (int, float)) and not isinstance(v, bool)
                                       and v == 0 for v in args[:2]):
            raise ShapeError("argument", "Geometric sequence cannot include zero", "ValueError")
        if kwargs.get("retstep"):
            return None  # a (samples, step) pair
        bounds = [args[i] if len(args) > i else kwargs.get(key) for i, key in
                  enumerate(("start", "end" if torch else "stop"))]
        # One dim of num points; numpy's array bounds add their own dims.
        scalar = torch or all(isinstance(b, (int, float)) or _is_int(b) for b in bounds)
        return made((_size_or_unknown(num),) if num is not None and scalar else None)
    if name in _FROM_DATA:
        if not args:
            return None
        if args[0] is ARRAY or args[0] is ANYTHING:
            return Created(None, dtype, like=0)
        shape, kind = literal_shape(args[0])
        if shape is None:
            return made(None, None)
        return made(shape, {"int": "int64", "float": default_float, "bool": "bool"}.get(kind))
    if name.endswith("_like") and name[:-5] in _LIKE:
        if args and args[0] is ARRAY or not args and ARRAY in (kwargs.get("input"), kwargs.get("a")):
            return Created(None, dtype, like=0)
        return None
    if generator or name.startswith("random."):
        return _random(name.split(".", 1)[1] if "." in name else name, args, kwargs, generator,
                       dtype)
    if torch and name == "normal":
        # normal(mean, std, size): floats and a size make a new tensor; tensors broadcast.
        size = args[2] if len(args) > 2 else kwargs.get("size")
        mean_std = list(args[:2]) + [kwargs[k] for k in ("mean", "std") if k in kwargs]
        if size is None or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                   for v in mean_std):
            return None
        return made(_dims(size))
    if torch and name == "randint":
        size = kwargs.get("size")
        if size is None:
            sizes = [a for a in args if isinstance(a, (tuple, list))]
            size = sizes[0] if sizes else None
        return made(_dims(size) if size is not None else None, "int64")
    return None


def _random(short: str, args: tuple, kwargs: dict, generator: bool,
            dtype: str | None) -> Created | _Marker | None:
    if short in ("rand", "randn"):
        return None if generator else Created(_size(args, {}, True), dtype or "float64")
    drawn = random_draws.draw(short, args, {k: v for k, v in kwargs.items() if k != "dtype"},
                              dtype, generator)
    if drawn is None:
        return None
    if drawn is random_draws.SCALAR:
        return SCALAR
    shape, kind = drawn
    return Created(None if shape is None else tuple(shape), kind)


__all__ = ["ANYTHING", "ARRAY", "CREATORS", "SCALAR", "UNREADABLE", "Created", "creation", "literal_shape"]
