"""The abstract interpreter: walks a module in program order, infers shapes, reports findings.

One walker over the libcst tree with an explicit Scope per module, class
and function. Every op is evaluated by the runtime op table
(shapecheck.runtime.ops), so the shape rules exist once; this module only
turns source into operands and runtime verdicts into findings. Anything it
does not understand evaluates to an unknown value, which never produces a
finding.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..runtime import dtypes as rt_dtypes
from ..runtime import ops as rt_ops
from ..runtime.dialects import NUMPY, NUMPY1, TORCH, TORCH_LEGACY, Dialect, get_dialect
from ..runtime.dims import (UNKNOWN, Dim, Sym, dims_equal, eq, floordiv, format_shape, is_one, mul,
                            normalize_axis, numel, sub, add, sym)
from ..runtime.rules import indexing as rt_indexing
from ..runtime.rules import shape_ops as rt_shape_ops
from ..runtime.rules.broadcast import broadcast_shapes, broadcastable
from ..runtime.verdicts import Result, RuleWarning, ShapeError
from .annotations import array_from_annotation, shape_comments
from .findings import Finding, Span
from .imports import canonical, import_bindings
from .nn_layers import LAYER_KINDS, LOSS_LAYERS, apply_layer
from .rules import all_rules
from .values import (UNKNOWN_VALUE, AbstractArray, BoundMethod, ClassValue, ConstValue, DtypeValue,
                     FunctionValue, GeneratorValue, InstanceValue, IntValue, LayerValue, ModuleRef,
                     Origin, Reduction, SliceValue, TupleValue, Value, dims_of,
                     join_values, shape_value)

MAX_LOOP_ITERATIONS = 3
MAX_SPECIALIZATIONS = 300
MAX_CALL_DEPTH = 4

_BUILTINS = frozenset({"len", "range", "int", "float", "abs", "min", "max", "tuple", "list",
                       "enumerate", "zip", "isinstance", "print", "sum", "reversed", "sorted",
                       "bool", "str", "round", "super", "type", "iter", "next", "divmod",
                       "getattr", "hasattr", "map", "all", "any"})

_BINOPS = {
    cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "div",
    cst.FloorDivide: "floor_divide", cst.Modulo: "remainder", cst.Power: "pow",
    cst.MatrixMultiply: "matmul", cst.BitAnd: "bitwise_and", cst.BitOr: "bitwise_or",
    cst.BitXor: "bitwise_xor", cst.LeftShift: "lshift", cst.RightShift: "rshift",
}
_DUNDER = {"add": "add", "sub": "sub", "mul": "mul", "div": "truediv", "floor_divide": "floordiv",
           "remainder": "mod", "pow": "pow", "matmul": "matmul", "bitwise_and": "and",
           "bitwise_or": "or", "bitwise_xor": "xor", "lshift": "lshift", "rshift": "rshift"}
_AUG = {cst.AddAssign: "add", cst.SubtractAssign: "sub", cst.MultiplyAssign: "mul",
        cst.DivideAssign: "div", cst.FloorDivideAssign: "floor_divide",
        cst.ModuloAssign: "remainder", cst.PowerAssign: "pow", cst.MatrixMultiplyAssign: "matmul",
        cst.BitAndAssign: "bitwise_and", cst.BitOrAssign: "bitwise_or",
        cst.BitXorAssign: "bitwise_xor", cst.LeftShiftAssign: "lshift",
        cst.RightShiftAssign: "rshift"}
_COMPARE = {cst.Equal: "eq", cst.NotEqual: "ne", cst.LessThan: "lt", cst.LessThanEqual: "le",
            cst.GreaterThan: "gt", cst.GreaterThanEqual: "ge"}

# Which ShapeError kinds are which rule.
_KIND_CODES = {"broadcast": "SC101", "fallback": "SC104", "matmul": "SC106", "solve": "SC106",
               "einsum": "SC106",
               "join": "SC108", "reshape": "SC109", "view": "SC109", "index": "SC111",
               "axis": "SC111", "inplace": "SC201", "dtype": "SC202", "out": "SC203"}
_WARNING_CODES = {"legacy-fallback": "SC104", "backcompat": "SC105", "out-resize": "SC203"}

_REDUCTIONS = frozenset({"sum", "mean", "std", "var", "prod", "max", "min", "amax", "amin",
                         "argmax", "argmin", "any", "all", "median", "nansum", "nanmean",
                         "nanstd", "nanvar", "nanmax", "nanmin", "logsumexp", "norm",
                         "count_nonzero", "average"})
_NEW_AXIS_OPS = frozenset({"unsqueeze", "expand_dims", "newaxis", "atleast_2d", "outer"})
_PAIRWISE_LOSSES = frozenset({"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                              "binary_cross_entropy", "binary_cross_entropy_with_logits",
                              "soft_margin_loss", "kl_div", "poisson_nll_loss"})
_CLASS_TARGET_LOSSES = frozenset({"cross_entropy", "nll_loss"})
_SOLVES = frozenset({"numpy.linalg.solve", "torch.linalg.solve"})

_DTYPE_NAMES = {
    "float": "float64", "int": "int64", "bool": "bool", "complex": "complex128",
    "float16": "float16", "float32": "float32", "float64": "float64", "half": "float16",
    "double": "float64", "single": "float32", "long": "int64", "short": "int16",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "bool_": "bool",
    "bfloat16": "bfloat16", "complex64": "complex64", "complex128": "complex128",
    "cfloat": "complex64", "cdouble": "complex128", "float_": "float64", "intp": "int64",
}
_TORCH_DTYPE_NAMES = dict(_DTYPE_NAMES, float="float32", int="int32")
_DTYPE_METHODS = {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
                  "int": "int32", "bool": "bool", "bfloat16": "bfloat16", "short": "int16"}


@dataclass(frozen=True)
class Step:
    """One op the evaluator applied: for the calculator's step-by-step explanation."""

    text: str
    op: str
    operand_shapes: tuple
    outcome: Result | ShapeError
    warnings: tuple = ()


@dataclass(frozen=True)
class _ArrayMethod:
    array: AbstractArray
    name: str


@dataclass(frozen=True)
class _GeneratorMethod:
    name: str


@dataclass(frozen=True)
class _Iterable:
    element: Value


class Scope:
    """Names bound in one module, class or function body; lookups fall back to the parent."""

    __slots__ = ("vars", "parent", "kind")

    def __init__(self, parent: "Scope | None", kind: str):
        self.vars: dict[str, Value] = {}
        self.parent = parent
        self.kind = kind

    def lookup(self, name: str) -> Value | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
            while scope is not None and scope.kind == "class":
                scope = scope.parent
        return None


@dataclass
class _Frame:
    scope: Scope
    returns: list = field(default_factory=list)
    is_generator: bool = False


class _Flow(Exception):
    """Not an error path: a tag for statements that end a block (return, raise, break)."""


class Interpreter:
    """Runs one module abstractly and collects its findings."""

    def __init__(self, module: cst.Module, source: str, path: str, settings: Any,
                 force_dialect: Dialect | None = None):
        self.module = module
        self._positions = None
        self.source = source
        self.path = path
        self.settings = settings
        era = getattr(settings, "dialect", None)
        self.torch_dialect = TORCH_LEGACY if era == "torch-legacy" else TORCH
        self.numpy_dialect = NUMPY1 if era == "numpy-1" else NUMPY
        self.force_dialect = force_dialect
        self.rules = all_rules()
        self.findings: dict[tuple, Finding] = {}
        self.suppress = 0
        self.flow: str | None = None
        self.frame = _Frame(Scope(None, "module"))
        self.deferred: deque = deque()
        self.analyzed: set[int] = set()
        self.summaries: dict[tuple, Value] = {}
        self.active: list[int] = []
        self.specializations = 0
        self.trace: list[Step] | None = None
        self.out_call = False
        self.out_result: Result | None = None
        self.capture: list[dict] = []
        self.inplace_call = False
        self.default_library: str | None = None
        self.caught: list[set] = []
        self.trailing_shapes, self.standalone_shapes = (
            shape_comments(source) if "shape:" in source else ({}, {}))
        self.hints = dict(getattr(settings, "shape_hints", ()) or ())

    # ------------------------------------------------------------------ driver

    def run(self) -> list[Finding]:
        self.exec_block(self.module.body)
        self.flow = None
        while self.deferred:
            kind, item = self.deferred.popleft()
            if kind == "class":
                self.analyze_class(item)
            elif id(item) not in self.analyzed:
                self.function_summary(item)
        return list(self.findings.values())

    # ------------------------------------------------------------------ reporting

    @property
    def positions(self):
        """Node positions, computed on first need: most files never report anything."""
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(
                PositionProvider)
        return self._positions

    def origin(self, node: cst.CSTNode) -> Origin:
        return Origin(0, "", node)

    def origin_line(self, origin: Origin | None) -> int | None:
        if origin is None:
            return None
        if origin.line:
            return origin.line
        return self.line(origin.node) if origin.node is not None else None

    def span(self, node: cst.CSTNode) -> Span:
        try:
            pos = self.positions[node]
        except KeyError:
            return Span(1, 1, 1, 1)
        return Span(pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1)

    def line(self, node: cst.CSTNode) -> int:
        try:
            return self.positions[node].start.line
        except KeyError:
            return 0

    def text(self, node: cst.CSTNode, limit: int = 40) -> str:
        try:
            text = self.module.code_for_node(node).strip()
        except Exception:
            return "?"
        text = " ".join(text.split())
        return text if len(text) <= limit else text[:limit - 3] + "..."

    def report(self, code: str, node: cst.CSTNode, message: str, exc_type: str | None = None) -> None:
        if self.suppress:
            return
        if exc_type is not None and any(_catches(c, exc_type) for c in self.caught):
            return  # the code handles this very exception: it expects the failure
        spec = self.rules.get(code)
        if spec is None:
            return
        span = self.span(node)
        key = (code, span.line, span.column)
        if self.capture:
            sink = self.capture[-1]
            if key not in sink:
                sink[key] = (Finding(path=self.path, span=span, code=code, name=spec.name,
                                     severity=spec.severity, message=message), exc_type)
        elif key not in self.findings:
            self.findings[key] = Finding(path=self.path, span=span, code=code, name=spec.name,
                                         severity=spec.severity, message=message)

    def emit_at_call(self, node: cst.CSTNode, where: str, captured: dict) -> None:
        """Findings a callee has only with this call's arguments are reported at the call."""
        for key, (finding, exc_type) in captured.items():
            if key in self.findings:
                continue
            self.report(finding.code, node, f"{finding.message} [in {where}, line "
                                            f"{finding.line}, with the arguments of this call]",
                        exc_type)

    def standalone(self, func: FunctionValue) -> None:
        """Analyze a callee on its own first, so its own findings stay at their own lines."""
        saved = self.capture, self.suppress
        self.capture, self.suppress = [], 0
        try:
            owner = func.owner
            if isinstance(owner, ClassValue):
                if id(owner) not in self.analyzed:
                    self.analyze_class(owner)
            elif id(func) not in self.analyzed:
                self.function_summary(func)
        finally:
            self.capture, self.suppress = saved

    # ------------------------------------------------------------------ dialects

    def dialect_for(self, library: str) -> Dialect:
        if self.force_dialect is not None:
            return self.force_dialect
        return self.torch_dialect if library == "torch" else self.numpy_dialect

    @staticmethod
    def library_of(values: Iterable[Value], default: str = "numpy") -> str:
        libraries = {v.library for v in values if isinstance(v, AbstractArray)}
        if "torch" in libraries:
            return "torch"
        if "numpy" in libraries:
            return "numpy"
        return default

    # ------------------------------------------------------------------ statements

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
            self.eval(node.value)
        elif isinstance(node, cst.Assign):
            value = self.eval(node.value)
            for target in node.targets:
                self.assign(target.target, value, node.value)
        elif isinstance(node, cst.AnnAssign):
            value = self.eval(node.value) if node.value is not None else UNKNOWN_VALUE
            annotated = self.annotation_value(node.annotation.annotation, node.target)
            if annotated is not None and not _informative(value):
                value = annotated
            if node.value is not None or annotated is not None:
                self.assign(node.target, value, node.value or node.target)
        elif isinstance(node, cst.AugAssign):
            self.aug_assign(node)
        elif isinstance(node, cst.Return):
            value = self.eval(node.value) if node.value is not None else ConstValue(None)
            self.frame.returns.append(value)
            self.flow = "return"
        elif isinstance(node, cst.Raise):
            if node.exc is not None:
                self.eval(node.exc)
            self.flow = "raise"
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            for bound, qualname in import_bindings(node):
                self.frame.scope.vars[bound] = ModuleRef(qualname) if qualname else UNKNOWN_VALUE
                if qualname and self.default_library is None:
                    self.default_library = qualname.split(".", 1)[0]
        elif isinstance(node, cst.Assert):
            self.eval(node.test)
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
        is_nn = any(isinstance(b, ModuleRef) and b.qualname in ("torch.nn.Module", "torch.nn.Sequential")
                    or isinstance(b, ClassValue) and b.is_nn_module for b in bases)
        scope = Scope(self.frame.scope, "class")
        cls = ClassValue(node=node, name=node.name.value, scope=scope, members=scope.vars,
                         is_nn_module=is_nn)
        for base in bases:  # inherited members, looked up before the class's own are added
            if isinstance(base, ClassValue):
                scope.vars.update(base.members)
        scope.vars["__class__"] = cls
        saved_frame, saved_flow = self.frame, self.flow
        self.frame = _Frame(scope)
        try:
            self.exec_block(node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body])
        finally:
            self.frame, self.flow = saved_frame, saved_flow
        self.frame.scope.vars[node.name.value] = cls
        self.deferred.append(("class", cls))

    def stmt_If(self, node: cst.If) -> None:
        test = self.eval(node.test)
        if isinstance(test, ConstValue) and isinstance(test.value, bool) and \
                isinstance(node.test, (cst.Comparison, cst.Name, cst.UnaryOperation,
                                       cst.BooleanOperation)):
            # A test decided by known sizes (x.ndim == 2, np.ndim(b) == 1): one path only.
            if test.value:
                self.exec_block(node.body.body)
            elif node.orelse:
                self.exec_orelse(node.orelse)
            return
        self.branches([lambda: self.exec_block(node.body.body),
                       (lambda: self.exec_orelse(node.orelse)) if node.orelse else (lambda: None)])

    def exec_orelse(self, orelse: cst.CSTNode) -> None:
        if isinstance(orelse, cst.If):
            self.stmt_If(orelse)
        else:
            self.exec_block(orelse.body.body)

    def branches(self, paths: list) -> None:
        """Run each path from the same environment and join the ones that fall through."""
        vars_before = dict(self.frame.scope.vars)
        results = []
        for path in paths:
            self.frame.scope.vars = dict(vars_before)
            self.flow = None
            path()
            if self.flow in (None, "continue", "break"):
                results.append((self.frame.scope.vars, self.flow))
        if not results:
            self.frame.scope.vars = vars_before
            self.flow = "return"
            return
        merged = results[0][0]
        for other, _ in results[1:]:
            merged = _join_envs(merged, other)
        self.frame.scope.vars = merged
        flows = {f for _, f in results}
        self.flow = flows.pop() if len(flows) == 1 else None

    def stmt_For(self, node: cst.For) -> None:
        element = self.element_of(self.eval(node.iter))
        self.loop(lambda: self.assign(node.target, element, node.iter), node.body.body)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body)

    def stmt_While(self, node: cst.While) -> None:
        self.eval(node.test)
        self.loop(lambda: self.eval(node.test), node.body.body)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body)

    def loop(self, enter, body: Iterable[cst.CSTNode]) -> None:
        """Run a loop body to a fixed point of the environment, widening after a few rounds."""
        before = dict(self.frame.scope.vars)
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
            joined = _join_envs(state, after)
            if _same_env(joined, state):
                state = joined
                break
            state = joined
        else:
            state = {k: (v if before.get(k) is v else _widen(v)) for k, v in state.items()}
        self.frame.scope.vars = _join_envs(before, state)
        self.flow = None

    def stmt_Try(self, node: cst.Try) -> None:
        before = dict(self.frame.scope.vars)
        self.flow = None
        caught = set()
        for handler in node.handlers:
            if handler.type is None:
                caught.add("BaseException")
            else:
                types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
                for t in types:
                    name = _callee_name(t.value if isinstance(t, cst.Element) else t)
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
        handler_start = _join_envs(before, after_body)

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
        if node.finalbody is not None:
            saved = self.flow
            self.flow = None
            self.exec_block(node.finalbody.body.body)
            self.flow = self.flow or saved

    stmt_TryStar = stmt_Try

    def stmt_With(self, node: cst.With) -> None:
        expects_error = False
        for item in node.items:
            value = self.eval(item.item)
            if isinstance(item.item, cst.Call) and _callee_name(item.item.func) in _RAISES_CONTEXTS:
                expects_error = True
            if item.asname is not None:
                self.assign(item.asname.name, value if isinstance(value, AbstractArray) else UNKNOWN_VALUE,
                            item.item)
        if expects_error:  # the code says it expects the failure: not a finding
            with self.suppressed():
                self.exec_block(node.body.body)
            self.flow = None
            return
        self.exec_block(node.body.body)

    def stmt_Match(self, node: cst.CSTNode) -> None:
        self.eval(node.subject)
        self.branches([(lambda c=case: self.exec_block(c.body.body)) for case in node.cases]
                      + [lambda: None])

    # ------------------------------------------------------------------ binding

    def assign(self, target: cst.BaseExpression, value: Value, source: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, AbstractArray) and value.origin is None:
                value = replace(value, origin=Origin(0, target.value, source))
            self.frame.scope.vars[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            items = self.unpack(value, len(elements))
            if any(isinstance(el, cst.StarredElement) for el in elements):
                items = None
            for i, element in enumerate(elements):
                inner = element.value
                self.assign(inner, items[i] if items is not None else UNKNOWN_VALUE, source)
        elif isinstance(target, cst.Attribute):
            owner = self.eval(target.value)
            if isinstance(owner, InstanceValue):
                owner.attrs[target.attr.value] = value
            elif isinstance(owner, AbstractArray) and isinstance(target.value, cst.Name):
                # ndarray.shape / .dtype are assignable: the array changes in place.
                if target.attr.value == "shape":
                    dims = dims_of(value)
                    self.frame.scope.vars[target.value.value] = owner.derived(
                        dims, Origin(0, target.value.value, source), dtype=owner.dtype)
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
        op = _AUG.get(type(node.operator))
        target = self.eval(node.target)
        value = self.eval(node.value)
        if isinstance(target, AbstractArray) and op is not None:
            self.inplace_op(node, target, node.target, op, [(value, node.value)], f"__i{_DUNDER[op]}__")
            return  # in place: the target keeps its shape and dtype
        if op is None:
            result: Value = UNKNOWN_VALUE
        else:
            result = self.binary(node, op, target, value, node.target, node.value)
        self.assign(node.target, result, node)

    def setitem(self, target: cst.Subscript, value: Value, source: cst.CSTNode) -> None:
        base = self.eval(target.value)
        if not isinstance(base, AbstractArray):
            self.index_items(target)
            self.forget_list(target.value)
            return
        items = self.index_items(target)
        if items is None or base.shape is None:
            return
        val_arg = self.to_arg(value)
        if val_arg is _FAIL:
            return
        dialect = self.dialect_for(base.library)
        rule_items = _rule_index_items(items)
        if rule_items is None:
            return
        value_shape = val_arg.shape if isinstance(val_arg, rt_ops.ArrayArg) else ()
        if isinstance(value, TupleValue):
            value_shape, _ = _literal_shape(value)
            if value_shape is None:
                return
        elif not isinstance(value, (AbstractArray, IntValue, ConstValue)):
            return
        self.run_rule(lambda: rt_indexing.setitem(tuple(base.shape), rule_items, value_shape,
                                                  dialect=dialect),
                      target, [(base, target.value), (value, source)], "assignment", dialect,
                      None, op_name="__setitem__")

    # ------------------------------------------------------------------ shape comments, asserts

    def apply_shape_comments(self, entries: list, line: int) -> None:
        for name, dims in entries:
            shape = []
            for text in dims:
                bound = self.frame.scope.lookup(text)
                if isinstance(bound, IntValue):
                    shape.append(bound.value)
                    continue
                try:
                    from ..runtime.dims import parse_dim
                    shape.append(parse_dim(text))
                except ValueError:
                    shape.append(UNKNOWN)
            current = self.frame.scope.lookup(name)
            library = current.library if isinstance(current, AbstractArray) else "numpy"
            dtype = current.dtype if isinstance(current, AbstractArray) else None
            self.frame.scope.vars[name] = AbstractArray(
                shape=tuple(shape), dtype=dtype, library=library,
                origin=Origin(line, f"# shape: comment"))

    def refine_from_assert(self, test: cst.BaseExpression) -> None:
        """``assert x.shape == (B, 3)`` and ``assert x.ndim == 2`` teach x's shape."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            self.refine_from_assert(test.left)
            self.refine_from_assert(test.right)
            return
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.Equal)):
            return
        left, right = test.left, test.comparisons[0].comparator
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
            if current.shape is None:
                self.frame.scope.vars[name] = replace(current, shape=(UNKNOWN,) * stated.value,
                                                      tail=())

    class _Suppress:
        def __init__(self, interp: "Interpreter"):
            self.interp = interp

        def __enter__(self):
            self.interp.suppress += 1

        def __exit__(self, *exc):
            self.interp.suppress -= 1
            return False

    def suppressed(self) -> "_Suppress":
        return Interpreter._Suppress(self)

    # ------------------------------------------------------------------ expressions

    def eval(self, node: cst.BaseExpression | None) -> Value:
        if node is None:
            return UNKNOWN_VALUE
        handler = getattr(self, "expr_" + type(node).__name__, None)
        if handler is None:
            return UNKNOWN_VALUE
        return handler(node)

    def expr_Name(self, node: cst.Name) -> Value:
        name = node.value
        value = self.frame.scope.lookup(name)
        if value is not None:
            return value
        if name == "None":
            return ConstValue(None)
        if name in ("True", "False"):
            return ConstValue(name == "True")
        if name in self.hints:
            return self.hint_value(name)
        if name in _BUILTINS or name in ("float", "int", "bool", "complex"):
            return ModuleRef(f"builtins.{name}")
        return UNKNOWN_VALUE

    def hint_value(self, name: str) -> Value:
        from ..runtime.dims import parse_dim
        try:
            shape = tuple(parse_dim(t) for t in self.hints[name].split(",") if t.strip())
        except ValueError:
            return UNKNOWN_VALUE
        return AbstractArray(shape=shape, dtype=None, library=self.default_library or "numpy",
                             origin=Origin(0, "config"))

    def expr_Integer(self, node: cst.Integer) -> Value:
        try:
            return IntValue(int(node.evaluated_value))
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
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.eval(part.expression)
        return UNKNOWN_VALUE

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
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self.eval(element.key)
            self.eval(element.value)
        return UNKNOWN_VALUE

    def expr_IfExp(self, node: cst.IfExp) -> Value:
        self.eval(node.test)
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
        """Evaluate a comprehension's element once with its targets bound to one item."""
        saved = self.frame.scope
        scope = Scope(saved, "function")
        self.frame.scope = scope
        try:
            clause = node.for_in
            while clause is not None:
                element = self.element_of(self.eval(clause.iter))
                self.assign(clause.target, element, clause.iter)
                for cond in clause.ifs:
                    self.eval(cond.test)
                clause = clause.inner_for_in
            values = [self.eval(part) for part in parts]
        finally:
            self.frame.scope = saved
        return values[0] if values else UNKNOWN_VALUE

    def expr_ListComp(self, node: cst.ListComp) -> Value:
        return _Iterable(self.comprehension(node, [node.elt]))

    expr_GeneratorExp = expr_ListComp
    expr_SetComp = expr_ListComp

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
            return self.method_op(node, value, name, [], {}, keep_provenance=True)
        return UNKNOWN_VALUE

    def expr_BinaryOperation(self, node: cst.BinaryOperation) -> Value:
        left = self.eval(node.left)
        right = self.eval(node.right)
        op = _BINOPS.get(type(node.operator))
        if op is None:
            return UNKNOWN_VALUE
        return self.binary(node, op, left, right, node.left, node.right)

    def expr_Comparison(self, node: cst.Comparison) -> Value:
        left = self.eval(node.left)
        result: Value = UNKNOWN_VALUE
        left_node = node.left
        for target in node.comparisons:
            right = self.eval(target.comparator)
            op = _COMPARE.get(type(target.operator))
            if op is not None and len(node.comparisons) == 1 and (
                    isinstance(left, AbstractArray) or isinstance(right, AbstractArray)):
                result = self.binary(node, op, left, right, left_node, target.comparator)
            elif op in ("eq", "ne", "lt", "le", "gt", "ge") and len(node.comparisons) == 1 and \
                    isinstance(left, IntValue) and isinstance(right, IntValue) and \
                    isinstance(left.value, int) and isinstance(right.value, int):
                x, y = left.value, right.value
                result = ConstValue({"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y,
                                     "gt": x > y, "ge": x >= y}[op])
            left, left_node = right, target.comparator
        return result

    def expr_Attribute(self, node: cst.Attribute) -> Value:
        base = self.eval(node.value)
        return self.attribute(node, base, node.attr.value)

    def attribute(self, node: cst.CSTNode, base: Value, name: str) -> Value:
        if isinstance(base, ModuleRef):
            return _module_attribute(base, name)
        if isinstance(base, AbstractArray):
            return self.array_attribute(node, base, name)
        if isinstance(base, InstanceValue):
            if name in base.attrs:
                return base.attrs[name]
            member = base.cls.members.get(name)
            if isinstance(member, FunctionValue):
                return BoundMethod(member, base)
            return member if member is not None else UNKNOWN_VALUE
        if isinstance(base, ClassValue):
            return base.members.get(name, UNKNOWN_VALUE)
        if isinstance(base, GeneratorValue):
            return _GeneratorMethod(name)
        if isinstance(base, TupleValue) and name in ("values", "indices") and len(base.items) == 2:
            return base.items[0 if name == "values" else 1]
        return UNKNOWN_VALUE

    def array_attribute(self, node: cst.CSTNode, array: AbstractArray, name: str) -> Value:
        if name == "shape":
            return shape_value(array.shape) if array.shape is not None else UNKNOWN_VALUE
        if name == "ndim":
            return IntValue(len(array.shape)) if array.shape is not None else IntValue(UNKNOWN)
        if name == "size" and array.library == "numpy":
            return IntValue(numel(array.shape)) if array.shape is not None else IntValue(UNKNOWN)
        if name == "dtype":
            return DtypeValue(array.dtype)
        if name in ("T", "mT", "H", "mH"):
            return self.method_op(node, array, name, [], {})
        if name in ("real", "imag", "data", "grad"):
            return array.derived(array.shape, array.origin, tail=array.tail)
        if name in ("device", "flags", "strides", "itemsize", "nbytes", "is_cuda", "layout"):
            return UNKNOWN_VALUE
        return _ArrayMethod(array, name)

    def expr_Subscript(self, node: cst.Subscript) -> Value:
        base = self.eval(node.value)
        if isinstance(base, AbstractArray):
            items = self.index_items(node)
            if items is None or base.shape is None:
                return base.derived(None, self.origin(node), dtype=base.dtype)
            dialect = self.dialect_for(base.library)
            rule_items = _rule_index_items(items)
            if rule_items is None:
                return base.derived(None, self.origin(node), dtype=base.dtype)
            result = self.run_rule(lambda: rt_indexing.index(tuple(base.shape), rule_items,
                                                             dialect=dialect),
                                   node, [(base, node.value)], "index",
                                   dialect, None, op_name="__getitem__")
            explicit = _has_new_axis(items)
            return self.array_result(result, base, node, dtype=base.dtype, explicit_axis=explicit)
        if isinstance(base, TupleValue):
            return self.tuple_index(node, base)
        self.index_items(node)
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
                if not base.is_list and all(isinstance(i, IntValue) for i in base.items) and \
                        isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape":
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
        items = []
        ok = True
        for element in node.slice:
            part = element.slice
            if isinstance(part, cst.Index):
                value = self.eval(part.value)
                if isinstance(value, (ModuleRef,)) and value.qualname == "numpy.newaxis":
                    value = ConstValue(None)
                arg = _index_arg(value)
                if arg is _FAIL:
                    ok = False
                items.append(arg)
            else:
                bounds = []
                for b in (part.lower, part.upper, part.step):
                    value = self.eval(b) if b is not None else ConstValue(None)
                    arg = self.to_arg(value)
                    if arg is _FAIL or not (arg is None or isinstance(arg, int)):
                        ok = False
                    bounds.append(arg)
                items.append(slice(*bounds))
        if not ok:
            return None
        if len(items) == 1 and not (isinstance(node.slice[0].comma, cst.Comma)):
            return items[0]
        return tuple(items)

    # ------------------------------------------------------------------ arithmetic

    def binary(self, node: cst.CSTNode, op: str, left: Value, right: Value,
               left_node: cst.CSTNode, right_node: cst.CSTNode) -> Value:
        if isinstance(left, AbstractArray) or isinstance(right, AbstractArray):
            return self.array_binary(node, op, left, right, left_node, right_node)
        if isinstance(left, IntValue) and isinstance(right, IntValue):
            return _int_arith(op, left.value, right.value)
        if isinstance(left, TupleValue) and isinstance(right, TupleValue) and op == "add":
            return TupleValue(left.items + right.items, left.is_list)
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
                self.to_arg(left) is _FAIL or self.to_arg(right) is _FAIL:
            return AbstractArray(None, None, library, self.origin(node))
        if op in _COMPARE.values():
            name = f"__{op}__"
        else:
            name = f"__{_DUNDER[op]}__"
        operands = [(left, left_node), (right, right_node)]
        args = (self.to_arg(left), self.to_arg(right))
        if not isinstance(left, AbstractArray):
            reflected = name.replace("__", "__r", 1)
            if self.lookup(reflected, dialect) is not None:
                name, args = reflected, (args[1], args[0])
        result = self.apply(name, dialect, args, {}, node, operands, _op_label(op))
        dtype = rt_dtypes.op_result_type(op, _dtype_of(left), _dtype_of(right), dialect,
                                         _ndim_of(left), _ndim_of(right))
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

    # ------------------------------------------------------------------ op table

    def lookup(self, name: str, dialect: Dialect):
        try:
            return rt_ops.lookup(name, dialect)
        except Exception:
            return None

    def to_arg(self, value: Value) -> Any:
        return _to_arg(value)

    def apply(self, name: str, dialect: Dialect, args: tuple, kwargs: dict, node: cst.CSTNode,
              operands: list, label: str) -> Result | None:
        """Run the op table's rule for ``name``; report its error or warnings; None if unknown."""
        spec = self.lookup(name, dialect)
        if spec is None:
            return None
        return self.run_rule(lambda: spec.rule(*args, dialect=dialect, **kwargs), node, operands,
                             label, dialect, spec, op_name=name)

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
        reduction = name.rsplit(".", 1)[-1] in _REDUCTIONS
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
        code = _KIND_CODES.get(err.kind)
        if code is None:
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
        self.report(code, node, message, err.exc_type or "Exception")

    def report_warning(self, warning: RuleWarning, node, operands, label, dialect) -> None:
        code = _WARNING_CODES.get(warning.kind)
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
        arrays = [AbstractArray(tuple(shape), dtype, library, origin, explicit_axis=explicit_axis,
                                requires_grad=base.requires_grad)
                  for shape in result.outputs]
        if len(arrays) == 1:
            return arrays[0]
        return TupleValue(tuple(arrays))

    # ------------------------------------------------------------------ SC102 / SC103

    def check_implicit_outer(self, node, left: AbstractArray, right: AbstractArray,
                             left_node, right_node, result: Result) -> None:
        """(n, 1) op (n,) -> (n, n): both operands stretched, and a size lines up with itself."""
        a, b = left.shape, right.shape
        if left.explicit_axis or right.explicit_axis or len(a) == len(b):
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
        for reduced, reduced_node, other, other_node in (
                (left, left_node, right, right_node), (right, right_node, left, left_node)):
            info = reduced.reduced
            if info is None or info.axis == 0 or other.shape is None or reduced.shape is None:
                continue
            if len(other.shape) != len(info.shape) or len(reduced.shape) != len(info.shape) - 1:
                continue
            if dims_equal(other.shape, info.shape) is False:
                continue
            self.report(
                "SC103", node,
                f"{self.text(reduced_node, 30)} {format_shape(reduced.shape)} was reduced over axis "
                f"{info.axis} of {format_shape(info.shape)} without keepdims, so broadcasting it "
                f"against {self.text(other_node, 30)} {format_shape(other.shape)} lines its axes up "
                f"with the wrong ones; reduce with keepdims=True (keepdim=True in torch)")
            return

    # ------------------------------------------------------------------ calls

    def expr_Call(self, node: cst.Call) -> Value:
        func = self.eval(node.func)
        args: list[Value] = []
        kwargs: dict[str, Value] = {}
        arg_nodes: list[cst.CSTNode] = []
        starred = False
        for arg in node.args:
            value = self.eval(arg.value)
            if arg.star == "*":
                if isinstance(value, TupleValue):
                    args.extend(value.items)
                    arg_nodes.extend([arg.value] * len(value.items))
                else:
                    starred = True
            elif arg.star == "**":
                starred = True
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
                arg_nodes.append(arg.value)
        self.forget_mutated_lists(node, func)
        self.register_module_state(node, args)
        if starred:
            if isinstance(func, (FunctionValue, BoundMethod)):
                return UNKNOWN_VALUE
            return self.unknown_result(func, args)
        return self.call(node, func, args, kwargs, arg_nodes)

    def forget_mutated_lists(self, node: cst.Call, func: Value) -> None:
        """Lists are mutable: after ``rows.append(r)`` (or handing ``rows`` to a function
        that may fill it) the items seen at ``rows = []`` are no longer its items."""
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _LIST_MUTATORS:
            self.forget_list(node.func.value)
        if isinstance(func, ModuleRef) and (func.library in ("numpy", "torch")
                                            or func.qualname in _NON_MUTATING_BUILTINS):
            return
        for arg in node.args:
            self.forget_list(arg.value)

    def register_module_state(self, node: cst.Call, args: list) -> None:
        """``self.register_buffer("bias", t)`` / ``register_parameter`` make ``self.bias`` that tensor."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _STATE_REGISTRARS
                and len(args) >= 2 and isinstance(args[0], ConstValue) and isinstance(args[0].value, str)):
            return
        with self.suppressed():
            owner = self.eval(func.value)
        if isinstance(owner, InstanceValue) and owner.cls.is_nn_module:
            owner.attrs[args[0].value] = args[1]

    def forget_list(self, holder: cst.BaseExpression) -> None:
        """Rebind a name or attribute that holds a list to unknown: its contents changed."""
        if not isinstance(holder, (cst.Name, cst.Attribute)):
            return
        with self.suppressed():
            value = self.eval(holder)
        if isinstance(value, TupleValue) and value.is_list:
            self.assign(holder, UNKNOWN_VALUE, holder)

    def unknown_result(self, func: Value, args: list) -> Value:
        if isinstance(func, _ArrayMethod):
            return AbstractArray(None, None, func.array.library)
        return UNKNOWN_VALUE

    def call(self, node: cst.Call, func: Value, args: list, kwargs: dict, arg_nodes: list) -> Value:
        value = self.dispatch_call(node, func, args, kwargs, arg_nodes)
        if isinstance(func, (FunctionValue, BoundMethod, InstanceValue, LayerValue)):
            # A user function's result is described by the call that produced it.
            if isinstance(value, AbstractArray):
                value = replace(value, origin=self.origin(node))
        return value

    def dispatch_call(self, node: cst.Call, func: Value, args: list, kwargs: dict,
                      arg_nodes: list) -> Value:
        if isinstance(func, ModuleRef):
            if func.qualname.startswith("builtins."):
                return self.call_builtin(node, func.qualname[9:], args, kwargs)
            return self.call_library(node, canonical(func.qualname), args, kwargs, arg_nodes)
        if isinstance(func, _ArrayMethod):
            return self.call_method(node, func.array, func.name, args, kwargs, arg_nodes)
        if isinstance(func, FunctionValue):
            return self.call_function(func, args, kwargs, node)
        if isinstance(func, BoundMethod):
            return self.call_function(func.function, [func.self_value] + args, kwargs, node)
        if isinstance(func, ClassValue):
            return self.instantiate(func, args, kwargs, node)
        if isinstance(func, InstanceValue):
            forward = func.cls.members.get("forward" if func.cls.is_nn_module else "__call__")
            if forward is None:
                forward = func.cls.members.get("__call__")
            if isinstance(forward, FunctionValue):
                return self.call_function(forward, [func] + args, kwargs, node)
            return UNKNOWN_VALUE
        if isinstance(func, LayerValue):
            return self.call_layer(node, func, args, kwargs, arg_nodes)
        if isinstance(func, _GeneratorMethod):
            return self.create(node, "numpy", "random." + func.name, args, kwargs, generator=True)
        return UNKNOWN_VALUE

    def call_builtin(self, node, name: str, args: list, kwargs: dict) -> Value:
        if name == "len" and args:
            value = args[0]
            if isinstance(value, TupleValue):
                return IntValue(len(value.items))
            if isinstance(value, AbstractArray) and value.shape:
                return IntValue(value.shape[0])
            return IntValue(UNKNOWN)
        if name == "range":
            return _Iterable(IntValue(UNKNOWN))
        if name == "enumerate" and args:
            return _Iterable(TupleValue((IntValue(UNKNOWN), self.element_of(args[0]))))
        if name == "zip" and args:
            return _Iterable(TupleValue(tuple(self.element_of(a) for a in args)))
        if name in ("reversed", "sorted", "iter") and args:
            return _Iterable(self.element_of(args[0]))
        if name in ("tuple", "list") and args:
            value = args[0]
            if isinstance(value, TupleValue):
                return TupleValue(value.items, name == "list")
            return UNKNOWN_VALUE
        if name == "int" and args and isinstance(args[0], IntValue):
            return args[0]
        if name == "float" and len(args) == 1 and not kwargs:
            # float('-inf'), float(3): a conversion of a known constant, nothing runs.
            known = args[0].value if isinstance(args[0], (ConstValue, IntValue)) else None
            if isinstance(known, (str, int, float)) and not isinstance(known, bool):
                try:
                    return ConstValue(float(known))
                except (TypeError, ValueError, OverflowError):
                    return UNKNOWN_VALUE
        if name in ("min", "max") and len(args) == 2 and all(isinstance(a, IntValue) for a in args):
            x, y = args[0].value, args[1].value
            if isinstance(x, int) and isinstance(y, int):
                return IntValue(min(x, y) if name == "min" else max(x, y))
            return IntValue(x if eq(x, y) is True else UNKNOWN)
        if name == "abs" and args and isinstance(args[0], AbstractArray):
            return args[0].derived(args[0].shape, args[0].origin, dtype=args[0].dtype)
        if name == "super":
            return UNKNOWN_VALUE
        return UNKNOWN_VALUE

    def element_of(self, value: Value) -> Value:
        if isinstance(value, _Iterable):
            return value.element
        if isinstance(value, TupleValue):
            if not value.items:
                return UNKNOWN_VALUE
            out = value.items[0]
            for item in value.items[1:]:
                out = join_values(out, item)
            return out
        if isinstance(value, AbstractArray):
            if value.shape:
                return value.derived(value.shape[1:], value.origin, dtype=value.dtype)
            return AbstractArray(None, value.dtype, value.library, value.origin)
        return UNKNOWN_VALUE

    # -------------------------------------------------------------- library calls

    def call_library(self, node: cst.Call, qualname: str, args: list, kwargs: dict,
                     arg_nodes: list) -> Value:
        library, _, name = qualname.partition(".")
        if library not in ("numpy", "torch") or qualname.startswith(_NOT_NDARRAY_MODULES) or \
                qualname in _NOT_NDARRAY_FUNCS:
            return UNKNOWN_VALUE  # masked arrays, matrices, records: other semantics
        if qualname.startswith("torch.nn.") and not qualname.startswith("torch.nn.functional."):
            kind = name[3:]
            if kind in LAYER_KINDS or kind in LOSS_LAYERS:
                return self.build_layer(kind, args, kwargs)
            if kind == "ModuleList" and len(args) == 1 and not kwargs and \
                    isinstance(args[0], (_Iterable, TupleValue)):
                # Iterating the container yields its modules: `for block in self.blocks`.
                return args[0]
            return UNKNOWN_VALUE
        if qualname == "numpy.random.default_rng" or qualname == "numpy.random.RandomState":
            return GeneratorValue()
        if name in _DTYPE_NAMES and not args:
            return UNKNOWN_VALUE
        if name in ("ndim", "shape", "size") and library == "numpy" and len(args) == 1 and not kwargs:
            source = args[0]
            shape = source.shape if isinstance(source, AbstractArray) else (
                () if isinstance(source, IntValue) or isinstance(source, ConstValue) and isinstance(
                    source.value, (int, float, bool)) else None)
            if shape is None:
                return UNKNOWN_VALUE if name == "shape" else IntValue(UNKNOWN)
            if name == "ndim":
                return IntValue(len(shape))
            return shape_value(shape) if name == "shape" else IntValue(numel(shape))
        created = self.create(node, library, name, args, kwargs)
        if created is not None:
            return created
        short = name.rsplit(".", 1)[-1]
        if qualname.startswith("torch.nn.functional.") and (
                short in _PAIRWISE_LOSSES or short in _CLASS_TARGET_LOSSES):
            return self.loss(node, short, args, kwargs, arg_nodes)
        if qualname in _SOLVES:
            self.check_solve(node, qualname, args, arg_nodes)
        return self.library_op(node, library, name, args, kwargs, arg_nodes)

    def library_op(self, node, library: str, name: str, args: list, kwargs: dict,
                   arg_nodes: list) -> Value:
        arrays = [v for v in list(args) + list(kwargs.values()) if isinstance(v, AbstractArray)]
        if not arrays:
            for v in args:
                if isinstance(v, TupleValue):
                    arrays.extend(i for i in v.items if isinstance(i, AbstractArray))
        if not arrays:
            return UNKNOWN_VALUE
        lib = library if library == "torch" else self.library_of(arrays, library)
        dialect = self.dialect_for(lib)
        prefix = "np." if library == "numpy" else "torch."
        candidates = [prefix + name]
        if name.startswith("nn.functional."):
            candidates = ["F." + name[len("nn.functional."):], "torch." + name]
        spec_name = next((c for c in candidates if self.lookup(c, dialect) is not None), None)
        short = name.rsplit(".", 1)[-1]
        operands = [(v, n) for v, n in zip(args, arg_nodes)]
        for value, value_node in zip(args, arg_nodes):
            if isinstance(value, TupleValue):  # cat([a, b]), stack((a, b))
                nodes = [el.value for el in value_node.elements] if isinstance(
                    value_node, (cst.List, cst.Tuple)) and len(value_node.elements) == len(
                    value.items) else [value_node] * len(value.items)
                operands.extend((i, n) for i, n in zip(value.items, nodes)
                                if isinstance(i, AbstractArray))
        origin_array = arrays[0]
        dtype = origin_array.dtype if short not in ("argmax", "argmin") else "int64"
        if spec_name is None or any(isinstance(v, AbstractArray) and v.shape is None for v in arrays):
            if short in _ELEMENTWISE and args and isinstance(args[0], AbstractArray):
                return args[0].derived(args[0].shape, self.origin(node),
                                       dtype=dtype, reduced=args[0].reduced,
                                       explicit_axis=args[0].explicit_axis)
            return AbstractArray(None, None, lib, self.origin(node))
        if set(kwargs) & _UNMODELED_KWARGS or short in ("matmul", "vecdot", "matvec", "vecmat") \
                and ("axes" in kwargs or "axis" in kwargs):
            return AbstractArray(None, None, lib, self.origin(node))
        joins = short in _JOIN_FUNCS
        conv_args = tuple(_to_arg(v, joins) for v in args)
        conv_kwargs = {k: _to_arg(v) for k, v in kwargs.items()}
        if any(a is _FAIL for a in conv_args) or any(a is _FAIL for a in conv_kwargs.values()):
            return AbstractArray(None, None, lib, self.origin(node))
        label = f"{'np' if library == 'numpy' else 'torch'}.{name}"
        out_value = kwargs.get("out")
        if isinstance(out_value, AbstractArray):
            out_node = next((a.value for a in getattr(node, "args", ()) if a.keyword is not None
                             and a.keyword.value == "out"), node)
            operands.append((out_value, out_node))
        if isinstance(out_value, AbstractArray) and "out" in conv_kwargs:
            result = self.apply_with_out(spec_name, dialect, conv_args, conv_kwargs, node,
                                         operands, label)
        else:
            result = self.apply(spec_name, dialect, conv_args, conv_kwargs, node, operands, label)
        if short in _BINARY_UFUNCS and len(args) >= 2 and all(
                isinstance(a, AbstractArray) for a in args[:2]) and result is not None:
            self.check_implicit_outer(node, args[0], args[1], arg_nodes[0], arg_nodes[1], result)
            self.check_reduced_axis(node, args[0], args[1], arg_nodes[0], arg_nodes[1])
        out = self.array_result(result, origin_array, node, dtype=dtype, library=lib,
                                explicit_axis=short in _NEW_AXIS_OPS)
        return self.with_reduction(out, short, origin_array, args[1:], kwargs)

    def with_reduction(self, out: Value, name: str, source: AbstractArray, rest: list,
                       kwargs: dict) -> Value:
        """Mark a reduction over one axis without keepdims (SC103's provenance)."""
        if name not in _REDUCTIONS or source.shape is None or len(source.shape) < 2:
            return out
        axis = kwargs.get("axis", kwargs.get("dim", rest[0] if rest else None))
        # torch's second positional is keepdim; numpy's is dtype.
        positional_keep = rest[1] if len(rest) > 1 and source.library == "torch" else None
        keep = kwargs.get("keepdims", kwargs.get("keepdim", positional_keep))
        if isinstance(keep, ConstValue) and keep.value is True:
            if isinstance(out, AbstractArray):
                return replace(out, explicit_axis=True)
            return out
        if not (isinstance(axis, IntValue) and isinstance(axis.value, int)) or keep not in (
                None, ConstValue(False)):
            return out
        normalized = normalize_axis(axis.value, len(source.shape))
        if normalized is None:
            return out
        mark = Reduction(tuple(source.shape), normalized)
        if isinstance(out, AbstractArray) and out.shape is not None:
            return replace(out, reduced=mark)
        if isinstance(out, TupleValue) and out.items and isinstance(out.items[0], AbstractArray):
            return TupleValue((replace(out.items[0], reduced=mark),) + out.items[1:], out.is_list)
        return out

    def call_method(self, node: cst.Call, array: AbstractArray, name: str, args: list,
                    kwargs: dict, arg_nodes: list) -> Value:
        origin = self.origin(node)
        if name == "size" and array.library == "torch":
            if array.shape is None:
                if args and isinstance(args[0], IntValue) and isinstance(args[0].value, int) \
                        and array.tail and -len(array.tail) <= args[0].value < 0:
                    return IntValue(array.tail[args[0].value])
                return IntValue(UNKNOWN) if args else UNKNOWN_VALUE
            if not args:
                return shape_value(array.shape)
            if isinstance(args[0], IntValue) and isinstance(args[0].value, int):
                axis = normalize_axis(args[0].value, len(array.shape))
                return IntValue(array.shape[axis]) if axis is not None else IntValue(UNKNOWN)
            return IntValue(UNKNOWN)
        if name in ("dim", "ndimension"):
            return IntValue(len(array.shape)) if array.shape is not None else IntValue(UNKNOWN)
        if name in ("numel", "nelement"):
            return IntValue(numel(array.shape)) if array.shape is not None else IntValue(UNKNOWN)
        if name in ("item", "tolist", "data_ptr", "is_contiguous"):
            return UNKNOWN_VALUE
        if name in ("copy_",):
            if args:
                self.inplace_op(node, array, node.func.value, "copy_", [(args[0], arg_nodes[0])],
                                "copy_")
            return array
        if name.endswith("_") and not name.startswith("_"):
            others = list(zip(args, arg_nodes))
            self.inplace_op(node, array, node.func.value, name, others, name, kwargs)
            return array
        dtype = array.dtype
        library = array.library
        if name == "numpy":
            return replace(array, library="numpy", origin=origin, alias=None)
        if name in ("astype", "type") and (args or "dtype" in kwargs) or \
                name == "view" and array.library == "numpy":
            target = args[0] if args else kwargs.get("dtype")
            dtype = _dtype_from(target, array.library)
            if dtype is None or name == "view" and dtype != array.dtype:
                # Structured, string or unknown dtypes; a numpy view may change the itemsize.
                return AbstractArray(None, None, array.library, origin)
            return replace(array, dtype=dtype, origin=origin, alias=None, explicit_axis=False,
                           reduced=None)
        if name == "to" and args:
            if isinstance(args[0], AbstractArray):
                dtype = args[0].dtype
            elif _dtype_from(args[0], array.library) is not None:
                dtype = _dtype_from(args[0], array.library)
            elif not (isinstance(args[0], ConstValue) and isinstance(args[0].value, str)):
                dtype = None  # a device, or something else: the dtype may change
            return replace(array, dtype=dtype, origin=origin, alias=None)
        if "dtype" in kwargs:
            dtype = _dtype_from(kwargs["dtype"], array.library)
        if name in _DTYPE_METHODS and array.library == "torch" and not args:
            dtype = _DTYPE_METHODS[name]
        if name in ("argmax", "argmin"):
            dtype = "int64"
        if name.startswith("__"):
            return UNKNOWN_VALUE  # explicit dunder calls: rare, and not worth the guesswork
        result = self.method_op(node, array, name, args, kwargs, dtype=dtype, arg_nodes=arg_nodes)
        if isinstance(result, AbstractArray) and name in ("unsqueeze", "expand_dims"):
            result = replace(result, explicit_axis=True)
        return self.with_reduction(result, name, array, args, kwargs)

    def method_op(self, node, array: AbstractArray, name: str | None, args: list, kwargs: dict, *,
                  dtype: str | None = None, keep_provenance: bool = False,
                  arg_nodes: list | None = None) -> Value:
        origin = self.origin(node)
        if name is None:
            return AbstractArray(None, dtype, array.library, origin)
        dialect = self.dialect_for(array.library)
        conv_args = tuple(self.to_arg(v) for v in args)
        conv_kwargs = {k: self.to_arg(v) for k, v in kwargs.items()}
        if array.shape is None or any(a is _FAIL for a in conv_args) or any(
                a is _FAIL for a in conv_kwargs.values()) or self.lookup(name, dialect) is None:
            if name in _ELEMENTWISE or keep_provenance or name in _DTYPE_METHODS and not args \
                    or name in ("astype", "to", "type", "detach", "clone", "copy", "contiguous",
                                "cpu", "cuda", "requires_grad_"):
                return replace(array, origin=origin, dtype=dtype, alias=None)
            if array.shape is not None and name in _REDUCTIONS and self.lookup(name, dialect) is None:
                reduced = self.fallback_reduce(node, array, name, args, kwargs, dialect, dtype)
                if reduced is not None:
                    return reduced
            if self.lookup(name, dialect) is None and name not in _REDUCTIONS and \
                    name not in _SHAPE_METHODS:
                return UNKNOWN_VALUE
            return AbstractArray(None, dtype, array.library, origin)
        func_node = getattr(node, "func", node)
        operands = [(array, func_node.value if isinstance(func_node, cst.Attribute) else node)]
        operands += list(zip(args, arg_nodes or [node] * len(args)))
        result = self.apply(name, dialect, (_array_arg(array),) + conv_args, conv_kwargs, node,
                            operands, f".{name}()")
        out = self.array_result(result, array, node, dtype=dtype)
        if (keep_provenance or name in _ELEMENTWISE) and isinstance(out, AbstractArray):
            out = replace(out, reduced=array.reduced, explicit_axis=array.explicit_axis)
        return out

    def fallback_reduce(self, node, array: AbstractArray, name: str, args: list, kwargs: dict,
                        dialect: Dialect, dtype: str | None) -> Value | None:
        """Reductions the op table lacks (ndarray.max, Tensor.argmax, ...) go to the reduce rule."""
        torch = array.library == "torch"
        axis = kwargs.get("dim" if torch else "axis", args[0] if args else None)
        keep = kwargs.get("keepdim" if torch else "keepdims", args[1] if len(args) > 1 and torch else None)
        if axis is None:
            axis_arg = None
        else:
            axis_arg = _to_arg(axis)
            if axis_arg is _FAIL or isinstance(axis, AbstractArray):
                return None
        if keep is None:
            keep_arg = False
        elif isinstance(keep, ConstValue) and isinstance(keep.value, bool):
            keep_arg = keep.value
        else:
            return None
        result = self.run_rule(
            lambda: rt_shape_ops.reduce(tuple(array.shape), axis_arg, keep_arg, op=name,
                                        dialect=dialect),
            node, [(array, node.func.value if isinstance(node, cst.Call) and isinstance(
                node.func, cst.Attribute) else node)], f".{name}()", dialect, None, op_name=name)
        out = self.array_result(result, array, node, dtype=dtype)
        if isinstance(out, TupleValue) and len(out.items) == 2:
            values, indices = out.items
            out = TupleValue((values, replace(indices, dtype="int64")))
        return out

    def inplace_op(self, node, target: AbstractArray, target_node, op: str, others: list,
                   name: str, kwargs: dict | None = None) -> None:
        """x += y, x.add_(y), x.copy_(y): the result must fit x's shape and dtype."""
        if target.shape is None:
            return
        dialect = self.dialect_for(target.library)
        args = [self.to_arg(v) for v, _ in others]
        if any(a is _FAIL for a in args) or any(
                isinstance(v, AbstractArray) and v.shape is None for v, _ in others):
            return
        operands = [(target, target_node)] + others
        label = name if not name.startswith("__") else _AUG_LABEL.get(name, name)
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
        result_dtype = rt_dtypes.op_result_type(base_op, target.dtype, _dtype_of(other), dialect,
                                                _ndim_of(target), _ndim_of(other))
        try:
            rt_dtypes.inplace_dtype(target.dtype, result_dtype, op=base_op, dialect=dialect)
        except ShapeError as err:
            self.report_error(err, node, operands, label, dialect, None)

    def _apply_inplace(self, name, dialect, target, args, kwargs, node, operands, label):
        return self.apply(name, dialect, (_array_arg(target),) + tuple(args), {
            k: a for k, a in ((k, self.to_arg(v)) for k, v in (kwargs or {}).items())
            if a is not _FAIL}, node, operands, label)

    # -------------------------------------------------------------- creation

    def create(self, node, library: str, name: str, args: list, kwargs: dict,
               generator: bool = False) -> Value | None:
        """Arrays made by creation functions: shape from size arguments or literal nesting."""
        torch = library == "torch"
        origin = self.origin(node)
        default_float = "float32" if torch else "float64"
        dtype = _dtype_from(kwargs.get("dtype"), library) if "dtype" in kwargs else None
        if ("dtype" in kwargs and dtype is None) or set(kwargs) - _CREATION_KWARGS:
            # Object, structured or string dtypes, ndmin=...: shapes we do not model.
            if name in _CREATORS or name.startswith("random.") or generator:
                return AbstractArray(None, None, library, origin)
            return None
        grad = isinstance(kwargs.get("requires_grad"), ConstValue) and kwargs["requires_grad"].value is True

        def make(shape, default_dtype=default_float) -> AbstractArray:
            return AbstractArray(shape=None if shape is None else tuple(shape),
                                 dtype=dtype or default_dtype, library=library, origin=origin,
                                 requires_grad=grad)

        positional_dtype = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1,
                            "arange": None}.get(name) if not torch else None
        if positional_dtype is not None and len(args) > positional_dtype:
            dtype = _dtype_from(args[positional_dtype], library)
            if dtype is None:
                return AbstractArray(None, None, library, origin)
            args = list(args[:positional_dtype])
        if name in ("zeros", "ones", "empty", "rand", "randn") and not (
                name in ("rand", "randn") and not torch):
            return make(_size_args(args, kwargs, torch))
        if name in ("random.rand", "random.randn") and not generator:
            return make(_size_args(args, {}, True))
        if name == "full":
            fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
            default = "int64" if isinstance(fill, IntValue) else (
                "bool" if isinstance(fill, ConstValue) and isinstance(fill.value, bool) else default_float)
            return make(_size_args(args[:1], kwargs, False), default)
        if name in ("eye", "identity"):
            n = args[0] if args else kwargs.get("N", kwargs.get("n"))
            m = args[1] if len(args) > 1 and name == "eye" else kwargs.get("M", kwargs.get("m", n))
            if isinstance(n, IntValue) and isinstance(m, IntValue):
                return make((n.value, m.value))
            return make(None)
        if name == "arange":
            return make(_arange_shape(args), _arange_dtype(args, kwargs, torch, default_float))
        if name in ("linspace", "logspace"):
            num = args[2] if len(args) > 2 else kwargs.get("num", kwargs.get("steps",
                                                                                IntValue(50) if not torch else None))
            return make((num.value,) if isinstance(num, IntValue) else None)
        if name in ("array", "asarray", "tensor", "as_tensor", "asanyarray", "ascontiguousarray",
                    "from_numpy", "asfortranarray", "copy"):
            if not args:
                return None
            source = args[0]
            if isinstance(source, AbstractArray):
                return replace(source, library=library, origin=origin, dtype=dtype or source.dtype,
                               alias=None, requires_grad=grad)
            shape, kind = _literal_shape(source)
            if shape is None:
                return make(None, None)
            default = {"int": "int64", "float": default_float, "bool": "bool"}.get(kind)
            return make(shape, default)
        if name.endswith("_like") and name[:-5] in ("zeros", "ones", "empty", "full", "rand",
                                                     "randn", "randint"):
            source = args[0] if args else kwargs.get("input", kwargs.get("a"))
            if isinstance(source, AbstractArray):
                return AbstractArray(source.shape, dtype or source.dtype, library, origin,
                                     tail=source.tail, requires_grad=grad)
            return None
        if generator or name.startswith("random."):
            short = name.split(".", 1)[1] if "." in name else name
            size = kwargs.get("size")
            positions = {"normal": 2, "uniform": 2, "randint": 2, "integers": 2, "random": 0,
                         "random_sample": 0, "standard_normal": 0, "rand": None, "randn": None,
                         "poisson": 1, "binomial": 2, "exponential": 1, "choice": 1,
                         "permutation": None, "beta": 2, "gamma": 2, "laplace": 2}
            if short not in positions:
                return None
            if short in ("randint", "integers"):
                default = "int64"
            else:
                default = "float64"
            if short in ("rand", "randn") and generator:
                return None
            position = positions[short]
            if size is None and position is not None and len(args) > position:
                size = args[position]
            if size is None or isinstance(size, ConstValue) and size.value is None:
                return UNKNOWN_VALUE  # a scalar
            dims = dims_of(size)
            return make(dims, default)
        if torch and name == "randint":
            size = kwargs.get("size")
            if size is None:
                tuples = [a for a in args if isinstance(a, TupleValue)]
                size = tuples[0] if tuples else None
            return make(dims_of(size) if size is not None else None, "int64")
        return None

    # -------------------------------------------------------------- losses and solve

    def loss(self, node, name: str, args: list, kwargs: dict, arg_nodes: list) -> Value:
        pred = args[0] if args else kwargs.get("input")
        target = args[1] if len(args) > 1 else kwargs.get("target")
        pred_node = arg_nodes[0] if arg_nodes else node
        target_node = arg_nodes[1] if len(arg_nodes) > 1 else node
        return self.check_loss(node, name, pred, target, pred_node, target_node, kwargs)

    def check_loss(self, node, name: str, pred: Value, target: Value, pred_node, target_node,
                   kwargs: dict) -> Value:
        origin = self.origin(node)
        reduction = kwargs.get("reduction")
        scalar = AbstractArray((), "float32", "torch", origin)
        if not (isinstance(pred, AbstractArray) and isinstance(target, AbstractArray)) or \
                pred.shape is None or target.shape is None:
            return scalar if reduction is None else AbstractArray(None, "float32", "torch", origin)
        a, b = pred.shape, target.shape
        operands = [(pred, pred_node), (target, target_node)]
        where = f" ({self.describe(operands)})"
        dialect = self.dialect_for("torch")
        if name in _PAIRWISE_LOSSES:
            if dims_equal(a, b) is False:
                if name == "binary_cross_entropy_with_logits":
                    text = f"Target size (torch.Size({list(b)})) must be the same as input size (torch.Size({list(a)}))"
                elif name == "binary_cross_entropy":
                    text = (f"Using a target size (torch.Size({list(b)})) that is different to the input size "
                            f"(torch.Size({list(a)})) is deprecated. Please ensure they have the same size.")
                else:
                    text = (f"Using a target size (torch.Size({list(b)})) that is different to the input size "
                            f"(torch.Size({list(a)})). This will likely lead to incorrect results due to "
                            f"broadcasting. Please ensure they have the same size.")
                if broadcastable(a, b) is False and name not in (
                        "binary_cross_entropy_with_logits", "binary_cross_entropy"):
                    self.run_rule(lambda: broadcast_shapes(a, b, dialect=dialect), node, operands,
                                  f"F.{name}", dialect, None, op_name=name)
                else:
                    self.report("SC107", node,
                                f"F.{name} input {format_shape(a)} and target {format_shape(b)} differ"
                                f"{where}; torch: {text}")
            if isinstance(reduction, ConstValue) and reduction.value == "none":
                try:
                    return AbstractArray(broadcast_shapes(a, b, dialect=dialect).shape, "float32",
                                         "torch", origin)
                except ShapeError:
                    return AbstractArray(None, "float32", "torch", origin)
            return scalar
        # cross_entropy / nll_loss: class indices (N,) for input (N, C), or probabilities like input.
        if len(a) >= 2 and len(b) == len(a) - 1:
            expected = (a[0],) + tuple(a[2:])
            if dims_equal(expected, b) is False:
                if eq(a[0], b[0]) is False:
                    text = f"Expected input batch_size ({a[0]}) to match target batch_size ({b[0]})."
                else:
                    text = f"expected target size {format_shape(expected, 'torch')}, got {format_shape(b, 'torch')}"
                self.report("SC107", node, f"F.{name} input {format_shape(a)} needs class-index target "
                            f"{format_shape(expected)}, got {format_shape(b)}{where}; torch: {text}")
        elif len(a) >= 1 and len(b) == len(a):
            if target.dtype is not None and target.dtype.startswith(("int", "uint")) and len(a) == 2 \
                    and is_one(b[1]) is True:
                self.report("SC107", node, f"F.{name} input {format_shape(a)} with class-index target "
                            f"{format_shape(b)}: the target needs shape {format_shape(a[:1])}{where}; "
                            f"torch: 0D or 1D target tensor expected, multi-target not supported")
            elif dims_equal(a, b) is False and name == "cross_entropy" and not (
                    target.dtype or "").startswith(("int", "uint")):
                self.report("SC107", node, f"F.{name} input {format_shape(a)} and probability target "
                            f"{format_shape(b)} differ{where}")
        if isinstance(reduction, ConstValue) and reduction.value == "none" and len(a) >= 2:
            return AbstractArray((a[0],) + tuple(a[2:]), "float32", "torch", origin)
        return scalar

    def check_solve(self, node, qualname: str, args: list, arg_nodes: list) -> None:
        """SC110: the same solve(a, b) means different things in NumPy 2, NumPy 1 and torch."""
        if len(args) < 2 or not all(isinstance(v, AbstractArray) and v.shape is not None
                                    for v in args[:2]):
            return
        a, b = args[0], args[1]
        outcomes = {}
        names = {"numpy": "np.linalg.solve", "numpy-1": "np.linalg.solve",
                 "torch": "torch.linalg.solve"}
        for dialect in (NUMPY, NUMPY1, TORCH):
            spec = self.lookup(names[dialect.name], dialect)
            if spec is None:
                return
            try:
                res = spec.rule(_array_arg(a), _array_arg(b), dialect=dialect)
                outcomes[dialect.name] = format_shape(res.shape)
            except ShapeError:
                outcomes[dialect.name] = "an error"
            except Exception:
                return
        own = "torch" if qualname.startswith("torch") else (
            "numpy-1" if self.numpy_dialect.legacy else "numpy")
        if outcomes[own] == "an error" or len(set(outcomes.values())) == 1:
            return
        listed = ", ".join(f"{k}: {v}" for k, v in outcomes.items())
        self.report("SC110", node,
                    f"solve(a {format_shape(a.shape)}, b {format_shape(b.shape)}) depends on the "
                    f"library: b is read as a stack of vectors by some and of matrices by others "
                    f"({listed}); make b's role explicit with b[..., None] and [..., 0]")

    # -------------------------------------------------------------- nn layers

    def build_layer(self, kind: str, args: list, kwargs: dict) -> Value:
        if kind == "Sequential":
            return LayerValue(kind, layers=tuple(args))
        return LayerValue(kind, tuple(args), tuple(sorted(kwargs.items())))

    def call_layer(self, node, layer: LayerValue, args: list, kwargs: dict, arg_nodes: list) -> Value:
        if layer.kind in LOSS_LAYERS:
            name = LOSS_LAYERS[layer.kind]
            layer_kwargs = dict(layer.kwargs)
            if len(args) >= 2:
                return self.check_loss(node, name, args[0], args[1], arg_nodes[0], arg_nodes[1],
                                       layer_kwargs)
            return UNKNOWN_VALUE
        if layer.kind == "Sequential":
            value = args[0] if args else UNKNOWN_VALUE
            for child in layer.layers:
                value = self.call(node, child, [value], {}, arg_nodes[:1])
            return value
        if not args or not isinstance(args[0], AbstractArray):
            return UNKNOWN_VALUE
        x = args[0]
        origin = self.origin(node)
        verdict = apply_layer(layer, x, self.dialect_for("torch"), self.lookup)
        if isinstance(verdict, ShapeError):
            self.report_error(verdict, node, [(x, arg_nodes[0] if arg_nodes else node)],
                              f"nn.{layer.kind}", self.dialect_for("torch"), None)
            return AbstractArray(None, x.dtype, "torch", origin)
        shape, dtype = verdict
        return AbstractArray(shape, dtype if dtype is not None else x.dtype, "torch", origin,
                             tail=x.tail if shape is None and layer.kind in _SHAPE_PRESERVING else ())

    # -------------------------------------------------------------- user functions

    def call_function(self, func: FunctionValue, args: list, kwargs: dict,
                      node: cst.CSTNode | None = None) -> Value:
        if id(func) in self.active or len(self.active) >= MAX_CALL_DEPTH:
            return UNKNOWN_VALUE
        informative = any(_informative(a) for a in args if not isinstance(a, InstanceValue)) or \
            any(_informative(v) for v in kwargs.values())
        if not informative or self.specializations >= MAX_SPECIALIZATIONS:
            if func.owner is not None and args and isinstance(args[0], InstanceValue):
                self.standalone(func)
                return self.specialize(func, args, kwargs, node)
            return self.function_summary(func)
        self.standalone(func)
        return self.specialize(func, args, kwargs, node)

    def specialize(self, func: FunctionValue, args: list, kwargs: dict, node) -> Value:
        """The callee analyzed with this call's arguments (cached per argument shapes)."""
        key = (id(func), tuple(_key(a) for a in args),
               tuple(sorted((k, _key(v)) for k, v in kwargs.items())))
        if key not in self.summaries:
            if self.specializations >= MAX_SPECIALIZATIONS:
                return self.function_summary(func)
            self.specializations += 1
            self.capture.append({})
            try:
                result = self.analyze_function(func, args, kwargs)
            finally:
                captured = self.capture.pop()
            self.summaries[key] = (result, captured)
        result, captured = self.summaries[key]
        if node is not None and captured:
            self.emit_at_call(node, func.name, captured)
        return result

    def function_summary(self, func: FunctionValue, self_value: Value | None = None) -> Value:
        """The function analyzed once from its annotations and defaults; findings reported."""
        key = (id(func), "summary")
        if key in self.summaries:
            return self.summaries[key]
        if id(func) in self.active:
            return UNKNOWN_VALUE
        self.analyzed.add(id(func))
        self.summaries[key] = UNKNOWN_VALUE
        args = [self_value] if self_value is not None else []
        result = self.analyze_function(func, args, {})
        self.summaries[key] = result
        return result

    def analyze_function(self, func: FunctionValue, args: list, kwargs: dict) -> Value:
        node: cst.FunctionDef = func.node
        scope = Scope(func.scope, "function")
        saved_frame, saved_flow = self.frame, self.flow
        self.frame = _Frame(scope)
        self.flow = None
        self.active.append(id(func))
        try:
            self.bind_params(node, scope, args, kwargs, func)
            if isinstance(node.body, cst.IndentedBlock):
                self.exec_block(node.body.body)
            else:
                self.exec_block([node.body])
            frame = self.frame
        finally:
            self.active.pop()
            self.frame, self.flow = saved_frame, saved_flow
        if frame.is_generator or node.asynchronous is not None:
            return UNKNOWN_VALUE
        returns = frame.returns if frame.returns else [ConstValue(None)]
        if self.flow is None and frame.returns and _may_fall_through(node):
            returns = returns + [ConstValue(None)]
        out = returns[0]
        for value in returns[1:]:
            out = join_values(out, value)
        if isinstance(out, AbstractArray) and node.returns is not None and out.shape is None:
            declared = self.annotation_value(node.returns.annotation, node)
            if isinstance(declared, AbstractArray):
                out = declared
        return out

    def bind_params(self, node: cst.FunctionDef, scope: Scope, args: list, kwargs: dict,
                    func: FunctionValue) -> None:
        params = node.params
        positional = list(params.posonly_params) + list(params.params)
        saved = self.frame.scope
        self.frame.scope = func.scope  # defaults and annotations see the defining scope
        try:
            for i, param in enumerate(positional):
                name = param.name.value
                if i < len(args):
                    value = args[i]
                    if not _informative(value):
                        value = self.param_value(param, func) if value is not None else UNKNOWN_VALUE
                elif name in kwargs:
                    value = kwargs[name] if _informative(kwargs[name]) else self.param_value(param, func)
                else:
                    value = self.param_value(param, func)
                scope.vars[name] = value
            for param in params.kwonly_params:
                name = param.name.value
                value = kwargs.get(name)
                scope.vars[name] = value if value is not None and _informative(value) else \
                    self.param_value(param, func)
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    scope.vars[star.name.value] = UNKNOWN_VALUE
        finally:
            self.frame.scope = saved

    def param_value(self, param: cst.Param, func: FunctionValue) -> Value:
        value = self.declared_param_value(param, func)
        if value is UNKNOWN_VALUE and param.name.value in self.hints:
            return self.hint_value(param.name.value)  # shape_hints from the config
        return value

    def declared_param_value(self, param: cst.Param, func: FunctionValue) -> Value:
        if param.annotation is not None:
            value = self.annotation_value(param.annotation.annotation, param)
            if value is not None:
                return value
            with self.suppressed():
                declared = self.eval(param.annotation.annotation)
            if isinstance(declared, ClassValue) and func.owner is not declared:
                return self.instantiate(declared, [], {})
            ann = param.annotation.annotation
            if isinstance(ann, cst.Name) and ann.value == "int" and param.default is None:
                return IntValue(sym(param.name.value))
        if param.default is not None:
            with self.suppressed():
                default = self.eval(param.default)
            if isinstance(default, IntValue):
                return default
        return UNKNOWN_VALUE

    def annotation_value(self, annotation: cst.BaseExpression, where: cst.CSTNode) -> Value | None:
        what = where.name.value if isinstance(where, cst.Param) else self.text(where, 20)
        with self.suppressed():
            value = array_from_annotation(annotation, self.eval, 0, what)
        if value is not None:
            value = replace(value, origin=Origin(0, what, where))
        return value

    # -------------------------------------------------------------- classes

    def instantiate(self, cls: ClassValue, args: list, kwargs: dict,
                    node: cst.CSTNode | None = None) -> Value:
        instance = InstanceValue(cls)
        init = cls.members.get("__init__")
        if isinstance(init, FunctionValue) and len(self.active) < MAX_CALL_DEPTH and \
                id(init) not in self.active and self.specializations < MAX_SPECIALIZATIONS:
            self.specializations += 1
            if node is not None:
                self.standalone(init)
            self.capture.append({})
            try:
                self.analyze_function(init, [instance] + args, kwargs)
            finally:
                captured = self.capture.pop()
            if node is not None:
                self.emit_at_call(node, f"{cls.name}.__init__", captured)
        return instance

    def analyze_class(self, cls: ClassValue) -> None:
        """Each method once, with ``self`` carrying the attributes __init__ sets."""
        if id(cls) in self.analyzed:
            return
        self.analyzed.add(id(cls))
        prototype = InstanceValue(cls)
        methods = [v for k, v in cls.members.items() if isinstance(v, FunctionValue)
                   and v.node is not None and _defined_in(v, cls)]
        init = cls.members.get("__init__")
        ordered = ([init] if isinstance(init, FunctionValue) and init in methods else []) + \
            [m for m in methods if m is not init]
        for method in ordered:
            if id(method) in self.analyzed:
                continue
            static = any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
                         for d in method.node.decorators)
            self.function_summary(method, None if static else prototype)

    # ------------------------------------------------------------------ module entry


_CREATION_KWARGS = frozenset({"dtype", "requires_grad", "device", "order", "copy", "like", "size",
                               "shape", "fill_value", "N", "M", "n", "m", "k", "num", "steps",
                               "endpoint", "start", "stop", "end", "step", "low", "high", "loc",
                               "scale", "pin_memory", "layout", "generator", "out", "input", "a"})
_CREATORS = frozenset({"zeros", "ones", "empty", "full", "eye", "identity", "arange", "linspace",
                       "logspace", "array", "asarray", "tensor", "as_tensor", "asanyarray",
                       "ascontiguousarray", "from_numpy", "asfortranarray", "copy", "rand", "randn",
                       "randint", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
                       "randn_like", "randint_like"})
_RAISES_CONTEXTS = frozenset({"raises", "assert_raises", "assertRaises", "assert_raises_regex",
                              "assertRaisesRegex", "raises_regex", "warns", "assert_warns"})
_EXCEPTION_PARENTS = {
    "AxisError": ("ValueError", "IndexError"), "UFuncTypeError": ("TypeError",),
    "LinAlgError": ("ValueError",), "IndexError": ("LookupError",),
}


def _callee_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _catches(caught: set, exc_type: str) -> bool:
    names = {exc_type, "Exception", "BaseException"}
    names.update(_EXCEPTION_PARENTS.get(exc_type, ()))
    return bool(caught & names) or exc_type == "Exception" and bool(caught)


def _defined_in(func: FunctionValue, cls: ClassValue) -> bool:
    return func.owner is cls


def _may_fall_through(node: cst.FunctionDef) -> bool:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
    if not body:
        return True
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine) and any(
            isinstance(s, (cst.Return, cst.Raise)) for s in last.body):
        return False
    return True


# ---------------------------------------------------------------------- value helpers

class _Fail:
    def __repr__(self) -> str:
        return "<cannot convert>"


_FAIL = _Fail()


def _array_arg(array: AbstractArray):
    return rt_ops.ArrayArg(tuple(array.shape), array.dtype)


def _to_arg(value: Value, joins: bool = False) -> Any:
    """An abstract value as the op table's rules take it, or _FAIL.

    A list of arrays is a list of ArrayArg only for joins (concatenate,
    stack); elsewhere NumPy reads it as one array, so it becomes one
    ArrayArg of the stacked shape.
    """
    if isinstance(value, AbstractArray):
        return _array_arg(value) if value.shape is not None else _FAIL
    if isinstance(value, IntValue):
        return value.value
    if isinstance(value, ConstValue):
        return value.value
    if isinstance(value, TupleValue):
        items = [_to_arg(v) for v in value.items]
        if any(i is _FAIL for i in items):
            return _FAIL
        if not joins and any(isinstance(v, AbstractArray) for v in value.items):
            shapes = {v.shape if isinstance(v, AbstractArray) else None for v in value.items}
            if len(shapes) != 1 or None in shapes:
                return _FAIL
            first = value.items[0]
            return rt_ops.ArrayArg((len(value.items),) + tuple(first.shape), first.dtype)
        return list(items) if value.is_list else tuple(items)
    if isinstance(value, SliceValue):
        return slice(_to_arg(value.start), _to_arg(value.stop), _to_arg(value.step))
    if isinstance(value, DtypeValue):
        return value.name if value.name is not None else _FAIL
    if isinstance(value, ModuleRef):
        short = value.qualname.rsplit(".", 1)[-1]
        if value.qualname == "numpy.newaxis":
            return None
        if short in _DTYPE_NAMES:
            return _DTYPE_NAMES[short] if value.library == "numpy" else _TORCH_DTYPE_NAMES[short]
    return _FAIL


def _index_arg(value: Value) -> Any:
    """One index item as the op table takes it; _FAIL for field names and unknown kinds."""
    if isinstance(value, AbstractArray):
        if value.shape is None or value.dtype is None or not (
                value.dtype == "bool" or value.dtype.startswith(("int", "uint"))):
            return _FAIL
        return _array_arg(value)
    if isinstance(value, TupleValue) and value.is_list:
        if all(isinstance(v, IntValue) for v in value.items):
            return rt_ops.ArrayArg((len(value.items),), "int64")
        if all(isinstance(v, ConstValue) and isinstance(v.value, bool) for v in value.items):
            return rt_ops.ArrayArg((len(value.items),), "bool")
        return _FAIL
    if isinstance(value, IntValue):
        return value.value if value.value is not UNKNOWN else _FAIL
    if isinstance(value, ConstValue) and (value.value is None or value.value is Ellipsis):
        return value.value
    if isinstance(value, SliceValue):
        return _to_arg(value)
    return _FAIL


def _rule_index_items(key: Any) -> tuple | None:
    """Index items for runtime.rules.indexing, or None when the key is not understood.

    A Python bool index is left unknown: its meaning (a 0-d mask) is rarely intended.
    """
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(part, bool) for part in parts):
        return None
    try:
        return rt_ops.index_items(key)
    except ShapeError:
        return None


_STATE_REGISTRARS = frozenset({"register_buffer", "register_parameter"})
_LIST_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort",
                            "reverse", "__setitem__", "__delitem__", "__iadd__"})
_NON_MUTATING_BUILTINS = frozenset({f"builtins.{name}" for name in (
    "len", "tuple", "list", "sorted", "reversed", "enumerate", "zip", "map", "filter", "sum",
    "min", "max", "any", "all", "isinstance", "print", "repr", "str", "iter", "range", "abs",
    "round", "set", "frozenset", "dict", "hash", "id", "type", "bool", "int", "float")})

_NOT_NDARRAY_MODULES = ("numpy.ma.", "numpy.rec.", "numpy.char.", "numpy.strings.",
                        "numpy.polynomial.", "numpy.matrixlib.", "torch.masked.", "torch.sparse.",
                        "torch.nested.")
_NOT_NDARRAY_FUNCS = frozenset({"numpy.matrix", "numpy.asmatrix", "numpy.bmat", "numpy.mat",
                                "numpy.recarray", "numpy.chararray"})
_UNMODELED_KWARGS = frozenset({"signature", "where", "casting", "subok", "extobj", "like"})
_JOIN_FUNCS = frozenset({"concatenate", "concat", "stack", "hstack", "vstack", "dstack",
                         "column_stack", "row_stack", "cat", "block", "broadcast_arrays",
                         "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d"})


def _informative(value: Value) -> bool:
    if isinstance(value, AbstractArray):
        return value.shape is not None or bool(value.tail)
    if isinstance(value, IntValue):
        return value.value is not UNKNOWN
    if isinstance(value, (TupleValue, LayerValue, InstanceValue, ConstValue)):
        return True
    return False


def _key(value: Value) -> Any:
    if isinstance(value, AbstractArray):
        return ("array", value.shape, value.dtype, value.library, value.tail, value.explicit_axis,
                value.reduced)
    try:
        hash(value)
        return value
    except TypeError:
        return id(value)


def _dtype_of(value: Value) -> str | None:
    if isinstance(value, AbstractArray):
        return value.dtype
    if isinstance(value, IntValue):
        return "pyint"
    if isinstance(value, ConstValue):
        if isinstance(value.value, bool):
            return "pybool"
        if isinstance(value.value, float):
            return "pyfloat"
        if isinstance(value.value, complex):
            return "pycomplex"
    return None


def _ndim_of(value: Value) -> int | None:
    if isinstance(value, AbstractArray):
        return value.ndim
    return 0


def _dtype_from(value: Value | None, library: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, DtypeValue):
        return value.name
    if isinstance(value, ConstValue) and isinstance(value.value, str):
        return _DTYPE_NAMES.get(value.value, value.value if value.value in _DTYPE_NAMES.values() else None)
    if isinstance(value, ModuleRef):
        short = value.qualname.rsplit(".", 1)[-1]
        names = _TORCH_DTYPE_NAMES if value.library == "torch" else _DTYPE_NAMES
        if value.qualname.startswith("builtins."):
            names = _TORCH_DTYPE_NAMES if library == "torch" else _DTYPE_NAMES
        return names.get(short)
    return None


def _module_attribute(base: ModuleRef, name: str) -> Value:
    qual = f"{base.qualname}.{name}"
    if qual in ("numpy.newaxis",):
        return ConstValue(None)
    if name in ("pi", "e", "inf", "nan", "euler_gamma") and base.qualname in ("numpy", "torch", "math"):
        return ConstValue(1.0)
    return ModuleRef(qual)


def _size_args(args: list, kwargs: dict, varargs: bool) -> tuple | None:
    """The shape a creation call's size arguments give: ``(2, 3)``, ``[2, 3]``, ``2, 3``, ``n``."""
    if "size" in kwargs and not args:
        return dims_of(kwargs["size"])
    if "shape" in kwargs and not args:
        return dims_of(kwargs["shape"])
    if not args:
        return None
    if len(args) == 1:
        return dims_of(args[0])
    if varargs and all(isinstance(a, IntValue) for a in args):
        return tuple(a.value for a in args)
    return dims_of(args[0]) if not varargs else None


def _arange_shape(args: list) -> tuple | None:
    if not args or not all(isinstance(a, IntValue) for a in args):
        if len(args) == 1 and isinstance(args[0], ConstValue) and isinstance(args[0].value, float):
            import math
            return (max(0, math.ceil(args[0].value)),)
        return None
    values = [a.value for a in args]
    if len(values) == 1:
        return (values[0],)
    if all(isinstance(v, int) for v in values):
        return (len(range(*values[:3])),)
    if len(values) == 2:
        return (sub(values[1], values[0]),) if eq(values[0], 0) is True else (UNKNOWN,)
    return (UNKNOWN,)


def _arange_dtype(args: list, kwargs: dict, torch: bool, default_float: str) -> str | None:
    values = list(args) + [kwargs[k] for k in ("start", "end", "stop", "step") if k in kwargs]
    if values and all(isinstance(a, IntValue) for a in values):
        return "int64"
    if any(isinstance(a, ConstValue) and isinstance(a.value, float) for a in values):
        return default_float
    return None


def _literal_shape(value: Value) -> tuple[tuple | None, str | None]:
    """The shape of a nested list literal and the kind of its numbers."""
    if isinstance(value, IntValue):
        return (), "int"
    if isinstance(value, ConstValue):
        if isinstance(value.value, bool):
            return (), "bool"
        if isinstance(value.value, (int, float)):
            return (), "float" if isinstance(value.value, float) else "int"
        return None, None
    if isinstance(value, AbstractArray):
        return value.shape, None
    if isinstance(value, TupleValue):
        if not value.items:
            return (0,), "float"
        inner = [_literal_shape(v) for v in value.items]
        shapes = {s for s, _ in inner}
        if len(shapes) != 1 or None in shapes:
            return None, None
        kinds = {k for _, k in inner}
        kind = "float" if "float" in kinds else ("int" if "int" in kinds else (
            "bool" if kinds == {"bool"} else None))
        return (len(value.items),) + shapes.pop(), kind
    return None, None


def _has_new_axis(items: Any) -> bool:
    if items is None:
        return True
    if isinstance(items, tuple):
        return any(i is None for i in items)
    return False


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
    return IntValue(UNKNOWN) if op != "div" else UNKNOWN_VALUE


def _dim_at(shape: tuple, index: int) -> Dim:
    return shape[index] if -len(shape) <= index < 0 else 1


def _op_label(op: str) -> str:
    return {"add": "'+'", "sub": "'-'", "mul": "'*'", "div": "'/'", "floor_divide": "'//'",
            "remainder": "'%'", "pow": "'**'", "matmul": "'@'", "eq": "'=='", "ne": "'!='",
            "lt": "'<'", "le": "'<='", "gt": "'>'", "ge": "'>='"}.get(op, op)


_AUG_LABEL = {f"__i{v}__": f"'{s}='" for v, s in (
    ("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("floordiv", "//"), ("mod", "%"),
    ("pow", "**"), ("matmul", "@"), ("and", "&"), ("or", "|"), ("xor", "^"))}

_ELEMENTWISE = frozenset({
    "abs", "absolute", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt",
    "square", "sin", "cos", "tan", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "sigmoid",
    "relu", "gelu", "silu", "softplus", "elu", "leaky_relu", "neg", "negative", "sign", "floor",
    "ceil", "round", "trunc", "reciprocal", "erf", "isnan", "isfinite", "isinf", "logical_not",
    "conj", "nan_to_num", "clip", "clamp", "softmax", "log_softmax", "dropout", "detach", "clone",
    "copy", "contiguous", "float", "double", "half", "long", "int", "bool", "cpu", "cuda",
    "positive", "fabs", "deg2rad", "rad2deg", "signbit", "normalize", "tanh_", "relu6",
    "hardtanh", "mish", "selu", "celu", "logsigmoid", "softsign"})
_BINARY_UFUNCS = frozenset({"add", "subtract", "multiply", "divide", "true_divide", "maximum",
                            "minimum", "power", "sub", "mul", "div", "where", "hypot", "arctan2"})
_SHAPE_METHODS = frozenset({"reshape", "view", "flatten", "ravel", "transpose", "permute",
                            "squeeze", "unsqueeze", "expand", "repeat", "swapaxes", "t"})
_SHAPE_PRESERVING = frozenset({"Dropout", "ReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "LayerNorm",
                               "Identity", "LeakyReLU", "ELU", "Softmax", "LogSoftmax"})


def _join_envs(a: dict, b: dict) -> dict:
    if a is b:
        return dict(a)
    out = dict(a)
    for name, value in b.items():
        if name in out:
            if out[name] is not value:
                out[name] = join_values(out[name], value)
        else:
            out[name] = value
    return out


def _same_env(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(a[k] is b[k] or a[k] == b[k] for k in a)


def _widen(value: Value) -> Value:
    if isinstance(value, AbstractArray):
        return AbstractArray(None, value.dtype, value.library, value.origin)
    if isinstance(value, IntValue):
        return IntValue(UNKNOWN)
    if isinstance(value, (InstanceValue, FunctionValue, ClassValue, ModuleRef, LayerValue)):
        return value
    return UNKNOWN_VALUE


# ---------------------------------------------------------------------- entry points

def analyze_module(module: cst.Module, source: str, path: str, settings: Any) -> list[Finding]:
    """All shape, in-place and aliasing findings for one parsed module."""
    findings = Interpreter(module, source, path, settings).run()
    # Aliasing hazards (SC301-SC307) come from the alias graph's own walk over names.
    from .aliasing import alias_findings

    return findings + alias_findings(module, path, settings)


def evaluate_snippet(source: str, env: dict[str, AbstractArray], dialect: str) -> list[Step]:
    """Evaluate array expressions over given shapes, step by step (for the calculator).

    The source is parsed, never executed; ``env`` binds names to arrays; every
    op is evaluated under ``dialect`` ("numpy", "torch", "torch-legacy",
    "numpy-1"). numpy and torch are importable as np/numpy and torch/F.
    """
    module = cst.parse_module(source)
    interp = Interpreter(module, source, "<snippet>", None, force_dialect=get_dialect(dialect))
    scope = interp.frame.scope
    scope.vars.update({"np": ModuleRef("numpy"), "numpy": ModuleRef("numpy"),
                       "torch": ModuleRef("torch"), "F": ModuleRef("torch.nn.functional")})
    scope.vars.update(env)
    interp.trace = []
    interp.exec_block(interp.module.body)
    return interp.trace


__all__ = ["Interpreter", "Scope", "Step", "analyze_module", "evaluate_snippet"]
