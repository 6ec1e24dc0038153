"""In-place ops (``x += y``, ``x.add_(y)``, ``x.copy_(y)``): the write they make and whether
their result fits the target's shape and dtype, through the runtime's rule."""

from __future__ import annotations

import libcst as cst

from ...runtime import dtypes as rt_dtypes
from ...runtime.verdicts import ShapeError
from ..values import AbstractArray
from .effects import NOT_DATA_WRITES
from .names import AUG_LABEL
from .operands import FAIL, array_arg, dtype_of, ndim_of


class InplaceOps:
    def inplace_op(self, node, target: AbstractArray, target_node, op: str, others: list,
                   name: str, kwargs: dict | None = None) -> None:
        """x += y, x.add_(y), x.copy_(y): the result must fit x's shape and dtype."""
        if name not in NOT_DATA_WRITES:
            if not name.startswith("__"):
                self.check_write_to_copy(target_node, node, f".{name}()")
            elif isinstance(target_node, cst.Subscript):  # x[i] += 1 is x[i]'s own setitem
                self.check_write_to_copy(target_node.value, node, "assignment")
            self.write(target, node, target_node,
                       "augmented assignment" if name.startswith("__") else f".{name}()",
                       tuple(v for v, _ in others))
        if target.shape is None:
            return
        dialect = self.dialect_for(target.library)
        args = [self.to_arg(v) for v, _ in others]
        if any(a is FAIL for a in args) or any(
                isinstance(v, AbstractArray) and v.shape is None for v, _ in others):
            return
        operands = [(target, target_node)] + others
        label = name if not name.startswith("__") else AUG_LABEL.get(name, name)
        self.inplace_call = True
        try:
            result = self._apply_inplace(name, dialect, target, args, kwargs, node, operands, label)
        finally:
            self.inplace_call = False
        if result is None:
            return
        other = others[0][0] if others else None
        base_op = op.rstrip("_") if not op.startswith("__") else op
        if name in ("copy_",) or other is None:
            return
        result_dtype = rt_dtypes.op_result_type(base_op, target.dtype, dtype_of(other), dialect,
                                                ndim_of(target), ndim_of(other))
        try:
            rt_dtypes.inplace_dtype(target.dtype, result_dtype, op=base_op, dialect=dialect)
        except ShapeError as err:
            self.report_error(err, node, operands, label, dialect, None)

    def _apply_inplace(self, name, dialect, target, args, kwargs, node, operands, label):
        return self.apply(name, dialect, (array_arg(target),) + tuple(args), {
            k: a for k, a in ((k, self.to_arg(v)) for k, v in (kwargs or {}).items())
            if a is not FAIL}, node, operands, label)
