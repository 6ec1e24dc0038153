"""A finding's message as the formatters show it: a short headline, detail lines, and facts for tools.

A finding that carries ``details`` (and ``facts``) is shown as it is. One
that carries a single long message is split here, by the shape its messages
have today: ``HEADLINE (a from line 4, b from line 5); numpy: LIBRARY TEXT``,
``HEADLINE: torch raises "..."; ADVICE``, ``...; ADVICE [in f, line 3, ...]``.
A message that matches none of these stays whole as its own headline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ...analysis.findings import Facts, Finding, Operand

HEADLINE_LIMIT = 100
LIBRARIES = ("numpy-1", "numpy", "torch-legacy", "torch")
_LIBRARY_TEXT = re.compile(r"^(?:%s): " % "|".join(re.escape(name) for name in LIBRARIES))
_RAISES = re.compile(r": ((?:%s) raises .*)$" % "|".join(re.escape(name) for name in LIBRARIES))
_CALL_NOTE = re.compile(r"\s*\[(in [^\[\]]*)\]$")
_ORIGIN = re.compile(r"^(?P<expr>.+) from line (?P<line>\d+)(?: of cell (?P<cell>\d+))?$")
_DIM = re.compile(r"\b(?:dim|axis) (-?\d+)\b")
# A shape as messages print it: (5, 2, 4, 1), (3,), (), (B, T, C), (N, ?); not a call's "f()".
_SHAPE = re.compile(r"(?<![\w.)\]])\((\s*[\w?*+-]+\s*(?:,\s*[\w?*+-]+\s*)*,?\s*)?\)")
# Advice reads as an imperative: "take a copy", "make the shapes equal", "write out of place"...
_ADVICE = re.compile(r"^(?:take|pass|copy|make|use|write|reduce|index|wrap|materialize|add|keep|call|"
                     r"clone|delete|remove|move|reshape|transpose|squeeze|unsqueeze|cast|convert|"
                     r"check|give|return|assign|\.\w+)\b")
# Clause boundaries where a long headline may be cut, best first.
_BOUNDARIES = (": ", ", so ", ", which ", " because ")


@dataclass(frozen=True)
class Message:
    headline: str
    details: tuple[str, ...]
    facts: Facts


def message_of(finding: Finding) -> Message:
    """The headline, detail lines and facts of ``finding``: its own fields if it has them, else derived."""
    if finding.details or finding.facts is not None:
        derived = _facts(finding.message, (), None, None) if finding.facts is None else finding.facts
        message = Message(finding.message, tuple(finding.details), derived)
    else:
        message = split_message(finding.message)
    if finding.cell is not None and any(o.line is not None and o.cell is None for o in message.facts.operands):
        # In a notebook a line without a cell counts in the finding's own cell.
        operands = tuple(replace(o, cell=finding.cell) if o.line is not None and o.cell is None else o
                         for o in message.facts.operands)
        message = replace(message, facts=replace(message.facts, operands=operands))
    return message


def split_message(message: str) -> Message:
    """One long message split into a headline of about 100 characters and the details it carried."""
    notes: list[str] = []
    text = message.strip()
    call = _CALL_NOTE.search(text)
    if call:
        notes.append(call.group(1))
        text = text[:call.start()]
    segments = _split_top_level(text, "; ")
    head, rest = segments[0], segments[1:]
    library = library_message = None
    advice = None
    extra: list[str] = []
    for index, segment in enumerate(rest):
        if _LIBRARY_TEXT.match(segment) and library is None:
            library, library_message = segment.split(": ", 1)
            extra.append(segment)
        elif index == len(rest) - 1 and _ADVICE.match(segment):
            advice = segment
        else:
            extra.append(segment)
    raises = _RAISES.search(head)
    if raises and _outside_brackets(head, raises.start()):
        extra.insert(0, raises.group(1))
        head = head[:raises.start()]
    origins, head = _take_origins(head)
    continuation = []
    if len(head) > HEADLINE_LIMIT:
        cut = _cut(head)
        if cut is not None:
            head, tail = head[:cut[0]], head[cut[0] + len(cut[1]):]
            continuation.append(tail if cut[1] == ": " else cut[1].strip(" ,") + " " + tail)
    details = continuation[:]
    if origins:
        details.append("operands: " + origins)
    details += extra + notes
    if advice:
        details.append("help: " + advice)
    operands = tuple(_operand(part) for part in _split_top_level(origins, ", ")) if origins else ()
    facts = _facts(" ".join([head, *continuation]), operands, library, library_message)
    return Message(head.strip(), tuple(details), facts)


def _facts(described: str, operands: tuple[Operand, ...], library: str | None,
           library_message: str | None) -> Facts:
    shapes = tuple(_parse_shape(m.group(1) or "") for m in _SHAPE.finditer(described)
                   if _looks_like_shape(m.group(1) or ""))
    dims = tuple(int(d) for d in _DIM.findall(described))
    return Facts(operands=operands, shapes=shapes, dims=dims, library=library, library_message=library_message)


def _looks_like_shape(inner: str) -> bool:
    parts = [p.strip() for p in inner.split(",") if p.strip()]
    if not parts:
        return inner.strip() == ""
    # A one-item group without a trailing comma is a parenthesis, not a 1-d shape, unless it is a number pair.
    if len(parts) == 1 and not inner.rstrip().endswith(","):
        return False
    return all(re.fullmatch(r"-?\d+|[A-Za-z_]\w*|\?|[\w*+-]+", p) for p in parts)


def _parse_shape(inner: str) -> tuple:
    dims = []
    for part in (p.strip() for p in inner.split(",")):
        if not part:
            continue
        if re.fullmatch(r"-?\d+", part):
            dims.append(int(part))
        else:
            dims.append(None if part == "?" else part)
    return tuple(dims)


def _operand(text: str) -> Operand:
    match = _ORIGIN.match(text.strip())
    if match is None:
        return Operand(expr=text.strip())
    cell = match.group("cell")
    return Operand(expr=match.group("expr"), line=int(match.group("line")), cell=int(cell) if cell else None)


def _take_origins(head: str) -> tuple[str | None, str]:
    """The last parenthesised "x from line N, ..." group of ``head``, and ``head`` without it."""
    for start, end in reversed(_groups(head)):
        inner = head[start + 1:end]
        parts = _split_top_level(inner, ", ")
        if parts and all(_ORIGIN.match(p.strip()) or " from line " not in p and _is_expr(p) for p in parts) \
                and any(_ORIGIN.match(p.strip()) for p in parts):
            rest = (head[:start].rstrip() + head[end + 1:]).strip()
            return inner, rest
    return None, head


def _is_expr(text: str) -> bool:
    """An operand named without a line (it has no known origin): a short piece of code, not prose."""
    return len(text.split()) <= 3


def _groups(text: str) -> list[tuple[int, int]]:
    """(start, end) of every top-level parenthesised group."""
    out, depth, start, quote = [], 0, 0, None
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"" and depth == 0:
            quote = ch
        elif ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append((start, i))
    return out


def _outside_brackets(text: str, position: int) -> bool:
    return all(not (start < position < end) for start, end in _groups(text))


def _split_top_level(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` where it is outside brackets and quotes."""
    parts, depth, quote, last, i = [], 0, None, 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch == '"':
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[last:i])
            i += len(separator)
            last = i
            continue
        i += 1
    parts.append(text[last:])
    return [p for p in parts if p.strip()] or [text]


def _cut(head: str) -> tuple[int, str] | None:
    """Where to end a long headline: the first clause boundary that keeps a shape in it, within the limit."""
    for boundary in _BOUNDARIES:
        position = -1
        for candidate in _all_positions(head, boundary):
            if candidate <= HEADLINE_LIMIT and _outside_brackets(head, candidate) and \
                    any(_looks_like_shape(m.group(1) or "") for m in _SHAPE.finditer(head[:candidate])):
                position = candidate
                break
        if position > 0:
            return position, boundary
    return None


def _all_positions(text: str, needle: str) -> list[int]:
    out, start = [], text.find(needle)
    while start >= 0:
        out.append(start)
        start = text.find(needle, start + 1)
    return out


def full_text(finding: Finding) -> str:
    """Everything the finding says, on one line: for concise output and JSON's "message"."""
    if finding.details:
        return finding.full_message
    return finding.message
