"""The analyzer's front door: source text in, findings out, never an exception."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

import libcst as cst

from .findings import Finding, Span
from .rules import INTERNAL_ERROR, SYNTAX_ERROR, RuleSpec


@dataclass(frozen=True)
class AnalysisSettings:
    """What the analysis of one file depends on besides its text.

    dialect: "numpy", "torch", "torch-legacy", "numpy-1", or None to follow
    each array's own library. shape_hints: name -> shape text (e.g.
    ``{"x": "B,T,C"}``) from config, used when a name's shape is not known.
    """

    dialect: str | None = None
    shape_hints: tuple[tuple[str, str], ...] = field(default=())


DEFAULT_SETTINGS = AnalysisSettings()


def finding_for(spec: RuleSpec, path: str, span: Span, message: str, **extra) -> Finding:
    return Finding(path=path, span=span, code=spec.code, name=spec.name,
                   severity=spec.severity, message=message, **extra)


def analyze_source(source: str, path: str, settings: AnalysisSettings = DEFAULT_SETTINGS) -> list[Finding]:
    """All findings for one file's text. Syntax errors are SC001, analyzer bugs SC099."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        line = max(exc.raw_line, 1)
        column = exc.raw_column + 1
        message = f"cannot parse: {exc.message}"
        return [finding_for(SYNTAX_ERROR, path, Span(line, column, line, column + 1), message)]
    except Exception as exc:  # libcst raises a few other errors on odd input
        message = f"cannot parse: {type(exc).__name__}: {exc}".splitlines()[0]
        return [finding_for(SYNTAX_ERROR, path, Span(1, 1, 1, 1), message)]
    try:
        from .interpreter import analyze_module
    except ImportError:  # the interpreter is not built yet in this checkout
        return []
    try:
        return sorted(analyze_module(module, source, path, settings), key=Finding.sort_key)
    except RecursionError:
        return [finding_for(INTERNAL_ERROR, path, Span(1, 1, 1, 1),
                            "internal error: the file nests too deeply for the analyzer")]
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = (f"internal error: {type(exc).__name__}: {exc} "
                   f"(at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})")
        return [finding_for(INTERNAL_ERROR, path, Span(1, 1, 1, 1), message.splitlines()[0])]
