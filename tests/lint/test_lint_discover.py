"""File discovery: suffixes, default excludes, .gitignore, --exclude, symlinks and missing paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shapecheck.lint.config import ConfigError, ConfigResolver, Overrides
from shapecheck.lint.discover import IgnoreFile, discover, is_ignored

CODES = frozenset({"SC001", "SC002", "SC099"})


def files_of(root: Path, *paths: str, overrides: Overrides = Overrides()) -> list[str]:
    found = discover([Path(p) for p in paths] or [Path(".")], ConfigResolver(CODES, overrides))
    return sorted(Path(os.path.abspath(f)).relative_to(root).as_posix() for f in found.files)


def touch(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")


def test_directories_yield_py_and_ipynb_files_and_skip_default_excludes(project):
    touch(project, "a.py", "nb.ipynb", "notes.txt", "pkg/b.py", "pkg/stub.pyi",
          ".venv/lib/c.py", "venv/d.py", "build/e.py", "dist/f.py", "pkg/__pycache__/g.py",
          "node_modules/h.py", ".tox/i.py", ".git/j.py")
    assert files_of(project) == ["a.py", "nb.ipynb", "pkg/b.py"]


def test_gitignore_rules_with_negation_anchoring_and_dir_only(project):
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("gen_*.py\n/top.py\ndata/\n!gen_keep.py\n# comment\n")
    (project / "sub").mkdir()
    (project / "sub" / ".gitignore").write_text("local.py\n")
    touch(project, "gen_a.py", "gen_keep.py", "top.py", "sub/top.py", "data/x.py", "sub/local.py",
          "other/local.py", "ok.py")
    assert files_of(project) == ["gen_keep.py", "ok.py", "other/local.py", "sub/top.py"]


def test_gitignore_of_the_enclosing_repository_applies_to_a_subdirectory_argument(project):
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("skip_me.py\n")
    touch(project, "src/skip_me.py", "src/keep.py")
    assert files_of(project, "src") == ["src/keep.py"]


def test_a_directory_named_inside_an_ignored_one_is_walked_with_its_own_gitignore(project):
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("/env/\n")
    (project / "env" / "pkg").mkdir(parents=True)
    (project / "env" / "pkg" / ".gitignore").write_text("gen.py\n")
    touch(project, "env/pkg/a.py", "env/pkg/gen.py", "env/other.py", "top.py")
    assert files_of(project, "env/pkg") == ["env/pkg/a.py"]
    assert files_of(project) == ["top.py"]


@pytest.mark.parametrize("pattern, path, is_dir, ignored", [
    ("**/foo.py", "a/b/foo.py", False, True),
    ("a/**/b.py", "a/b.py", False, True),
    ("a/**/b.py", "a/x/y/b.py", False, True),
    ("a/**", "a/x/y.py", False, True),
    ("*.py", "a/b/c.py", False, True),
    ("/c.py", "a/c.py", False, False),
    ("a/*.py", "a/b/c.py", False, False),
    ("b?.py", "b1.py", False, True),
    ("b[0-9].py", "bx.py", False, False),
    ("out/", "out", False, False),
    ("out/", "out", True, True),
    ("\\#lit.py", "#lit.py", False, True),
])
def test_gitignore_pattern_semantics(pattern, path, is_dir, ignored):
    assert is_ignored([IgnoreFile.from_lines([pattern], "/r")], "/r/" + path, is_dir) is ignored


@pytest.mark.parametrize("lines, path, is_dir, ignored", [
    (["*.py", "!keep.py"], "keep.py", False, False),          # a later negation re-includes
    (["!keep.py", "*.py"], "keep.py", False, True),           # the last matching pattern decides
    (["*.py", "!keep.py"], "deep/er/keep.py", False, False),  # an unanchored negation applies at any depth
    (["/gen.py"], "gen.py", False, True),                     # anchored at the .gitignore's directory
    (["/gen.py"], "sub/gen.py", False, False),
    (["sub/gen.py"], "x/sub/gen.py", False, False),           # a middle slash anchors too
    (["cache/"], "cache", True, True),                        # directory patterns match directories only
    (["cache/"], "cache", False, False),
    (["cache/"], "src/cache", True, True),
    (["cache"], "cache", False, True),
    (["  # not a comment", "# comment", ""], "# comment", False, False),
])
def test_gitignore_negation_anchoring_and_directory_patterns(lines, path, is_dir, ignored):
    assert is_ignored([IgnoreFile.from_lines(lines, "/r")], "/r/" + path, is_dir) is ignored


def test_nested_gitignore_overrides_its_parent_only_below_itself(project):
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("*.gen.py\nvendored/\n")
    (project / "pkg").mkdir()
    (project / "pkg" / ".gitignore").write_text("!keep.gen.py\n/local.py\n")
    (project / "pkg" / "deeper").mkdir()
    (project / "pkg" / "deeper" / ".gitignore").write_text("!vendored/\n")
    touch(project, "a.gen.py", "keep.gen.py", "local.py", "pkg/keep.gen.py", "pkg/b.gen.py", "pkg/local.py",
          "pkg/sub/local.py", "pkg/deeper/vendored/v.py", "vendored/w.py", "ok.py")
    assert files_of(project) == ["local.py", "ok.py", "pkg/deeper/vendored/v.py", "pkg/keep.gen.py", "pkg/sub/local.py"]


def test_exclude_replaces_and_extend_exclude_adds(project):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nexclude = ["legacy/"]\n')
    touch(project, "legacy/a.py", "vendor/b.py", "c.py")
    assert files_of(project) == ["c.py", "vendor/b.py"]
    assert files_of(project, overrides=Overrides(extend_exclude=("vendor",))) == ["c.py"]
    assert files_of(project, overrides=Overrides(exclude=("c.py",))) == ["legacy/a.py", "vendor/b.py"]


def test_explicit_files_are_linted_whatever_the_suffix_but_config_excludes_hold(project):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\nexclude = ["gen/"]\n')
    touch(project, "script", "gen/x.py", "build/y.py")
    assert files_of(project, "script", "gen/x.py", "build/y.py") == ["build/y.py", "script"]


def test_missing_path_is_a_config_error(project):
    with pytest.raises(ConfigError, match="path does not exist: nope.py"):
        files_of(project, "nope.py")


def test_symlink_loop_is_reported_and_the_walk_goes_on(project):
    touch(project, "pkg/a.py", "z.py")
    os.symlink(project / "pkg", project / "pkg" / "loop")
    found = discover([Path(".")], ConfigResolver(CODES))
    assert sorted(str(f) for f in found.files) == ["pkg/a.py", "z.py"]
    assert any("symlink loop" in w and "loop" in w for w in found.warnings)


def test_symlink_loop_warning_reaches_stderr_with_exit_code_of_the_findings(project, shapecheck):
    touch(project, "pkg/a.py")
    os.symlink(project / "pkg", project / "pkg" / "loop")
    run = shapecheck("lint", "--no-cache")
    assert run.code == 0
    assert "symlink loop" in run.err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files whatever their mode")
def test_unreadable_file_is_sc002_and_the_run_continues(project, shapecheck):
    touch(project, "secret.py")
    (project / "bad.py").write_text("x = (1,\n")
    os.chmod(project / "secret.py", 0)
    run = shapecheck("lint", "--no-cache", "--format", "json")
    assert sorted(f["code"] for f in run.json()) == ["SC001", "SC002"]


def test_broken_symlink_file_is_sc002_and_the_run_continues(project, shapecheck):
    os.symlink(project / "missing.py", project / "dangling.py")
    (project / "bad.py").write_text("x = (1,\n")
    run = shapecheck("lint", "--no-cache", "--format", "json")
    assert run.code == 1
    assert [(f["path"], f["code"]) for f in run.json()] == [("bad.py", "SC001"), ("dangling.py", "SC002")]
