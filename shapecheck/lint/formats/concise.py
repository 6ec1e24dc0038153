"""One finding per line: ``path:line:col: CODE message``."""

from __future__ import annotations

from ..runner import LintReport
from . import location


def render_concise(report: LintReport, *, show_suppressed: bool = False) -> str:
    lines = [f"{location(f)}: {f.code} {f.message}" for f in report.findings]
    if show_suppressed:
        lines += [f"{location(f)}: {f.code} {f.message} (suppressed)" for f in report.suppressed]
    return "".join(line + "\n" for line in lines)
