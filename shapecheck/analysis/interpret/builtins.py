"""Python's builtins and the standard library the walker knows: len, range, int, min...,
math's numbers, and argparse's option defaults."""

from __future__ import annotations

import collections.abc
import math

from ...runtime.dims import UNKNOWN, eq
from ...runtime.nn.sizes import is_layer_subclass
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    ClassValue,
    ConstValue,
    DictValue,
    FloatValue,
    InstanceValue,
    IntValue,
    LayerValue,
    ModuleRef,
    TupleValue,
    Value,
)
from .env import ArgParserMethod, Iterable, NamespaceValue

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


_PYTHON_TYPES = {"builtins.int": int, "builtins.float": float, "builtins.bool": bool,
                 "builtins.str": str, "builtins.list": list, "builtins.tuple": tuple,
                 "builtins.dict": dict}


_ABSTRACT_TYPES = {"collections.abc.Iterable": collections.abc.Iterable,
                   "collections.abc.Sequence": collections.abc.Sequence,
                   "collections.abc.Mapping": collections.abc.Mapping,
                   "typing.Sequence": collections.abc.Sequence, "typing.Iterable": collections.abc.Iterable,
                   "typing.Mapping": collections.abc.Mapping}


def _python_type(value: Value) -> type | None:
    """The Python type of a value whose type is certain."""
    if isinstance(value, IntValue):
        return int
    if isinstance(value, ConstValue):
        return type(value.value)
    if isinstance(value, TupleValue):
        return list if value.is_list else tuple
    if isinstance(value, DictValue):
        return dict
    return None


def _subclass_of(cls: ClassValue, target: Value) -> bool | None:
    """Whether a class from the analyzed code derives from ``target`` (a class of the code, or
    torch.nn.Module); None when a base is not known."""
    if isinstance(target, ClassValue) and cls.node is target.node:
        return True
    if isinstance(target, ModuleRef) and target.qualname == "torch.nn.Module" and cls.is_nn_module:
        return True
    answer: bool | None = False
    for base in cls.bases:
        if isinstance(base, ClassValue):
            inner = _subclass_of(base, target)
        elif isinstance(base, ModuleRef) and base.qualname == "torch.nn.Module":
            inner = False  # Module itself was answered above
        elif isinstance(base, ModuleRef) and isinstance(target, ModuleRef) and \
                base.qualname.startswith("torch.nn.") and target.qualname.startswith("torch.nn."):
            inner = is_layer_subclass(base.qualname[9:], target.qualname[9:])
        elif isinstance(base, ModuleRef) and isinstance(target, ClassValue):
            inner = False  # a library class never derives from a class of the code
        else:
            inner = None  # what this base derives from is not read
        if inner:
            return True
        if inner is None:
            answer = None
    return answer


def instance_test(value: Value, classes: Value) -> Value:
    """``isinstance(m, nn.Conv2d)``, ``isinstance(block, Bottleneck)``, ``isinstance(d, (list,
    tuple))``: True or False when the value's class and the classes are known, else unknown."""
    targets = classes.items if isinstance(classes, TupleValue) and not classes.is_list else (classes,)
    answers = []
    for target in targets:
        answer = None
        if isinstance(value, LayerValue) and isinstance(target, ModuleRef) and \
                target.qualname.startswith("torch.nn.") and target.qualname.count(".") == 2:
            answer = is_layer_subclass(value.kind, target.qualname.rsplit(".", 1)[1])
        elif isinstance(value, InstanceValue) and isinstance(target, (ClassValue, ModuleRef)):
            answer = _subclass_of(value.cls, target)
        elif isinstance(target, ModuleRef) and target.qualname in ("torch.Tensor", "numpy.ndarray"):
            if isinstance(value, AbstractArray) and not value.maybe_not_array:
                answer = value.library == target.qualname.split(".")[0]
            elif _python_type(value) is not None:
                answer = False  # a list, a dict, a number is no array
        elif isinstance(target, ModuleRef) and target.qualname in _ABSTRACT_TYPES:
            known = _python_type(value)
            answer = None if known is None else issubclass(known, _ABSTRACT_TYPES[target.qualname])
        elif isinstance(target, ModuleRef) and target.qualname in _PYTHON_TYPES:
            known = _python_type(value)
            answer = None if known is None else issubclass(known, _PYTHON_TYPES[target.qualname])
        if answer:
            return ConstValue(True)
        answers.append(answer)
    return ConstValue(False) if answers and all(a is False for a in answers) else UNKNOWN_VALUE


class Builtins:
    def parser_call(self, method: ArgParserMethod, args: list, kwargs: dict) -> Value:
        """``add_argument("--hidden-size", type=int, default=256)`` records the option's
        default under its destination; ``parse_args()`` answers the defaults: a script run
        without flags, which is one way it certainly runs."""
        options = method.parser.options
        if method.name == "add_argument":
            flags = [a.value for a in args if isinstance(a, ConstValue) and isinstance(a.value, str)]
            dest = kwargs.get("dest")
            if isinstance(dest, ConstValue) and isinstance(dest.value, str):
                name = dest.value
            else:
                long = [f for f in flags if f.startswith("--")]
                name = (long or flags or [""])[0].lstrip("-").replace("-", "_")
            if name.isidentifier():
                default = kwargs.get("default")
                action = kwargs.get("action")
                if isinstance(action, ConstValue) and action.value in ("store_true", "store_false"):
                    default = ConstValue(action.value == "store_false")
                options[name] = default if default is not None else (
                    ConstValue(None) if flags and flags[0].startswith("-") else UNKNOWN_VALUE)
            return UNKNOWN_VALUE
        if method.name == "add_argument_group":
            return method.parser  # a group's options are the parser's
        if method.name in ("parse_args", "parse_known_args"):
            namespace = NamespaceValue(tuple(options.items()))
            return namespace if method.name == "parse_args" else TupleValue(
                (namespace, UNKNOWN_VALUE))
        return UNKNOWN_VALUE

    def call_builtin(self, node, name: str, args: list, kwargs: dict) -> Value:
        if name == "isinstance" and len(args) == 2 and not kwargs:
            return instance_test(args[0], args[1])
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
            return DictValue(tuple(kwargs.items())) if not args else UNKNOWN_VALUE
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
        if name in ("int", "round") and len(args) == 1 and isinstance(args[0], IntValue):
            return args[0]  # round(inp * expand_ratio) of ints is that int
        if name in ("int", "round") and len(args) == 1 and not kwargs and \
                isinstance(args[0], FloatValue) and args[0].integral is not None:
            return IntValue(args[0].integral)
        if name in ("int", "round") and len(args) == 1 and not kwargs and \
                isinstance(args[0], ConstValue) and type(args[0].value) is float and \
                abs(args[0].value) < 1e18:
            return IntValue(int(args[0].value) if name == "int" else round(args[0].value))
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
            picked = args[numbers.index(min(numbers) if name == "min" else max(numbers))]
            return picked
        if name == "abs" and args and isinstance(args[0], AbstractArray):
            return args[0].derived(args[0].shape, args[0].origin, dtype=args[0].dtype)
        if name == "super":
            return self.super_value(args)
        return UNKNOWN_VALUE

