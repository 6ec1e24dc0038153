"""One open document's analysis, as ``lint`` would do it, plus the beliefs the editor shows.

Nothing here knows the Language Server Protocol: positions are 0-based lines
and code-point columns (lsp.py converts them to what the client counts in),
and a result is plain data the tests can read directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis.findings import Finding, Fix, Span
from ..lint.config import ConfigError, ConfigResolver, LintConfig, Overrides

# (line, column), both 0-based, the column in code points.
Position = tuple[int, int]


@dataclass
class Analysis:
    """What one version of a document gave: its findings (after selection and suppressions),
    and the recorder of what the walk believed, for hovers and inlay hints."""

    path: str
    text: str
    version: int | None
    findings: list[Finding] = field(default_factory=list)
    recorder: Any = None  # analysis.reveal.ShapeRecorder, None when the file did not parse
    error: str | None = None  # a configuration problem: the findings are the defaults'

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")


def span_range(span: Span) -> tuple[Position, Position]:
    """A 1-based finding span as 0-based (start, end) positions."""
    return (span.line - 1, span.column - 1), (max(span.end_line, span.line) - 1, max(span.end_column - 1, 0))


class DocumentAnalyzer:
    """Analyzes documents with the configuration ``lint`` would use for their paths.

    The configuration is looked up again for every analysis, so an edit of
    pyproject.toml counts from the next keystroke on.
    """

    def __init__(self, config: Path | None = None, use_cache: bool = True) -> None:
        self.config = config
        self.use_cache = use_cache

    def config_for(self, path: str) -> LintConfig:
        """Raises ConfigError (or OSError) when the configuration is unusable."""
        from ..lint.runner import known_codes

        return ConfigResolver(known_codes(), Overrides(), self.config).for_file(Path(path))

    def analyze(self, path: str, text: str, version: int | None = None) -> Analysis:
        """Never raises: a bad configuration analyzes with the defaults and says why."""
        from ..analysis.reveal import ShapeRecorder
        from ..lint.runner import analyze_bytes, finish, kind_of
        from ..lint.suppress import unused_suppression_findings

        analysis = Analysis(path, text, version)
        try:
            config = self.config_for(path)
        except (ConfigError, OSError) as exc:
            analysis.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            config = LintConfig(root=Path.cwd())
        data = text.encode("utf-8")
        kind = kind_of(path)
        recorder = ShapeRecorder(bindings=True, expressions=True)
        imported: dict[str, str] = {}
        findings, analyzed_text, program = analyze_bytes(path, data, kind, config, recorder, imported)
        findings += unused_suppression_findings(findings, analyzed_text, path, program)
        if self.use_cache and analysis.error is None:
            self._store(data, kind, config, findings, imported)
        analysis.findings = finish(path, findings, analyzed_text, program, config).findings
        analysis.recorder = recorder if recorder.interpreter is not None and program is None else None
        return analysis

    def cached(self, path: str, text: str) -> list[Finding] | None:
        """The findings ``lint`` cached for this very text, if any (shown before the analysis ends)."""
        from ..lint.cache import Cache, cache_key
        from ..lint.runner import _finish_cached, kind_of

        if not self.use_cache:
            return None
        try:
            config = self.config_for(path)
            data = text.encode("utf-8")
            kind = kind_of(path)
            cache = Cache(config.effective_cache_dir())
            found = cache.get(cache_key(data, kind, config.fingerprint()), path)
            return None if found is None else _finish_cached(path, data, kind, found, config).findings
        except Exception:  # the cache is an optimization: any trouble means "not cached"
            return None

    def _store(self, data: bytes, kind: str, config, findings: list[Finding], imported: dict) -> None:
        from ..lint.cache import Cache, cache_key

        try:
            Cache(config.effective_cache_dir()).put(cache_key(data, kind, config.fingerprint()), findings,
                                                    imported)
        except Exception:
            pass  # a cache that cannot be written is no reason to lose the diagnostics


def hover_text(analysis: Analysis, position: Position) -> tuple[str, tuple[Position, Position]] | None:
    """Markdown for the innermost array expression at ``position``, and its range."""
    from ..analysis.shape_listing import expression_at

    if analysis.recorder is None:
        return None
    hover = expression_at(analysis.recorder, position[0] + 1, position[1] + 1)
    if hover is None:
        return None
    body = f"`{hover.text}`: {hover.head}"
    if hover.details:
        body += "\n\n" + "\n".join(f"- {detail}" for detail in hover.details)
    return body, span_range(hover.span)


@dataclass(frozen=True)
class Hint:
    position: Position  # just after the bound name
    label: str  # ": (B, T, 4*C)"
    tooltip: str  # the whole belief


def inlay_hints(analysis: Analysis, first_line: int = 0, last_line: int | None = None) -> list[Hint]:
    """One hint after each name an assignment binds to an array whose shape (or trailing dims) is known."""
    from ..analysis.shape_listing import bound_names

    if analysis.recorder is None:
        return []
    hints = []
    for bound in bound_names(analysis.recorder):
        if bound.from_caller or bound.shape is None and not bound.head.startswith("(..."):
            continue  # nothing of the shape is known here (a caller's shape is for the hover)
        line = bound.span.end_line - 1
        if line < first_line or last_line is not None and line > last_line:
            continue
        shape = bound.head.split(")", 1)[0] + ")" if bound.shape is None else _shape_of(bound)
        hints.append(Hint((line, bound.span.end_column - 1), f": {shape}",
                          "\n".join([f"{bound.name}: {bound.head}", *bound.details])))
    return hints


def _shape_of(bound) -> str:
    dims = ["?" if d is None else str(d) for d in bound.shape]
    return f"({dims[0]},)" if len(dims) == 1 else "(" + ", ".join(dims) + ")"


def fix_edit(analysis: Analysis, fix: Fix) -> tuple[Position, Position, str] | None:
    """The fix as one text edit on the analyzed text: (start, end, new text); None when it no longer applies."""
    from ..lint.fixes.transforms import apply_to_source

    try:
        fixed, applied = apply_to_source(analysis.text, [fix])
    except Exception:
        return None
    if not applied or fixed == analysis.text:
        return None
    old, new = analysis.text, fixed
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return _position(old, start), _position(old, end_old), new[start:end_new]


def _position(text: str, offset: int) -> Position:
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


__all__ = ["Analysis", "DocumentAnalyzer", "Hint", "fix_edit", "hover_text", "inlay_hints", "span_range"]
