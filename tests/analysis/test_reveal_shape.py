"""reveal_shape(x) (SC004): the analyzer says what it believes x is at that call, and the run time agrees."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from rule_examples import marked

from shapecheck import reveal_shape
from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.coverage import CoverageRecorder
from shapecheck.analysis.rules import all_rules

SPEC = all_rules()["SC004"]
BAD = list(enumerate(SPEC.bad))
GOOD = list(enumerate(SPEC.good))


def notes(source: str) -> list:
    return [f for f in analyze_source(source, "m.py") if f.code == "SC004"]


def note_at(source: str, line: int):
    found = [f for f in notes(source) if f.line == line]
    assert len(found) == 1, found
    return found[0]


def test_the_rule_is_an_info_with_examples_that_mark_their_line():
    assert SPEC.severity.value == "info" and SPEC.bad and SPEC.good
    assert all(len(marked(ex.code)) == 1 and marked(ex.code)[0][1] == "SC004" for ex in SPEC.bad)


@pytest.mark.parametrize("index,example", BAD, ids=[f"bad{i}" for i, _ in BAD])
def test_example_reports_exactly_one_note_at_the_marked_line(index, example):
    assert sorted((f.line, f.code) for f in analyze_source(example.code, "example.py")) == marked(example.code)


@pytest.mark.parametrize("index,example", GOOD, ids=[f"good{i}" for i, _ in GOOD])
def test_example_without_reveal_shape_is_clean(index, example):
    assert analyze_source(example.code, "example.py") == []


@pytest.mark.parametrize("index,example", BAD, ids=[f"bad{i}" for i, _ in BAD])
def test_static_belief_is_the_shape_the_real_library_prints(index, example):
    if example.library == "torch":
        pytest.importorskip("torch")
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        exec(compile(example.code, "<example>", "exec"), {})  # our own rule example, never user input
    real = re.match(r"reveal_shape: (\(.*?\)) (\w+) (\w+)", printed.getvalue())
    assert real is not None, printed.getvalue()
    note = note_at(example.code, marked(example.code)[0][0])
    assert note.message.split(": ", 1)[1].startswith(real.group(1))
    assert f" {real.group(3)}" in note.message


def test_runtime_reveal_shape_returns_its_argument_and_prints_shape_dtype_library():
    np = pytest.importorskip("numpy")
    x = np.zeros((2, 5), dtype=np.int32)
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        assert reveal_shape(x) is x
        assert reveal_shape(3) == 3
    assert printed.getvalue().splitlines() == ["reveal_shape: (2, 5) int32 numpy",
                                               "reveal_shape: not an array: int"]


def test_a_view_names_the_array_it_shares_storage_with_and_where_it_came_from():
    source = ("import numpy as np\n"
              "x = np.ones((3, 4))\n"
              "y = x[1:]\n"
              "z = x\n"
              "reveal_shape(y)\n"
              "reveal_shape(z)\n")
    assert note_at(source, 5).message == "y: (2, 4) float64 numpy, a view of x, from line 3"
    assert note_at(source, 6).message.startswith("z: (3, 4) float64 numpy, shares storage with x")


def test_symbols_the_code_names_appear_in_the_shape():
    source = ("import torch\n"
              "def f(x: torch.Tensor):\n"
              "    B, T, C = x.shape\n"
              "    h = x.reshape(B * T, C)\n"
              "    reveal_shape(h)\n"
              "    reveal_shape(B)\n")
    assert note_at(source, 5).message.startswith("h: (B*T, C) ")
    assert note_at(source, 6).message == "B: int B"


def test_a_function_called_with_arrays_adds_each_callers_belief():
    source = ("import torch\n"
              "def f(x, w):\n"
              "    h = x @ w\n"
              "    reveal_shape(h)\n"
              "    return h\n"
              "f(torch.ones(2, 3, 4), torch.ones(4, 12))\n"
              "f(torch.ones(5, 4), torch.ones(4, 7))\n")
    note = note_at(source, 4)
    assert note.message.startswith("h: ")
    assert note.details == ("with a caller's arguments: (2, 3, 12) float32 torch, from line 3",
                            "with a caller's arguments: (5, 7) float32 torch, from line 3")


def test_after_a_loop_the_belief_is_the_loops_fixed_point():
    source = ("import numpy as np\n"
              "def grow(n: int):\n"
              "    x = np.ones((3, 4))\n"
              "    for _ in range(n):\n"
              "        x = np.concatenate([x, x])\n"
              "    reveal_shape(x)\n")
    assert note_at(source, 6).message.startswith("x: (?, 4) float64 numpy")


def test_after_a_loop_over_known_items_the_belief_is_each_pass_in_turn():
    source = ("import numpy as np\n"
              "x = np.ones((3, 4))\n"
              "for _ in range(3):\n"
              "    x = np.concatenate([x, x])\n"
              "reveal_shape(x)\n")
    assert note_at(source, 5).message.startswith("x: (24, 4) float64 numpy")


def test_unreached_code_says_so():
    source = ("import numpy as np\n"
              "def f():\n"
              "    return 1\n"
              "    reveal_shape(np.ones(3))\n")
    assert note_at(source, 4).message.endswith(": not reached by the analysis")


def test_the_note_carries_the_shape_as_data():
    source = "import numpy as np\nx = np.ones((3, 4))\nreveal_shape(x)\n"
    facts = note_at(source, 3).facts
    assert facts.shapes == ((3, 4),) and facts.library == "numpy"
    assert facts.operands[0].expr == "x" and facts.operands[0].shape == (3, 4)


def test_reveal_shape_leaves_coverage_counts_and_other_findings_as_they_were():
    body = ("import numpy as np\n"
            "a = np.ones((3, 4))\n"
            "b = a + np.ones(5)\n")
    plain, revealed = CoverageRecorder(), CoverageRecorder()
    without = analyze_source(body, "m.py", coverage=plain)
    with_reveal = analyze_source(body + "reveal_shape(a)\n", "m.py", coverage=revealed)
    assert [f.code for f in with_reveal] == [f.code for f in without] + ["SC004"]
    # The revealed expression is one more array read; nothing else changes.
    assert revealed.summary().arrays == plain.summary().arrays + 1
    assert revealed.summary().fully_known == plain.summary().fully_known + 1


def test_a_call_with_other_arguments_is_not_a_reveal():
    source = "import numpy as np\nx = np.ones(3)\nreveal_shape(x, 1)\nobj.reveal_shape\n"
    assert notes(source) == []
