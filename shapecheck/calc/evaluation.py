"""Evaluates a checked expression under one dialect with the analyzer's interpreter, then confirms it on the engine.

There is no evaluator of array expressions here: the interpreter walks the
statements and applies the op table's rules; this module records the op
calls it makes, replays each one on the runtime engine (NumPy) with real
arrays of the operand shapes, and turns both into a DialectOutcome.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from shapecheck.analysis.interpret import Interpreter, Step
from shapecheck.analysis.values import (
    AbstractArray,
    ConstValue,
    IntValue,
    LayerValue,
    ModuleRef,
    Origin,
    TupleValue,
)
from shapecheck.runtime import ops
from shapecheck.runtime.creation import CREATORS
from shapecheck.runtime.dialects import Dialect, get_dialect
from shapecheck.runtime.dims import format_shape, is_known, shape_is_concrete
from shapecheck.runtime.layout import Layout
from shapecheck.runtime.nn import FUNCTIONAL as NN_FUNCTIONAL
from shapecheck.runtime.rules.pointwise import POINTWISE_OPS
from shapecheck.runtime.verdicts import Result, ShapeError

from .dunders import DunderCalls
from .errors import UsageError
from .expression import CheckedExpression, FunctionUse
from .outcome import Confirmation, DialectOutcome, ErrorView, StepView, WarningView
from .shapes import ShapeBinding

CONFIRM_NUMEL_LIMIT = 10**6
"""Arrays above this many elements are confirmed in the engine's shape-only mode, so a
calculator answer never waits on (or allocates for) a big computation."""

_LIBRARY_PREFIX = {"numpy": "np", "torch": "torch"}
_NON_BROADCASTING_DUNDERS = frozenset({"__matmul__", "__rmatmul__", "__imatmul__", "__getitem__",
                                       "__setitem__", "__neg__", "__pos__", "__abs__", "__invert__"})


@dataclass(frozen=True)
class _Call:
    """One op the interpreter applied, with the rule's own arguments (arrays as ArrayArg).

    ``sources[i]`` says where the i-th array argument (args, then kwargs, in order) came
    from: ("call", k) the output of recorded call k, ("input", name) a named input; an
    array with no entry was made some other way and is replayed as a fresh array.
    """

    trace_index: int
    name: str
    args: tuple
    kwargs: dict
    sources: dict = field(default_factory=dict, compare=False)
    layer: Any = None  # calc.layers.LayerBinding when the call is a --layer's forward


class _RecordingInterpreter(Interpreter):
    """The analyzer's interpreter, noting every op-table call it makes and the layout of every
    array it makes, so that a call sees its operands' real layouts (``x.t().view(-1)`` fails
    in torch) and the engine can replay the calls as one program."""

    def setup_recording(self, inputs: dict[str, AbstractArray]) -> None:
        self.calls: list[_Call] = []
        self.created_steps: set[int] = set()  # trace indices of creations: nothing to replay
        self.input_names = {id(value): name for name, value in inputs.items()}
        self.call_of_node: dict[int, int] = {}  # id(node) -> index in self.calls
        self.call_layouts: list[Layout | None] = []  # per call: its output's layout
        self.assignments: dict[str, list[cst.CSTNode]] = {}
        for statement in self.module.body:
            for small in getattr(statement, "body", ()):
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                        isinstance(small.targets[0].target, cst.Name):
                    self.assignments.setdefault(small.targets[0].target.value, []).append(small.value)

    def operand_source(self, value: Any, node: cst.CSTNode) -> tuple | None:
        if id(node) in self.call_of_node:
            return ("call", self.call_of_node[id(node)])
        if isinstance(node, cst.Name):
            for rhs in reversed(self.assignments.get(node.value, ())):
                if id(rhs) in self.call_of_node:
                    return ("call", self.call_of_node[id(rhs)])
            if id(value) in self.input_names:
                return ("input", self.input_names[id(value)])
        return None

    def operand_layout(self, source: tuple | None, arg: ops.ArrayArg) -> Layout | None:
        if source is None or not shape_is_concrete(arg.shape):
            return None
        if source[0] == "input":
            return Layout.contiguous(tuple(arg.shape))
        layout = self.call_layouts[source[1]]
        return layout if layout is not None and layout.shape == tuple(arg.shape) else None

    def with_layouts(self, args: tuple, kwargs: dict, operands: list) -> tuple[tuple, dict, dict]:
        """The call's arguments with each array operand's layout, and where each came from."""
        arrays = [(v, n) for v, n in operands if isinstance(v, AbstractArray)]
        slots = [a for a in list(args) + list(kwargs.values()) if isinstance(a, ops.ArrayArg)]
        if len(arrays) != len(slots):
            return args, kwargs, {}
        sources = {i: self.operand_source(v, n) for i, (v, n) in enumerate(arrays)}
        position = iter(range(len(slots)))

        def place(value: Any) -> Any:
            if not isinstance(value, ops.ArrayArg):
                return value
            i = next(position)
            return dataclasses.replace(value, layout=self.operand_layout(sources[i], value))

        new_args = tuple(place(a) for a in args)
        new_kwargs = {k: place(v) for k, v in kwargs.items()}
        return new_args, new_kwargs, {i: s for i, s in sources.items() if s is not None}

    def record_call(self, before: int, name: str, args: tuple, kwargs: dict, sources: dict, node,
               dialect: Dialect, result: Result | None) -> None:
        self.call_of_node[id(node)] = len(self.calls)
        self.calls.append(_Call(before, name, args, kwargs, sources))
        self.call_layouts.append(self.call_output_layout(name, args, kwargs, dialect, result))

    def call_output_layout(self, name: str, args: tuple, kwargs: dict, dialect: Dialect,
                      result: Result | None) -> Layout | None:
        """A view's place in its input's storage; a new array's own contiguous storage."""
        spec = ops.lookup(name, dialect)
        if spec is None or result is None or len(result.outputs) != 1 or \
                not shape_is_concrete(result.shape):
            return None
        shape = tuple(result.shape)
        try:
            kind = ops.resolved_view_kind(spec, args, kwargs, dialect)
        except Exception:  # arguments the op table cannot read: unknown
            return None
        if kind == "none":
            return Layout.contiguous(shape)
        if kind == "same" and args and isinstance(args[0], ops.ArrayArg):
            return args[0].layout
        return ops.output_layout(spec, args, kwargs, dialect, shape)

    def apply(self, name, dialect, args, kwargs, node, operands, label):  # type: ignore[override]
        before = len(self.trace) if self.trace is not None else 0
        args, kwargs, sources = self.with_layouts(tuple(args), dict(kwargs), operands)
        result = super().apply(name, dialect, args, kwargs, node, operands, label)
        if self.trace is not None and len(self.trace) == before + 1:
            self.record_call(before, name, args, kwargs, sources, node, dialect, result)
        return result

    def call_layer(self, node, layer, args, kwargs, arg_nodes):  # type: ignore[override]
        """A --layer call is a step of its own, recorded so that torch can replay it."""
        binding = getattr(self, "layer_bindings", {}).get(layer)
        if binding is None or self.trace is None:
            return super().call_layer(node, layer, args, kwargs, arg_nodes)
        before = len(self.trace)
        self.layer_error: ShapeError | None = None
        self.in_layer = True
        try:
            value = super().call_layer(node, layer, args, kwargs, arg_nodes)
        finally:
            self.in_layer = False
        if len(self.trace) != before:
            return value
        operands = [(a, n) for a, n in zip(args, arg_nodes) if isinstance(a, AbstractArray)]
        shapes = tuple(tuple(a.shape) for a, _ in operands if a.shape is not None)
        if self.layer_error is not None:
            outcome: Result | ShapeError = self.layer_error
        elif isinstance(value, AbstractArray) and value.shape is not None:
            outcome = Result.of(tuple(value.shape))
        else:
            return value  # not modelled for these inputs: no step, as with any unknown op
        self.trace.append(Step(self.text(node, 80), f"nn.{layer.kind}", shapes, outcome))
        arrays = tuple(ops.ArrayArg(tuple(a.shape), a.dtype) for a, _ in operands
                       if a.shape is not None)
        new_args, _, sources = self.with_layouts(arrays, {}, operands)
        self.call_of_node[id(node)] = len(self.calls)
        self.calls.append(_Call(before, f"nn.{layer.kind}", new_args, {}, sources, layer=binding))
        self.call_layouts.append(None)
        return value

    def functional(self, node, name, args, kwargs, arg_nodes):  # type: ignore[override]
        """An nn functional call (``F.pad``, ``F.conv2d``) is a step of its own: its rule is
        runtime/nn's, outside the op table, so nothing else puts it in the trace."""
        if self.trace is None:
            return super().functional(node, name, args, kwargs, arg_nodes)
        before = len(self.trace)
        self.layer_error = None
        self.in_layer = True
        try:
            value = super().functional(node, name, args, kwargs, arg_nodes)
        finally:
            self.in_layer = False
        if len(self.trace) != before:
            return value
        shapes = tuple(tuple(a.shape) for a in args
                       if isinstance(a, AbstractArray) and a.shape is not None)
        if self.layer_error is not None:
            outcome: Result | ShapeError = self.layer_error
        elif isinstance(value, AbstractArray) and value.shape is not None:
            outcome = Result.of(tuple(value.shape))
        else:
            return value  # not modelled for these arguments: no step, as with any unknown op
        self.trace.append(Step(self.text(node, 80), f"F.{name}", shapes, outcome))
        try:  # recorded so that torch can replay it; the engine has no nn functional ops
            plain_args = tuple(_plain_argument(a) for a in args)
            plain_kwargs = {k: _plain_argument(v) for k, v in kwargs.items()}
        except _NotPlain:
            return value
        operands = [(a, n) for a, n in zip(args, arg_nodes) if isinstance(a, AbstractArray)]
        plain_args, plain_kwargs, sources = self.with_layouts(plain_args, plain_kwargs, operands)
        self.call_of_node[id(node)] = len(self.calls)
        self.calls.append(_Call(before, f"torch.nn.functional.{name}", plain_args, plain_kwargs,
                                sources))
        self.call_layouts.append(None)
        return value

    def create(self, node, library, name, args, kwargs, generator=False):  # type: ignore[override]
        """A creation (``np.random.normal(size=3)``) is a step: it makes the array later steps use."""
        before = len(self.trace) if self.trace is not None else 0
        value = super().create(node, library, name, args, kwargs, generator)
        if self.trace is not None and len(self.trace) == before and \
                isinstance(value, AbstractArray) and value.shape is not None:
            prefix = "np" if library == "numpy" else "torch"
            self.created_steps.add(len(self.trace))
            self.trace.append(Step(self.text(node, 80), f"{prefix}.{name}", (),
                                   Result.of(tuple(value.shape))))
        return value

    def report_error(self, err, node, operands, label, dialect, spec):  # type: ignore[override]
        if getattr(self, "in_layer", False) and self.layer_error is None:
            self.layer_error = err
        super().report_error(err, node, operands, label, dialect, spec)

    def run_rule(self, call, node, operands, label, dialect, spec, op_name):  # type: ignore[override]
        # Indexing reaches the rule directly, not through apply: rebuild its key from the syntax.
        before = len(self.trace) if self.trace is not None else 0
        result = super().run_rule(call, node, operands, label, dialect, spec, op_name)
        if spec is None and op_name == "__getitem__" and self.trace is not None \
                and len(self.trace) == before + 1 and isinstance(node, cst.Subscript):
            base = operands[0][0] if operands else None
            key = _literal_key(node)
            if key is not _NOT_LITERAL and isinstance(base, AbstractArray) and base.shape is not None:
                array = ops.ArrayArg(tuple(base.shape), base.dtype)
                args, _, sources = self.with_layouts((array, key), {}, operands[:1])
                self.record_call(before, "__getitem__", args, {}, sources, node, dialect, result)
        return result


_NOT_LITERAL = object()


class _NotPlain(Exception):
    """A value with no plain form (an array of unknown shape, an opaque object)."""


def _plain_argument(value: Any) -> Any:
    """An interpreter value as a call's argument: arrays as ArrayArg, literals as themselves."""
    if isinstance(value, AbstractArray) and value.shape is not None:
        return ops.ArrayArg(tuple(value.shape), value.dtype)
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return value.value
    if isinstance(value, ConstValue):
        return value.value
    if isinstance(value, TupleValue):
        items = [_plain_argument(v) for v in value.items]
        return items if value.is_list else tuple(items)
    raise _NotPlain


def _literal_int(node: cst.BaseExpression | None) -> Any:
    if node is None:
        return None
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value, 0)
    if isinstance(node, cst.Name) and node.value == "None":
        return None
    return _NOT_LITERAL


def _literal_key(node: cst.Subscript) -> Any:
    """The Python index key of ``x[0, 1:3, None, ...]`` when every item is a literal."""
    items: list = []
    for element in node.slice:
        part = element.slice
        if isinstance(part, cst.Slice):
            bounds = [_literal_int(b) for b in (part.lower, part.upper, part.step)]
            if any(b is _NOT_LITERAL for b in bounds):
                return _NOT_LITERAL
            items.append(slice(*bounds))
        elif isinstance(part.value, cst.Ellipsis):
            items.append(Ellipsis)
        else:
            value = _literal_int(part.value)
            if value is _NOT_LITERAL:
                return _NOT_LITERAL
            items.append(value)
    return items[0] if len(items) == 1 and len(node.slice) == 1 and \
        node.slice[0].comma == cst.MaybeSentinel.DEFAULT else tuple(items)


def _qualified(use: FunctionUse, dialect: Dialect) -> str | None:
    """The op-table name of a function call under ``dialect``, or None if its library has none.

    ``np.linalg.solve`` under torch is ``torch.linalg.solve``: the dialects compare one
    expression, so the prefix names the op, not the library.
    """
    if use.kind == "method":
        return use.name if ops.lookup(use.name, dialect) is not None else None
    prefix = _LIBRARY_PREFIX[dialect.library]
    candidates = [f"{prefix}.{use.name}"]
    if "." not in use.name:
        candidates.append(f"{prefix}.linalg.{use.name}")
    for candidate in candidates:
        if ops.lookup(candidate, dialect) is not None:
            return candidate
    if use.functional and dialect.is_torch and (
            use.name in NN_FUNCTIONAL or ops.lookup(f"F.{use.name}", dialect) is not None):
        return f"F.{use.name}"  # F.pad is no torch.pad: the interpreter's nn functional rule
    return None


_GENERATOR_METHODS = frozenset({"normal", "uniform", "integers", "random", "standard_normal",
                                "choice", "permutation", "poisson", "binomial", "exponential",
                                "beta", "gamma", "laplace"})
"""Methods of ``np.random.default_rng()`` that make arrays of a ``size``."""


def _made_by_creation(use: FunctionUse) -> bool:
    """A creation function (runtime/creation.py) the interpreter answers by its own name:
    ``np.random.normal(size=3)``, ``torch.randn(2, 3)``, a Generator's ``integers``."""
    if use.kind == "method":
        return use.name in _GENERATOR_METHODS and ops.lookup(use.name, get_dialect("numpy")) is None
    return use.library is not None and (use.name in CREATORS or use.name.startswith("random."))


def known_anywhere(use: FunctionUse) -> bool:
    """Does any dialect's op table know this call? If not, it is an unknown function."""
    return any(_qualified(use, get_dialect(name)) is not None for name in ("numpy", "torch"))


class _Requalify(cst.CSTTransformer):
    """Rewrites each call's function to its op-table name under one dialect."""

    def __init__(self, names: dict[int, str]):
        self.names = names  # call order -> qualified name
        self.index = -1

    def visit_Call(self, node: cst.Call) -> None:
        self.index += 1
        node_index = self.index
        self._stack = getattr(self, "_stack", []) + [node_index]

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        node_index = self._stack.pop()
        name = self.names.get(node_index)
        if name is None:
            return updated
        return updated.with_changes(func=cst.parse_expression(name))


def _missing_op_outcome(use: FunctionUse, dialect: Dialect, source: str) -> DialectOutcome:
    if use.kind == "method":
        owner = "'numpy.ndarray' object" if dialect.is_numpy else "'Tensor' object"
        message = f"{owner} has no attribute '{use.name}'"
    else:
        module = "numpy" if dialect.is_numpy else "torch"
        message = f"module '{module}' has no attribute '{use.name}'"
    error = ErrorView("argument", message, "AttributeError")
    return DialectOutcome(dialect.name, (StepView(source.strip(), use.name, (), None, error=error),),
                          (Confirmation("NumPy", "skipped", "the op does not exist here"),))


def _environment(env: dict[str, ShapeBinding], dialect: Dialect) -> dict[str, AbstractArray]:
    return {name: AbstractArray(tuple(b.shape), b.dtype, dialect.library, Origin(0, name))
            for name, b in env.items()}


def _broadcasts(op: str) -> bool:
    if op.startswith("__"):
        return op not in _NON_BROADCASTING_DUNDERS
    base = op.rsplit(".", 1)[-1]
    return base in POINTWISE_OPS or base.rstrip("_") in POINTWISE_OPS


def _step_view(step: Step) -> StepView:
    warnings = tuple(WarningView.of(w.kind, w.message) for w in step.warnings)
    if isinstance(step.outcome, ShapeError):
        err = step.outcome
        error = ErrorView(err.kind, err.message, err.exc_type, err.dim)
        return StepView(step.text, step.op, tuple(step.operand_shapes), None, warnings, error,
                        _broadcasts(step.op))
    shape = step.outcome.shape if step.outcome.outputs else None
    return StepView(step.text, step.op, tuple(step.operand_shapes), shape, warnings, None,
                    _broadcasts(step.op))


def evaluate_dialect(checked: CheckedExpression, env: dict[str, ShapeBinding], dialect_name: str,
                     check_torch: bool = False, confirm: bool = True) -> DialectOutcome:
    """The interpreter's steps for the expression under one dialect, confirmed on the engine.

    ``confirm=False`` skips running it (a batch asks for verdicts only, row after row).
    """

    dialect = get_dialect(dialect_name)
    names: dict[int, str] = {}
    if checked.layers and not dialect.is_torch:
        raise UsageError(f"--layer needs a torch dialect (torch or torch-legacy), not "
                         f"{dialect.name}: nn layers run on tensors")
    for index, use in enumerate(checked.calls):
        if use.kind == "layer" or _made_by_creation(use):
            continue
        qualified = _qualified(use, dialect)
        if qualified is None:
            if not known_anywhere(use):
                what = "method" if use.kind == "method" else "function"
                raise UsageError(f"unknown {what} {use.name!r} at "
                                 f"{use.position.describe(checked.source)}")
            return _missing_op_outcome(use, dialect, checked.source)
        if use.kind == "function":
            names[index] = qualified
    module = checked.module.visit(_Requalify(names)) if names else checked.module
    if any(use.kind == "method" and use.name.startswith("__") for use in checked.calls):
        module = module.visit(DunderCalls("np.absolute" if dialect.is_numpy else "torch.abs"))
    module = _value_named(module)
    source = module.code
    interp = _RecordingInterpreter(module, source, "<eval>", None, force_dialect=dialect)
    inputs = _environment(env, dialect)
    interp.setup_recording(inputs)
    scope = interp.frame.scope
    scope.vars.update({"np": ModuleRef("numpy"), "numpy": ModuleRef("numpy"),
                       "torch": ModuleRef("torch"), "F": ModuleRef("torch.nn.functional")})
    scope.vars.update(inputs)
    interp.layer_bindings = {}
    for binding in checked.layers:
        value = LayerValue(binding.kind, tuple(_value(a) for a in binding.args),
                           tuple(sorted((k, _value(v)) for k, v in binding.kwargs)))
        scope.vars[binding.name] = value
        interp.layer_bindings[value] = binding
    interp.trace = []
    interp.exec_block(interp.module.body)
    steps = [_step_view(step) for step in interp.trace]
    steps = _with_copy_notes(steps, interp, dialect)
    value = _plain_value(scope.vars.get(_VALUE))
    if not steps and value is not None:
        steps = [StepView(checked.source.strip(), "", (), None)]
    if not steps:
        steps = [_value_step(checked, scope.vars)]
    steps = _with_finding_warnings(steps, interp)
    bindings = _bindings(checked, scope.vars)
    trace = interp.trace
    confirmations = [_confirm_on_engine(trace, interp.calls, dialect, interp.created_steps)] \
        if confirm else []
    if checked.layers and confirm:
        # NumPy has no nn layers: torch, when installed, is what can run them.
        confirmations = [Confirmation("NumPy", "skipped", "nn layers run on torch only")]
        check_torch = True
    elif confirm and dialect.is_torch and _torch_only(trace, interp.calls, interp.created_steps):
        # The engine ran torch's rules on NumPy arrays: NumPy itself has no such semantics
        # (a view decided by strides, torch's own ops), so only torch can confirm them.
        confirmations = [_as_emulated(c) for c in confirmations]
        check_torch = check_torch or (dialect.name == "torch" and _torch_installed())
    if check_torch:
        from .torch_check import confirm_on_torch
        confirmations.append(confirm_on_torch(trace, interp.calls, dialect, interp.created_steps))
    return DialectOutcome(dialect.name, tuple(steps), tuple(confirmations), bindings, value)


_VALUE = "__value__"
"""The name the last expression's value is bound to, so that it can be read after the run."""
_VALUE_NODES = (cst.Attribute, cst.Subscript, cst.BinaryOperation)


def _value_named(module: cst.Module) -> cst.Module:
    """``(x@y).shape[0]`` as the statement ``__value__ = (x@y).shape[0]``: a trailing attribute,
    index or arithmetic may make the expression a size, and its value is what to show."""
    if not module.body or not isinstance(module.body[-1], cst.SimpleStatementLine):
        return module
    line = module.body[-1]
    last = line.body[-1]
    if not isinstance(last, cst.Expr) or not isinstance(last.value, _VALUE_NODES):
        return module
    assign = cst.Assign([cst.AssignTarget(cst.Name(_VALUE))], last.value)
    new_line = line.with_changes(body=tuple(line.body[:-1]) + (assign,))
    return module.with_changes(body=tuple(module.body[:-1]) + (new_line,))


def _plain_value(value: Any) -> Any:
    """An int or a tuple of ints (symbols too) as the expression's value; None otherwise."""
    if isinstance(value, IntValue) and is_known(value.value):
        return value.value
    if isinstance(value, TupleValue) and not value.is_list and all(
            isinstance(v, IntValue) and is_known(v.value) for v in value.items):
        return tuple(v.value for v in value.items)
    return None


def _torch_only(trace: list[Step], calls: list[_Call], created: set[int]) -> bool:
    """Some step has semantics NumPy lacks: an op NumPy does not have under that name (or has
    with another rule: ``ndarray.view`` takes a dtype), or an nn functional call."""
    numpy = get_dialect("numpy")
    recorded = {call.trace_index: call for call in calls}
    for index in range(len(trace)):
        if index in created:
            continue
        call = recorded.get(index)
        if call is None:
            return True  # F.pad and other steps with no op-table call
        name = call.name
        twin = ops.lookup("np." + name[len("torch."):] if name.startswith("torch.") else name,
                          numpy)
        spec = ops.lookup(name, get_dialect("torch"))
        if twin is None or spec is None or \
                getattr(twin.rule, "__qualname__", None) != getattr(spec.rule, "__qualname__", ""):
            return True
    return False


def _as_emulated(confirmation: Confirmation) -> Confirmation:
    if confirmation.engine == "NumPy" and confirmation.status == "confirmed":
        return Confirmation("NumPy", "emulated", "torch's rules run on NumPy arrays")
    return confirmation


def _torch_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def _value(literal: Any) -> Any:
    """A --layer constructor's literal as the interpreter's value."""
    if isinstance(literal, bool) or literal is None or isinstance(literal, (str, float)):
        return ConstValue(literal)
    if isinstance(literal, int):
        return IntValue(literal)
    return TupleValue(tuple(_value(item) for item in literal))


def _with_copy_notes(steps: list[StepView], interp: _RecordingInterpreter,
                     dialect: Dialect) -> list[StepView]:
    """A reshape (ravel, flatten, contiguous) that copies because of its operand's layout says
    so: a write into its result would not reach the operand."""
    out = list(steps)
    for call in interp.calls:
        spec = ops.lookup(call.name, dialect)
        first = call.args[0] if call.args else None
        if spec is None or spec.view_kind != "maybe" or not isinstance(first, ops.ArrayArg) \
                or first.layout is None or call.trace_index >= len(out):
            continue
        try:
            kind = ops.resolved_view_kind(spec, call.args, call.kwargs, dialect)
        except Exception:  # arguments the op table cannot read: nothing to say
            continue
        step = out[call.trace_index]
        if kind != "none" or step.error is not None:
            continue
        note = WarningView("SC306", f"{step.text} copies: its operand's layout (strides "
                                    f"{first.layout.strides}) cannot be viewed as "
                                    f"{_format(step.shape)}, so the result shares no memory with it")
        out[call.trace_index] = dataclasses.replace(step, warnings=step.warnings + (note,))
    return out


def _format(shape: Any) -> str:
    return format_shape(tuple(shape)) if shape is not None else "?"


def _value_step(checked: CheckedExpression, values: dict[str, Any]) -> StepView:
    """An expression without ops (``x``): its value is the named array itself."""

    last = checked.module.body[-1]
    small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) else None
    target = small.value if isinstance(small, cst.Expr) else None
    if isinstance(small, cst.Assign):
        target = small.targets[0].target
    value = values.get(target.value) if isinstance(target, cst.Name) else None
    if isinstance(value, AbstractArray) and value.shape is not None:
        return StepView(checked.module.code_for_node(last).strip(), "", (), tuple(value.shape))
    raise UsageError("the expression applies no array operation the calculator knows")


def _with_finding_warnings(steps: list[StepView], interp: Interpreter) -> list[StepView]:
    """Warnings the interpreter reports as findings only (implicit outer product...) join the last step."""
    present = {w.code for step in steps for w in step.warnings}
    extra = []
    for finding in interp.findings.values():
        if str(finding.severity) != "error" and finding.code not in present:
            extra.append(WarningView(finding.code, finding.message))
            present.add(finding.code)
    if not extra:
        return steps
    last = steps[-1]
    return steps[:-1] + [StepView(last.text, last.op, last.operands, last.shape,
                                  last.warnings + tuple(extra), last.error, last.broadcasts)]


def _bindings(checked: CheckedExpression, values: dict[str, Any]) -> tuple:
    out = []
    for name in dict.fromkeys(checked.assigned):
        value = values.get(name)
        if isinstance(value, AbstractArray) and value.shape is not None:
            out.append((name, ShapeBinding(name, tuple(value.shape), value.dtype)))
    return tuple(out)


# ---------------------------------------------------------------------------- the engine

def _default_dtype(dialect: Dialect) -> str:
    return "float32" if dialect.is_torch else "float64"


def engine_program(calls: list[_Call], dialect: Dialect) -> tuple[list, dict[int, int]] | None:
    """The recorded calls as one engine program: each named input is made once, and an operand
    that is an earlier call's output is that output itself (a real view, with its strides), so
    a layout reaches the step that depends on it. Returns the program and, per call, its step.

    None when an operand shape is symbolic (there is nothing concrete to run).
    """
    from shapecheck.runtime.program import Ref
    from shapecheck.runtime.program import Step as EngineStep

    program: list = []
    inputs: dict[str, int] = {}
    steps: dict[int, int] = {}
    for index, call in enumerate(calls):
        position = iter(range(len(call.args) + len(call.kwargs)))

        def convert(value: Any, top: bool = True) -> Any:
            if isinstance(value, ops.ArrayArg):
                if not shape_is_concrete(value.shape):
                    raise _Symbolic
                source = call.sources.get(next(position)) if top else None
                if source is not None and source[0] == "call" and source[1] in steps:
                    return Ref(steps[source[1]])
                if source is not None and source[0] == "input":
                    if source[1] not in inputs:
                        program.append(_array_step(value.shape, value.dtype or _default_dtype(dialect)))
                        inputs[source[1]] = len(program) - 1
                    return Ref(inputs[source[1]])
                program.append(_array_step(value.shape, value.dtype or _default_dtype(dialect)))
                return Ref(len(program) - 1)
            if isinstance(value, tuple):
                return tuple(convert(v, False) for v in value)
            if isinstance(value, list):
                return [convert(v, False) for v in value]
            return value

        try:
            args = tuple(convert(a) for a in call.args)
            kwargs = {k: convert(v) for k, v in call.kwargs.items()}
        except _Symbolic:
            return None
        program.append(EngineStep(call.name, args, kwargs))
        steps[index] = len(program) - 1
    return program, steps


def _array_step(shape: tuple, dtype: str):
    """A fresh engine array; small float ones get random values so LAPACK ops really run.

    (The engine's default 0, 1, 2, ... makes every matrix singular, and a
    singular matrix is about values, not shapes.)
    """
    import math

    import numpy as np

    from shapecheck.runtime.program import Step as EngineStep

    if dtype.startswith(("float", "complex")) and math.prod(shape) <= CONFIRM_NUMEL_LIMIT:
        # A hash of the position (numpy.random would add 70 ms of import to every call).
        k = np.arange(1, math.prod(shape) + 1, dtype=np.float64)
        values = (np.modf(np.sin(k * 12.9898) * 43758.5453)[0]).reshape(shape)
        return EngineStep("array", (tuple(shape),), {"dtype": dtype, "values": values})
    return EngineStep.array(shape, dtype)


class _Symbolic(Exception):
    """An operand has a symbolic dim."""


def _confirm_on_engine(trace: list[Step], calls: list[_Call], dialect: Dialect,
                       created: set[int] = frozenset()) -> Confirmation:
    """Replay every step on the engine; a legacy dialect's difference from today is no disagreement.

    The engine's NumPy code follows the installed (today's) libraries, so where
    numpy-1 or torch-legacy semantics differ it cannot run them for real: that is
    reported as "unconfirmed", with what today's code gave.
    """
    confirmation = _replay_on_engine(trace, calls, dialect, created)
    if dialect.legacy and confirmation.status == "disagrees":
        return Confirmation("NumPy", "unconfirmed", confirmation.detail)
    return confirmation


def _replay_on_engine(trace: list[Step], calls: list[_Call], dialect: Dialect,
                      created: set[int] = frozenset()) -> Confirmation:
    """Created arrays (``np.zeros(...)``) are replayed as fresh arrays of their shapes, as
    named inputs are: only the ops on them are confirmed."""
    from shapecheck.runtime.engine import Engine
    from shapecheck.runtime.program import EngineArray

    if len(created) == len(trace):
        return Confirmation("NumPy", "skipped", "no op to run")
    if any(not shape_is_concrete(s) for step in trace for s in step.operand_shapes):
        return Confirmation("NumPy", "skipped", "symbolic shapes")
    recorded = {call.trace_index: index for index, call in enumerate(calls)}
    for index, step in enumerate(trace):
        if index not in created and (index not in recorded or ops.lookup(
                calls[recorded[index]].name, dialect) is None):  # nn functional calls
            return Confirmation("NumPy", "skipped", f"no engine op for {step.text}")
    built = engine_program(calls, dialect)
    if built is None:
        return Confirmation("NumPy", "skipped", "symbolic shapes")
    program, program_steps = built
    try:
        results = Engine(dialect, numel_limit=CONFIRM_NUMEL_LIMIT).run(program)
    except AssertionError as exc:  # the engine's NumPy run and the rule disagree
        return Confirmation("NumPy", "disagrees", str(exc))
    except Exception as exc:  # an op the engine cannot run (e.g. a dtype NumPy lacks)
        return Confirmation("NumPy", "skipped", f"the engine cannot run {trace[-1].text}: "
                                                f"{type(exc).__name__}: {exc}".splitlines()[0])
    ran_on_numpy = True
    for index, step in enumerate(trace):
        if index in created:
            continue
        result = results[program_steps[recorded[index]]]
        expected = step.outcome
        if isinstance(expected, ShapeError):
            if result.error is None or result.error.message != expected.message:
                got = result.error.message if result.error else "a result"
                return Confirmation("NumPy", "disagrees", f"{step.text}: the engine gave {got}")
            # A failing step ends the chain: later steps ran on unknown operands.
            return Confirmation("NumPy", "error-agrees", step.text)
        if result.error is not None:
            return Confirmation("NumPy", "disagrees", f"{step.text}: {result.error.message}")
        outputs = result.value if isinstance(result.value, tuple) else (result.value,)
        shapes = result.shapes
        if isinstance(expected, Result) and shapes[:1] != tuple(tuple(s) for s in expected.outputs)[:1]:
            return Confirmation("NumPy", "disagrees",
                                f"{step.text}: the engine gave {shapes[0] if shapes else None}")
        ran_on_numpy = ran_on_numpy and all(o.values_known for o in outputs
                                            if isinstance(o, EngineArray))
    if ran_on_numpy:
        return Confirmation("NumPy", "confirmed")
    sizes = [math.prod(s) for step in trace for s in step.operand_shapes]
    sizes += [math.prod(step.outcome.shape) for step in trace
              if isinstance(step.outcome, Result) and step.outcome.outputs]
    if any(size > CONFIRM_NUMEL_LIMIT for size in sizes):
        return Confirmation("NumPy", "shape-only", "arrays too large to allocate")
    return Confirmation("NumPy", "shape-only", "LAPACK or NumPy code missing for an op")
