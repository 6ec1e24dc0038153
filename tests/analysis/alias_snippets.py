"""What the alias tests share: the SC3xx findings of a snippet, and running the snippet."""

from __future__ import annotations

import textwrap
import warnings

from shapecheck.analysis.api import AnalysisSettings, analyze_source


def codes(code: str, dialect: str | None = None) -> list[tuple[int, str]]:
    """(line, code) of each SC3xx finding of ``code``, sorted."""
    found = analyze_source(textwrap.dedent(code), "t.py", AnalysisSettings(dialect=dialect))
    return sorted((f.line, f.code) for f in found if f.code.startswith("SC3"))


def run(code: str) -> dict:
    """Run one of the tests' own snippets (never user input); return its names."""
    env: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(textwrap.dedent(code), "<snippet>", "exec"), env)
    return env
