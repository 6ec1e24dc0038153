"""The eval command mounted on a typer app of its own, as the tests drive it."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from shapecheck.calc.command import register


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.command("noop")  # a second command keeps typer from collapsing the app into eval
    def noop() -> None:
        pass

    return app


APP = _app()


def run(*args: str, stdin: str | None = None):
    """``shapecheck eval ARGS`` with ``stdin`` as standard input; typer's Result."""
    return CliRunner().invoke(APP, ["eval", *args], input=stdin)
