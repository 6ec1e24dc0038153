"""``shapecheck eval`` imports only what its answer needs (the time itself: benchmarks/eval_startup.py)."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
WATCHED = ("typer", "rich", "libcst", "numpy", "shapecheck.analysis.interpret")


def imported_by(*args: str, env: dict[str, str] | None = None) -> tuple[set[str], subprocess.CompletedProcess]:
    """The watched modules loaded by one ``shapecheck eval`` run in a fresh interpreter."""
    code = ("import sys, atexit\n"
            f"watched = {WATCHED!r}\n"
            "atexit.register(lambda: sys.stderr.write('LOADED ' + ' '.join("
            "m for m in watched if m in sys.modules) + '\\n'))\n"
            "from shapecheck.entry import main\n"
            f"main(['eval', *{list(args)!r}])\n")
    base = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**base, "PYTHONPATH": str(ROOT), **(env or {})})
    line = [l for l in done.stderr.splitlines() if l.startswith("LOADED")][-1]
    return set(line.split()[1:]), done


def test_a_piped_one_shot_text_answer_loads_neither_typer_nor_rich():
    loaded, done = imported_by("x+y", "-s", "x=3,1", "-s", "y=4")
    assert done.returncode == 0 and "= (3, 4)" in done.stdout
    assert {"libcst", "numpy"} <= loaded  # the parser, the engine
    assert not loaded & {"typer", "rich"}  # plain lines, the bytes rich would write to a pipe


def test_a_text_answer_for_a_terminal_is_drawn_by_rich():
    loaded, done = imported_by("x+y", "-s", "x=3,1", "-s", "y=4", env={"FORCE_COLOR": "1"})
    assert done.returncode == 0 and "\x1b[" in done.stdout  # in colour
    assert {"libcst", "numpy", "rich"} <= loaded
    assert "typer" not in loaded


def test_a_json_answer_loads_no_renderer():
    loaded, done = imported_by("x+y", "-s", "x=3,1", "-s", "y=4", "-f", "json")
    assert json.loads(done.stdout)["numpy"]["shape"] == [3, 4]
    assert not loaded & {"typer", "rich"}


@pytest.mark.parametrize("args", [
    ("--help",),
    ("x+1", "-s", "x="),
    ("x+1", "-s", "x=3", "-d", "jax"),
])
def test_help_and_usage_errors_load_no_parser_engine_or_renderer(args):
    loaded, done = imported_by(*args)
    assert done.returncode in (0, 2)
    assert loaded == set(), loaded


def test_a_one_shot_answer_pauses_the_collector_and_turns_it_back_on(monkeypatch, capsys):
    import gc

    from shapecheck import entry
    from shapecheck.calc import arguments

    seen = []
    real_main = arguments.main
    monkeypatch.setattr(arguments, "main", lambda argv: (seen.append(gc.isenabled()), real_main(argv))[1])
    assert gc.isenabled()
    assert entry.main(["eval", "x+y", "-s", "x=3,1", "-s", "y=4"]) == 0
    assert seen == [False] and gc.isenabled()
    assert "= (3, 4)" in capsys.readouterr().out


def test_an_interactive_session_collects_garbage(monkeypatch):
    import gc
    import io

    from shapecheck.calc import arguments, repl

    seen = []
    monkeypatch.setattr(repl, "run_repl", lambda *args: seen.append(gc.isenabled()) or 0)
    gc.disable()
    try:
        assert arguments.main(["-i"], stdin=io.StringIO(""), stdout=io.StringIO(), stderr=io.StringIO()) == 0
    finally:
        gc.enable()
    assert seen == [True]
