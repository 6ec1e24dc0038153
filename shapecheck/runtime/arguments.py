"""How a call's arguments reach the op table's rules: array operands become ArrayArgs, the
rest stay plain Python values; these read shapes, dtypes and sizes out of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from .dialects import Dialect
from .dims import UNKNOWN, Dim, Shape, Sym, numel
from .layout import Layout
from .rules import indexing as _ix
from .verdicts import ShapeError


@dataclass(frozen=True)
class ArrayArg:
    """An array operand as a rule sees it: its shape, its (numpy-spelled) dtype and its place in
    its storage (a Layout, int sizes only); dtype and layout None when unknown.

    ``contents`` names the values the array holds when the caller knows which values these
    are: two operands of the same name hold the same values, so a size read off the values
    (how many a mask selects) is the same symbol for both (see ``data_size``).
    """

    shape: Shape
    dtype: str | None = None
    layout: Layout | None = None
    contents: str | None = field(default=None, compare=False)

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


VALUE_SIZES = {"nnz": "how many elements of {} are nonzero",
               "unique": "how many distinct values {} holds",
               "sum": "the sum of the values of {}", "value": "the value of {}"}
"""The sizes ``data_size`` reads off an operand's values: what each counts."""


def value_sizes(shape: Shape) -> list[tuple[str, str]]:
    """The sizes in ``shape`` read off values (``nnz(m)``), each with what it counts."""
    out: dict[str, str] = {}
    for d in shape:
        for mono, _ in d.terms if isinstance(d, Sym) else ():
            for atom in mono:
                what, _, rest = atom.partition("(")
                if what in VALUE_SIZES and rest.endswith(")"):
                    of, _, detail = rest[:-1].partition(", ")
                    meaning = VALUE_SIZES[what].format(of)
                    out.setdefault(atom, meaning + (f" (slices along {detail})" if detail else ""))
    return list(out.items())


def data_size(what: str, operand: Any, *detail: Any) -> Dim:
    """A size the values of ``operand`` decide (``nnz``: how many are nonzero; ``unique``: how
    many distinct values or slices): a symbol named after the operand's contents, so results
    read off the same values share it, or UNKNOWN when the contents have no name. The symbol's
    name is no identifier: it is never mistaken for a dim the code named."""
    if isinstance(operand, ArrayArg):
        # Values of none or one element leave no choice: none are nonzero or distinct in an
        # empty array, and one element is one distinct value (or slice).
        among = operand.shape[detail_axis(detail)] if detail else numel(operand.shape)
        if among == 0 and what in ("nnz", "unique", "sum"):
            return 0
        if among == 1 and what == "unique":
            return 1
    contents = operand.contents if isinstance(operand, ArrayArg) else None
    if contents is None:
        return UNKNOWN
    return Sym.atom(f"{what}({', '.join((contents,) + tuple(str(d) for d in detail))})")


def detail_axis(detail: tuple) -> int:
    """The axis a data size is read along (``axis=1``): unique slices are counted along it."""
    return int(str(detail[0]).rsplit("=", 1)[-1])


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
            count = data_size("nnz", part) if part.dtype == "bool" else None
            items.append(_ix.ArrayIndex(tuple(part.shape), part.dtype,
                                        None if count is UNKNOWN else count))
        elif isinstance(part, (list, np.ndarray)):
            arr = np.asarray(part)
            # An empty list indexes as an integer array (x[[]] is valid), not as float64.
            dtype = "int64" if isinstance(part, list) and arr.size == 0 else arr.dtype.name
            count = int(arr.sum()) if dtype == "bool" else None
            values = tuple(int(v) for v in arr.ravel()) if arr.dtype.kind in "iu" else None
            items.append(_ix.ArrayIndex(arr.shape, dtype, count, values))
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
