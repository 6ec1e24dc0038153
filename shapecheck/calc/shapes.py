"""Parses the calculator's shape bindings (``x=5,1,4,1``, ``q=B,H,T,D k=B,H,T,D``, ``x=5,3:int64``)."""

from __future__ import annotations

import keyword
import re
import unicodedata
from dataclasses import dataclass

from shapecheck.runtime.dims import UNKNOWN, Dim, Shape, format_shape, sym

DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
)
"""The dtype spellings a binding may carry (numpy's names, as the runtime uses)."""

_INT = re.compile(r"[+-]?[0-9]+\Z")

INT64_MAX = 2**63 - 1
"""The largest size either library can hold (NumPy's npy_intp, torch's int64_t)."""


def normalize_name(text: str) -> str:
    """An identifier as Python reads it: NFKC-normalized (PEP 3131), so ``ﬁ`` is ``fi``."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def is_name(text: str) -> bool:
    """A Python identifier (Unicode letters included) that is not a keyword."""
    text = normalize_name(text)
    return text.isidentifier() and not keyword.iskeyword(text)


@dataclass(frozen=True)
class ShapeBinding:
    """One array the user described: its name, shape and (optional) dtype."""

    name: str
    shape: Shape
    dtype: str | None = None

    def describe(self) -> str:
        text = format_shape(self.shape) if self.shape else "()"
        return f"{self.name}: {text}" + (f" {self.dtype}" if self.dtype else "")


class ShapeSyntaxError(ValueError):
    """A malformed binding; ``column`` is 1-based within ``text``."""

    def __init__(self, text: str, column: int, problem: str):
        self.text = text
        self.column = column
        self.problem = problem
        super().__init__(f"bad shape {text!r}: {problem} at column {column}")


def _pieces(text: str) -> list[tuple[int, str]]:
    """Split one argument into bindings, keeping each one's start offset.

    Bindings are separated by ``;`` or whitespace, but whitespace inside a
    dim list (``x=5, 1``) does not start a new binding: a piece without
    ``=`` continues the previous one.
    """
    raw = [(m.start(), m.group()) for m in re.finditer(r"[^\s;]+", text)]
    pieces: list[tuple[int, str]] = []
    for start, piece in raw:
        if pieces and "=" not in piece and ";" not in text[pieces[-1][0]:start]:
            prev_start, prev = pieces[-1]
            pieces[-1] = (prev_start, text[prev_start:start + len(piece)])
        else:
            pieces.append((start, piece))
    return pieces


def parse_dims(text: str, offset: int, whole: str) -> Shape:
    """``5,1,B`` (optionally in parentheses or brackets) to a shape; offset locates errors."""
    body = text.strip()
    lead = offset + (len(text) - len(text.lstrip()))
    if not body:
        raise ShapeSyntaxError(whole, lead + 1, "no dimensions (write () for a 0-d array)")
    if body[:1] in "([" and body[-1:] in ")]" and body:
        if len(body) < 2 or {"(": ")", "[": "]"}[body[0]] != body[-1]:
            raise ShapeSyntaxError(whole, lead + 1, "unbalanced brackets")
        body, lead = body[1:-1], lead + 1
    if not body.strip():
        return ()
    dims: list[Dim] = []
    parts = body.split(",")
    position = lead
    for i, part in enumerate(parts):
        item = part.strip()
        column = position + (len(part) - len(part.lstrip())) + 1
        if not item:
            if i == len(parts) - 1 and i > 0:
                break  # a trailing comma, as in (5,)
            raise ShapeSyntaxError(whole, column, "empty dimension")
        if _INT.match(item):
            value = int(item)
            if value < 0:
                raise ShapeSyntaxError(whole, column, f"negative dimension {value}")
            if value > INT64_MAX:
                raise ShapeSyntaxError(whole, column,
                                       f"dimension {value} is beyond int64 (at most {INT64_MAX})")
            dims.append(value)
        elif item in ("?", "_"):
            dims.append(UNKNOWN)
        elif is_name(item):
            dims.append(sym(normalize_name(item)))
        else:
            raise ShapeSyntaxError(whole, column,
                                   f"{item!r} is not a dimension (an int, a name, or ?)")
        position += len(part) + 1
    return tuple(dims)


def parse_binding(piece: str, offset: int, whole: str, sep: str = "=") -> ShapeBinding:
    """``name=dims[:dtype]`` to a binding; ``sep`` is the character after the name."""
    name_text, _, rest = piece.partition(sep)
    rest_offset = offset + len(name_text) + 1
    name = name_text.strip()
    if not is_name(name):
        column = offset + 1 + (len(name_text) - len(name_text.lstrip()))
        what = f"{name!r} is not a name" if name else "missing name before '='"
        raise ShapeSyntaxError(whole, column, what)
    name = normalize_name(name)
    dtype = None
    dims_text = rest
    if ":" in rest:
        dims_text, _, dtype_text = rest.rpartition(":")
        dtype = dtype_text.strip()
        if dtype not in DTYPES:
            column = rest_offset + len(dims_text) + 2
            raise ShapeSyntaxError(whole, column,
                                   f"unknown dtype {dtype!r} (choose from {', '.join(DTYPES)})")
    if not dims_text.strip():
        # An empty list is too easily a typo (x=$SHAPE with SHAPE unset) to mean 0-d.
        example = f"{name}{sep}()" + (f":{dtype}" if dtype else "")
        raise ShapeSyntaxError(whole, rest_offset + 1,
                               f"no dimensions for {name!r} (write {example} for a 0-d array)")
    return ShapeBinding(name, parse_dims(dims_text, rest_offset, whole), dtype)


def parse_shapes_text(text: str) -> list[ShapeBinding]:
    """Every binding in one ``--shapes`` value, in order."""
    pieces = _pieces(text)
    if not pieces:
        raise ShapeSyntaxError(text, 1, "empty shape argument")
    bindings = []
    for start, piece in pieces:
        if "=" not in piece:
            raise ShapeSyntaxError(text, start + 1, f"expected name=dims, got {piece!r}")
        bindings.append(parse_binding(piece, start, text))
    return bindings


def parse_shape_args(values: list[str]) -> dict[str, ShapeBinding]:
    """All ``--shapes`` values to one environment; a name given twice is an error."""
    env: dict[str, ShapeBinding] = {}
    for value in values:
        for binding in parse_shapes_text(value):
            if binding.name in env:
                column = value.find(binding.name) + 1
                raise ShapeSyntaxError(value, max(column, 1), f"{binding.name!r} is given twice")
            env[binding.name] = binding
    return env
