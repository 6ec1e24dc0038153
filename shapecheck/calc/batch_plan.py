"""Which expressions the vectorized core answers for a whole batch of shapes, and answering them.

A plan is the expression as a small tree of the families runtime/vectorized.py
covers: element-wise ops that broadcast (operators, comparisons and the
library's broadcasting functions), matmul batching, and sum/mean/prod over
literal axes. Anything else has no plan and every row goes to the scalar
eval. Plans are built per dialect, because the op table and the keywords
(axis/keepdims or dim/keepdim) are the dialect's own; torch-legacy has no
plan (its 1-D fallback warnings are the scalar rules' business).

A plan only says, row by row, whether the expression succeeds and its
result shape. Why a row fails (the dim, the library's message) is always
asked of the scalar eval, so a batch and a single eval cannot word it apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import numpy as np

from shapecheck.runtime import ops
from shapecheck.runtime.dialects import Dialect
from shapecheck.runtime.vectorized import (
    ShapeBatch,
    broadcast_verdicts,
    matmul_verdicts,
    reduce_verdicts,
)

from .expression import MODULE_PREFIXES

_BROADCAST_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide,
                        cst.Modulo, cst.Power)
_BROADCAST_FUNCTIONS = frozenset({
    "add", "subtract", "sub", "multiply", "mul", "divide", "div", "true_divide", "maximum",
    "minimum", "fmax", "fmin", "power", "pow", "hypot",
})
"""Two-array functions whose op-table rule is plain broadcasting (checked against the table too)."""
_REDUCTIONS = frozenset({"sum", "mean", "prod"})
_LIBRARY_PREFIX = {"numpy": "np", "torch": "torch"}


@dataclass(frozen=True)
class Column:
    name: str


@dataclass(frozen=True)
class Scalar:
    """A Python number: a 0-d operand."""


@dataclass(frozen=True)
class Broadcast:
    operands: tuple


@dataclass(frozen=True)
class MatMul:
    left: object
    right: object


@dataclass(frozen=True)
class Reduce:
    operand: object
    axes: tuple[int, ...] | None
    keepdims: bool
    scalar_axis: bool = False  # a 0-d operand takes axis 0 / -1 (reduce_verdicts)


class _NoPlan(Exception):
    """The expression leaves the families the vectorized core covers."""


def build_plan(module: cst.Module, names: frozenset[str] | set[str], dialect: Dialect):
    """The plan of a one-expression module under ``dialect``, or None when rows must go one by one."""
    if dialect.legacy and dialect.is_torch:
        return None
    if len(module.body) != 1 or not isinstance(module.body[0], cst.SimpleStatementLine):
        return None
    line = module.body[0]
    if len(line.body) != 1 or not isinstance(line.body[0], cst.Expr):
        return None
    try:
        plan = _Planner(frozenset(names), dialect).node(line.body[0].value)
    except _NoPlan:
        return None
    return plan if _has_column(plan) else None


def _has_column(plan) -> bool:
    if isinstance(plan, Column):
        return True
    if isinstance(plan, Broadcast):
        return any(_has_column(p) for p in plan.operands)
    if isinstance(plan, MatMul):
        return _has_column(plan.left) or _has_column(plan.right)
    if isinstance(plan, Reduce):
        return _has_column(plan.operand)
    return False


def _literal_int(node: cst.BaseExpression) -> int:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value, 0)
    raise _NoPlan


class _Planner:
    def __init__(self, names: frozenset[str], dialect: Dialect):
        self.names = names
        self.dialect = dialect

    def node(self, node: cst.BaseExpression):
        if isinstance(node, cst.Name):
            if node.value in self.names:
                return Column(node.value)
            raise _NoPlan
        if isinstance(node, (cst.Integer, cst.Float)):
            return Scalar()
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            operand = self.node(node.expression)
            return operand
        if isinstance(node, cst.BinaryOperation):
            left, right = self.node(node.left), self.node(node.right)
            if isinstance(node.operator, cst.MatrixMultiply):
                return self.matmul(left, right)
            if isinstance(node.operator, _BROADCAST_OPERATORS):
                return Broadcast((left, right))
            raise _NoPlan
        if isinstance(node, cst.Comparison):
            if len(node.comparisons) != 1:
                raise _NoPlan  # a chained comparison asks for an array's truth value
            return Broadcast((self.node(node.left), self.node(node.comparisons[0].comparator)))
        if isinstance(node, cst.Call):
            return self.call(node)
        raise _NoPlan

    def matmul(self, left, right) -> MatMul:
        if isinstance(left, Scalar) or isinstance(right, Scalar):
            raise _NoPlan
        return MatMul(left, right)

    def function_name(self, func: cst.BaseExpression) -> str | None:
        """``np.add`` / ``torch.add`` -> "add"; None for anything else."""
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value in MODULE_PREFIXES and func.value.value != "F":
            return func.attr.value
        return None

    def in_table(self, name: str) -> ops.OpSpec | None:
        return ops.lookup(f"{_LIBRARY_PREFIX[self.dialect.library]}.{name}", self.dialect)

    def call(self, node: cst.Call):
        if any(arg.star for arg in node.args):
            raise _NoPlan
        positional = [a.value for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        name = self.function_name(node.func)
        if name is not None:
            spec = self.in_table(name)
            if spec is None:
                raise _NoPlan
            if name in _BROADCAST_FUNCTIONS and spec.broadcasts and len(positional) == 2 \
                    and not keywords:
                operands = tuple(self.node(p) for p in positional)
                if any(isinstance(o, Scalar) for o in operands):
                    raise _NoPlan  # torch.maximum and friends take tensors only
                return Broadcast(operands)
            if name == "matmul" and len(positional) == 2 and not keywords:
                return self.matmul(self.node(positional[0]), self.node(positional[1]))
            if name in _REDUCTIONS and positional:
                return self.reduction(name, self.node(positional[0]), positional[1:], keywords)
            raise _NoPlan
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _REDUCTIONS:
            if ops.lookup(node.func.attr.value, self.dialect) is None:
                raise _NoPlan
            return self.reduction(node.func.attr.value, self.node(node.func.value), positional,
                                  keywords)
        raise _NoPlan

    def reduction(self, name: str, operand, positional: list, keywords: dict) -> Reduce:
        if isinstance(operand, Scalar):
            raise _NoPlan
        axis_word, keep_word = ("dim", "keepdim") if self.dialect.is_torch else ("axis", "keepdims")
        if set(keywords) - {axis_word, keep_word} or len(positional) > 1 or \
                (positional and axis_word in keywords):
            raise _NoPlan
        axis_node = positional[0] if positional else keywords.get(axis_word)
        keep_node = keywords.get(keep_word)
        keepdims = False
        if keep_node is not None:
            if not isinstance(keep_node, cst.Name) or keep_node.value not in ("True", "False"):
                raise _NoPlan
            keepdims = keep_node.value == "True"
        if axis_node is None or (isinstance(axis_node, cst.Name) and axis_node.value == "None"):
            if self.dialect.is_torch and axis_node is not None:
                raise _NoPlan  # torch.sum(x, dim=None) is a version-dependent spelling
            if self.dialect.is_torch and keep_node is not None:
                raise _NoPlan  # torch.sum(x, keepdim=True) without a dim is no overload
            return Reduce(operand, None, keepdims)
        if isinstance(axis_node, cst.Tuple):
            axes = tuple(_literal_int(e.value) for e in axis_node.elements)
            if not axes or (name == "prod" and self.dialect.is_torch):
                raise _NoPlan  # torch.prod takes one dim; an empty tuple means "all" or "none"
            return Reduce(operand, axes, keepdims)
        # torch wraps a 0-d tensor's dim; NumPy's ufunc reductions accept axis 0 of a 0-d array.
        scalar_axis = self.dialect.is_torch or name in ("sum", "prod")
        return Reduce(operand, (_literal_int(axis_node),), keepdims, scalar_axis)


def evaluate_plan(plan, columns: dict[str, ShapeBatch], rows: int,
                  dialect: Dialect) -> tuple[np.ndarray, ShapeBatch]:
    """Every row at once: (ok, result shapes); a failing row's result is all -1."""
    if isinstance(plan, Column):
        return np.ones(rows, dtype=bool), columns[plan.name]
    if isinstance(plan, Scalar):
        return np.ones(rows, dtype=bool), ShapeBatch(np.empty((rows, 0), dtype=np.int16))
    if isinstance(plan, Broadcast):
        ok, acc = evaluate_plan(plan.operands[0], columns, rows, dialect)
        for operand in plan.operands[1:]:
            operand_ok, shapes = evaluate_plan(operand, columns, rows, dialect)
            # Broadcasting shapes is the same in every dialect a plan exists for.
            verdicts = broadcast_verdicts(acc, shapes, "numpy")
            ok = ok & operand_ok & verdicts.broadcastable
            acc = verdicts.result
        return ok, acc
    if isinstance(plan, MatMul):
        left_ok, left = evaluate_plan(plan.left, columns, rows, dialect)
        right_ok, right = evaluate_plan(plan.right, columns, rows, dialect)
        ok, result = matmul_verdicts(left, right)
        return left_ok & right_ok & ok, result
    if isinstance(plan, Reduce):
        operand_ok, shapes = evaluate_plan(plan.operand, columns, rows, dialect)
        ok, result = reduce_verdicts(shapes, plan.axes, plan.keepdims, plan.scalar_axis)
        return operand_ok & ok, result
    raise TypeError(f"not a plan node: {plan!r}")
