"""The interactive calculator at a terminal: Tab completion, history kept between sessions, :help."""

import ast
import os
import pathlib
import select
import subprocess
import sys
import time

import pytest

from shapecheck.calc.repl import complete, history_path, op_names

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _ops() -> list[str]:
    return op_names()


@pytest.mark.parametrize("line, word, expected", [
    ("np.ad", "np.ad", "np.add"),
    ("numpy.ma", "numpy.ma", "numpy.matmul"),
    ("numpy.linalg.so", "numpy.linalg.so", "numpy.linalg.solve"),
    ("torch.linalg.so", "torch.linalg.so", "torch.linalg.solve"),
    ("F.soft", "F.soft", "F.softmax"),
    ("x.su", "x.su", "x.sum"),
    ("q.transpose(0, 1).vi", "q.transpose(0, 1).vi", "q.transpose(0, 1).view"),
    ("x + wei", "wei", "weights"),
    (":he", ":he", ":help"),
    (":dialect torch-l", "torch-l", "torch-legacy"),
    (":format j", "j", "json"),
])
def test_tab_completes_names_ops_and_commands(line, word, expected):
    assert expected in complete(line, word, {"weights", "x"}, _ops)


def test_completion_offers_only_what_exists_in_that_library():
    numpy_names = complete("np.", "np.", set(), _ops)
    assert "np.add" in numpy_names and "np.linalg." in numpy_names
    assert not any(name.startswith("np.linalg.s") for name in numpy_names)
    assert complete("np.li", "np.li", set(), _ops) == ["np.linalg."]
    assert "np.linalg.solve" in complete("np.linalg.", "np.linalg.", set(), _ops)
    assert all(not name.endswith("__") for name in complete("x.", "x.", {"x"}, _ops))
    assert complete(":dialect ", "", set(), _ops)[:2] == ["numpy", "numpy-1"]


def test_history_lives_in_the_state_directory():
    assert history_path({"XDG_STATE_HOME": "/s"}) == pathlib.Path("/s/shapecheck/eval_history")
    assert history_path({"HOME": "/h"}) == pathlib.Path("/h/.local/state/shapecheck/eval_history")
    assert history_path({}) is None


def _session(lines: list[str], env: dict[str, str], code: str | None = None) -> tuple[str, int]:
    """Run ``shapecheck eval`` on a pseudo-terminal, typing ``lines``; (what it showed, exit code)."""
    import pty

    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "shapecheck",
                                                          "eval", "-d", "numpy"]
    primary, secondary = pty.openpty()
    child = subprocess.Popen(command, stdin=secondary, stdout=secondary, stderr=secondary,
                             env={**os.environ, "PYTHONPATH": str(ROOT), "TERM": "dumb", **env},
                             close_fds=True)
    os.close(secondary)
    shown = b""

    def read_until_prompts(count: int, timeout: float = 60.0) -> None:
        """Read what the session shows until it has prompted ``count`` times (or has ended)."""
        nonlocal shown
        deadline = time.monotonic() + timeout
        while shown.count(b">>> ") < count and time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.5)
            if not ready:
                if child.poll() is not None:
                    return
                continue
            try:
                data = os.read(primary, 4096)
            except OSError:  # the session ended and closed the terminal
                return
            if not data:
                return
            shown += data

    try:
        read_until_prompts(1)
        for index, line in enumerate(lines):
            os.write(primary, line.encode())
            read_until_prompts(index + 2)
        code_ = child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
        os.close(primary)
    return shown.decode(errors="replace"), code_


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pseudo-terminal")
def test_tab_completion_and_history_at_a_terminal(tmp_path):
    pytest.importorskip("readline")
    env = {"XDG_STATE_HOME": str(tmp_path)}
    shown, code = _session(["x = (5, 1)\n", "np.ad\t(x, x)\n", ":quit\n"], env)
    assert code == 0, shown
    assert "= (5, 1)" in shown, shown
    history = (tmp_path / "shapecheck" / "eval_history").read_text()
    assert "np.add(x, x)" in history  # Tab completed np.ad
    # A second session keeps the first one's lines: the file is read back, not overwritten.
    shown, code = _session(["y = (2, 3)\n", ":quit\n"], env)
    assert code == 0, shown
    history = (tmp_path / "shapecheck" / "eval_history").read_text()
    assert "np.add(x, x)" in history and "y = (2, 3)" in history


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pseudo-terminal")
def test_an_unwritable_history_location_costs_only_the_history(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    shown, code = _session(["x = (5, 1)\n", "x + 1\n", ":quit\n"],
                           {"XDG_STATE_HOME": str(blocker / "state")})
    assert code == 0, shown
    assert "= (5, 1)" in shown and "Traceback" not in shown


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pseudo-terminal")
def test_a_session_works_without_readline(tmp_path):
    code = ("import sys; sys.modules['readline'] = None; "
            "from shapecheck.entry import main; main(['eval', '-d', 'numpy'])")
    shown, exit_code = _session(["x = (5, 1)\n", "x + 1\n", ":quit\n"],
                                {"XDG_STATE_HOME": str(tmp_path)}, code=code)
    assert exit_code == 0, shown
    assert "= (5, 1)" in shown and "Traceback" not in shown


def test_help_names_the_commands_completion_and_history():
    result = subprocess.run([sys.executable, "-m", "shapecheck", "eval"], input=":help\n",
                            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0
    for fragment in (":dialect", ":format", ":shapes", ":quit", "Tab completes", "eval_history"):
        assert fragment in result.stdout


def _imported_modules(path: pathlib.Path) -> set[str]:
    """Every module a file imports, at any depth (function-level imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.add(base)
            separator = "" if base.endswith(".") else "."
            found.update(f"{base}{separator}{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("module", ["session.py", "repl.py", "render.py", "symbols.py",
                                    "shapes.py", "expression.py"])
def test_the_session_side_never_imports_the_evaluator(module):
    # calc/evaluation imports UsageError from the session side; an import back is a cycle.
    imported = _imported_modules(ROOT / "shapecheck" / "calc" / module)
    assert not {name for name in imported if name.endswith("evaluation")}, imported
