"""Turns a notebook's code cells into one program and maps findings back to cells."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from ..analysis.findings import Finding, Operand, Span

# Cell magics whose body is still Python: only their first line is masked.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "pypy", "python", "python3"})

# A cross-reference to another line in an analyzer message: "a from line 4", "read at line 42", "(line 35)".
_LINE_REFERENCE = re.compile(r"\bline (\d+)\b(?! of cell)")

_ASSIGN_MAGIC = re.compile(r"^(\s*[A-Za-z_][\w.,\s]*=\s*)[%!]")


class NotebookError(ValueError):
    """The file is not a readable notebook (bad JSON or an unexpected layout)."""


@dataclass(frozen=True)
class Cell:
    number: int  # 1-based position among all cells, markdown included
    source: str


@dataclass(frozen=True)
class NotebookProgram:
    """The code cells joined in order; ``starts[i]`` is the program line where ``cells[i]`` begins."""

    source: str
    cells: tuple[Cell, ...]
    starts: tuple[int, ...]

    def locate(self, line: int) -> tuple[int, int]:
        """(index into cells, 1-based line within that cell) for a 1-based program line."""
        index = 0
        for i, start in enumerate(self.starts):
            if start <= line:
                index = i
            else:
                break
        return index, line - self.starts[index] + 1

    def map_finding(self, finding: Finding) -> Finding:
        if not self.cells:
            return finding
        index, line = self.locate(finding.span.line)
        end_index, end_line = self.locate(finding.span.end_line)
        end_column = finding.span.end_column
        if end_index != index:  # a span that runs into the next cell is clipped to its own cell
            end_line = self.cells[index].source.count("\n") + 1
            end_column = len(self.cells[index].source.split("\n")[end_line - 1]) + 1
        span = Span(line, finding.span.column, max(end_line, line), end_column)
        cell = self.cells[index].number
        facts = finding.facts
        if facts is not None and facts.operands:
            facts = replace(facts, operands=tuple(self._map_operand(o, cell) for o in facts.operands))
        # Fixes rewrite .py files only: a notebook's are left out rather than mapped into cells.
        return replace(finding, span=span, cell=cell, message=self.map_references(finding.message, cell),
                       details=tuple(self.map_references(d, cell) for d in finding.details), facts=facts,
                       fix=None)

    def map_references(self, text: str, cell: int) -> str:
        """"line 14" of the joined program as the reader counts it: "line 2" in ``cell``, else "line 2 of cell 5"."""
        def local(match: re.Match) -> str:
            index, line = self.locate(int(match.group(1)))
            number = self.cells[index].number
            return f"line {line}" if number == cell else f"line {line} of cell {number}"

        return _LINE_REFERENCE.sub(local, text)

    def _map_operand(self, operand: Operand, cell: int) -> Operand:
        if operand.line is None:
            return operand
        index, line = self.locate(operand.line)
        return replace(operand, line=line, cell=self.cells[index].number)


def read_cells(text: str) -> tuple[Cell, ...]:
    """The code cells of an .ipynb (nbformat 4, or 3's worksheets), numbered among all cells."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise NotebookError(f"not a valid notebook: {exc}") from None
    if not isinstance(data, dict):
        raise NotebookError("not a valid notebook: top level is not an object")
    raw_cells = data.get("cells")
    if raw_cells is None and isinstance(data.get("worksheets"), list):
        raw_cells = [c for ws in data["worksheets"] if isinstance(ws, dict) for c in ws.get("cells", [])]
    if not isinstance(raw_cells, list):
        raise NotebookError("not a valid notebook: no cells list")
    language = (data.get("metadata") or {}).get("language_info", {}) if isinstance(data.get("metadata"), dict) else {}
    if isinstance(language, dict) and language.get("name") not in (None, "python"):
        return ()  # an R or Julia notebook has nothing for us
    cells = []
    for number, cell in enumerate(raw_cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(str(part) for part in source)
        if not isinstance(source, str):
            raise NotebookError(f"not a valid notebook: cell {number} source is not text")
        cells.append(Cell(number, source))
    return tuple(cells)


def mask_magics(source: str) -> str:
    """IPython-only lines replaced by Python that keeps every line where it was.

    ``%magic``, ``!shell`` and ``obj?`` lines become ``pass`` at the same
    indentation; ``x = !ls`` keeps its target (``x = ...``); a non-Python
    cell magic (``%%bash``) blanks the whole cell.
    """
    lines = source.split("\n")
    first = lines[0].lstrip() if lines else ""
    if first.startswith("%%"):
        magic = first[2:].split(maxsplit=1)[0] if first[2:].split() else ""
        if magic not in PYTHON_CELL_MAGICS:
            return "\n".join("" for _ in lines)
        lines[0] = ""
    out = []
    continuing = False
    for line in lines:
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if continuing:  # the rest of a magic continued with a trailing backslash
            continuing = line.rstrip().endswith("\\")
            out.append("")
            continue
        if stripped.startswith(("%", "!")) or (stripped.startswith("?") and len(stripped) > 1):
            out.append(indent + "pass")
            continuing = line.rstrip().endswith("\\")
            continue
        if stripped.endswith("?") and not stripped.startswith("#") and _is_help_query(stripped):
            out.append(indent + "pass")
            continue
        assign = _ASSIGN_MAGIC.match(line)
        if assign is not None:
            out.append(assign.group(1) + "...")
            continuing = line.rstrip().endswith("\\")
            continue
        out.append(line)
    return "\n".join(out)


def _is_help_query(stripped: str) -> bool:
    """``np.sum?`` / ``np.sum??``: a dotted name followed by one or two question marks."""
    name = stripped.rstrip("?")
    return len(stripped) - len(name) <= 2 and bool(name) and all(
        part.isidentifier() for part in name.split("."))


def build_program(cells: tuple[Cell, ...]) -> NotebookProgram:
    parts = []
    starts = []
    line = 1
    for cell in cells:
        masked = mask_magics(cell.source)  # same line breaks as the cell itself
        if not cell.source.endswith("\n"):
            masked += "\n"
        starts.append(line)
        parts.append(masked)
        line += masked.count("\n")
    return NotebookProgram("".join(parts), cells, tuple(starts))
