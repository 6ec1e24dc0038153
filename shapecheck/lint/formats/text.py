"""The human format: findings grouped by file, each with a code frame that underlines the offending expression."""

from __future__ import annotations

import io
import re
import textwrap
from itertools import groupby

from rich.console import Console
from rich.text import Text

from ...analysis.findings import Finding
from ..runner import LintReport
from . import location
from .message import message_of

# Shapes as the messages print them: (5, 2, 4, 1), (3,), (), [5, 2], torch.Size([5, 2]).
SHAPE_PATTERN = re.compile(r"torch\.Size\(\[[^\]]*\]\)|\((?:\s*[\w?*+-]+\s*,)*\s*(?:[\w?*+-]+\s*)?\)|\[(?:\s*[\w?]+\s*,)*\s*[\w?]+\s*\]")
_SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}
MAX_FRAME_LINES = 4
MAX_FRAME_WIDTH = 120  # longer source lines show a window around the span


def highlight_shapes(message: str) -> Text:
    text = Text(message)
    for match in SHAPE_PATTERN.finditer(message):
        if any(ch.isdigit() or ch.isalpha() or ch == "?" for ch in match.group()) or match.group() == "()":
            text.stylize("bold cyan", match.start(), match.end())
    return text


def code_frame(finding: Finding, source: str | None) -> Text:
    """Up to one line of context, the spanned lines, and carets under the span."""
    frame = Text()
    if not source:
        return frame
    lines = source.split("\n")
    span = finding.span
    first = max(span.line, 1)
    if first > len(lines):
        return frame
    last = min(max(span.end_line, first), len(lines), first + MAX_FRAME_LINES - 1)
    start = max(first - 1, 1)
    gutter = len(str(last))
    # One window for every line of the frame, so the carets stay under their columns.
    offset = max(span.column - 1 - MAX_FRAME_WIDTH // 3, 0)
    for number in range(start, last + 1):
        content = lines[number - 1].replace("\t", " ")
        shown = content[offset:offset + MAX_FRAME_WIDTH]
        frame.append(f" {number:>{gutter}} │ ", style="dim")
        frame.append(("…" if offset and content[:offset].strip() else "") +
                      shown + ("…" if len(content) > offset + MAX_FRAME_WIDTH else "") + "\n")
        if number < first:
            continue
        begin = span.column if number == first else len(content) - len(content.lstrip()) + 1
        end = span.end_column if number == span.end_line else len(content) + 1
        begin = max(begin - offset, 1) + (1 if offset and content[:offset].strip() else 0)
        end = min(max(end - offset + (1 if offset and content[:offset].strip() else 0), begin + 1),
                  begin + MAX_FRAME_WIDTH)
        frame.append(f" {'':>{gutter}} │ ", style="dim")
        frame.append(" " * (begin - 1))
        frame.append("^" * (end - begin), style=_SEVERITY_STYLE[finding.severity.value])
        frame.append("\n")
    return frame


DETAIL_INDENT = "    "


def _finding_block(finding: Finding, source: str | None, suppressed: bool, width: int | None) -> Text:
    """The headline line, the detail lines under it (wrapped to ``width`` when given), then the code frame."""
    message = message_of(finding)
    block = Text()
    block.append(location(finding), style="bold")
    block.append(": ")
    block.append(finding.code, style=_SEVERITY_STYLE[finding.severity.value])
    block.append(f" [{finding.severity.value}] ")
    block.append_text(highlight_shapes(message.headline))
    block.append(f"  ({finding.name})", style="dim")
    if suppressed:
        block.append("  suppressed", style="italic dim")
    if width is not None:
        block = _wrap_text(block, width, DETAIL_INDENT)
    block.append("\n")
    for detail in message.details:
        label, _, rest = detail.partition(": ")
        hang = len(label) + 2 if rest and len(label) <= 12 and " " not in label else 0
        for line in _wrap(detail, width, DETAIL_INDENT, DETAIL_INDENT + " " * hang):
            block.append_text(highlight_shapes(line))
            block.append("\n")
    block.append_text(code_frame(finding, source))
    return block


def _wrap(text: str, width: int | None, first: str, rest: str) -> list[str]:
    if width is None:
        return [first + text]
    return textwrap.wrap(text, width=max(width, 40), initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first]


def _wrap_text(text: Text, width: int, indent: str) -> Text:
    """A styled line wrapped at spaces, continuation lines indented."""
    plain = text.plain
    if len(plain) <= width:
        return text
    out = Text()
    lines = textwrap.wrap(plain, width=max(width, 40), subsequent_indent=indent, break_long_words=False,
                          break_on_hyphens=False)
    position = 0
    for number, line in enumerate(lines):
        body = line[len(indent):] if number else line
        start = plain.index(body, position)
        if number:
            out.append("\n" + indent)
        out.append_text(text[start:start + len(body)])
        position = start + len(body)
    return out


def summary(report: LintReport) -> str:
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in report.findings:
        counts[f.severity.value] += 1
    files = len({f.path for f in report.findings})
    checked = f"{report.files_checked} file{'s' if report.files_checked != 1 else ''} checked"
    suppressed = f", {len(report.suppressed)} suppressed" if report.suppressed else ""
    if not report.findings:
        return f"No problems found ({checked}{suppressed})."
    parts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items() if n]
    total = len(report.findings)
    return (f"Found {total} problem{'s' if total != 1 else ''} ({', '.join(parts)}) in "
            f"{files} file{'s' if files != 1 else ''} ({checked}{suppressed}).")


def render_text(report: LintReport, *, color: bool = False, show_suppressed: bool = False,
                width: int | None = None) -> str:
    """``width``: wrap headlines and details to this many columns (a terminal's); None leaves lines whole."""
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, color_system="standard" if color else None,
                      width=10_000, highlight=False, soft_wrap=True, emoji=False, markup=False)
    entries = [(f, False) for f in report.findings]
    if show_suppressed:
        entries += [(f, True) for f in report.suppressed]
    entries.sort(key=lambda e: e[0].sort_key())
    for path, group in groupby(entries, key=lambda e: e[0].path):
        console.print(Text(path, style="bold underline"))
        for finding, suppressed in group:
            source = report.sources.get((finding.path, finding.cell))
            console.print(_finding_block(finding, source, suppressed, width), end="")
        console.print()
    console.print(Text(summary(report), style="bold"))
    return buffer.getvalue()
