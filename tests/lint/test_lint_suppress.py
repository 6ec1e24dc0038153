"""Suppression comments: per line, per code, noqa, file-wide, multi-line statements, --show-suppressed."""

from __future__ import annotations

from shapecheck.analysis.findings import Finding, Severity, Span
from shapecheck.lint.suppress import parse_suppressions, split_suppressed


def finding(line: int, code: str = "SC101") -> Finding:
    return Finding("f.py", Span(line, 1, line, 2), code, "rule", Severity.ERROR, "msg")


def reported_lines(source: str, *findings: Finding) -> list[tuple[int, str]]:
    reported, _ = split_suppressed(list(findings), source)
    return [(f.line, f.code) for f in reported]


def test_bare_ignore_silences_every_code_on_its_line_only():
    source = "a = 1  # shapecheck: ignore\nb = 2\n"
    assert reported_lines(source, finding(1, "SC101"), finding(1, "SC201"), finding(2)) == [(2, "SC101")]


def test_ignore_with_codes_silences_only_those_codes_and_prefixes():
    source = "a = 1  # shapecheck: ignore[SC101, SC2]\n"
    assert reported_lines(source, finding(1, "SC101"), finding(1, "SC201"), finding(1, "SC102")) == [(1, "SC102")]


def test_noqa_with_codes_counts_but_bare_noqa_is_left_to_other_tools():
    source = "a = 1  # noqa: SC101,SC102\nb = 2  # noqa\nc = 3  # noqa: E501\n"
    assert reported_lines(source, finding(1, "SC101"), finding(1, "SC102"), finding(2), finding(3)) == [
        (2, "SC101"), (3, "SC101")]


def test_ignore_file_silences_the_whole_file_or_listed_codes():
    everything = "# shapecheck: ignore-file\na = 1\n"
    assert reported_lines(everything, finding(2), finding(2, "SC201")) == []
    some = "# shapecheck: ignore-file[SC2]\na = 1\n"
    assert reported_lines(some, finding(2), finding(2, "SC201")) == [(2, "SC101")]


def test_a_comment_on_any_line_of_a_multiline_statement_covers_the_statement():
    source = (
        "total = (\n"
        "    a\n"
        "    + b  # shapecheck: ignore[SC101]\n"
        ")\n"
        "other = a + b\n"
    )
    assert reported_lines(source, finding(1), finding(2), finding(4), finding(5)) == [(5, "SC101")]
    continued = "x = a + \\\n    b  # noqa: SC101\n"
    assert reported_lines(continued, finding(1)) == []


def test_the_text_of_a_string_is_not_a_suppression():
    source = 's = "# shapecheck: ignore"\n'
    assert reported_lines(source, finding(1)) == [(1, "SC101")]


def test_untokenizable_file_still_honours_comments_line_by_line():
    source = "x = (1,  # shapecheck: ignore[SC001]\n"
    assert parse_suppressions(source).by_line == {1: frozenset({"SC001"})}


def test_unreadable_file_findings_cannot_be_suppressed():
    assert reported_lines("# shapecheck: ignore-file\n", finding(1, "SC002")) == [(1, "SC002")]


def test_cli_suppressed_syntax_error_exits_0_and_show_suppressed_lists_it(project, shapecheck):
    (project / "a.py").write_text("x = 1\ny = (1,  # shapecheck: ignore[SC001]\n")
    quiet = shapecheck("lint", "--no-cache", "--format", "concise")
    assert quiet.code == 0 and quiet.out == ""
    shown = shapecheck("lint", "--no-cache", "--format", "concise", "--show-suppressed")
    assert shown.code == 0
    assert shown.out == "a.py:2:5: SC001 [error] cannot parse: '(' was never closed (suppressed)\n"
    as_json = shapecheck("lint", "--no-cache", "--format", "json", "--show-suppressed").json()
    assert [(f["code"], f["suppressed"]) for f in as_json] == [("SC001", True)]
