"""The calculator's proof: the interpreter's recorded op calls replayed as one engine program on
real NumPy arrays, and each step's verdict compared with what the run gave.

A size the values decide (``nnz(m)``) is whatever the run made it, the same at every step
(``dims.fits``); when the values made a step fail that the rules said may run, the run is
reported as deciding nothing ("values-decide"), not as a disagreement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from shapecheck.analysis.interpret import Step
from shapecheck.runtime import ops
from shapecheck.runtime.dialects import Dialect
from shapecheck.runtime.dims import atoms, fits, is_known, shape_is_concrete
from shapecheck.runtime.verdicts import Result, ShapeError

from .outcome import Confirmation

CONFIRM_NUMEL_LIMIT = 10**6
"""Arrays above this many elements are confirmed in the engine's shape-only mode, so a
calculator answer never waits on (or allocates for) a big computation."""


@dataclass(frozen=True)
class Call:
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


def _default_dtype(dialect: Dialect) -> str:
    return "float32" if dialect.is_torch else "float64"


def engine_program(calls: list[Call], dialect: Dialect) -> tuple[list, dict[int, int]] | None:
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
                source = call.sources.get(next(position)) if top else None
                if source is not None and source[0] == "call" and source[1] in steps:
                    return Ref(steps[source[1]])  # its sizes are whatever the run made them
                if not shape_is_concrete(value.shape):
                    raise _Symbolic
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


def confirm_on_engine(trace: list[Step], calls: list[Call], dialect: Dialect,
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


def _replay_on_engine(trace: list[Step], calls: list[Call], dialect: Dialect,
                      created: set[int] = frozenset()) -> Confirmation:
    """Created arrays (``np.zeros(...)``) are replayed as fresh arrays of their shapes, as
    named inputs are: only the ops on them are confirmed."""
    from shapecheck.runtime.engine import Engine
    from shapecheck.runtime.program import EngineArray, ValuesDecideSize

    if len(created) == len(trace):
        return Confirmation("NumPy", "skipped", "no op to run")
    if any(not shape_is_concrete(s) for step in trace for s in step.operand_shapes
           if any(atoms(d) or not is_known(d) for d in s)):
        # Sizes the code or the user named; a size the values decide (an opaque symbol such
        # as nnz(m)) is whatever the run makes it.
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
    except ValuesDecideSize as exc:
        return Confirmation("NumPy", "skipped", str(exc))
    except Exception as exc:  # an op the engine cannot run (e.g. a dtype NumPy lacks)
        return Confirmation("NumPy", "skipped", f"the engine cannot run {trace[-1].text}: "
                                                f"{type(exc).__name__}: {exc}".splitlines()[0])
    ran_on_numpy = True
    sizes: dict[str, int] = {}  # what each size the values decide came to in this run
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
            if not all(shape_is_concrete(s) for s in step.operand_shapes):
                # Sizes the values decide (concrete inputs, symbolic operands): the rules said
                # it may run; these values made it fail. Another run may not.
                return Confirmation("NumPy", "values-decide",
                                    f"{step.text}: {result.error.message}")
            return Confirmation("NumPy", "disagrees", f"{step.text}: {result.error.message}")
        outputs = result.value if isinstance(result.value, tuple) else (result.value,)
        shapes = result.shapes
        if isinstance(expected, Result) and expected.outputs and (
                not shapes or not fits(tuple(expected.outputs[0]), shapes[0], sizes)):
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
