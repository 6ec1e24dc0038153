"""Piped text output is written without rich, and is byte for byte what rich writes to a pipe."""

from __future__ import annotations

import io

import pytest

from shapecheck.calc import render
from shapecheck.calc.arguments import main

EXPRESSIONS = [
    ["x+y", "-s", "x=3,1", "-s", "y=4"],
    ["x+y", "-s", "x=3,2", "-s", "y=4"],
    ["x @ y", "-s", "x=3,4", "-s", "y=5,6"],
    ["x += y", "-s", "x=3,1", "-s", "y=4"],
    ["x + y", "-s", "x=B,3", "-s", "y=4", "-d", "all"],
    ["x + y", "-s", "x=B,3", "-s", "y=4", "-d", "torch-legacy"],
    ["z = x @ y; z.sum(0)", "-s", "x=5,3", "-s", "y=3,4"],
    ["np.concatenate([x, y], axis=1)", "-s", "x=3,4", "-s", "y=5,4"],
    ["x.reshape(2, -1) + y", "-s", "x=4,6", "-s", "y=12"],
    ["torch.matmul(x, y)", "-s", "x=2,3,4", "-s", "y=4,5"],
    ["x + y", "-s", "x=N,M", "-s", "y=M"],
    ["x.sum(0) + y", "-s", "x=5,3", "-s", "y=5"],
    ["x + y", "-s", "x=" + ",".join(["2"] * 40), "-s", "y=" + ",".join(["3"] * 40)],  # wider than the pipe
    ["x / y", "-s", "x=3,1:int64", "-s", "y=4:float32"],
    ["x.t().view(-1)", "-s", "x=3,4", "-d", "torch"],
    ["x.add_(y)", "-s", "x=3,1", "-s", "y=4", "-d", "torch"],
    ["变量 + y", "-s", "变量=3,1", "-s", "y=4"],  # wide characters: rich measures them
]


def answer(args: list[str], plain: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.setattr(render, "writes_plain", lambda stream: plain)
    out, err = io.StringIO(), io.StringIO()
    code = main(args, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("args", EXPRESSIONS, ids=lambda args: args[0])
def test_plain_output_is_what_rich_writes_to_a_pipe(args, monkeypatch):
    assert answer(args, True, monkeypatch) == answer(args, False, monkeypatch)


def test_the_common_answer_takes_the_plain_path(monkeypatch):
    consoles = []
    monkeypatch.setattr(render, "make_console", lambda stream: consoles.append(stream))
    code, out, _ = answer(["x+y", "-s", "x=3,1", "-s", "y=4"], True, monkeypatch)
    assert code == 0 and consoles == []
    assert out.splitlines()[1:5] == ["             -2           -1", "x             3            1",
                                     "y                          4", "rule    missing  1 stretched"]


def test_a_grid_wider_than_the_pipe_or_with_wide_characters_is_left_to_rich():
    grid = render.Grid()
    grid.add_column("", justify="left")
    grid.add_column("-1", justify="right")
    grid.add_row("x" * 199, "1")
    assert grid.plain_lines() is None
    narrow = render.Grid()
    narrow.add_column("", justify="left")
    narrow.add_column("-1", justify="right")
    narrow.add_row("变量", "1")
    assert narrow.plain_lines() is None


@pytest.mark.parametrize("environment, plain", [
    ({}, True), ({"FORCE_COLOR": "1"}, False), ({"FORCE_COLOR": ""}, True), ({"TTY_COMPATIBLE": "1"}, False),
])
def test_a_pipe_is_plain_unless_colour_is_forced(environment, plain, monkeypatch):
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert render.writes_plain(io.StringIO()) is plain
