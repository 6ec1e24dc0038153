"""Comparisons, identity and membership of values that are no arrays: the facts that decide
which branch runs (``stride == 1``, ``mask is None``, ``mode in ("a", "b")``)."""

from __future__ import annotations

import operator
from typing import Any

from ...runtime.dims import compare as compare_dims
from ..values import (
    UNKNOWN_BOOL,
    UNKNOWN_VALUE,
    AbstractArray,
    BoundMethod,
    ClassValue,
    ConstValue,
    DictValue,
    DtypeValue,
    FloatValue,
    FunctionValue,
    GeneratorValue,
    IntValue,
    Iterable,
    LayerValue,
    ModuleRef,
    NamespaceNames,
    SetValue,
    SliceValue,
    TupleValue,
    UnknownBool,
    Value,
    is_bool,
    is_torch_nn_class,
)
from .classes import library_defines, same_type_name
from .dicts import dict_contains
from .env import PartialValue

_SCALARS = (bool, int, float, complex, str, bytes, type(None))

_ORDER = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
          "gt": operator.gt, "ge": operator.ge}


def _constant(value: Value) -> tuple[bool, Any]:
    """(True, the Python constant) when the value is one the analysis knows exactly."""
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return True, value.value
    if isinstance(value, ConstValue) and type(value.value) in _SCALARS:
        return True, value.value
    return False, None


def _scalar(value: Value) -> bool:
    """A Python number, str, bool or None: comparing two of them gives a bool."""
    return isinstance(value, (IntValue, FloatValue, UnknownBool)) or \
        isinstance(value, ConstValue) and type(value.value) in _SCALARS


def _verdict(decided: bool | None, surely_bool: bool) -> Value:
    if decided is not None:
        return ConstValue(decided)
    return UNKNOWN_BOOL if surely_bool else UNKNOWN_VALUE


def compare(op: str, left: Value, right: Value) -> Value:
    """``left <op> right`` (eq, ne, lt, le, gt, ge) of two values that are no arrays.

    Ints go through the Dim algebra, which decides ``n + 1 > n`` and ``16 == 32`` whatever n
    is; other constants compare as Python does. The answer is a known bool, a bool nobody
    knows (two scalars), or unknown (an object whose ``==`` may return anything).
    """
    if isinstance(left, IntValue) and isinstance(right, IntValue):
        return _verdict(compare_dims(op, left.value, right.value), True)
    known_left, x = _constant(left)
    known_right, y = _constant(right)
    if known_left and known_right:
        try:
            return ConstValue(bool(_ORDER[op](x, y)))
        except TypeError:  # "a" < 1 raises: nothing after it is decided
            return UNKNOWN_VALUE
    return _verdict(None, _scalar(left) and _scalar(right))


_SINGLETONS = (None, True, False)


def _surely_not_singleton(value: Value) -> bool:
    """Surely neither None nor a bool. An int symbol may be a config field that is None, an
    instance may be a declared parameter left to its default None, and a library name may be
    a constant (``torch.version.cuda``), so none of those is sure."""
    if isinstance(value, AbstractArray):
        return not value.maybe_not_array
    if isinstance(value, IntValue):
        return isinstance(value.value, int)
    if isinstance(value, ConstValue):
        return not any(value.value is s for s in _SINGLETONS)
    if isinstance(value, ModuleRef):
        return is_torch_nn_class(value.qualname)  # norm_layer=nn.BatchNorm2d left to its default
    return isinstance(value, (FloatValue, TupleValue, DictValue, Iterable, LayerValue,
                              FunctionValue, ClassValue, BoundMethod, DtypeValue, GeneratorValue,
                              SliceValue, PartialValue))


def identity(left: Value, right: Value, negated: bool) -> Value:
    """``left is right`` (``is not`` when ``negated``): decided when one side is None, True or
    False and the other is a known constant or surely something else."""
    if isinstance(left, (ClassValue, FunctionValue)) and isinstance(right, (ClassValue, FunctionValue)):
        # ``block_type is NextConvBlock``: two classes or functions of the code
        return ConstValue((left.node is right.node) != negated)
    same = same_type_name(left, right)
    if same is not None:  # ``type(window) is tuple`` of an array
        return ConstValue(same != negated)
    decided = None
    for a, b in ((left, right), (right, left)):
        if not (isinstance(b, ConstValue) and any(b.value is s for s in _SINGLETONS)):
            continue
        if isinstance(a, ConstValue) and any(a.value is s for s in _SINGLETONS):
            decided = a.value is b.value
        elif _surely_not_singleton(a) or b.value is None and isinstance(a, UnknownBool):
            decided = False
        break
    return _verdict(None if decided is None else decided != negated, True)


def membership(needle: Value, container: Value, negated: bool) -> Value:
    """``needle in container`` (``not in`` when ``negated``) for a tuple or list of known
    items, a dict literal's keys, or a str."""
    decided = None
    contained = dict_contains(needle, container)
    if contained is not None:
        decided = contained.value
    elif isinstance(container, (TupleValue, SetValue)):
        answers = [_equal(needle, item) for item in container.items]
        if ConstValue(True) in answers:
            decided = True
        elif all(a == ConstValue(False) for a in answers):
            decided = False
    elif isinstance(container, ConstValue) and isinstance(container.value, str) and \
            isinstance(needle, ConstValue) and isinstance(needle.value, str):
        decided = needle.value in container.value
    elif isinstance(container, NamespaceNames) and isinstance(needle, ConstValue) and \
            isinstance(needle.value, str) and library_defines(container.qualname, needle.value):
        decided = True  # 'hardswish' in dir(torch.nn.functional); no name is surely absent
    return _verdict(None if decided is None else decided != negated, True)


def _equal(left: Value, right: Value) -> Value:
    """``left == right`` for membership: classes and functions compare by identity (a class
    of the code is never a torch class), torch.nn classes by name; other values as
    ``compare`` decides."""
    code = (ClassValue, FunctionValue)
    if isinstance(left, code) and isinstance(right, code):
        return ConstValue(left.node is right.node)
    torch_class = [v for v in (left, right) if isinstance(v, ModuleRef) and is_torch_nn_class(v.qualname)]
    if len(torch_class) == 2:
        return ConstValue(left.qualname == right.qualname) if left.qualname == right.qualname or \
            left.qualname.rsplit(".", 1)[-1] != right.qualname.rsplit(".", 1)[-1] else UNKNOWN_BOOL
    if torch_class and isinstance(left if torch_class[0] is right else right, ClassValue):
        return ConstValue(False)
    return compare("eq", left, right)


def conjunction(parts: list[Value]) -> Value:
    """The value of ``a < b < c`` from its comparisons: false as soon as one is, true when all
    are, else a bool nobody knows when each surely is a bool."""
    if any(p == ConstValue(False) and is_bool(p) for p in parts):
        return ConstValue(False)
    if all(p == ConstValue(True) and is_bool(p) for p in parts):
        return ConstValue(True)
    return UNKNOWN_BOOL if all(is_bool(p) for p in parts) else UNKNOWN_VALUE
