"""What a function's own code says about changing its arguments: in place by contract or not.

A function named or documented as in-place (``fill_x``, ``update``, a
trailing underscore, an out-like parameter, a docstring saying so), or a
procedure that returns nothing, changes its caller's array by design: SC305
is for the functions that look as if they compute a new value.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

_OUT_PARAM_NAMES = ("out", "dst", "dest", "buf", "buffer", "result", "res", "target", "output",
                    "acc", "accum")
_MUTATOR_PREFIXES = ("fill", "update", "set", "reset", "init", "zero", "clear", "apply", "write",
                     "copy", "store", "accumulate", "inplace", "in_place", "modify", "mutate",
                     "normalize_", "_fill", "_update", "_set", "_init", "_zero", "_apply",
                     "assign", "put", "scatter", "shuffle", "sort", "add_", "swap", "permute_",
                     "_inplace")
# Parameters that hold statistics a function keeps up to date.
_STATISTICS = ("running_", "moving_", "ema_", "avg_", "momentum_buf")
# Allocators: an array made by one of these is a buffer meant to be filled by a callee.
ALLOCATORS = frozenset({"zeros", "empty", "full", "zeros_like", "empty_like", "full_like"})


def mutation_is_documented(node: cst.FunctionDef, param: str) -> bool:
    """In place by contract: named so, an out-like parameter, or a docstring that says so."""
    name = node.name.value.lower()
    if name.endswith("_") and not name.endswith("__") or name.startswith(_MUTATOR_PREFIXES):
        return True
    p = param.lower()
    if p in _OUT_PARAM_NAMES or p.startswith(("out_", "buf")) or p.endswith(("_out", "_buf")):
        return True
    if p.startswith(_STATISTICS) or p in ("num_batches_tracked", "step_count"):
        return True  # running statistics are updated in place by design (batch norm, EMA)
    doc = node.get_docstring()
    return bool(doc) and any(w in doc.lower() for w in (
        "in place", "in-place", "inplace", "modif", "overwrit", "mutat", "updat"))


def returns_value(node: cst.FunctionDef) -> bool:
    """The function has a ``return <value>`` (or a yield) of its own."""
    for small in _statements(_body(node)):
        if isinstance(small, cst.Return) and small.value is not None and not (
                isinstance(small.value, cst.Name) and small.value.value == "None"):
            return True
        if isinstance(getattr(small, "value", None), cst.Yield):
            return True
    return False


def _body(node: cst.FunctionDef) -> list:
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [body]


def _statements(body: Iterable[cst.CSTNode]) -> Iterable[cst.CSTNode]:
    """Every small statement under a body, through compound statements but not into nested
    functions or classes (libcst's visitors rebuild every node: too slow here)."""
    stack = list(body)[::-1]
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
            continue
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        blocks = []
        for name in ("body", "orelse", "finalbody"):
            part = getattr(stmt, name, None)
            if isinstance(part, (cst.IndentedBlock, cst.Else, cst.Finally)):
                part = part.body
            if isinstance(part, cst.IndentedBlock):
                part = part.body
            if isinstance(part, cst.BaseCompoundStatement):
                blocks.append([part])
            elif isinstance(part, (list, tuple)):
                blocks.append(part)
            elif isinstance(part, cst.SimpleStatementSuite):
                yield from part.body
        for handler in getattr(stmt, "handlers", ()):
            blocks.append(handler.body.body if isinstance(handler.body, cst.IndentedBlock) else [])
        for block in reversed(blocks):
            stack.extend(reversed(list(block)))
