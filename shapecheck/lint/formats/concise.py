"""One finding per line: ``path:line:col: CODE [severity] message``, the whole message on that line."""

from __future__ import annotations

from ..runner import LintReport
from . import location
from .message import full_text


def render_concise(report: LintReport, *, show_suppressed: bool = False) -> str:
    def line(finding, suffix: str = "") -> str:
        return f"{location(finding)}: {finding.code} [{finding.severity.value}] {full_text(finding)}{suffix}"

    lines = [line(f) for f in report.findings]
    if show_suppressed:
        lines += [line(f, " (suppressed)") for f in report.suppressed]
    return "".join(line + "\n" for line in lines)
