"""Output formats: text, concise, json, sarif (validated with a SARIF 2.1.0 model) and github."""

from __future__ import annotations

import json

import pytest

from shapecheck.analysis.findings import Finding, Severity, Span
from shapecheck.analysis.rules import all_rules
from shapecheck.lint.formats import render, render_statistics
from shapecheck.lint.formats.text import SHAPE_PATTERN, render_text
from shapecheck.lint.runner import LintReport

SOURCE = "import numpy as np\na = np.zeros((5, 2))\nb = np.ones(3)\nc = a + b\n"


def sample_report() -> LintReport:
    broadcast = Finding("pkg/m.py", Span(4, 5, 4, 10), "SC101", "broadcast-incompatible", Severity.ERROR,
                        "cannot broadcast (5, 2) with (3,): dim -1 is 2 vs 3")
    warning = Finding("pkg/m.py", Span(2, 1, 2, 2), "SC102", "implicit-outer-product", Severity.WARNING,
                      "(n, 1) op (n,) gives (n, n)")
    info = Finding("nb.ipynb", Span(2, 3, 2, 7), "SC105", "backcompat-broadcast-change", Severity.INFO,
                   "shape, changed", cell=3)
    report = LintReport(findings=[info, warning, broadcast], files_checked=2)
    report.findings.sort(key=Finding.sort_key)
    report.sources[("pkg/m.py", None)] = SOURCE
    report.sources[("nb.ipynb", 3)] = "x = 1\ny = x+1\n"
    return report


def test_concise_is_one_line_per_finding_with_cell_locations():
    assert render(sample_report(), "concise").splitlines() == [
        "nb.ipynb:cell 3:2:3: SC105 [info] shape, changed",
        "pkg/m.py:2:1: SC102 [warning] (n, 1) op (n,) gives (n, n)",
        "pkg/m.py:4:5: SC101 [error] cannot broadcast (5, 2) with (3,): dim -1 is 2 vs 3",
    ]


def test_json_follows_the_design_contract():
    items = json.loads(render(sample_report(), "json"))
    assert items[0] == {"path": "nb.ipynb", "line": 2, "column": 3, "end_line": 2, "end_column": 7,
                        "code": "SC105", "name": "backcompat-broadcast-change", "severity": "info",
                        "message": "shape, changed", "cell": 3, "headline": "shape, changed", "details": [],
                        "facts": {"operands": [], "shapes": [], "dims": [], "library": None,
                                  "library_message": None}}
    assert "cell" not in items[2] and items[2]["severity"] == "error"


def test_text_groups_by_file_and_underlines_the_span_under_the_source():
    out = render_text(sample_report(), color=False)
    lines = out.splitlines()
    assert lines[0] == "nb.ipynb"
    assert "pkg/m.py" in lines
    assert lines.count("pkg/m.py") == 1  # one header per file
    frame_line = next(i for i, line in enumerate(lines) if line.endswith("c = a + b"))
    source_col = lines[frame_line].index("c = a + b")
    caret_line = lines[frame_line + 1]
    assert caret_line.index("^") == source_col + 4 and caret_line.count("^") == 5
    assert lines[-1] == "Found 3 problems (1 error, 1 warning, 1 info) in 2 files (2 files checked)."
    assert "\x1b[" not in out


def test_text_with_colour_highlights_shapes_and_without_it_has_no_escape_codes():
    coloured = render_text(sample_report(), color=True)
    assert "\x1b[" in coloured
    message = coloured[coloured.index("cannot broadcast"):]
    for shape in ("(5, 2)", "(3,)"):
        index = message.index(shape)
        assert message[index - len("\x1b[1;36m"):index] == "\x1b[1;36m"  # bold cyan opens right at the shape


@pytest.mark.parametrize("text, shapes", [
    ("cannot broadcast (5, 2, 4, 1) with (3, 1, 1)", ["(5, 2, 4, 1)", "(3, 1, 1)"]),
    ("got torch.Size([5, 2]) and (B, T)", ["torch.Size([5, 2])", "(B, T)"]),
    ("scalar () vs (3,)", ["()", "(3,)"]),
])
def test_shape_pattern_finds_every_shape_spelling(text, shapes):
    assert [m.group() for m in SHAPE_PATTERN.finditer(text)] == shapes


def test_github_workflow_commands_escape_properties_and_data():
    report = LintReport(findings=[Finding("a,b.py", Span(1, 2, 1, 3), "SC101", "broadcast-incompatible",
                                          Severity.ERROR, "100% bad\nsecond line")])
    assert render(report, "github") == (
        "::error file=a%2Cb.py,line=1,col=2,endLine=1,endColumn=3,title=SC101 broadcast-incompatible"
        "::100%25 bad%0Asecond line\n")
    lines = render(sample_report(), "github").splitlines()
    assert lines[0].startswith("::notice file=nb.ipynb,title=SC105 ")
    assert lines[0].endswith("::cell 3: line 2:3: shape, changed")
    assert lines[1].startswith("::warning file=pkg/m.py,line=2,col=1,")


def test_statistics_count_per_code():
    report = sample_report()
    report.findings.append(report.findings[-1])
    assert render_statistics(report, "text").splitlines() == [
        "2\tSC101\tbroadcast-incompatible", "1\tSC102\timplicit-outer-product",
        "1\tSC105\tbackcompat-broadcast-change"]
    assert json.loads(render_statistics(report, "json"))[0] == {
        "code": "SC101", "name": "broadcast-incompatible", "count": 2}


def test_sarif_validates_against_the_sarif_2_1_0_model_and_carries_what_github_reads(project):
    sarif_pydantic = pytest.importorskip("sarif_pydantic")
    report = sample_report()
    report.suppressed.append(Finding("pkg/m.py", Span(3, 1, 3, 2), "SC101", "broadcast-incompatible",
                                     Severity.ERROR, "quiet"))
    text = render(report, "sarif", show_suppressed=True)
    log = sarif_pydantic.Sarif.model_validate_json(text)
    assert log.version == "2.1.0"
    data = json.loads(text)
    assert data["$schema"].endswith("sarif-2.1.0.json")
    [run] = data["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "shapecheck" and driver["version"] and driver["semanticVersion"]
    catalog = all_rules()
    by_id = {rule["id"]: rule for rule in driver["rules"]}
    assert set(catalog) <= set(by_id)
    for code, spec in catalog.items():
        rule = by_id[code]
        assert rule["name"] == spec.name
        assert rule["shortDescription"]["text"] == spec.summary
        assert rule["fullDescription"]["text"] == spec.why
        assert rule["help"]["text"] and rule["help"]["markdown"] == spec.markdown()
        level = {"error": "error", "warning": "warning", "info": "note"}[spec.severity.value]
        assert rule["defaultConfiguration"]["level"] == level
        assert rule["properties"]["problem.severity"] in ("error", "warning", "recommendation")
        assert isinstance(rule["properties"]["tags"], list)
    results = run["results"]
    assert len(results) == 4
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert result["message"]["text"]
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert not physical["artifactLocation"]["uri"].startswith("/")
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
        assert result["partialFingerprints"]
    broadcast = next(r for r in results if r["ruleId"] == "SC101" and "suppressions" not in r)
    assert broadcast["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/m.py"
    assert broadcast["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 4, "startColumn": 5, "endLine": 4, "endColumn": 10}
    notebook = next(r for r in results if r["ruleId"] == "SC105")
    assert notebook["properties"]["cell"] == 3 and notebook["message"]["text"].startswith("cell 3: ")
    assert [r["suppressions"] for r in results if "suppressions" in r] == [[{"kind": "inSource"}]]


def test_sarif_from_the_cli_validates_and_output_file_gets_it(project, shapecheck):
    sarif_pydantic = pytest.importorskip("sarif_pydantic")
    (project / "bad.py").write_text("x = (1,\n")
    run = shapecheck("lint", "--no-cache", "--format", "sarif", "--output-file", "out.sarif")
    assert run.code == 1 and run.out == ""
    log = sarif_pydantic.Sarif.model_validate_json((project / "out.sarif").read_text())
    [result] = log.runs[0].results
    assert result.rule_id == "SC001"
    region = result.locations[0].physical_location.region
    assert (region.start_line, region.start_column) == (1, 5)


@pytest.mark.parametrize("prefix", [0, 500, 5000])
def test_a_long_source_line_shows_a_window_with_the_carets_under_the_span(prefix):
    # A minified or generated line must not print thousands of characters per finding.
    from shapecheck.lint.formats.text import MAX_FRAME_WIDTH, code_frame

    line = "q = [" + "1, " * prefix + "0]; y = a + b" + " + 0" * 2000
    column = line.index("a + b") + 1
    finding = Finding(path="m.py", span=Span(1, column, 1, column + 5), code="SC101",
                      name="broadcast-incompatible", severity=Severity.ERROR, message="m")
    source_row, caret_row = code_frame(finding, line).plain.splitlines()
    assert len(source_row) <= MAX_FRAME_WIDTH + 10
    start = caret_row.index("^")
    assert source_row[start:start + 5] == "a + b"
    assert caret_row.count("^") == 5
