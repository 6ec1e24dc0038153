"""The nesting guard refuses only what libcst cannot take, and fast positions equal libcst's PositionProvider."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.nesting import MAX_DEPTH, check_nesting, refuse_deep_nesting
from shapecheck.analysis.positions import NodePositions, node_positions


def numpy_sources() -> list[Path]:
    import numpy

    return sorted(Path(numpy.__file__).parent.rglob("*.py"))


def test_no_numpy_source_file_is_refused():
    refused = []
    for path in numpy_sources():
        source = path.read_text(encoding="utf-8", errors="replace")
        refusal = refuse_deep_nesting(source)
        if refusal is not None:
            refused.append(f"{path}: {refusal.message}")
    assert refused == []


@pytest.mark.parametrize("source, line, code", [
    ("x = 1\ny = " + "(" * 2000 + "1" + ")" * 2000 + "\n", 2, "SC001"),
    ("x = " + " + ".join(["a"] * 20000) + "\n", 1, "SC001"),
    ("def f():\n    return " + " - ".join(["a"] * (MAX_DEPTH + 50)) + "\n", 2, "SC099"),
    ("x = " + " or ".join(["a"] * (MAX_DEPTH + 50)) + "\n", 1, "SC099"),
    ("x = -" + "~" * (MAX_DEPTH + 50) + "1\n", 1, "SC099"),
], ids=["brackets", "chain", "chain-in-function", "or-chain", "unary"])
def test_deep_nesting_is_one_finding_on_its_line(source, line, code):
    [finding] = analyze_source(source, "deep.py")
    assert (finding.code, finding.span.line) == (code, line)


@pytest.mark.parametrize("source", [
    "x = " + " + ".join(["a"] * (MAX_DEPTH - 20)) + "\n",          # long, but below the limit
    "x = [" + ", ".join(["[1, 2]"] * 5000) + "]\n",                 # wide is not deep
    "x = " + " < ".join(["a"] * 3000) + "\n",                      # one flat comparison in libcst too
    "x = (1,\n",                                                    # ordinary syntax errors go the usual way
], ids=["below-limit", "wide", "comparison", "syntax-error"])
def test_wide_or_moderately_deep_code_is_not_refused(source):
    assert refuse_deep_nesting(source) is None


def test_libcst_really_crashes_where_the_guard_steps_in():
    """Why the guard exists: without it this input kills the process (checked in a child process)."""
    source = "x = " + "[" * 1700 + "1" + "]" * 1700 + "\n"
    child = subprocess.run([sys.executable, "-c", "import sys, libcst; libcst.parse_module(sys.stdin.read())"],
                           input=source, text=True, capture_output=True, timeout=120)
    if child.returncode == 0:
        pytest.skip("this libcst survives 1,700 nested brackets")
    assert child.returncode < 0  # killed by a signal, not a Python exception
    [finding] = analyze_source(source, "deep.py")
    assert finding.code == "SC001"


POSITION_CASES = [
    "x = (1 +\n  2)\ndef f():\n    return 1",  # no trailing newline
    "@dec\n# comment\n@other(1)\ndef g(a, *, b=2):\n    '''doc'''\n    return [i for i in a if i]\n",
    "class C:\n\n    x: int = 1\n    def m(self): return self.x; pass\n",
    "if a:\n    pass\nelif b:\n    pass\nelse:\n    y = f'{a!r:>{b}}'\n",
    "with open(p) as f, g() as h:\n    async def k():\n        await z\n",
    "x = 1\r\ny = (2,\r\n     3)\r\n",
]


@pytest.mark.parametrize("source", POSITION_CASES)
def test_positions_equal_libcsts_position_provider(source):
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = node_positions(module)
    assert len(ours) == len(expected)
    assert {node: ours[node] for node in expected} == dict(expected)


def test_positions_equal_libcsts_on_real_numpy_files():
    checked = 0
    for path in numpy_sources()[::25]:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        ours = node_positions(module)
        mismatched = [node for node, where in expected.items() if ours[node] != where]
        assert mismatched == [], path
        checked += 1
    assert checked > 10


LAZY_CASES = POSITION_CASES + [
    "# head\n\nx = 1; y = 2\n\n\n# between\nasync def f():\n  pass\ntry:\n  pass\nexcept E:\n  pass\n# end",
    "x = 1\ry = (2,\r 3)\r",
    "def f():\n\tif x:\n\t\treturn 1\n  # dedented comment\n",
]
# Whitespace and the module itself are outside the top-level statements: asking for them generates everything.
_OUTSIDE_STATEMENTS = (cst.Module, cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace,
                       cst.Newline, cst.Comment)


def _statement_by_statement(source: str) -> tuple[cst.Module, NodePositions]:
    module = cst.parse_module(source)
    return module, NodePositions(module, source, check_nesting(source).statement_lines)


@pytest.mark.parametrize("source", LAZY_CASES)
def test_positions_found_statement_by_statement_equal_libcsts(source):
    module, ours = _statement_by_statement(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    inside = {node: where for node, where in expected.items() if not isinstance(node, _OUTSIDE_STATEMENTS)}
    assert {node: ours[node] for node in inside} == inside
    assert {node: ours[node] for node in expected} == dict(expected)  # the rest: the whole module at once
    assert len(ours) == len(expected)


def test_positions_found_statement_by_statement_on_real_numpy_files():
    for path in numpy_sources()[3::25]:
        module, ours = _statement_by_statement(path.read_text(encoding="utf-8"))
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        mismatched = [node for node, where in expected.items()
                      if not isinstance(node, _OUTSIDE_STATEMENTS) and ours[node] != where]
        assert mismatched == [], path


def test_statement_lines_that_do_not_fit_the_source_fall_back_to_the_whole_module():
    source = "x = 1\n\ndef f():\n    return x + 2\n"
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for wrong in ([1, 3], [2, 4], [1], [1, 2, 3], [9, 9]):
        ours = NodePositions(module, source, wrong)
        assert {node: ours[node] for node in expected} == dict(expected), wrong


def test_a_node_of_another_tree_has_no_position():
    ours = node_positions(cst.parse_module("x = 1\n"))
    stranger = cst.parse_module("x = 1\n").body[0]
    assert stranger not in ours
    with pytest.raises(KeyError):
        ours[stranger]


def test_a_node_of_another_tree_has_no_position_statement_by_statement():
    _, ours = _statement_by_statement("x = 1\n")
    stranger = cst.parse_module("x = 1\n").body[0]
    assert stranger not in ours
    with pytest.raises(KeyError):
        ours[stranger]
