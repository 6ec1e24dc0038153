"""The JSON contract of DESIGN.md: an array of findings (suppressed ones flagged when asked for).

Each finding keeps its full text in ``message`` and adds ``headline``,
``details`` and ``facts`` (operands, shapes, dims, the library's own text).
"""

from __future__ import annotations

import json

from ..runner import LintReport
from .message import message_of


def finding_json(finding) -> dict:
    message = message_of(finding)
    return dict(finding.to_json(), headline=message.headline, details=list(message.details),
                facts=message.facts.to_json())


def render_json(report: LintReport, *, show_suppressed: bool = False) -> str:
    items = [finding_json(f) for f in report.findings]
    if show_suppressed:
        items += [dict(finding_json(f), suppressed=True) for f in report.suppressed]
    return json.dumps(items, indent=2) + "\n"
