"""What a calculator expression is once checked, and the error when it cannot be evaluated.

The checking itself (calc/checker.py, check_expression) parses with libcst, never with
Python's eval; it is imported on the first expression, so a usage error or
--help answers without loading libcst.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

MODULE_PREFIXES = {"np": "numpy", "numpy": "numpy", "torch": "torch", "F": "torch"}
"""Names that stand for a library (``F`` is ``torch.nn.functional``), never arrays."""

CONSTANTS = frozenset({"True", "False", "None"})


@dataclass(frozen=True)
class Position:
    """1-based line and column of a problem in the expression text."""

    line: int
    column: int

    def describe(self, source: str) -> str:
        if "\n" in source.strip("\n"):
            return f"line {self.line}, column {self.column}"
        return f"column {self.column}"


class ExpressionError(ValueError):
    """The expression cannot be evaluated as written: one line naming the problem and where."""

    def __init__(self, problem: str, position: Position, source: str):
        self.problem = problem
        self.position = position
        self.source = source
        super().__init__(f"{problem} at {position.describe(source)}")


@dataclass(frozen=True)
class FunctionUse:
    """One call in the expression: the op name as written and how it is reached."""

    name: str  # "add_", "linalg.solve", "matmul"
    kind: str  # "method", "function"
    library: str | None  # "numpy" / "torch" from the prefix; None for a bare or method call
    position: Position
    functional: bool = False  # spelled F.name or torch.nn.functional.name


@dataclass(frozen=True)
class CheckedExpression:
    """A parsed expression that passed every check, and what it names."""

    source: str
    module: cst.Module
    libraries: frozenset[str]  # libraries named by a prefix
    assigned: tuple[str, ...]  # names the statements bind, in order
    calls: tuple[FunctionUse, ...] = field(default=())
    names_used: frozenset[str] = frozenset()  # array names read before any assignment
    ends_with_assignment: bool = False  # the last statement binds (z = ..., x += ...)
    layers: tuple = ()  # calc.layers.LayerBinding for each --layer the expression calls

    @property
    def default_dialect(self) -> str:
        """numpy if it names np, torch if it names torch, else all (both named: all too)."""
        if self.libraries == {"numpy"}:
            return "numpy"
        if self.libraries == {"torch"}:
            return "torch"
        return "all"
