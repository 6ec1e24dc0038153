"""GitHub Actions workflow commands, so findings show as annotations on the pull request."""

from __future__ import annotations

from ..runner import LintReport
from .message import message_of

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: LintReport) -> str:
    lines = []
    for f in report.findings:
        cell = f"cell {f.cell}: " if f.cell is not None else ""
        props = {
            "file": f.path,
            "line": f.span.line,
            "col": f.span.column,
            "endLine": f.span.end_line,
            "endColumn": f.span.end_column,
            "title": f"{f.code} {f.name}",
        }
        if f.cell is not None:
            # Lines inside a notebook cell would point at the wrong place of the .ipynb JSON.
            del props["line"], props["col"], props["endLine"], props["endColumn"]
        rendered = ",".join(f"{k}={_escape_property(str(v))}" for k, v in props.items())
        parts = message_of(f)
        text = "\n".join((parts.headline, *parts.details))
        message = text if not cell else f"{cell}line {f.span.line}:{f.span.column}: {text}"
        lines.append(f"::{_COMMAND[f.severity.value]} {rendered}::{_escape_data(message)}")
    return "".join(line + "\n" for line in lines)
