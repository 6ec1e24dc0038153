"""Finds suppression comments and splits findings into reported and suppressed."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..analysis.findings import Finding, Span

if TYPE_CHECKING:
    from .notebooks import NotebookProgram

# "# shapecheck: ignore", "# shapecheck: ignore[SC101, SC2]", "# shapecheck: ignore-file[...]"
_SHAPECHECK = re.compile(
    r"#\s*shapecheck\s*:\s*(?P<kind>ignore-file|ignore)\b(?:\s*\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
# "# noqa: SC101, SC102" (a bare "# noqa" is left to the tools it was written for)
_NOQA = re.compile(r"#\s*noqa\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
ALL = None  # a suppression without codes silences every code


@dataclass(frozen=True)
class Directive:
    """One suppression as written: where it is (1-based line and column), its text, and its codes (None = all)."""

    line: int
    column: int
    text: str
    codes: frozenset[str] | None
    file_wide: bool


@dataclass(frozen=True)
class Suppressions:
    """Per physical line, the codes silenced there (``None`` = all); plus file-wide codes.

    ``spans`` maps each line of a multi-line statement to the statement's
    first and last line, so a comment on any of its lines covers all of them.
    """

    by_line: dict[int, frozenset[str] | None] = field(default_factory=dict)
    file_wide: frozenset[str] | None | bool = False
    statement_of: dict[int, tuple[int, int]] = field(default_factory=dict)
    directives: tuple[Directive, ...] = ()

    def covers(self, finding: Finding, line: int | None = None) -> bool:
        if finding.code == UNUSED_SUPPRESSION_CODE:
            # A bare ignore that silences nothing must not silence its own report.
            return any(d.codes is not ALL and _matches(finding.code, d.codes)
                       and (d.file_wide or d.line in self.statement_lines(finding.span.line if line is None else line))
                       for d in self.directives)
        if self.file_wide is None or (self.file_wide and _matches(finding.code, self.file_wide)):
            return True
        line = finding.span.line if line is None else line
        for candidate in self.statement_lines(line):
            if candidate in self.by_line:
                codes = self.by_line[candidate]
                if codes is ALL or _matches(finding.code, codes):
                    return True
        return False

    def statement_lines(self, line: int) -> range:
        """The lines of the statement that ``line`` belongs to: a comment on any of them covers it."""
        first, last = self.statement_of.get(line, (line, line))
        return range(first, last + 1)


def _matches(code: str, codes: frozenset[str]) -> bool:
    return any(code.startswith(prefix) for prefix in codes)


def _codes(text: str | None) -> frozenset[str] | None:
    if text is None:
        return ALL
    codes = frozenset(part.strip().upper() for part in re.split(r"[\s,]+", text) if part.strip())
    return codes or ALL


def might_suppress(source: str) -> bool:
    """Cheap test that lets files without any suppression comment skip tokenizing."""
    lowered = source.lower()
    return "shapecheck" in lowered or "noqa" in lowered


def parse_suppressions(source: str) -> Suppressions:
    """Suppressions from real comments (tokenize), or from every line when the file does not tokenize."""
    by_line: dict[int, frozenset[str] | None] = {}
    file_wide: frozenset[str] | None | bool = False
    statement_of: dict[int, tuple[int, int]] = {}
    comments: list[tuple[int, int, str]] = []  # (line, 0-based column, text)
    directives: list[Directive] = []
    try:
        start = None
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments.append((tok.start[0], tok.start[1], tok.string))
            elif tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if start is not None and tok.end[0] > start:
                    for line in range(start, tok.end[0] + 1):
                        statement_of[line] = (start, tok.end[0])
                start = None
            elif start is None and tok.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                                                     tokenize.ENCODING):
                start = tok.start[0]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # A file that does not tokenize (SC001) still honours comments, line by line.
        comments = [(number, line.index("#"), line[line.index("#"):]) for number, line in
                    enumerate(source.splitlines(), start=1) if "#" in line]
        statement_of = {}
    for line, column, text in comments:
        for match in _SHAPECHECK.finditer(text):
            codes = _codes(match.group("codes"))
            is_file = match.group("kind").lower() == "ignore-file"
            directives.append(Directive(line, column + match.start() + 1, match.group(), codes, is_file))
            if is_file:
                if codes is ALL or file_wide is None:
                    file_wide = None
                else:
                    file_wide = (file_wide or frozenset()) | codes
            else:
                by_line[line] = _union(by_line, line, codes)
        for match in _NOQA.finditer(text):
            codes = _codes(match.group("codes"))
            directives.append(Directive(line, column + match.start() + 1, match.group().rstrip(), codes, False))
            by_line[line] = _union(by_line, line, codes)
    return Suppressions(by_line, file_wide, statement_of, tuple(directives))


def _union(by_line: dict[int, frozenset[str] | None], line: int,
           codes: frozenset[str] | None) -> frozenset[str] | None:
    if (line in by_line and by_line[line] is ALL) or codes is ALL:
        return ALL
    return (by_line.get(line) or frozenset()) | codes


# The meta findings are about the file itself, and a file that cannot be read has no comments.
UNSUPPRESSIBLE = frozenset({"SC002"})
UNUSED_SUPPRESSION_CODE = "SC003"
# Codes of other tools in a shared "# noqa: E501, SC101" are theirs to judge.
OUR_PREFIX = "SC"
# When the analysis did not run to the end, a suppression may be needed by findings it never reached.
_INCOMPLETE = frozenset({"SC001", "SC002", "SC099"})


def unused_suppressions(findings: list[Finding], source: str, path: str,
                        line_of: Callable[[Finding], int] | None = None) -> list[tuple[Directive, str]]:
    """Each suppression (or code in one) that covers none of ``findings``, with the message that says so.

    ``findings`` are the raw findings, before selection: a suppression of a
    code that the configuration turns off but the analyzer still finds is in
    use, and stays quiet. Directives are returned with lines of ``source``.
    """
    if not might_suppress(source) or any(f.code in _INCOMPLETE for f in findings):
        return []
    suppressions = parse_suppressions(source)
    placed = [(f.code, line_of(f) if line_of is not None else f.span.line) for f in findings
              if f.code not in UNSUPPRESSIBLE and f.code != UNUSED_SUPPRESSION_CODE]
    out = []
    for directive in suppressions.directives:
        in_reach = [code for code, line in placed
                    if directive.file_wide or directive.line in suppressions.statement_lines(line)]
        where = "in this file" if directive.file_wide else "on this statement"
        if directive.codes is ALL:
            if not in_reach:
                out.append((directive, f"unused suppression `{directive.text}`: nothing to suppress {where}"))
            continue
        # "noqa: SC003" would have to suppress its own report: it is left alone.
        ours = sorted(code for code in directive.codes
                      if code.startswith(OUR_PREFIX) and code != UNUSED_SUPPRESSION_CODE)
        unused = [code for code in ours if not any(found.startswith(code) for found in in_reach)]
        if unused == ours and ours:
            out.append((directive, f"unused suppression `{directive.text}`: no {', '.join(unused)} "
                                   f"finding {where}"))
        elif unused:
            out.append((directive, f"unused code{'s' if len(unused) > 1 else ''} {', '.join(unused)} in "
                                   f"`{directive.text}`: no such finding {where}"))
    return out


def split_suppressed(findings: list[Finding], source: str,
                     line_of: Callable[[Finding], int] | None = None) -> tuple[list[Finding], list[Finding]]:
    """(reported, suppressed). ``line_of`` maps a finding to its line in ``source`` (notebooks)."""
    if not findings or not might_suppress(source):
        return list(findings), []
    suppressions = parse_suppressions(source)
    reported, suppressed = [], []
    for finding in findings:
        line = line_of(finding) if line_of is not None else None
        if finding.code not in UNSUPPRESSIBLE and suppressions.covers(finding, line):
            suppressed.append(finding)
        else:
            reported.append(finding)
    return reported, suppressed


def unused_suppression_findings(findings: list[Finding], source: str, path: str,
                                program: "NotebookProgram | None" = None) -> list[Finding]:
    """SC003 findings for ``source`` (a notebook's joined program when ``program`` is given)."""
    from ..analysis.rules.unused_suppression import UNUSED_SUPPRESSION

    line_of = None
    if program is not None:
        start_of = {cell.number: start for cell, start in zip(program.cells, program.starts)}

        def line_of(finding: Finding) -> int:
            return start_of.get(finding.cell, 1) + finding.span.line - 1 if finding.cell else finding.span.line

    out = []
    for directive, message in unused_suppressions(findings, source, path, line_of):
        span = Span(directive.line, directive.column, directive.line, directive.column + len(directive.text))
        finding = Finding(path=path, span=span, code=UNUSED_SUPPRESSION.code, name=UNUSED_SUPPRESSION.name,
                          severity=UNUSED_SUPPRESSION.severity, message=message)
        out.append(program.map_finding(finding) if program is not None else finding)
    return out
