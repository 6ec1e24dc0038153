"""The interactive calculator driven through piped stdin, one line per input."""

import json

from eval_cli import APP
from typer.testing import CliRunner


def session(*lines: str, args: tuple = ()):
    return CliRunner().invoke(APP, ["eval", *args], input="\n".join(lines) + "\n")


def test_shapes_defined_both_ways_are_used_by_expressions():
    result = session("x = (5, 1, 4, 1)", "y: 3,1,1", ":dialect numpy", "x + y")
    assert result.exit_code == 0, result.output
    assert "= (5, 3, 4, 1)" in result.stdout
    assert result.stderr == ""


def test_results_become_names():
    result = session(":format json", ":dialect numpy", "x = (5, 4)", "y = (4, 3)",
                     "z = x @ y", "z.sum(0)", "_ + z")
    assert result.exit_code == 0, result.output
    decoder = json.JSONDecoder()
    text, outputs = result.stdout, []
    while text.strip():
        value, end = decoder.raw_decode(text.lstrip())
        outputs.append(value)
        text = text.lstrip()[end:]
    assert [o["numpy"]["shape"] for o in outputs] == [[5, 3], [3], [5, 3]]


def test_shapes_command_lists_defined_and_computed_names():
    result = session("x: 2,3:int64", ":dialect torch", "w = x.T", ":shapes")
    assert "x: (2, 3) int64" in result.stdout
    assert "w: (3, 2)" in result.stdout


def test_dialect_command_switches_the_semantics():
    result = session(":format json", "x = (3,)", "y = (2, 3)", ":dialect torch", "x += y",
                     ":dialect numpy", "x += y")
    decoder = json.JSONDecoder()
    first, end = decoder.raw_decode(result.stdout)
    second, _ = decoder.raw_decode(result.stdout[end:].lstrip())
    assert first["torch"]["error"]["message"] == (
        "output with shape [3] doesn't match the broadcast shape [2, 3]")
    assert second["numpy"]["error"]["message"] == (
        "non-broadcastable output operand with shape (3,) doesn't match the broadcast shape (2,3)")
    assert result.exit_code == 1  # the worst line: an expression that fails


def test_bad_lines_report_one_error_each_and_the_session_goes_on():
    result = session("x = (5,,1)", "x = (5, 1)", "x + nope", "x +", ":frob", ":dialect jax",
                     ":dialect numpy", "x.sum(0)")
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 5
    assert "empty dimension" in errors[0]
    assert "unknown name 'nope'" in errors[1]
    assert "syntax error" in errors[2]
    assert "unknown command ':frob'" in errors[3]
    assert "unknown dialect 'jax'" in errors[4]
    assert "= (1,)" in result.stdout
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_quit_stops_reading_and_help_lists_the_commands():
    result = session(":help", "x = (2,)", ":quit", "x + undefined_name")
    assert ":dialect" in result.stdout and ":shapes" in result.stdout and ":quit" in result.stdout
    assert result.stderr == ""
    assert result.exit_code == 0


def test_shapes_given_on_the_command_line_seed_the_session():
    result = session(":dialect numpy", "a @ b", args=("-s", "a=2,3 b=3,4"))
    assert "= (2, 4)" in result.stdout
    bad = session("a", args=("-s", "a=2,,3"))
    assert bad.exit_code == 2 and "empty dimension" in bad.stderr
