"""The interactive calculator: the read loop, Tab completion and a history kept between sessions.

Line editing comes from readline where Python has it. Without readline, or
when the history file cannot be read or written (no HOME, a read-only
disk), the session works the same, only without those comforts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable, TextIO

from .session import DIALECT_CHOICES, EXIT_OK, Calculator

COMMANDS = (":help", ":shapes", ":dialect", ":format", ":quit")
"""The session's commands, as :help lists them (:q and :exit also quit)."""

COMMAND_ARGUMENTS = {":dialect": DIALECT_CHOICES + ("auto",), ":format": ("text", "json")}

LIBRARY_PREFIXES = {"np": "np", "numpy": "np", "torch": "torch", "F": "torch"}
"""A prefix the user types, to the op table's spelling of that library."""

HISTORY_LENGTH = 1000

# Word breaks for completion: not '.', so "np.li" completes as one word, nor ':', for ":he".
_DELIMITERS = " \t\n`~!@#$%^&*()-=+[{]}\\|;'\",<>/?"


def history_path(environ: dict[str, str] | None = None) -> Path | None:
    """``$XDG_STATE_HOME/shapecheck/eval_history`` (default ``~/.local/state``); None without a home."""
    environ = os.environ if environ is None else environ
    state = environ.get("XDG_STATE_HOME")
    if state:
        return Path(state) / "shapecheck" / "eval_history"
    home = environ.get("HOME") or (os.path.expanduser("~") if environ is os.environ else "")
    if not home or home == "~":
        return None
    return Path(home) / ".local" / "state" / "shapecheck" / "eval_history"


def op_names() -> list[str]:
    """Every op the calculator knows, spelled as typed: ``np.add``, ``torch.linalg.solve``, ``sum``."""
    from shapecheck.runtime import ops

    names = set()
    for spec in ops.all_specs():
        if not (spec.name.startswith("__") and spec.name.endswith("__")):
            names.add(spec.name)
    return sorted(names)


def complete(line: str, word: str, names: Iterable[str], ops: Callable[[], list[str]]) -> list[str]:
    """The candidates for ``word``, the word being typed at the end of ``line``.

    A command at the start of a line, then its argument; after ``np.``,
    ``torch.`` or ``F.`` the library's functions; after any other ``x.`` the
    array methods; otherwise the names defined in the session and the
    library prefixes.
    """
    head = line[: len(line) - len(word)] if word and line.endswith(word) else line
    if head.lstrip().startswith(":"):
        command = head.split()[0] if head.split() else ""
        return [c for c in COMMAND_ARGUMENTS.get(command, ()) if c.startswith(word)]
    if word.startswith(":") and not head.strip():
        return [c for c in COMMANDS if c.startswith(word)]
    if "." in word:
        receiver, _, partial = word.rpartition(".")
        first = receiver.split(".")[0]
        if first in LIBRARY_PREFIXES:
            library = LIBRARY_PREFIXES[first]
            rest = receiver[len(first):]  # "" or ".linalg"
            start = f"{library}{rest}.{partial}"
            found: dict[str, None] = {}
            for name in ops():
                if name.startswith(start):
                    # One segment at a time: "np.li" offers "np.linalg.", not every linalg op.
                    tail = name[len(start) - len(partial):]
                    segment = tail.split(".")[0] + ("." if "." in tail else "")
                    found.setdefault(f"{first}{rest}.{segment}")
            return list(found)
        return [f"{receiver}.{name}" for name in ops() if "." not in name
                and name.startswith(partial)]
    candidates = sorted(set(names)) + sorted(LIBRARY_PREFIXES)
    return [c for c in candidates if c.startswith(word)]


class _LineEditing:
    """readline set up for one session: history loaded, completion bound; absent readline is fine."""

    def __init__(self, calculator: Calculator):
        self.calculator = calculator
        self.path = history_path()
        self._ops: list[str] | None = None
        self._matches: list[str] = []
        try:
            import readline
        except ImportError:
            self.readline = None
            return
        self.readline = readline
        readline.set_history_length(HISTORY_LENGTH)
        if self.path is not None:
            try:
                readline.read_history_file(self.path)
            except (OSError, ValueError):
                pass  # no history yet, or one we cannot read: start afresh
        readline.set_completer_delims(_DELIMITERS)
        readline.set_completer(self._complete)
        if "libedit" in (readline.__doc__ or ""):
            readline.parse_and_bind("bind ^I rl_complete")
        else:
            readline.parse_and_bind("tab: complete")

    def ops(self) -> list[str]:
        if self._ops is None:
            self._ops = op_names()
        return self._ops

    def _complete(self, word: str, state: int) -> str | None:
        try:
            if state == 0:
                line = self.readline.get_line_buffer()[: self.readline.get_endidx()]
                self._matches = complete(line, word, self.calculator.names(), self.ops)
            return self._matches[state] if state < len(self._matches) else None
        except Exception:  # readline swallows a completer's errors; never break the prompt
            return None

    def save(self) -> None:
        if self.readline is None or self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.readline.write_history_file(self.path)
        except OSError:
            pass  # an unwritable home costs the history, not the session


def run_repl(calculator: Calculator, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    """Read lines until :quit or end of input; the exit code is the worst line's."""
    interactive = stdin.isatty()
    editing = _LineEditing(calculator) if interactive else None
    if interactive:
        out.write("shapecheck eval: define shapes (x = (5, 1)), evaluate expressions; "
                  "Tab completes, :help, :quit\n")
    worst = EXIT_OK
    try:
        while not calculator.done:
            try:
                if interactive:
                    line = input(">>> ")
                else:
                    line = stdin.readline()
                    if not line:
                        break
            except EOFError:
                if interactive:
                    out.write("\n")
                break
            except KeyboardInterrupt:
                out.write("\n")
                continue
            worst = max(worst, calculator.handle(line, out, err))
            out.flush()
    finally:
        if editing is not None:
            editing.save()
    return worst
