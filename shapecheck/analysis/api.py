"""The analyzer's front door: source text in, findings out, never an exception."""

from __future__ import annotations

import ast
import gc
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

import libcst as cst

from .findings import Finding, Span
from .nesting import check_nesting
from .positions import node_positions
from .rules import INTERNAL_ERROR, SYNTAX_ERROR, RuleSpec

if TYPE_CHECKING:
    from .coverage import CoverageRecorder


@dataclass(frozen=True)
class AnalysisSettings:
    """What the analysis of one file depends on besides its text.

    dialect: "numpy", "torch", "torch-legacy", "numpy-1", or None to follow
    each array's own library. shape_hints: name -> shape text (e.g.
    ``{"x": "B,T,C"}``) from config, used when a name's shape is not known.
    project_root: the directory of the config (or where lint runs); imports of
    the user's own files resolve from there too.
    """

    dialect: str | None = None
    shape_hints: tuple[tuple[str, str], ...] = field(default=())
    project_root: str | None = None  # the lint root: absolute imports are also looked up there


DEFAULT_SETTINGS = AnalysisSettings()


def finding_for(spec: RuleSpec, path: str, span: Span, message: str, **extra) -> Finding:
    return Finding(path=path, span=span, code=spec.code, name=spec.name,
                   severity=spec.severity, message=message, **extra)


def analyze_source(source: str, path: str, settings: AnalysisSettings = DEFAULT_SETTINGS,
                   coverage: CoverageRecorder | None = None,
                   imported: dict[str, str] | None = None) -> list[Finding]:
    """All findings for one file's text. Syntax errors are SC001, analyzer bugs SC099.

    A ``coverage`` recorder, when given, is filled with the file's array-valued
    expressions (analysis/coverage.py); without one the analysis pays nothing for it.
    ``imported``, when given, receives the project files the analysis read through
    imports (path -> content digest): the findings depend on them too.
    """
    with _collector_paused():
        nesting = check_nesting(source)
    refusal = nesting.refusal
    if refusal is not None:
        spec = SYNTAX_ERROR if refusal.syntax else INTERNAL_ERROR
        return [finding_for(spec, path, Span(refusal.line, 1, refusal.line, 1), refusal.message)]
    try:
        with _collector_paused():
            module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return [_syntax_error_finding(source, path, exc.message, max(exc.raw_line, 1), exc.raw_column + 1)]
    except Exception as exc:  # libcst raises a few other errors on odd input
        return [_syntax_error_finding(source, path, f"{type(exc).__name__}: {exc}", 1, 1)]
    from .interpret import analyze_module
    node_positions(module, source, nesting.statement_lines)  # found as asked for, one statement at a time
    recorder = _shape_recorder(module, source, coverage)
    gc.freeze()  # the tree stays out of the collections the walk's own garbage sets off
    try:
        findings = analyze_module(module, source, path, settings, recorder, imported)
        if recorder is not coverage and coverage is not None:
            recorder.merge_into(coverage)  # a recorder of our own watched the reveal_shape calls
        if getattr(recorder, "watched", None):
            from .reveal import reveal_findings
            from .rules.reveal_shape import REVEAL_SHAPE

            findings += reveal_findings(recorder, path, REVEAL_SHAPE)
        return sorted(findings, key=Finding.sort_key)
    except RecursionError:
        return [finding_for(INTERNAL_ERROR, path, Span(1, 1, 1, 1),
                            "internal error: the file nests too deeply for the analyzer")]
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = (f"internal error: {type(exc).__name__}: {exc} "
                   f"(at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})")
        return [finding_for(INTERNAL_ERROR, path, Span(1, 1, 1, 1), message.splitlines()[0])]
    finally:
        gc.unfreeze()


def _shape_recorder(module: cst.Module, source: str,
                    coverage: CoverageRecorder | None) -> CoverageRecorder | None:
    """The recorder the walk reports values to: the caller's, or one that also watches the
    file's ``reveal_shape(x)`` calls (analysis/reveal.py); None when nobody listens."""
    if "reveal_shape" not in source:  # most files: nothing to watch, nothing imported
        return coverage
    from .reveal import ShapeRecorder, reveal_arguments

    watched = reveal_arguments(module)
    if not watched:
        return coverage
    if isinstance(coverage, ShapeRecorder):
        coverage.watched = watched
        return coverage
    return ShapeRecorder(watched)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a parser builds its tree.

    Both trees (Python's ast and libcst's) are acyclic: the collector finds
    nothing to free in them, yet the hundreds of thousands of new nodes of a
    big file set it off again and again, each time walking the young tree.
    That is about a third of libcst's parse time and of ast.parse's. The
    libcst tree is then frozen (``gc.freeze``) while the interpreter walks
    it, or the walk's own short-lived garbage would make the collector
    traverse the whole tree, now old, over and over.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _syntax_error_finding(source: str, path: str, cst_message: str, cst_line: int, cst_column: int) -> Finding:
    """SC001 at CPython's position and with CPython's message.

    libcst reports most errors at column 1 of some later line; CPython's own
    parser (parsing only, nothing runs) knows the exact place and says what
    is wrong ("'(' was never closed"). libcst's text is kept when CPython
    accepts the file (syntax newer or older than the installed libcst knows).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(source, filename=path)
    except SyntaxError as exc:
        line = exc.lineno or 1
        column = exc.offset if exc.offset and exc.offset > 0 else 1
        end_line = exc.end_lineno if exc.end_lineno and exc.end_lineno >= line else line
        end_column = exc.end_offset if exc.end_offset and exc.end_offset > 0 else column + 1
        if (end_line, end_column) <= (line, column):
            end_line, end_column = line, column + 1
        message = f"cannot parse: {exc.msg}"
        return finding_for(SYNTAX_ERROR, path, Span(line, column, end_line, end_column), message)
    except (RecursionError, MemoryError, ValueError):
        message = f"cannot parse: {cst_message}".splitlines()[0]
    else:
        message = f"cannot parse with libcst {_libcst_version()} (Python accepts it): {cst_message}".splitlines()[0]
    return finding_for(SYNTAX_ERROR, path, Span(cst_line, cst_column, cst_line, cst_column + 1), message)


def _libcst_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("libcst")
    except PackageNotFoundError:
        return "(unknown version)"
