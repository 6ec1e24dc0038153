"""Shapes from annotations: jaxtyping ``Float[Tensor, "b t c"]`` and ``# shape:`` comments."""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst

from ..runtime.dims import UNKNOWN, Dim, sym
from .values import (
    AbstractArray,
    FloatValue,
    IntValue,
    ModuleRef,
    Origin,
    TupleValue,
    Value,
)

_JAXTYPING_DTYPES = {
    "Float16": "float16", "Float32": "float32", "Float64": "float64", "BFloat16": "bfloat16",
    "Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64", "UInt8": "uint8",
    "Bool": "bool", "Complex64": "complex64", "Complex128": "complex128",
}
_JAXTYPING_ANY = frozenset({"Float", "Int", "UInt", "Integer", "Shaped", "Num", "Real", "Inexact",
                            "Complex", "Key"} | set(_JAXTYPING_DTYPES))

_ARRAY_TYPES = {"torch.Tensor": "torch", "torch.FloatTensor": "torch", "torch.LongTensor": "torch",
                "numpy.ndarray": "numpy", "numpy.typing.NDArray": "numpy"}


def parse_dims(text: str) -> tuple[tuple | None, tuple]:
    """(shape, tail) from a jaxtyping dims string.

    ``"b t 3"`` -> ((b, t, 3), ()); a variadic part (``*batch`` or ``...``)
    makes the rank unknown, so the shape is None and the known trailing dims
    are kept as the tail. ``#b`` may be 1 (broadcastable), so it is unknown;
    ``_`` and ``_name`` are unchecked, so unknown as well.
    """
    dims: list[Dim] = []
    variadic_at: int | None = None
    for token in text.split():
        if token in ("...",) or token.startswith("*"):
            variadic_at = len(dims)
            dims = []
            continue
        dims.append(_dim_token(token))
    if variadic_at is not None:
        return None, tuple(dims)
    return tuple(dims), ()


def _dim_token(token: str) -> Dim:
    if token.startswith("#") or token.startswith("_"):
        return UNKNOWN
    if "=" in token:
        token = token.split("=", 1)[1]
    if token.isdigit():
        return int(token)
    if token.isidentifier():
        return sym(token)
    return UNKNOWN


def array_from_annotation(node: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], Value],
                          line: int, what: str) -> AbstractArray | None:
    """The array a parameter annotated with ``node`` holds, or None if it is not an array type."""
    if isinstance(node, cst.Subscript):
        head = node.value
        head_name = head.attr.value if isinstance(head, cst.Attribute) else (
            head.value if isinstance(head, cst.Name) else None)
        elements = [el.slice for el in node.slice]
        if head_name in _JAXTYPING_ANY and len(elements) == 2 and all(
                isinstance(e, cst.Index) for e in elements):
            library = _library_of(elements[0].value, resolve)
            spec = elements[1].value
            if library is None:
                return None
            origin = Origin(line, what)
            if isinstance(spec, cst.SimpleString):
                shape, tail = parse_dims(spec.evaluated_value if isinstance(
                    spec.evaluated_value, str) else "")
                return AbstractArray(shape=shape, dtype=_JAXTYPING_DTYPES.get(head_name),
                                     library=library, origin=origin, tail=tail)
            return AbstractArray(shape=None, dtype=None, library=library, origin=origin)
        library = _library_of(head, resolve)
        if library is not None:
            return AbstractArray(shape=None, dtype=None, library=library, origin=Origin(line, what))
        return None
    library = _library_of(node, resolve)
    if library is not None:
        return AbstractArray(shape=None, dtype=None, library=library, origin=Origin(line, what))
    return None


def scalar_tuple(node: cst.BaseExpression, name: str) -> TupleValue | None:
    """``tuple[int, int, int]`` or ``Tuple[float, float]``: a tuple of that many numbers, an int
    each a size nobody names (``thw[0]``, never a name the code gave, so two of them are no
    dims the code says differ); None for any other annotation, ``tuple[int, ...]`` included."""
    if not isinstance(node, cst.Subscript) or not (
            isinstance(node.value, cst.Name) and node.value.value in ("tuple", "Tuple") or
            isinstance(node.value, cst.Attribute) and node.value.attr.value == "Tuple"):
        return None
    items: list[Value] = []
    for index, element in enumerate(node.slice):
        part = element.slice
        kind = part.value if isinstance(part, cst.Index) else None
        if not isinstance(kind, cst.Name) or kind.value not in ("int", "float"):
            return None
        items.append(IntValue(sym(f"{name}[{index}]")) if kind.value == "int" else FloatValue())
    return TupleValue(tuple(items))


def _library_of(node: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], Value]) -> str | None:
    value = resolve(node)
    if isinstance(value, ModuleRef):
        return _ARRAY_TYPES.get(value.qualname)
    return None


_SHAPE_COMMENT = re.compile(r"#\s*shape:\s*([A-Za-z_][\w.]*)\s*[\(\[]([^)\]]*)[\)\]]")


def shape_comments(source: str) -> tuple[dict[int, list[tuple[str, list[str]]]],
                                         dict[int, list[tuple[str, list[str]]]]]:
    """``# shape: x (B, T, C)`` comments: (trailing by line, standalone by the next code line).

    A trailing comment declares the shape after its statement runs; a
    comment on its own line declares it before the next statement.
    """
    trailing: dict[int, list] = {}
    standalone: dict[int, list] = {}
    pending: list = []
    for number, text in enumerate(source.splitlines(), start=1):
        stripped = text.strip()
        match = _SHAPE_COMMENT.search(text) if "shape:" in text else None
        if match:
            entry = (match.group(1), [d.strip() for d in match.group(2).split(",") if d.strip()])
            if stripped.startswith("#"):
                pending.append(entry)
                continue
            trailing.setdefault(number, []).append(entry)
        if pending and stripped and not stripped.startswith("#"):
            standalone.setdefault(number, []).extend(pending)
            pending = []
    return trailing, standalone


__all__ = ["parse_dims", "array_from_annotation", "scalar_tuple", "shape_comments"]
