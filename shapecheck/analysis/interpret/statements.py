"""Statements and control flow: bindings, branches, loops, try/with, asserts."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

import libcst as cst

from ...runtime import ops as rt_ops
from ...runtime.creation import literal_shape
from ...runtime.dims import UNKNOWN, eq, sym
from ...runtime.rules import indexing as rt_indexing
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    ClassValue,
    ConstValue,
    FunctionValue,
    InstanceValue,
    IntValue,
    ModuleRef,
    Origin,
    TupleChoice,
    TupleValue,
    Value,
    dims_of,
    truth,
)
from .classes import layer_kind_of
from .context import callee_name, disables_grad, expects_failure
from .env import (
    Frame,
    Scope,
    is_informative,
    join_envs,
    join_refinements,
    same_env,
    widen,
)
from .names import AUG, DUNDER, MAX_LOOP_ITERATIONS
from .operands import FAIL, rule_index_items


def _ends_in_raise(body) -> bool:
    last = body[-1] if body else None
    return isinstance(last, cst.SimpleStatementLine) and any(
        isinstance(s, cst.Raise) for s in last.body)


def _filled_default(node: cst.If) -> str | None:
    """``if name is None: name = ...`` or ``if not name: name = ...`` (no else): the name whose
    default the body fills in."""
    test = node.test
    if node.orelse is not None:
        return None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and \
            isinstance(test.expression, cst.Name):
        name = test.expression.value
    elif isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
            isinstance(test.left, cst.Name) and isinstance(test.comparisons[0].operator, cst.Is) \
            and isinstance(test.comparisons[0].comparator, cst.Name) and \
            test.comparisons[0].comparator.value == "None":
        name = test.left.value
    else:
        return None
    for statement in node.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and any(
                        isinstance(t.target, cst.Name) and t.target.value == name
                        for t in small.targets):
                    return name
    return None


_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"})


class Statements:
    def exec_block(self, body: Iterable[cst.CSTNode]) -> None:
        for stmt in body:
            if self.flow is not None:
                return
            self.exec_stmt(stmt)

    def exec_stmt(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            if self.standalone_shapes:
                line = self.line(stmt)
                if line in self.standalone_shapes:
                    self.apply_shape_comments(self.standalone_shapes[line], line)
            for small in stmt.body:
                if self.flow is not None:
                    return
                self.exec_small(small)
            if self.trailing_shapes:
                try:
                    pos = self.positions[stmt]
                    lines = range(pos.start.line, pos.end.line + 1)
                except KeyError:
                    lines = range(0)
                for number in lines:
                    if number in self.trailing_shapes:
                        self.apply_shape_comments(self.trailing_shapes[number], number)
            return
        handler = getattr(self, "stmt_" + type(stmt).__name__, None)
        if handler is not None:
            handler(stmt)

    def exec_small(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Expr):
            if isinstance(node.value, cst.Call):
                self.statement_calls.add(id(node.value))  # a procedure called for its effect
            self.eval(node.value)
        elif isinstance(node, cst.Assign):
            value = self.eval(node.value)
            for target in node.targets:
                self.assign(target.target, value, node.value)
        elif isinstance(node, cst.AnnAssign):
            value = self.eval(node.value) if node.value is not None else UNKNOWN_VALUE
            annotated = self.annotation_value(node.annotation.annotation, node.target)
            if annotated is not None and not is_informative(value):
                value = annotated
            if node.value is not None or annotated is not None:
                self.assign(node.target, value, node.value or node.target)
        elif isinstance(node, cst.AugAssign):
            self.aug_assign(node)
        elif isinstance(node, cst.Return):
            value = self.eval(node.value) if node.value is not None else ConstValue(None)
            self.frame.returns.append(value)
            self.frame.exit_refinements.append(dict(self.frame.refinements))
            if self.frame.dict_params:
                self.frame.dict_exits.append({n: self.frame.scope.vars.get(n)
                                              for n in self.frame.dict_params})
            self.flow = "return"
        elif isinstance(node, cst.Raise):
            if node.exc is not None:
                self.eval(node.exc)
            self.flow = "raise"
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            self.exec_import(node)
        elif isinstance(node, cst.Assert):
            self.in_assert = True
            try:
                self.eval(node.test)
            finally:
                self.in_assert = False
            self.refine_from_assert(node.test)
        elif isinstance(node, cst.Break):
            self.flow = "break"
        elif isinstance(node, cst.Continue):
            self.flow = "continue"
        elif isinstance(node, cst.Del):
            target = node.target
            if isinstance(target, cst.Subscript):
                self.forget_list(target.value)

    def stmt_FunctionDef(self, node: cst.FunctionDef) -> None:
        for dec in node.decorators:
            self.eval(dec.decorator)
        owner = self.frame.scope.vars.get("__class__") if self.frame.scope.kind == "class" else None
        func = FunctionValue(node=node, scope=self.frame.scope, name=node.name.value,
                             owner=owner)
        self.frame.scope.vars[node.name.value] = func
        if self.frame.scope.kind != "class":
            self.deferred.append(("function", func))

    def stmt_ClassDef(self, node: cst.ClassDef) -> None:
        bases = [self.eval(arg.value) for arg in node.bases]
        layer_kind = next((kind for kind in map(layer_kind_of, bases) if kind is not None), None)
        is_nn = layer_kind is not None or any(
            isinstance(b, ModuleRef) and (b.qualname == "torch.nn.Module" or b.qualname in _CONTAINERS)
            or isinstance(b, ClassValue) and b.is_nn_module for b in bases)
        scope = Scope(self.frame.scope, "class")
        container = next((b.qualname[9:] if isinstance(b, ModuleRef) else b.container
                          for b in bases if isinstance(b, ModuleRef) and b.qualname in _CONTAINERS
                          or isinstance(b, ClassValue) and b.container), None)
        cls = ClassValue(node=node, name=node.name.value, scope=scope, members=scope.vars,
                         is_nn_module=is_nn, bases=tuple(bases), layer_kind=layer_kind,
                         container=container)
        for base in bases:  # inherited members, looked up before the class's own are added
            if isinstance(base, ClassValue):
                scope.vars.update(base.members)
        scope.vars["__class__"] = cls
        saved_frame, saved_flow = self.frame, self.flow
        self.frame = Frame(scope)
        try:
            self.exec_block(node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body])
            self.declare_dataclass(node, bases)
        finally:
            self.frame, self.flow = saved_frame, saved_flow
        self.frame.scope.vars[node.name.value] = cls
        self.deferred.append(("class", cls))

    def stmt_If(self, node: cst.If) -> None:
        filled = _filled_default(node)
        if filled is not None and filled in self.frame.none_defaults and \
                self.frame.scope.vars.get(filled) is UNKNOWN_VALUE and \
                not self.fills_an_array(node, filled):
            # ``if norm_layer is None: norm_layer = nn.BatchNorm2d`` with the parameter left to
            # its default: the default is what the body fills in. (A caller's own value is
            # unknown either way, so nothing is lost by following the default.)
            self.exec_block(node.body.body)
            return
        decided = truth(self.eval(node.test))
        if decided is not None:
            # A test the known values decide (x.ndim == 2, self.use_residual, mask is None):
            # one path only.
            if decided:
                self.exec_block(node.body.body)
            elif node.orelse:
                self.exec_orelse(node.orelse)
            return
        # Each branch knows its test's outcome: ``if x.dim() == 3:`` runs with x of 3 dims,
        # the branch of ``if x.ndim != 4`` that is not taken with x of 4.
        self.branches([lambda: (self.refine_from_assert(node.test),
                                self.exec_block(node.body.body)),
                       lambda: (self.refine_from_assert(node.test, negated=True),
                                self.exec_orelse(node.orelse) if node.orelse else None)])
        if node.orelse is None and _ends_in_raise(node.body.body) and self.flow is None:
            self.refine_from_assert(node.test, negated=True)  # a guard: past it, the test failed

    def note_dim_read(self, name: str, source: cst.CSTNode) -> None:
        """``tensor_dim = x.dim()`` (or ``x.ndim``, ``len(x.shape)``): a test of the name is a
        test of x's rank while x holds the same array."""
        holder = _rank_read(source)
        if holder is not None:
            self.frame.dim_reads[name] = (holder, self.frame.scope.lookup(holder))
        else:
            self.frame.dim_reads.pop(name, None)

    def fills_an_array(self, node: cst.If, name: str) -> bool:
        """``if shortcut is None: shortcut = x``: the default filled in is an array. Nobody
        said a caller leaves the parameter out (DLA's trees always pass the shortcut), and
        an array of that shape is a claim its own value does not make: both paths run."""
        saved_vars, saved_flow = dict(self.frame.scope.vars), self.flow
        saved_effects = self.effect_state()
        with self.suppressed():
            self.exec_block(node.body.body)
        value = self.frame.scope.vars.get(name)
        self.frame.scope.vars, self.flow = saved_vars, saved_flow
        self.restore_effects(saved_effects)
        return isinstance(value, AbstractArray) or isinstance(value, TupleValue) and any(
            isinstance(item, AbstractArray) for item in value.items)

    def exec_orelse(self, orelse: cst.CSTNode) -> None:
        if isinstance(orelse, cst.If):
            self.stmt_If(orelse)
        else:
            self.exec_block(orelse.body.body)

    def branches(self, paths: list) -> None:
        """Run each path from the same environment and join the ones that fall through."""
        vars_before = dict(self.frame.scope.vars)
        effects_before = self.effect_state()
        refinements_before = dict(self.frame.refinements)
        results = []
        effects = []
        refinements = []
        for path in paths:
            self.frame.scope.vars = dict(vars_before)
            self.frame.refinements = dict(refinements_before)
            self.restore_effects(effects_before)
            self.flow = None
            path()
            effects.append(self.effect_state())
            if self.flow != "raise":
                refinements.append(self.frame.refinements)
            if self.flow in (None, "continue", "break"):
                results.append((self.frame.scope.vars, self.flow))
        self.join_effects(effects)
        self.frame.refinements = join_refinements(refinements_before, refinements)
        if not results:
            self.frame.scope.vars = vars_before
            self.flow = "return"
            return
        merged = results[0][0]
        for other, _ in results[1:]:
            merged = join_envs(merged, other)
        self.frame.scope.vars = merged
        flows = {f for _, f in results}
        self.flow = flows.pop() if len(flows) == 1 else None

    def stmt_For(self, node: cst.For) -> None:
        iterated = self.eval(node.iter)
        if isinstance(iterated, TupleChoice):
            # One tuple or another as branches left it: the loop over each, as paths.
            self.branches([lambda option=option: self.for_over(node, option)
                           for option in iterated.items])
            return
        self.for_over(node, iterated)

    def for_over(self, node: cst.For, iterated: Value) -> None:
        if self.unrolled_for(node, iterated):
            return
        element = _counted(self.element_of(iterated), node.target)
        self.loop(lambda: self.assign(node.target, element, node.iter), node.body.body)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body)

    def stmt_While(self, node: cst.While) -> None:
        if truth(self.eval(node.test)) is False:  # the body never runs
            if node.orelse is not None:
                self.exec_block(node.orelse.body.body)
            return
        self.loop(lambda: self.eval(node.test), node.body.body)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body)

    def loop(self, enter, body: Iterable[cst.CSTNode]) -> None:
        """Run a loop body to a fixed point of the environment, widening after a few rounds."""
        self.frame.loops += 1
        try:
            self.fixed_point(enter, body)
        finally:
            self.frame.loops -= 1

    def fixed_point(self, enter, body: Iterable[cst.CSTNode]) -> None:
        before = dict(self.frame.scope.vars)
        refinements_before = dict(self.frame.refinements)
        state = before
        for iteration in range(MAX_LOOP_ITERATIONS):
            self.frame.scope.vars = dict(state)
            self.flow = None
            enter()
            self.exec_block(body)
            if self.flow in ("return", "raise"):
                after = state
            else:
                after = self.frame.scope.vars
            joined = join_envs(state, after)
            if same_env(joined, state):
                state = joined
                break
            state = joined
        else:
            state = {k: (v if before.get(k) is v else widen(v)) for k, v in state.items()}
        carried = {k: v for k, v in after.items() if isinstance(v, AbstractArray) and
                   v.alias is not None and k in state and state[k] == v and
                   state[k].alias != v.alias}
        if carried:
            # The values an iteration leaves behind, with their aliases: one more pass sees
            # what the next iteration inherits (a snapshot bound at the end of the body). The
            # shapes are the fixed point's, so no shape finding can change.
            self.frame.scope.vars = {**state, **carried}
            self.flow = None
            enter()
            self.exec_block(body)
        self.frame.scope.vars = join_envs(before, state)
        # The body may run no time: a rank it said holds on no path the loop guarantees.
        self.frame.refinements = refinements_before
        self.flow = None

    def stmt_Try(self, node: cst.Try) -> None:
        before = dict(self.frame.scope.vars)
        refinements_before = dict(self.frame.refinements)
        self.flow = None
        caught = set()
        for handler in node.handlers:
            if handler.type is None:
                caught.add("BaseException")
            else:
                types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
                for t in types:
                    name = callee_name(t.value if isinstance(t, cst.Element) else t)
                    if name:
                        caught.add(name)
        self.caught.append(caught)
        try:
            self.exec_block(node.body.body)
        finally:
            self.caught.pop()
        after_body = self.frame.scope.vars
        paths = [lambda: None]
        if node.orelse is not None:
            paths = [lambda: self.exec_block(node.orelse.body.body)]
        self.frame.scope.vars = after_body if self.flow is None else before
        handler_start = join_envs(before, after_body)

        def handler_path(handler):
            def run():
                self.frame.scope.vars = dict(handler_start)
                if handler.type is not None:
                    self.eval(handler.type)
                if handler.name is not None:
                    self.assign(handler.name.name, UNKNOWN_VALUE, handler)
                self.exec_block(handler.body.body)
            return run

        body_flow = self.flow
        if body_flow is None:
            self.branches(paths + [handler_path(h) for h in node.handlers])
        else:
            self.frame.scope.vars = handler_start
            self.branches([handler_path(h) for h in node.handlers] or [lambda: None])
            if not node.handlers:
                self.flow = body_flow
        if node.handlers:
            # A handler may run from any point of the body, before the rank it said.
            self.frame.refinements = refinements_before
        if node.finalbody is not None:
            saved = self.flow
            self.flow = None
            self.exec_block(node.finalbody.body.body)
            self.flow = self.flow or saved

    stmt_TryStar = stmt_Try

    def stmt_With(self, node: cst.With) -> None:
        expects_error = False
        no_grad = any(disables_grad(item.item) for item in node.items)
        for item in node.items:
            value = self.eval(item.item)
            if expects_failure(item.item):
                expects_error = True
            if item.asname is not None:
                self.assign(item.asname.name, value if isinstance(value, AbstractArray) else UNKNOWN_VALUE,
                            item.item)
        self.no_grad += no_grad
        try:
            if expects_error:  # the code says it expects the failure: not a finding
                with self.suppressed():
                    self.exec_block(node.body.body)
                self.flow = None
                return
            self.exec_block(node.body.body)
        finally:
            self.no_grad -= no_grad

    def stmt_Match(self, node: cst.CSTNode) -> None:
        self.eval(node.subject)
        self.branches([(lambda c=case: self.exec_block(c.body.body)) for case in node.cases]
                      + [lambda: None])

    def assign(self, target: cst.BaseExpression, value: Value, source: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.note_dim_read(target.value, source)
            value = self.refine_from_dim_read(target, value, source)
            if isinstance(value, IntValue) and value.value is UNKNOWN:
                value = self.name_int(target, source)  # an int nobody knows, named here
            if isinstance(value, AbstractArray) and value.origin is None:
                value = replace(value, origin=Origin(0, target.value, source))
            value = self.bind_snapshot(target, value, source)
            self.frame.scope.vars[target.value] = value
            self.bind_name(target.value, value)
            if self.coverage is not None:
                self.coverage.bind(target, value)
            self.bind_call_result(target.value, value, source)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            items = self.unpack(value, len(elements))
            if any(isinstance(el, cst.StarredElement) for el in elements):
                items = None
            if items is not None and not any(isinstance(el, cst.StarredElement) for el in elements):
                items = self.name_unpacked_dims(list(elements), items, source)
            if items is None:
                items = self.refine_from_unpack(list(elements), source)
            if items is None and not any(isinstance(el, cst.StarredElement) for el in elements):
                items = self.split_pieces(len(elements), source)
            for i, element in enumerate(elements):
                inner = element.value
                self.assign(inner, items[i] if items is not None else UNKNOWN_VALUE, source)
        elif isinstance(target, cst.Attribute):
            owner = self.eval(target.value)
            if isinstance(owner, InstanceValue):
                owner.attrs[target.attr.value] = value
                self.bind_name(self.text(target), value)
                if self.coverage is not None:
                    self.coverage.bind(target, value)
            elif isinstance(owner, AbstractArray) and isinstance(target.value, cst.Name):
                # ndarray.shape / .dtype are assignable: the array changes in place.
                if target.attr.value == "shape":
                    self.assign_shape(target, owner, value, source)
                elif target.attr.value in ("dtype", "strides"):
                    self.frame.scope.vars[target.value.value] = owner.derived(
                        None, owner.origin, dtype=None)
        elif isinstance(target, cst.Subscript):
            self.setitem(target, value, source)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, UNKNOWN_VALUE, source)

    def unpack(self, value: Value, count: int) -> list[Value] | None:
        if isinstance(value, TupleValue) and len(value.items) == count:
            return list(value.items)
        if isinstance(value, AbstractArray) and value.shape and eq(value.shape[0], count) is True:
            row = value.derived(value.shape[1:], value.origin, dtype=value.dtype)
            return [row] * count
        return None

    def aug_assign(self, node: cst.AugAssign) -> None:
        op = AUG.get(type(node.operator))
        target = self.eval(node.target)
        value = self.eval(node.value)
        if isinstance(target, AbstractArray) and op is not None and \
                not self.rebinds(target, DUNDER[op]):
            self.inplace_op(node, target, node.target, op, [(value, node.value)], f"__i{DUNDER[op]}__")
            if isinstance(value, AbstractArray) and op != "matmul" and value.reduced is not None \
                    and value.reduced.shape is None:
                # X -= X.mean(axis=1), X of any rank (known shapes: the in-place op's own check).
                self.check_reduced_axis(node, target, value, node.target, node.value)
            self.store_back(node, target, value)  # a[i] += v stores the result into a
            return  # in place: the target keeps its shape and dtype
        if op is None:
            result: Value = UNKNOWN_VALUE
        else:
            result = self.binary(node, op, target, value, node.target, node.value)
        self.assign(node.target, result, node)

    def rebinds(self, target: AbstractArray, dunder: str) -> bool:
        """The library has ``x.__op__`` but no ``x.__iop__``: Python runs ``x op= y`` as
        ``x = x op y`` (torch's ``x @= y``), a new array of the product's shape."""
        dialect = self.dialect_for(target.library)
        return self.lookup(f"__i{dunder}__", dialect) is None and \
            self.lookup(f"__{dunder}__", dialect) is not None

    def setitem(self, target: cst.Subscript, value: Value, source: cst.CSTNode) -> None:
        if self.dict_store(target, value, source):
            return
        base = self.eval(target.value)
        self.check_write_to_copy(target.value, source, "assignment", target)
        if not isinstance(base, AbstractArray):
            self.index_items(target)
            self.forget_list(target.value)
            return
        items = self.index_items(target)
        # The write lands in base's memory, through a view when the index is basic.
        self.write(self.written_region(base, items), source, target.value, "assignment",
                   (value,))
        if items is None or base.shape is None:
            return
        val_arg = self.to_arg(value)
        if val_arg is FAIL:
            return
        dialect = self.dialect_for(base.library)
        rule_items = rule_index_items(items)
        if rule_items is None:
            return
        value_shape = val_arg.shape if isinstance(val_arg, rt_ops.ArrayArg) else ()
        if isinstance(value, TupleValue):
            value_shape, _ = literal_shape(val_arg)
            if value_shape is None:
                return
        elif not isinstance(value, (AbstractArray, IntValue, ConstValue)):
            return
        try:
            slot = rt_indexing.index(tuple(base.shape), rule_items, dialect=dialect).shape
        except Exception:
            slot = None
        if slot is not None and len(value_shape) > len(slot) and not all(
                isinstance(d, int) for d in value_shape[:len(value_shape) - len(slot)]):
            # buf[i] = cube with cube (B, C, ...): the extra leading dims may all be 1, which
            # both libraries drop; symbols there make no certain error.
            return
        self.run_rule(lambda: rt_indexing.setitem(tuple(base.shape), rule_items, value_shape,
                                                  dialect=dialect),
                      target, [(base, target.value), (value, source)], "assignment", dialect,
                      None, op_name="__setitem__")

    def apply_shape_comments(self, entries: list, line: int) -> None:
        for name, dims in entries:
            shape = []
            for text in dims:
                bound = self.frame.scope.lookup(text)
                if isinstance(bound, IntValue):
                    shape.append(bound.value)
                    continue
                try:
                    from ...runtime.dims import parse_dim
                    shape.append(parse_dim(text))
                except ValueError:
                    shape.append(UNKNOWN)
            current = self.frame.scope.lookup(name)
            library = current.library if isinstance(current, AbstractArray) else "numpy"
            dtype = current.dtype if isinstance(current, AbstractArray) else None
            self.frame.scope.vars[name] = AbstractArray(
                shape=tuple(shape), dtype=dtype, library=library,
                origin=Origin(line, "# shape: comment"))

    def refine_from_assert(self, test: cst.BaseExpression, negated: bool = False) -> None:
        """``assert x.shape == (B, 3)`` and ``assert x.ndim == 2`` teach x's shape; so does
        the guard ``if x.dim() != 3: raise ...`` (``negated``) for the code after it."""
        both = cst.Or if negated else cst.And
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, both):
            self.refine_from_assert(test.left, negated)
            self.refine_from_assert(test.right, negated)
            return
        equal = cst.NotEqual if negated else cst.Equal
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, equal)):
            return
        left, right = test.left, test.comparisons[0].comparator
        if isinstance(left, cst.Name) and left.value in self.frame.dim_reads:
            holder, value = self.frame.dim_reads[left.value]
            if self.frame.scope.lookup(holder) is value:  # ``tensor_dim = x.dim()``, x unchanged
                left = cst.Attribute(cst.Name(holder), cst.Name("ndim"))
        if isinstance(left, cst.Call) and not left.args and isinstance(left.func, cst.Attribute) \
                and left.func.attr.value in ("dim", "ndimension", "size"):
            # x.dim() is x.ndim, x.size() is x.shape
            left = left.func.with_changes(attr=cst.Name(
                "shape" if left.func.attr.value == "size" else "ndim"))
        if not (isinstance(left, cst.Attribute) and isinstance(left.value, cst.Name)):
            return
        name = left.value.value
        current = self.frame.scope.lookup(name)
        if current is UNKNOWN_VALUE and self.default_library is not None and \
                left.attr.value in ("shape", "ndim"):
            # An assert on an unknown value's shape says it is an array of this file's library.
            current = AbstractArray(None, None, self.default_library)
        if not isinstance(current, AbstractArray):
            return
        stated = self.eval(right)
        if left.attr.value == "shape":
            dims = dims_of(stated) if isinstance(stated, TupleValue) else None
            if dims is None:
                return
            if current.shape is None or len(current.shape) != len(dims):
                shape = dims
            else:
                shape = tuple(d if d is not UNKNOWN else c for c, d in zip(current.shape, dims))
            self.frame.scope.vars[name] = replace(current, shape=tuple(shape), tail=(),
                                                  origin=Origin(0, "assert", test))
        elif left.attr.value == "ndim" and isinstance(stated, IntValue) and isinstance(stated.value, int):
            if current.shape is None and stated.value >= len(current.tail):
                shape = (UNKNOWN,) * (stated.value - len(current.tail)) + tuple(current.tail)
                self.frame.scope.vars[name] = replace(current, shape=shape, tail=())


def _counted(element: Value, target: cst.BaseExpression) -> Value:
    """The loop's element with each int nobody knows that a name takes (``i`` of ``for i in
    range(n)``, of ``enumerate``) a size of its own that no width is made of: it is 0 on
    the first pass, so ``c + i * g`` may be ``c``."""
    if isinstance(target, cst.Name) and isinstance(element, IntValue) and \
            element.value is UNKNOWN:
        return IntValue(sym(f"loop {target.value}"))
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(element, TupleValue) and \
            len(element.items) == len(target.elements):
        return replace(element, items=tuple(_counted(item, el.value) for item, el in
                                            zip(element.items, target.elements)))
    return element


def _rank_read(node: cst.CSTNode) -> str | None:
    """The name whose rank ``node`` reads: ``x.dim()``, ``x.ndimension()``, ``x.ndim``,
    ``len(x.shape)``."""
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value in ("dim", "ndimension"):
        node = node.func.with_changes(attr=cst.Name("ndim"))
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
            node.func.value == "len" and len(node.args) == 1 and \
            isinstance(node.args[0].value, cst.Attribute) and \
            node.args[0].value.attr.value == "shape":
        node = node.args[0].value.with_changes(attr=cst.Name("ndim"))
    if isinstance(node, cst.Attribute) and node.attr.value == "ndim" and \
            isinstance(node.value, cst.Name):
        return node.value.value
    return None
