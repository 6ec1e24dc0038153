"""Python's builtins and the standard modules code computes sizes with: len, range, int,
isinstance, any/all, zip and enumerate, setattr/getattr, constant strings' methods, math and
operator."""

from __future__ import annotations

import math

import libcst as cst

from ...runtime.dims import UNKNOWN, eq
from ..values import (
    UNKNOWN_BOOL,
    UNKNOWN_VALUE,
    AbstractArray,
    ConstValue,
    DictValue,
    FloatValue,
    InstanceValue,
    IntValue,
    Iterable,
    ModuleRef,
    NamespaceNames,
    TupleValue,
    Value,
)
from .classes import is_callable, library_defines, type_of
from .env import StrMethod
from .names import MORE_KEYWORDS, OPERATOR_FUNCTIONS

# math's functions of numbers: those that answer an int, and those that answer a float.
_MATH_INTS = frozenset({"floor", "ceil", "trunc", "isqrt", "gcd", "lcm", "comb", "perm",
                        "factorial"})
_MATH_FLOATS = frozenset({"sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "pow", "sin",
                          "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                          "erf", "erfc", "gamma", "lgamma", "hypot", "fabs", "fsum", "radians",
                          "degrees", "copysign", "fmod", "cbrt", "exp2"})


def math_result(name: str, args: list) -> Value:
    """``math.sqrt(d)`` is a float and ``math.ceil(x)`` an int, whatever d and x are; of a
    known number, ``math.ceil`` and ``math.floor`` are that int."""
    if name in ("ceil", "floor") and len(args) == 1 and isinstance(args[0], ConstValue) and \
            type(args[0].value) in (int, float) and abs(args[0].value) < 1e18:
        return IntValue(math.ceil(args[0].value) if name == "ceil" else math.floor(args[0].value))
    if name in _MATH_INTS:
        return IntValue(UNKNOWN)
    if name in _MATH_FLOATS:
        return FloatValue()
    return UNKNOWN_VALUE


def _number(value: Value) -> int | float | None:
    """A known int or float (not a bool)."""
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return value.value
    if isinstance(value, ConstValue) and type(value.value) in (int, float):
        return value.value
    return None


def _any_all(name: str, items: Value) -> Value:
    """any/all of known bools: a tuple or list literal exactly; a comprehension, whose one
    element stands for every item (there may be none), when the empty case agrees."""
    def known(value: Value) -> bool | None:
        return value.value if isinstance(value, ConstValue) and isinstance(value.value, bool) else None

    if isinstance(items, TupleValue):
        values = [known(item) for item in items.items]
        if None in values:
            return UNKNOWN_VALUE
        return ConstValue(any(values) if name == "any" else all(values))
    if isinstance(items, Iterable):
        value = known(items.element)
        if name == "any" and value is False or name == "all" and value is True:
            return ConstValue(value)
    return UNKNOWN_VALUE


def str_method(method: StrMethod, args: list, kwargs: dict) -> Value:
    """``"Same".lower()``: the method run on the constant with constant str/int arguments."""
    if kwargs or not all(isinstance(a, ConstValue) and isinstance(a.value, str) or
                         isinstance(a, IntValue) and isinstance(a.value, int) for a in args):
        return UNKNOWN_VALUE
    try:
        answer = getattr(method.text, method.name)(*(a.value for a in args))
    except (TypeError, ValueError):
        return UNKNOWN_VALUE
    if isinstance(answer, (list, tuple)):  # "batchnorm-2d".split("-"): a list of constants
        return TupleValue(tuple(ConstValue(part) for part in answer), is_list=isinstance(answer, list))
    if isinstance(answer, int) and not isinstance(answer, bool):
        return IntValue(answer)
    return ConstValue(answer)


def _to_int(name: str, value: Value) -> Value:
    """``int(x)`` / ``round(x)``: an int keeps its value (``round(inp * expand_ratio)`` of ints),
    a float equal to a size is that size, a known number is converted as Python does."""
    if isinstance(value, IntValue):
        return value
    if isinstance(value, FloatValue) and value.integral is not None:
        return IntValue(value.integral)
    known = value.value if isinstance(value, ConstValue) else None
    if isinstance(known, (int, float)) and not isinstance(known, bool) and math.isfinite(known) \
            and abs(known) < 1e18:
        return IntValue(int(known) if name == "int" else round(known))
    if name == "int" or isinstance(value, FloatValue):
        return IntValue(UNKNOWN)  # int(mlp_ratio * dim) is an int, or raises
    return UNKNOWN_VALUE  # round() of an array is an array


def _dict_of(args: list, kwargs: dict) -> Value:
    """``dict(k=v)``, ``dict(model_args, **kwargs)``: the mapping's items, the keywords over
    them; unknown when the mapping or the keywords are (``**extra`` of unknown keys)."""
    if MORE_KEYWORDS in kwargs or len(args) > 1 or args and not isinstance(args[0], DictValue):
        return UNKNOWN_VALUE
    merged = dict(args[0].items) if args else {}
    merged.update(kwargs)
    return DictValue(tuple(merged.items()))


class Builtins:
    def call_builtin(self, node, name: str, args: list, kwargs: dict) -> Value:
        if name == "dir" and len(args) == 1 and isinstance(args[0], ModuleRef) and not kwargs:
            return NamespaceNames(args[0].qualname)
        if name == "hasattr" and len(args) == 2 and isinstance(args[0], ModuleRef) and \
                isinstance(args[1], ConstValue) and isinstance(args[1].value, str):
            # hasattr(F, "scaled_dot_product_attention"): a feature test of the torch version
            return ConstValue(True) if library_defines(args[0].qualname, args[1].value) \
                else UNKNOWN_BOOL
        if name == "callable" and len(args) == 1 and not kwargs:
            known = is_callable(args[0])
            return UNKNOWN_VALUE if known is None else ConstValue(known)
        if name == "isinstance" and len(args) == 2:
            return self.isinstance_of(*args)
        if name == "type" and len(args) == 1 and not kwargs:
            return type_of(args[0])
        if name == "issubclass" and len(args) == 2:
            return self.issubclass_of(*args)
        if name in ("any", "all") and len(args) == 1 and not kwargs:
            return _any_all(name, args[0])
        if name in ("setattr", "getattr") and len(args) in (2, 3) and not kwargs and \
                isinstance(args[0], InstanceValue) and isinstance(args[1], ConstValue) and \
                isinstance(args[1].value, str):
            # setattr(self, f"stage{i}", stage) / getattr(self, name): the attribute so named
            if name == "setattr" and len(args) == 3:
                args[0].attrs[args[1].value] = args[2]
                return ConstValue(None)
            if name == "getattr" and args[1].value in args[0].attrs:
                return args[0].attrs[args[1].value]
            return UNKNOWN_VALUE
        if name == "dict":
            return _dict_of(args, kwargs)
        if name == "len" and args:
            value = args[0]
            items = self.items_of(value)
            if items is not None:
                return IntValue(len(items))
            if isinstance(value, AbstractArray) and value.shape:
                return IntValue(value.shape[0])
            return IntValue(UNKNOWN)
        iterated = self.iteration_builtin(name, args, kwargs)
        if iterated is not None:
            return iterated
        if name == "range":
            for bound in args:
                self.mark_sized(bound)
            return Iterable(IntValue(UNKNOWN))
        if name == "enumerate" and args:
            return Iterable(TupleValue((IntValue(UNKNOWN), self.element_of(args[0]))))
        if name == "zip" and args:
            return Iterable(TupleValue(tuple(self.element_of(a) for a in args)))
        if name in ("reversed", "sorted", "iter") and args:
            return Iterable(self.element_of(args[0]))
        if name in ("tuple", "list") and args:
            value = args[0]
            if isinstance(value, TupleValue):
                return TupleValue(value.items, name == "list")
            if isinstance(value, AbstractArray):
                return self.listed_rows(value, name == "list")
            return UNKNOWN_VALUE
        if name in ("int", "round") and len(args) == 1 and not kwargs:
            return _to_int(name, args[0])
        if name == "float" and len(args) == 1 and not kwargs:
            # float('-inf'), float(3): a conversion of a known constant, nothing runs.
            known = args[0].value if isinstance(args[0], (ConstValue, IntValue)) else None
            if isinstance(known, (str, int, float)) and not isinstance(known, bool):
                try:
                    return ConstValue(float(known))
                except (TypeError, ValueError, OverflowError):
                    return UNKNOWN_VALUE
            return FloatValue()  # float(anything) is a float, or raises
        if name in ("min", "max") and len(args) == 2 and all(isinstance(a, IntValue) for a in args):
            x, y = args[0].value, args[1].value
            if isinstance(x, int) and isinstance(y, int):
                return IntValue(min(x, y) if name == "min" else max(x, y))
            return IntValue(x if eq(x, y) is True else UNKNOWN)
        if name in ("min", "max") and len(args) >= 2 and not kwargs and all(
                isinstance(a, (IntValue, ConstValue)) and _number(a) is not None for a in args):
            # max(1.0, width_mult): Python's answer, which keeps the winner's type
            numbers = [_number(a) for a in args]
            return args[numbers.index(min(numbers) if name == "min" else max(numbers))]
        if name in ("min", "max") and len(args) >= 2 and not kwargs and all(
                isinstance(a, FloatValue) or isinstance(a, (IntValue, ConstValue)) and
                _number(a) is not None for a in args) and \
                all(isinstance(a, FloatValue) or isinstance(_number(a), float) for a in args):
            return FloatValue()  # max(k_h / q_h, 1.0): floats, whichever wins
        if name == "abs" and args and isinstance(args[0], AbstractArray):
            return args[0].derived(args[0].shape, args[0].origin, dtype=args[0].dtype)
        if name == "super":
            return self.super_value(args)
        return UNKNOWN_VALUE

    def operator_call(self, node: cst.Call, name: str, args: list, kwargs: dict,
                      arg_nodes: list) -> Value:
        """``operator.mul(x, scale)`` is ``x * scale``: the same binary op, as the code reads."""
        op = OPERATOR_FUNCTIONS.get(name)
        if op is None or kwargs or len(args) != 2 or len(arg_nodes) != 2:
            return UNKNOWN_VALUE
        return self.binary(node, op, args[0], args[1], arg_nodes[0], arg_nodes[1])


__all__ = ["Builtins", "math_result", "str_method"]
