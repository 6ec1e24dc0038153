"""The progress display: on a terminal's stderr, for people's formats, only once a run has lasted a while."""

from __future__ import annotations

import io
import sys

import pytest

from shapecheck.lint import progress
from shapecheck.lint.progress import ProgressDisplay, progress_for

BUGGY = "import numpy as np\nx = np.zeros((5, 2)) + np.ones(3)\n"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_nothing_is_drawn_before_the_delay_and_files_done_of_total_after_it():
    clock, stream = Clock(), Terminal()
    display = ProgressDisplay(stream, delay=1.0, clock=clock)
    clock.now = 0.5
    display.update(1, 3, "a.py")
    assert stream.getvalue() == "" and not display.shown
    clock.now = 1.5
    display.update(2, 3, "pkg/b.py")
    assert display.shown
    assert "2/3" in stream.getvalue() and "pkg/b.py" in stream.getvalue()
    display.close()


@pytest.mark.parametrize("fmt, tty, wanted", [
    ("text", True, True), ("concise", True, True),
    ("json", True, False), ("sarif", True, False), ("github", True, False),
    ("text", False, False),
])
def test_shown_only_for_people_formats_on_a_terminal(fmt, tty, wanted):
    stream = Terminal() if tty else io.StringIO()
    assert (progress_for(fmt, stream) is not None) == wanted


def lint_with_stderr(shapecheck, monkeypatch, stderr, *args):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(sys, "stderr", stderr)
    return shapecheck("lint", "--no-cache", *args)


def test_a_terminal_run_shows_progress_on_stderr_and_keeps_stdout_clean(project, shapecheck, monkeypatch):
    for name in ("a.py", "b.py", "c.py"):
        (project / name).write_text(BUGGY)
    stderr = Terminal()
    run = lint_with_stderr(shapecheck, monkeypatch, stderr, "--format", "concise")
    assert run.code == 1 and len(run.out.splitlines()) == 3
    assert "3/3" in stderr.getvalue() and "c.py" in stderr.getvalue()
    assert "3/3" not in run.out


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_machine_output_never_gets_a_progress_display(project, shapecheck, monkeypatch, fmt):
    (project / "a.py").write_text(BUGGY)
    stderr = Terminal()
    run = lint_with_stderr(shapecheck, monkeypatch, stderr, "--format", fmt)
    assert run.code == 1 and stderr.getvalue() == ""


def test_a_redirected_stderr_never_gets_a_progress_display(project, shapecheck, monkeypatch):
    (project / "a.py").write_text(BUGGY)
    stderr = io.StringIO()
    run = lint_with_stderr(shapecheck, monkeypatch, stderr)
    assert run.code == 1 and stderr.getvalue() == ""
