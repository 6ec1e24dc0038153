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


# One dimension as data: an int, a symbol's name ("B"), or None when unknown.
Dim = int | str | None


@dataclass(frozen=True)
class Operand:
    """One array an operation was applied to: its source text, its shape and the line it came from."""

    expr: str | None = None
    shape: tuple[Dim, ...] | None = None  # None: rank unknown
    line: int | None = None
    cell: int | None = None  # in a notebook: the cell ``line`` counts in

    def to_json(self) -> dict:
        out = {"expr": self.expr, "shape": None if self.shape is None else list(self.shape), "line": self.line}
        if self.cell is not None:
            out["cell"] = self.cell
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Operand":
        shape = data.get("shape")
        return cls(data.get("expr"), None if shape is None else tuple(shape), data.get("line"), data.get("cell"))


@dataclass(frozen=True)
class Facts:
    """What a shape finding is about, for tools: the operands, the shapes named, the dims the verdict turns on.

    ``dims`` are axis positions as the message gives them (negative: counted
    from the right, as broadcasting aligns). ``library_message`` is the text
    the real library raises or warns with, and ``library`` its name.
    """

    operands: tuple[Operand, ...] = ()
    shapes: tuple[tuple[Dim, ...], ...] = ()
    dims: tuple[int, ...] = ()
    library: str | None = None
    library_message: str | None = None

    def to_json(self) -> dict:
        return {"operands": [o.to_json() for o in self.operands], "shapes": [list(s) for s in self.shapes],
                "dims": list(self.dims), "library": self.library, "library_message": self.library_message}

    @classmethod
    def from_json(cls, data: dict) -> "Facts":
        return cls(tuple(Operand.from_json(o) for o in data.get("operands", ())),
                   tuple(tuple(s) for s in data.get("shapes", ())), tuple(data.get("dims", ())),
                   data.get("library"), data.get("library_message"))


@dataclass(frozen=True)
class Fix:
    """A rewrite the analysis is certain of, applied by ``lint --fix`` and offered by the editor.

    ``kind`` names the transform (lint/fixes/): "keepdims" adds ``option=True`` to the
    reduction call at ``span``; "copy" appends ``.option()`` to the value bound to the
    name at ``span``; "reshape" renames the method at ``span`` to ``option``; "index" turns
    the chained index ``a[i][:, j]`` at ``span`` into one, through ``option.ix_`` when
    ``option`` (the file's name for numpy) is given.
    """

    kind: str
    span: Span
    option: str = ""
    title: str = ""  # what the fix does, for people: "add keepdims=True"

    def to_json(self) -> dict:
        s = self.span
        return {"kind": self.kind, "span": [s.line, s.column, s.end_line, s.end_column], "option": self.option,
                "title": self.title}

    @classmethod
    def from_json(cls, data: dict) -> "Fix":
        return cls(data["kind"], Span(*data["span"]), data.get("option", ""), data.get("title", ""))


@dataclass(frozen=True)
class Finding:
    """One report about one place in one file.

    ``message`` is the headline: at most about 100 characters, naming the
    shapes. ``details`` are the lines under it (where each operand came
    from, the library's own error text, how to fix it); ``facts`` the same
    as data. Both are optional: a finding with a single long ``message`` is
    split into headline and details by the formatters.

    ``cell`` is set for notebooks: the 1-based position of the cell among all
    the notebook's cells, and ``span`` is then relative to that cell.
    ``related`` holds other places the message refers to (e.g. the call site
    of a function that mutates its argument), as (path, line) pairs.
    ``fix`` is a rewrite that certainly removes the finding, when the analysis knows one.
    """

    path: str
    span: Span
    code: str
    name: str
    severity: Severity
    message: str
    cell: int | None = None
    related: tuple[tuple[str, int], ...] = field(default=())
    details: tuple[str, ...] = field(default=())
    facts: Facts | None = None
    fix: Fix | None = None  # a certain rewrite (lint/fixes/), None when there is none

    @property
    def full_message(self) -> str:
        """The headline and its details as one line of text."""
        return "; ".join((self.message, *self.details))

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
            "message": self.full_message,
        }
        if self.cell is not None:
            out["cell"] = self.cell
        return out

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.span.line, self.span.column, self.code)
