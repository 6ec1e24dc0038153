"""The manners of the command line: --version, flag help, "did you mean", --color and the colour variables."""

from __future__ import annotations

import re

import pytest

import shapecheck

SYNTAX_BUG = "x = (1,\n"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_version_prints_the_package_version(shapecheck):
    run = shapecheck("--version")
    assert run.code == 0
    assert run.out == f"shapecheck {shapecheck_version()}\n"


def shapecheck_version() -> str:
    return shapecheck.__version__


def test_boolean_flags_show_no_value_placeholder_in_help(shapecheck, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    run = shapecheck("lint", "--help")
    flag_rows = [line for line in run.out.splitlines() if re.search(r"--(no-cache|statistics|exit-zero|help)\b", line)]
    assert len(flag_rows) == 4
    assert not any("<bool>" in row for row in flag_rows)
    assert "<bool>" not in shapecheck("--help").out
    assert "<codes>" in run.out  # options that take a value still name it


@pytest.mark.parametrize("args, message", [
    (("lint", "--selct", "SC1"), "No such option: --selct (did you mean --select?)"),
    (("lint", "--no-cach"), "No such option: --no-cach (did you mean --no-cache?)"),
    (("lint", "--bogus"), "No such option: --bogus"),
    (("lnt",), "No such command 'lnt'. Did you mean 'lint'?"),
    (("lint", "--select", "SC1O1"), "--select: unknown rule code 'SC1O1' (did you mean 'SC101'?)"),
    (("lint", "--ignore", "SC3O7"), "--ignore: unknown rule code 'SC3O7' (did you mean 'SC307'?)"),
    (("rule", "SC2011"), "unknown rule 'SC2011' (did you mean 'SC201'?)"),
    (("rule", "SC10l"), "unknown rule 'SC10l' (did you mean 'SC101'?)"),
])
def test_mistakes_get_one_line_with_a_sensible_suggestion(project, shapecheck, args, message):
    run = shapecheck(*args)
    assert run.code == 2
    line = run.err.strip()
    assert len(line.splitlines()) == 1
    assert line.startswith(f"shapecheck: error: {message}")
    if args == ("lint", "--bogus"):
        assert "did you mean" not in line and "Possible options" not in line


def test_no_suggestion_when_several_codes_are_equally_close(project, shapecheck):
    run = shapecheck("lint", "--select", "SC10O")  # SC101..SC109 are all one edit away
    assert run.code == 2 and "did you mean" not in run.err


def colored(run) -> bool:
    return bool(ANSI.search(run.out))


def test_color_always_and_never_override_the_environment(project, shapecheck, monkeypatch):
    (project / "bad.py").write_text(SYNTAX_BUG)
    assert colored(shapecheck("lint", "--no-cache", "--color", "always"))  # NO_COLOR is set by the fixture
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    never = shapecheck("lint", "--no-cache", "--color", "never")
    assert not colored(never) and "SC001" in never.out


def test_color_auto_follows_force_color_and_no_color(project, shapecheck, monkeypatch):
    (project / "bad.py").write_text(SYNTAX_BUG)
    monkeypatch.delenv("NO_COLOR")
    assert not colored(shapecheck("lint", "--no-cache"))  # captured stdout is not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    forced = shapecheck("lint", "--no-cache")
    assert colored(forced) and ANSI.sub("", forced.out).count("SC001") == 1
    assert colored(shapecheck("rules"))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colored(shapecheck("lint", "--no-cache"))


def test_machine_formats_are_never_colored(project, shapecheck, monkeypatch):
    (project / "bad.py").write_text(SYNTAX_BUG)
    run = shapecheck("lint", "--no-cache", "--format", "json", "--color", "always")
    assert not colored(run) and run.json()[0]["code"] == "SC001"


def test_bad_color_choice_is_a_usage_error(project, shapecheck):
    run = shapecheck("lint", "--color", "sometimes")
    assert run.code == 2 and "'sometimes' is not one of" in run.err
