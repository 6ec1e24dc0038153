"""Dicts of keyword arguments as factories use them: ``kwargs.pop("groups", 1)``, ``setdefault``.

A layer factory reads and edits the keywords its caller gave before it builds
the layer (``depthwise = kwargs.pop("depthwise", False)``, then
``nn.Conv2d(..., **kwargs)``). A dict whose keys are all known (a literal, or
the ``**kwargs`` a call filled) follows those edits, so the layer is built with
what the caller asked for. Anything else about it (a key that is not a
constant string, a method not listed here) makes it unknown, as before.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..values import (
    UNKNOWN_VALUE,
    ConstValue,
    DictValue,
    PartialDict,
    Value,
    join_values,
)

DICT_EDITS = frozenset({"pop", "setdefault", "update"})
_DICT_METHODS = DICT_EDITS | {"get", "keys", "values", "items"}


def _key(value: Value) -> str | None:
    return value.value if isinstance(value, ConstValue) and isinstance(value.value, str) else None


def _parts(d: DictValue | PartialDict) -> tuple[dict, dict]:
    """The keys every path put in, and those only some did, with their values."""
    return dict(d.items), dict(d.maybe) if isinstance(d, PartialDict) else {}


def _made(sure: dict, maybe: dict) -> DictValue | PartialDict:
    return PartialDict(tuple(sure.items()), tuple(maybe.items())) if maybe else \
        DictValue(tuple(sure.items()))


class Dicts:
    def dict_edit(self, node: cst.Call, args: list, kwargs: dict) -> Value | None:
        """``d.pop(k[, default])``, ``d.setdefault(k, v)``, ``d.update(other)`` on a dict of
        known keys held by a name or attribute: the result, with the holder rebound to the
        edited dict. None when the call is no such edit (the caller handles it as before)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in DICT_EDITS and
                isinstance(func.value, (cst.Name, cst.Attribute))):
            return None
        with self.suppressed():
            holder = self.eval(func.value)
        if not isinstance(holder, (DictValue, PartialDict)):
            return None
        sure, maybe = _parts(holder)
        name = func.attr.value
        if name == "update":
            other = args[0] if len(args) == 1 else DictValue(()) if not args else None
            if not isinstance(other, DictValue):
                self.assign(func.value, UNKNOWN_VALUE, node)
                return UNKNOWN_VALUE
            for key, value in (*other.items, *kwargs.items()):
                sure[key] = value
                maybe.pop(key, None)
            self.assign(func.value, _made(sure, maybe), node)
            return ConstValue(None)
        key = _key(args[0]) if args and not kwargs and len(args) <= 2 else None
        if key is None:
            self.assign(func.value, UNKNOWN_VALUE, node)
            return UNKNOWN_VALUE
        default = args[1] if len(args) == 2 else None
        if name == "pop":
            if key in sure:
                found = sure.pop(key)
            elif key in maybe:  # the value some paths put in, or the default (or KeyError)
                found = join_values(maybe.pop(key), default if default is not None else
                                    UNKNOWN_VALUE)
            else:
                found = default if default is not None else UNKNOWN_VALUE  # no default: KeyError
            self.assign(func.value, _made(sure, maybe), node)
            return found
        # setdefault
        if key in sure:
            return sure[key]
        value = default if default is not None else ConstValue(None)
        if key in maybe:
            value = join_values(maybe.pop(key), value)
        sure[key] = value
        self.assign(func.value, _made(sure, maybe), node)
        return value

    def dict_store(self, target: cst.Subscript, value: Value, source: cst.CSTNode) -> bool:
        """``kwargs["groups"] = g`` on a dict of known keys: it holds g from here on."""
        if not isinstance(target.value, (cst.Name, cst.Attribute)) or len(target.slice) != 1 or \
                not isinstance(target.slice[0].slice, cst.Index):
            return False
        with self.suppressed():
            holder = self.eval(target.value)
            key = _key(self.eval(target.slice[0].slice.value))
        if not isinstance(holder, (DictValue, PartialDict)) or key is None:
            return False
        sure, maybe = _parts(holder)
        sure[key] = value
        maybe.pop(key, None)
        self.assign(target.value, _made(sure, maybe), source)
        return True


class _InPlaceUses(cst.CSTVisitor):
    """Counts the uses of a name, and those that only read or edit the dict it holds where it
    is: ``d[k]``, ``d[k] = v``, ``k in d``, ``d.pop(k)``, ``if not d``, and ``g(d)`` for a
    function ``g`` of the code that only does the same with it (``hands_on(g, i)`` says
    whether its parameter ``i`` does). A nested function, a ``del`` or any other use (``d =
    {}``, ``e = d``) may put another dict under the name, or the same dict under another one."""

    def __init__(self, name: str, hands_on: Callable[[str, int], bool] | None = None) -> None:
        self.name = name
        self.uses = 0
        self.allowed: set[int] = set()
        self.other = False
        self.hands_on = hands_on

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._base(node.expression)  # if not kwargs: return

    def visit_If(self, node: cst.If) -> None:
        self._base(node.test)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if isinstance(node.operator, (cst.And, cst.Or)):
            self._base(node.left)
            self._base(node.right)

    def _base(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name) and node.value == self.name:
            self.allowed.add(id(node))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.uses += 1

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._base(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _DICT_METHODS:
            self._base(node.func.value)
        elif isinstance(node.func, cst.Name) and self.hands_on is not None:
            for i, arg in enumerate(node.args):
                if arg.keyword is not None or arg.star:
                    break
                if isinstance(arg.value, cst.Name) and arg.value.value == self.name and \
                        self.hands_on(node.func.value, i):
                    self._base(arg.value)

    def visit_ComparisonTarget(self, node: cst.ComparisonTarget) -> None:
        if isinstance(node.operator, (cst.In, cst.NotIn)):
            self._base(node.comparator)

    def visit_Del(self, node: cst.Del) -> None:
        self.other = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.other = True
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.other = True
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.other = True
        return False


def edited_in_place(func: cst.FunctionDef, name: str,
                    hands_on: Callable[[str, int], bool] | None = None) -> bool:
    """The body only reads the dict its parameter ``name`` holds, or edits it in place: what
    the name holds when the body ends is what the caller's dict holds after the call."""
    uses = _InPlaceUses(name, hands_on)
    func.body.visit(uses)
    return not uses.other and uses.uses == len(uses.allowed)


def dict_contains(key: Value, container: Value) -> Value | None:
    """``"groups" in kwargs`` for a dict of known keys; None when it cannot be told."""
    name = _key(key)
    if name is None or not isinstance(container, (DictValue, PartialDict)):
        return None
    sure, maybe = _parts(container)
    if name in maybe:
        return None  # only some paths put it in
    return ConstValue(name in sure)


__all__ = ["DICT_EDITS", "Dicts", "dict_contains", "edited_in_place"]
