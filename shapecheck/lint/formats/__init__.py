"""Renders a lint report in one of the output formats; formatters know nothing about analysis."""

from __future__ import annotations

import json
from collections import Counter

from ..runner import LintReport

FORMATS = ("text", "concise", "json", "sarif", "github")


def render(report: LintReport, fmt: str, *, color: bool = False, show_suppressed: bool = False,
           width: int | None = None) -> str:
    """The whole output as text (ends with a newline unless empty); ``width`` wraps the text format."""
    if fmt == "text":
        from .text import render_text
        return render_text(report, color=color, show_suppressed=show_suppressed, width=width)
    if fmt == "concise":
        from .concise import render_concise
        return render_concise(report, show_suppressed=show_suppressed)
    if fmt == "json":
        from .json_format import render_json
        return render_json(report, show_suppressed=show_suppressed)
    if fmt == "sarif":
        from .sarif import render_sarif
        return render_sarif(report, show_suppressed=show_suppressed)
    if fmt == "github":
        from .github import render_github
        return render_github(report)
    raise ValueError(f"unknown format {fmt!r}")


def render_statistics(report: LintReport, fmt: str) -> str:
    """Count per code, most frequent first; JSON for the machine formats."""
    counts = Counter((f.code, f.name) for f in report.findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    if fmt in ("json", "sarif"):
        return json.dumps([{"code": c, "name": n, "count": k} for (c, n), k in rows], indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(k)) for _, k in rows)
    return "".join(f"{k:>{width}}\t{c}\t{n}\n" for (c, n), k in rows)


def location(finding) -> str:
    """``path:line:col``, or ``nb.ipynb:cell 3:2:5`` for a notebook finding."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{finding.path}:{cell}{finding.span.line}:{finding.span.column}"
