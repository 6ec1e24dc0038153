"""Certain rewrites for four findings, decided where they are made, from the values the walk knows.

A fix is attached only when the rewrite surely removes the finding and
changes nothing else: the reduction that lost its axis is the operand itself
(not a name bound elsewhere, which other reads may need as it is); the
snapshot is an array of a known library; the chained index has the one shape
that folds into a single index. The rewrite itself is syntax, done by
lint/fixes/ on the span given here.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ...runtime.rules.reductions import keepdims_keyword
from ..findings import Fix
from ..values import AbstractArray, Alias, ConstValue, IntValue, ModuleRef, TupleValue
from .env import ArrayMethod

_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool")


def keepdims_fix(interp: Any, reduced_node: cst.CSTNode, reduced: AbstractArray) -> Fix | None:
    """SC103: ``x - x.mean(axis=1)`` -> ``x - x.mean(axis=1, keepdims=True)``."""
    if not isinstance(reduced_node, cst.Call) or any(a.star for a in reduced_node.args):
        return None
    with interp.suppressed():
        func = interp.eval(reduced_node.func)
    if isinstance(func, ArrayMethod):
        op, library = func.name, func.array.library
    elif isinstance(func, ModuleRef) and func.library in ("numpy", "torch"):
        op, library = func.qualname.rsplit(".", 1)[-1], func.library
    else:
        return None  # a function of the code's own that returns a reduction: not ours to change
    keyword = keepdims_keyword(op, library)
    if keyword is None or library != reduced.library:
        return None
    return Fix("keepdims", interp.span(reduced_node), keyword, f"add {keyword}=True")


def copy_fix(interp: Any, alias: Alias, name: str) -> Fix | None:
    """SC304: ``x_old = x`` -> ``x_old = x.copy()`` (``.clone()`` in torch)."""
    target = alias.snapshot_node
    value = interp.frame.scope.lookup(name)
    if not isinstance(target, cst.Name) or not isinstance(value, AbstractArray) or \
            value.library not in ("numpy", "torch") or value.maybe_not_array:
        return None
    if alias.storage is None or alias.storage.id in interp.parameter_owners:
        return None  # a state_dict() or parameters(): many tensors, which no .clone() copies
    method = "clone" if value.library == "torch" else "copy"
    return Fix("copy", interp.span(target), method, f"take a copy with .{method}()")


def reshape_fix(interp: Any, node: cst.CSTNode) -> Fix | None:
    """SC308: ``x.t().view(-1)`` -> ``x.t().reshape(-1)`` (``view_as`` -> ``reshape_as``)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return None
    method = node.func.attr.value
    if method not in ("view", "view_as"):
        return None
    replacement = "reshape" if method == "view" else "reshape_as"
    return Fix("reshape", interp.span(node.func.attr), replacement, f"use .{replacement}()")


def index_fix(interp: Any, target: cst.BaseExpression | None, copied: cst.BaseExpression) -> Fix | None:
    """SC301: ``a[rows][:, cols] = v`` -> ``a[np.ix_(rows, cols)] = v``; ``a[rows][:, 0] = v``
    and ``a[rows][:, 1:3] = v`` -> ``a[rows, 0] = v``, ``a[rows, 1:3] = v`` (NumPy)."""
    if not (isinstance(target, cst.Subscript) and target.value is copied and isinstance(copied, cst.Subscript)):
        return None
    if len(copied.slice) != 1 or not isinstance(copied.slice[0].slice, cst.Index) or \
            copied.slice[0].slice.star is not None or len(target.slice) != 2:
        return None
    whole, second = target.slice[0].slice, target.slice[1].slice
    if not (isinstance(whole, cst.Slice) and whole.lower is None and whole.upper is None and whole.step is None):
        return None
    with interp.suppressed():
        base = interp.eval(copied.value)
        rows = interp.eval(copied.slice[0].slice.value)
        column = interp.eval(second.value) if isinstance(second, cst.Index) else None
    if not (isinstance(base, AbstractArray) and base.library == "numpy" and base.shape is not None and
            len(base.shape) >= 2 and _one_dim_index(rows)):
        return None
    if isinstance(second, cst.Slice) or isinstance(column, IntValue) and second.star is None:
        return Fix("index", interp.span(target), "", "index once: a[rows, j]")
    if isinstance(second, cst.Index) and second.star is None and _one_dim_index(column):
        numpy = _numpy_name(interp)
        if numpy is not None:
            return Fix("index", interp.span(target), numpy, f"index once with {numpy}.ix_")
    return None


def _one_dim_index(value: Any) -> bool:
    """A 1-D integer or boolean index: an array of rank 1, or a list literal of ints."""
    if isinstance(value, AbstractArray):
        return value.shape is not None and len(value.shape) == 1 and (value.dtype is None or
                                                                      value.dtype in _INT_DTYPES)
    if isinstance(value, TupleValue) and value.is_list and value.items:
        return all(isinstance(item, IntValue) or isinstance(item, ConstValue) and isinstance(item.value, bool)
                   for item in value.items)
    return False


def _numpy_name(interp: Any) -> str | None:
    """The name numpy has where the fix goes (``np`` when it is that), None when none does."""
    scope = interp.frame.scope
    names: list[str] = []
    while scope is not None:
        names += [name for name, value in scope.vars.items() if value == ModuleRef("numpy")]
        scope = scope.parent
    for name in sorted(set(names), key=lambda n: (n != "np", n)):
        if interp.frame.scope.lookup(name) == ModuleRef("numpy"):
            return name
    return None


__all__ = ["copy_fix", "index_fix", "keepdims_fix", "reshape_fix"]
