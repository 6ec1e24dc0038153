"""Renders calculator outcomes: per-dimension broadcast tables, step shapes, dialect comparison.

The output is built as lines and borderless grids first. At a terminal
(or with FORCE_COLOR / TTY_COMPATIBLE) rich prints them, in colour. In a
pipe, when every line is plain printable ASCII and every grid fits the
width, they are written directly: the same bytes rich would write there
(no colour, no wrapping, cells padded and joined the same way), without
the cost of importing rich, which is a good part of a one-shot answer's
start-up. Anything else (the bordered comparison table, tabs, wide or
non-ASCII characters) goes through rich.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Sequence, TextIO

from shapecheck.runtime.dims import Shape, eq, format_dim, format_shape, is_one
from shapecheck.runtime.rules.broadcast import broadcast_dim

from .outcome import DialectOutcome, StepView
from .symbols import Dependence

PIPE_WIDTH = 200
"""The width of piped output: long library messages stay on one line instead of wrapping at 80."""


class Line:
    """A line of styled text, built like rich's Text (``Line(text, style)``, then ``append``)."""

    def __init__(self, text: str = "", style: str | None = None) -> None:
        self.text, self.style = text, style
        self.parts: list[tuple[str, str | None]] = []

    def append(self, text: str, style: str | None = None) -> "Line":
        self.parts.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return self.text + "".join(text for text, _ in self.parts)

    def to_rich(self) -> Any:
        from rich.text import Text

        line = Text(self.text, style=self.style or "")
        for text, style in self.parts:
            line.append(text, style=style)
        return line


def _plain(cell: "Line | str") -> str:
    return cell.plain if isinstance(cell, Line) else cell


def _rich(cell: "Line | str") -> Any:
    return cell.to_rich() if isinstance(cell, Line) else cell


class Grid:
    """A borderless table with a header row, built like rich's Table (box=None, pad_edge=False)."""

    def __init__(self) -> None:
        self.columns: list[tuple[Line | str, str, str | None]] = []  # header, justify, style
        self.rows: list[tuple[Line | str, ...]] = []

    def add_column(self, header: "Line | str", justify: str, style: str | None = None) -> None:
        self.columns.append((header, justify, style))

    def add_row(self, *cells: "Line | str") -> None:
        self.rows.append(cells)

    def to_rich(self) -> Any:
        from rich.table import Table

        table = Table(box=None, show_header=True, header_style="dim", pad_edge=False)
        for header, justify, style in self.columns:
            table.add_column(_rich(header), justify=justify, style=style)  # type: ignore[arg-type]
        for cells in self.rows:
            table.add_row(*map(_rich, cells))
        return table

    def plain_lines(self) -> list[str] | None:
        """The lines rich prints for this grid in a pipe, or None when rich must lay it out.

        Each column is as wide as its widest cell, cells are justified in it and
        joined by two spaces (one of padding each side, none at the edges), and
        every row keeps its padding to the full width, as rich writes it.
        """
        rows = [[_plain(header) for header, _, _ in self.columns]]
        rows += [[_plain(cell) for cell in cells] + [""] * (len(self.columns) - len(cells)) for cells in self.rows]
        if not all(_is_plain(cell) for row in rows for cell in row):
            return None
        widths = [max(len(row[col]) for row in rows) for col in range(len(self.columns))]
        if sum(widths) + 2 * (len(widths) - 1) > PIPE_WIDTH:
            return None  # rich would shrink and crop the columns
        right = [justify == "right" for _, justify, _ in self.columns]
        return ["  ".join(cell.rjust(width) if r else cell.ljust(width)
                          for cell, width, r in zip(row, widths, right)) for row in rows]


def _is_plain(text: str) -> bool:
    """One cell per character and nothing rich would change: printable ASCII (no tabs, no newlines)."""
    return text.isascii() and text.isprintable()


def writes_plain(stream: TextIO) -> bool:
    """Whether rich would treat ``stream`` as no terminal (no colour, no cursor): its own test."""
    if os.environ.get("TTY_COMPATIBLE") == "1" or os.environ.get("FORCE_COLOR", "") != "":
        return False
    if "IPython" in sys.modules:  # rich renders to a notebook differently
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:
        return True


def make_console(stream: TextIO) -> Any:
    from rich.console import Console

    is_terminal = hasattr(stream, "isatty") and stream.isatty()
    # Piped output keeps long library messages on one line instead of wrapping at 80.
    # Labels such as x[i] are source text, never markup; emoji codes are not ours either.
    return Console(file=stream, highlight=False, markup=False, emoji=False,
                   soft_wrap=not is_terminal, width=None if is_terminal else PIPE_WIDTH)


def shape_text(shape: Shape | None) -> str:
    if shape is None:
        return "-"
    return "()" if len(shape) == 0 else format_shape(shape)


def result_text(outcome: DialectOutcome) -> str:
    """What the whole expression is: its value when that is no array (``(x@y).shape[0]`` is
    a size), else the result's shape."""
    value = outcome.value
    if value is None:
        return shape_text(outcome.shape)
    if isinstance(value, tuple):
        return shape_text(value)
    return format_dim(value)


def column_rules(operands: Sequence[Shape], error_dim: int | None = None,
                 inplace: bool = False) -> list[str]:
    """Per trailing-aligned column: equal, 1 stretched, missing, mismatch (or depends on sizes).

    The verdict of each column is the runtime's broadcast_dim; this only names it.
    For an in-place op the first operand is the target, which cannot stretch.
    """
    ndim = max((len(s) for s in operands), default=0)
    rules = []
    for col in range(ndim):
        present = [s[len(s) - ndim + col] if len(s) - ndim + col >= 0 else None for s in operands]
        dims = [d for d in present if d is not None]
        labels = []
        if None in present:
            labels.append("missing")
        failed = False
        acc = dims[0]
        for d in dims[1:]:
            acc, failed = broadcast_dim(acc, d)
            if failed:
                break
        ones = [is_one(d) for d in dims]
        target = present[0]
        if failed or (error_dim is not None and col - ndim == error_dim):
            labels = ["mismatch"]
        elif inplace and (target is None or eq(target, acc) is False):
            labels = ["mismatch (in place)"]
        elif True in ones and False in ones:
            labels.append("1 stretched")
        elif len(dims) > 1 and all(eq(dims[0], d) is True for d in dims[1:]):
            labels.append("equal")
        elif len(dims) > 1:
            labels.append("depends on sizes")
        rules.append(", ".join(labels) if labels else "equal")
    return rules


def operand_labels(step: StepView) -> list[str]:
    """The operands' source text (``x``, ``y.T``) when the step's text shows them, else #1, #2."""
    fallback = [f"#{i + 1}" for i in range(len(step.operands))]
    try:
        import libcst as cst

        if any(op in step.text for op in ("+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=")):
            line = cst.parse_statement(step.text)
            small = line.body[0] if isinstance(line, cst.SimpleStatementLine) else None
            if not isinstance(small, cst.AugAssign):
                return fallback
            parts = [small.target, small.value]
        else:
            node = cst.parse_expression(step.text)
            if isinstance(node, cst.BinaryOperation):
                parts = [node.left, node.right]
            elif isinstance(node, cst.Comparison):
                parts = [node.left] + [c.comparator for c in node.comparisons]
            elif isinstance(node, cst.Call):
                receiver = [node.func.value] if isinstance(node.func, cst.Attribute) and not \
                    _is_module(node.func.value) else []
                parts = receiver + [a.value for a in node.args if a.keyword is None]
            else:
                return fallback
        module = cst.Module(body=[])
        texts = [module.code_for_node(p).strip() for p in parts
                 if not isinstance(p, (cst.Integer, cst.Float, cst.SimpleString, cst.Name))
                 or (isinstance(p, cst.Name) and p.value not in ("True", "False", "None"))]
    except Exception:  # labels are cosmetic; never fail the output over them
        return fallback
    return texts if len(texts) == len(step.operands) else fallback


def _is_module(node) -> bool:
    import libcst as cst

    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value in ("np", "numpy", "torch", "F")


def broadcast_table(step: StepView) -> Grid:
    """Operands right-aligned by trailing dimension, the rule in each column, the result."""
    error_dim = step.error.dim if step.error is not None else None
    ndim = max([len(s) for s in step.operands] + [len(step.shape or ())])
    rules = column_rules(step.operands, error_dim, inplace=is_inplace(step.op))
    rules = [""] * (ndim - len(rules)) + rules
    table = Grid()
    table.add_column("", justify="left")
    for col in range(ndim):
        rule = rules[col]
        style = "bold red" if rule.startswith("mismatch") else None
        table.add_column(Line(str(col - ndim), style="dim"), justify="right", style=style)
    for name, shape in zip(operand_labels(step), step.operands):
        cells = [""] * (ndim - len(shape)) + [str(d) for d in shape]
        table.add_row(name, *cells)
    table.add_row(Line("rule", style="dim"), *[Line(r, style=_rule_style(r)) for r in rules])
    if step.shape is not None:
        cells = [""] * (ndim - len(step.shape)) + [str(d) for d in step.shape]
        table.add_row(Line("result", style="bold"), *[Line(c, style="bold") for c in cells])
    return table


def is_inplace(op: str) -> bool:
    name = op.rsplit(".", 1)[-1]
    return (name.startswith("__i") and name.endswith("__")) or (
        name.endswith("_") and not name.endswith("__"))


def _rule_style(rule: str) -> str:
    if rule.startswith("mismatch"):
        return "bold red"
    if "stretched" in rule or "missing" in rule:
        return "cyan"
    if "depends" in rule:
        return "yellow"
    return "green"


def step_line(step: StepView) -> Line:
    """``z.sum(0)    (5, 3) -> (3,)``: one step's operands and result."""
    line = Line("  ")
    line.append(step.text, style="bold")
    operands = ", ".join(shape_text(s) for s in step.operands)
    line.append(f"    {operands}" if operands else "    ", style="dim")
    line.append("  ->  ")
    if step.error is not None:
        line.append("error", style="bold red")
    else:
        line.append(shape_text(step.shape), style="bold green")
    return line


def _outcome_key(outcome: DialectOutcome) -> tuple:
    return (outcome.ok, outcome.shape, outcome.value, outcome.error and outcome.error.message,
            tuple(w.code for w in outcome.warnings),
            tuple(step.shape for step in outcome.steps),
            tuple((c.engine, c.status) for c in outcome.confirmations))


def group_outcomes(outcomes: Sequence[DialectOutcome],
                   depends: dict[str, Dependence] | None = None) -> list[list[DialectOutcome]]:
    """Dialects with the same verdict, shapes, warnings and dependence, in first-seen order."""
    depends = depends or {}
    groups: dict[tuple, list[DialectOutcome]] = {}
    for outcome in outcomes:
        key = _outcome_key(outcome) + (depends.get(outcome.dialect),)
        groups.setdefault(key, []).append(outcome)
    return list(groups.values())


def render_outcome(pieces: list, outcome: DialectOutcome, label: str,
                   dependence: Dependence | None = None) -> None:
    """Appends the lines and grids of one outcome to ``pieces``."""
    pieces.append(Line(label, style="bold magenta"))
    steps = outcome.steps
    for index, step in enumerate(steps):
        if len(steps) > 1:
            pieces.append(step_line(step))
        if step.broadcasts and step.operands:
            pieces.append(broadcast_table(step))
        elif len(steps) == 1:
            pieces.append(step_line(step))
        for warning in step.warnings:
            line = Line("  warning ", style="bold yellow")
            line.append(f"{warning.code}: ", style="yellow")
            line.append(warning.message)
            pieces.append(line)
            if warning.explanation:
                pieces.append(Line(f"    {warning.explanation}", style="dim"))
        if step.error is not None:
            line = Line("  error ", style="bold red")
            line.append(f"{step.error.exc_type}: ", style="red")
            line.append(step.error.message.rstrip())
            pieces.append(line)
            if index + 1 < len(steps):
                pieces.append(Line("  (later steps not evaluated)", style="dim"))
            break
    summary = Line("  = ")
    if not outcome.ok:
        summary.append("fails", style="bold red")
    elif dependence is not None:
        # Never a plain shape: the rules could not rule the failure out.
        summary.append(shape_text(outcome.shape), style="bold yellow")
        summary.append(f" {dependence.describe()}", style="yellow")
    else:
        summary.append(result_text(outcome), style="bold green")
    for confirmation in outcome.confirmations:
        summary.append("   ")
        if confirmation.status == "confirmed":
            summary.append(f"confirmed by running it on {confirmation.engine}", style="green")
        elif confirmation.status == "error-agrees":
            summary.append("the runtime engine raises the same error", style="green")
        elif confirmation.status == "emulated":
            summary.append(f"checked by the engine ({confirmation.detail})", style="dim")
        elif confirmation.status == "shape-only":
            summary.append(f"checked by the engine in shape-only mode ({confirmation.detail})",
                           style="dim")
        elif confirmation.status == "unconfirmed":
            summary.append(f"not confirmed: today's library code differs ({confirmation.detail})",
                           style="yellow")
        elif confirmation.status == "disagrees":
            summary.append(f"{confirmation.engine} DISAGREES: {confirmation.detail}", style="bold red")
        else:
            summary.append(f"not run on {confirmation.engine}: {confirmation.detail}", style="dim")
    pieces.append(summary)


def _verdict_text(outcome: DialectOutcome, dependence: Dependence | None) -> str:
    if not outcome.ok:
        return "fails"
    if dependence is not None:
        return f"{shape_text(outcome.shape)} (depends on {', '.join(dependence.symbols)})"
    return result_text(outcome)


class Comparison:
    """The bordered table of disagreeing dialects: always laid out by rich."""

    def __init__(self, outcomes: Sequence[DialectOutcome], depends: dict[str, Dependence] | None) -> None:
        self.outcomes, self.depends = outcomes, depends

    def to_rich(self) -> Any:
        return comparison_table(self.outcomes, self.depends)


def comparison_table(outcomes: Sequence[DialectOutcome],
                     depends: dict[str, Dependence] | None = None) -> Any:
    """Side-by-side verdicts; rows that differ from the first dialect are highlighted."""
    from rich.table import Table

    table = Table(title="dialects disagree", title_style="bold yellow", show_lines=False)
    table.add_column("dialect")
    table.add_column("result")
    table.add_column("warnings")
    table.add_column("error")
    depends = depends or {}
    first = outcomes[0]
    for outcome in outcomes:
        differs = _comparison_key(outcome, depends) != _comparison_key(first, depends)
        style = "bold yellow" if differs else None
        table.add_row(
            outcome.dialect,
            _verdict_text(outcome, depends.get(outcome.dialect)),
            ", ".join(w.code for w in outcome.warnings) or "-",
            (outcome.error.message.strip() if outcome.error else "-"),
            style=style,
        )
    return table


def _comparison_key(outcome: DialectOutcome, depends: dict[str, Dependence]) -> tuple:
    """What the comparison table tells apart: all but the confirmations."""
    return _outcome_key(outcome)[:-1] + (depends.get(outcome.dialect) is not None,)


def render_text(stream: TextIO, source: str, outcomes: Sequence[DialectOutcome],
                depends: dict[str, Dependence] | None = None) -> None:
    """All requested dialects; dialects that agree are shown once, disagreements side by side.

    ``depends`` names the dialects whose verdict holds only for some sizes of the symbols.
    """
    depends = depends or {}
    pieces: list = []
    for group in group_outcomes(outcomes, depends):
        names = ", ".join(o.dialect for o in group)
        render_outcome(pieces, group[0], f"{source.strip()}   [{names}]",
                       depends.get(group[0].dialect))
    if len({_comparison_key(o, depends) for o in outcomes}) > 1:
        pieces.append(Comparison(outcomes, depends))
    lines = plain_lines(pieces) if writes_plain(stream) else None
    if lines is not None:
        stream.write("".join(line + "\n" for line in lines))
        return
    console = make_console(stream)
    for piece in pieces:
        console.print(piece.to_rich())


def plain_lines(pieces: list) -> list[str] | None:
    """The lines rich would print for ``pieces`` in a pipe, or None when only rich can tell."""
    lines: list[str] = []
    for piece in pieces:
        if isinstance(piece, Line) and _is_plain(piece.plain):
            lines.append(piece.plain)
        elif isinstance(piece, Grid) and (grid := piece.plain_lines()) is not None:
            lines.extend(grid)
        else:
            return None
    return lines
