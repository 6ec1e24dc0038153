"""Python's own values as model code computes with them: numbers, truth, identity, and
strings built from known values. Pure functions of the abstract values."""

from __future__ import annotations

import libcst as cst

from ...runtime.dims import UNKNOWN, Dim, add, floordiv, mul, sub
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    BoundMethod,
    ClassValue,
    ConstValue,
    DictValue,
    FloatValue,
    FunctionValue,
    InstanceValue,
    IntValue,
    LayerValue,
    ModuleRef,
    TupleValue,
    Value,
)
from .env import PartialValue


def is_none_test(left: Value, right: Value, negated: bool) -> Value:
    """``x is None`` / ``x is not None`` when x is surely None or surely an array;
    ``block_type is NextConvBlock`` when both are classes or functions of the code."""
    if isinstance(left, (ClassValue, FunctionValue)) and isinstance(right, (ClassValue, FunctionValue)):
        return ConstValue((left.node is right.node) != negated)
    if right != ConstValue(None):
        left, right = right, left
    if right != ConstValue(None):
        return UNKNOWN_VALUE
    if left == ConstValue(None):
        return ConstValue(not negated)
    if isinstance(left, AbstractArray) and not left.maybe_not_array or never_none(left):
        return ConstValue(negated)
    return UNKNOWN_VALUE


def never_none(value: Value) -> bool:
    """A value that is certainly not None: a class, function, module or layer, a known int,
    a container, a constant other than None (``norm_layer=nn.BatchNorm2d`` left to its
    default). An int symbol may stand for a config field that is None: not certain."""
    if isinstance(value, IntValue):
        return isinstance(value.value, int)
    if isinstance(value, ConstValue):
        return value.value is not None
    return isinstance(value, (ModuleRef, LayerValue, InstanceValue, ClassValue, FunctionValue,
                              PartialValue, TupleValue, DictValue, BoundMethod))


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


def known_truth(value: Value) -> bool | None:
    """``bool(value)`` when certain: None, a known number, string, list or dict; a class, a
    layer or a module (their truth is True)."""
    if isinstance(value, ConstValue) and (value.value is None or type(value.value) in (
            bool, int, float, str)):
        return bool(value.value)
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return bool(value.value)
    if isinstance(value, (TupleValue, DictValue)):
        return bool(value.items)
    if isinstance(value, (ClassValue, FunctionValue, ModuleRef, LayerValue)):
        return True
    return None


def yields_bool(node: cst.BaseExpression) -> bool:
    """An expression whose value is a bool whatever its operands: ``not x``, a comparison."""
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not) or \
        isinstance(node, cst.Comparison)


def constant(value: Value) -> tuple | None:
    """A known int, str, bool or None, in a 1-tuple (None is a constant too); else None."""
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return (value.value,)
    if isinstance(value, ConstValue) and (value.value is None or
                                          type(value.value) in (str, bool, int)):
        return (value.value,)
    return None


