"""The analyzer's beliefs laid out along the source: each array a name is bound to, the expression at a place.

``shapecheck shapes`` prints the first, line by line; the language server
shows it as inlay hints, and answers hovers with the second. Both read a
``ShapeRecorder`` the walk filled (analysis/reveal.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from .findings import Span
from .reveal import Belief, ShapeRecorder, dims_data, informative
from .values import AbstractArray


@dataclass(frozen=True)
class BoundName:
    """An assignment's target and the array it holds from there on."""

    span: Span
    function: str  # qualified name of the enclosing function ("C.forward"), "" at module level
    name: str  # the target as written: ``h``, ``self.proj``
    head: str  # what the name holds: ``(B, T, 4*C) float32 torch``
    details: tuple[str, ...]  # callers' values
    shape: tuple | None  # as data: ints, symbols' text, None for unknown dims (None: rank unknown)
    dtype: str | None
    library: str | None
    from_caller: bool = False  # the shape data is a caller's: the own walk knew no array here

    def to_json(self) -> dict:
        return {"line": self.span.line, "column": self.span.column, "function": self.function,
                "name": self.name, "belief": self.head, "callers": list(self.details),
                "shape": None if self.shape is None else list(self.shape), "dtype": self.dtype,
                "library": self.library}


def is_array_belief(belief: Belief) -> bool:
    """Some walk saw an array: not merely a parameter nothing is known of (which may be an int)."""
    values = ([belief.own] if belief.own_seen else []) + list(belief.calls)
    return any(isinstance(v, AbstractArray) and informative(v) for v in values)


def _main_array(belief: Belief) -> AbstractArray | None:
    if belief.own_seen and isinstance(belief.own, AbstractArray) and informative(belief.own):
        return belief.own
    return next((v for v in belief.calls if isinstance(v, AbstractArray) and informative(v)), None)


def qualified_names(module: cst.Module, nodes: Any) -> dict[Any, str]:
    """The qualified name of the function (or class) around each of ``nodes``: ``GPT.forward``."""
    found: dict[Any, str] = {}
    stack: list[str] = []

    class Scopes(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            stack.append(node.name.value)

        def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
            stack.pop()

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            stack.append(node.name.value)

        def leave_ClassDef(self, node: cst.ClassDef) -> None:
            stack.pop()

        def on_visit(self, node: cst.CSTNode) -> bool:
            if node in nodes:
                found[node] = ".".join(stack)
            return super().on_visit(node)

    module.visit(Scopes())
    return found


def bound_names(recorder: ShapeRecorder) -> list[BoundName]:
    """Every binding to an array, in source order."""
    interp = recorder.interpreter
    if interp is None:
        return []
    chosen = {node: belief for node, belief in recorder.bound.items() if is_array_belief(belief)}
    scopes = qualified_names(interp.module, chosen)
    out = []
    for node, belief in chosen.items():
        span = interp.span(node)
        name = interp.text(node, 60)
        head, details = recorder.summary_of(belief, name, span.line, node)
        array = _main_array(belief)
        out.append(BoundName(span, scopes.get(node, ""), name, head, tuple(details),
                             dims_data(array), array.dtype if array else None,
                             array.library if array else None, array is not belief.own))
    out.sort(key=lambda b: (b.span.line, b.span.column))
    return out


def function_names(recorder: ShapeRecorder) -> list[str]:
    """The qualified names of the module's functions, in source order."""
    interp = recorder.interpreter
    if interp is None:
        return []
    defs: list[cst.FunctionDef] = []

    class Defs(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            defs.append(node)

    interp.module.visit(Defs())
    names = qualified_names(interp.module, set(defs))
    return [".".join(filter(None, (names.get(d, ""), d.name.value))) for d in defs]


def in_function(bound: BoundName, wanted: str) -> bool:
    """``wanted`` names the binding's function (``forward`` or ``GPT.forward``), or one around it."""
    qualified = bound.function
    while qualified:
        if qualified == wanted or qualified.endswith("." + wanted):
            return True
        qualified = qualified.rpartition(".")[0]
    return False


@dataclass(frozen=True)
class Hover:
    """What the analyzer believes the innermost expression at a place is."""

    span: Span
    text: str  # the expression's source
    head: str
    details: tuple[str, ...]


def expression_at(recorder: ShapeRecorder, line: int, column: int) -> Hover | None:
    """The smallest expression holding (1-based) ``line``:``column`` that the walk computed an
    array (or an int) for, a bound name included."""
    interp = recorder.interpreter
    if interp is None:
        return None
    best: tuple | None = None
    for table in (recorder.beliefs, recorder.bound):
        for node, belief in table.items():
            span = interp.span(node)
            if not (span.line, span.column) <= (line, column) < (span.end_line, span.end_column):
                continue
            size = (span.end_line - span.line, span.end_column - span.column if span.end_line == span.line
                    else span.end_column)
            if best is None or size < best[0]:
                best = (size, node, belief, span)
    if best is None:
        return None
    _, node, belief, span = best
    text = interp.text(node, 60)
    head, details = recorder.summary_of(belief, text, span.line, node)
    return Hover(span, text, head, tuple(details))


__all__ = ["BoundName", "Hover", "bound_names", "expression_at", "function_names", "in_function",
           "qualified_names"]
