"""Finds suppression comments and splits findings into reported and suppressed."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field

from ..analysis.findings import Finding

# "# shapecheck: ignore", "# shapecheck: ignore[SC101, SC2]", "# shapecheck: ignore-file[...]"
_SHAPECHECK = re.compile(
    r"#\s*shapecheck\s*:\s*(?P<kind>ignore-file|ignore)\b(?:\s*\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
# "# noqa: SC101, SC102" (a bare "# noqa" is left to the tools it was written for)
_NOQA = re.compile(r"#\s*noqa\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
ALL = None  # a suppression without codes silences every code


@dataclass(frozen=True)
class Suppressions:
    """Per physical line, the codes silenced there (``None`` = all); plus file-wide codes.

    ``spans`` maps each line of a multi-line statement to the statement's
    first and last line, so a comment on any of its lines covers all of them.
    """

    by_line: dict[int, frozenset[str] | None] = field(default_factory=dict)
    file_wide: frozenset[str] | None | bool = False
    statement_of: dict[int, tuple[int, int]] = field(default_factory=dict)

    def covers(self, finding: Finding, line: int | None = None) -> bool:
        if self.file_wide is None or (self.file_wide and _matches(finding.code, self.file_wide)):
            return True
        line = finding.span.line if line is None else line
        first, last = self.statement_of.get(line, (line, line))
        for candidate in range(first, last + 1):
            if candidate in self.by_line:
                codes = self.by_line[candidate]
                if codes is ALL or _matches(finding.code, codes):
                    return True
        return False


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
    comments: list[tuple[int, str]] = []
    try:
        start = None
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments.append((tok.start[0], tok.string))
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
        comments = [(number, line[line.index("#"):]) for number, line in
                    enumerate(source.splitlines(), start=1) if "#" in line]
        statement_of = {}
    for line, text in comments:
        for match in _SHAPECHECK.finditer(text):
            codes = _codes(match.group("codes"))
            if match.group("kind").lower() == "ignore-file":
                if codes is ALL or file_wide is None:
                    file_wide = None
                else:
                    file_wide = (file_wide or frozenset()) | codes
            else:
                by_line[line] = _union(by_line, line, codes)
        for match in _NOQA.finditer(text):
            by_line[line] = _union(by_line, line, _codes(match.group("codes")))
    return Suppressions(by_line, file_wide, statement_of)


def _union(by_line: dict[int, frozenset[str] | None], line: int,
           codes: frozenset[str] | None) -> frozenset[str] | None:
    if (line in by_line and by_line[line] is ALL) or codes is ALL:
        return ALL
    return (by_line.get(line) or frozenset()) | codes


# The meta findings are about the file itself, and a file that cannot be read has no comments.
UNSUPPRESSIBLE = frozenset({"SC002"})


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
