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
    select: Optional[List[str]] = typer.Option(None, "--select", help="Only these codes/prefixes (comma list)."),
    extend_select: Optional[List[str]] = typer.Option(None, "--extend-select", help="Add codes to select."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Codes/prefixes to leave out."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Replace the config's exclude globs."),
    extend_exclude: Optional[List[str]] = typer.Option(None, "--extend-exclude", help="Add exclude globs."),
    dialect: Optional[str] = typer.Option(None, "--dialect", help="numpy, numpy-1, torch, torch-legacy or auto."),
    stdin_filename: Optional[str] = typer.Option(None, "--stdin-filename", help="Name for source read from stdin."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache directory (overrides config)."),
    statistics: bool = typer.Option(False, "--statistics", help="Print the count per code instead."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    show_suppressed: bool = typer.Option(False, "--show-suppressed", help="Also list suppressed findings."),
) -> None:
    """Report shape and aliasing bugs in Python files and notebooks."""
    from .lint import OutputOptions, lint_command

    output = OutputOptions(format=output_format.value, output_file=output_file, statistics=statistics,
                           exit_zero=exit_zero, show_suppressed=show_suppressed)
    raise typer.Exit(lint_command(
        list(paths or []), select=select, ignore=ignore, extend_select=extend_select, exclude=exclude,
        extend_exclude=extend_exclude, dialect=dialect, config=config, stdin_filename=stdin_filename,
        jobs=jobs, no_cache=no_cache, cache_dir=cache_dir, output=output))


@app.command()
def rules(
    config: Optional[Path] = typer.Option(None, "--config", help="Judge 'enabled' with this pyproject.toml."),
) -> None:
    """List every rule: code, name, default severity, enabled."""
    from .lint import rules_command

    raise typer.Exit(rules_command(config))


@app.command()
def rule(code: str = typer.Argument(..., help="A rule code, e.g. SC101.")) -> None:
    """Show one rule's documentation and examples."""
    from .lint import rule_command

    raise typer.Exit(rule_command(code))


from .calc.command import register as _register_eval  # noqa: E402  (adds `eval`)

_register_eval(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point: a usage error is one line on stderr and exit code 2, never a traceback."""
    args = argv if argv is not None else sys.argv[1:]
    command = typer.main.get_command(app)
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
        message = exc.format_message().strip()
        if message:  # bare `shapecheck` prints the help and nothing more
            print(f"shapecheck: error: {message.splitlines()[0]}", file=sys.stderr)
        code = exc.exit_code
    code = code if isinstance(code, int) else 0
    if argv is None:
        sys.exit(code)
    return code


if __name__ == "__main__":
    main()
