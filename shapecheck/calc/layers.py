"""Parses ``--layer NAME=nn.Kind(args)`` for the calculator and builds the layer with the runtime's nn rules.

The constructor is parsed with libcst and never run by Python: its
arguments must be literals (ints, floats, strings, True/False/None, and
tuples or lists of them, a leading minus allowed), positional or by keyword.
Building it runs torch's own constructor checks (runtime/nn's ``build``); a
refusal is torch's error, reported as one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .shapes import is_name, normalize_name


class LayerSyntaxError(ValueError):
    """A ``--layer`` value that cannot be used: one line naming it and the problem."""

    def __init__(self, text: str, problem: str):
        super().__init__(f"bad layer {text!r}: {problem}")


@dataclass(frozen=True)
class LayerBinding:
    """``conv=nn.Conv2d(3, 16, 3, stride=2)``: the name, torch.nn class and its literal arguments."""

    name: str
    kind: str
    args: tuple
    kwargs: tuple[tuple[str, Any], ...]
    text: str  # the constructor as written

    def describe(self) -> str:
        return f"{self.name} = {self.text}"


_NN_PREFIXES = (("nn",), ("torch", "nn"))


def parse_layer_arg(value: str) -> LayerBinding:
    """One ``--layer`` value; LayerSyntaxError for anything but a literal nn constructor torch accepts."""
    import libcst as cst

    name, sep, constructor = value.partition("=")
    name, constructor = name.strip(), constructor.strip()
    if not sep or not is_name(name):
        raise LayerSyntaxError(value, "expected name=nn.Kind(arguments), e.g. "
                                      "conv=nn.Conv2d(3, 16, 3, stride=2)")
    try:
        node = cst.parse_expression(constructor)
    except Exception:  # libcst's ParserSyntaxError, and a few others on odd input
        raise LayerSyntaxError(value, f"{constructor!r} is not a Python call") from None
    if not isinstance(node, cst.Call):
        raise LayerSyntaxError(value, f"{constructor!r} is not a constructor call")
    chain = _dotted(node.func)
    if chain is None or tuple(chain[:-1]) not in _NN_PREFIXES + ((),):
        raise LayerSyntaxError(value, "the constructor is nn.<Layer>(...) or torch.nn.<Layer>(...)")
    kind = chain[-1]
    args: list = []
    kwargs: dict[str, Any] = {}
    for arg in node.args:
        if arg.star:
            raise LayerSyntaxError(value, f"{arg.star}-arguments are not literals")
        literal = _literal(arg.value, value)
        if arg.keyword is None:
            if kwargs:
                raise LayerSyntaxError(value, "a positional argument follows a keyword argument")
            args.append(literal)
        elif arg.keyword.value in kwargs:
            raise LayerSyntaxError(value, f"keyword argument {arg.keyword.value!r} repeated")
        else:
            kwargs[arg.keyword.value] = literal
    binding = LayerBinding(normalize_name(name), kind, tuple(args), tuple(kwargs.items()),
                           constructor)
    build_layer(binding, value)
    return binding


def build_layer(binding: LayerBinding, text: str | None = None):
    """The runtime's layer for ``binding``, or LayerSyntaxError with torch's construction error."""
    from shapecheck.runtime.nn import LAYERS, build
    from shapecheck.runtime.verdicts import ShapeError

    text = text if text is not None else f"{binding.name}={binding.text}"
    if binding.kind not in LAYERS:
        raise LayerSyntaxError(text, f"nn.{binding.kind} is not a layer the calculator models")
    try:
        layer = build(binding.kind, binding.args, dict(binding.kwargs))
    except ShapeError as err:
        raise LayerSyntaxError(text, f"torch refuses it: {err.exc_type}: {err.message}") from None
    if layer is None:
        raise LayerSyntaxError(text, f"nn.{binding.kind} does not take these arguments "
                                     "(or the calculator does not model them)")
    return layer


def _dotted(node) -> list[str] | None:
    import libcst as cst

    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else inner + [node.attr.value]
    return None


def _literal(node, text: str) -> Any:
    """A constructor argument's value, read from the syntax (never evaluated)."""
    import ast

    import libcst as cst

    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return ast.literal_eval(node.value)  # a single literal token: no code can run
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, (cst.Integer, cst.Float)):
        return -ast.literal_eval(node.expression.value)
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return tuple(_literal(e.value, text) for e in node.elements)  # torch takes either
    code = cst.Module(body=[]).code_for_node(node)
    raise LayerSyntaxError(text, f"{code!r} is not a literal (the arguments are numbers, "
                                 "strings, True/False/None, or tuples of them)")
