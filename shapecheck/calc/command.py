"""Adds ``shapecheck eval`` to the typer app; everything heavy is imported when the command runs.

The command's options are parsed with argparse rather than declared as
typer parameters: typer 0.29 builds a pydantic TypeAdapter for every declared
parameter on every call, which cost the calculator about a quarter of a
second of start-up (measured: 0.24-0.39 s for these six options).
"""

from __future__ import annotations

import typer

EVAL_HELP = """Shape calculator: explain the shape of a NumPy / PyTorch expression.

    shapecheck eval "x + y" -s x=5,1,4,1 -s y=3,1,1

    shapecheck eval "q @ k.transpose(-2, -1)" -s "q=B,H,T,D k=B,H,T,D"

Options: -s/--shapes name=dims[:dtype] (repeatable), -d/--dialect
numpy|numpy-1|torch|torch-legacy|all, -f/--format text|json, --check-torch,
-i/--interactive, --batch FILE (every row of a .csv, .jsonl, .npy or .npz file
of shapes), --layer NAME=nn.Kind(...) (a torch.nn layer to call). Without an expression it starts an interactive session,
which also reads piped stdin one line per input. Exit codes: 0 valid, 1 the
expression fails under the semantics, 2 bad input. `shapecheck eval --help`
lists the options in full.
"""


def register(app: typer.Typer) -> None:
    """Add the ``eval`` command to ``app``."""

    @app.command(
        "eval",
        help=EVAL_HELP,
        add_help_option=False,  # --help reaches argparse, which lists the options
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                          "allow_interspersed_args": False},
    )
    def eval_command(ctx: typer.Context) -> None:
        from .arguments import main

        raise typer.Exit(main(list(ctx.args)))
