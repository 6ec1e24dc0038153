"""Fixtures for the lint tests: run the real command line in-process, in a scratch directory."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from shapecheck.cli import main


@dataclass(frozen=True)
class CliRun:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project directory that is the current directory; NO_COLOR keeps output plain."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


@pytest.fixture
def shapecheck(capsys):
    """Call ``shapecheck ARGS...`` through the real entry point and capture what it prints."""

    def run(*args: str) -> CliRun:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return CliRun(code, captured.out, captured.err)

    return run


@pytest.fixture
def make_notebook():
    return _notebook


def _notebook(*cells: tuple[str, str]) -> str:
    """An nbformat-4 notebook from (cell_type, source) pairs; sources split into lines as Jupyter does."""
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"language_info": {"name": "python"}},
        "cells": [{"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True),
                   **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                  for kind, src in cells],
    })
