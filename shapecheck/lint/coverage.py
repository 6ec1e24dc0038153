"""The shape coverage report of ``shapecheck lint --coverage``: per file and in total.

The counts come from analysis/coverage.py (what each number means, and why
an expression counts once per file with its best knowledge, is said there).
Human formats get an aligned table after the findings, as mypy prints its
precision report apart from its errors; the JSON formats carry the same
counts inside their own document, so the output stays one JSON value.
"""

from __future__ import annotations

import io
import json

from ..analysis.coverage import FileCoverage
from .runner import LintReport


def total_of(report: LintReport) -> FileCoverage:
    return sum(report.coverage.values(), FileCoverage())


def coverage_json(report: LintReport) -> dict:
    """``{"files": [{"path", "arrays", "rank_known", "fully_known"}...], "total": {... and "files"}}``."""
    files = [dict(path=path, **counts.to_json()) for path, counts in sorted(report.coverage.items())]
    return {"files": files, "total": dict(total_of(report).to_json(), files=len(files))}


def percent(counts: FileCoverage, count: int) -> str:
    share = counts.share(count)
    return "-" if share is None else f"{100 * share:.1f}%"


def render_coverage_table(report: LintReport, *, color: bool = False, width: int | None = None) -> str:
    """An aligned table: one row per file, then the total."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table("file", "arrays", "rank known", "%", "fully known", "%", title="Shape coverage",
                  title_justify="left", box=box.SIMPLE_HEAD, show_footer=False, pad_edge=False)
    for column in table.columns[1:]:
        column.justify = "right"
    for path, counts in sorted(report.coverage.items()):
        table.add_row(path, str(counts.arrays), str(counts.rank_known), percent(counts, counts.rank_known),
                      str(counts.fully_known), percent(counts, counts.fully_known))
    total = total_of(report)
    table.add_section()
    files = len(report.coverage)
    table.add_row(f"total ({files} file{'s' if files != 1 else ''})", str(total.arrays),
                  str(total.rank_known), percent(total, total.rank_known),
                  str(total.fully_known), percent(total, total.fully_known), style="bold")
    out = io.StringIO()
    # Piped output keeps every row on one line, whatever the length of the paths.
    console = Console(file=out, width=width or 10_000, no_color=not color, force_terminal=color or None,
                      highlight=False, soft_wrap=width is None)
    console.print(table)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip().splitlines()) + "\n"


def with_coverage(text: str, report: LintReport, fmt: str, *, statistics: bool = False,
                  color: bool = False, width: int | None = None) -> str:
    """The rendered output with the coverage report added in the way its format allows.

    json: ``{"findings": [...], "coverage": {...}}`` (``"statistics"`` with
    --statistics); sarif: the counts in the run's property bag
    (``runs[0].properties.shapeCoverage``); every other format: the table
    after the findings.
    """
    if fmt == "json":
        key = "statistics" if statistics else "findings"
        return json.dumps({key: json.loads(text), "coverage": coverage_json(report)}, indent=2) + "\n"
    if fmt == "sarif" and not statistics:
        document = json.loads(text)
        for run in document.get("runs", []):
            run.setdefault("properties", {})["shapeCoverage"] = coverage_json(report)
        return json.dumps(document, indent=2) + "\n"
    if fmt == "sarif":  # --statistics prints the counts as plain JSON for sarif too
        return json.dumps({"statistics": json.loads(text), "coverage": coverage_json(report)}, indent=2) + "\n"
    table = render_coverage_table(report, color=color, width=width)
    return f"{text}\n{table}" if text else table


__all__ = ["coverage_json", "render_coverage_table", "total_of", "with_coverage"]
