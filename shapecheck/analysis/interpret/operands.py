"""Abstract values turned into the operands the runtime's op table takes."""

from __future__ import annotations

from typing import Any, Callable

from ...runtime import ops as rt_ops
from ...runtime.dims import UNKNOWN
from ...runtime.dtypes import SPELLINGS, TORCH_ATTRIBUTES, dtype_spelling
from ...runtime.verdicts import ShapeError
from ..values import (
    AbstractArray,
    ConstValue,
    DtypeValue,
    FloatValue,
    IntValue,
    ModuleRef,
    SliceValue,
    TupleValue,
    Value,
)


class _Fail:
    def __repr__(self) -> str:
        return "<cannot convert>"


FAIL = _Fail()


Contents = Callable[[AbstractArray], "str | None"]
"""Names the values an array holds while they stay the same (the walk's ``contents_of``)."""


def array_arg(array: AbstractArray, contents: Contents | None = None):
    """An array as the op table takes it, with its place in its storage when the alias walk
    knows it (so torch's ``.view`` of a transposed tensor fails here as in torch), and a name
    for its values when ``contents`` gives one (a mask's count is then a symbol over it)."""
    layout = array.alias.layout if array.alias is not None else None
    if layout is not None and tuple(layout.shape) != tuple(array.shape):
        layout = None
    named = contents(array) if contents is not None else None
    return rt_ops.ArrayArg(tuple(array.shape), array.dtype, layout, named)


def to_arg(value: Value, joins: bool = False, contents: Contents | None = None) -> Any:
    """An abstract value as the op table's rules take it, or FAIL.

    A list of arrays is a list of ArrayArg only for joins (concatenate,
    stack); elsewhere NumPy reads it as one array, so it becomes one
    ArrayArg of the stacked shape.
    """
    if isinstance(value, AbstractArray):
        return array_arg(value, contents) if value.shape is not None else FAIL
    if isinstance(value, IntValue):
        return value.value
    if isinstance(value, ConstValue):
        return value.value
    if isinstance(value, FloatValue):
        return 0.5  # some float: every rule reads a float scalar by its type, not its value
    if isinstance(value, TupleValue):
        items = [to_arg(v, contents=contents) for v in value.items]
        if any(i is FAIL for i in items):
            return FAIL
        if not joins and any(isinstance(v, AbstractArray) for v in value.items):
            shapes = {v.shape if isinstance(v, AbstractArray) else None for v in value.items}
            if len(shapes) != 1 or None in shapes:
                return FAIL
            first = value.items[0]
            return rt_ops.ArrayArg((len(value.items),) + tuple(first.shape), first.dtype)
        return list(items) if value.is_list else tuple(items)
    if isinstance(value, SliceValue):
        return slice(to_arg(value.start), to_arg(value.stop), to_arg(value.step))
    if isinstance(value, DtypeValue):
        return value.name if value.name is not None else FAIL
    if isinstance(value, ModuleRef):
        short = value.qualname.rsplit(".", 1)[-1]
        if value.qualname == "numpy.newaxis":
            return None
        if short in SPELLINGS:
            return SPELLINGS[short] if value.library == "numpy" else TORCH_ATTRIBUTES[short]
    return FAIL


def index_arg(value: Value, contents: Contents | None = None) -> Any:
    """One index item as the op table takes it; FAIL for field names and unknown kinds."""
    if isinstance(value, AbstractArray):
        if value.shape is None or value.dtype is None or not (
                value.dtype == "bool" or value.dtype.startswith(("int", "uint"))):
            return FAIL
        return array_arg(value, contents if value.dtype == "bool" else None)
    if isinstance(value, TupleValue) and value.is_list:
        if all(isinstance(v, IntValue) and isinstance(v.value, int) for v in value.items) \
                and value.items:
            return [v.value for v in value.items]  # its values say whether it is in range
        if all(isinstance(v, IntValue) for v in value.items):
            return rt_ops.ArrayArg((len(value.items),), "int64")
        if all(isinstance(v, ConstValue) and isinstance(v.value, bool) for v in value.items):
            return [v.value for v in value.items]  # its values say how many it selects
        return FAIL
    if isinstance(value, IntValue):
        return value.value if value.value is not UNKNOWN else FAIL
    if isinstance(value, ConstValue) and (value.value is None or value.value is Ellipsis):
        return value.value
    if isinstance(value, SliceValue):
        return to_arg(value)
    return FAIL


def rule_index_items(key: Any) -> tuple | None:
    """Index items for runtime.rules.indexing, or None when the key is not understood.

    A Python bool index is left unknown: its meaning (a 0-d mask) is rarely intended.
    """
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(part, bool) for part in parts):
        return None
    try:
        return rt_ops.index_items(key)
    except ShapeError:
        return None


def dtype_of(value: Value) -> str | None:
    if isinstance(value, AbstractArray):
        return value.dtype
    if isinstance(value, IntValue):
        return "pyint"
    if isinstance(value, ConstValue):
        if isinstance(value.value, bool):
            return "pybool"
        if isinstance(value.value, float):
            return "pyfloat"
        if isinstance(value.value, complex):
            return "pycomplex"
    if isinstance(value, FloatValue):
        return "pyfloat"
    return None


def ndim_of(value: Value) -> int | None:
    if isinstance(value, AbstractArray):
        return value.ndim
    return 0


def dtype_from(value: Value | None, library: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, DtypeValue):
        return value.name
    if isinstance(value, ConstValue) and isinstance(value.value, str):
        return dtype_spelling(value.value)
    if isinstance(value, ModuleRef):
        short = value.qualname.rsplit(".", 1)[-1]
        # Python's float and int are float64 and int64 in both libraries; torch.float is float32.
        names = TORCH_ATTRIBUTES if value.library == "torch" and not value.qualname.startswith(
            "builtins.") else SPELLINGS
        return names.get(short)
    return None
