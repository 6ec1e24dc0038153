"""Expressions: names, literals, operators, attributes and subscripts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from ...runtime import dtypes as rt_dtypes
from ...runtime.dims import (
    UNKNOWN,
    both,
    either,
    eq,
    format_shape,
    is_known,
    le,
    mul,
    sub,
)
from ...runtime.rules import indexing as rt_indexing
from ...runtime.rules.broadcast import broadcast_shapes
from ...runtime.verdicts import Result, ShapeError
from ..values import (
    UNKNOWN_BOOL,
    UNKNOWN_VALUE,
    AbstractArray,
    ClassValue,
    ConstValue,
    DictValue,
    FloatValue,
    IntValue,
    Iterable,
    KnownTruth,
    LayerValue,
    ModuleRef,
    Origin,
    PartialDict,
    SetValue,
    TupleValue,
    Value,
    dims_of,
    is_bool,
    join_values,
    truth,
    vague,
)
from .conditions import compare, conjunction, identity, membership
from .context import Step
from .env import (
    Scope,
    join_refinements,
)
from .names import BINOPS, BUILTINS, COMPARE, DUNDER
from .operands import FAIL, dtype_of, index_arg, ndim_of, rule_index_items
from .python_values import (
    float_arith,
    formatted,
    int_arith,
    integral_float,
    is_number,
    known_number,
)


@dataclass(frozen=True)
class _EachItem:
    """A comprehension's element for each of its known items, in order."""

    values: tuple


class LooseSlice:
    """A slice whose bounds or step the analysis does not know as ints: its axis stays, sized
    unknown unless its bounds are sizes that surely lie within the axis (``x[:, :H]`` of an
    axis of H, or of H plus a padding)."""

    def __init__(self, start: Any = FAIL, stop: Any = FAIL, step: Any = FAIL) -> None:
        self.start, self.stop, self.step = start, stop, step

    def length(self, size: Any) -> Any:
        """The slice's length along an axis of ``size``, or UNKNOWN."""
        if self.step not in (None, 1) or FAIL in (self.start, self.stop):
            return UNKNOWN
        start = 0 if self.start is None else self.start
        stop = size if self.stop is None else self.stop
        if le(0, start) is not True or le(start, stop) is not True or le(stop, size) is not True:
            return UNKNOWN
        return sub(stop, start)


def _has_new_axis(items: Any) -> bool:
    if items is None:
        return True
    if isinstance(items, tuple):
        return any(i is None for i in items)
    return False


def _op_label(op: str) -> str:
    return {"add": "'+'", "sub": "'-'", "mul": "'*'", "div": "'/'", "floor_divide": "'//'",
            "remainder": "'%'", "pow": "'**'", "matmul": "'@'", "eq": "'=='", "ne": "'!='",
            "lt": "'<'", "le": "'<='", "gt": "'>'", "ge": "'>='"}.get(op, op)


class Expressions:
    coverage = None  # a CoverageRecorder (analysis/coverage.py, or reveal.py's) when asked for

    def eval(self, node: cst.BaseExpression | None) -> Value:
        if node is None:
            return UNKNOWN_VALUE
        handler = getattr(self, "expr_" + type(node).__name__, None)
        if handler is None:
            return UNKNOWN_VALUE
        value = handler(node)
        if self.coverage is not None:
            if isinstance(value, AbstractArray):
                self.coverage.record(node, value)
            else:
                self.coverage.record_other(node, value)
        return value

    def expr_Name(self, node: cst.Name) -> Value:
        name = node.value
        value = self.frame.scope.lookup(name)
        if value is not None:
            if isinstance(value, AbstractArray) and value.alias is not None:
                self.note_read(value, name, node)
            elif isinstance(value, TupleValue):
                for item in value.items:  # rows = list(t): reading rows reads the views of t
                    if isinstance(item, AbstractArray) and item.alias is not None:
                        self.note_snapshot_read(item.alias, name, node)
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
        items = [self.eval(element.value) for element in node.elements]
        if any(isinstance(element, cst.StarredElement) for element in node.elements):
            return UNKNOWN_VALUE
        return SetValue(tuple(items))

    def expr_Dict(self, node: cst.Dict) -> Value:
        items: dict = {}
        maybe: dict = {}
        known = True
        for element in node.elements:
            key = self.eval(element.key) if isinstance(element, cst.DictElement) else None
            value = self.eval(element.value)
            if isinstance(element, cst.StarredDictElement) and \
                    isinstance(value, (DictValue, PartialDict)):
                # {**dd, **(conv_kwargs or {})}: the keys of dicts the analysis holds.
                for name, item in value.items:
                    items[name] = item
                    maybe.pop(name, None)
                for name, item in getattr(value, "maybe", ()):
                    if name in items:  # there already: this value or the one before
                        items[name] = join_values(items[name], item)
                    else:
                        maybe[name] = item
            elif isinstance(key, ConstValue) and isinstance(key.value, str):
                items[key.value] = value
                maybe.pop(key.value, None)
            else:
                known = False  # a computed key or a splat of another object: not known
        if not known:
            return UNKNOWN_VALUE
        if maybe:
            return PartialDict(tuple(items.items()), tuple(maybe.items()))
        return DictValue(tuple(items.items()))

    def expr_IfExp(self, node: cst.IfExp) -> Value:
        decided = truth(self.eval(node.test))
        if decided is not None:  # ``a + b if self.use_residual else b``: one side never runs
            return self.eval(node.body if decided else node.orelse)
        before = self.frame.refinements
        sides, refinements = [], []
        for side in (node.body, node.orelse):
            self.frame.refinements = dict(before)
            sides.append(self.eval(side))
            refinements.append(self.frame.refinements)
        self.frame.refinements = join_refinements(before, refinements)
        return join_values(*sides)

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
            if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)) and \
                    clause.inner_for_in is None \
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
        value = self.comprehension(node, [node.elt])
        if isinstance(value, _EachItem):
            return SetValue(value.values)  # {m for n, m in _NORM_ACT_MAP.items()}: what ``in`` asks
        return Iterable(value)

    def expr_DictComp(self, node: cst.DictComp) -> Value:
        self.comprehension(node, [node.key, node.value])
        return UNKNOWN_VALUE

    def expr_BooleanOperation(self, node: cst.BooleanOperation) -> Value:
        left = self.eval(node.left)
        is_and = isinstance(node.operator, cst.And)
        decided = truth(left)
        if decided is not None:
            # ``False and x`` is the left side, and x never runs; ``True and x`` is x.
            return left if decided != is_and else self.eval(node.right)
        right = self.eval(node.right)
        if is_bool(left) and is_bool(right):
            verdict = (both if is_and else either)(decided, truth(right))
            return ConstValue(verdict) if verdict is not None else UNKNOWN_BOOL
        if isinstance(left, AbstractArray):
            return join_values(left, right)
        if (is_bool(right) or isinstance(right, KnownTruth)) and truth(right) is (not is_and):
            # A condition the right side decides: ``self.training and self.drop > 0`` with
            # the drop 0 is false whatever self.training is (but not surely the bool False).
            return KnownTruth(not is_and)
        return UNKNOWN_VALUE

    def expr_UnaryOperation(self, node: cst.UnaryOperation) -> Value:
        value = self.eval(node.expression)
        if isinstance(node.operator, cst.Not):
            decided = truth(value)
            return ConstValue(not decided) if decided is not None else UNKNOWN_BOOL
        if isinstance(value, IntValue):
            if isinstance(node.operator, cst.Minus):
                return IntValue(mul(value.value, -1))
            if isinstance(node.operator, cst.Plus):
                return value
            return UNKNOWN_VALUE
        if isinstance(value, ConstValue) and isinstance(value.value, (int, float)) and not isinstance(
                value.value, bool) and isinstance(node.operator, cst.Minus):
            return ConstValue(-value.value)
        if isinstance(value, AbstractArray):
            name = {cst.Minus: "__neg__", cst.Plus: "__pos__", cst.BitInvert: "__invert__"}.get(
                type(node.operator))
            result = self.method_op(node, value, name, [], {}, keep_provenance=True)
            return self.fresh(result, node, "result", operands=(value,))
        return UNKNOWN_VALUE

    def expr_BinaryOperation(self, node: cst.BinaryOperation) -> Value:
        left = self.eval(node.left)
        right = self.eval(node.right)
        if isinstance(node.operator, cst.BitOr) and all(
                isinstance(v, (ModuleRef, ClassValue)) or isinstance(v, TupleValue) and not v.is_list and
                all(isinstance(i, (ModuleRef, ClassValue)) for i in v.items) for v in (left, right)):
            # ``str | tuple``: a union of classes, which isinstance takes as the tuple of them
            return TupleValue(tuple(i for v in (left, right)
                                    for i in (v.items if isinstance(v, TupleValue) else (v,))))
        op = BINOPS.get(type(node.operator))
        if op is None:
            return UNKNOWN_VALUE
        return self.binary(node, op, left, right, node.left, node.right)

    def expr_Comparison(self, node: cst.Comparison) -> Value:
        left = self.eval(node.left)
        left_node = node.left
        parts: list[Value] = []
        for target in node.comparisons:
            right = self.eval(target.comparator)
            op = COMPARE.get(type(target.operator))
            if isinstance(left, AbstractArray) or isinstance(right, AbstractArray):
                if op is not None and len(node.comparisons) == 1:
                    return self.binary(node, op, left, right, left_node, target.comparator)
                if isinstance(target.operator, (cst.Is, cst.IsNot)):
                    parts.append(identity(left, right, isinstance(target.operator, cst.IsNot)))
                else:
                    parts.append(UNKNOWN_VALUE)
            elif op is not None:
                parts.append(compare(op, left, right))
            elif isinstance(target.operator, (cst.Is, cst.IsNot)):
                parts.append(identity(left, right, isinstance(target.operator, cst.IsNot)))
            else:
                parts.append(membership(left, right, isinstance(target.operator, cst.NotIn)))
            if parts[-1] == ConstValue(False) and is_bool(parts[-1]):
                break  # ``a < b < c`` with a < b false never evaluates c
            left, left_node = right, target.comparator
        return conjunction(parts)

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
        if isinstance(base, Iterable) and base.element is not UNKNOWN_VALUE and \
                len(node.slice) == 1:
            item = self.index_items(node)
            if isinstance(item, int) and not isinstance(item, bool):
                return base.element  # outs[-1]: one of the arrays (or pairs) appended
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
        if len(items) == 1 and not (isinstance(node.slice[0].comma, cst.Comma)) and \
                items[0] is not None and not (  # x[None] is x[None,]: None means "unknown"
                isinstance(node.slice[0].slice, cst.Index) and
                isinstance(node.slice[0].slice.value, cst.Tuple)):
            return items[0]
        return tuple(items)

    def index_parts(self, node: cst.Subscript) -> list:
        """Each index item: a value the op table takes, FAIL when unknown, or a LooseSlice
        for a slice whose bounds are not ints the analysis knows (``x[:, :n]``)."""
        items = []
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and \
                isinstance(node.slice[0].slice.value, cst.Tuple):
            # x[(0, None)] is x[0, None]; x[()] takes the whole 0-d array.
            return [index_arg(self.eval(element.value), self.contents_of)
                    for element in node.slice[0].slice.value.elements]
        for element in node.slice:
            part = element.slice
            if isinstance(part, cst.Index):
                value = self.eval(part.value)
                if isinstance(value, (ModuleRef,)) and value.qualname == "numpy.newaxis":
                    value = ConstValue(None)
                # A mask's count is read off its values: a symbol over its contents.
                items.append(index_arg(value, self.contents_of))
                continue
            bounds, sizes = [], []
            for b in (part.lower, part.upper, part.step):
                value = self.eval(b) if b is not None else ConstValue(None)
                arg = self.to_arg(value)
                bounds.append(arg if arg is None or isinstance(arg, int) and
                              not isinstance(arg, bool) else FAIL)
                sizes.append(arg if arg is None or isinstance(value, IntValue) and
                             is_known(arg) else FAIL)
            if any(bound is FAIL for bound in bounds):
                items.append(LooseSlice(*sizes))
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
        if all(isinstance(item, (slice, LooseSlice)) for item in items) and \
                len(items) <= len(base.shape) == len(shape):
            # Plain slices: item i is axis i, whose size says whether sized bounds are in it.
            shape = tuple(item.length(size) if isinstance(item, LooseSlice) else dim
                          for item, size, dim in zip(items, base.shape, shape)) + \
                shape[len(items):]
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
            return int_arith(op, left.value, right.value)
        if is_number(left) and is_number(right) and any(
                isinstance(v, FloatValue) or isinstance(v, ConstValue) and type(v.value) is float
                for v in (left, right)) and \
                op in ("add", "sub", "mul", "div", "pow", "floor_divide", "remainder"):
            known = float_arith(op, known_number(left), known_number(right))
            # float arithmetic gives a float: head_dim ** -0.5; known numbers give it exactly
            # (planes * (base_width / 64.0), a width multiplier).
            return ConstValue(known) if known is not None else integral_float(op, left, right)
        if isinstance(left, TupleValue) and isinstance(right, TupleValue) and op == "add":
            return TupleValue(left.items + right.items, left.is_list)
        if op == "remainder" and isinstance(left, ConstValue) and isinstance(left.value, str):
            return formatted(left.value, right)  # "denselayer%d" % (i + 1)
        if isinstance(left, TupleValue) and isinstance(right, IntValue) and op == "mul" and \
                isinstance(right.value, int):
            return TupleValue(left.items * right.value, left.is_list)
        if isinstance(left, ConstValue) and isinstance(right, ConstValue):
            return UNKNOWN_VALUE
        return UNKNOWN_VALUE

    def matmul_into_matrix(self, node, left: AbstractArray, right: AbstractArray, left_node,
                           right_node, dialect) -> Value:
        """``x @ w`` with w a known (k, n) matrix and x of unknown rank: x is (k,) or ends in k
        (anything else fails), and the product ends in n whatever x's rank. x's last dim is
        checked when known, and x ends in k from here on."""
        k, n = right.shape
        if left.tail:
            # Any rank of x gives the same verdict on its last dim: run the rule on (?, last).
            stand_in = replace(left, shape=(UNKNOWN, left.tail[-1]), tail=())
            result = self.apply("__matmul__", dialect, (self.to_arg(stand_in), self.to_arg(right)),
                                {}, node, [(stand_in, left_node), (right, right_node)], "'@'")
            if result is None:
                return AbstractArray(None, None, left.library, self.origin(node))
        else:
            self.refine_tail(left, (k,))
        dtype = rt_dtypes.op_result_type("matmul", left.dtype, right.dtype, dialect, None, 2)
        return AbstractArray(None, dtype, self.library_of([left, right]), self.origin(node),
                             tail=(n,))

    def array_binary(self, node: cst.CSTNode, op: str, left: Value, right: Value,
                     left_node: cst.CSTNode, right_node: cst.CSTNode) -> Value:
        arrays = [v for v in (left, right) if isinstance(v, AbstractArray)]
        library = self.library_of(arrays)
        dialect = self.dialect_for(library)
        if op == "matmul" and isinstance(left, AbstractArray) and left.shape is None and \
                isinstance(right, AbstractArray) and right.shape is not None and \
                len(right.shape) == 2 and not left.assumed_rank and not right.assumed_rank:
            return self.matmul_into_matrix(node, left, right, left_node, right_node, dialect)
        if any(isinstance(v, AbstractArray) and v.shape is None for v in (left, right)) or \
                self.to_arg(left) is FAIL or self.to_arg(right) is FAIL:
            if op != "matmul" and len(arrays) == 2:
                self.check_reduced_axis(node, left, right, left_node, right_node)
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
