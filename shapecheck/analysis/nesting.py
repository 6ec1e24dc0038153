"""Refuses, before libcst sees it, source nested too deeply for libcst's native parser to survive.

libcst's parser recurses on the C stack: about 1,600 nested brackets kill
the process with a segfault, and long left-nested chains (``a + a + ...``,
``x[0][0]...``, ``f()()...``) slow it down superlinearly until it crashes
too (a 4,000-term chain already takes minutes). CPython's own parser is
fast and exact about such input: it rejects more than 200 nested brackets,
100 indentation levels and about 3,000 levels of expression outright, and
below those limits its tree tells the nesting depth. Real code stays far
below the limit used here (numpy and torch nest at most under 100 levels).
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass

# Tree depth (statements and expressions) above which libcst is not asked to parse.
MAX_DEPTH = 500

# CPython's own refusals of input nested beyond its limits (not ordinary syntax errors).
_PYTHON_LIMIT_MESSAGES = ("too many nested parentheses", "too many levels of indentation", "too complex")


@dataclass(frozen=True)
class Refusal:
    """Why a file is not parsed. ``syntax``: CPython itself rejects the file (SC001); else it is valid but skipped."""

    message: str
    line: int
    syntax: bool


def refuse_deep_nesting(source: str, max_depth: int = MAX_DEPTH) -> Refusal | None:
    """A Refusal when ``source`` nests beyond what libcst survives, None otherwise (ordinary syntax errors too)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            tree = ast.parse(source)
    except SyntaxError as exc:
        if any(limit in str(exc.msg) for limit in _PYTHON_LIMIT_MESSAGES):
            return Refusal(f"cannot parse: {exc.msg}", exc.lineno or 1, syntax=True)
        return None  # libcst reports ordinary syntax errors the usual way
    except (RecursionError, MemoryError):
        return Refusal("cannot parse: the code nests too deeply for Python's own parser", 1, syntax=True)
    except ValueError:  # e.g. NUL bytes; the usual path reports it
        return None
    return _too_deep(tree, max_depth)


def _too_deep(tree: ast.AST, max_depth: int) -> Refusal | None:
    """The first node deeper than ``max_depth``, counted as libcst nests (``a and b and c`` is two levels there)."""
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    pop, push, children = stack.pop, stack.append, ast.iter_child_nodes
    while stack:
        node, depth = pop()
        if isinstance(node, ast.BoolOp):
            depth += len(node.values) - 2
        if depth > max_depth:
            line = getattr(node, "lineno", 1)
            return Refusal(f"file skipped: code nests more than {max_depth} levels deep (at line {line}), "
                           f"beyond what the parser handles safely", line, syntax=False)
        for child in children(node):
            push((child, depth + 1))
    return None
