"""``shapecheck eval`` through a typer app built with register(): bad input and lazy imports."""

import subprocess
import sys

import pytest
from eval_cli import run


@pytest.mark.parametrize("args, fragment", [
    (["x+y", "-s", "x=5,,1", "-s", "y=3"], "empty dimension at column 5"),
    (["x+y", "-s", "x=-3", "-s", "y=3"], "negative dimension -3 at column 3"),
    (["x+y", "-s", "x=a.b", "-s", "y=3"], "'a.b' is not a dimension"),
    (["x+z", "-s", "x=3", "-s", "y=3"], "unknown name 'z'"),
    (["x +", "-s", "x=3"], "syntax error"),
    (["lambda: x", "-s", "x=3"], "unsupported construct: lambda at column 1"),
    (["x+y", "-s", "x=3", "-s", "y=3", "--dialect", "jax"], "unknown dialect 'jax'"),
    (["x+y", "-s", "x=3", "-s", "y=3", "--format", "yaml"], "unknown format 'yaml'"),
])
def test_bad_input_is_one_line_on_stderr_with_exit_code_2(args, fragment):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0]
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_importing_the_command_does_not_import_the_heavy_libraries():
    code = ("import sys, typer; from shapecheck.calc.command import register; "
            "register(typer.Typer()); "
            "print(sorted(m for m in ('libcst', 'numpy', 'torch', 'rich.table') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_help_lists_the_options_and_exits_0():
    result = run("--help")
    assert result.exit_code == 0
    for option in ("--shapes", "--dialect", "--format", "--check-torch", "--interactive"):
        assert option in result.stdout


def test_an_unknown_option_is_one_line_with_exit_code_2():
    result = run("x", "-s", "x=3", "--bogus")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: unrecognized arguments: --bogus"


def test_a_leading_space_lets_an_expression_start_with_a_minus():
    result = run(" -x", "-s", "x=3", "-d", "numpy", "-f", "json")
    assert result.exit_code == 0
    assert '"shape": [\n      3\n    ]' in result.stdout


def test_python_dash_m_shapecheck_eval_runs_the_calculator():
    done = subprocess.run([sys.executable, "-m", "shapecheck", "eval", "x + y", "-s", "x=5,1",
                           "-s", "y=3", "-d", "numpy", "-f", "json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert '"ok": true' in done.stdout


def test_eval_through_the_typer_app_matches_the_fast_entry_point():
    from shapecheck.cli import main as cli_main
    from shapecheck.entry import main as entry_main

    args = ["eval", "x + y", "-s", "x=5,1", "-s", "y=3", "-d", "numpy", "-f", "json"]
    assert entry_main(args) == 0
    assert cli_main(args) == 0
    bad = ["eval", "x + y", "-s", "x=5,,1", "-s", "y=3"]
    assert entry_main(bad) == 2
    assert cli_main(bad) == 2
