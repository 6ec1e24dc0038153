"""The command line: exit codes, stdin, output options, rule docs, and one-line usage errors."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import shapecheck
from shapecheck.analysis.rules import all_rules

SYNTAX_BUG = "x = (1,\n"


def test_exit_codes_are_0_clean_1_findings_and_exit_zero_forces_0(project, shapecheck):
    (project / "ok.py").write_text("x = 1\n")
    assert shapecheck("lint", "--no-cache", "ok.py").code == 0
    (project / "bad.py").write_text(SYNTAX_BUG)
    assert shapecheck("lint", "--no-cache").code == 1
    assert shapecheck("lint", "--no-cache", "--exit-zero").code == 0


@pytest.mark.parametrize("args, fragment", [
    (("lint", "--bogus"), "No such option: --bogus"),
    (("lint", "nope.py"), "path does not exist: nope.py"),
    (("lint", "--format", "xml"), "'xml' is not one of"),
    (("lint", "--select", "SC9999"), "--select: unknown rule code 'SC9999'"),
    (("lint", "--dialect", "jax"), "--dialect must be one of"),
    (("lint", "--jobs", "0"), "--jobs must be at least 1"),
    (("lint", "--config", "missing.toml"), "config file not found: missing.toml"),
    (("rule", "SC998"), "unknown rule 'SC998'"),
    (("frobnicate",), "No such command 'frobnicate'"),
    (("lint", "-", "a.py"), "'-' (stdin) cannot be combined with other paths"),
])
def test_bad_input_is_one_clear_line_and_exit_code_2(project, shapecheck, args, fragment):
    run = shapecheck(*args)
    assert run.code == 2
    assert fragment in run.err
    assert len(run.err.strip().splitlines()) == 1
    assert "Traceback" not in run.err


def test_stdin_is_linted_under_the_stdin_filename_with_its_directory_config(project, shapecheck, monkeypatch):
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text('[tool.shapecheck]\nignore = ["SC002"]\n')
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"y = 2\nx = (1,\n")))
    run = shapecheck("lint", "--stdin-filename", "sub/from_stdin.py", "--format", "concise", "-")
    assert run.out == "sub/from_stdin.py:2:5: SC001 [error] cannot parse: '(' was never closed\n"
    assert run.code == 1


def test_stdin_without_dash_when_only_a_filename_is_given(project, shapecheck, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = 1\n")))
    run = shapecheck("lint", "--stdin-filename", "clean.py", "--format", "json")
    assert run.json() == [] and run.code == 0


def test_statistics_print_counts_instead_of_findings(project, shapecheck):
    (project / "a.py").write_text(SYNTAX_BUG)
    (project / "b.py").write_text(SYNTAX_BUG)
    (project / "c.py").write_bytes(b"\x00")
    run = shapecheck("lint", "--no-cache", "--statistics")
    assert run.out.splitlines() == ["2\tSC001\tsyntax-error", "1\tSC002\tunreadable-file"]
    assert run.code == 1


def test_output_file_receives_the_report_and_stdout_stays_empty(project, shapecheck):
    (project / "a.py").write_text(SYNTAX_BUG)
    run = shapecheck("lint", "--no-cache", "--format", "concise", "-o", "report.txt")
    assert run.out == "" and run.code == 1
    assert (project / "report.txt").read_text().startswith("a.py:1:5: SC001 ")


def test_rules_table_lists_every_rule_and_reflects_the_config(project, shapecheck):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nignore = ["SC002"]\n')
    run = shapecheck("rules")
    assert run.code == 0
    rows = {line.split()[0]: line.split() for line in run.out.splitlines()[1:] if line.strip()}
    assert set(rows) == set(all_rules())
    assert rows["SC001"][1:] == ["syntax-error", "error", "yes"]
    assert rows["SC002"][-1] == "no"


def test_rule_prints_the_rules_docs_and_examples(project, shapecheck):
    run = shapecheck("rule", "sc001")
    assert run.code == 0
    assert run.out == all_rules()["SC001"].markdown()
    assert "## Example" in run.out and "x = (1," in run.out


def test_python_dash_m_shapecheck_runs_the_cli(tmp_path):
    (tmp_path / "bad.py").write_text(SYNTAX_BUG)
    env = dict(os.environ, PYTHONPATH=str(Path(shapecheck.__file__).parent.parent), NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "shapecheck", "lint", "--no-cache", "--format", "concise",
                           "bad.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == "bad.py:1:5: SC001 [error] cannot parse: '(' was never closed\n"
    assert done.stderr == ""


def test_cli_module_does_not_import_the_linter_at_start_up(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(Path(shapecheck.__file__).parent.parent))
    code = "import sys, shapecheck.cli; print(sorted(m for m in sys.modules if m.startswith(('shapecheck.lint', 'libcst', 'numpy'))))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]"
