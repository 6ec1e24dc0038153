"""Reads a batch of shapes for ``shapecheck eval --batch``: CSV, JSON lines, .npy or .npz, one row per case.

Every format names its columns after the expression's names:

- CSV: a header row of names, then one shape per cell: ``5x1x4``, ``"5,1,4"``
  (quoted, as CSV needs for commas), ``(5, 1, 4)`` or ``[5,1,4]``; ``()`` is a
  0-d array. A dim may be a name (``B``) or ``?``, as with ``--shapes``.
- JSON lines: one object per line, ``{"x": [5, 1, 4], "y": [3, 1]}``; a value
  may also be a string in the CSV cell syntax. Blank lines are skipped.
- .npy: a structured array with one field per name, each field an integer
  array of fixed length D per row holding the shape right-aligned, with -1 in
  the leading slots it does not use: (5, 1, 4) in D=5 is [-1, -1, 5, 1, 4],
  and all -1 is a 0-d array (runtime/vectorized.py's own convention).
- .npz: one (N, D) integer array per name, in the same convention.

Rows are numbered from 1 in file order (a CSV header and blank JSON lines are
not rows). Any problem is a BatchInputError naming the file and the row.

Cells are parsed a column at a time with NumPy's string functions; only
cells outside the plain digit-and-separator form are parsed one by one.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

import numpy as np

from shapecheck.runtime.dims import Shape, shape_is_concrete
from shapecheck.runtime.vectorized import MISSING, ShapeBatch

from .shapes import ShapeSyntaxError, is_name, normalize_name, parse_dims

FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".npy": "npy",
           ".npz": "npz"}
_X_SEPARATED = re.compile(r"\s*\d+(\s*x\s*\d+)+\s*\Z")
_LONGEST_FAST_DIGITS = 18
"""Cells with more digits in all are parsed one by one, where sizes beyond int64 are caught."""


class BatchInputError(ValueError):
    """A batch file that cannot be read: one line naming the file and, when it has one, the row."""

    def __init__(self, path: str, problem: str, row: int | None = None):
        where = f"{path}: row {row}: " if row is not None else f"{path}: "
        super().__init__(where + problem)


@dataclass
class ShapeTable:
    """N rows of shapes, one column per name.

    columns holds every row's concrete shape; a row with a symbolic or unknown
    dim in some column holds () there, and its shapes are in ``symbolic``.
    """

    path: str
    rows: int
    columns: dict[str, ShapeBatch]
    symbolic: dict[int, dict[str, Shape]] = field(default_factory=dict)  # 0-based row -> shapes

    def row_shapes(self, row: int) -> dict[str, Shape]:
        """Every column's shape in ``row`` (0-based)."""
        if row in self.symbolic:
            return dict(self.symbolic[row])
        return {name: batch.shape(row) for name, batch in self.columns.items()}


def read_table(path: str) -> ShapeTable:
    """The shapes in ``path``; its columns are named by its header, first object or fields."""
    kind = FORMATS.get(Path(path).suffix.lower())
    if kind is None:
        raise BatchInputError(path, f"cannot tell the format from the extension "
                                    f"(use {', '.join(sorted(FORMATS))})")
    try:
        if kind == "csv":
            return _read_csv(path)
        if kind == "jsonl":
            return _read_jsonl(path)
        return _read_arrays(path, kind)
    except OSError as exc:
        raise BatchInputError(path, exc.strerror or str(exc)) from None
    except UnicodeDecodeError as exc:
        raise BatchInputError(path, f"not UTF-8 text ({exc.reason})") from None


def check_columns(path: str, columns: list[str], names: set[str] | frozenset[str],
                  row: int | None = None) -> None:
    """The columns must be exactly ``names``: an unknown one or a missing one is an error."""
    for column in columns:
        if not is_name(column):
            raise BatchInputError(path, f"column {column!r} is not a name", row)
        if normalize_name(column) not in names:
            known = ", ".join(sorted(names)) or "none"
            raise BatchInputError(path, f"unknown column {column!r} (the names to give "
                                        f"here: {known})", row)
    missing = sorted(set(names) - {normalize_name(c) for c in columns})
    if missing:
        raise BatchInputError(path, f"no column {missing[0]!r} (add one, or give "
                                    f"-s {missing[0]}=...)", row)


# ----------------------------------------------------------------------------- CSV


def _read_csv(path: str) -> ShapeTable:
    with open(path, encoding="utf-8", newline="") as handle:
        header = handle.readline()
        if not header.strip():
            raise BatchInputError(path, "empty file (expected a header row of names)")
        import csv

        columns = [c.strip() for c in next(csv.reader([header]))]
        for column in columns:
            if not is_name(column):
                raise BatchInputError(path, f"header: {column!r} is not a name")
        if len(set(columns)) != len(columns):
            raise BatchInputError(path, "header: a column is named twice")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a header without rows is 0 rows, not a warning
                cells = np.loadtxt(handle, dtype=str, delimiter=",", quotechar='"', ndmin=2,
                                   comments=None, encoding=None)
        except ValueError as exc:
            raise _loadtxt_problem(path, str(exc), len(columns)) from None
    if cells.size == 0:
        cells = np.empty((0, len(columns)), dtype=str)
    if cells.shape[1] != len(columns):
        raise BatchInputError(path, f"{cells.shape[1]} cells per row for {len(columns)} columns", 1)
    table = ShapeTable(path, cells.shape[0], {})
    for j, column in enumerate(columns):
        batch, symbolic = parse_cells(cells[:, j], path, normalize_name(column))
        table.columns[normalize_name(column)] = batch
        for row, shape in symbolic.items():
            table.symbolic.setdefault(row, {})[normalize_name(column)] = shape
    _fill_symbolic_rows(table)
    return table


_CELLS_CHANGED = re.compile(r"changed from (\d+) to (\d+) at row (\d+)")


def _loadtxt_problem(path: str, message: str, columns: int) -> BatchInputError:
    """NumPy's reader names the row it stopped at; say it in the batch's terms."""
    found = _CELLS_CHANGED.search(message)
    if found:
        cells, row = int(found.group(2)), int(found.group(3))
        return BatchInputError(path, f"{cells} cells for {columns} columns (quote a shape "
                                     f"with commas, \"5,1,4\", or write 5x1x4)", row)
    first = message.splitlines()[0].split(";")[0] if message else "cannot read the rows"
    return BatchInputError(path, first)


_CLEAN = str.maketrans({"x": ",", " ": None, "(": None, ")": None, "[": None, "]": None})
_NOT_PLAIN = str.maketrans(dict.fromkeys("0123456789,\n"))
_PLAIN_CELL = re.compile(r"(?:\d{1,18}(?:,\d{1,18})*)?\Z")


def _plain(column: str) -> bool:
    """Only digits, commas and newlines, each line empty or ints joined by single commas."""
    if column.translate(_NOT_PLAIN) or ",," in column or "\n," in column or column.startswith(","):
        return False
    text = np.frombuffer(column.encode("ascii"), dtype=np.uint8)
    separators = np.flatnonzero((text == ord(",")) | (text == ord("\n")))
    longest = np.diff(separators, prepend=-1, append=len(text)).max() - 1
    return bool(longest <= _LONGEST_FAST_DIGITS)


def parse_cells(cells: np.ndarray, path: str, column: str) -> tuple[ShapeBatch, dict[int, Shape]]:
    """A column of shape cells: the concrete batch, and the rows whose shape has a symbol.

    The column is one string, one cell a line, cleaned (separators to commas,
    brackets and spaces dropped) and checked as a whole; only when that fails
    are the cells looked at one by one.
    """
    texts = [cell.strip() for cell in cells.tolist()]
    if not all(texts):
        row = texts.index("") + 1
        raise BatchInputError(path, f"column {column!r} is empty (write () for a 0-d array)", row)
    joined = "\n".join(texts).translate(_CLEAN).replace(",\n", "\n")  # (5,) is 5
    joined = joined.removesuffix(",")
    symbolic: dict[int, Shape] = {}
    if texts and not _plain(joined):
        lines = joined.split("\n")
        for row, line in enumerate(lines):
            if _PLAIN_CELL.match(line):
                continue
            shape = parse_cell(texts[row], path, column, row + 1)
            if shape_is_concrete(shape):
                lines[row] = ",".join(map(str, shape))
            else:
                symbolic[row] = shape
                lines[row] = ""
        joined = "\n".join(lines)
    # Each row's ndim from where its commas fall between the newlines, with array operations.
    text = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    newlines = np.flatnonzero(text == ord("\n"))
    starts = np.concatenate([[0], newlines + 1])[:len(texts)]
    ends = np.concatenate([newlines, [len(text)]])[:len(texts)]
    commas = np.bincount(np.searchsorted(newlines, np.flatnonzero(text == ord(","))),
                         minlength=len(texts))
    lengths = np.where(ends > starts, commas + 1, 0)
    numbers = joined.replace("\n", ",") if lengths.all() else \
        ",".join(filter(None, joined.split("\n")))
    flat = np.fromstring(numbers, dtype=np.int64, sep=",") if numbers else np.empty(0, np.int64)
    return ShapeBatch.from_flat(lengths, flat), symbolic


def parse_cell(cell: str, path: str, column: str, row: int) -> Shape:
    """One shape cell the fast path left: ``5x1x4``, ``5,1,B``, ``(B, 3)``, ``-2`` (an error)."""
    text = cell.replace("x", ",") if _X_SEPARATED.match(cell) else cell
    try:
        return parse_dims(text, 0, text)
    except ShapeSyntaxError as exc:
        raise BatchInputError(path, f"column {column!r}: bad shape {cell!r}: {exc.problem}",
                              row) from None


def _fill_symbolic_rows(table: ShapeTable) -> None:
    """A row with a symbol in one column keeps every column's shape with it."""
    for row, shapes in table.symbolic.items():
        for name, batch in table.columns.items():
            shapes.setdefault(name, batch.shape(row))


# ----------------------------------------------------------------------------- JSON lines


def _read_jsonl(path: str) -> ShapeTable:
    with open(path, encoding="utf-8") as handle:
        lines = [line for line in handle.read().splitlines() if line.strip()]
    fast = _jsonl_at_once(path, lines)
    return fast if fast is not None else _jsonl_row_by_row(path, lines)


def _jsonl_at_once(path: str, lines: list[str]) -> ShapeTable | None:
    """Every row parsed by one json call and checked per column; None when any row needs a closer look."""
    try:
        records = json.loads("[" + ",".join(lines) + "]")
    except (json.JSONDecodeError, RecursionError):
        return None
    if not records or type(records[0]) is not dict:
        return None
    keys = records[0].keys()
    if not all(type(r) is dict and r.keys() == keys for r in records):
        return None
    if not all(is_name(k) for k in keys):
        return None
    table = ShapeTable(path, len(records), {})
    for key in keys:
        values = [r[key] for r in records]
        if set(map(type, values)) != {list}:
            return None
        flat = list(chain.from_iterable(values))
        if not set(map(type, flat)) <= {int}:  # bools and floats are the row-by-row path's to word
            return None
        dims = np.array(flat, dtype=object if not flat else None)
        if flat and (dims.dtype != np.int64 or (dims < 0).any()):
            return None  # beyond int64 or negative: the row-by-row reading words it
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        table.columns[normalize_name(key)] = ShapeBatch.from_flat(lengths, dims.astype(np.int64))
    return table


def _jsonl_row_by_row(path: str, lines: list[str]) -> ShapeTable:
    per_column: dict[str, list[tuple]] | None = None
    symbolic: dict[int, dict[str, Shape]] = {}
    rows = 0
    for line in lines:
        line_number = rows + 1  # the row's number, as the results count rows
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BatchInputError(path, f"not JSON: {exc.msg} at column {exc.colno}",
                                  line_number) from None
        if not isinstance(record, dict):
            raise BatchInputError(path, "expected an object of name: shape", line_number)
        if per_column is None:
            check_columns(path, list(record), {normalize_name(k) for k in record}, line_number)
            per_column = {normalize_name(k): [] for k in record}
        elif record.keys() != per_column.keys():
            check_columns(path, list(record), set(per_column), line_number)
        for name, value in record.items():
            shape = _json_shape(value, path, name, line_number)
            if not shape_is_concrete(shape):
                symbolic.setdefault(rows, {})[name] = shape
                shape = ()
            per_column[normalize_name(name)].append(shape)
        rows += 1
    table = ShapeTable(path, rows, {n: ShapeBatch.from_shapes(s)
                                    for n, s in (per_column or {}).items()},
                       symbolic)
    _fill_symbolic_rows(table)
    return table


def _json_shape(value, path: str, column: str, row: int) -> Shape:
    if isinstance(value, list):
        if all(type(d) is int and d >= 0 for d in value):
            return tuple(value)
        for d in value:
            if type(d) is int and d < 0:
                raise BatchInputError(path, f"column {column!r}: negative dimension {d}", row)
            if not isinstance(d, (int, str)) or isinstance(d, bool):
                raise BatchInputError(path, f"column {column!r}: {json.dumps(d)} is not a "
                                            "dimension (an int, a name, or ?)", row)
        return parse_cell(",".join(map(str, value)), path, column, row) if value else ()
    if isinstance(value, str):
        return parse_cell(value, path, column, row)
    raise BatchInputError(path, f"column {column!r}: expected a list of dims, got "
                                f"{json.dumps(value)}", row)


# ----------------------------------------------------------------------------- .npy / .npz


def _read_arrays(path: str, kind: str) -> ShapeTable:
    try:
        loaded = np.load(path, allow_pickle=False)
    except ValueError as exc:
        raise BatchInputError(path, f"not a {kind} file NumPy can read without pickle "
                                    f"({str(exc).splitlines()[0]})") from None
    if kind == "npz":
        with loaded:
            arrays = {key: loaded[key] for key in loaded.files}
    else:
        if loaded.dtype.names is None:
            raise BatchInputError(path, "a .npy batch is a structured array with one field "
                                        "per name (see shapecheck eval --help)")
        arrays = {key: loaded[key] for key in loaded.dtype.names}
    for key in arrays:
        if not is_name(key):
            raise BatchInputError(path, f"column {key!r} is not a name")
    rows = {len(a) if a.ndim else 1 for a in arrays.values()}
    if len(rows) > 1:
        raise BatchInputError(path, f"the columns differ in length: {sorted(rows)}")
    table = ShapeTable(path, rows.pop() if rows else 0, {})
    for name, array in arrays.items():
        table.columns[normalize_name(name)] = _padded_batch(array, path, name)
    return table


def _padded_batch(array: np.ndarray, path: str, column: str) -> ShapeBatch:
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise BatchInputError(path, f"column {column!r} has {array.ndim} axes per row "
                                    "(expected one row of dims per case)")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise BatchInputError(path, f"column {column!r} holds {array.dtype}, not integers")
    try:
        return ShapeBatch(array)  # validates in one pass; the row is found only on failure
    except ValueError as exc:
        problem = str(exc)
    negative = (array < MISSING).any(axis=1)
    if negative.any():
        row = int(np.argmax(negative))
        bad = int(array[row][array[row] < MISSING][0])
        raise BatchInputError(path, f"column {column!r}: negative dimension {bad}", row + 1)
    present = array != MISSING
    misplaced = (present[:, :-1] & ~present[:, 1:]).any(axis=1) if array.shape[1] > 1 \
        else np.zeros(len(array), dtype=bool)
    if misplaced.any():
        row = int(np.argmax(misplaced))
        raise BatchInputError(path, f"column {column!r}: -1 after a dim in "
                                    f"{array[row].tolist()} (-1 pads shapes on the left)", row + 1)
    raise BatchInputError(path, f"column {column!r}: {problem}")
