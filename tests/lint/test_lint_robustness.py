"""Robustness: real packages lint without internal errors, random programs never crash, syntax errors land where CPython says."""

from __future__ import annotations

import ast
import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from shapecheck.analysis.api import analyze_source
from shapecheck.lint.config import LintConfig
from shapecheck.lint.formats import render
from shapecheck.lint.runner import LintOptions, LintReport, analyze_bytes, finish, run_lint


def lint_package(directory: Path) -> LintReport:
    return run_lint(LintOptions(paths=(directory,), use_cache=False))


def test_whole_numpy_package_lints_without_internal_errors():
    import numpy

    report = lint_package(Path(numpy.__file__).parent)
    assert report.files_checked > 100
    internal = [f"{f.path}:{f.line}: {f.message}" for f in report.findings if f.code == "SC099"]
    assert internal == []


@pytest.mark.slow
def test_whole_torch_package_lints_without_internal_errors(request):
    if "slow" not in (request.config.option.markexpr or "") and not os.environ.get("SHAPECHECK_SLOW"):
        pytest.skip("slow: run with -m slow or SHAPECHECK_SLOW=1")
    torch = pytest.importorskip("torch")
    report = lint_package(Path(torch.__file__).parent)
    assert report.files_checked > 1000
    internal = [f"{f.path}:{f.line}: {f.message}" for f in report.findings if f.code == "SC099"]
    assert internal == []


BROKEN_SOURCES = [
    "x = (1,\n",
    "def f(:\n    pass\n",
    "a = 1\nb = = 2\n",
    "if x:\npass\n",
    "s = 'abc\n",
    "a = 1\n  b = 2\n",
    "x = [1, 2\ny = 3\n",
    "for i in range(3)\n    print(i)\n",
    "d = {1: 2,, 3: 4}\n",
    "print(f'{x!z}')\n",
    "é = 1 +\n",
    "class A:\n    def f(self):\n        return )\n",
]


@pytest.mark.parametrize("source", BROKEN_SOURCES)
def test_syntax_error_is_sc001_at_cpythons_position(source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(SyntaxError) as info:
            ast.parse(source)
    [finding] = analyze_source(source, "f.py")
    assert finding.code == "SC001"
    assert (finding.line, finding.column) == (info.value.lineno, info.value.offset)
    assert info.value.msg in finding.message
    assert (finding.span.end_line, finding.span.end_column) > (finding.line, finding.column)


def _lint_text(source: str) -> list:
    """The per-file pipeline without lint_job's catch-all, so any exception reaches the test."""
    config = LintConfig(root=Path("."))
    results = []
    for name, kind in (("gen.py", "python"), ("gen.ipynb", "notebook")):
        data = source.encode("utf-8", "surrogatepass") if kind == "python" else _as_notebook(source)
        findings, text, program = analyze_bytes(name, data, kind, config)
        results.append(finish(name, findings, text, program, config))
    return results


def _as_notebook(source: str) -> bytes:
    import json

    half = len(source) // 2
    cells = [{"cell_type": "code", "source": part, "metadata": {}, "outputs": []}
             for part in (source[:half], source[half:])]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}).encode()


try:
    import hypothesmith
except ImportError:  # pragma: no cover - the test extra installs it
    hypothesmith = None


@pytest.mark.skipif(hypothesmith is None, reason="hypothesmith is in the test extra")
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(source=hypothesmith.from_grammar() if hypothesmith else None)
def test_linter_never_raises_on_generated_programs_and_positions_stay_in_the_file(source):
    for result in _lint_text(source):
        for finding in result.findings + result.suppressed:
            assert finding.line >= 1 and finding.column >= 1
        report = LintReport(findings=result.findings, suppressed=result.suppressed, files_checked=1)
        report.sources = {(result.path, cell): text for cell, text in result.sources.items()}
        for fmt in ("text", "concise", "json", "sarif", "github"):
            assert isinstance(render(report, fmt, show_suppressed=True), str)
    python_result = _lint_text(source)[0]
    lines = source.count("\n") + 1
    assert all(f.line <= lines for f in python_result.findings)
