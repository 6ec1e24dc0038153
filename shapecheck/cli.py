"""The command line: typer wiring only; each command hands its options to the module that does the work.

Heavy modules are imported inside the commands so that start-up stays fast.
To add a command, write one more ``@app.command()`` function that imports its
module lazily and returns an exit code through ``raise typer.Exit(code)``.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(
    name="shapecheck",
    help="Shape and aliasing analyzer for NumPy and PyTorch code.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from . import __version__

        print(f"shapecheck {__version__}")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the version and exit."),
) -> None:
    """Shape and aliasing analyzer for NumPy and PyTorch code."""


class ColorChoice(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


class OutputFormat(str, Enum):
    text = "text"
    concise = "concise"
    json = "json"
    sarif = "sarif"
    github = "github"


@app.command()
def lint(
    paths: List[Path] = typer.Argument(None, help="Files or directories to lint ('-' reads stdin). Default: ."),
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--format", "-f", help="Output format."),
    output_file: Optional[Path] = typer.Option(None, "--output-file", "-o", help="Write the output here."),
    config: Optional[Path] = typer.Option(None, "--config", help="Use this pyproject.toml for every file."),
    select: Optional[List[str]] = typer.Option(None, "--select", metavar="<codes>",
                                               help="Only these codes/prefixes (comma list)."),
    extend_select: Optional[List[str]] = typer.Option(None, "--extend-select", metavar="<codes>",
                                                      help="Add codes to select."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", metavar="<codes>",
                                               help="Codes/prefixes to leave out."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="<globs>",
                                                help="Replace the config's exclude globs."),
    extend_exclude: Optional[List[str]] = typer.Option(None, "--extend-exclude", metavar="<globs>",
                                                       help="Add exclude globs."),
    dialect: Optional[str] = typer.Option(None, "--dialect", help="numpy, numpy-1, torch, torch-legacy or auto."),
    stdin_filename: Optional[str] = typer.Option(None, "--stdin-filename", help="Name for source read from stdin."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache directory (overrides config)."),
    statistics: bool = typer.Option(False, "--statistics", help="Print the count per code instead."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    show_suppressed: bool = typer.Option(False, "--show-suppressed", help="Also list suppressed findings."),
    coverage: bool = typer.Option(False, "--coverage",
                                  help="Also report shape coverage: per file, the array expressions whose "
                                       "rank and whose full shape the analyzer knew (reads no cache)."),
    color: ColorChoice = typer.Option(ColorChoice.auto, "--color",
                                      help="Colour text output: auto (a terminal, honouring NO_COLOR and "
                                           "FORCE_COLOR), always or never."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", metavar="FILE",
                                            help="Report only findings this baseline file does not hold."),
    write_baseline: Optional[Path] = typer.Option(None, "--write-baseline", metavar="FILE",
                                                  help="Record today's findings in this baseline file "
                                                       "(and exit 0)."),
    fix: bool = typer.Option(False, "--fix", help="Apply the fixes that are certain, then report what is left."),
    diff: bool = typer.Option(False, "--diff", help="Print the certain fixes as a unified diff; write nothing."),
) -> None:
    """Report shape and aliasing bugs in Python files and notebooks."""
    from .lint import OutputOptions, lint_command

    output = OutputOptions(format=output_format.value, output_file=output_file, statistics=statistics,
                           exit_zero=exit_zero, show_suppressed=show_suppressed, color=color.value)
    raise typer.Exit(lint_command(
        list(paths or []), select=select, ignore=ignore, extend_select=extend_select, exclude=exclude,
        extend_exclude=extend_exclude, dialect=dialect, config=config, stdin_filename=stdin_filename,
        jobs=jobs, no_cache=no_cache, cache_dir=cache_dir, output=output, coverage=coverage,
        baseline=baseline, write_baseline=write_baseline, fix=fix, diff=diff))


@app.command()
def rules(
    config: Optional[Path] = typer.Option(None, "--config", help="Judge 'enabled' with this pyproject.toml."),
    color: ColorChoice = typer.Option(ColorChoice.auto, "--color", help="auto, always or never."),
) -> None:
    """List every rule: code, name, default severity, enabled."""
    from .lint import rules_command

    raise typer.Exit(rules_command(config, color=color.value))


@app.command()
def rule(
    code: str = typer.Argument(..., help="A rule code, e.g. SC101."),
    color: ColorChoice = typer.Option(ColorChoice.auto, "--color", help="auto, always or never."),
) -> None:
    """Show one rule's documentation and examples."""
    from .lint import rule_command

    raise typer.Exit(rule_command(code, color=color.value))


class ListingFormat(str, Enum):
    text = "text"
    json = "json"


@app.command()
def shapes(
    target: str = typer.Argument(..., metavar="FILE[:FUNCTION]",
                                 help="A file, or a file and a function in it (forward, GPT.forward)."),
    output_format: ListingFormat = typer.Option(ListingFormat.text, "--format", "-f", help="text or json."),
    config: Optional[Path] = typer.Option(None, "--config", help="Use this pyproject.toml."),
    dialect: Optional[str] = typer.Option(None, "--dialect", help="numpy, numpy-1, torch, torch-legacy or auto."),
) -> None:
    """Print what the analyzer believes each array-valued name is, after each assignment."""
    from .lint.shapes import shapes_command

    raise typer.Exit(shapes_command(target, config=config, dialect=dialect, output_format=output_format.value))


@app.command()
def server() -> None:
    """Run the language server on stdin/stdout (diagnostics, shape hovers, inlay hints, fixes)."""
    from .server import run

    raise typer.Exit(run())


from .calc.command import register as _register_eval  # noqa: E402  (adds `eval`)

_register_eval(app)


def _plain_flags(command) -> None:
    """Boolean flags take no value, so help shows no ``<bool>`` after them (the help flag included)."""
    ctx = command.context_class(command, info_name=command.name)
    for param in [*command.params, command.get_help_option(ctx)]:
        if param is not None and getattr(param, "is_flag", False):
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _plain_flags(sub)


def _usage_message(exc: Exception) -> str:
    """Click's message, with "did you mean" for a mistyped option instead of its list of possibilities."""
    message = exc.format_message().strip().splitlines()[0] if exc.format_message().strip() else ""
    option = getattr(exc, "option_name", None)
    if option and hasattr(exc, "possibilities"):
        from difflib import get_close_matches

        ctx = getattr(exc, "ctx", None)
        known = [name for param in (ctx.command.get_params(ctx) if ctx is not None else ())
                 for name in [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
                 if name.startswith("-")]
        close = get_close_matches(option, known, n=1, cutoff=0.8)
        message = f"No such option: {option}" + (f" (did you mean {close[0]}?)" if close else "")
    return message


def main(argv: list[str] | None = None) -> int:
    """Entry point: a usage error is one line on stderr and exit code 2, never a traceback."""
    args = argv if argv is not None else sys.argv[1:]
    command = typer.main.get_command(app)
    _plain_flags(command)
    try:
        code = command.main(args=args, prog_name="shapecheck",
                            standalone_mode=False)
    except typer.Abort:
        print("shapecheck: aborted", file=sys.stderr)
        code = 130
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:
        # Click's errors (typer vendors its own copy of click in recent versions, so match by shape).
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        message = _usage_message(exc)
        if message:  # bare `shapecheck` prints the help and nothing more
            print(f"shapecheck: error: {message}", file=sys.stderr)
        code = exc.exit_code
    code = code if isinstance(code, int) else 0
    if argv is None:
        sys.exit(code)
    return code


if __name__ == "__main__":
    main()
