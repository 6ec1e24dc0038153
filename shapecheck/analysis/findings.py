"""Findings are plain data: a code, a span, a severity and a message.

Formatters render them without knowing anything about analysis.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Span:
    """1-based lines and columns, end inclusive of the last line, end column exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Finding:
    """One report about one place in one file.

    ``cell`` is set for notebooks: the 1-based position of the cell among all
    the notebook's cells, and ``span`` is then relative to that cell.
    ``related`` holds other places the message refers to (e.g. the call site
    of a function that mutates its argument), as (path, line) pairs.
    """

    path: str
    span: Span
    code: str
    name: str
    severity: Severity
    message: str
    cell: int | None = None
    related: tuple[tuple[str, int], ...] = field(default=())

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def with_path(self, path: str) -> "Finding":
        return replace(self, path=path)

    def to_json(self) -> dict:
        """The JSON contract of ``shapecheck lint --format json``."""
        out = {
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
        }
        if self.cell is not None:
            out["cell"] = self.cell
        return out

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.span.line, self.span.column, self.code)
