"""[tool.shapecheck] config: selection, per-file ignores, validation, nearest-pyproject lookup."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.lint.config import ConfigError, ConfigResolver, LintConfig, Overrides, load_config

CODES = frozenset({"SC001", "SC002", "SC099", "SC101", "SC102", "SC201"})
SYNTAX_BUG = "x = (1,\n"
BINARY = b"\x00\x01\x02"


def test_longest_matching_prefix_decides_between_select_and_ignore():
    config = LintConfig(root=Path("."), select=("SC1",), ignore=("SC10",), extend_select=("SC101",))
    assert config.is_enabled("SC101")
    assert not config.is_enabled("SC102")
    assert not config.is_enabled("SC201")
    assert LintConfig(root=Path(".")).is_enabled("SC201")  # default selects ALL


def test_per_file_ignores_match_globs_relative_to_the_config_root(tmp_path):
    config = LintConfig(root=tmp_path, per_file_ignores=(("tests/*.py", ("SC1",)), ("conftest.py", ("SC2",))))
    assert not config.is_enabled("SC101", tmp_path / "tests" / "test_a.py")
    assert config.is_enabled("SC101", tmp_path / "src" / "a.py")
    assert not config.is_enabled("SC201", tmp_path / "deep" / "er" / "conftest.py")
    assert config.is_enabled("SC201", tmp_path / "tests" / "test_a.py")


def test_full_table_is_read_with_paths_relative_to_the_pyproject(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('''
[tool.shapecheck]
select = ["SC1", "SC2"]
ignore = ["sc102"]
extend-select = ["SC001"]
per-file-ignores = { "tests/*" = ["SC101"] }
exclude = ["generated/"]
dialect = "torch"
cache-dir = "build/sc-cache"
[tool.shapecheck.shapes]
x = "B, T, C"
w = "(5,)"
''')
    warnings: list[str] = []
    config = load_config(pyproject, CODES, warnings)
    assert warnings == []
    assert config.select == ("SC1", "SC2") and config.ignore == ("SC102",)
    assert config.extend_select == ("SC001",)
    assert config.per_file_ignores == (("tests/*", ("SC101",)),)
    assert config.exclude == ("generated/",)
    assert config.settings.dialect == "torch"
    assert config.settings.shape_hints == (("w", "5"), ("x", "B,T,C"))
    assert config.effective_cache_dir() == (tmp_path / "build" / "sc-cache").resolve()


def test_unknown_keys_warn_and_suggest_the_kebab_case_spelling(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.shapecheck]\nextend_select = ["SC101"]\ncolour = true\n')
    warnings: list[str] = []
    load_config(pyproject, CODES, warnings)
    assert len(warnings) == 2
    assert "'extend_select'" in warnings[0] and "did you mean 'extend-select'" in warnings[0]
    assert "'colour'" in warnings[1]


@pytest.mark.parametrize("body, fragment", [
    ('select = ["SC9"]', "unknown rule code 'SC9'"),
    ("select = [1]", "must be a list of strings"),
    ('dialect = "jax"', "must be one of auto, numpy, numpy-1, torch, torch-legacy"),
    ('shapes = { x = "5,-1" }', "negative dimension"),
    ('shapes = { x = "5,a b" }', "not a dimension"),
    ("cache-dir = 3", "cache-dir must be a non-empty string"),
    ('per-file-ignores = ["SC101"]', "must be a table"),
    ("select = [", "invalid TOML"),
])
def test_invalid_values_are_one_config_error(tmp_path, body, fragment):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f"[tool.shapecheck]\n{body}\n")
    with pytest.raises(ConfigError) as info:
        load_config(pyproject, CODES, [])
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_nearest_pyproject_with_a_shapecheck_table_wins_and_is_resolved_once(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.shapecheck]\nignore = ["SC101"]\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text('[project]\nname = "no-table-here"\n')
    (tmp_path / "sub" / "inner").mkdir()
    (tmp_path / "sub" / "inner" / "pyproject.toml").write_text('[tool.shapecheck]\nignore = ["SC102"]\n')
    resolver = ConfigResolver(CODES)
    assert resolver.for_directory(tmp_path / "sub").ignore == ("SC101",)
    inner = resolver.for_file(tmp_path / "sub" / "inner" / "a.py")
    assert inner.ignore == ("SC102",) and inner.root == tmp_path / "sub" / "inner"
    assert resolver.for_file(tmp_path / "sub" / "inner" / "b.py") is inner


def test_command_line_overrides_beat_the_file_and_explicit_config_applies_everywhere(tmp_path):
    (tmp_path / "elsewhere.toml").write_text('[tool.shapecheck]\nselect = ["SC1"]\n')
    resolver = ConfigResolver(CODES, Overrides(ignore=("SC101",)), explicit=tmp_path / "elsewhere.toml")
    config = resolver.for_file(Path("/somewhere/else/a.py"))
    assert config.select == ("SC1",) and config.ignore == ("SC101",)
    assert not config.is_enabled("SC101") and config.is_enabled("SC102")


def test_cli_select_and_ignore_filter_findings(project, shapecheck):
    (project / "bad.py").write_text(SYNTAX_BUG)
    (project / "bin.py").write_bytes(BINARY)
    both = shapecheck("lint", "--format", "json", "--no-cache")
    assert {f["code"] for f in both.json()} == {"SC001", "SC002"}
    only = shapecheck("lint", "--format", "json", "--no-cache", "--select", "SC001")
    assert [f["code"] for f in only.json()] == ["SC001"] and only.code == 1
    none = shapecheck("lint", "--format", "json", "--no-cache", "--ignore", "SC001,SC002")
    assert none.json() == [] and none.code == 0


def test_cli_per_file_ignores_from_pyproject(project, shapecheck):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nper-file-ignores = { "legacy/*" = ["SC001"] }\n')
    (project / "legacy").mkdir()
    (project / "legacy" / "old.py").write_text(SYNTAX_BUG)
    (project / "new.py").write_text(SYNTAX_BUG)
    run = shapecheck("lint", "--format", "json", "--no-cache")
    assert [f["path"] for f in run.json()] == ["new.py"]


@pytest.mark.parametrize("pyproject, fragment", [
    ('[tool.shapecheck]\nselect = ["SC999"]\n', "unknown rule code 'SC999'"),
    ('[tool.shapecheck]\ndialect = "jax"\n', "dialect must be one of"),
])
def test_invalid_config_is_one_line_and_exit_code_2(project, shapecheck, pyproject, fragment):
    (project / "pyproject.toml").write_text(pyproject)
    (project / "a.py").write_text("x = 1\n")
    run = shapecheck("lint")
    assert run.code == 2
    assert fragment in run.err
    assert len(run.err.strip().splitlines()) == 1 and "Traceback" not in run.err
    assert run.out == ""


def test_unknown_config_key_warns_on_stderr_but_lints(project, shapecheck):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nselct = ["SC1"]\n')
    (project / "a.py").write_text("x = 1\n")
    run = shapecheck("lint", "--no-cache")
    assert run.code == 0
    assert "unknown key [tool.shapecheck] 'selct'" in run.err


def test_shape_hints_from_config_reach_the_analyzer_and_the_cache_key(project, shapecheck):
    (project / "h.py").write_text("import numpy as np\n\ndef f(x):\n    return x + np.ones(3)\n")
    without = shapecheck("lint", "--format", "json")
    (project / "pyproject.toml").write_text('[tool.shapecheck.shapes]\nx = "5, 2"\n')
    hinted = shapecheck("lint", "--format", "json")
    assert without.json() == []
    assert [f["code"] for f in hinted.json()] == ["SC101"]  # not the cached empty result
    assert "(5, 2)" in hinted.json()[0]["message"]
