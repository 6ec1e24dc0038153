"""Evaluates a checked expression under one dialect with the analyzer's interpreter, then confirms it on the engine.

There is no evaluator of array expressions here: the interpreter walks the
statements and applies the op table's rules; this module records the op
calls it makes, replays each one on the runtime engine (NumPy) with real
arrays of the operand shapes, and turns both into a DialectOutcome.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import libcst as cst

from shapecheck.analysis.interpreter import Interpreter, Step
from shapecheck.analysis.values import AbstractArray, ModuleRef, Origin
from shapecheck.runtime import ops
from shapecheck.runtime.dialects import Dialect, get_dialect
from shapecheck.runtime.dims import shape_is_concrete
from shapecheck.runtime.rules.pointwise import POINTWISE_OPS
from shapecheck.runtime.verdicts import Result, ShapeError

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
    """One op the interpreter applied, with the rule's own arguments (arrays as ArrayArg)."""

    trace_index: int
    name: str
    args: tuple
    kwargs: dict


class _RecordingInterpreter(Interpreter):
    """The analyzer's interpreter, noting the arguments of every op-table call it makes."""

    def apply(self, name, dialect, args, kwargs, node, operands, label):  # type: ignore[override]
        before = len(self.trace) if self.trace is not None else 0
        result = super().apply(name, dialect, args, kwargs, node, operands, label)
        if self.trace is not None and len(self.trace) == before + 1:
            self.calls.append(_Call(before, name, tuple(args), dict(kwargs)))
        return result

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
                self.calls.append(_Call(before, "__getitem__", (array, key), {}))
        return result


_NOT_LITERAL = object()


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
    return None


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
                     check_torch: bool = False) -> DialectOutcome:
    """The interpreter's steps for the expression under one dialect, confirmed on the engine."""

    dialect = get_dialect(dialect_name)
    names: dict[int, str] = {}
    for index, use in enumerate(checked.calls):
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
    source = module.code
    interp = _RecordingInterpreter(module, source, "<eval>", None, force_dialect=dialect)
    interp.calls = []
    scope = interp.frame.scope
    scope.vars.update({"np": ModuleRef("numpy"), "numpy": ModuleRef("numpy"),
                       "torch": ModuleRef("torch"), "F": ModuleRef("torch.nn.functional")})
    scope.vars.update(_environment(env, dialect))
    interp.trace = []
    interp.exec_block(interp.module.body)
    steps = [_step_view(step) for step in interp.trace]
    if not steps:
        steps = [_value_step(checked, scope.vars)]
    steps = _with_finding_warnings(steps, interp)
    bindings = _bindings(checked, scope.vars)
    confirmations = [_confirm_on_engine(interp.trace, interp.calls, dialect)]
    if check_torch:
        from .torch_check import confirm_on_torch
        confirmations.append(confirm_on_torch(interp.trace, interp.calls, dialect))
    return DialectOutcome(dialect.name, tuple(steps), tuple(confirmations), bindings)


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


def engine_steps(call: _Call, dialect: Dialect) -> list | None:
    """The engine program for one recorded call: fresh arrays of the operand shapes, then the op.

    None when an operand shape is symbolic (there is nothing concrete to run).
    """
    from shapecheck.runtime.engine import Ref
    from shapecheck.runtime.engine import Step as EngineStep

    program: list = []

    def convert(value: Any) -> Any:
        if isinstance(value, ops.ArrayArg):
            if not shape_is_concrete(value.shape):
                raise _Symbolic
            program.append(_array_step(value.shape, value.dtype or _default_dtype(dialect)))
            return Ref(len(program) - 1)
        if isinstance(value, tuple):
            return tuple(convert(v) for v in value)
        if isinstance(value, list):
            return [convert(v) for v in value]
        return value

    try:
        args = tuple(convert(a) for a in call.args)
        kwargs = {k: convert(v) for k, v in call.kwargs.items()}
    except _Symbolic:
        return None
    program.append(EngineStep(call.name, args, kwargs))
    return program


def _array_step(shape: tuple, dtype: str):
    """A fresh engine array; small float ones get random values so LAPACK ops really run.

    (The engine's default 0, 1, 2, ... makes every matrix singular, and a
    singular matrix is about values, not shapes.)
    """
    import math

    import numpy as np

    from shapecheck.runtime.engine import Step as EngineStep

    if dtype.startswith(("float", "complex")) and math.prod(shape) <= CONFIRM_NUMEL_LIMIT:
        # A hash of the position (numpy.random would add 70 ms of import to every call).
        k = np.arange(1, math.prod(shape) + 1, dtype=np.float64)
        values = (np.modf(np.sin(k * 12.9898) * 43758.5453)[0]).reshape(shape)
        return EngineStep("array", (tuple(shape),), {"dtype": dtype, "values": values})
    return EngineStep.array(shape, dtype)


class _Symbolic(Exception):
    """An operand has a symbolic dim."""


def _confirm_on_engine(trace: list[Step], calls: list[_Call], dialect: Dialect) -> Confirmation:
    """Replay every step on the engine; a legacy dialect's difference from today is no disagreement.

    The engine's NumPy code follows the installed (today's) libraries, so where
    numpy-1 or torch-legacy semantics differ it cannot run them for real: that is
    reported as "unconfirmed", with what today's code gave.
    """
    confirmation = _replay_on_engine(trace, calls, dialect)
    if dialect.legacy and confirmation.status == "disagrees":
        return Confirmation("NumPy", "unconfirmed", confirmation.detail)
    return confirmation


def _replay_on_engine(trace: list[Step], calls: list[_Call], dialect: Dialect) -> Confirmation:
    from shapecheck.runtime.engine import Engine, EngineArray

    if not trace:
        return Confirmation("NumPy", "skipped", "no op to run")
    if any(not shape_is_concrete(s) for step in trace for s in step.operand_shapes):
        return Confirmation("NumPy", "skipped", "symbolic shapes")
    recorded = {call.trace_index: call for call in calls}
    ran_on_numpy = True
    for index, step in enumerate(trace):
        call = recorded.get(index)
        if call is None:
            return Confirmation("NumPy", "skipped", f"no engine op for {step.text}")
        program = engine_steps(call, dialect)
        if program is None:
            return Confirmation("NumPy", "skipped", "symbolic shapes")
        try:
            result = Engine(dialect, numel_limit=CONFIRM_NUMEL_LIMIT).run(program)[-1]
        except AssertionError as exc:  # the engine's NumPy run and the rule disagree
            return Confirmation("NumPy", "disagrees", str(exc))
        except Exception as exc:  # an op the engine cannot run (e.g. a dtype NumPy lacks)
            return Confirmation("NumPy", "skipped", f"the engine cannot run {step.text}: "
                                                    f"{type(exc).__name__}: {exc}".splitlines()[0])
        expected = step.outcome
        if isinstance(expected, ShapeError):
            if result.error is None or result.error.message != expected.message:
                got = result.error.message if result.error else f"a result"
                return Confirmation("NumPy", "disagrees", f"{step.text}: the engine gave {got}")
            # A failing step ends the chain: later steps ran on unknown operands.
            return Confirmation("NumPy", "error-agrees", step.text)
        if result.error is not None:
            return Confirmation("NumPy", "disagrees", f"{step.text}: {result.error.message}")
        outputs = result.value if isinstance(result.value, tuple) else (result.value,)
        shapes = tuple(o.shape for o in outputs if isinstance(o, EngineArray))
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
