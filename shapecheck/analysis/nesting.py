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
import math
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


@dataclass(frozen=True)
class NestingCheck:
    """The verdict on one source, and what Python's parser told besides: the line of each top-level statement
    (None when it did not parse), which lets positions be found one statement at a time (analysis/positions.py)."""

    refusal: Refusal | None
    statement_lines: list[int] | None = None


def refuse_deep_nesting(source: str, max_depth: int = MAX_DEPTH) -> Refusal | None:
    """A Refusal when ``source`` nests beyond what libcst survives, None otherwise (ordinary syntax errors too)."""
    return check_nesting(source, max_depth).refusal


def check_nesting(source: str, max_depth: int = MAX_DEPTH) -> NestingCheck:
    """refuse_deep_nesting's verdict, with the top-level statement lines of the tree it parsed."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            tree = ast.parse(source)
    except SyntaxError as exc:
        if any(limit in str(exc.msg) for limit in _PYTHON_LIMIT_MESSAGES):
            return NestingCheck(Refusal(f"cannot parse: {exc.msg}", exc.lineno or 1, syntax=True))
        return NestingCheck(None)  # libcst reports ordinary syntax errors the usual way
    except (RecursionError, MemoryError):
        return NestingCheck(Refusal("cannot parse: the code nests too deeply for Python's own parser", 1,
                                    syntax=True))
    except ValueError:  # e.g. NUL bytes; the usual path reports it
        return NestingCheck(None)
    return NestingCheck(_too_deep(tree, source, max_depth), [statement.lineno for statement in tree.body])


def _too_deep(tree: ast.AST, source: str, max_depth: int) -> Refusal | None:
    """The first node deeper than ``max_depth``, counted as libcst nests (``a and b and c`` is two levels there).

    Every level of nesting takes at least one character of source (give or
    take a few context nodes), so a node whose text is shorter than the
    levels left cannot reach the limit and is not entered: in ordinary code
    only the long statements are walked, not every expression.
    """
    line_starts = _line_starts(source)
    stack: list[tuple[ast.AST, int, int]] = [(tree, 1, 1)]
    pop, push, children = stack.pop, stack.append, ast.iter_child_nodes
    while stack:
        node, depth, line = pop()
        line = getattr(node, "lineno", line)  # operators and contexts have none: their parent's
        if isinstance(node, ast.BoolOp):
            depth += len(node.values) - 2
        if depth > max_depth:
            return Refusal(f"file skipped: code nests more than {max_depth} levels deep (at line {line}), "
                           f"beyond what the parser handles safely", line, syntax=False)
        if max_depth - depth > _length(node, line_starts) + _SLACK:
            continue
        for child in children(node):
            push((child, depth + 1, line))
    return None


# Levels of nesting that take no source text of their own (expression contexts, keywords, operators).
_SLACK = 8


def _line_starts(source: str) -> list[int]:
    """UTF-8 byte offset of each line's start, 1-based like ast's line numbers (columns are byte offsets)."""
    data = source.encode("utf-8", "surrogatepass")
    starts = [0, 0]
    find = data.find
    at = find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = find(b"\n", at + 1)
    return starts


def _length(node: ast.AST, line_starts: list[int]) -> float:
    """How many bytes of source ``node`` spans; infinite when it has no position (the module, ``arguments``)."""
    end_line = getattr(node, "end_lineno", None)
    if end_line is None or end_line >= len(line_starts) or node.end_col_offset is None:
        return math.inf
    return line_starts[end_line] + node.end_col_offset - line_starts[node.lineno] - node.col_offset
