"""SC003 unused-suppression: proven by its own examples through the real command line, off unless named."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from shapecheck.analysis.rules import all_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis"))
from rule_examples import marked  # noqa: E402

SPEC = all_rules()["SC003"]
BAD = list(enumerate(SPEC.bad))
GOOD = list(enumerate(SPEC.good))


def reported(shapecheck, *args: str) -> list[tuple[int, str]]:
    run = shapecheck("lint", "--no-cache", "--format", "json", *args, "example.py")
    return sorted((f["line"], f["code"]) for f in run.json())


def test_sc003_has_docs_and_bad_and_good_examples():
    assert SPEC.name == "unused-suppression" and SPEC.bad and SPEC.good
    assert all(code == "SC003" for ex in SPEC.bad for _, code in marked(ex.code))
    assert "SC003" in SPEC.markdown() and "## Use instead" in SPEC.markdown()


@pytest.mark.parametrize("index,example", BAD, ids=[f"bad{i}" for i, _ in BAD])
def test_bad_example_reports_sc003_at_the_marked_line_when_selected(project, shapecheck, index, example):
    (project / "example.py").write_text(example.code)
    assert [item for item in reported(shapecheck, "--select", "SC003")] == marked(example.code)
    extended = reported(shapecheck, "--extend-select", "SC003")
    assert [item for item in extended if item[1] == "SC003"] == marked(example.code)


@pytest.mark.parametrize("index,example", BAD, ids=[f"bad{i}" for i, _ in BAD])
def test_sc003_is_off_by_default_and_for_all_and_prefixes(project, shapecheck, index, example):
    (project / "example.py").write_text(example.code)
    for args in ((), ("--select", "ALL"), ("--select", "SC0")):
        assert all(code != "SC003" for _, code in reported(shapecheck, *args)), args


@pytest.mark.parametrize("index,example", GOOD, ids=[f"good{i}" for i, _ in GOOD])
def test_good_example_is_clean_with_sc003_selected(project, shapecheck, index, example):
    (project / "example.py").write_text(example.code)
    assert reported(shapecheck, "--extend-select", "SC003") == []


def test_config_extend_select_turns_it_on_and_the_cache_keeps_it(project, shapecheck):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nextend-select = ["SC003"]\n')
    (project / "a.py").write_text("x = 1  # noqa: SC101, E501\n")
    for _ in range(2):  # cold, then from the cache
        run = shapecheck("lint", "--format", "concise")
        assert run.code == 1
        assert run.out == "a.py:1:8: SC003 [warning] unused suppression `# noqa: SC101, E501`: " \
                          "no SC101 finding on this statement\n"


def test_file_wide_ignore_that_silences_nothing_is_reported(project, shapecheck):
    (project / "example.py").write_text("# shapecheck: ignore-file[SC3]\nx = 1\n")
    assert reported(shapecheck, "--select", "SC003") == [(1, "SC003")]


def test_a_file_that_does_not_parse_is_not_judged(project, shapecheck):
    (project / "example.py").write_text("x = 1  # noqa: SC101\ny = (1,\n")
    assert reported(shapecheck, "--extend-select", "SC003") == [(2, "SC001")]


def test_an_unused_report_is_silenced_only_by_naming_sc003(project, shapecheck):
    (project / "example.py").write_text("x = 1  # shapecheck: ignore[SC101, SC003]\n")
    assert reported(shapecheck, "--select", "SC003") == []


def test_unused_suppression_in_a_notebook_points_into_its_cell(project, shapecheck, make_notebook):
    (project / "nb.ipynb").write_text(make_notebook(
        ("code", "import numpy as np"), ("markdown", "text"),
        ("code", "a = np.zeros((5, 2))\nb = a + 1  # noqa: SC101\n")))
    run = shapecheck("lint", "--no-cache", "--format", "json", "--select", "SC003", "nb.ipynb")
    assert [(f["cell"], f["line"], f["column"]) for f in run.json()] == [(3, 2, 12)]
