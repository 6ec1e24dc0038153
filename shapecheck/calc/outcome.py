"""What the calculator reports for one dialect: each step's shapes, warnings, error and confirmation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shapecheck.runtime.dims import Shape, UnknownDim

from .shapes import ShapeBinding

WARNING_CODES = {
    "legacy-fallback": "SC104",
    "fallback": "SC104",
    "backcompat": "SC105",
    "outer-product": "SC102",
    "implicit-outer-product": "SC102",
    "out-resize": "SC203",
    "solve-ambiguity": "SC110",
}
"""Warning kinds from the rules, to the rule codes the linter uses for the same problem."""

WARNING_EXPLANATIONS = {
    "SC104": "old PyTorch paired same-numel tensors element by element instead of "
             "broadcasting; that fallback was deprecated and is an error today.",
    "SC105": "the shapes broadcast, but old PyTorch's 1-D fallback gave another shape "
             "with the same numel: the meaning changed silently between versions.",
    "SC102": "a (n, 1) and a (n,) operand broadcast to (n, n): usually an unintended "
             "outer product rather than an element-wise op.",
    "SC203": "torch resized a non-empty out= tensor to fit the result; a future release "
             "makes this an error.",
    "SC110": "whether b is a vector or a stack of matrices depends on the library and "
             "version; the result shapes differ.",
    "SC306": "reshape, ravel, flatten and contiguous return a view when the operand's memory "
             "layout allows it and a copy otherwise; a write into a copy does not reach the "
             "operand.",
}
"""One line of explanation per warning code, shown under the warning in text output."""


@dataclass(frozen=True)
class WarningView:
    code: str
    message: str

    @staticmethod
    def of(kind: str, message: str) -> "WarningView":
        return WarningView(WARNING_CODES.get(kind, kind), message)

    @property
    def explanation(self) -> str | None:
        return WARNING_EXPLANATIONS.get(self.code)


@dataclass(frozen=True)
class ErrorView:
    """The library's own error: kind (rule family), message, exception class, offending dim."""

    kind: str
    message: str
    exc_type: str = "Error"
    dim: int | None = None


@dataclass(frozen=True)
class StepView:
    """One evaluated statement or sub-expression."""

    text: str
    op: str
    operands: tuple[Shape, ...]
    shape: Shape | None  # None on error or when the step yields no array
    warnings: tuple[WarningView, ...] = ()
    error: ErrorView | None = None
    broadcasts: bool = False  # the op broadcasts its operands (column table applies)


@dataclass(frozen=True)
class Confirmation:
    """Whether a real run agreed: status "confirmed", "disagrees", "skipped" (with why),
    "emulated" (the engine ran torch's rules on NumPy arrays: no confirmation by torch), or
    "values-decide" (sizes read off values the run made up; with those it failed)."""

    engine: str  # "NumPy" or "torch"
    status: str
    detail: str = ""


@dataclass(frozen=True)
class DialectOutcome:
    dialect: str
    steps: tuple[StepView, ...]
    confirmations: tuple[Confirmation, ...] = field(default=())
    bindings: tuple[tuple[str, ShapeBinding], ...] = field(default=())  # names the statements bound
    value: Any = None
    """The value of the whole expression when it is no array: a dim (``(x@y).shape[0]``) or
    a tuple of dims (``(x@y).shape``); None when the expression is an array."""

    @property
    def error(self) -> ErrorView | None:
        for step in self.steps:
            if step.error is not None:
                return step.error
        return None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def shape(self) -> Shape | None:
        if not self.ok or not self.steps:
            return None
        return self.steps[-1].shape

    @property
    def warnings(self) -> tuple[WarningView, ...]:
        seen: list[WarningView] = []
        for step in self.steps:
            for warning in step.warnings:
                if warning not in seen:
                    seen.append(warning)
        return tuple(seen)


def json_dim(d) -> int | str:
    """A dim for JSON: ints stay ints, symbols and unknown become strings."""
    if isinstance(d, int):
        return d
    if isinstance(d, UnknownDim):
        return "?"
    return str(d)


def json_shape(shape: Shape | None) -> list | None:
    return None if shape is None else [json_dim(d) for d in shape]


def json_value(value: Any) -> Any:
    if value is None:
        return None
    return json_shape(value) if isinstance(value, tuple) else json_dim(value)


def outcome_json(outcome: DialectOutcome) -> dict:
    """The DESIGN.md contract for one dialect (plus how the result was confirmed)."""
    error = outcome.error
    return {
        "ok": outcome.ok,
        "shape": json_shape(outcome.shape),
        "warnings": [{"code": w.code, "message": w.message} for w in outcome.warnings],
        "error": None if error is None else {"kind": error.kind, "message": error.message},
        "steps": [json_shape(step.shape) for step in outcome.steps],
        "value": json_value(outcome.value),
        "confirmed": [{"engine": c.engine, "status": c.status, "detail": c.detail}
                      for c in outcome.confirmations],
    }
