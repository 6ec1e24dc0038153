"""Dicts of keyword arguments as factories use them: ``kwargs.pop("groups", 1)``, ``setdefault``.

A layer factory reads and edits the keywords its caller gave before it builds
the layer (``depthwise = kwargs.pop("depthwise", False)``, then
``nn.Conv2d(..., **kwargs)``). A dict whose keys are all known (a literal, or
the ``**kwargs`` a call filled) follows those edits, so the layer is built with
what the caller asked for. Anything else about it (a key that is not a
constant string, a method not listed here) makes it unknown, as before.
"""

from __future__ import annotations

import libcst as cst

from ..values import UNKNOWN_VALUE, ConstValue, DictValue, Value

DICT_EDITS = frozenset({"pop", "setdefault", "update"})


def _key(value: Value) -> str | None:
    return value.value if isinstance(value, ConstValue) and isinstance(value.value, str) else None


def _without(d: DictValue, key: str) -> DictValue:
    return DictValue(tuple((k, v) for k, v in d.items if k != key))


def _with(d: DictValue, key: str, value: Value) -> DictValue:
    if d.get(key) is None:
        return DictValue(d.items + ((key, value),))
    return DictValue(tuple((k, value if k == key else v) for k, v in d.items))


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
        if not isinstance(holder, DictValue):
            return None
        name = func.attr.value
        if name == "update":
            other = args[0] if len(args) == 1 else DictValue(()) if not args else None
            if not isinstance(other, DictValue):
                self.assign(func.value, UNKNOWN_VALUE, node)
                return UNKNOWN_VALUE
            edited = holder
            for key, value in (*other.items, *kwargs.items()):
                edited = _with(edited, key, value)
            self.assign(func.value, edited, node)
            return ConstValue(None)
        key = _key(args[0]) if args and not kwargs and len(args) <= 2 else None
        if key is None:
            self.assign(func.value, UNKNOWN_VALUE, node)
            return UNKNOWN_VALUE
        found = holder.get(key)
        default = args[1] if len(args) == 2 else None
        if name == "pop":
            self.assign(func.value, _without(holder, key), node)
            if found is not None:
                return found
            return default if default is not None else UNKNOWN_VALUE  # no default: a KeyError
        # setdefault
        if found is not None:
            return found
        value = default if default is not None else ConstValue(None)
        self.assign(func.value, _with(holder, key, value), node)
        return value

    def dict_store(self, target: cst.Subscript, value: Value, source: cst.CSTNode) -> bool:
        """``kwargs["groups"] = g`` on a dict of known keys: it holds g from here on."""
        if not isinstance(target.value, (cst.Name, cst.Attribute)) or len(target.slice) != 1 or \
                not isinstance(target.slice[0].slice, cst.Index):
            return False
        with self.suppressed():
            holder = self.eval(target.value)
            key = _key(self.eval(target.slice[0].slice.value))
        if not isinstance(holder, DictValue) or key is None:
            return False
        self.assign(target.value, _with(holder, key, value), source)
        return True


def dict_contains(key: Value, container: Value) -> Value | None:
    """``"groups" in kwargs`` for a dict of known keys; None when it cannot be told."""
    name = _key(key)
    if name is None or not isinstance(container, DictValue):
        return None
    return ConstValue(container.get(name) is not None)


__all__ = ["DICT_EDITS", "Dicts", "dict_contains"]
