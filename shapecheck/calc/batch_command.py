"""``shapecheck eval EXPR --batch FILE``: one expression over every row of a file of shapes, summarized or one JSON line per row."""

from __future__ import annotations

import json
import re
from typing import TextIO

from shapecheck.runtime.dims import format_shape

from .batch import DialectVerdicts, check_table
from .batch_input import ShapeTable, check_columns, read_table
from .expression import ExpressionError
from .outcome import json_shape
from .session import (
    EXIT_FAILS,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    parse_layer_args,
    resolve_dialects,
)
from .shapes import ShapeSyntaxError, parse_shape_args

EXAMPLES = 5
"""Failing rows shown in the summary."""


def run_batch(expression: str, path: str, shape_args: list[str], dialect: str | None, fmt: str,
              out: TextIO, err: TextIO, layer_args: list[str] | None = None) -> int:
    """Read the file, answer every row, print the summary or JSON lines; the exit code."""
    from .checker import check_expression

    try:
        fixed = parse_shape_args(shape_args)
        layers = parse_layer_args(layer_args or [], set(fixed))
        table = read_table(path)
        clash = sorted(set(table.columns) & set(fixed))
        if clash:
            raise UsageError(f"{clash[0]!r} is both a column of {path} and a --shapes value")
        # The names the expression reads decide which columns belong; then the usual check
        # (a name neither a column nor a --shapes value) runs with the names given.
        every_name = set(re.findall(r"[^\W\d]\w*", expression)) - {layer.name for layer in layers}
        used = check_expression(expression, every_name, layers=layers).names_used
        check_columns(path, list(table.columns), set(used) - set(fixed))
        checked = check_expression(expression, set(table.columns) | set(fixed), layers=layers)
        dialects = resolve_dialects(dialect, checked)
        results = [check_table(checked, table, fixed, name) for name in dialects]
        if table.rows:
            for verdicts in results:  # an op no dialect knows is a usage error, said once
                verdicts.outcome(0)
    except (ShapeSyntaxError, ExpressionError, UsageError, ValueError) as exc:
        err.write(f"error: {exc}\n")
        return EXIT_USAGE
    if fmt == "json":
        _write_json(results, table, out)
    else:
        _write_summary(expression, results, table, out)
    return EXIT_OK if all(v.ok.all() for v in results) else EXIT_FAILS


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _share(count: int, rows: int) -> str:
    return f" ({count / rows:.1%})" if rows else ""


def _shapes_text(table: ShapeTable, verdicts: DialectVerdicts, row: int) -> str:
    return " ".join(f"{name}={format_shape(tuple(b.shape)) if b.shape else '()'}"
                    for name, b in verdicts.env(row).items() if name in table.columns)


def _write_summary(expression: str, results: list[DialectVerdicts], table: ShapeTable,
                   out: TextIO) -> None:
    for verdicts in results:
        rows = len(verdicts)
        valid = int(verdicts.ok.sum())
        failing = rows - valid
        out.write(f"{expression}   [{verdicts.dialect}]   {_plural(rows, 'row')} from {table.path}\n")
        out.write(f"  valid     {_plural(valid, 'row')}{_share(valid, rows)}\n")
        out.write(f"  failing   {_plural(failing, 'row')}{_share(failing, rows)}")
        out.write(f", the first {min(EXAMPLES, failing)}:\n" if failing else "\n")
        for row in verdicts.failing()[:EXAMPLES].tolist():
            error = verdicts.error(row)
            dim = f"   dim {error.dim}" if error is not None and error.dim is not None else ""
            out.write(f"    row {row + 1}   {_shapes_text(table, verdicts, row)}{dim}\n")
            if error is not None:
                out.write(f"      error {error.exc_type}: {error.message.rstrip()}\n")
        at_once = int(verdicts.vectorized.sum())
        out.write(f"  answered  {_plural(at_once, 'row')} at once (vectorized), "
                  f"{_plural(rows - at_once, 'row')} one by one\n")


def _write_json(results: list[DialectVerdicts], table: ShapeTable, out: TextIO) -> None:
    dumps = json.dumps
    for row in range(table.rows):
        record: dict = {"row": row + 1}
        for verdicts in results:
            ok = bool(verdicts.ok[row])
            error = None if ok else verdicts.error(row)
            record[verdicts.dialect] = {
                "ok": ok,
                "shape": json_shape(verdicts.shape(row)) if ok else None,
                "error": None if error is None else {
                    "kind": error.kind, "message": error.message, "dim": error.dim},
                "vectorized": bool(verdicts.vectorized[row]),
            }
        out.write(dumps(record) + "\n")
