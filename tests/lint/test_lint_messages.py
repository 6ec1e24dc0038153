"""Messages: a short headline naming the shapes, detail lines under it, and facts for tools, in every format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.findings import Facts, Finding, Operand, Severity, Span
from shapecheck.lint.cache import finding_from_record, finding_to_record
from shapecheck.lint.formats import render
from shapecheck.lint.formats.message import message_of, split_message
from shapecheck.lint.formats.text import render_text
from shapecheck.lint.runner import LintReport

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
BROADCAST = ("import numpy as np\n"
             "a = np.zeros((5, 2, 4, 1))\n"
             "b = np.ones((3, 1, 1))\n"
             "c = a + b\n")


def broadcast_finding() -> Finding:
    [finding] = analyze_source(BROADCAST, "m.py")
    return finding


def report_of(*findings: Finding, source: str | None = None) -> LintReport:
    report = LintReport(findings=list(findings), files_checked=1)
    if source is not None:
        report.sources[(findings[0].path, None)] = source
    return report


def test_a_long_analyzer_message_becomes_a_headline_with_the_shapes_and_detail_lines():
    finding = broadcast_finding()
    assert len(finding.message) > 100
    message = message_of(finding)
    assert message.headline == "cannot broadcast (5, 2, 4, 1) with (3, 1, 1): dim -3 is 2 vs 3"
    assert message.details[0] == "operands: a from line 2, b from line 3"
    assert message.details[1].startswith("numpy: operands could not be broadcast together")


def test_json_keeps_the_full_text_and_adds_structured_facts():
    finding = broadcast_finding()
    [item] = json.loads(render(report_of(finding), "json"))
    assert item["message"] == finding.message
    assert item["headline"].startswith("cannot broadcast")
    assert item["facts"]["shapes"] == [[5, 2, 4, 1], [3, 1, 1]]
    assert item["facts"]["dims"] == [-3]
    assert item["facts"]["operands"] == [{"expr": "a", "shape": None, "line": 2},
                                         {"expr": "b", "shape": None, "line": 3}]
    assert item["facts"]["library"] == "numpy"
    assert item["facts"]["library_message"].startswith("operands could not be broadcast together with shapes")


def test_symbolic_and_unknown_dims_are_strings_and_null_in_facts():
    facts = split_message("cannot broadcast (B, 3) with (?, 4): dim -1 is 3 vs 4").facts
    assert facts.shapes == (("B", 3), (None, 4))


def sample_findings() -> list[Finding]:
    out = []
    for path in sorted(SAMPLES.rglob("*.py")):
        out += analyze_source(path.read_text(), str(path))
    return out


def test_every_sample_headline_is_short_and_loses_no_word_of_the_message():
    findings = sample_findings()
    assert len(findings) > 20
    for finding in findings:
        message = message_of(finding)
        assert len(message.headline) <= 120, message.headline
        said = " ".join((message.headline, *message.details))
        words = re.findall(r"[\w.'\"]+", finding.message)
        assert all(word in said for word in words), (finding.message, said)
        if re.search(r"\(\d+(, \d+)*,?\)", finding.message.split(";")[0]):
            assert message.facts.shapes, finding.message


def test_fields_the_analyzer_fills_are_shown_as_given():
    facts = Facts(operands=(Operand("x", (4, 3), 7), Operand("y", (5,), 8)), shapes=((4, 3), (5,)), dims=(-1,),
                  library="torch", library_message="The size of tensor a (3) must match ...")
    finding = Finding("m.py", Span(9, 1, 9, 6), "SC101", "broadcast-incompatible", Severity.ERROR,
                      "cannot broadcast (4, 3) with (5,)", details=("x from line 7, y from line 8",
                                                                   "torch: The size of tensor a (3) must match ..."),
                      facts=facts)
    [item] = json.loads(render(report_of(finding), "json"))
    assert item["headline"] == "cannot broadcast (4, 3) with (5,)"
    assert item["message"] == ("cannot broadcast (4, 3) with (5,); x from line 7, y from line 8; "
                               "torch: The size of tensor a (3) must match ...")
    assert item["details"] == list(finding.details)
    assert item["facts"]["operands"][0] == {"expr": "x", "shape": [4, 3], "line": 7}
    assert render(report_of(finding), "concise") == f"m.py:9:1: SC101 [error] {item['message']}\n"
    text = render_text(report_of(finding)).splitlines()
    assert text[1].startswith("m.py:9:1: SC101 [error] cannot broadcast (4, 3) with (5,)")
    assert text[2:4] == ["    x from line 7, y from line 8", "    torch: The size of tensor a (3) must match ..."]
    assert finding_from_record(json.loads(json.dumps(finding_to_record(finding))), "m.py") == finding


def test_text_wraps_headline_and_details_to_the_width_and_keeps_lines_whole_without_one():
    finding = broadcast_finding()
    report = report_of(finding, source=BROADCAST)
    whole = render_text(report).splitlines()
    assert any(len(line) > 80 for line in whole)
    wrapped = render_text(report, width=60).splitlines()
    frame = [line for line in wrapped if "│" in line]
    assert all(len(line) <= 60 for line in wrapped if line not in frame)
    numpy_line = next(i for i, line in enumerate(wrapped) if line.startswith("    numpy: "))
    assert wrapped[numpy_line + 1].startswith(" " * len("    numpy: ")) and wrapped[numpy_line + 1].strip()


def test_concise_is_one_line_with_the_severity_and_the_whole_message():
    finding = broadcast_finding()
    assert render(report_of(finding), "concise") == f"m.py:4:5: SC101 [error] {finding.message}\n"


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_sarif_and_github_show_the_headline_then_the_details_on_their_own_lines(fmt):
    finding = broadcast_finding()
    out = render(report_of(finding), fmt)
    if fmt == "sarif":
        text = json.loads(out)["runs"][0]["results"][0]["message"]["text"]
    else:
        text = out.split("::", 2)[2].rstrip("\n").replace("%0A", "\n")
    lines = text.split("\n")
    assert lines[0] == "cannot broadcast (5, 2, 4, 1) with (3, 1, 1): dim -3 is 2 vs 3"
    assert lines[1] == "operands: a from line 2, b from line 3"
    assert lines[2].startswith("numpy: ")


def test_a_message_without_that_structure_stays_whole():
    message = split_message("cannot parse: '(' was never closed")
    assert message.headline == "cannot parse: '(' was never closed" and message.details == ()
