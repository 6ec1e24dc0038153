"""The JSON contract of DESIGN.md: an array of findings (suppressed ones flagged when asked for)."""

from __future__ import annotations

import json

from ..runner import LintReport


def render_json(report: LintReport, *, show_suppressed: bool = False) -> str:
    items = [f.to_json() for f in report.findings]
    if show_suppressed:
        items += [dict(f.to_json(), suppressed=True) for f in report.suppressed]
    return json.dumps(items, indent=2) + "\n"
