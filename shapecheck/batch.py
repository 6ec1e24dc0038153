"""Shape verdicts for one expression over arrays of shapes, for data pipelines: ``shapecheck eval --batch`` as a function.

    import numpy as np
    from shapecheck.batch import check

    verdicts = check("x + y", {"x": [(5, 1, 4), (3, 4)], "y": np.array([[3, 1], [2, 4]])},
                     dialect="numpy")
    verdicts.ok              # array([ True, False])
    verdicts.shape(0)        # (5, 3, 4)
    verdicts.error(1)        # ErrorView(kind='broadcast', message='operands could not be ...', dim=-2)
    verdicts.failing()       # array([1])

Each value is a list of shapes (tuples of ints), an (N, D) integer array
holding each shape right-aligned with -1 in the leading slots it does not use
(the .npy convention of --batch), or a runtime.vectorized.ShapeBatch; a
single tuple of ints is one shape for every row. Rows in the families the
vectorized core covers (broadcasting element-wise ops, matmul batching,
sum/mean/prod over literal axes) are answered at once; the others by the
scalar eval, one by one. Names the expression does not read are ignored, so
a pipeline can pass all its columns. Bad input raises ValueError.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from shapecheck.calc.batch import DialectVerdicts, check_table
from shapecheck.calc.batch_input import ShapeTable
from shapecheck.calc.checker import check_expression
from shapecheck.calc.shapes import ShapeBinding
from shapecheck.runtime.dialects import DIALECTS
from shapecheck.runtime.vectorized import ShapeBatch

__all__ = ["DialectVerdicts", "check"]


def _as_batch(name: str, value: Any) -> ShapeBatch:
    if isinstance(value, ShapeBatch):
        return value
    if isinstance(value, np.ndarray):
        try:
            return ShapeBatch(value)
        except ValueError as exc:
            raise ValueError(f"shapes of {name!r}: {exc}") from None
    try:
        return ShapeBatch.from_shapes(list(value))
    except ValueError as exc:
        raise ValueError(f"shapes of {name!r}: {exc}") from None


def check(expression: str, shapes: Mapping[str, Any], dialect: str = "numpy") -> DialectVerdicts:
    """The verdict of ``expression`` for every row of ``shapes`` under ``dialect``.

    The expression is parsed with libcst (never run by Python); ``dialect`` is
    numpy, numpy-1, torch or torch-legacy.
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r} (choose from {', '.join(DIALECTS)})")
    fixed: dict[str, ShapeBinding] = {}
    columns: dict[str, ShapeBatch] = {}
    for name, value in shapes.items():
        if isinstance(value, tuple) and all(isinstance(d, (int, np.integer)) for d in value):
            fixed[name] = ShapeBinding(name, tuple(int(d) for d in value))
        else:
            columns[name] = _as_batch(name, value)
    lengths = {len(batch) for batch in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"the columns differ in length: {sorted(lengths)}")
    rows = lengths.pop() if lengths else 1
    checked = check_expression(expression, set(shapes))
    table = ShapeTable("<arrays>", rows, columns)
    return check_table(checked, table, fixed, dialect)
