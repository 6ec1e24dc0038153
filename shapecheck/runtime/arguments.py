"""How a call's arguments reach the op table's rules: array operands become ArrayArgs, the
rest stay plain Python values; these read shapes, dtypes and sizes out of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from .dialects import Dialect
from .dims import Shape, Sym
from .layout import Layout
from .rules import indexing as _ix
from .verdicts import ShapeError


@dataclass(frozen=True)
class ArrayArg:
    """An array operand as a rule sees it: its shape, its (numpy-spelled) dtype and its place in
    its storage (a Layout, int sizes only); dtype and layout None when unknown."""

    shape: Shape
    dtype: str | None = None
    layout: Layout | None = None

    @property
    def ndim(self) -> int:
        return len(self.shape)


def is_array(value: Any) -> bool:
    return isinstance(value, ArrayArg)


def shape_of(value: Any) -> Shape:
    """The shape of an operand: ArrayArg's own, () for a Python scalar, a list's array shape."""
    if isinstance(value, ArrayArg):
        return tuple(value.shape)
    if isinstance(value, (list, tuple)):
        return np.shape(value)
    return ()


def dtype_of(value: Any) -> str | None:
    """A dtype name for the dtype rules; Python scalars are weak ("pyint", "pyfloat", ...)."""
    if isinstance(value, ArrayArg):
        return value.dtype
    if isinstance(value, bool):
        return "pybool"
    if isinstance(value, int):
        return "pyint"
    if isinstance(value, float):
        return "pyfloat"
    if isinstance(value, complex):
        return "pycomplex"
    return None


def ndim_of(value: Any) -> int | None:
    return len(value.shape) if isinstance(value, ArrayArg) else 0


def operand_shapes(values: Iterable[Any], dialect: Dialect) -> list[Shape]:
    """Operand shapes for broadcasting. A Python scalar broadcasts as shape (), except in
    torch-legacy, where it was no tensor at all (old 0-dim tensors could not broadcast)."""
    out = []
    for v in values:
        if isinstance(v, (ArrayArg, list)):
            out.append(shape_of(v))
        elif not (dialect.is_torch and dialect.legacy):
            out.append(())
    return out


def size_args(args: tuple) -> tuple:
    """torch's varargs-or-sequence size arguments: ``view(2, 3)`` or ``view((2, 3))``.

    A str or float there never becomes a dim: both libraries refuse it as a size with
    TypeError, but a str may also be the spelling of a dtype (``view(torch.float16)``), so
    the answer is unknown (NotImplementedError), not an error.
    """
    sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)
    if any(isinstance(size, (str, bytes, float, complex)) for size in sizes):
        raise NotImplementedError("a size that is not an integer")
    return sizes


def kw(kwargs: dict, *names: str, default: Any = None) -> Any:
    for name in names:
        if name in kwargs:
            return kwargs[name]
    return default


def arg(args: tuple, i: int, kwargs: dict, *names: str, default: Any = None) -> Any:
    """Argument i of the call, positional or by one of its keyword names."""
    return args[i] if len(args) > i else kw(kwargs, *names, default=default)


def index_items(key: Any) -> tuple:
    """A Python index (int or symbolic int, slice, None, ..., list, ArrayArg, or a tuple of
    them) as rule items."""
    parts = key if isinstance(key, tuple) else (key,)
    items = []
    for part in parts:
        if part is None:
            items.append(_ix.NoneIndex())
        elif part is Ellipsis:
            items.append(_ix.EllipsisIndex())
        elif isinstance(part, slice):
            items.append(_ix.SliceIndex(part.start, part.stop, part.step))
        elif isinstance(part, ArrayArg):
            items.append(_ix.ArrayIndex(tuple(part.shape), part.dtype))
        elif isinstance(part, (list, np.ndarray)):
            arr = np.asarray(part)
            # An empty list indexes as an integer array (x[[]] is valid), not as float64.
            dtype = "int64" if isinstance(part, list) and arr.size == 0 else arr.dtype.name
            items.append(_ix.ArrayIndex(arr.shape, dtype))
        elif isinstance(part, bool):
            items.append(_ix.ArrayIndex((), "bool"))
        elif isinstance(part, (int, np.integer)):
            items.append(_ix.IntIndex(int(part)))
        elif isinstance(part, Sym):
            items.append(_ix.IntIndex(part))
        else:
            raise ShapeError("index", "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             "(`None`) and integer or boolean arrays are valid indices",
                             "IndexError")
    return tuple(items)
