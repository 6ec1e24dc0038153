"""Whether a function of the code only reads a list it is handed.

A list passed to a function may come back changed, so the caller forgets what it held
(``containers.forget_list``). DenseNet's block hands its growing list of features to each
layer, ``layer(features)``, and each layer only concatenates them: forgetting the list there
loses every channel count after the first layer. This module reads the callee's body: when
each use of the parameter (and of the names it is bound to, ``prev_features = x``) only
reads the list, the caller keeps it.
"""

from __future__ import annotations

from typing import Any, Callable

import libcst as cst

_READING_BUILTINS = frozenset({
    "len", "isinstance", "list", "tuple", "enumerate", "zip", "sum", "max", "min", "sorted",
    "any", "all", "reversed", "iter", "print", "str", "repr", "id", "type", "bool", "set",
    "frozenset", "map", "filter"})
"""Builtins that read their argument and never change it (``list(xs)`` copies it)."""

_ARRAY_MODULES = frozenset({"torch", "np", "numpy", "F"})
"""Roots of the array libraries' functions, which never change a Python list they are given
(``torch.cat(xs, 1)``, ``F.interpolate``)."""

CalleeReads = Callable[[cst.Call, int | str], bool]
"""Whether the function a call of the body reaches only reads its parameter at a position
(or of a keyword); False when the callee is not a function of the code."""


def _root(node: cst.BaseExpression) -> str | None:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


class _Uses(cst.CSTVisitor):
    """Every name of a body, and which of its occurrences only read what it holds: iterated,
    indexed (not stored into), tested, returned, put in a new list, handed to a builtin or
    an array library that reads it, or to a call of the body (``calls``: decided per callee)."""

    def __init__(self) -> None:
        self.occurrences: dict[str, list[int]] = {}
        self.reads: set[int] = set()
        self.calls: dict[int, tuple[cst.Call, int | str]] = {}
        self.aliases: list[tuple[str, str]] = []  # ``prev_features = x``: (x, prev_features)

    def _read(self, node: cst.CSTNode | None) -> None:
        if isinstance(node, cst.Name):
            self.reads.add(id(node))

    def visit_Name(self, node: cst.Name) -> None:
        self.occurrences.setdefault(node.value, []).append(id(node))

    def visit_For(self, node: cst.For) -> None:
        self._read(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._read(node.iter)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._read(node.value)  # a store or del through it is refused where it is a target

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._read(node.target)  # ``prev_features = [x]`` binds the name anew, the list stays

    def leave_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Subscript):
            self.reads.discard(id(node.target.value))

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            self.reads.discard(id(node.target.value))

    def leave_Del(self, node: cst.Del) -> None:
        for target in _del_targets(node.target):
            if isinstance(target, cst.Subscript):
                self.reads.discard(id(target.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Name) and len(node.targets) == 1 and \
                isinstance(node.targets[0].target, cst.Name):
            self._read(node.value)
            self.aliases.append((node.value.value, node.targets[0].target.value))

    def visit_If(self, node: cst.If) -> None:
        self._read(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._read(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._read(node.test)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._read(node.expression)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._read(node.left)
        self._read(node.right)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._read(node.left)
        for target in node.comparisons:
            self._read(target.comparator)

    def visit_Return(self, node: cst.Return) -> None:
        self._read(node.value)

    def visit_Element(self, node: cst.Element) -> None:
        self._read(node.value)  # ``[x]``: a new list holding it

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        reading = isinstance(func, cst.Name) and func.value in _READING_BUILTINS or \
            isinstance(func, cst.Attribute) and _root(func) in _ARRAY_MODULES
        position = 0
        for arg in node.args:
            if arg.star or reading:  # f(*xs) hands over a copy
                self._read(arg.value)
            elif isinstance(arg.value, cst.Name):
                self.calls[id(arg.value)] = (node, arg.keyword.value if arg.keyword else position)
            if arg.keyword is None and not arg.star:
                position += 1


def _del_targets(target: cst.BaseExpression) -> list:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [element.value for element in target.elements]
    return [target]


def once_per_process(cache: dict, key: Any, compute: Callable[[], Any], capacity: int = 4096) -> Any:
    """``compute()`` remembered under ``key``: a syntactic read of a body or a loop, which the
    walk meets at every call of its function. The cache is emptied when it is full."""
    if key not in cache:
        if len(cache) >= capacity:
            cache.clear()
        cache[key] = compute()
    return cache[key]


_USES: dict[cst.FunctionDef, _Uses] = {}


def _uses(func: cst.FunctionDef) -> _Uses:
    """The body's uses."""
    def read() -> _Uses:
        uses = _Uses()
        func.body.visit(uses)
        return uses
    return once_per_process(_USES, func, read)


def only_reads(func: cst.FunctionDef, name: str, callee_reads: CalleeReads) -> bool:
    """Every use of parameter ``name`` in the body (and of the names bound to it) leaves the
    list it holds as it was: iterated, indexed, tested, concatenated by torch, copied, handed
    to a function of the code that only reads it."""
    uses = _uses(func)
    names, todo = {name}, [name]
    while todo:
        current = todo.pop()
        for source, target in uses.aliases:
            if source == current and target not in names:
                names.add(target)
                todo.append(target)
    for current in names:
        for occurrence in uses.occurrences.get(current, ()):
            if occurrence in uses.reads:
                continue
            call = uses.calls.get(occurrence)
            if call is None or not callee_reads(*call):
                return False
    return True


__all__ = ["CalleeReads", "once_per_process", "only_reads"]
