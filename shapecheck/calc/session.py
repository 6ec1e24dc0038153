"""Runs the calculator: one expression from the command line, or the state of an interactive session.

The evaluator is handed in by the caller (calc/arguments.py): this module
never imports the interpreter itself, so the command line can answer a
usage error, or start a session, without paying for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, TextIO

from shapecheck.runtime.dialects import DIALECTS

from .errors import UsageError
from .expression import CheckedExpression, ExpressionError
from .outcome import DialectOutcome, outcome_json
from .shapes import (
    ShapeBinding,
    ShapeSyntaxError,
    normalize_name,
    parse_binding,
    parse_dims,
    parse_shape_args,
)
from .symbols import Dependence, dependences


def check_expression(source: str, known_names: set[str] | frozenset[str],
                     in_session: bool = False, layers: tuple = ()) -> CheckedExpression:
    """calc.checker.check_expression, imported on first use: libcst loads only when needed."""
    from .checker import check_expression as check

    return check(source, known_names, in_session, layers)


def parse_layer_args(values: list[str], shape_names: set[str]) -> tuple:
    """Every ``--layer`` value (calc/layers.py); a name given twice, or also a shape, is an error."""
    if not values:
        return ()
    from .layers import parse_layer_arg

    layers = []
    for value in values:
        layer = parse_layer_arg(value)
        if layer.name in shape_names or any(seen.name == layer.name for seen in layers):
            raise UsageError(f"{layer.name!r} is given twice (as a layer and a shape, "
                             f"or as two layers)")
        layers.append(layer)
    return tuple(layers)


EXIT_OK, EXIT_FAILS, EXIT_USAGE = 0, 1, 2

DIALECT_CHOICES = ("numpy", "numpy-1", "torch", "torch-legacy", "all")
ALL_DIALECTS = tuple(DIALECTS)  # numpy, numpy-1, torch, torch-legacy


def resolve_dialects(requested: str | None, checked: CheckedExpression) -> tuple[str, ...]:
    name = requested or checked.default_dialect
    if name == "all":
        return ALL_DIALECTS
    if name not in DIALECTS:
        raise UsageError(f"unknown dialect {name!r} (choose from {', '.join(DIALECT_CHOICES)})")
    return (name,)


def validate_dialect(requested: str | None) -> None:
    if requested is not None and requested not in DIALECT_CHOICES:
        raise UsageError(f"unknown dialect {requested!r} (choose from {', '.join(DIALECT_CHOICES)})")


Evaluator = Callable[[CheckedExpression, dict[str, ShapeBinding], str, bool], DialectOutcome]
"""``evaluate_dialect(checked, env, dialect, check_torch)`` of calc/evaluation.py, or a stand-in."""


def exit_code_for(outcomes: list[DialectOutcome]) -> int:
    return EXIT_OK if all(o.ok for o in outcomes) else EXIT_FAILS


def emit(outcomes: list[DialectOutcome], source: str, fmt: str, out: TextIO,
         depends: dict[str, Dependence] | None = None) -> None:
    depends = depends or {}
    if fmt == "json":
        import json

        report = {}
        for outcome in outcomes:
            found = depends.get(outcome.dialect)
            report[outcome.dialect] = dict(outcome_json(outcome),
                                           depends_on=found.as_json() if found else None)
        out.write(json.dumps(report, indent=2) + "\n")
    else:
        from .render import render_text
        render_text(out, source, outcomes, depends)


def run_once(expression: str, shape_args: list[str], dialect: str | None, fmt: str,
             check_torch: bool, out: TextIO, err: TextIO, evaluator: Evaluator,
             layer_args: list[str] | None = None) -> int:
    """One expression: print the outcome (text or JSON) and return the exit code."""
    try:
        validate_dialect(dialect)
        env = parse_shape_args(shape_args)
        layers = parse_layer_args(layer_args or [], set(env))
        checked = check_expression(expression, set(env), layers=layers)
        dialects = resolve_dialects(dialect, checked)
    except (ShapeSyntaxError, ExpressionError, UsageError, ValueError) as exc:
        err.write(f"error: {exc}\n")
        return EXIT_USAGE
    try:
        outcomes = [evaluator(checked, env, name, check_torch) for name in dialects]
        depends = dependences(checked, [env] * len(outcomes), outcomes, evaluator)
    except UsageError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_USAGE
    emit(outcomes, expression, fmt, out, depends)
    return exit_code_for(outcomes)


HELP = """\
Define shapes, then evaluate expressions; results become names.
  x = (5, 1, 4, 1)        define x (dims are ints or names; () is 0-d)
  x: 5,1,4,1:int64        the same, with an optional dtype
  x + y                   evaluate; the result is bound to _
  z = x @ y; z.sum(0)     statements separated by ; bind their names
  :dialect torch          numpy | numpy-1 | torch | torch-legacy | all | auto
  :format json            text | json
  :shapes                 list the names and their shapes
  :help                   this text
  :quit                   leave (also Ctrl-D)
Tab completes names, ops (np., torch., F., x.) and commands; Up and Down recall
earlier lines, kept in $XDG_STATE_HOME/shapecheck/eval_history
(~/.local/state/shapecheck/eval_history by default)."""

# Names are Python identifiers, Unicode letters included ([^\W\d]\w* is re's spelling).
_COLON_BINDING = re.compile(r"\s*([^\W\d]\w*)\s*:(?!=)(.*)\Z", re.S)
_TUPLE_BINDING = re.compile(r"\s*([^\W\d]\w*)\s*=(?!=)\s*([(\[].*)\Z", re.S)


@dataclass
class Calculator:
    """The state of an interactive session: shapes per dialect, current dialect and format.

    Defined shapes hold in every dialect; a computed result is bound per
    dialect, since dialects may disagree on its shape.
    """

    evaluator: Evaluator
    dialect: str | None = None  # None: choose from the expression, as one-shot does
    fmt: str = "text"
    check_torch: bool = False
    layers: tuple = ()  # calc.layers.LayerBinding values from --layer
    defined: dict[str, ShapeBinding] = field(default_factory=dict)
    computed: dict[str, dict[str, ShapeBinding]] = field(default_factory=dict)
    done: bool = False

    def names(self) -> set[str]:
        names = set(self.defined)
        for bound in self.computed.values():
            names |= set(bound)
        return names

    def env_for(self, dialect: str) -> dict[str, ShapeBinding]:
        env = dict(self.defined)
        env.update(self.computed.get(dialect, {}))
        return env

    def handle(self, line: str, out: TextIO, err: TextIO) -> int:
        """One input line; returns the exit code it would have as a one-shot command."""
        text = line.strip()
        if not text or text.startswith("#"):
            return EXIT_OK
        try:
            if text.startswith(":"):
                return self.command(text, out)
            if self.define(text):
                return EXIT_OK
            return self.evaluate(text, out)
        except (ShapeSyntaxError, ExpressionError, UsageError) as exc:
            err.write(f"error: {exc}\n")
            err.flush()
            return EXIT_USAGE
        except RecursionError:
            err.write("error: the expression nests too deeply\n")
            return EXIT_USAGE
        except Exception as exc:  # a bug of ours ends one line, not the session
            first = (str(exc).splitlines() or [""])[0]
            err.write(f"error: internal error: {type(exc).__name__}: {first}\n")
            err.flush()
            return EXIT_USAGE

    def handle_shape_arg(self, value: str, err: TextIO) -> int:
        """A ``--shapes`` value given on the command line before the session starts."""
        try:
            for name, binding in parse_shape_args([value]).items():
                self.defined[name] = binding
        except ShapeSyntaxError as exc:
            err.write(f"error: {exc}\n")
            return EXIT_USAGE
        return EXIT_OK

    def command(self, text: str, out: TextIO) -> int:
        word, _, arg = text[1:].partition(" ")
        arg = arg.strip()
        if word in ("q", "quit", "exit"):
            self.done = True
        elif word == "help":
            out.write(HELP + "\n")
        elif word == "shapes":
            self.show_shapes(out)
        elif word == "dialect":
            if not arg:
                out.write(f"dialect: {self.dialect or 'auto'}\n")
            elif arg == "auto":
                self.dialect = None
            else:
                validate_dialect(arg)
                self.dialect = arg
        elif word == "format":
            if arg not in ("text", "json"):
                raise UsageError(f"unknown format {arg!r} (choose from text, json)")
            self.fmt = arg
        else:
            raise UsageError(f"unknown command ':{word}' (try :help)")
        return EXIT_OK

    def show_shapes(self, out: TextIO) -> None:
        if not self.names():
            out.write("no shapes defined\n")
            return
        for name, binding in self.defined.items():
            out.write(binding.describe() + "\n")
        # A computed name is listed once per distinct shape, with the dialects that gave it.
        by_name: dict[str, dict[str, list[str]]] = {}
        for dialect, bound in self.computed.items():
            for name, binding in bound.items():
                if name not in self.defined:
                    by_name.setdefault(name, {}).setdefault(binding.describe(), []).append(dialect)
        for name, shapes in by_name.items():
            for text, dialects in shapes.items():
                tag = "" if len(shapes) == 1 and len(dialects) == len(self.computed) \
                    else f"   [{', '.join(dialects)}]"
                out.write(f"{text}{tag}\n")

    def define(self, text: str) -> bool:
        """``x = (5, 1)`` or ``x: 5,1``: bind a shape; False when the line is not a definition."""
        match = _COLON_BINDING.match(text)
        if match is None:
            match = _TUPLE_BINDING.match(text)
            if match is None or not self._is_shape_literal(match.group(2)):
                return False
        name, rest = normalize_name(match.group(1)), match.group(2)
        offset = match.start(2)
        if ":" in rest or not rest.strip():
            binding = parse_binding(f"{name}={rest}", 0, text)
        else:
            binding = ShapeBinding(name, parse_dims(rest, offset, text))
        self.defined[name] = binding
        for bound in self.computed.values():
            bound.pop(name, None)
        return True

    def _is_shape_literal(self, rest: str) -> bool:
        """A bracketed list of ints and names that are not arrays: ``(5, B)`` but not ``(x, y)``."""
        body = rest.strip()
        if body[:1] not in "([" or body[-1:] not in ")]":
            return False
        items = [item.strip() for item in body[1:-1].split(",") if item.strip()]
        arrays = self.names()
        return all(re.fullmatch(r"[^\W\d]\w*|[+-]?\d+|\?", item)
                   and normalize_name(item) not in arrays for item in items)

    def evaluate(self, text: str, out: TextIO) -> int:
        checked = check_expression(text, self.names(), in_session=True, layers=self.layers)
        dialects = resolve_dialects(self.dialect, checked)
        outcomes, envs = [], []
        for dialect in dialects:
            env = self.env_for(dialect)
            missing = sorted(_names_used(checked) - set(env) - set(checked.assigned))
            if missing:
                raise UsageError(f"{missing[0]!r} has no shape under {dialect} "
                                 f"(it failed there)")
            envs.append(env)
            outcomes.append(self.evaluator(checked, env, dialect, self.check_torch))
        emit(outcomes, text, self.fmt, out, dependences(checked, envs, outcomes, self.evaluator))
        for outcome in outcomes:
            self.bind_results(checked, outcome)
        return exit_code_for(outcomes)

    def bind_results(self, checked: CheckedExpression, outcome: DialectOutcome) -> None:
        bound = self.computed.setdefault(outcome.dialect, {})
        for name, binding in outcome.bindings:
            bound[name] = binding
        if outcome.ok and outcome.shape is not None and not checked.ends_with_assignment:
            bound["_"] = ShapeBinding("_", outcome.shape)


def _names_used(checked: CheckedExpression) -> set[str]:
    return set(checked.names_used)
