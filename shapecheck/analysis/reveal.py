"""What the analyzer believes a value is, in words: ``reveal_shape(x)`` notes (SC004) and ``shapecheck shapes``.

The interpreter already shows every value it computes to a recorder (the
hook shape coverage uses, analysis/coverage.py); ``ShapeRecorder`` is one
more such recorder, so nothing walks the code a second time. It keeps the
values of the expressions it is asked to watch (the arguments of
``reveal_shape`` calls) and, when asked, the value bound by each assignment.

A function body is walked more than once: on its own (parameters as the
code describes them), at each caller with that caller's arguments, and a
loop body until its names stop changing. A belief is therefore two things:
what the function's own walk ended with (its last walk: the loop's fixed
point, the rerun that knew the sizes), and the distinct values callers'
arguments gave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from ..runtime.dims import UnknownDim, format_shape
from .coverage import CoverageRecorder
from .findings import Facts, Finding, Operand, Span
from .values import AbstractArray, ConstValue, FloatValue, IntValue, TupleValue, UnknownValue

REVEAL_NAME = "reveal_shape"
MAX_CALLER_BELIEFS = 4  # beyond this many distinct callers' values, the note says how many more

_VIEW_WORDS = {
    "view": "a view of {}",
    "repeated": "a broadcast view of {} (elements repeat)",
    "readonly": "a read-only view of {}",
    "maybe": "a view or a copy of {}, depending on its layout",
}


@dataclass
class Belief:
    """What one expression or binding was: ``own`` from the walk of its own code, ``calls``
    from walks with callers' arguments (distinct, in the order met)."""

    own: Any = None
    own_seen: bool = False
    calls: list = field(default_factory=list)

    def note(self, value: Any, for_caller: bool) -> None:
        if not for_caller:
            self.own, self.own_seen = value, True
        elif value not in self.calls:
            self.calls.append(value)


def reveal_arguments(module: cst.Module) -> dict[cst.CSTNode, cst.Call]:
    """The argument of each ``reveal_shape(x)`` (or ``shapecheck.reveal_shape(x)``) call -> the call."""
    found: dict[cst.CSTNode, cst.Call] = {}

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            name = func.value if isinstance(func, cst.Name) else \
                func.attr.value if isinstance(func, cst.Attribute) else None
            positional = [a for a in node.args if a.keyword is None and not a.star]
            if name == REVEAL_NAME and len(positional) == 1 and len(node.args) == 1:
                found[positional[0].value] = node

    module.visit(Calls())
    return found


class ShapeRecorder(CoverageRecorder):
    """Coverage counts, plus the beliefs about the watched expressions and, with
    ``bindings``, about every name an assignment binds."""

    __slots__ = ("interpreter", "watched", "beliefs", "keep_bindings", "bound", "keep_all")

    def __init__(self, watched: dict | None = None, bindings: bool = False,
                 expressions: bool = False) -> None:
        super().__init__()
        self.interpreter: Any = None
        self.watched = watched or {}
        self.beliefs: dict[Any, Belief] = {}  # expression node -> what it was
        self.keep_bindings = bindings
        self.bound: dict[Any, Belief] = {}  # bound Name (or self.attr) node -> what it was bound to
        self.keep_all = expressions  # every expression, not only the watched ones (editor hovers)

    def attach(self, interpreter: Any) -> None:
        self.interpreter = interpreter

    def _for_caller(self) -> bool:
        # Findings of a walk with a caller's arguments are captured for that call: so are beliefs.
        return bool(self.interpreter is not None and self.interpreter.capture)

    def record(self, node: Any, value: AbstractArray) -> None:
        super().record(node, value)
        if self.keep_all or node in self.watched:
            self.beliefs.setdefault(node, Belief()).note(value, self._for_caller())

    def record_other(self, node: Any, value: Any) -> None:
        if self.keep_all or node in self.watched:
            self.beliefs.setdefault(node, Belief()).note(value, self._for_caller())

    def bind(self, target: Any, value: Any) -> None:
        if self.keep_bindings:
            self.bound.setdefault(target, Belief()).note(value, self._for_caller())

    def merge_into(self, coverage: CoverageRecorder) -> None:
        """Hand the coverage counts to the recorder the caller asked for."""
        coverage.best.update(self.best)
        for node, storages in self.pending.items():
            coverage.pending.setdefault(node, set()).update(storages)
        for storage, level in self.refined.items():
            coverage.refined[storage] = max(coverage.refined.get(storage, 0), level)

    # ------------------------------------------------------------------ words

    def text(self, node: Any, limit: int = 60) -> str:
        return self.interpreter.text(node, limit) if self.interpreter is not None else "?"

    def describe(self, value: Any, name: str | None = None, here: int | None = None,
                 node: Any = None) -> str:
        """One value in words: ``(B, T, 4*C) float32 torch, a view of x``."""
        if isinstance(value, AbstractArray):
            if value.maybe_not_array:
                if value.shape is None and not value.tail:
                    return "unknown (computed only from parameters nothing is known of)"
                return f"{shape_words(value)}, dtype unknown (from a parameter nothing else describes)"
            if value.dtype:
                text = f"{shape_words(value)} {value.dtype} {value.library}"
            else:
                text = f"{shape_words(value)} {value.library}, dtype unknown"
            extra = self.alias_words(value, name, here, node)
            if value.requires_grad:
                extra.append("requires grad")
            return ", ".join([text, *extra])
        if isinstance(value, IntValue):
            return "int " + ("unknown" if isinstance(value.value, UnknownDim) else str(value.value))
        if isinstance(value, FloatValue):
            return "float"
        if isinstance(value, ConstValue):
            return f"{type(value.value).__name__} {value.value!r}"
        if isinstance(value, TupleValue):
            kind = "list" if value.is_list else "tuple"
            items = "; ".join(self.describe(item) for item in value.items[:6])
            more = "; ..." if len(value.items) > 6 else ""
            return f"{kind} of {len(value.items)}: [{items}{more}]"
        if value is None or isinstance(value, UnknownValue):
            return "unknown to the analyzer"
        return f"not an array ({type(value).__name__.removesuffix('Value').lower() or 'value'})"

    def alias_words(self, value: AbstractArray, name: str | None, here: int | None = None,
                    node: Any = None) -> list[str]:
        """What the array shares storage with, and where it came from. ``node``: the
        expression the value is of; the memory it makes itself is shared with nothing yet."""
        words: list[str] = []
        alias = value.alias
        interp = self.interpreter
        if alias is not None and alias.storage is not None and interp is not None:
            owner = interp.storage_name(alias)
            if alias.view in _VIEW_WORDS:
                words.append(_VIEW_WORDS[alias.view].format(owner))
            elif alias.view == "base" and name is not None and owner not in (name, "?") and \
                    alias.storage.id != id(node):
                words.append(f"shares storage with {owner}")
        origin_line = interp.origin_line(value.origin) if interp is not None else None
        if origin_line and origin_line != here:
            words.append(f"from line {origin_line}")
        return words

    def summary_of(self, belief: Belief, name: str | None, here: int | None = None,
                   node: Any = None) -> tuple[str, list[str]]:
        """The headline belief and the callers' beliefs as detail lines (``here``: the line
        the words are shown at, which they need not name; ``node``: the expression)."""
        head = self.describe(belief.own, name, here, node) if belief.own_seen else None
        # A caller that knew no more than nothing, or no more than the own walk, adds nothing.
        calls = [self.describe(v, name, here, node) for v in belief.calls if informative(v)]
        distinct = [text for text in dict.fromkeys(calls) if text != head]
        if head is None:
            head = "only known with a caller's arguments" if distinct else "not reached by the analysis"
        details = [f"with a caller's arguments: {text}" for text in distinct[:MAX_CALLER_BELIEFS]]
        if len(distinct) > MAX_CALLER_BELIEFS:
            details.append(f"and {len(distinct) - MAX_CALLER_BELIEFS} more callers' values")
        return head, details


def informative(value: Any) -> bool:
    """Worth a line of its own: anything but an unknown, or an array of unknown rank built
    only from parameters nothing is known of (it may be an int or a config)."""
    if isinstance(value, AbstractArray):
        return not value.maybe_not_array or value.shape is not None or bool(value.tail)
    return value is not None and not isinstance(value, UnknownValue)


def shape_words(value: AbstractArray) -> str:
    """``(B, T, 4*C)``, ``()``, ``(..., 64)`` when only the trailing dims are known, ``rank unknown``."""
    if value.shape is None:
        if value.tail:
            return "(..., " + ", ".join(str(d) for d in value.tail) + ")"
        return "rank unknown"
    text = "()" if not value.shape else format_shape(value.shape)
    return text + (" (rank assumed from indexing)" if value.assumed_rank else "")


def dims_data(value: Any) -> tuple | None:
    """A shape as findings carry it: ints, symbols' text, None for unknown dims."""
    if not isinstance(value, AbstractArray) or value.shape is None:
        return None
    return tuple(d if isinstance(d, int) else None if isinstance(d, UnknownDim) else str(d)
                 for d in value.shape)


def reveal_findings(recorder: ShapeRecorder, path: str, spec: Any) -> list[Finding]:
    """One SC004 note per ``reveal_shape(x)`` call: what x was there."""
    interp = recorder.interpreter
    findings = []
    for argument, call in recorder.watched.items():
        expr = recorder.text(argument)
        belief = recorder.beliefs.get(argument, Belief())
        span = interp.span(call) if interp is not None else Span(1, 1, 1, 1)
        head, details = recorder.summary_of(belief, expr, span.line, argument)
        shapes = tuple(s for s in (dims_data(belief.own), *map(dims_data, belief.calls)) if s is not None)
        own = belief.own if isinstance(belief.own, AbstractArray) else None
        facts = Facts(operands=(Operand(expr, dims_data(own), span.line),), shapes=shapes,
                      library=own.library if own is not None else None)
        findings.append(Finding(path=path, span=span, code=spec.code, name=spec.name, severity=spec.severity,
                                message=f"{expr}: {head}", details=tuple(details), facts=facts))
    return findings


__all__ = ["Belief", "ShapeRecorder", "reveal_arguments", "reveal_findings", "shape_words", "dims_data"]
