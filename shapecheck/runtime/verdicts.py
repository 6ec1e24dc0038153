"""What a shape rule answers: result shapes with warnings, or a typed error."""

from __future__ import annotations

from dataclasses import dataclass

from .dims import Shape


@dataclass(frozen=True)
class RuleWarning:
    """A warning the library itself would give, or a silent change of meaning.

    kind is one of: "legacy-fallback" (deprecated 1-D pointwise fallback in
    torch-legacy), "backcompat" (broadcastable, same numel, other shape),
    "out-resize" (torch resized a non-empty out= tensor), "broadcast-write"
    (NumPy's writable broadcast_arrays), and others named by the rule.
    """

    kind: str
    message: str


@dataclass(frozen=True)
class Result:
    """A rule's success: one shape per output, and the warnings raised on the way."""

    outputs: tuple[Shape, ...]
    warnings: tuple[RuleWarning, ...] = ()
    as_tuple: bool = False
    """The call returns a tuple even of one array (``np.nonzero`` of a 1-D array,
    ``torch.unique`` with a flag); ops marked multi_output always do."""

    @staticmethod
    def of(shape: Shape, *warnings: RuleWarning) -> "Result":
        return Result((tuple(shape),), tuple(warnings))

    @property
    def shape(self) -> Shape:
        """The first (usually only) output's shape."""
        return self.outputs[0]

    def with_warnings(self, *warnings: RuleWarning) -> "Result":
        return Result(self.outputs, self.warnings + tuple(warnings), self.as_tuple)


class ShapeError(Exception):
    """The library would raise. ``message`` is the library's own text.

    kind names the rule family ("broadcast", "inplace", "out", "dtype",
    "fallback", "matmul", "solve", "reduce", "reshape", "join", "index",
    "axis", "argument", "view", "view-layout": torch's .view of a layout it cannot
    view; "operand": an in-place op refuses its operands' dtypes, as ``x |= y`` of
    floats, which is no cast of its result into x); exc_type is the exception class the library raises
    ("RuntimeError", "ValueError", "IndexError", ...); dim is the offending
    dimension where there is one (as the library counts it).
    """

    def __init__(self, kind: str, message: str, exc_type: str, dim: int | None = None,
                 shapes: tuple[Shape, ...] = ()):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.exc_type = exc_type
        self.dim = dim
        self.shapes = shapes

    def __repr__(self) -> str:
        return f"ShapeError({self.kind!r}, {self.message!r}, {self.exc_type})"
