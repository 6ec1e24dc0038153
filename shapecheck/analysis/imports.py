"""Which names an import statement binds to numpy or torch (and to what inside them)."""

from __future__ import annotations

import libcst as cst

ARRAY_LIBRARIES = frozenset({"numpy", "torch"})

# Submodules that are aliases of one another; the op table speaks the canonical name.
_CANONICAL_PREFIXES = (
    ("numpy._core.", "numpy."),
    ("numpy.core.", "numpy."),
    ("numpy.matlib.", "numpy."),
    ("torch.functional.", "torch."),
    ("torch.nn.modules.", "torch.nn."),
)


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` as text, or None for anything that is not a plain dotted name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


MODELED_MODULES = ARRAY_LIBRARIES | {"math", "copy", "argparse", "functools", "operator",
                                     "collections", "typing", "itertools", "numbers", "dataclasses",
                                     "types"}
"""Modules whose names the interpreter resolves: the array libraries, math's scalars, copies,
argparse's option defaults, functools.partial, operator's functions, collections
(OrderedDict, the abc classes), typing.cast, itertools.repeat, the numbers ABCs,
dataclasses (the generated __init__, replace) and types (``isinstance(f, types.FunctionType)``)."""


def is_array_library(qualname: str) -> bool:
    return qualname.split(".", 1)[0] in ARRAY_LIBRARIES


def _is_modeled(qualname: str) -> bool:
    return qualname.split(".", 1)[0] in MODELED_MODULES


def canonical(qualname: str) -> str:
    """``numpy.core.numeric.zeros`` is ``numpy.zeros`` for the op table's purposes."""
    for prefix, replacement in _CANONICAL_PREFIXES:
        if qualname.startswith(prefix):
            rest = qualname[len(prefix):]
            # Drop the private module name (numpy._core.numeric.zeros -> numpy.zeros).
            parts = rest.split(".")
            if len(parts) > 1 and parts[0] not in ("linalg", "random", "fft", "functional"):
                rest = ".".join(parts[1:])
            return replacement + rest
    return qualname


def import_bindings(node: cst.Import | cst.ImportFrom) -> list[tuple[str, str | None]]:
    """(bound name, qualified name) pairs; the qualified name is None when not numpy/torch.

    ``import numpy.linalg`` binds ``numpy`` to ``numpy``; ``import numpy.linalg as la``
    binds ``la`` to ``numpy.linalg``; relative imports never resolve to a library.
    """
    out: list[tuple[str, str | None]] = []
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound, target = alias.asname.name.value, full
            else:
                bound = full.split(".", 1)[0]
                target = bound
            out.append((bound, target if _is_modeled(target) else None))
        return out
    module = dotted_name(node.module) if node.module is not None else None
    relative = bool(node.relative)
    if isinstance(node.names, cst.ImportStar):
        return out
    for alias in node.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        bound = name
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            bound = alias.asname.name.value
        if relative or module is None or not _is_modeled(module):
            out.append((bound, None))
        else:
            out.append((bound, f"{module}.{name}"))
    return out


__all__ = ["ARRAY_LIBRARIES", "dotted_name", "is_array_library", "canonical", "import_bindings"]
