"""Expressions: names, literals, operators, attributes and subscripts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import libcst as cst
import numpy as np

from ...runtime import dtypes as rt_dtypes
from ...runtime.dims import UNKNOWN, Dim, add, eq, floordiv, format_shape, mul, numel, sub, sym
from ...runtime.members import TENSOR_MEMBERS
from ...runtime.optable import RESULT_FIELDS
from ...runtime.rules import indexing as rt_indexing
from ...runtime.rules.broadcast import broadcast_shapes
from ...runtime.verdicts import Result, ShapeError
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    BoundMethod,
    ClassValue,
    ConstValue,
    DictValue,
    DtypeValue,
    FloatValue,
    FunctionValue,
    GeneratorValue,
    InstanceValue,
    IntValue,
    LayerValue,
    ModuleRef,
    Origin,
    TupleValue,
    Value,
    dims_of,
    join_values,
    shape_value,
    vague,
)
from .context import Step
from .effects import METADATA, PARAMETER_VIEWS
from .env import (
    ArgParserMethod,
    DictGet,
    DictView,
    SuperValue,
    ArgParserValue,
    ArrayMethod,
    GeneratorMethod,
    Iterable,
    ModuleMethod,
    NamespaceValue,
    OptimizerMethod,
    OptimizerValue,
    PartialValue,
    Scope,
)
from .modules import LAYER_BUFFERS
from .names import BINOPS, BUILTINS, COMPARE, DUNDER
from .operands import FAIL, dtype_of, index_arg, ndim_of, rule_index_items


def _module_attribute(base: ModuleRef, name: str) -> Value:
    qual = f"{base.qualname}.{name}"
    if qual in ("numpy.newaxis",):
        return ConstValue(None)
    if name in ("pi", "e", "inf", "nan", "euler_gamma", "tau") and base.qualname in (
            "numpy", "torch", "math"):
        return FloatValue()
    return ModuleRef(qual)


@dataclass(frozen=True)
class _EachItem:
    """A comprehension's element for each of its known items, in order."""

    values: tuple


class LooseSlice:
    """A slice whose bounds or step the analysis does not know: its axis stays, sized unknown."""


def _has_new_axis(items: Any) -> bool:
    if items is None:
        return True
    if isinstance(items, tuple):
        return any(i is None for i in items)
    return False


def _is_none_test(left: Value, right: Value, negated: bool) -> Value:
    """``x is None`` / ``x is not None`` when x is surely None or surely an array;
    ``block_type is NextConvBlock`` when both are classes or functions of the code."""
    if isinstance(left, (ClassValue, FunctionValue)) and isinstance(right, (ClassValue, FunctionValue)):
        return ConstValue((left.node is right.node) != negated)
    if right != ConstValue(None):
        left, right = right, left
    if right != ConstValue(None):
        return UNKNOWN_VALUE
    if left == ConstValue(None):
        return ConstValue(not negated)
    if isinstance(left, AbstractArray) and not left.maybe_not_array or _never_none(left):
        return ConstValue(negated)
    return UNKNOWN_VALUE


def _never_none(value: Value) -> bool:
    """A value that is certainly not None: a class, function, module or layer, a known int,
    a container, a constant other than None (``norm_layer=nn.BatchNorm2d`` left to its
    default). An int symbol may stand for a config field that is None: not certain."""
    if isinstance(value, IntValue):
        return isinstance(value.value, int)
    if isinstance(value, ConstValue):
        return value.value is not None
    return isinstance(value, (ModuleRef, LayerValue, InstanceValue, ClassValue, FunctionValue,
                              PartialValue, TupleValue, DictValue, BoundMethod))


def _is_number(value: Value) -> bool:
    return isinstance(value, (IntValue, FloatValue)) or isinstance(value, ConstValue) and \
        type(value.value) in (int, float)


def _known_number(value: Value) -> int | float | None:
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return value.value
    if isinstance(value, ConstValue) and type(value.value) in (int, float):
        return value.value
    return None


_FLOAT_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
              "div": lambda a, b: a / b, "floor_divide": lambda a, b: a // b,
              "remainder": lambda a, b: a % b, "pow": lambda a, b: a ** b}


def _float_arith(op: str, a, b) -> float | None:
    """Python's float arithmetic on two known numbers; None when either is unknown or the
    result is no finite float (a division by zero raises, which is not modelled)."""
    if a is None or b is None:
        return None
    try:
        out = _FLOAT_OPS[op](a, b)
    except (ArithmeticError, ValueError):
        return None
    return float(out) if isinstance(out, (int, float)) and abs(out) < 1e300 else None


def _integral_of(value: Value) -> Dim | None:
    """The int a number equals: an int, a float with an integer value, or an integral float."""
    if isinstance(value, IntValue) and value.value is not UNKNOWN:
        return value.value
    if isinstance(value, ConstValue) and type(value.value) is float and value.value.is_integer() \
            and abs(value.value) < 1e18:
        return int(value.value)
    if isinstance(value, FloatValue):
        return value.integral
    return None


def _integral_float(op: str, left: Value, right: Value) -> FloatValue:
    """A float from a size and a whole number: ``planes * 1.0`` equals ``planes``, and stays an
    exact size through ``int()``. Any other float arithmetic gives a float of unknown value."""
    a, b = _integral_of(left), _integral_of(right)
    if a is None or b is None:
        return FloatValue()
    if op in ("add", "sub", "mul"):
        return FloatValue(_int_arith(op, a, b).value)
    if op == "div" and b == 1:
        return FloatValue(a)
    return FloatValue()


def _int_arith(op: str, a: Dim, b: Dim) -> Value:
    if op == "add":
        return IntValue(add(a, b))
    if op == "sub":
        return IntValue(sub(a, b))
    if op == "mul":
        return IntValue(mul(a, b))
    if op == "floor_divide":
        return IntValue(floordiv(a, b))
    if isinstance(a, int) and isinstance(b, int):
        try:
            if op == "remainder" and b:
                return IntValue(a % b)
            if op == "pow" and 0 <= b <= 64:
                return IntValue(a ** b)
            if op == "lshift" and 0 <= b <= 64:
                return IntValue(a << b)
            if op == "rshift" and b >= 0:
                return IntValue(a >> b)
        except Exception:
            return IntValue(UNKNOWN)
        if op == "div":
            return ConstValue(a / b) if b else UNKNOWN_VALUE
    return IntValue(UNKNOWN) if op != "div" else FloatValue()  # int / int is a float


def _op_label(op: str) -> str:
    return {"add": "'+'", "sub": "'-'", "mul": "'*'", "div": "'/'", "floor_divide": "'//'",
            "remainder": "'%'", "pow": "'**'", "matmul": "'@'", "eq": "'=='", "ne": "'!='",
            "lt": "'<'", "le": "'<='", "gt": "'>'", "ge": "'>='"}.get(op, op)


_NDARRAY_MEMBERS = frozenset(dir(np.ndarray))


def _names_a_config(name: str) -> bool:
    """``config``, ``cfg``, ``args``, ``model_config``: a parameter named as a configuration
    object, whose fields are settings. (``parameters.table`` of a test's parameter set is an
    array, and nothing says otherwise but its name.)"""
    lowered = name.lower()
    return lowered in _CONFIG_NAMES or lowered.endswith(("config", "cfg", "conf"))


_CONFIG_NAMES = frozenset({"args", "opt", "opts", "options", "hparams", "hp", "settings"})


def _decorators(func: FunctionValue) -> set[str]:
    """The plain names a function is decorated with (staticmethod, classmethod...)."""
    if func.node is None:
        return set()
    return {d.decorator.value for d in func.node.decorators if isinstance(d.decorator, cst.Name)}


def _formatted(template: str, values: Value) -> Value:
    """``template % values`` of known values (printf-style formatting of a name)."""
    items = values.items if isinstance(values, TupleValue) and not values.is_list else (values,)
    plain = [_constant(item) for item in items]
    if any(p is None for p in plain):
        return UNKNOWN_VALUE
    try:
        return ConstValue(template % tuple(p[0] for p in plain))
    except (TypeError, ValueError, KeyError):
        return UNKNOWN_VALUE


def _known_truth(value: Value) -> bool | None:
    """``bool(value)`` when certain: None, a known number, string, list or dict; a class, a
    layer or a module (their truth is True)."""
    if isinstance(value, ConstValue) and (value.value is None or type(value.value) in (
            bool, int, float, str)):
        return bool(value.value)
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return bool(value.value)
    if isinstance(value, (TupleValue, DictValue)):
        return bool(value.items)
    if isinstance(value, (ClassValue, FunctionValue, ModuleRef, LayerValue)):
        return True
    return None


def _yields_bool(node: cst.BaseExpression) -> bool:
    """An expression whose value is a bool whatever its operands: ``not x``, a comparison."""
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not) or \
        isinstance(node, cst.Comparison)


def _constant(value: Value) -> tuple | None:
    """A known int, str, bool or None, in a 1-tuple (None is a constant too); else None."""
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return (value.value,)
    if isinstance(value, ConstValue) and (value.value is None or
                                          type(value.value) in (str, bool, int)):
        return (value.value,)
    return None


class Expressions:
    coverage = None  # a CoverageRecorder (analysis/coverage.py) when shape coverage is asked for

    def eval(self, node: cst.BaseExpression | None) -> Value:
        if node is None:
            return UNKNOWN_VALUE
        handler = getattr(self, "expr_" + type(node).__name__, None)
        if handler is None:
            return UNKNOWN_VALUE
        value = handler(node)
        if self.coverage is not None and isinstance(value, AbstractArray):
            self.coverage.record(node, value)
        return value

    def expr_Name(self, node: cst.Name) -> Value:
        name = node.value
        value = self.frame.scope.lookup(name)
        if value is not None:
            if isinstance(value, AbstractArray) and value.alias is not None:
                self.note_read(value, name, node)
            return value
        if name == "None":
            return ConstValue(None)
        if name in ("True", "False"):
            return ConstValue(name == "True")
        if name in self.hints:
            return self.hint_value(name)
        if name in BUILTINS or name in ("float", "int", "bool", "complex"):
            return ModuleRef(f"builtins.{name}")
        return UNKNOWN_VALUE

    def hint_value(self, name: str) -> Value:
        from ...runtime.dims import parse_dim
        try:
            shape = tuple(parse_dim(t) for t in self.hints[name].split(",") if t.strip())
        except ValueError:
            return UNKNOWN_VALUE
        return AbstractArray(shape=shape, dtype=None, library=self.default_library or "numpy",
                             origin=Origin(0, "config"))

    def expr_Integer(self, node: cst.Integer) -> Value:
        try:
            return IntValue(int(node.value, 0))  # a Python int literal, as literal_eval reads it
        except Exception:
            return UNKNOWN_VALUE

    def expr_Float(self, node: cst.Float) -> Value:
        return ConstValue(float(node.evaluated_value))

    def expr_Imaginary(self, node: cst.Imaginary) -> Value:
        return ConstValue(complex(node.evaluated_value))

    def expr_SimpleString(self, node: cst.SimpleString) -> Value:
        try:
            return ConstValue(node.evaluated_value)
        except Exception:
            return UNKNOWN_VALUE

    def expr_ConcatenatedString(self, node: cst.ConcatenatedString) -> Value:
        return UNKNOWN_VALUE

    def expr_FormattedString(self, node: cst.FormattedString) -> Value:
        """``f"stage{i}"`` of known values is that string (a name setattr gives a layer)."""
        pieces: list[str] | None = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                value = self.eval(part.expression)
                plain = part.conversion is None and part.format_spec is None
                if isinstance(value, IntValue) and isinstance(value.value, int) and plain:
                    value = ConstValue(value.value)
                if pieces is not None and plain and isinstance(value, ConstValue) and \
                        type(value.value) in (str, int, bool):
                    pieces.append(str(value.value))
                else:
                    pieces = None
            elif pieces is not None:
                text = part.value
                pieces = None if "\\" in text or "{" in text or "}" in text else pieces + [text]
        return ConstValue("".join(pieces)) if pieces is not None else UNKNOWN_VALUE

    def expr_Ellipsis(self, node: cst.Ellipsis) -> Value:
        return ConstValue(Ellipsis)

    def expr_Tuple(self, node: cst.Tuple) -> Value:
        return self.sequence(node.elements, is_list=False)

    def expr_List(self, node: cst.List) -> Value:
        return self.sequence(node.elements, is_list=True)

    def sequence(self, elements, is_list: bool) -> Value:
        items = []
        starred = False
        for element in elements:
            value = self.eval(element.value)
            if isinstance(element, cst.StarredElement):
                if isinstance(value, TupleValue):
                    items.extend(value.items)
                else:
                    starred = True
            else:
                items.append(value)
        return UNKNOWN_VALUE if starred else TupleValue(tuple(items), is_list)

    def expr_Set(self, node: cst.Set) -> Value:
        for element in node.elements:
            self.eval(element.value)
        return UNKNOWN_VALUE

    def expr_Dict(self, node: cst.Dict) -> Value:
        items = []
        for element in node.elements:
            key = self.eval(element.key) if isinstance(element, cst.DictElement) else None
            value = self.eval(element.value)
            if isinstance(key, ConstValue) and isinstance(key.value, str):
                items.append((key.value, value))
        if len(items) != len(node.elements):
            return UNKNOWN_VALUE  # a computed key or a ** splat: what it holds is not known
        return DictValue(tuple(items))

    def expr_IfExp(self, node: cst.IfExp) -> Value:
        test = self.eval(node.test)
        if isinstance(test, ConstValue) and isinstance(test.value, bool):
            # s if i == 0 else 1 with i known: one side only (the other never runs)
            taken, skipped = (node.body, node.orelse) if test.value else (node.orelse, node.body)
            with self.suppressed():
                self.eval(skipped)
            return self.eval(taken)
        return join_values(self.eval(node.body), self.eval(node.orelse))

    def expr_Lambda(self, node: cst.Lambda) -> Value:
        return UNKNOWN_VALUE

    def expr_Await(self, node: cst.Await) -> Value:
        self.eval(node.expression)
        return UNKNOWN_VALUE

    def expr_Yield(self, node: cst.Yield) -> Value:
        self.frame.is_generator = True
        if isinstance(node.value, cst.BaseExpression):
            self.eval(node.value)
        elif node.value is not None:
            self.eval(node.value.item)
        return UNKNOWN_VALUE

    def expr_NamedExpr(self, node: cst.NamedExpr) -> Value:
        value = self.eval(node.value)
        self.assign(node.target, value, node)
        return value

    def expr_StarredElement(self, node) -> Value:
        self.eval(node.value)
        return UNKNOWN_VALUE

    def comprehension(self, node, parts: list) -> Value:
        """Evaluate a comprehension's element once with its targets bound to one item; a list
        or generator of one ``for`` over known items, once per item (``_EachItem``)."""
        saved = self.frame.scope
        scope = Scope(saved, "function")
        self.frame.scope = scope
        try:
            clause = node.for_in
            iterated = self.eval(clause.iter)
            items = self.items_of(iterated)
            if isinstance(node, (cst.ListComp, cst.GeneratorExp)) and clause.inner_for_in is None \
                    and not clause.ifs and items and self.may_unroll(len(items)):
                values = []
                for item in items:
                    self.assign(clause.target, item, clause.iter)
                    values.append(self.eval(parts[0]))
                return _EachItem(tuple(values))
            while clause is not None:
                element = self.element_of(iterated)
                self.assign(clause.target, element, clause.iter)
                for cond in clause.ifs:
                    self.eval(cond.test)
                clause = clause.inner_for_in
                if clause is not None:
                    iterated = self.eval(clause.iter)
            values = [self.eval(part) for part in parts]
        finally:
            self.frame.scope = saved
        return values[0] if values else UNKNOWN_VALUE

    def expr_ListComp(self, node: cst.ListComp) -> Value:
        value = self.comprehension(node, [node.elt])
        if isinstance(value, _EachItem):
            return TupleValue(value.values, True)  # that list, item by item
        return Iterable(value)

    def expr_GeneratorExp(self, node: cst.GeneratorExp) -> Value:
        value = self.comprehension(node, [node.elt])
        if isinstance(value, _EachItem):
            return Iterable(self.element_of(TupleValue(value.values)), value.values)
        return Iterable(value)

    def expr_SetComp(self, node: cst.SetComp) -> Value:
        return Iterable(self.comprehension(node, [node.elt]))

    def expr_DictComp(self, node: cst.DictComp) -> Value:
        self.comprehension(node, [node.key, node.value])
        return UNKNOWN_VALUE

    def expr_BooleanOperation(self, node: cst.BooleanOperation) -> Value:
        left = self.eval(node.left)
        is_and = isinstance(node.operator, cst.And)
        if isinstance(left, ConstValue) and isinstance(left.value, bool) and left.value != is_and:
            with self.suppressed():  # short-circuited: the right side never runs
                self.eval(node.right)
            return left
        right = self.eval(node.right)
        if isinstance(left, ConstValue) and isinstance(right, ConstValue) and \
                isinstance(left.value, bool) and isinstance(right.value, bool):
            return ConstValue(left.value and right.value if is_and else left.value or right.value)
        truth = _known_truth(left)
        if truth is not None:
            # out_chs or in_chs: Python's value, the left one when it decides, else the right
            return left if truth != is_and else right
        if isinstance(right, ConstValue) and isinstance(right.value, bool) and \
                right.value != is_and and _yields_bool(node.left):
            # not self.training or self.track_running_stats (True): True whatever the left is
            return ConstValue(right.value)
        return join_values(left, right) if isinstance(left, AbstractArray) else UNKNOWN_VALUE

    def expr_UnaryOperation(self, node: cst.UnaryOperation) -> Value:
        value = self.eval(node.expression)
        if isinstance(value, IntValue):
            if isinstance(node.operator, cst.Minus):
                return IntValue(mul(value.value, -1))
            if isinstance(node.operator, cst.Plus):
                return value
            return UNKNOWN_VALUE
        if isinstance(value, ConstValue) and isinstance(value.value, (int, float)) and not isinstance(
                value.value, bool) and isinstance(node.operator, cst.Minus):
            return ConstValue(-value.value)
        if isinstance(node.operator, cst.Not) and isinstance(value, ConstValue) and \
                isinstance(value.value, bool):
            return ConstValue(not value.value)
        if isinstance(value, AbstractArray):
            if isinstance(node.operator, cst.Not):
                return UNKNOWN_VALUE
            name = {cst.Minus: "__neg__", cst.Plus: "__pos__", cst.BitInvert: "__invert__"}.get(
                type(node.operator))
            result = self.method_op(node, value, name, [], {}, keep_provenance=True)
            return self.fresh(result, node, "result", operands=(value,))
        return UNKNOWN_VALUE

    def expr_BinaryOperation(self, node: cst.BinaryOperation) -> Value:
        left = self.eval(node.left)
        right = self.eval(node.right)
        op = BINOPS.get(type(node.operator))
        if op is None:
            return UNKNOWN_VALUE
        return self.binary(node, op, left, right, node.left, node.right)

    def expr_Comparison(self, node: cst.Comparison) -> Value:
        left = self.eval(node.left)
        result: Value = UNKNOWN_VALUE
        left_node = node.left
        for target in node.comparisons:
            right = self.eval(target.comparator)
            op = COMPARE.get(type(target.operator))
            if op is not None and len(node.comparisons) == 1 and (
                    isinstance(left, AbstractArray) or isinstance(right, AbstractArray)):
                result = self.binary(node, op, left, right, left_node, target.comparator)
            elif op in ("eq", "ne", "lt", "le", "gt", "ge") and len(node.comparisons) == 1 and \
                    _known_number(left) is not None and _known_number(right) is not None:
                x, y = _known_number(left), _known_number(right)
                result = ConstValue({"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y,
                                     "gt": x > y, "ge": x >= y}[op])
            elif op in ("eq", "ne") and len(node.comparisons) == 1 and \
                    _constant(left) is not None and _constant(right) is not None:
                # v == "M" over a list of sizes and "M"s (a VGG config): decided per item.
                same = _constant(left)[0] == _constant(right)[0]
                result = ConstValue(same if op == "eq" else not same)
            elif isinstance(target.operator, (cst.Is, cst.IsNot)) and len(node.comparisons) == 1:
                result = _is_none_test(left, right, isinstance(target.operator, cst.IsNot))
            left, left_node = right, target.comparator
        return result

    def expr_Attribute(self, node: cst.Attribute) -> Value:
        if node.attr.value in METADATA and isinstance(node.value, cst.Name):
            # x.shape reads no element: not a read of x's values (for stale snapshots).
            self.metadata_read = True
            try:
                base = self.eval(node.value)
            finally:
                self.metadata_read = False
            return self.attribute(node, base, node.attr.value)
        base = self.eval(node.value)
        return self.attribute(node, base, node.attr.value)

    def attribute(self, node: cst.CSTNode, base: Value, name: str) -> Value:
        if isinstance(base, ModuleRef):
            return _module_attribute(base, name)
        if isinstance(base, AbstractArray):
            return self.array_attribute(node, base, name)
        if isinstance(base, InstanceValue):
            if name in base.attrs:
                value = base.attrs[name]
                if isinstance(value, TupleValue) and value.is_list and not value.items:
                    # self.f_maps = [] in __init__, filled by other methods: not empty here.
                    return UNKNOWN_VALUE
                return value
            if base.cls.is_nn_module and name in PARAMETER_VIEWS and name not in base.cls.members:
                return ModuleMethod(base, name)
            member = base.cls.members.get(name)
            if isinstance(member, FunctionValue):
                decorators = _decorators(member)
                if "staticmethod" in decorators:
                    return member  # self.depthwise_conv(i, o, 3): no self
                return BoundMethod(member, base.cls if "classmethod" in decorators else base)
            if member is None and base.cls.layer_base is not None:
                return self.inherited_layer_attribute(node, base, name)
            view = self.container_view(base, name) if member is None else None
            if view is not None:
                return view
            return member if member is not None else UNKNOWN_VALUE
        if isinstance(base, ClassValue):
            member = base.members.get(name, UNKNOWN_VALUE)
            if isinstance(member, FunctionValue) and "classmethod" in _decorators(member):
                return BoundMethod(member, base)  # Weights.verify(w): cls is the class
            return member
        if isinstance(base, SuperValue):
            return self.super_attribute(base, name)
        if isinstance(base, GeneratorValue):
            return GeneratorMethod(name)
        if isinstance(base, OptimizerValue):
            return OptimizerMethod(base, name)
        if isinstance(base, ArgParserValue):
            return ArgParserMethod(base, name)
        if isinstance(base, NamespaceValue):
            return dict(base.fields).get(name, UNKNOWN_VALUE)
        if isinstance(base, DictValue) and name == "get":
            return DictGet(base)
        if isinstance(base, DictValue) and name in ("items", "values", "keys", "pop"):
            return DictView(base, name)
        if isinstance(base, LayerValue) and base.kind == "Sequential" and name in base.names:
            return self.sequential_child(base, name)
        if isinstance(base, LayerValue) and (name in ("weight", "bias") or name in LAYER_BUFFERS):
            return self.layer_parameter(node, base, name)
        if isinstance(base, LayerValue) and name in PARAMETER_VIEWS:
            return ModuleMethod(base, name)
        if isinstance(base, LayerValue):
            return self.layer_attribute(base, name)
        if isinstance(base, TupleValue) and name in RESULT_FIELDS and \
                len(base.items) == RESULT_FIELDS[name][1]:  # a named tuple: x.max(1).values
            return base.items[RESULT_FIELDS[name][0]]
        return UNKNOWN_VALUE

    def array_attribute(self, node: cst.CSTNode, array: AbstractArray, name: str) -> Value:
        if name == "shape":
            return shape_value(array.shape) if array.shape is not None else UNKNOWN_VALUE
        if name == "ndim":
            return IntValue(len(array.shape)) if array.shape is not None and \
                not array.assumed_rank else IntValue(UNKNOWN)
        if name == "size" and array.library == "numpy":
            return IntValue(numel(array.shape)) if array.shape is not None else IntValue(UNKNOWN)
        if name == "dtype":
            return DtypeValue(array.dtype)
        if name in ("T", "mT"):
            value = self.method_op(node, array, name, [], {})
            spec = self.lookup(name, self.dialect_for(array.library))
            if spec is None:
                return self.as_view(value, array, "view")
            return self.by_view_kind(node, spec, array, [], {}, value, name)
        if name in ("H", "mH"):
            return self.method_op(node, array, name, [], {})
        if name in ("real", "data") and (name == "data") == (array.library == "torch"):
            value = array.derived(array.shape, array.origin, tail=array.tail)
            return self.detached(value, array, through_data=True) if name == "data" else \
                self.as_view(value, array, "view")
        if name == "grad":
            return self.grad_of(node, array)
        if name in ("real", "imag", "data"):
            return array.derived(array.shape, array.origin, tail=array.tail)
        if name in ("device", "flags", "strides", "itemsize", "nbytes", "is_cuda", "layout"):
            return UNKNOWN_VALUE
        setting = self.setting_of(array, name)
        if setting is not None:
            return setting
        return ArrayMethod(array, name)

    def setting_of(self, array: AbstractArray, name: str) -> Value | None:
        """``config.n_embd`` of a parameter nothing is known of, where no array has ``n_embd``:
        the parameter is a config object, and its field an int named after it (the same
        symbol wherever a function reads it from a parameter of that name). A field that is
        no int is only ever compared, called or printed, which an int symbol survives."""
        alias = array.alias
        if not (array.maybe_not_array and array.shape is None and alias.view == "base"
                and alias.storage.param is not None and not name.startswith("_")
                and _names_a_config(alias.storage.name)
                and name not in _NDARRAY_MEMBERS and name not in TENSOR_MEMBERS
                and not self.is_array_op(name)):
            return None
        return IntValue(sym(f"{alias.storage.name}.{name}"))

    def expr_Subscript(self, node: cst.Subscript) -> Value:
        base = self.eval(node.value)
        if isinstance(base, AbstractArray) and base.shape is None:
            base = self.assume_indexed_rank(node, base) or base
        if isinstance(base, AbstractArray):
            self.loose_items = None
            items = self.index_items(node)
            if items is None and base.shape is not None:
                loose = self.loose_index(node, base)
                if loose is not None:
                    return self.track_index(node, base, None, loose)
            if items is None or base.shape is None:
                unknown = base.derived(None, self.origin(node), dtype=base.dtype)
                value = self.track_index(node, base, items, unknown)
                if isinstance(value, AbstractArray) and value.alias is None and \
                        base.maybe_not_array:
                    # config[key], layers[name]: of a parameter nothing is known of, the item
                    # is no more certainly an array than the parameter is.
                    return self.fresh(value, node, "item", operands=(base,))
                return value
            dialect = self.dialect_for(base.library)
            rule_items = rule_index_items(items)
            if rule_items is None:
                return base.derived(None, self.origin(node), dtype=base.dtype)
            result = self.run_rule(lambda: rt_indexing.index(tuple(base.shape), rule_items,
                                                             dialect=dialect),
                                   node, [(base, node.value)], "index",
                                   dialect, None, op_name="__getitem__")
            explicit = _has_new_axis(items)
            value = self.array_result(result, base, node, dtype=base.dtype, explicit_axis=explicit)
            return self.track_index(node, base, items, value)
        if isinstance(base, TupleValue):
            return self.tuple_index(node, base)
        if isinstance(base, LayerValue) and base.kind == "Sequential" and base.repeated is None:
            return self.sequential_index(node, base)
        if isinstance(base, Iterable) and base.items is not None:
            return self.tuple_index(node, TupleValue(base.items))
        if isinstance(base, Iterable) and isinstance(base.element, AbstractArray) and \
                len(node.slice) == 1:
            item = self.index_items(node)
            if isinstance(item, int) and not isinstance(item, bool):
                return base.element  # outs[-1]: one of the arrays appended
            if isinstance(item, slice):
                return base  # outs[1:]: a list of them again
            return UNKNOWN_VALUE
        self.index_items(node)
        if isinstance(base, DictValue) and len(node.slice) == 1 and \
                isinstance(node.slice[0].slice, cst.Index):
            key = self.eval(node.slice[0].slice.value)
            if isinstance(key, ConstValue) and isinstance(key.value, str):
                found = base.get(key.value)
                return UNKNOWN_VALUE if found is None else found
        return UNKNOWN_VALUE

    def tuple_index(self, node: cst.Subscript, base: TupleValue) -> Value:
        if len(node.slice) != 1:
            return UNKNOWN_VALUE
        element = node.slice[0].slice
        if isinstance(element, cst.Index):
            index = self.eval(element.value)
            if isinstance(index, IntValue) and isinstance(index.value, int):
                k = index.value
                if -len(base.items) <= k < len(base.items):
                    return base.items[k]
                if self.trace is not None and not base.is_list and base.items and all(
                        isinstance(i, AbstractArray) for i in base.items):
                    # An op's tuple of results has a certain length: the calculator says so.
                    self.trace.append(Step(self.text(node, 80), "__getitem__", (), ShapeError(
                        "index", "tuple index out of range", "IndexError")))
                if not base.is_list and all(isinstance(i, IntValue) for i in base.items) and \
                        isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" \
                        and not self.rank_assumed(node.value.value):
                    self.report("SC111", node,
                                f"index {k} is past the {len(base.items)} dims of "
                                f"{self.text(node.value)} = {format_shape(dims_of(base))}; "
                                f"python: tuple index out of range")
            return UNKNOWN_VALUE
        if isinstance(element, cst.Slice):
            bounds = [self.eval(b) if b is not None else ConstValue(None)
                      for b in (element.lower, element.upper, element.step)]
            plain = []
            for b in bounds:
                if isinstance(b, IntValue) and isinstance(b.value, int):
                    plain.append(b.value)
                elif isinstance(b, ConstValue) and b.value is None:
                    plain.append(None)
                else:
                    return UNKNOWN_VALUE
            return TupleValue(base.items[slice(*plain)], base.is_list)
        return UNKNOWN_VALUE

    def index_items(self, node: cst.Subscript) -> Any:
        """The index as the op table takes it (plain values, ArrayArg), or None if unknown."""
        items = self.index_parts(node)
        if any(item is FAIL or isinstance(item, LooseSlice) for item in items):
            self.loose_items = items
            return None
        if len(items) == 1 and not (isinstance(node.slice[0].comma, cst.Comma)):
            return items[0]
        return tuple(items)

    def index_parts(self, node: cst.Subscript) -> list:
        """Each index item: a value the op table takes, FAIL when unknown, or a LooseSlice
        for a slice whose bounds are not ints the analysis knows (``x[:, :n]``)."""
        items = []
        for element in node.slice:
            part = element.slice
            if isinstance(part, cst.Index):
                value = self.eval(part.value)
                if isinstance(value, (ModuleRef,)) and value.qualname == "numpy.newaxis":
                    value = ConstValue(None)
                items.append(index_arg(value))
                continue
            bounds = []
            for b in (part.lower, part.upper, part.step):
                value = self.eval(b) if b is not None else ConstValue(None)
                arg = self.to_arg(value)
                bounds.append(arg if arg is None or isinstance(arg, int) and
                              not isinstance(arg, bool) else FAIL)
            if any(bound is FAIL for bound in bounds):
                items.append(LooseSlice())
            else:
                items.append(slice(*bounds))
        return items

    def loose_index(self, node: cst.Subscript, base: AbstractArray) -> AbstractArray | None:
        """``x[:, :n]`` with n an int nobody knows: a slice keeps its axis, whatever its
        bounds, so the result's rank is known and only the sliced dims are not. The index is
        run twice, each unknown slice taken whole and then empty; dims that differ between
        the two answers are the slices' and unknown. None when another item is unknown."""
        items = getattr(self, "loose_items", None)
        if items is None or len(items) != len(node.slice) or any(item is FAIL for item in items):
            return None
        dialect = self.dialect_for(base.library)
        answers = []
        for stand_in in (slice(None), slice(0, 0)):
            key = [stand_in if isinstance(item, LooseSlice) else item for item in items]
            rule_items = rule_index_items(key[0] if len(key) == 1 and
                                          not isinstance(node.slice[0].comma, cst.Comma)
                                          else tuple(key))
            if rule_items is None:
                return None
            try:
                answers.append(rt_indexing.index(tuple(base.shape), rule_items,
                                                 dialect=dialect).shape)
            except Exception:
                return None  # an error of the other items is reported once their bounds are known
        whole, empty = answers
        if len(whole) != len(empty):
            return None
        shape = tuple(a if eq(a, b) is True else UNKNOWN for a, b in zip(whole, empty))
        return base.derived(shape, self.origin(node), dtype=base.dtype,
                            explicit_axis=_has_new_axis(tuple(items)))

    def binary(self, node: cst.CSTNode, op: str, left: Value, right: Value,
               left_node: cst.CSTNode, right_node: cst.CSTNode) -> Value:
        if op == "floor_divide" and any(isinstance(v, IntValue) for v in (left, right)) and \
                not all(isinstance(v, IntValue) for v in (left, right)) and all(
                isinstance(v, IntValue) or v is UNKNOWN_VALUE or vague(v)
                for v in (left, right)):
            # C // self.n_head: a size divided by something nothing is known of is an int.
            return IntValue(UNKNOWN)
        if isinstance(left, AbstractArray) or isinstance(right, AbstractArray):
            result = self.array_binary(node, op, left, right, left_node, right_node)
            result = self.fresh(result, node, "result", operands=(left, right))
            self.save_inputs(op, [left, right], result)
            return result
        if isinstance(left, IntValue) and isinstance(right, IntValue):
            if op in ("floor_divide", "remainder", "div") and right.value == 0 and \
                    isinstance(right.value, int):
                # ZeroDivisionError (a default of 0 that every caller replaces): nothing after
                # it runs, so nothing after it is checked.
                self.flow = "raise"
                return IntValue(UNKNOWN)
            return _int_arith(op, left.value, right.value)
        if _is_number(left) and _is_number(right) and any(
                isinstance(v, FloatValue) or isinstance(v, ConstValue) and type(v.value) is float
                for v in (left, right)) and \
                op in ("add", "sub", "mul", "div", "pow", "floor_divide", "remainder"):
            known = _float_arith(op, _known_number(left), _known_number(right))
            # float arithmetic gives a float: head_dim ** -0.5; known numbers give it exactly
            # (planes * (base_width / 64.0), a width multiplier).
            return ConstValue(known) if known is not None else _integral_float(op, left, right)
        if isinstance(left, TupleValue) and isinstance(right, TupleValue) and op == "add":
            return TupleValue(left.items + right.items, left.is_list)
        if op == "remainder" and isinstance(left, ConstValue) and isinstance(left.value, str):
            return _formatted(left.value, right)  # "denselayer%d" % (i + 1)
        if isinstance(left, TupleValue) and isinstance(right, IntValue) and op == "mul" and \
                isinstance(right.value, int):
            return TupleValue(left.items * right.value, left.is_list)
        if isinstance(left, ConstValue) and isinstance(right, ConstValue):
            return UNKNOWN_VALUE
        return UNKNOWN_VALUE

    def array_binary(self, node: cst.CSTNode, op: str, left: Value, right: Value,
                     left_node: cst.CSTNode, right_node: cst.CSTNode) -> Value:
        arrays = [v for v in (left, right) if isinstance(v, AbstractArray)]
        library = self.library_of(arrays)
        dialect = self.dialect_for(library)
        if any(isinstance(v, AbstractArray) and v.shape is None for v in (left, right)) or \
                self.to_arg(left) is FAIL or self.to_arg(right) is FAIL:
            return AbstractArray(None, None, library, self.origin(node))
        if op in COMPARE.values():
            name = f"__{op}__"
        else:
            name = f"__{DUNDER[op]}__"
        operands = [(left, left_node), (right, right_node)]
        args = (self.to_arg(left), self.to_arg(right))
        if not isinstance(left, AbstractArray):
            reflected = name.replace("__", "__r", 1)
            if self.lookup(reflected, dialect) is not None:
                name, args = reflected, (args[1], args[0])
        result = self.apply(name, dialect, args, {}, node, operands, _op_label(op))
        dtype = rt_dtypes.op_result_type(op, dtype_of(left), dtype_of(right), dialect,
                                         ndim_of(left), ndim_of(right),
                                         exponent=getattr(right, "value", None))
        if result is None:
            if self.lookup(name, dialect) is None and op != "matmul":
                result = self.broadcast_fallback(node, dialect, operands, _op_label(op))
            if result is None:
                return AbstractArray(None, dtype, library, self.origin(node))
        if op != "matmul" and len(arrays) == 2:
            self.check_implicit_outer(node, left, right, left_node, right_node, result)
            self.check_reduced_axis(node, left, right, left_node, right_node)
        keep = None
        if len(arrays) == 1:
            keep = arrays[0]
        out = self.array_result(result, arrays[0], node, dtype=dtype, library=library)
        if keep is not None and isinstance(out, AbstractArray) and op != "matmul":
            out = replace(out, reduced=keep.reduced, explicit_axis=keep.explicit_axis)
        return out

    def broadcast_fallback(self, node, dialect, operands, label) -> Result | None:
        """Without an op-table entry, an operator on arrays still broadcasts its operands."""
        shapes = [v.shape for v, _ in operands if isinstance(v, AbstractArray)]
        return self.run_rule(lambda: broadcast_shapes(*shapes, dialect=dialect), node, operands,
                             label, dialect, None, op_name=None)
