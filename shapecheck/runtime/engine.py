"""Executes NumPy / PyTorch op sequences on NumPy arrays, tracking views so writes behave as the libraries'.

Verdicts (result shapes, or the library's error) come from the op table's
rules; the engine then computes the data on NumPy. Views are real NumPy
views of their base's memory, so a write through one reaches the base and
every sibling view exactly as in NumPy and PyTorch. Each array also records,
as Ivy does for backends without native views, its base, the chain of view
ops from that base, and (on the base) weak references to its views; that
record is what the analyzer reads, and all there is in shape-only mode.

Shape-only mode: when an array would hold more than ``numel_limit`` elements
its data is a zero-stride stand-in (``np.broadcast_to(np.zeros((), dtype),
shape)``, a few bytes), values are unknown, and results come from the rules
alone. View relations, read-only-ness and repeated elements are then derived
from the op table instead of from strides.

Library-specific write checks the rules do not cover (they are about
memory, not shapes) live here: NumPy's read-only views, torch's refusal to
write where several indices share one element or where input and output
partly overlap, and torch's autograd refusal to modify a leaf that requires
grad. NumPy scalars (what NumPy returns for 0-d computations) are immutable,
so ``s += t`` rebinds instead of writing, as in Python.

Use: ``Engine("torch").run([Step.array((3, 1)), Step("expand", (Ref(0), 3, 4)),
Step("add_", (Ref(1), 1.0))])`` gives one StepResult per step (a value, or
the library's ShapeError, plus warnings). ``Engine.apply(op, *args)`` runs
one op on EngineArrays and plain values. Op names are the op table's
(see ops.py); the pseudo-op ``"array"`` makes a base array holding 0, 1, 2, ...
"""

from __future__ import annotations

import math
import operator
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence, Union

import numpy as np

from . import ops
from .dialects import Dialect, get_dialect
from .layout import Layout, torch_internal_overlap, torch_overlap_status, torch_view_strides
from .ops import ArrayArg, OpSpec
from .rules.messages import TORCH_VIEW_STRIDE
from .verdicts import RuleWarning, ShapeError

DEFAULT_NUMEL_LIMIT = 10**7
"""Arrays with more elements than this are evaluated in shape-only mode."""

TORCH_REPEATED_WRITE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.")
TORCH_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation.")
TORCH_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
TORCH_LEAF_VIEW_INPLACE = ("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
TORCH_EXPANDED_INDEX_PUT = (
    "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
    "tensor")
TORCH_EXPANDED_MASKED_FILL = (
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar")
_TORCH_FILLS = frozenset({"fill_", "zero_"})
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
    """What a step gave: a value (an EngineArray or a tuple of them) or the library's error."""

    value: Any = None
    error: ShapeError | None = None
    warnings: tuple[RuleWarning, ...] = ()

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


class Engine:
    """Runs op sequences under one dialect (``numpy``, ``numpy-1``, ``torch``, ``torch-legacy``)."""

    def __init__(self, dialect: Dialect | str, *, numel_limit: int = DEFAULT_NUMEL_LIMIT):
        self.dialect = get_dialect(dialect) if isinstance(dialect, str) else dialect
        self.numel_limit = numel_limit

    # -- creating arrays ---------------------------------------------------

    def array(self, shape: Sequence[int], dtype: str = "float64", *,
              requires_grad: bool = False, values: Any = None) -> EngineArray:
        """A fresh base array: the given values, else 0, 1, 2, ... (distinct, so aliasing shows)."""
        shape = tuple(int(d) for d in shape)
        np_dtype = np.dtype(dtype)
        if requires_grad:
            if not self.dialect.is_torch:
                raise ShapeError("argument", "requires_grad exists only for torch tensors",
                                 "TypeError")
            if np_dtype.kind not in "fc":
                raise ShapeError("autograd", "only Tensors of floating point and complex dtype "
                                 "can require gradients", "RuntimeError")
        if values is not None:
            data = np.array(values, dtype=np_dtype).reshape(shape)
            return EngineArray(data, requires_grad=requires_grad)
        if math.prod(shape) > self.numel_limit:
            return EngineArray(_stand_in(shape, np_dtype), values_known=False,
                               requires_grad=requires_grad)
        data = np.arange(math.prod(shape)).astype(np_dtype).reshape(shape)
        return EngineArray(data, requires_grad=requires_grad)

    # -- running -------------------------------------------------------------

    def run(self, steps: Iterable[Step]) -> list[StepResult]:
        """Run the steps in order; a step whose argument failed fails with that error."""
        results: list[StepResult] = []
        for step in steps:
            try:
                args = tuple(_resolve(a, results) for a in step.args)
                kwargs = {k: _resolve(v, results) for k, v in step.kwargs.items()}
            except _UpstreamError as upstream:
                results.append(StepResult(error=upstream.error))
                continue
            try:
                if step.op == "array":
                    value = self.array(*args, **kwargs)
                    results.append(StepResult(value))
                else:
                    value, warns = self.apply(step.op, *args, **kwargs)
                    results.append(StepResult(value, warnings=warns))
            except ShapeError as error:
                results.append(StepResult(error=error))
        return results

    def apply(self, op: str, *args: Any, **kwargs: Any) -> tuple[Value, tuple[RuleWarning, ...]]:
        """One op: (result, warnings), or ShapeError with the library's own message."""
        spec = ops.lookup(op, self.dialect)
        if spec is None:
            raise ShapeError("argument", f"{self.dialect.library} has no op {op!r}", "AttributeError")
        metas = tuple(_meta(a) for a in args)
        meta_kwargs = {k: _meta(v) for k, v in kwargs.items()}
        warns: list[RuleWarning] = []
        first = args[0] if args and isinstance(args[0], EngineArray) else None
        if first is not None and first.is_scalar:
            # A NumPy scalar is immutable: ``s += t`` rebinds s to ``s + t``.
            if op.startswith("__i") and op != "__invert__":
                return self.apply("__" + op[3:], *args, **kwargs)
            if op == "__setitem__":
                raise ShapeError("index", f"'numpy.{first.dtype}' object does not support item "
                                 "assignment", "TypeError")
            if op in ("__matmul__", "__rmatmul__") and all(
                    isinstance(a, EngineArray) and a.is_scalar for a in args[:2]):
                raise ShapeError("argument", "unsupported operand type(s) for @: "
                                 f"'numpy.{args[0].dtype}' and 'numpy.{args[1].dtype}'", "TypeError")
            if op == "__getitem__":
                items = args[1] if isinstance(args[1], tuple) else (args[1],)
                if any(item is not None and item is not Ellipsis for item in items) or \
                        sum(item is Ellipsis for item in items) > 1:
                    raise ShapeError("index", "invalid index to scalar variable.", "IndexError")
        if op == "__setitem__":
            return self._setitem(spec, args, metas, warns)
        if op == "copy_" and len(args) > 1 and args[1] is args[0]:
            return args[0], ()  # torch's copy_ returns at once when src is self
        if spec.inplace:
            self._check_write(spec, args[0], [a for a in args[1:] if isinstance(a, EngineArray)],
                              warns)
        out = kwargs.get("out")
        if isinstance(out, EngineArray):
            self._check_write(spec, out, [a for a in args if isinstance(a, EngineArray)], warns,
                              ufunc_out=True)
        result = spec.rule(*metas, dialect=self.dialect, **meta_kwargs)
        warns.extend(result.warnings)
        arrays = [a for a in _flatten(args) if isinstance(a, EngineArray)]
        shape_only = (any(not a.values_known for a in arrays)
                      or any(_numel(s) > self.numel_limit for s in result.outputs))
        if any(w.kind == "legacy-fallback" for w in result.warnings):
            # Old PyTorch viewed same-numel operands as 1-D: compute on flat views.
            args, kwargs = _flat_operands(args), _flat_operands(kwargs)
            if spec.inplace and not shape_only and not args[0].data.flags.c_contiguous:
                shape_only = True
        written = _unflat(args[0]) if spec.inplace else out if isinstance(out, EngineArray) \
            else None
        if written is not None:
            if not spec.inplace and written.shape != tuple(result.shape):
                # torch resized out= to the result (NumPy's rule refused above): new memory
                self._resize_out(spec, written, args, kwargs, result.shape, shape_only, warns)
            elif shape_only or self._execute(spec, args, kwargs, warns) is None:
                _forget_values(written.root)
            _mark_autograd_write(written, arrays)
            return written, tuple(warns)
        data = None if shape_only else self._execute(spec, args, kwargs, warns)
        if data is not None and any(w.kind == "legacy-fallback" for w in result.warnings):
            data = np.asarray(data).reshape(result.shape)
        args = tuple(_unflat(a) for a in args)
        source = args[0] if args and isinstance(args[0], EngineArray) else None
        if spec.multi_output or isinstance(data, tuple):
            outputs = data if isinstance(data, tuple) else (None,) * len(result.outputs)
            sources = _multi_sources(op, args, len(result.outputs))
            value: Value = tuple(
                self._wrap(spec, op, args, kwargs, metas, d, src, shape, arrays)
                for d, src, shape in zip(outputs, sources, result.outputs))
        else:
            value = self._wrap(spec, op, args, kwargs, metas, data, source, result.shape, arrays)
        return value, tuple(warns)

    # -- writes ----------------------------------------------------------------

    def _check_write(self, spec: OpSpec, target: EngineArray, others: list[EngineArray],
                     warns: list[RuleWarning], *, ufunc_out: bool = False,
                     region: np.ndarray | None = None, advanced: bool = False,
                     through_view: bool = False) -> None:
        """The library's refusals to write into ``target`` (in the order the library checks).

        ``region`` is the part of target a ``__setitem__`` writes (basic
        index), ``advanced`` marks an index_put_, ``through_view`` that the
        write goes through an indexing view of target.
        """
        if self.dialect.is_torch:
            _check_autograd(target, through_view=through_view)
            repeated = _repeated(region) if region is not None and target.values_known \
                else target.repeated
            if repeated and spec.name not in _TORCH_FILLS:
                if advanced:
                    warns.append(RuleWarning("expanded-write", TORCH_EXPANDED_INDEX_PUT))
                elif spec.name == "masked_fill_":
                    warns.append(RuleWarning("expanded-write", TORCH_EXPANDED_MASKED_FILL))
                else:
                    raise ShapeError("view", TORCH_REPEATED_WRITE, "RuntimeError")
            written = region if region is not None else target.data
            for other in others:
                if other.values_known and target.values_known and other.root is target.root \
                        and _torch_partial_overlap(written, other.data):
                    raise ShapeError("view", TORCH_PARTIAL_OVERLAP, "RuntimeError")
            return
        if not target.writeable:
            ufunc_style = ufunc_out or spec.name.startswith("__i")
            raise ShapeError("view", NUMPY_READONLY_OUTPUT if ufunc_style else NUMPY_READONLY_ASSIGN,
                             "ValueError")
        if target.warn_on_write and not target.values_known:
            warns.append(RuleWarning("broadcast-write", NUMPY_BROADCAST_WRITE))

    def _setitem(self, spec: OpSpec, args: tuple, metas: tuple,
                 warns: list[RuleWarning]) -> tuple[Value, tuple[RuleWarning, ...]]:
        """``x[key] = value``: NumPy refuses a read-only x before looking at the key; torch
        indexes and expands the value first, then checks the memory it writes."""
        target, key, value = args
        np_key = _index_key(key, self.dialect)
        advanced = _is_advanced(key)
        others = [value] if isinstance(value, EngineArray) else []
        others += [k for k in _flatten((key,)) if isinstance(k, EngineArray)]
        if self.dialect.is_numpy:
            self._check_write(spec, target, others, warns)
        result = spec.rule(*metas, dialect=self.dialect)
        warns.extend(result.warnings)
        if self.dialect.is_torch:
            region = None
            if target.values_known and not advanced:
                try:
                    region = target.data[np_key]
                except (IndexError, ValueError) as exc:
                    raise ShapeError("index", str(exc), type(exc).__name__) from None
            if advanced and target.requires_grad and target.is_leaf:
                raise ShapeError("autograd", TORCH_LEAF_INPLACE, "RuntimeError")
            self._check_write(spec, target, others, warns, region=region, advanced=advanced,
                              through_view=not advanced)
        if target.values_known and (not isinstance(value, EngineArray) or value.values_known):
            src = value.data if isinstance(value, EngineArray) else value
            with _numpy_calls(warns):
                target.data[np_key] = src
        else:
            _forget_values(target.root)
        _mark_autograd_write(target, others)
        return target, tuple(warns)

    def _resize_out(self, spec: OpSpec, out: EngineArray, args: tuple, kwargs: dict,
                    shape: tuple, shape_only: bool, warns: list[RuleWarning]) -> None:
        """torch's out= of the wrong shape is resized to the result, which gets new memory."""
        inputs = {k: v for k, v in kwargs.items() if k != "out"}
        data = None if shape_only else self._execute(spec, args, inputs, warns)
        for view in out.root.views() if out.base is None else []:
            _forget_values(view)  # they still see the old memory
        if data is None:
            out.data, out.values_known = _stand_in(tuple(shape), out.data.dtype), False
        else:
            out.data, out.values_known = np.array(data, dtype=out.data.dtype), True

    # -- executing on NumPy ------------------------------------------------------

    def _execute(self, spec: OpSpec, args: tuple, kwargs: dict,
                 warns: list[RuleWarning]) -> Any:
        """The op on NumPy data; None when the values cannot be computed here.

        None (values unknown, shapes from the rule) when the engine has no
        NumPy implementation of the op under this dialect, or when LAPACK
        refuses the made-up values (a singular matrix is about values, not shapes).
        """
        impl = _implementation(spec.name, self.dialect)
        if impl is None:
            return None
        data_args = tuple(_data(a) for a in args)
        data_kwargs = {k: _data(v) for k, v in kwargs.items()}
        try:
            with _numpy_calls(warns):
                out = impl(*data_args, **data_kwargs)
        except ShapeError:
            raise
        except np.linalg.LinAlgError:
            return None
        except (ValueError, TypeError, IndexError, RuntimeError) as exc:
            # The rule let this call through but NumPy refused it: report NumPy's words.
            raise ShapeError("execution", str(exc), type(exc).__name__) from None
        if isinstance(out, (list, tuple)) and spec.multi_output:
            return tuple(out)
        return out

    def _wrap(self, spec: OpSpec, op: str, args: tuple, kwargs: dict, metas: tuple,
              data: Any, source: EngineArray | None, shape: tuple, arrays: list) -> EngineArray:
        requires_grad = self.dialect.is_torch and any(a.requires_grad for a in arrays) \
            and op != "detach" and op != "torch.detach"
        kind = ops.call_view_kind(spec, metas, kwargs, self.dialect)
        known = data is not None
        # NumPy hands back scalars from computations and from a scalar's own methods.
        is_scalar = self.dialect.is_numpy and len(shape) == 0 and (
            isinstance(data, np.generic) if known else op not in _NUMPY_ARRAY_MAKERS and (
                kind == "none" or (source is not None and source.is_scalar
                                   and not op.startswith("np."))))
        if known:
            data = np.asarray(data)
            if tuple(data.shape) != tuple(shape):
                raise EngineDisagreement(f"engine and rule disagree on {op}: NumPy gave "
                                         f"{data.shape}, the rule {shape}")
            if source is not None and source.values_known and data is source.data:
                return source
        else:
            dtype = _result_dtype(spec, arrays, kwargs, self.dialect)
            data = _stand_in(tuple(shape), dtype)
            if source is not None and kind == "same" and tuple(shape) == source.shape \
                    and dtype == source.data.dtype:
                return source
        if source is None or kind == "none" or is_scalar or source.is_scalar:
            return EngineArray(data, values_known=known, requires_grad=requires_grad,
                               is_leaf=not requires_grad, is_scalar=is_scalar)
        if known and not np.may_share_memory(data, source.data):
            return EngineArray(data, requires_grad=requires_grad, is_leaf=not requires_grad)
        if known and self.dialect.is_torch and not _is_writeable(data) and source.writeable:
            data = _writeable(data)
        base = source.root
        chain = source.chain + (ViewOp(op, _literal_args(args, kwargs)),)
        if known:
            writeable = _is_writeable(data)
            repeated = _repeated(data)
            resolved = kind if kind != "maybe" else "view"
        else:
            writeable = source.writeable and not (kind == "readonly" and self.dialect.is_numpy)
            # Without strides, repeats are certain only where broadcasting made them and
            # only through ops that keep every element (a slice may drop the repeats).
            repeated = (spec.repeats and _adds_repeats(source.shape, shape)) or (
                source.repeated and op in _ELEMENT_PRESERVING_VIEWS)
            # Reshaping C-contiguous memory never copies; other "maybe"s stay undecided.
            resolved = "view" if kind == "maybe" and source.contiguous else kind
        warn_on_write = (not known and self.dialect.is_numpy and spec.repeats and writeable
                         and _adds_repeats(source.shape, shape)) or source.warn_on_write
        if self.dialect.is_torch:
            writeable = True
        contiguous = known or (resolved == "view" and kind == "maybe") or (
            kind == "same" and source.contiguous)
        return EngineArray(data, values_known=known, base=base, chain=chain, view_kind=resolved,
                           writeable=writeable, repeated=repeated, warn_on_write=warn_on_write,
                           requires_grad=requires_grad, is_leaf=not requires_grad,
                           contiguous=contiguous)


# ----------------------------------------------------------------------------
# argument plumbing

class _UpstreamError(Exception):
    def __init__(self, error: ShapeError):
        super().__init__(error.message)
        self.error = error


def _resolve(value: Any, results: list[StepResult]) -> Any:
    if isinstance(value, Ref):
        if not 0 <= value.step < len(results):
            raise ValueError(f"step refers to step {value.step}, which has not run")
        earlier = results[value.step]
        if earlier.error is not None:
            raise _UpstreamError(earlier.error)
        return earlier.value if value.index is None else earlier.value[value.index]
    if isinstance(value, tuple):
        return tuple(_resolve(v, results) for v in value)
    if isinstance(value, list):
        return [_resolve(v, results) for v in value]
    return value


def _meta(value: Any) -> Any:
    if isinstance(value, EngineArray):
        return value.meta()
    if isinstance(value, tuple):
        return tuple(_meta(v) for v in value)
    if isinstance(value, list):
        if any(isinstance(v, EngineArray) for v in value):
            return [_meta(v) for v in value]
        return value
    return value


def _data(value: Any) -> Any:
    if isinstance(value, EngineArray):
        return value.data[()] if value.is_scalar and value.values_known else value.data
    if isinstance(value, tuple):
        return tuple(_data(v) for v in value)
    if isinstance(value, list):
        return [_data(v) for v in value]
    return value


def _flatten(values: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, (tuple, list)):
            out.extend(_flatten(v))
        else:
            out.append(v)
    return out


def _literal_args(args: tuple, kwargs: dict) -> tuple:
    """The non-array arguments of a view op, kept to replay or explain the chain."""
    def strip(v: Any) -> Any:
        if isinstance(v, EngineArray):
            return v.meta()
        if isinstance(v, (tuple, list)):
            return tuple(strip(x) for x in v)
        return v
    return tuple(strip(a) for a in args[1:]) + tuple(sorted((k, strip(v)) for k, v in kwargs.items()))


def _multi_sources(op: str, args: tuple, count: int) -> list[EngineArray | None]:
    """Which input each output of a multi-output op views."""
    if op in ("np.broadcast_arrays", "torch.broadcast_tensors"):
        arrays = [a for a in args if isinstance(a, EngineArray)]
        return arrays if len(arrays) == count else [None] * count
    first = args[0] if args and isinstance(args[0], EngineArray) else None
    return [first] * count


_NUMPY_ARRAY_MAKERS = frozenset({"np.array", "np.copy", "copy", "astype", "np.asarray",
                                 "np.ascontiguousarray"})
"""NumPy calls whose 0-d result is an array, where computations give NumPy scalars."""

_ELEMENT_PRESERVING_VIEWS = frozenset({
    "T", "mT", "t", "torch.t", "transpose", "torch.transpose", "np.transpose", "np.permute_dims",
    "swapaxes", "np.swapaxes", "torch.swapaxes", "swapdims", "torch.swapdims", "permute",
    "torch.permute", "movedim", "torch.movedim", "moveaxis", "torch.moveaxis", "np.moveaxis",
    "np.matrix_transpose", "unsqueeze", "torch.unsqueeze", "np.expand_dims", "expand",
    "expand_as", "broadcast_to", "torch.broadcast_to", "np.broadcast_to", "detach",
    "torch.detach", "np.asarray"})
"""View ops that keep every element of their input (so keep its repeated elements)."""


def _numel(shape: Sequence[Any]) -> int:
    return math.prod(int(d) for d in shape)


def _stand_in(shape: tuple, dtype: Any) -> np.ndarray:
    """Zero-stride data of any shape in a few bytes; values meaningless."""
    return np.broadcast_to(np.zeros((), dtype=dtype), shape)


def _is_writeable(data: np.ndarray) -> bool:
    """The WRITEABLE flag, without NumPy's FutureWarning for reading it on broadcast_arrays output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bool(data.flags.writeable)


def _repeated(data: np.ndarray) -> bool:
    """Some element reachable at two indices through a zero stride (torch's internal overlap)."""
    return torch_internal_overlap(Layout.of(data)) == "yes"


def _adds_repeats(src: tuple, dst: tuple) -> bool:
    """Does broadcasting ``src`` to ``dst`` repeat elements (a new or size-1 dim grows past 1)?"""
    lead = len(dst) - len(src)
    for i, d in enumerate(dst):
        s = src[i - lead] if i >= lead else 1
        if s == 1 and d != 1 and d != 0:
            return True
    return False


def _writeable(data: np.ndarray) -> np.ndarray:
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


def _torch_partial_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """torch's get_overlap_status(a, b) == Partial, from the two views' layouts in their root."""
    if _root(a) is not _root(b):
        return False
    return torch_overlap_status(Layout.of(a), Layout.of(b)) == "partial"


def _root(a: np.ndarray) -> Any:
    while getattr(a, "base", None) is not None:
        a = a.base
    return a


def _check_autograd(target: EngineArray, *, through_view: bool = False) -> None:
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


def _flat_operands(values: Any) -> Any:
    if isinstance(values, dict):
        return {k: _flat_operands(v) for k, v in values.items()}
    return tuple(_FlatOperand(v) if isinstance(v, EngineArray) else v for v in values)


def _unflat(value: Any) -> Any:
    return value.original if isinstance(value, _FlatOperand) else value


def _forget_values(root: EngineArray) -> None:
    """A write the engine could not compute: the memory's values are unknown from now on."""
    for array in [root, *root.views()]:
        if array.values_known:
            array.data = _stand_in(array.shape, array.data.dtype)
            array.values_known = False


def _mark_autograd_write(target: EngineArray, sources: Iterable[Any]) -> None:
    """Writing a grad-requiring value into a tensor makes it (and its base) require grad."""
    if any(isinstance(s, EngineArray) and s.requires_grad for s in sources):
        target.requires_grad = True
        target.is_leaf = False


def _is_advanced(key: Any) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (EngineArray, list, np.ndarray)) for k in items)


def _index_key(key: Any, dialect: Dialect) -> Any:
    """A NumPy key for the data; torch's integer indexing yields 0-d views, NumPy's scalars."""
    np_key = _data(key)
    if isinstance(np_key, list) and not any(isinstance(k, (list, np.ndarray)) for k in np_key):
        np_key = np.asarray(np_key)
    if dialect.is_torch and not _is_advanced(key):
        items = np_key if isinstance(np_key, tuple) else (np_key,)
        if Ellipsis not in items:
            np_key = items + (Ellipsis,)
    return np_key


class _numpy_calls:
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


def _result_dtype(spec: OpSpec, arrays: list[EngineArray], kwargs: dict, dialect: Dialect) -> Any:
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


# ----------------------------------------------------------------------------
# NumPy implementations of each op under each library

def _implementation(name: str, dialect: Dialect) -> Callable[..., Any] | None:
    """NumPy code computing op ``name`` as the dialect's library does; None if there is none."""
    if dialect.is_torch:
        return _TORCH_IMPL.get(name)
    else:
        impl = _NUMPY_IMPL.get(name)
        if impl is not None:
            return impl
        if name.startswith("np."):
            target: Any = np
            for part in name.split(".")[1:]:
                target = getattr(target, part)
            return target
    return lambda self, *args, **kwargs: _call_method(self, name, args, kwargs)


def _call_method(self: Any, name: str, args: tuple, kwargs: dict) -> Any:
    attr = getattr(self, name)
    return attr(*args, **kwargs) if callable(attr) else attr


def _axis(dim: int, ndim: int) -> int:
    return dim % ndim if ndim else 0


def _torch_expand(x: np.ndarray, *sizes: Any) -> np.ndarray:
    sizes = ops.size_args(sizes)
    lead = len(sizes) - x.ndim
    target = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    strides = tuple(0 if i < lead or (x.shape[i - lead] == 1 and s != 1) else x.strides[i - lead]
                    for i, s in enumerate(target))
    return np.lib.stride_tricks.as_strided(x, shape=target, strides=strides,
                                           writeable=_is_writeable(x))


def _torch_squeeze(x: np.ndarray, dim: Any = None) -> np.ndarray:
    if dim is None:
        return np.squeeze(x)
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = tuple(sorted({_axis(d, x.ndim) for d in dims if x.ndim and x.shape[_axis(d, x.ndim)] == 1}))
    return np.squeeze(x, axis=axes) if axes else x.view()


def _torch_flatten(x: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    if x.ndim == 0:
        return x.reshape(1)
    s, e = _axis(start_dim, x.ndim), _axis(end_dim, x.ndim)
    if s == e:
        return x  # torch returns the input itself
    shape = x.shape[:s] + (math.prod(x.shape[s:e + 1]),) + x.shape[e + 1:]
    return x.reshape(shape)


def _torch_view(x: np.ndarray, *sizes: Any) -> np.ndarray:
    """torch's view: the layout decides (layout.torch_view_strides), never a copy."""
    target = ops.size_args(sizes)
    known = math.prod(d for d in target if d != -1)
    shape = tuple(x.size // known if d == -1 and known else d for d in target)
    layout = Layout.of(x)
    strides = torch_view_strides(layout.shape, layout.strides, shape)
    if strides is None:
        raise ShapeError("view-layout", TORCH_VIEW_STRIDE, "RuntimeError")
    try:
        return np.reshape(x, shape, copy=False)
    except ValueError:  # NumPy refuses where torch's rule allows: build torch's strides
        return np.lib.stride_tricks.as_strided(x, shape, tuple(st * x.itemsize for st in strides))


def _torch_unfold(x: np.ndarray, dimension: int, size: int, step: int) -> np.ndarray:
    if x.ndim == 0:
        return np.lib.stride_tricks.as_strided(x, shape=(size,), strides=(0,))
    d = _axis(dimension, x.ndim)
    count = (x.shape[d] - size) // step + 1
    shape = x.shape[:d] + (count,) + x.shape[d + 1:] + (size,)
    strides = x.strides[:d] + (x.strides[d] * step,) + x.strides[d + 1:] + (x.strides[d],)
    return np.lib.stride_tricks.as_strided(x, shape=shape, strides=strides,
                                           writeable=_is_writeable(x))


def _torch_select(x: np.ndarray, dim: int, index: int) -> np.ndarray:
    d = _axis(dim, x.ndim)
    return x[(slice(None),) * d + (index, Ellipsis)]


def _torch_narrow(x: np.ndarray, dim: int, start: int, length: int) -> np.ndarray:
    d = _axis(dim, x.ndim)
    start = start % x.shape[d] if start < 0 else start
    return x[(slice(None),) * d + (slice(start, start + length),)]


def _torch_split(x: np.ndarray, split_size_or_sections: Any, dim: int = 0) -> tuple:
    d = _axis(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if size else [0]
    else:
        sizes = list(split_size_or_sections)
    out, start = [], 0
    for size in sizes:
        out.append(x[(slice(None),) * d + (slice(start, start + size),)])
        start += size
    return tuple(out)


def _torch_chunk(x: np.ndarray, chunks: int, dim: int = 0) -> tuple:
    n = x.shape[_axis(dim, x.ndim)]
    return _torch_split(x, max(-(-n // chunks), 1) if n else 1, dim) if n else (x,)


def _torch_unbind(x: np.ndarray, dim: int = 0) -> tuple:
    d = _axis(dim, x.ndim)
    return tuple(_torch_select(x, d, i) for i in range(x.shape[d]))


def _torch_transpose(x: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    return np.swapaxes(x, dim0, dim1) if x.ndim else x.view()


def _torch_t(x: np.ndarray) -> np.ndarray:
    return x.T if x.ndim == 2 else x.view()


def _torch_permute(x: np.ndarray, *dims: Any) -> np.ndarray:
    return np.transpose(x, ops.size_args(dims))


def _torch_reduce(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: np.ndarray, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
        # torch also accepts NumPy's spellings axis= and keepdims=.
        dim = kwargs.get("axis", dim)
        keepdim = kwargs.get("keepdims", keepdim)
        axis = tuple(dim) if isinstance(dim, list) else dim
        return fn(x, axis=axis, keepdims=keepdim)
    return run


def _torch_binary(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: Any, y: Any, *, alpha: Any = 1, out: Any = None) -> Any:
        y = y * alpha if alpha != 1 else y
        return fn(x, y) if out is None else fn(x, y, out=out, casting="unsafe")
    return run


def _torch_inplace(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: np.ndarray, *others: Any, alpha: Any = 1) -> np.ndarray:
        if others:
            y = others[0] * alpha if alpha != 1 else others[0]
            fn(x, y, out=x, casting="unsafe")
        else:
            fn(x, out=x, casting="unsafe")
        return x
    return run


def _torch_addmm(c: Any, a: Any, b: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return beta * c + alpha * np.matmul(a, b)


def _copy_into(dst: np.ndarray, src: Any, *args: Any) -> np.ndarray:
    np.copyto(dst, src, casting="unsafe")
    return dst


def _fill(dst: np.ndarray, value: Any) -> np.ndarray:
    dst[...] = value
    return dst


def _masked_fill_(dst: np.ndarray, mask: np.ndarray, value: Any) -> np.ndarray:
    np.copyto(dst, value, where=np.broadcast_to(mask, dst.shape), casting="unsafe")
    return dst


def _torch_broadcast_tensors(*xs: np.ndarray) -> tuple:
    shape = np.broadcast_shapes(*[x.shape for x in xs])
    return tuple(_torch_expand(x, shape) for x in xs)


def _torch_cat(xs: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    """torch.cat still skips legacy empty 1-D tensors of shape (0,)."""
    kept = [x for x in xs if not (x.ndim == 1 and x.shape[0] == 0)]
    if not kept:
        return np.concatenate(xs)
    return np.concatenate(kept, axis=dim)


def _torch_contiguous(x: np.ndarray) -> np.ndarray:
    return x if x.flags.c_contiguous else np.ascontiguousarray(x)


def _ufunc_names() -> dict[str, Callable[..., Any]]:
    return {
        "add": np.add, "sub": np.subtract, "subtract": np.subtract, "mul": np.multiply,
        "multiply": np.multiply, "div": np.true_divide, "divide": np.true_divide,
        "true_divide": np.true_divide, "floor_divide": np.floor_divide, "pow": np.power,
        "fmod": np.fmod, "remainder": np.remainder, "maximum": np.maximum, "minimum": np.minimum,
        "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal, "atan2": np.arctan2,
        "logical_and": np.logical_and, "logical_or": np.logical_or,
        "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
        "logical_xor": np.logical_xor, "copysign": np.copysign, "fmax": np.fmax, "fmin": np.fmin,
        "hypot": np.hypot, "logaddexp": np.logaddexp,
    }


def _unary_names() -> dict[str, Callable[..., Any]]:
    return {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "neg": np.negative,
            "negative": np.negative, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
            "sigmoid": lambda x, **kw: np.divide(1, 1 + np.exp(-x), **kw),
            "relu": lambda x, **kw: np.maximum(x, 0, **kw)}


def _build_torch_impl() -> dict[str, Callable[..., Any]]:
    impl: dict[str, Callable[..., Any]] = {}
    for name, fn in _ufunc_names().items():
        impl[name] = impl[f"torch.{name}"] = _torch_binary(fn)
        impl[f"{name}_"] = _torch_inplace(fn)
    for name, fn in _unary_names().items():
        impl[name] = impl[f"torch.{name}"] = fn
        impl[f"{name}_"] = _torch_inplace(fn)
    for dunder, fn in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                       ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                       ("mod", operator.mod), ("pow", operator.pow), ("matmul", operator.matmul),
                       ("and", operator.and_), ("or", operator.or_), ("xor", operator.xor)):
        impl[f"__{dunder}__"] = fn
        impl[f"__r{dunder}__"] = (lambda f: lambda x, y: f(y, x))(fn)
        impl[f"__i{dunder}__"] = (lambda f: lambda x, y: _copy_into(x, f(x, y)))(fn)
    for name in ("lt", "le", "gt", "ge", "eq", "ne"):
        impl[f"__{name}__"] = getattr(operator, name)
    impl["__neg__"] = np.negative
    impl["__abs__"] = np.abs
    impl["__getitem__"] = lambda x, key: x[_torch_key(key)]
    impl["torch.where"] = impl["where"] = np.where
    for name in ("matmul", "mm", "bmm", "mv"):
        impl[name] = impl[f"torch.{name}"] = np.matmul
    for name, fn in (("dot", np.dot), ("vdot", np.vdot), ("inner", np.inner),
                     ("outer", np.outer), ("ger", np.outer)):
        impl[name] = impl[f"torch.{name}"] = fn
    impl["addmm"] = impl["torch.addmm"] = _torch_addmm
    impl["torch.einsum"] = np.einsum
    impl["torch.tensordot"] = lambda a, b, dims=2: np.tensordot(a, b, axes=dims)
    impl["reshape"] = impl["torch.reshape"] = lambda x, *s: np.reshape(x, ops.size_args(s))
    impl["view"] = _torch_view
    impl["flatten"] = impl["torch.flatten"] = _torch_flatten
    impl["transpose"] = impl["torch.transpose"] = _torch_transpose
    impl["swapaxes"] = impl["torch.swapaxes"] = _torch_transpose
    impl["t"] = impl["torch.t"] = _torch_t
    impl["T"] = lambda x: x.T
    impl["mT"] = lambda x: np.swapaxes(x, -1, -2) if x.ndim >= 2 else x.view()
    impl["permute"] = impl["torch.permute"] = _torch_permute
    impl["movedim"] = impl["torch.movedim"] = np.moveaxis
    impl["squeeze"] = impl["torch.squeeze"] = _torch_squeeze
    impl["unsqueeze"] = impl["torch.unsqueeze"] = lambda x, dim: np.expand_dims(
        x, _axis(dim, x.ndim + 1))
    impl["expand"] = _torch_expand
    impl["expand_as"] = lambda x, other: _torch_expand(x, other.shape)
    impl["broadcast_to"] = impl["torch.broadcast_to"] = _torch_expand
    impl["torch.broadcast_tensors"] = _torch_broadcast_tensors
    impl["narrow"] = impl["torch.narrow"] = _torch_narrow
    impl["select"] = impl["torch.select"] = _torch_select
    impl["unfold"] = _torch_unfold
    impl["split"] = impl["torch.split"] = _torch_split
    impl["chunk"] = impl["torch.chunk"] = _torch_chunk
    impl["unbind"] = impl["torch.unbind"] = _torch_unbind
    impl["diagonal"] = impl["torch.diagonal"] = lambda x, offset=0, dim1=0, dim2=1: np.diagonal(
        x, offset, dim1, dim2)
    impl["torch.cat"] = impl["torch.concat"] = impl["torch.concatenate"] = _torch_cat
    impl["torch.stack"] = lambda xs, dim=0: np.stack(xs, axis=dim)
    for name, fn in (("sum", np.sum), ("mean", np.mean), ("prod", np.prod), ("amax", np.amax),
                     ("amin", np.amin)):
        impl[name] = impl[f"torch.{name}"] = _torch_reduce(fn)
    impl["clone"] = impl["torch.clone"] = lambda x: x.copy()
    impl["contiguous"] = _torch_contiguous
    impl["detach"] = impl["torch.detach"] = lambda x: x.view()
    impl["real"] = impl["torch.real"] = lambda x: x.real if np.iscomplexobj(x) else x
    impl["imag"] = impl["torch.imag"] = lambda x: x.imag
    impl["copy_"] = _copy_into
    impl["fill_"] = _fill
    impl["zero_"] = lambda x: _fill(x, 0)
    impl["masked_fill"] = lambda x, mask, value: np.where(mask, value, x).astype(x.dtype)
    impl["masked_fill_"] = _masked_fill_
    impl["ravel"] = impl["torch.ravel"] = lambda x: np.reshape(x, -1)
    impl["view_as"] = lambda x, other: _torch_view(x, other.shape)
    impl["reshape_as"] = lambda x, other: np.reshape(x, other.shape)
    for name in ("swapdims", "moveaxis"):
        impl[name] = impl[f"torch.{name}"] = impl["swapaxes" if name == "swapdims" else "movedim"]
    impl["repeat"] = lambda x, *sizes: np.tile(x, ops.size_args(sizes))
    impl["tile"] = impl["torch.tile"] = lambda x, *reps: np.tile(
        x, ops.size_args(reps) if len(reps) != 1 else reps[0])
    impl["torch.hstack"] = np.hstack
    impl["torch.vstack"] = np.vstack
    for name, fn in (("std", np.std), ("var", np.var), ("any", np.any), ("all", np.all)):
        impl[name] = impl[f"torch.{name}"] = _torch_reduce(fn)
    impl["addmv"] = impl["torch.addmv"] = _torch_addmm
    impl["addr"] = impl["torch.addr"] = lambda c, a, b, *, beta=1, alpha=1: \
        beta * c + alpha * np.outer(a, b)
    impl["baddbmm"] = impl["torch.baddbmm"] = _torch_addmm
    impl["addbmm"] = impl["torch.addbmm"] = lambda c, a, b, *, beta=1, alpha=1: \
        beta * c + alpha * np.matmul(a, b).sum(axis=0)
    for name in ("inv", "det", "slogdet", "eig", "eigh", "eigvals", "eigvalsh", "cholesky",
                 "pinv"):
        impl[f"torch.linalg.{name}"] = getattr(np.linalg, name)
    impl["torch.inverse"] = impl["inverse"] = np.linalg.inv
    impl["torch.det"] = impl["det"] = np.linalg.det
    impl["torch.linalg.svd"] = lambda a, full_matrices=True: tuple(
        np.linalg.svd(a, full_matrices=full_matrices))
    impl["torch.linalg.qr"] = _torch_qr
    impl["torch.linalg.solve"] = _torch_solve
    impl["__pos__"] = np.positive
    impl["__invert__"] = np.invert
    impl["addcmul"] = impl["torch.addcmul"] = lambda x, a, b, *, value=1: x + value * a * b
    impl["addcdiv"] = impl["torch.addcdiv"] = lambda x, a, b, *, value=1: x + value * a / b
    impl["addcmul_"] = lambda x, a, b, *, value=1: _copy_into(x, x + value * a * b)
    impl["addcdiv_"] = lambda x, a, b, *, value=1: _copy_into(x, x + value * a / b)
    impl["gather"] = impl["torch.gather"] = _torch_gather
    impl["index_select"] = impl["torch.index_select"] = lambda x, dim, index: np.take(
        x, index, axis=dim)
    impl["torch.take_along_dim"] = lambda x, indices, dim=None: np.take_along_axis(
        x, indices, axis=dim)
    return impl


def _torch_gather(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """out[i][j] = x[index[i][j]][j] (dim 0); index may be smaller than x in the other dims."""
    d = _axis(dim, max(x.ndim, 1))
    region = tuple(slice(None) if i == d else slice(0, n) for i, n in enumerate(index.shape))
    return np.take_along_axis(x[region], index, axis=d)


def _torch_qr(a: np.ndarray, mode: str = "reduced") -> tuple:
    if mode == "r":
        return (np.zeros((0,), a.dtype), np.linalg.qr(a, mode="r"))
    return tuple(np.linalg.qr(a, mode=mode))


def _torch_solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch reads b as a (batch of) vector(s) when b.shape == a.shape[:-1], too."""
    if b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]):
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _torch_key(key: Any) -> Any:
    items = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (list, np.ndarray)) for k in items) or Ellipsis in items:
        return key
    return items + (Ellipsis,)


def _build_numpy_impl() -> dict[str, Callable[..., Any]]:
    impl: dict[str, Callable[..., Any]] = {}
    impl["np.copyto"] = _copy_into
    impl["fill"] = _fill
    impl["np.broadcast_arrays"] = lambda *xs: tuple(np.broadcast_arrays(*xs))
    impl["np.split"] = lambda x, indices_or_sections, axis=0: tuple(
        np.split(x, indices_or_sections, axis))
    return impl


_TORCH_IMPL = _build_torch_impl()
_NUMPY_IMPL = _build_numpy_impl()

__all__ = ["Engine", "EngineArray", "EngineDisagreement", "Step", "Ref", "StepResult", "ViewOp",
           "DEFAULT_NUMEL_LIMIT", "TORCH_LEAF_INPLACE", "TORCH_LEAF_VIEW_INPLACE",
           "TORCH_REPEATED_WRITE", "TORCH_PARTIAL_OVERLAP", "NUMPY_READONLY_ASSIGN",
           "NUMPY_READONLY_OUTPUT"]
