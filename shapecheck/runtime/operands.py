"""Moving values between an engine program and its NumPy calls, and the memory tests on them.

Resolving Refs, reading metas and data, shape-only stand-ins, writeability,
repeated elements and overlap of NumPy buffers, torch's autograd refusals,
and the index keys and result dtypes the engine hands to NumPy.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable, Sequence

import numpy as np

from .dialects import Dialect
from .layout import Layout, torch_internal_overlap, torch_overlap_status
from .ops import OpSpec
from .program import (
    TORCH_LEAF_INPLACE,
    TORCH_LEAF_VIEW_INPLACE,
    EngineArray,
    Ref,
    StepResult,
)
from .verdicts import RuleWarning, ShapeError

# ----------------------------------------------------------------------------
# argument plumbing

class UpstreamError(Exception):
    def __init__(self, error: ShapeError):
        super().__init__(error.message)
        self.error = error


def resolve(value: Any, results: list[StepResult]) -> Any:
    if isinstance(value, Ref):
        if not 0 <= value.step < len(results):
            raise ValueError(f"step refers to step {value.step}, which has not run")
        earlier = results[value.step]
        if earlier.error is not None:
            raise UpstreamError(earlier.error)
        return earlier.value if value.index is None else earlier.value[value.index]
    if isinstance(value, tuple):
        return tuple(resolve(v, results) for v in value)
    if isinstance(value, list):
        return [resolve(v, results) for v in value]
    return value


def meta_of(value: Any) -> Any:
    if isinstance(value, EngineArray):
        return value.meta()
    if isinstance(value, tuple):
        return tuple(meta_of(v) for v in value)
    if isinstance(value, list):
        if any(isinstance(v, EngineArray) for v in value):
            return [meta_of(v) for v in value]
        return value
    return value


def data_of(value: Any) -> Any:
    if isinstance(value, EngineArray):
        return value.data[()] if value.is_scalar and value.values_known else value.data
    if isinstance(value, tuple):
        return tuple(data_of(v) for v in value)
    if isinstance(value, list):
        return [data_of(v) for v in value]
    return value


def flatten_values(values: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, (tuple, list)):
            out.extend(flatten_values(v))
        else:
            out.append(v)
    return out


def literal_args(args: tuple, kwargs: dict) -> tuple:
    """The non-array arguments of a view op, kept to replay or explain the chain."""
    def strip(v: Any) -> Any:
        if isinstance(v, EngineArray):
            return v.meta()
        if isinstance(v, (tuple, list)):
            return tuple(strip(x) for x in v)
        return v
    return tuple(strip(a) for a in args[1:]) + tuple(sorted((k, strip(v)) for k, v in kwargs.items()))


def multi_sources(op: str, args: tuple, count: int) -> list[EngineArray | None]:
    """Which input each output of a multi-output op views."""
    if op in ("np.broadcast_arrays", "torch.broadcast_tensors"):
        arrays = [a for a in args if isinstance(a, EngineArray)]
        return arrays if len(arrays) == count else [None] * count
    first = args[0] if args and isinstance(args[0], EngineArray) else None
    return [first] * count


NUMPY_ARRAY_MAKERS = frozenset({"np.array", "np.copy", "copy", "astype", "np.asarray",
                                 "np.ascontiguousarray"})
"""NumPy calls whose 0-d result is an array, where computations give NumPy scalars."""

ELEMENT_PRESERVING_VIEWS = frozenset({
    "T", "mT", "t", "torch.t", "transpose", "torch.transpose", "np.transpose", "np.permute_dims",
    "swapaxes", "np.swapaxes", "torch.swapaxes", "swapdims", "torch.swapdims", "permute",
    "torch.permute", "movedim", "torch.movedim", "moveaxis", "torch.moveaxis", "np.moveaxis",
    "np.matrix_transpose", "unsqueeze", "torch.unsqueeze", "np.expand_dims", "expand",
    "expand_as", "broadcast_to", "torch.broadcast_to", "np.broadcast_to", "detach",
    "torch.detach", "np.asarray"})
"""View ops that keep every element of their input (so keep its repeated elements)."""


def numel_of(shape: Sequence[Any]) -> int:
    """Elements of a shape; a size the values decide (a symbol) counts as 1, its values are
    what the engine computes."""
    return math.prod(d if isinstance(d, int) else 1 for d in shape)


def stand_in(shape: tuple, dtype: Any) -> np.ndarray:
    """Zero-stride data of any shape in a few bytes; values meaningless."""
    return np.broadcast_to(np.zeros((), dtype=dtype), shape)


def is_writeable(data: np.ndarray) -> bool:
    """The WRITEABLE flag, without NumPy's FutureWarning for reading it on broadcast_arrays output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bool(data.flags.writeable)


def has_repeats(data: np.ndarray) -> bool:
    """Some element reachable at two indices through a zero stride (torch's internal overlap)."""
    return torch_internal_overlap(Layout.of(data)) == "yes"


def adds_repeats(src: tuple, dst: tuple) -> bool:
    """Does broadcasting ``src`` to ``dst`` repeat elements (a new or size-1 dim grows past 1)?"""
    lead = len(dst) - len(src)
    for i, d in enumerate(dst):
        s = src[i - lead] if i >= lead else 1
        if s == 1 and d != 1 and d != 0:
            return True
    return False


def as_writeable(data: np.ndarray) -> np.ndarray:
    """torch's writable version of a view NumPy hands out read-only (diagonal, broadcast)."""
    try:
        data.flags.writeable = True
        return data
    except ValueError:
        # sliding_window_view refuses the flag; rebuild the same strides over the same memory.
        owner = data
        while isinstance(owner.base, np.ndarray) and not owner.flags.owndata:
            owner = owner.base
        return np.lib.stride_tricks.as_strided(owner, shape=data.shape, strides=data.strides,
                                               writeable=True) if _starts_at(owner, data) else data


def _starts_at(owner: np.ndarray, view: np.ndarray) -> bool:
    return owner.__array_interface__["data"][0] == view.__array_interface__["data"][0] \
        and owner.flags.writeable


def torch_partial_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """torch's get_overlap_status(a, b) == Partial, from the two views' layouts in their root."""
    if _root(a) is not _root(b):
        return False
    return torch_overlap_status(Layout.of(a), Layout.of(b)) == "partial"


def _root(a: np.ndarray) -> Any:
    while getattr(a, "base", None) is not None:
        a = a.base
    return a


def check_autograd(target: EngineArray, *, through_view: bool = False) -> None:
    if not target.requires_grad:
        return
    if target.is_leaf and not target.is_view:
        raise ShapeError("autograd",
                         TORCH_LEAF_VIEW_INPLACE if through_view else TORCH_LEAF_INPLACE,
                         "RuntimeError")
    root = target.root
    if target.is_view and root.requires_grad and root.is_leaf:
        raise ShapeError("autograd", TORCH_LEAF_VIEW_INPLACE, "RuntimeError")


class _FlatOperand(EngineArray):
    """An operand seen as 1-D for torch-legacy's pointwise fallback; ``original`` is the array."""

    def __init__(self, original: EngineArray):
        data = original.data.reshape(-1) if original.values_known else original.data
        super().__init__(data, values_known=original.values_known)
        self.original = original


def flat_operands(values: Any) -> Any:
    if isinstance(values, dict):
        return {k: flat_operands(v) for k, v in values.items()}
    return tuple(_FlatOperand(v) if isinstance(v, EngineArray) else v for v in values)


def unflat(value: Any) -> Any:
    return value.original if isinstance(value, _FlatOperand) else value


def forget_values(root: EngineArray) -> None:
    """A write the engine could not compute: the memory's values are unknown from now on."""
    for array in [root, *root.views()]:
        if array.values_known:
            array.data = stand_in(array.shape, array.data.dtype)
            array.values_known = False


def mark_autograd_write(target: EngineArray, sources: Iterable[Any]) -> None:
    """Writing a grad-requiring value into a tensor makes it (and its base) require grad."""
    if any(isinstance(s, EngineArray) and s.requires_grad for s in sources):
        target.requires_grad = True
        target.is_leaf = False


def is_advanced(key: Any) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (EngineArray, list, np.ndarray)) for k in items)


def index_key(key: Any, dialect: Dialect) -> Any:
    """A NumPy key for the data; torch's integer indexing yields 0-d views, NumPy's scalars."""
    np_key = data_of(key)
    if isinstance(np_key, list) and not any(isinstance(k, (list, np.ndarray)) for k in np_key):
        np_key = np.asarray(np_key)
    if dialect.is_torch and not is_advanced(key):
        items = np_key if isinstance(np_key, tuple) else (np_key,)
        if Ellipsis not in items:
            np_key = items + (Ellipsis,)
    return np_key


class numpy_calls:
    """Silence NumPy's value warnings (overflow, 0/0) and record its broadcast-write warning."""

    def __init__(self, warns: list[RuleWarning]):
        self.warns = warns

    def __enter__(self) -> None:
        self._errstate = np.errstate(all="ignore")
        self._errstate.__enter__()
        self._catch = warnings.catch_warnings(record=True)
        self._records = self._catch.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: Any) -> None:
        self._catch.__exit__(*exc)
        self._errstate.__exit__(*exc)
        for record in self._records:
            text = str(record.message)
            if "np.broadcast_arrays" in text:
                self.warns.append(RuleWarning("broadcast-write", text))


def result_dtype(spec: OpSpec, arrays: list[EngineArray], kwargs: dict, dialect: Dialect) -> Any:
    """The dtype of a shape-only result: NumPy's promotion of the operands (values unknown)."""
    if "dtype" in kwargs and kwargs["dtype"] is not None:
        return np.dtype(kwargs["dtype"])
    if spec.name in ("astype", "to") and len(arrays) >= 1:
        return np.dtype(arrays[0].dtype)
    if not arrays:
        return np.dtype("float64")
    if spec.name.lstrip("_").rstrip("_") in ("eq", "ne", "lt", "le", "gt", "ge") or \
            spec.name in ("np.equal", "np.not_equal", "np.less", "np.less_equal", "np.greater",
                          "np.greater_equal", "torch.eq", "torch.ne", "torch.lt", "torch.le",
                          "torch.gt", "torch.ge"):
        return np.dtype("bool")
    return np.result_type(*[a.data.dtype for a in arrays])
