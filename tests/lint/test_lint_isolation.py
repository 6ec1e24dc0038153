"""One bad file never costs the run: pathological nesting, crashing workers and unreadable paths, in both modes."""

from __future__ import annotations

import faulthandler
import os
import signal
from pathlib import Path

import pytest

from shapecheck.lint import discover as discover_module
from shapecheck.lint import runner
from shapecheck.lint.runner import LintOptions, run_lint

BUGGY = "import numpy as np\na = np.ones((3, {n})) + np.ones((5,))\n"
ORDINARY_COUNT = 14

PATHOLOGICAL = {
    "parens.py": "x = " + "(" * 2000 + "1" + ")" * 2000 + "\n",
    "lists.py": "x = " + "[" * 3000 + "1" + "]" * 3000 + "\n",
    "calls.py": "x = " + "f(" * 3000 + "1" + ")" * 3000 + "\n",
    "chain.py": "x = " + " + ".join(["a"] * 20000) + "\n",
    "ands.py": "x = " + " and ".join(["a"] * 8000) + "\n",
    "subscripts.py": "x = a" + "[0]" * 1000 + "\n",
}


@pytest.fixture(params=["serial", "pool"])
def mode(request, monkeypatch):
    """Serial: one worker, files in order. Pool: two workers even for a small run."""
    if request.param == "pool":
        monkeypatch.setattr(runner, "SERIAL_MAX_FILES", 0)
        monkeypatch.setattr(runner, "SERIAL_MAX_BYTES", 0)
        return 2
    return 1


def write_ordinary(root: Path) -> set[str]:
    names = set()
    for n in range(ORDINARY_COUNT):
        name = f"ok_{n:02d}.py"
        (root / name).write_text(BUGGY.format(n=n + 6))
        names.add(name)
    return names


def lint(root: Path, jobs: int):
    return run_lint(LintOptions(paths=(root,), jobs=jobs, use_cache=False))


def codes_by_file(report) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in report.findings:
        found.setdefault(Path(finding.path).name, []).append(finding.code)
    return found


def test_pathological_nesting_is_one_finding_each_and_every_other_finding_is_reported(tmp_path, mode):
    ordinary = write_ordinary(tmp_path)
    for name, text in PATHOLOGICAL.items():
        (tmp_path / name).write_text(text)
    report = lint(tmp_path, mode)
    found = codes_by_file(report)
    assert {name: found.get(name) for name in ordinary} == {name: ["SC101"] for name in ordinary}
    refused = {name: found.get(name) for name in PATHOLOGICAL}
    assert refused == {"parens.py": ["SC001"], "lists.py": ["SC001"], "calls.py": ["SC001"],
                       "chain.py": ["SC001"], "ands.py": ["SC099"], "subscripts.py": ["SC099"]}
    messages = {Path(f.path).name: f.message for f in report.findings if Path(f.path).name in PATHOLOGICAL}
    assert messages["parens.py"] == "cannot parse: too many nested parentheses"
    assert "nests more than 500 levels deep" in messages["ands.py"]


def crash_on(name: str, how: str, monkeypatch) -> None:
    """The analyzer dies on one file as native code would (a signal or a hard exit), in the worker."""
    real = runner.analyze_bytes

    def analyze_bytes(path, data, kind, config, coverage=None, imported=None):
        if Path(path).name == name:
            if how == "segfault":
                faulthandler.disable()  # the test runner's handler would print the worker's stack
                os.kill(os.getpid(), signal.SIGSEGV)
            os._exit(3)
        return real(path, data, kind, config, coverage, imported)

    monkeypatch.setattr(runner, "analyze_bytes", analyze_bytes)


@pytest.mark.parametrize("how", ["segfault", "exit"])
def test_a_crashing_file_loses_only_itself(tmp_path, mode, how, monkeypatch):
    ordinary = write_ordinary(tmp_path)
    (tmp_path / "ok_07_crash.py").write_text(BUGGY.format(n=9))
    crash_on("ok_07_crash.py", how, monkeypatch)
    report = lint(tmp_path, mode)
    found = codes_by_file(report)
    assert {name: found.get(name) for name in ordinary} == {name: ["SC101"] for name in ordinary}
    [crashed] = [f for f in report.findings if Path(f.path).name == "ok_07_crash.py"]
    assert crashed.code == "SC099"
    assert "crashed" in crashed.message
    assert report.files_checked == ORDINARY_COUNT + 1


def test_two_crashing_files_in_one_run_are_each_reported_once(tmp_path, monkeypatch):
    ordinary = write_ordinary(tmp_path)
    for name in ("a_crash.py", "z_crash.py"):
        (tmp_path / name).write_text(BUGGY.format(n=9))
    real = runner.analyze_bytes

    def analyze_bytes(path, data, kind, config, coverage=None, imported=None):
        if Path(path).name.endswith("_crash.py"):
            os._exit(3)
        return real(path, data, kind, config, coverage, imported)

    monkeypatch.setattr(runner, "analyze_bytes", analyze_bytes)
    report = lint(tmp_path, 1)
    found = codes_by_file(report)
    assert found["a_crash.py"] == ["SC099"] and found["z_crash.py"] == ["SC099"]
    assert all(found.get(name) == ["SC101"] for name in ordinary)


def deny(monkeypatch, module, function: str, denied: Path) -> None:
    """``module.function`` raises PermissionError for ``denied`` and paths below it, as without read permission."""
    real = getattr(module, function)
    denied_text = os.path.abspath(denied)

    def guarded(path, *args, **kwargs):
        target = os.path.abspath(os.fspath(path)) if isinstance(path, (str, os.PathLike)) else ""
        if target == denied_text or target.startswith(denied_text + os.sep):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(module, function, guarded)


def test_unreadable_subdirectory_is_sc002_and_the_rest_is_linted(project, shapecheck, monkeypatch):
    (project / "locked").mkdir()
    (project / "locked" / "hidden.py").write_text(BUGGY.format(n=7))
    (project / "open.py").write_text(BUGGY.format(n=7))
    deny(monkeypatch, discover_module.os, "scandir", project / "locked")
    run = shapecheck("lint", "--no-cache", "--format", "json")
    assert run.code == 1
    assert [(f["path"], f["code"]) for f in run.json()] == [("locked", "SC002"), ("open.py", "SC101")]
    assert "Permission denied" in run.json()[0]["message"]
    assert "Traceback" not in run.err


def test_subdirectory_whose_config_cannot_be_examined_is_sc002(project, shapecheck, monkeypatch):
    """Listing works but looking inside does not (a directory with r but not x): no traceback either."""
    (project / "half").mkdir()
    (project / "open.py").write_text(BUGGY.format(n=7))
    real_is_file = Path.is_file

    def is_file(self):
        if self.parent.name == "half":
            raise PermissionError(13, "Permission denied", str(self))
        return real_is_file(self)

    monkeypatch.setattr(Path, "is_file", is_file)
    run = shapecheck("lint", "--no-cache", "--format", "json")
    assert [(f["path"], f["code"]) for f in run.json()] == [("half", "SC002"), ("open.py", "SC101")]


def test_named_file_that_cannot_be_read_is_sc002_and_the_others_are_linted(project, shapecheck, monkeypatch):
    (project / "secret.py").write_text(BUGGY.format(n=7))
    (project / "open.py").write_text(BUGGY.format(n=7))
    real_open = open

    def guarded_open(path, *args, **kwargs):
        if os.path.abspath(os.fspath(path)) == str(project / "secret.py"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(runner, "open", guarded_open, raising=False)
    run = shapecheck("lint", "--no-cache", "--format", "json", "secret.py", "open.py")
    assert run.code == 1
    assert [(f["path"], f["code"]) for f in run.json()] == [("open.py", "SC101"), ("secret.py", "SC002")]
    assert run.json()[1]["message"] == "cannot read: Permission denied"


def test_named_file_inside_an_unsearchable_directory_is_sc002_not_a_usage_error(project, shapecheck, monkeypatch):
    """Without x permission on its directory a file cannot even be looked at; it exists, so it is not 'missing'."""
    (project / "locked").mkdir()
    (project / "locked" / "a.py").write_text(BUGGY.format(n=7))
    (project / "open.py").write_text(BUGGY.format(n=7))
    deny(monkeypatch, discover_module.os, "lstat", project / "locked" / "a.py")
    run = shapecheck("lint", "--no-cache", "--format", "json", "locked/a.py", "open.py")
    assert run.code == 1
    assert [(f["path"], f["code"]) for f in run.json()] == [("locked/a.py", "SC002"), ("open.py", "SC101")]


def test_a_missing_named_file_is_still_a_usage_error(project, shapecheck):
    (project / "open.py").write_text("x = 1\n")
    run = shapecheck("lint", "--no-cache", "nope.py", "open.py")
    assert run.code == 2
    assert "path does not exist: nope.py" in run.err
