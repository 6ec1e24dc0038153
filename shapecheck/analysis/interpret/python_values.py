"""Python's own values as model code computes with them: numbers and strings built from
known values. Pure functions of the abstract values (their truth, identity and comparisons
are conditions.py's)."""

from __future__ import annotations

from ...runtime.dims import UNKNOWN, Dim, add, floordiv, mod, mul, sub
from ..values import (
    UNKNOWN_VALUE,
    ConstValue,
    FloatValue,
    IntValue,
    TupleValue,
    Value,
)


def is_number(value: Value) -> bool:
    return isinstance(value, (IntValue, FloatValue)) or isinstance(value, ConstValue) and \
        type(value.value) in (int, float)


def known_number(value: Value) -> int | float | None:
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return value.value
    if isinstance(value, ConstValue) and type(value.value) in (int, float):
        return value.value
    return None


FLOAT_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
              "div": lambda a, b: a / b, "floor_divide": lambda a, b: a // b,
              "remainder": lambda a, b: a % b, "pow": lambda a, b: a ** b}


def float_arith(op: str, a, b) -> float | None:
    """Python's float arithmetic on two known numbers; None when either is unknown or the
    result is no finite float (a division by zero raises, which is not modelled)."""
    if a is None or b is None:
        return None
    try:
        out = FLOAT_OPS[op](a, b)
    except (ArithmeticError, ValueError):
        return None
    return float(out) if isinstance(out, (int, float)) and abs(out) < 1e300 else None


def integral_of(value: Value) -> Dim | None:
    """The int a number equals: an int, a float with an integer value, or an integral float."""
    if isinstance(value, IntValue) and value.value is not UNKNOWN:
        return value.value
    if isinstance(value, ConstValue) and type(value.value) is float and value.value.is_integer() \
            and abs(value.value) < 1e18:
        return int(value.value)
    if isinstance(value, FloatValue):
        return value.integral
    return None


def integral_float(op: str, left: Value, right: Value) -> FloatValue:
    """A float from a size and a whole number: ``planes * 1.0`` equals ``planes``, and stays an
    exact size through ``int()``. Any other float arithmetic gives a float of unknown value."""
    a, b = integral_of(left), integral_of(right)
    if a is None or b is None:
        return FloatValue()
    if op in ("add", "sub", "mul"):
        return FloatValue(int_arith(op, a, b).value)
    if op == "div" and b == 1:
        return FloatValue(a)
    return FloatValue()


def int_arith(op: str, a: Dim, b: Dim) -> Value:
    if op == "add":
        return IntValue(add(a, b))
    if op == "sub":
        return IntValue(sub(a, b))
    if op == "mul":
        return IntValue(mul(a, b))
    if op == "floor_divide":
        return IntValue(floordiv(a, b))
    if op == "remainder" and not (isinstance(a, int) and isinstance(b, int)):
        return IntValue(mod(a, b))
    if isinstance(a, int) and isinstance(b, int):
        try:
            if op == "remainder" and b:
                return IntValue(a % b)
            if op == "pow" and 0 <= b <= 64:
                return IntValue(a ** b)
            if op == "lshift" and 0 <= b <= 64:
                return IntValue(a << b)
            if op == "rshift" and b >= 0:
                return IntValue(a >> b)
        except Exception:
            return IntValue(UNKNOWN)
        if op == "div":
            return ConstValue(a / b) if b else UNKNOWN_VALUE
    return IntValue(UNKNOWN) if op != "div" else FloatValue()  # int / int is a float


def formatted(template: str, values: Value) -> Value:
    """``template % values`` of known values (printf-style formatting of a name)."""
    items = values.items if isinstance(values, TupleValue) and not values.is_list else (values,)
    plain = [constant(item) for item in items]
    if any(p is None for p in plain):
        return UNKNOWN_VALUE
    try:
        return ConstValue(template % tuple(p[0] for p in plain))
    except (TypeError, ValueError, KeyError):
        return UNKNOWN_VALUE


def constant(value: Value) -> tuple | None:
    """A known int, str, bool or None, in a 1-tuple (None is a constant too); else None."""
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return (value.value,)
    if isinstance(value, ConstValue) and (value.value is None or
                                          type(value.value) in (str, bool, int)):
        return (value.value,)
    return None


