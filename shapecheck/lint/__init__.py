"""The product around the analyzer: `shapecheck lint`, `shapecheck rules` and `shapecheck rule CODE`."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from .config import (
    ConfigError,
    Overrides,
    suggest_code,
    validate_codes,
    validate_dialect,
)

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class OutputOptions:
    format: str = "text"
    output_file: Path | None = None
    statistics: bool = False
    exit_zero: bool = False
    show_suppressed: bool = False
    color: str = "auto"  # auto | always | never


def wants_color(stream: TextIO, choice: str = "auto") -> bool:
    """``--color always|never`` decides; ``auto`` means a terminal, unless NO_COLOR or FORCE_COLOR says otherwise.

    The command line wins over the environment (https://no-color.org), and
    NO_COLOR wins over FORCE_COLOR (https://force-color.org) when both are set.
    """
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "") not in ("", "0", "false"):
        return True
    return bool(getattr(stream, "isatty", None) and stream.isatty())


def terminal_width() -> int | None:
    """Columns to wrap text output to: the terminal's (or COLUMNS); None when piped, so lines stay whole for grep."""
    import shutil

    if os.environ.get("COLUMNS", "").isdigit() or sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def _split(values: list[str] | None) -> tuple[str, ...]:
    """``--select SC1,SC2 --select SC3`` -> ("SC1", "SC2", "SC3")."""
    return tuple(part.strip() for value in values or () for part in value.split(",") if part.strip())


def lint_command(paths: list[Path], *, select: list[str] | None = None, ignore: list[str] | None = None,
                 extend_select: list[str] | None = None, exclude: list[str] | None = None,
                 extend_exclude: list[str] | None = None, dialect: str | None = None,
                 config: Path | None = None, stdin_filename: str | None = None, jobs: int | None = None,
                 no_cache: bool = False, cache_dir: Path | None = None, output: OutputOptions = OutputOptions(),
                 coverage: bool = False, baseline: Path | None = None,
                 write_baseline: Path | None = None, fix: bool = False, diff: bool = False) -> int:
    """Runs a lint and writes its output; returns the exit code. Usage errors print one line and give 2.

    ``coverage`` adds the shape coverage report (lint/coverage.py) to the output.
    ``baseline`` leaves out the findings that file holds; ``write_baseline`` records
    the findings in that file instead of printing them (lint/baseline.py). ``fix``
    applies the findings' certain fixes and reports what is left; ``diff`` prints them as
    a unified diff and writes nothing (lint/fixes/).
    """
    from .formats import render, render_statistics
    from .progress import progress_for
    from .runner import LintOptions, known_codes, run_lint

    try:
        codes = known_codes()
        if select and not _split(select):
            # `--select ""` (often an empty shell variable) would silently select nothing and always pass.
            raise ConfigError("--select needs at least one code or prefix (ALL selects every rule)")
        overrides = Overrides(
            select=validate_codes(_split(select), codes, "--select") if select else None,
            ignore=validate_codes(_split(ignore), codes, "--ignore"),
            extend_select=validate_codes(_split(extend_select), codes, "--extend-select"),
            exclude=_split(exclude) if exclude else None,
            extend_exclude=_split(extend_exclude),
            dialect=validate_dialect(dialect, "--dialect") if dialect else None,
            cache_dir=cache_dir.absolute() if cache_dir else None,
        )
        read_stdin = any(str(p) == "-" for p in paths) or (not paths and stdin_filename is not None)
        if read_stdin and any(str(p) != "-" for p in paths):
            raise ConfigError("'-' (stdin) cannot be combined with other paths")
        if jobs is not None and jobs < 1:
            raise ConfigError(f"--jobs must be at least 1, got {jobs}")
        if (fix or diff) and read_stdin:
            raise ConfigError("--fix and --diff rewrite files: they cannot read stdin")
        known = None
        if baseline is not None and write_baseline is None:
            from .baseline import Baseline
            known = Baseline.read(baseline)  # a bad baseline is a usage error before any work
        display = None if read_stdin else progress_for(output.format, sys.stderr)
        options = LintOptions(paths=tuple(p for p in paths if str(p) != "-"), stdin_filename=stdin_filename,
                              read_stdin=read_stdin, config=config, overrides=overrides, jobs=jobs,
                              use_cache=not no_cache, coverage=coverage, progress=display.update if display else None)
        try:
            report = run_lint(options)
        finally:
            if display is not None:
                display.close()
        if write_baseline is not None:
            from .baseline import write_baseline as record
            count = record(report, write_baseline)
    except ConfigError as exc:
        print(f"shapecheck: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for warning in report.warnings:
        print(f"shapecheck: warning: {warning}", file=sys.stderr)
    if write_baseline is not None:
        print(f"shapecheck: wrote {count} finding{'s' if count != 1 else ''} to {write_baseline}",
              file=sys.stderr)
        return EXIT_CLEAN
    dropped = known.apply(report) if known is not None else 0
    if diff or fix:
        from .fixes import plan_fixes, write_fixes

        plans = plan_fixes(report.findings)
        count = sum(len(plan.applied) for plan in plans)
        files = f"{len(plans)} file{'s' if len(plans) != 1 else ''}"
        if diff:
            sys.stdout.write("".join(plan.diff() for plan in plans))
            if plans:
                print(f"shapecheck: would fix {count} finding{'s' if count != 1 else ''} in {files}",
                      file=sys.stderr)
            return EXIT_FINDINGS if plans else EXIT_CLEAN
        for error in write_fixes(plans):
            print(f"shapecheck: warning: {error}", file=sys.stderr)
        if plans:
            print(f"shapecheck: fixed {count} finding{'s' if count != 1 else ''} in {files}", file=sys.stderr)
            report = run_lint(replace(options, progress=None))  # what is left, as the files now are
            dropped = known.apply(report) if known is not None else 0
    if dropped and output.format in ("text", "concise"):
        print(f"shapecheck: {dropped} finding{'s' if dropped != 1 else ''} in the baseline "
              f"{baseline} not shown", file=sys.stderr)

    if output.format != "text":
        color = False
    elif output.output_file is not None:
        color = output.color == "always"  # a file is not a terminal: only when asked for
    else:
        color = wants_color(sys.stdout, output.color)
    if output.statistics:
        text = render_statistics(report, output.format)
    else:
        width = terminal_width() if output.output_file is None else None
        text = render(report, output.format, color=color, show_suppressed=output.show_suppressed, width=width)
    if coverage:
        from .coverage import with_coverage
        text = with_coverage(text, report, output.format, statistics=output.statistics, color=color,
                             width=terminal_width() if output.output_file is None else None)
    if output.output_file is not None:
        try:
            output.output_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"shapecheck: error: cannot write {output.output_file}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_USAGE
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if report.findings and not output.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def rules_command(config: Path | None = None, color: str = "auto") -> int:
    """The rule table: code, name, default severity, and whether this directory's config enables it."""
    from rich.console import Console
    from rich.table import Table

    from ..analysis.rules import all_rules
    from .config import ConfigResolver

    rules = all_rules()
    try:
        resolved = ConfigResolver(frozenset(rules), explicit=config).for_directory(Path.cwd())
    except ConfigError as exc:
        print(f"shapecheck: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    table = Table("code", "name", "default severity", "enabled", box=None, pad_edge=False)
    for code, spec in rules.items():
        table.add_row(code, spec.name, spec.severity.value, "yes" if resolved.is_enabled(code) else "no")
    colored = wants_color(sys.stdout, color)
    Console(no_color=not colored, force_terminal=colored or None, highlight=False).print(table)
    return EXIT_CLEAN


def rule_command(code: str, color: str = "auto") -> int:
    """One rule's docs and examples, rendered as markdown."""
    from rich.console import Console
    from rich.markdown import Markdown

    from ..analysis.rules import all_rules

    rules = all_rules()
    spec = rules.get(code.strip().upper())
    if spec is None:
        hint = suggest_code(code, frozenset(rules))
        print(f"shapecheck: error: unknown rule {code!r}{hint} (see `shapecheck rules`)", file=sys.stderr)
        return EXIT_USAGE
    colored = wants_color(sys.stdout, color)
    console = Console(no_color=not colored, force_terminal=colored or None, highlight=False)
    if console.is_terminal:
        console.print(Markdown(spec.markdown()))
    else:
        sys.stdout.write(spec.markdown())  # piped: the markdown itself, to paste into docs
    return EXIT_CLEAN


__all__ = ["OutputOptions", "lint_command", "rules_command", "rule_command", "wants_color",
           "EXIT_CLEAN", "EXIT_FINDINGS", "EXIT_USAGE"]
