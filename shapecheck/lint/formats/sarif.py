"""SARIF 2.1.0 with every field GitHub code scanning reads: rules with help and default level, regions, fingerprints."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ... import __version__
from ...analysis.findings import Finding
from ...analysis.rules import all_rules
from ..fingerprint import fingerprints
from ..runner import LintReport
from .message import message_of

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
# GitHub sorts alerts by this; 'problem.severity' takes error | warning | recommendation.
_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "info": "recommendation"}


def _uri(path: str) -> tuple[str, dict]:
    """A relative URI against %SRCROOT% (the current directory) when possible, else a file URI."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix(), {"uriBaseId": "%SRCROOT%"}
    except ValueError:
        return absolute.as_uri(), {}


def _rule_descriptor(spec) -> dict:
    return {
        "id": spec.code,
        "name": spec.name,
        "shortDescription": {"text": spec.summary},
        "fullDescription": {"text": spec.why},
        "help": {"text": spec.markdown(), "markdown": spec.markdown()},
        "defaultConfiguration": {"level": _LEVEL[spec.severity.value]},
        "properties": {
            "tags": ["shapecheck", "correctness"],
            "precision": "very-high",
            "problem.severity": _PROBLEM_SEVERITY[spec.severity.value],
        },
    }


def _result(finding: Finding, rule_index: dict[str, int], suppressed: bool, fingerprint: str) -> dict:
    uri, base = _uri(finding.path)
    span = finding.span
    region = {"startLine": span.line, "startColumn": span.column,
              "endLine": max(span.end_line, span.line), "endColumn": max(span.end_column, 1)}
    message = message_of(finding)
    shown = "\n".join((message.headline, *message.details))
    text = shown if finding.cell is None else f"cell {finding.cell}: {shown}"
    result = {
        "ruleId": finding.code,
        "ruleIndex": rule_index[finding.code],
        "level": _LEVEL[finding.severity.value],
        "message": {"text": text},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri, **base}, "region": region}}],
        # The fingerprint --baseline files use (lint/fingerprint.py): it survives code moving up or down.
        "partialFingerprints": {"shapecheckFinding/v2": fingerprint},
    }
    if finding.cell is not None:
        result["properties"] = {"cell": finding.cell}
    if suppressed:
        result["suppressions"] = [{"kind": "inSource"}]
    return result


def sarif_log(report: LintReport, *, show_suppressed: bool = False) -> dict:
    rules = all_rules()
    for finding in report.findings + report.suppressed:
        if finding.code not in rules:  # a code the catalog lacks still needs a descriptor
            rules[finding.code] = None
    descriptors = []
    for code, spec in rules.items():
        if spec is None:
            descriptors.append({"id": code, "shortDescription": {"text": code}})
        else:
            descriptors.append(_rule_descriptor(spec))
    rule_index = {d["id"]: i for i, d in enumerate(descriptors)}
    shown = fingerprints(report.findings, report.sources)
    results = [_result(f, rule_index, False, shown[id(f)].digest) for f in report.findings]
    if show_suppressed:
        silenced = fingerprints(report.suppressed, report.sources)
        results += [_result(f, rule_index, True, silenced[id(f)].digest) for f in report.suppressed]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "shapecheck",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": descriptors,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }


def render_sarif(report: LintReport, *, show_suppressed: bool = False) -> str:
    return json.dumps(sarif_log(report, show_suppressed=show_suppressed), indent=2) + "\n"
