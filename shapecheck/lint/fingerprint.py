"""A finding's fingerprint: the same finding keeps it when code above it moves, a new one gets its own.

It is made of the rule code, the qualified name of the enclosing function
(``GPT.forward``; empty at module level), the text of the statement the
finding is in with whitespace and comments left out (for a compound
statement, its header only: ``for x in xs:``, not the body), and an
occurrence index that tells apart findings of one rule on identical
statements of one function, counted in source order. The path is not part
of it: a baseline keys entries by path as well, SARIF by the result's
location. ``--baseline`` files and SARIF's ``partialFingerprints`` both use
``fingerprints`` below, so they agree.

Statements come from Python's own parser (``ast``); a source it cannot
parse (a syntax error, a notebook cell with magics) falls back to the
finding's own lines.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
import warnings
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..analysis.findings import Finding

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

_SKIPPED_TOKENS = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                             tokenize.DEDENT, tokenize.ENDMARKER})


@dataclass(frozen=True)
class Fingerprint:
    code: str
    function: str
    statement: str
    occurrence: int

    @property
    def digest(self) -> str:
        text = f"{self.code}\0{self.function}\0{self.statement}\0{self.occurrence}"
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def normalized(text: str) -> str:
    """The statement's tokens joined by single spaces: whitespace, line breaks and comments do not count."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tokens = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
                      if t.type not in _SKIPPED_TOKENS]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return " ".join(text.split())
    return " ".join(tokens)


@dataclass(frozen=True)
class _Statement:
    start: tuple[int, int]  # (line, column), 1-based line, 0-based character column
    end: tuple[int, int]
    text: str
    function: str


class StatementIndex:
    """The statements of one source, innermost first at any place, with their enclosing functions."""

    def __init__(self, source: str) -> None:
        self.lines = _LINE_BREAK.split(source)  # as Python counts lines: a lone \r ends one too
        self.statements: list[_Statement] = []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return
        self._collect(tree.body, [])

    def _collect(self, body: list, scope: list[str]) -> None:
        for node in body:
            if not isinstance(node, ast.stmt):
                continue
            start = (node.lineno, self._column(node.lineno, node.col_offset))
            end = (node.end_lineno or node.lineno, self._column(node.end_lineno or node.lineno,
                                                                node.end_col_offset or 0))
            inner = [child for field in ("body", "orelse", "finalbody", "handlers", "cases")
                     for child in getattr(node, field, None) or ()]
            if inner:
                first = min(inner, key=lambda child: (child.lineno, child.col_offset))
                end = (first.lineno, self._column(first.lineno, first.col_offset))
            decorators = getattr(node, "decorator_list", ())
            if decorators:  # a def's header starts at its first decorator
                start = min(start, min((d.lineno, self._column(d.lineno, d.col_offset) - 1)
                                       for d in decorators))
            self.statements.append(_Statement(start, end, self._text(start, end), ".".join(scope)))
            named = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            inner_scope = scope + [node.name] if named else scope
            for field in ("body", "orelse", "finalbody"):
                self._collect(getattr(node, field, None) or [], inner_scope)
            for handler in getattr(node, "handlers", None) or ():
                self._collect(handler.body, inner_scope)
            for case in getattr(node, "cases", None) or ():
                self._collect(case.body, inner_scope)

    def _column(self, line: int, byte_offset: int) -> int:
        """ast counts columns in UTF-8 bytes; findings count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "ignore"))

    def _text(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        (line, column), (end_line, end_column) = start, end
        if line == end_line:
            return self.lines[line - 1][column:end_column]
        parts = [self.lines[line - 1][column:], *self.lines[line:end_line - 1]]
        if end_line - 1 < len(self.lines):
            parts.append(self.lines[end_line - 1][:end_column])
        return "\n".join(parts)

    def at(self, line: int, column: int) -> tuple[str, str]:
        """(enclosing function, statement text) for a 1-based line and column."""
        where = (line, column - 1)
        best: _Statement | None = None
        for statement in self.statements:
            # Nested statements start later: the innermost holding the place wins.
            if statement.start <= where < statement.end and (best is None or statement.start >= best.start):
                best = statement
        if best is None:  # outside any statement Python knows: the finding's own line
            text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
            return "", text
        return best.function, best.text


def fingerprints(findings: Iterable[Finding], sources: dict[tuple[str, int | None], str]) -> dict[int, Fingerprint]:
    """``id(finding)`` -> its fingerprint. ``sources`` maps (path, cell) to the text findings count lines in."""
    findings = sorted(findings, key=Finding.sort_key)
    indexes: dict[tuple[str, int | None], StatementIndex] = {}
    counts: dict[tuple, int] = defaultdict(int)
    out: dict[int, Fingerprint] = {}
    for finding in findings:
        key = (finding.path, finding.cell)
        if key not in indexes:
            indexes[key] = StatementIndex(sources.get(key, ""))
        function, text = indexes[key].at(finding.span.line, finding.span.column)
        statement = normalized(text)
        group = (finding.path, finding.code, function, statement)
        out[id(finding)] = Fingerprint(finding.code, function, statement, counts[group])
        counts[group] += 1
    return out


__all__ = ["Fingerprint", "StatementIndex", "fingerprints", "normalized"]
