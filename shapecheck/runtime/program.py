"""What an engine program is made of and what it yields: Step and Ref, StepResult, and EngineArray.

An EngineArray is NumPy data plus the record the analyzer reads: its base,
the chain of view ops from that base, and (on the base) weak references to
its views. The write-refusal messages are the libraries' own texts, kept with
the records that carry them.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union

import numpy as np

from .ops import ArrayArg
from .verdicts import RuleWarning, ShapeError

TORCH_REPEATED_WRITE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.")
TORCH_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation.")
TORCH_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
TORCH_RESIZE_GRAD = "cannot resize variables that require grad"
TORCH_LEAF_VIEW_INPLACE = ("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
TORCH_EXPANDED_INDEX_PUT = (
    "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
    "tensor")
TORCH_EXPANDED_MASKED_FILL = (
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar")
"""In-place ops torch lets write into repeated elements (every element gets the same value)."""
NUMPY_READONLY_ASSIGN = "assignment destination is read-only"
NUMPY_READONLY_OUTPUT = "output array is read-only"
NUMPY_BROADCAST_WRITE = (
    "Numpy has detected that you (may be) writing to an array with overlapping memory from "
    "np.broadcast_arrays. If this is intentional set the WRITEABLE flag True or make a copy "
    "immediately before writing.")


class EngineDisagreement(AssertionError):
    """NumPy computed a shape other than the rule's: a bug in the engine or a rule, never user error."""


@dataclass(frozen=True)
class Ref:
    """An argument that is the output of an earlier step (``index`` picks one of several outputs)."""

    step: int
    index: int | None = None


@dataclass(frozen=True)
class Step:
    """One op call: its table name, positional and keyword arguments (Refs or literal values).

    The pseudo-op ``"array"`` creates a fresh base array: ``Step.array((3, 4), "float32")``.
    """

    op: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @staticmethod
    def array(shape: Sequence[int], dtype: str = "float64", *, requires_grad: bool = False) -> "Step":
        return Step("array", (tuple(shape),), {"dtype": dtype, "requires_grad": requires_grad})


@dataclass(frozen=True)
class ViewOp:
    """One link in a view's chain from its base: the op and its non-array arguments."""

    op: str
    args: tuple = ()


@dataclass(frozen=True)
class StepResult:
    """What a step gave: a value (an EngineArray or a tuple of them) or the library's error.

    ``shapes`` are the value's array shapes when the step ran: an in-place op of a later step
    may change the very array it holds (``x.t_().t_()``)."""

    value: Any = None
    error: ShapeError | None = None
    warnings: tuple[RuleWarning, ...] = ()
    shapes: tuple = ()

    @property
    def ok(self) -> bool:
        return self.error is None


class EngineArray:
    """An array under one dialect's semantics: NumPy data (or a stand-in) plus its view record.

    Mutable on purpose: an in-place op changes the data of this very object,
    as it does in the libraries, and the base keeps weak references to its
    live views.
    """

    def __init__(self, data: np.ndarray, *, values_known: bool = True,
                 base: "EngineArray | None" = None, chain: tuple[ViewOp, ...] = (),
                 view_kind: str = "none", writeable: bool = True, repeated: bool = False,
                 warn_on_write: bool = False, requires_grad: bool = False, is_leaf: bool = True,
                 contiguous: bool = True, is_scalar: bool = False):
        self.data = data
        self.values_known = values_known
        self.base = base
        self.chain = chain
        self.view_kind = view_kind
        self.writeable = writeable
        self.repeated = repeated
        self.warn_on_write = warn_on_write
        self.requires_grad = requires_grad
        self.is_leaf = is_leaf
        self._contiguous = contiguous
        self.is_scalar = is_scalar  # a NumPy scalar (np.float64 ...), not a 0-d array
        self._views: list[weakref.ref[EngineArray]] = []
        if base is not None:
            base._views.append(weakref.ref(self))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.data.shape)

    @property
    def dtype(self) -> str:
        return self.data.dtype.name

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def contiguous(self) -> bool:
        """C-contiguous: from the strides when values are known, else from the op chain."""
        return bool(self.data.flags.c_contiguous) if self.values_known else self._contiguous

    @property
    def root(self) -> "EngineArray":
        """The array whose memory this one views (itself when it owns its memory)."""
        return self.base if self.base is not None else self

    @property
    def is_view(self) -> bool:
        return self.base is not None

    def views(self) -> list["EngineArray"]:
        """The live views of this array's memory (only a base has any)."""
        live = [ref() for ref in self._views]
        self._views = [ref for ref, view in zip(self._views, live) if view is not None]
        return [view for view in live if view is not None]

    def meta(self) -> ArrayArg:
        return ArrayArg(self.shape, self.dtype)

    def values(self) -> np.ndarray:
        """A copy of the values; ValueError in shape-only mode, where there are none."""
        if not self.values_known:
            raise ValueError(f"values of a shape-only array {self.shape} are not computed")
        return np.array(self.data)

    def __repr__(self) -> str:
        tag = "" if self.values_known else " shape-only"
        rel = f" view({self.view_kind}) of {self.root.shape}" if self.is_view else ""
        return f"EngineArray({self.shape}, {self.dtype}{tag}{rel})"


Value = Union[EngineArray, tuple]
