"""Configuration mistakes: a string for a list and an empty --select are errors; an unwritable cache is a warning."""

from __future__ import annotations

import pytest

SYNTAX_BUG = "x = (1,\n"


@pytest.mark.parametrize("key", ["select", "ignore", "extend-select", "exclude", "extend-exclude"])
def test_a_string_where_a_list_is_expected_is_one_error_line_and_exit_2(project, shapecheck, key):
    (project / "pyproject.toml").write_text(f'[tool.shapecheck]\n{key} = "SC101"\n')
    (project / "a.py").write_text(SYNTAX_BUG)
    run = shapecheck("lint", "--no-cache")
    assert run.code == 2 and run.out == ""
    assert run.err == (f"shapecheck: error: {project / 'pyproject.toml'}: [tool.shapecheck] {key} must be a list "
                       f"of strings, got the string 'SC101' (write [\"SC101\"])\n")


def test_a_string_in_per_file_ignores_is_an_error(project, shapecheck):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nper-file-ignores = { "tests/*" = "SC1" }\n')
    run = shapecheck("lint", "--no-cache")
    assert run.code == 2 and "per-file-ignores 'tests/*' must be a list of strings" in run.err


@pytest.mark.parametrize("value", ["", ",", " "])
def test_empty_select_is_an_error_instead_of_selecting_nothing(project, shapecheck, value):
    (project / "a.py").write_text(SYNTAX_BUG)
    run = shapecheck("lint", "--no-cache", "--select", value)
    assert run.code == 2
    assert run.err == "shapecheck: error: --select needs at least one code or prefix (ALL selects every rule)\n"


def test_unwritable_cache_directory_is_one_warning_and_the_run_goes_on(project, shapecheck):
    (project / "not-a-dir").write_text("")  # a file where a directory is needed: fails even for root
    (project / "pyproject.toml").write_text('[tool.shapecheck]\ncache-dir = "not-a-dir/cache"\n')
    (project / "a.py").write_text(SYNTAX_BUG)
    (project / "b.py").write_text(SYNTAX_BUG)
    run = shapecheck("lint", "--format", "concise")
    assert run.code == 1
    assert [line.split(":")[0] for line in run.out.splitlines()] == ["a.py", "b.py"]
    [warning] = run.err.splitlines()
    assert warning.startswith("shapecheck: warning: cache directory ")
    assert "not-a-dir" in warning and warning.endswith("is not writable (Not a directory); running without the cache")
    again = shapecheck("lint", "--format", "concise", "--cache-dir", str(project / "not-a-dir" / "other"))
    assert again.code == 1 and len(again.err.splitlines()) == 1


def test_a_mistyped_config_key_warns_with_the_key_it_resembles(project, shapecheck):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nselct = ["SC1"]\nper_file_ignore = {}\ncolour = 1\n')
    (project / "a.py").write_text("x = 1\n")
    run = shapecheck("lint", "--no-cache")
    assert run.code == 0
    warnings = run.err.splitlines()
    assert len(warnings) == 3
    assert warnings[0].endswith("unknown key [tool.shapecheck] 'selct' ignored (did you mean 'select'?)")
    assert warnings[1].endswith("'per_file_ignore' ignored (did you mean 'per-file-ignores'?)")
    assert warnings[2].endswith("'colour' ignored")
