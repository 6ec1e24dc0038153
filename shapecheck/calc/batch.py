"""One expression over many rows of shapes: the vectorized core where it covers the expression, the scalar eval elsewhere.

The vectorized core (batch_plan.py over runtime/vectorized.py) answers every
row at once: valid or not, and the result shape. Rows it cannot answer (the
expression is outside its families, the dialect is torch-legacy, or the
row has a symbolic dim) are evaluated one by one by the ordinary eval.
Why a row fails is always the scalar eval's explanation, asked once per
distinct failing case, so a batch and ``shapecheck eval`` word an error alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from shapecheck.runtime.dialects import get_dialect
from shapecheck.runtime.dims import Shape
from shapecheck.runtime.vectorized import ShapeBatch

from .batch_input import ShapeTable
from .batch_plan import build_plan, evaluate_plan
from .expression import CheckedExpression
from .outcome import DialectOutcome, ErrorView
from .shapes import ShapeBinding


def _scalar(checked: CheckedExpression, env: dict[str, ShapeBinding], dialect: str) -> DialectOutcome:
    from .evaluation import evaluate_dialect

    return evaluate_dialect(checked, env, dialect, confirm=False)


@dataclass
class DialectVerdicts:
    """Every row's verdict under one dialect.

    ok: (N,) bool. vectorized: (N,) bool, the row was answered by the vectorized
    core (the others by the scalar eval). shape(i) and error(i) give row i's
    result shape and, for a failing row, the eval's error (kind, message, dim).
    """

    dialect: str
    checked: CheckedExpression
    table: ShapeTable
    fixed: dict[str, ShapeBinding]
    ok: np.ndarray
    vectorized: np.ndarray
    result: ShapeBatch | None  # the vectorized rows' results (other rows: meaningless)
    outcomes: dict[int, DialectOutcome] = field(default_factory=dict)  # rows answered one by one
    _cases: dict[tuple, DialectOutcome] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return int(self.ok.shape[0])

    def env(self, row: int) -> dict[str, ShapeBinding]:
        env = dict(self.fixed)
        for name, shape in self.table.row_shapes(row).items():
            env[name] = ShapeBinding(name, shape)
        return env

    def outcome(self, row: int) -> DialectOutcome:
        """Row ``row``'s full scalar outcome (evaluated now for a vectorized row, once per case)."""
        if row in self.outcomes:
            return self.outcomes[row]
        env = self.env(row)
        key = tuple((name, b.shape) for name, b in sorted(env.items()))
        if key not in self._cases:
            self._cases[key] = _scalar(self.checked, env, self.dialect)
        return self._cases[key]

    def shape(self, row: int) -> Shape | None:
        if not self.ok[row]:
            return None
        if self.vectorized[row] and self.result is not None:
            return self.result.shape(row)
        return self.outcome(row).shape

    def error(self, row: int) -> ErrorView | None:
        return None if self.ok[row] else self.outcome(row).error

    def failing(self) -> np.ndarray:
        """The failing rows' indices, in order."""
        return np.flatnonzero(~self.ok)


def check_table(checked: CheckedExpression, table: ShapeTable, fixed: dict[str, ShapeBinding],
                dialect_name: str) -> DialectVerdicts:
    """Every row of ``table`` (with the ``fixed`` shapes) under one dialect."""
    dialect = get_dialect(dialect_name)
    rows = table.rows
    names = set(table.columns) | set(fixed)
    plan = build_plan(checked.module, names, dialect)
    if plan is not None and any(not _concrete(b) for b in fixed.values()):
        plan = None  # a symbolic --shapes value holds for every row: the scalar eval's business
    ok = np.zeros(rows, dtype=bool)
    vectorized = np.zeros(rows, dtype=bool)
    result = None
    if plan is not None:
        columns = dict(table.columns)
        for name, binding in fixed.items():
            columns[name] = ShapeBatch.from_shapes([binding.shape] * rows, len(binding.shape)) \
                if rows else ShapeBatch.from_shapes([], len(binding.shape))
        ok_all, result = evaluate_plan(plan, columns, rows, dialect)
        ok[:] = ok_all
        vectorized[:] = True
        if table.symbolic:
            vectorized[list(table.symbolic)] = False
    verdicts = DialectVerdicts(dialect_name, checked, table, fixed, ok, vectorized, result)
    for row in np.flatnonzero(~vectorized).tolist():
        outcome = _scalar(checked, verdicts.env(row), dialect_name)
        verdicts.outcomes[row] = outcome
        ok[row] = outcome.ok
    return verdicts


def _concrete(binding: ShapeBinding) -> bool:
    return all(isinstance(d, int) for d in binding.shape)
