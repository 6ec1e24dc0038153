"""The ``shapecheck eval`` command line: options in, exit code out (0 valid, 1 fails, 2 bad input)."""

from __future__ import annotations

import argparse
import gc
import sys
from typing import TextIO

from .session import (
    DIALECT_CHOICES,
    EXIT_USAGE,
    Calculator,
    UsageError,
    parse_layer_args,
    run_once,
    validate_dialect,
)


def evaluate_dialect(checked, env, dialect, check_torch):  # type: ignore[no-untyped-def]
    """calc/evaluation.py's evaluator, imported on the first evaluation.

    Importing it brings in the interpreter, libcst's nodes and NumPy; a usage
    error, --help or a session waiting at its prompt need none of that.
    """
    from .evaluation import evaluate_dialect as evaluate

    return evaluate(checked, env, dialect, check_torch)


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="shapecheck eval",
        description="Shape calculator: explain the shape of a NumPy / PyTorch expression. "
                    "Without an expression (or with -i) it starts an interactive session that "
                    "also reads piped stdin, one line per input.",
        epilog="Exit codes: 0 valid, 1 the expression fails under the semantics "
               "(in any requested dialect), 2 bad input.")
    parser.add_argument("expression", nargs="?", default=None,
                        help="Python expression or statements separated by ; or newlines; "
                             "parsed with libcst, never run by Python")
    parser.add_argument("-s", "--shapes", action="append", default=[], metavar="NAME=DIMS",
                        help="name=dims[:dtype], repeatable; one value may hold several "
                             "separated by spaces or ';'. Dims are ints or names (symbols); "
                             "x=() is 0-d; x=5,3:int64 gives a dtype")
    parser.add_argument("-d", "--dialect", default=None, metavar="|".join(DIALECT_CHOICES),
                        help="semantics to apply (default: numpy if the expression names np, "
                             "torch if it names torch, else all)")
    parser.add_argument("-f", "--format", dest="output_format", default="text",
                        metavar="text|json", help="output format (json: one object per dialect)")
    parser.add_argument("--check-torch", action="store_true",
                        help="also run it on torch, if installed, and report agreement")
    parser.add_argument("-i", "--interactive", action="store_true",
                        help="start an interactive session (after evaluating EXPRESSION, if given)")
    parser.add_argument("--layer", action="append", default=[], metavar="NAME=nn.Kind(...)",
                        help="a torch.nn layer the expression calls by NAME, e.g. "
                             "conv=nn.Conv2d(3, 16, 3, stride=2); repeatable. Arguments are "
                             "literals (numbers, strings, True/False/None, tuples)")
    parser.add_argument("--batch", metavar="FILE", default=None,
                        help="evaluate EXPRESSION for every row of FILE (.csv, .jsonl, .npy, "
                             ".npz), whose columns are named after the expression's names; "
                             "prints a summary, or one JSON object per row with -f json")
    return parser


def main(argv: list[str], stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Run the command; an unexpected failure is one line on stderr (exit 2), never a traceback."""
    err = stderr or sys.stderr
    try:
        return _main(argv, stdin, stdout, stderr)
    except KeyboardInterrupt:
        return 130
    except RecursionError:
        err.write("error: the expression nests too deeply\n")
        return EXIT_USAGE
    except Exception as exc:  # a bug of ours must not show users a traceback
        first = (str(exc).splitlines() or [""])[0]
        err.write(f"error: internal error: {type(exc).__name__}: {first}\n")
        return EXIT_USAGE


def _main(argv: list[str], stdin: TextIO | None, stdout: TextIO | None,
          stderr: TextIO | None) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = build_parser()
    if "-h" in argv or "--help" in argv:
        parser.print_help(stdout)
        return 0
    try:
        options = parser.parse_args(argv)
        validate_dialect(options.dialect)
        if options.output_format not in ("text", "json"):
            raise UsageError(f"unknown format {options.output_format!r} (choose from text, json)")
    except UsageError as exc:
        stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    if options.batch is not None:
        problem = "--batch needs an expression" if options.expression is None else \
            "--batch does not combine with -i" if options.interactive else \
            "--batch does not combine with --check-torch" if options.check_torch else None
        if problem:
            stderr.write(f"error: {problem}\n")
            return EXIT_USAGE
        from .batch_command import run_batch

        return run_batch(options.expression, options.batch, options.shapes, options.dialect,
                         options.output_format, stdout, stderr, options.layer)
    if options.expression is None or options.interactive:
        from .repl import run_repl

        gc.enable()  # a session may run long: its garbage is collected (entry.py pauses it for one-shot answers)

        calculator = Calculator(evaluate_dialect, dialect=options.dialect,
                                fmt=options.output_format, check_torch=options.check_torch)
        for value in options.shapes:
            code = calculator.handle_shape_arg(value, stderr)
            if code:
                return code
        try:
            calculator.layers = parse_layer_args(options.layer, set(calculator.defined))
        except (UsageError, ValueError) as exc:
            stderr.write(f"error: {exc}\n")
            return EXIT_USAGE
        worst = 0
        if options.expression is not None:
            worst = calculator.handle(options.expression, stdout, stderr)
        return max(worst, run_repl(calculator, stdin, stdout, stderr))
    return run_once(options.expression, options.shapes, options.dialect, options.output_format,
                    options.check_torch, stdout, stderr, evaluate_dialect, options.layer)
