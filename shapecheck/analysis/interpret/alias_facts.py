"""How the alias facts of a view follow from its base's: the kinds compose, and the layout of
a basic index is the base's layout indexed."""

from __future__ import annotations

from typing import Any

import libcst as cst

from ...runtime.dims import eq
from ...runtime.layout import Layout, overlap
from ..values import Alias


def replace(value: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for the plain frozen value classes of values.py (no
    ``__post_init__``, no ``init=False`` field, no slots), without its field lookup on every
    call: it runs for nearly every array the walk makes."""
    new = object.__new__(value.__class__)
    new.__dict__.update(value.__dict__, **changes)
    return new


def concrete(shape: tuple | None) -> bool:
    return shape is not None and all(isinstance(d, int) and not isinstance(d, bool) for d in shape)


def certainly_repeats(source: tuple | None, result: tuple | None) -> bool:
    """A broadcast from ``source`` to ``result`` reaches one element at several indices: a
    size-1 (or new) axis became a size known to exceed 1."""
    if source is None or result is None or len(result) < len(source):
        return False
    lead = len(result) - len(source)
    for i, d in enumerate(result):
        grown = isinstance(d, int) and d > 1
        if grown and (i < lead or eq(source[i - lead], 1) is True):
            return True
    return False


def compose(base: Alias | None, kind: str, repeats: bool = False) -> Alias | None:
    """A view of ``kind`` taken of an array whose alias facts are ``base``; "same" is the
    operand's own kind."""
    if base is None:
        return None if kind == "same" else Alias(None, kind, repeats=repeats)
    if base.view == "readonly" and kind in ("view", "same"):
        kind = "readonly"
    elif base.view == "maybe" and kind != "none":
        kind = "maybe"
    elif base.view == "repeated" and kind == "view":
        kind = "repeated"
    elif kind == "same":
        kind = base.view
    return Alias(base.storage, kind, repeats=base.repeats or repeats, deps=base.deps,
                 multi_view=base.multi_view if kind != "none" else None)


def index_layout(layout: Layout, items: Any) -> Layout | None:
    """The layout of a basic index into ``layout``; None when the runtime cannot place it."""
    try:
        return layout.index(items)
    except Exception:  # an index the layout cannot read: the place is unknown, not an error
        return None


def may_overlap(a: Layout | None, b: Layout | None) -> bool:
    if a is None or b is None:
        return True
    return overlap(a, b) is not False


def writer_name(node: cst.BaseExpression | None) -> str | None:
    """The name a write goes through: ``x`` for ``x[0] = 1`` or ``x.add_(1)``."""
    while node is not None:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, (cst.Subscript, cst.Attribute)):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None
    return None
