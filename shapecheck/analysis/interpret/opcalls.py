"""The door to the runtime op table: run a rule, turn its verdict into findings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from ...runtime import ops as rt_ops
from ...runtime.dialects import Dialect
from ...runtime.dims import Dim, dims_equal, eq, format_shape, is_one, numel
from ...runtime.rules.reductions import REDUCE_OPS
from ...runtime.verdicts import Result, RuleWarning, ShapeError
from ..values import AbstractArray, TupleValue, Value
from .context import Step
from .fixes import keepdims_fix, reshape_fix
from .names import KIND_CODES, WARNING_CODES
from .operands import to_arg


def _dim_at(shape: tuple, index: int) -> Dim:
    return shape[index] if -len(shape) <= index < 0 else 1


def with_dtypes(out: Value, dtypes: tuple | str | None) -> Value:
    """The op table's dtypes for a call's outputs (runtime/optable.py, result_dtypes): one for
    all, or one per output of a tuple; None leaves the interpreter's guess (input 0's dtype)."""
    if dtypes is None:
        return out
    if isinstance(out, AbstractArray):
        return replace(out, dtype=dtypes if isinstance(dtypes, str) or dtypes is None
                       else dtypes[0])
    if isinstance(out, TupleValue):
        each = dtypes if isinstance(dtypes, tuple) and len(dtypes) == len(out.items) else (
            (dtypes if isinstance(dtypes, str) else dtypes[0]),) * len(out.items)
        return TupleValue(tuple(replace(item, dtype=d) if isinstance(item, AbstractArray) else item
                                for item, d in zip(out.items, each)), out.is_list)
    return out


class OpGateway:
    def lookup(self, name: str, dialect: Dialect):
        try:
            return rt_ops.lookup(name, dialect)
        except Exception:
            return None

    def keeps_shape(self, name: str) -> bool:
        """Some library's op ``name`` returns input 0's shape whatever its other arguments."""
        return rt_ops.keeps_shape(name)

    def is_array_op(self, name: str) -> bool:
        """Some library has an op ``name`` (so a method of that name likely returns an array)."""
        return rt_ops.is_array_op(name)

    def shape_from_arguments(self, name: str, args: tuple, dialect: Dialect) -> tuple | None:
        """What a method's own size arguments say of its result (input 0's shape unknown)."""
        return rt_ops.shape_from_arguments(name, args, dialect)

    def sized_by_values(self, name: str) -> bool:
        """Some library's op ``name`` reads a size off its operands' values (``nonzero``)."""
        return rt_ops.sized_by_values(name)

    def to_arg(self, value: Value, name: str | None = None) -> Any:
        """A value as the op ``name``'s rule takes it; the contents of its arrays are named
        when the op reads a size off them."""
        if name is not None and self.sized_by_values(name):
            return to_arg(value, contents=self.contents_of)
        return to_arg(value)

    def apply(self, name: str, dialect: Dialect, args: tuple, kwargs: dict, node: cst.CSTNode,
              operands: list, label: str) -> Result | None:
        """Run the op table's rule for ``name``; report its error or warnings; None if unknown."""
        spec = self.lookup(name, dialect)
        if spec is None:
            return None
        result = self.run_rule(lambda: spec.rule(*args, dialect=dialect, **kwargs), node,
                               operands, label, dialect, spec, op_name=name)
        if result is not None and len(self.named_symbols) > 1:
            self.check_named_dims(spec, dialect, args, kwargs, node, operands, label)
        return result

    def apply_with_out(self, name: str, dialect: Dialect, args: tuple, kwargs: dict, node,
                       operands: list, label: str) -> Result | None:
        """An op with out=: errors of the op itself are its own; the rest are out='s (SC203)."""
        plain = {k: v for k, v in kwargs.items() if k != "out"}
        plain_result = self.apply(name, dialect, args, plain, node, operands[:-1] or operands, label)
        if plain_result is None:
            return None
        self.out_call = True
        self.out_result = plain_result
        try:
            result = self.apply(name, dialect, args, kwargs, node, operands, label)
        finally:
            self.out_call = False
        out = operands[-1][0]
        reduction = name.rsplit(".", 1)[-1] in REDUCE_OPS
        if reduction and result is not None and isinstance(out, AbstractArray) and \
                out.shape is not None and dims_equal(plain_result.shape, out.shape) is False \
                and not result.warnings:
            # The rule accepted out= without checking it; the result still cannot fit.
            action = ("raises ValueError" if dialect.is_numpy else
                      "resizes out with a deprecation warning")
            self.report("SC203", node,
                        f"{label} writes a {format_shape(plain_result.shape)} result into out= of "
                        f"shape {format_shape(out.shape)} ({self.describe(operands)}); "
                        f"{'numpy' if dialect.is_numpy else 'torch'} {action}")
        return result

    def run_rule(self, call, node, operands, label, dialect, spec, op_name) -> Result | None:
        shapes = tuple(v.shape for v, _ in operands if isinstance(v, AbstractArray))
        try:
            result = call()
        except ShapeError as err:
            if self.trace is not None:
                self.trace.append(Step(self.text(node, 80), op_name or label, shapes, err))
            self.report_error(err, node, operands, label, dialect, spec)
            return None
        except Exception:
            return None  # a rule that cannot handle these arguments: unknown, not a finding
        if not isinstance(result, Result):
            return None
        if self.trace is not None:
            self.trace.append(Step(self.text(node, 80), op_name or label, shapes, result,
                                   result.warnings))
        for warning in result.warnings:
            self.report_warning(warning, node, operands, label, dialect)
        return result

    def describe(self, operands: list) -> str:
        parts = []
        for value, node in operands:
            if not isinstance(value, AbstractArray):
                continue
            text = self.text(node, 30)
            line = self.origin_line(value.origin)
            parts.append(f"{text} from line {line}" if line else text)
        return ", ".join(parts)

    def report_error(self, err: ShapeError, node, operands, label, dialect, spec) -> None:
        code = KIND_CODES.get(err.kind)
        if code is None:
            return
        if any(isinstance(v, AbstractArray) and v.assumed_rank for v, _ in operands):
            return  # a rank taken from an index is no ground for an error
        if err.kind == "dtype" and self.trace is None and not (self.out_call or
                                                               self.inplace_call):
            # An op's refusal of its operands' dtypes rests on dtypes the lint infers (a guess
            # for most results); a write into a target of a stated dtype is certain enough.
            return
        if self.out_call and code in ("SC101", "SC201"):
            code = "SC203"
        elif self.inplace_call and code == "SC101":
            code = "SC201"
        arrays = [v for v, _ in operands if isinstance(v, AbstractArray) and v.shape is not None]
        if code == "SC101" and dialect.is_torch and spec is not None and spec.legacy_fallback \
                and len(arrays) >= 2 and eq(numel(arrays[0].shape), numel(arrays[1].shape)) is True:
            code = "SC104"
        if code == "SC101" and label == "loss":
            code = "SC107"
        shapes = [format_shape(v.shape) for v in arrays]
        if code == "SC203" and self.out_call and arrays:
            head = (f"{label} writes a {format_shape(self.out_result.shape)} result into out= of "
                    f"shape {shapes[-1]}")
        elif err.kind in ("broadcast", "fallback", "inplace") and len(arrays) >= 2 and err.dim is not None:
            a, b = arrays[0].shape, arrays[1].shape
            head = (f"cannot broadcast {shapes[0]} with {shapes[1]}: dim {err.dim} is "
                    f"{_dim_at(a, err.dim)} vs {_dim_at(b, err.dim)}")
            if err.kind == "inplace":
                head = f"in-place {label} cannot write into {shapes[0]}: " + head[len("cannot "):]
        elif len(shapes) == 2 and label == "assignment":
            head = f"assignment to {self.text(node, 30)} (an array of {shapes[0]}) of a {shapes[1]} value"
        elif shapes and label == "index":
            head = f"index {self.text(node, 30)} into {shapes[0]}"
        elif shapes:
            head = f"{label} with {' and '.join(shapes)}"
        else:
            head = label
        if code == "SC104":
            head += (" (same number of elements: old PyTorch silently treated both as 1-D, "
                     "today it raises)")
        reduced = [v for v in arrays if v.reduced is not None]
        if code == "SC101" and reduced:
            head += f" (an operand lost axis {reduced[0].reduced.axis} in a reduction; keep it with keepdims=True)"
        origins = self.describe(operands)
        library = "numpy" if dialect.is_numpy else "torch"
        message = f"{head}" + (f" ({origins})" if origins else "") + \
            f"; {library}: {err.message.strip()}"
        self.report(code, node, message, err.exc_type or "Exception",
                    fix=reshape_fix(self, node) if code == "SC308" else None)

    def report_warning(self, warning: RuleWarning, node, operands, label, dialect) -> None:
        code = WARNING_CODES.get(warning.kind)
        if code is None:
            return
        if code == "SC105" and not (dialect.is_torch and dialect.legacy):
            return
        arrays = [v for v, _ in operands if isinstance(v, AbstractArray) and v.shape is not None]
        shapes = " and ".join(format_shape(v.shape) for v in arrays)
        origins = self.describe(operands)
        self.report(code, node, f"{label} with {shapes}" + (f" ({origins})" if origins else "")
                    + f": {warning.message.strip()}")

    def array_result(self, result: Result | None, base: AbstractArray, node: cst.CSTNode, *,
                     dtype: str | None = None, library: str | None = None,
                     explicit_axis: bool = False) -> Value:
        origin = self.origin(node)
        library = library or base.library
        if result is None:
            return AbstractArray(None, dtype, library, origin)
        # x.squeeze(2) of a dim that may be 1: the rank the rule assumed is no ground for errors.
        assumed = base.assumed_rank or any(w.kind == "squeeze-uncertain" for w in result.warnings)
        arrays = [AbstractArray(tuple(shape), dtype, library, origin, explicit_axis=explicit_axis,
                                requires_grad=base.requires_grad, assumed_rank=assumed)
                  for shape in result.outputs]
        if len(arrays) == 1:
            return arrays[0]
        return TupleValue(tuple(arrays))

    def check_implicit_outer(self, node, left: AbstractArray, right: AbstractArray,
                             left_node, right_node, result: Result) -> None:
        """(n, 1) op (n,) -> (n, n): both operands stretched, and a size lines up with itself."""
        a, b = left.shape, right.shape
        if left.explicit_axis or right.explicit_axis or len(a) == len(b) or \
                left.assumed_rank or right.assumed_rank:
            return
        out = result.shape
        # A warning about a pattern: symbolic sizes count as "not 1" unless they surely are.
        if dims_equal(out, a) is True or dims_equal(out, b) is True:
            return
        # The column-against-vector pattern: high (..., n, 1) with low (..., n) -> (..., n, n).
        high, low = (a, b) if len(a) > len(b) else (b, a)
        if len(high) < 2 or not low:
            return
        if is_one(high[-1]) is True and is_one(low[-1]) is not True and eq(high[-2], low[-1]) is True:
            self.report(
                "SC102", node,
                f"{self.text(left_node, 30)} {format_shape(a)} and {self.text(right_node, 30)} "
                f"{format_shape(b)} broadcast to {format_shape(out)}: the size {low[-1]} of one "
                f"lines up with the trailing size-1 axis of the other, giving an outer product "
                f"({self.describe([(left, left_node), (right, right_node)])}); make the shapes "
                f"equal, or add the new axis explicitly with [:, None]")

    def check_reduced_axis(self, node, left: AbstractArray, right: AbstractArray,
                           left_node, right_node) -> None:
        if left.assumed_rank or right.assumed_rank:
            return  # a rank a squeeze of a dim that may be 1 assumed is no ground for a warning
        for reduced, reduced_node, other, other_node in (
                (left, left_node, right, right_node), (right, right_node, left, left_node)):
            info = reduced.reduced
            if info is not None and info.shape is None and info.source is other:
                self.report(
                    "SC103", node,
                    f"{self.text(reduced_node, 30)} was reduced over axis {info.axis} of "
                    f"{self.text(other_node, 30)} without keepdims, so broadcasting it back "
                    f"against {self.text(other_node, 30)} lines its axes up with the wrong ones "
                    f"for every rank {self.text(other_node, 30)} can have; reduce with "
                    f"keepdims=True (keepdim=True in torch)",
                    fix=keepdims_fix(self, reduced_node, reduced))
                return
            if info is None or info.shape is None or info.axis == 0 or other.shape is None \
                    or reduced.shape is None or other.explicit_axis:
                continue  # against a keepdim / unsqueezed array: an outer sum on purpose
            if len(other.shape) != len(info.shape) or len(reduced.shape) != len(info.shape) - 1:
                continue
            if dims_equal(other.shape, info.shape) is False:
                continue
            self.report(
                "SC103", node,
                f"{self.text(reduced_node, 30)} {format_shape(reduced.shape)} was reduced over axis "
                f"{info.axis} of {format_shape(info.shape)} without keepdims, so broadcasting it "
                f"against {self.text(other_node, 30)} {format_shape(other.shape)} lines its axes up "
                f"with the wrong ones; reduce with keepdims=True (keepdim=True in torch)",
                fix=keepdims_fix(self, reduced_node, reduced))
            return
