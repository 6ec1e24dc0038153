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
memory, not shapes) live here, with their tests on NumPy buffers in
operands.py: NumPy's read-only views, torch's refusal to write where several
indices share one element or where input and output partly overlap, and
torch's autograd refusal to modify a leaf that requires grad. NumPy scalars (what NumPy returns for 0-d computations) are immutable,
so ``s += t`` rebinds instead of writing, as in Python.

Use: ``Engine("torch").run([Step.array((3, 1)), Step("expand", (Ref(0), 3, 4)),
Step("add_", (Ref(1), 1.0))])`` gives one StepResult per step (a value, or
the library's ShapeError, plus warnings). ``Engine.apply(op, *args)`` runs
one op on EngineArrays and plain values. Op names are the op table's
(see ops.py); the pseudo-op ``"array"`` makes a base array holding 0, 1, 2, ...
Step, Ref, StepResult and EngineArray are defined in program.py.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from . import ops
from .dialects import Dialect, get_dialect
from .implementations import implementation_of
from .operands import (
    ELEMENT_PRESERVING_VIEWS,
    NUMPY_ARRAY_MAKERS,
    UpstreamError,
    adds_repeats,
    as_writeable,
    check_autograd,
    data_of,
    flat_operands,
    flatten_values,
    forget_values,
    has_repeats,
    index_key,
    is_advanced,
    is_writeable,
    literal_args,
    mark_autograd_write,
    meta_of,
    multi_sources,
    numel_of,
    numpy_calls,
    resolve,
    result_dtype,
    stand_in,
    torch_partial_overlap,
    unflat,
)
from .ops import OpSpec
from .program import (
    NUMPY_BROADCAST_WRITE,
    NUMPY_READONLY_ASSIGN,
    NUMPY_READONLY_OUTPUT,
    TORCH_EXPANDED_INDEX_PUT,
    TORCH_EXPANDED_MASKED_FILL,
    TORCH_LEAF_INPLACE,
    TORCH_PARTIAL_OVERLAP,
    TORCH_REPEATED_WRITE,
    TORCH_RESIZE_GRAD,
    EngineArray,
    EngineDisagreement,
    Step,
    StepResult,
    Value,
    ViewOp,
)
from .rules.messages import NUMPY_SHAPE_IN_PLACE
from .verdicts import RuleWarning, ShapeError

DEFAULT_NUMEL_LIMIT = 10**7
"""Arrays with more elements than this are evaluated in shape-only mode."""

_TORCH_FILLS = frozenset({"fill_", "zero_"})


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
            return EngineArray(stand_in(shape, np_dtype), values_known=False,
                               requires_grad=requires_grad)
        data = np.arange(math.prod(shape)).astype(np_dtype).reshape(shape)
        return EngineArray(data, requires_grad=requires_grad)

    # -- running -------------------------------------------------------------

    def run(self, steps: Iterable[Step]) -> list[StepResult]:
        """Run the steps in order; a step whose argument failed fails with that error."""
        results: list[StepResult] = []
        for step in steps:
            try:
                args = tuple(resolve(a, results) for a in step.args)
                kwargs = {k: resolve(v, results) for k, v in step.kwargs.items()}
            except UpstreamError as upstream:
                results.append(StepResult(error=upstream.error))
                continue
            try:
                if step.op == "array":
                    value = self.array(*args, **kwargs)
                    results.append(StepResult(value))
                else:
                    value, warns = self.apply(step.op, *args, **kwargs)
                    outputs = value if isinstance(value, tuple) else (value,)
                    results.append(StepResult(value, warnings=warns, shapes=tuple(
                        o.shape for o in outputs if isinstance(o, EngineArray))))
            except ShapeError as error:
                results.append(StepResult(error=error))
        return results

    def apply(self, op: str, *args: Any, **kwargs: Any) -> tuple[Value, tuple[RuleWarning, ...]]:
        """One op: (result, warnings), or ShapeError with the library's own message."""
        spec = ops.lookup(op, self.dialect)
        if spec is None:
            raise ShapeError("argument", f"{self.dialect.library} has no op {op!r}", "AttributeError")
        metas = tuple(meta_of(a) for a in args)
        meta_kwargs = {k: meta_of(v) for k, v in kwargs.items()}
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
        if spec.reshapes_target is not None:
            return self._reshape_in_place(spec, args, kwargs, metas, meta_kwargs, warns)
        if spec.inplace:
            self._check_write(spec, args[0], [a for a in args[1:] if isinstance(a, EngineArray)],
                              warns)
        out = kwargs.get("out")
        if isinstance(out, EngineArray):
            self._check_write(spec, out, [a for a in args if isinstance(a, EngineArray)], warns,
                              ufunc_out=True)
        result = spec.rule(*metas, dialect=self.dialect, **meta_kwargs)
        warns.extend(result.warnings)
        arrays = [a for a in flatten_values(args) if isinstance(a, EngineArray)]
        shape_only = (any(not a.values_known for a in arrays)
                      or any(numel_of(s) > self.numel_limit for s in result.outputs))
        if any(w.kind == "legacy-fallback" for w in result.warnings):
            # Old PyTorch viewed same-numel operands as 1-D: compute on flat views.
            args, kwargs = flat_operands(args), flat_operands(kwargs)
            if spec.inplace and not shape_only and not args[0].data.flags.c_contiguous:
                shape_only = True
        written = unflat(args[0]) if spec.inplace else out if isinstance(out, EngineArray) \
            else None
        if written is not None:
            if not spec.inplace and written.shape != tuple(result.shape):
                # torch resized out= to the result (NumPy's rule refused above): new memory
                self._resize_out(spec, written, args, kwargs, result.shape, shape_only, warns)
            elif shape_only or self._execute(spec, args, kwargs, warns) is None:
                forget_values(written.root)
            mark_autograd_write(written, arrays)
            return written, tuple(warns)
        data = None if shape_only else self._execute(spec, args, kwargs, warns)
        if data is not None and any(w.kind == "legacy-fallback" for w in result.warnings):
            data = np.asarray(data).reshape(result.shape)
        args = tuple(unflat(a) for a in args)
        source = args[0] if args and isinstance(args[0], EngineArray) else None
        if spec.multi_output or isinstance(data, tuple):
            outputs = data if isinstance(data, tuple) else (None,) * len(result.outputs)
            sources = multi_sources(op, args, len(result.outputs))
            value: Value = tuple(
                self._wrap(spec, op, args, kwargs, metas, d, src, shape, arrays)
                for d, src, shape in zip(outputs, sources, result.outputs))
        else:
            value = self._wrap(spec, op, args, kwargs, metas, data, source, result.shape, arrays)
        return value, tuple(warns)

    def _reshape_in_place(self, spec: OpSpec, args: tuple, kwargs: dict, metas: tuple,
                          meta_kwargs: dict, warns: list[RuleWarning]
                          ) -> tuple[Value, tuple[RuleWarning, ...]]:
        """``unsqueeze_``, ``t_``, ``resize_``, ``a.shape = s``: the target itself takes the
        shape its twin op gives (OpSpec.reshapes_target). No element is written, so torch's
        refusal to write repeated elements does not apply; autograd's refusals do."""
        target = args[0]
        if self.dialect.is_torch and target.requires_grad:
            if spec.name in ("resize_", "resize_as_"):
                raise ShapeError("autograd", TORCH_RESIZE_GRAD, "RuntimeError")
            check_autograd(target)
        result = spec.rule(*metas, dialect=self.dialect, **meta_kwargs)
        warns.extend(result.warnings)
        shape = tuple(result.shape)
        if spec.reshapes_target != spec.name:  # the target becomes its twin's view of itself
            shaped, _ = self.apply(spec.reshapes_target, *args, **kwargs)
            if shaped.root is not target.root:  # the twin copied: ``a.shape = s`` refuses
                raise ShapeError("view-layout", NUMPY_SHAPE_IN_PLACE, "AttributeError")
            target.data, target.values_known = shaped.data, shaped.values_known
            target.repeated, target._contiguous = shaped.repeated, shaped.contiguous
        else:  # a resize: new memory, the first elements kept
            data = None
            if target.values_known and math.prod(shape) <= self.numel_limit:
                data = self._execute(spec, args, kwargs, warns)
            target.data = np.asarray(data) if data is not None else \
                stand_in(shape, target.data.dtype)
            target.values_known, target._contiguous = data is not None, True
        if target.shape != shape:
            raise EngineDisagreement(f"engine and rule disagree on {spec.name}: NumPy gave "
                                     f"{target.shape}, the rule {shape}")
        return target, tuple(warns)

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
            check_autograd(target, through_view=through_view)
            repeated = has_repeats(region) if region is not None and target.values_known \
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
                        and torch_partial_overlap(written, other.data):
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
        np_key = index_key(key, self.dialect)
        advanced = is_advanced(key)
        others = [value] if isinstance(value, EngineArray) else []
        others += [k for k in flatten_values((key,)) if isinstance(k, EngineArray)]
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
            with numpy_calls(warns):
                target.data[np_key] = src
        else:
            forget_values(target.root)
        mark_autograd_write(target, others)
        return target, tuple(warns)

    def _resize_out(self, spec: OpSpec, out: EngineArray, args: tuple, kwargs: dict,
                    shape: tuple, shape_only: bool, warns: list[RuleWarning]) -> None:
        """torch's out= of the wrong shape is resized to the result, which gets new memory."""
        inputs = {k: v for k, v in kwargs.items() if k != "out"}
        data = None if shape_only else self._execute(spec, args, inputs, warns)
        for view in out.root.views() if out.base is None else []:
            forget_values(view)  # they still see the old memory
        if data is None:
            out.data, out.values_known = stand_in(tuple(shape), out.data.dtype), False
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
        impl = implementation_of(spec.name, self.dialect)
        if impl is None:
            return None
        data_args = tuple(data_of(a) for a in args)
        data_kwargs = {k: data_of(v) for k, v in kwargs.items()}
        try:
            with numpy_calls(warns):
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
            isinstance(data, np.generic) if known else op not in NUMPY_ARRAY_MAKERS and (
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
            dtype = result_dtype(spec, arrays, kwargs, self.dialect)
            data = stand_in(tuple(shape), dtype)
            if source is not None and kind == "same" and tuple(shape) == source.shape \
                    and dtype == source.data.dtype:
                return source
        if source is None or kind == "none" or is_scalar or source.is_scalar:
            return EngineArray(data, values_known=known, requires_grad=requires_grad,
                               is_leaf=not requires_grad, is_scalar=is_scalar)
        if known and not np.may_share_memory(data, source.data):
            return EngineArray(data, requires_grad=requires_grad, is_leaf=not requires_grad)
        if known and self.dialect.is_torch and not is_writeable(data) and source.writeable:
            data = as_writeable(data)
        base = source.root
        chain = source.chain + (ViewOp(op, literal_args(args, kwargs)),)
        if known:
            writeable = is_writeable(data)
            repeated = has_repeats(data)
            resolved = kind if kind != "maybe" else "view"
        else:
            writeable = source.writeable and not (kind == "readonly" and self.dialect.is_numpy)
            # Without strides, repeats are certain only where broadcasting made them and
            # only through ops that keep every element (a slice may drop the repeats).
            repeated = (spec.repeats and adds_repeats(source.shape, shape)) or (
                source.repeated and op in ELEMENT_PRESERVING_VIEWS)
            # Reshaping C-contiguous memory never copies; other "maybe"s stay undecided.
            resolved = "view" if kind == "maybe" and source.contiguous else kind
        warn_on_write = (not known and self.dialect.is_numpy and spec.repeats and writeable
                         and adds_repeats(source.shape, shape)) or source.warn_on_write
        if self.dialect.is_torch:
            writeable = True
        contiguous = known or (resolved == "view" and kind == "maybe") or (
            kind == "same" and source.contiguous)
        return EngineArray(data, values_known=known, base=base, chain=chain, view_kind=resolved,
                           writeable=writeable, repeated=repeated, warn_on_write=warn_on_write,
                           requires_grad=requires_grad, is_leaf=not requires_grad,
                           contiguous=contiguous)


__all__ = ["Engine", "DEFAULT_NUMEL_LIMIT"]
