"""A progress line on stderr for runs that take a while: files done of all, and the file just linted.

Shown only when stderr is a terminal, the output is for people (text or
concise), and the run has lasted more than DELAY seconds, so quick runs and
CI logs never see it. It is transient: gone once the run ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

DELAY = 1.0  # seconds before the display appears
HUMAN_FORMATS = ("text", "concise")


class ProgressDisplay:
    """Receives ``update(done, total, path)`` from the runner and draws a rich progress bar after DELAY."""

    def __init__(self, stream: TextIO, delay: float = DELAY, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.delay = delay
        self.clock = clock
        self.started_at = clock()
        self._progress = None
        self._task = None

    def update(self, done: int, total: int, path: str) -> None:
        if self._progress is None:
            if self.clock() - self.started_at < self.delay:
                return
            self._start(total)
        self._progress.update(self._task, completed=done, total=total, current=path)
        self._progress.refresh()

    def _start(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(file=self.stream, force_terminal=True, highlight=False)
        self._progress = Progress(TextColumn("linting"), BarColumn(), MofNCompleteColumn(), TextColumn("files"),
                                  TimeElapsedColumn(), TextColumn("{task.fields[current]}", style="dim"),
                                  console=console, transient=True, auto_refresh=False)
        self._task = self._progress.add_task("lint", total=total, current="")
        self._progress.start()

    @property
    def shown(self) -> bool:
        return self._progress is not None

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def progress_for(output_format: str, stream: TextIO) -> ProgressDisplay | None:
    """A display when a person is watching this run on a terminal; None for machine output or a redirected stderr."""
    if output_format not in HUMAN_FORMATS:
        return None
    if not (getattr(stream, "isatty", None) and stream.isatty()):
        return None
    return ProgressDisplay(stream, delay=DELAY)
