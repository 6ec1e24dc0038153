"""Node positions of a libcst module, the same as libcst's PositionProvider gives, at a fraction of its cost.

``MetadataWrapper(module).resolve(PositionProvider)`` first walks the whole
tree for batchable providers (even when none is asked for), then generates
the code while building a CodeRange of two CodePositions for every node and
splitting every token with a regular expression to keep line and column.
On a 10,000-line file that costs more than parsing it. Here the code
generation only notes token indices per node; a node's line and column are
worked out when someone asks, from the generated text, by bisection. And
since only findings need positions, the analyzer's front door hands over the
line of each top-level statement from Python's own parse: then only the
statements holding the nodes asked about are generated.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, fields
from itertools import accumulate

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst._position import CodePosition, CodeRange

_NEWLINE = re.compile(r"\r\n?|\n")


@dataclass
class _IndexingCodegenState(CodegenState):
    """Code generation that records, per node, the token indices where it starts and ends (as PositionProvider's state).

    Keys are ``id(node)``: libcst nodes hash by identity through a Python
    method, and the module keeps every node alive while its positions are used.
    """

    spans: dict[int, tuple[int, int]] = field(default_factory=dict)
    _starts: list[int] = field(default_factory=list)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._starts.pop()
        key = id(node)
        if key not in self.spans:  # a syntactic position recorded inside wins, as in libcst
            self.spans[key] = (start, len(self.tokens))

    def pop_trailing_newline(self) -> None:
        pass  # libcst's positions were counted with that newline in place; the text itself is not needed

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> _SyntacticPosition:
        return _SyntacticPosition(self, node, start_node, end_node)


class _SyntacticPosition:
    """libcst's record_syntactic_position as a plain context manager (called for most nodes, so kept cheap)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: _IndexingCodegenState, node: cst.CSTNode, start_node: cst.CSTNode | None,
                 end_node: cst.CSTNode | None) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = len(self.state.tokens)

    def __exit__(self, *exc_info: object) -> None:
        spans = self.state.spans
        start = spans[id(self.start_node)][0] if self.start_node is not None else self.start
        end = spans[id(self.end_node)][1] if self.end_node is not None else len(self.state.tokens)
        spans[id(self.node)] = (start, end)


class NodePositions:
    """A read-only mapping node -> CodeRange (1-based lines, 0-based columns), like PositionProvider's result.

    Given the source and the line where each top-level statement starts (from
    Python's own parser), positions are found one top-level statement at a
    time: the statement holding the node is generated alone and placed in the
    source by that line, after checking that its text is the source's text
    there. A finding needs a handful of positions, so most of a big file is
    never generated. Without those, or when a check fails, the whole module
    is generated at once.
    """

    def __init__(self, module: cst.Module, source: str | None = None,
                 statement_lines: list[int] | None = None) -> None:
        self.module = module
        self._spans: dict[int, tuple[int, int]] = {}  # id(node) -> start and end offsets in the text
        self._token_spans: dict[int, tuple[int, int]] | None = None  # the whole module's, in token indices
        self._anchors = _anchor_lines(module, statement_lines) if source is not None and statement_lines else None
        self._owner: dict[int, int] | None = None  # id(node) -> index of its top-level statement
        self._generated: set[int] = set()
        if self._anchors is None:
            self._generate_all()
        else:
            # The text positions are counted in: the source as libcst generates it, with the
            # trailing newline the module leaves out kept (as PositionProvider counts).
            self._text = source if module.has_trailing_newline else source + module.default_newline
            self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(self._text))]

    def _generate_all(self) -> None:
        state = _IndexingCodegenState(default_indent=self.module.default_indent,
                                      default_newline=self.module.default_newline)
        self.module._codegen(state)
        self._token_spans = state.spans
        self._offsets = [0, *accumulate(map(len, state.tokens))]
        self._text = "".join(state.tokens)
        self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(self._text))]
        self._anchors = None

    def _generate_statement(self, index: int) -> None:
        """The positions of top-level statement ``index``, or a switch to the whole module when it is not where expected."""
        self._generated.add(index)
        statement = self.module.body[index]
        state = _IndexingCodegenState(default_indent=self.module.default_indent,
                                      default_newline=self.module.default_newline)
        statement._codegen(state)
        offsets = [0, *accumulate(map(len, state.tokens))]
        text = "".join(state.tokens)
        anchor = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else statement
        anchor_start = offsets[state.spans[id(anchor)][0]]
        # The anchor's line starts after the last line break before it ("\r\n" ends in "\n").
        anchor_line_start = max(text.rfind("\n", 0, anchor_start), text.rfind("\r", 0, anchor_start)) + 1
        line = self._anchors[index]
        if not 1 <= line <= len(self._line_starts):
            self._generate_all()
            return
        base = self._line_starts[line - 1] - anchor_line_start
        if base < 0 or not self._text.startswith(text, base):
            self._generate_all()
            return
        owner, spans = self._owner, self._spans
        for key, (start, end) in state.spans.items():
            if owner.get(key, index) == index:  # a node shared with an earlier statement keeps its first place
                spans[key] = (base + offsets[start], base + offsets[end])

    def _offsets_of(self, node: cst.CSTNode) -> tuple[int, int] | None:
        key = id(node)
        span = self._spans.get(key)
        if span is None and self._anchors is not None:
            if self._owner is None:
                self._owner = _statement_owners(self.module)
            index = self._owner.get(key)
            if index is not None and index not in self._generated:
                self._generate_statement(index)
                span = self._spans.get(key)
            if span is None and self._anchors is not None:
                self._generate_all()
        if span is None and self._token_spans is not None:
            tokens = self._token_spans.get(key)
            if tokens is not None:
                span = (self._offsets[tokens[0]], self._offsets[tokens[1]])
        return span

    def _position(self, offset: int) -> CodePosition:
        line = bisect.bisect_right(self._line_starts, offset)
        return CodePosition(line, offset - self._line_starts[line - 1])

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        span = self._offsets_of(node)
        if span is None:
            raise KeyError(node)  # a node not in the module, as with libcst
        return CodeRange(self._position(span[0]), self._position(span[1]))

    def __contains__(self, node: object) -> bool:
        return self._offsets_of(node) is not None  # type: ignore[arg-type]

    def get(self, node: cst.CSTNode, default: CodeRange | None = None) -> CodeRange | None:
        return self[node] if node in self else default

    def __len__(self) -> int:
        if self._token_spans is None:
            self._generate_all()
        return len(self._token_spans)


def _anchor_lines(module: cst.Module, statement_lines: list[int]) -> list[int] | None:
    """The line of each top-level libcst statement, from Python's (which splits ``a; b`` in two), or None."""
    lines: list[int] = []
    at = 0
    for statement in module.body:
        if at >= len(statement_lines):
            return None
        lines.append(statement_lines[at])
        at += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return lines if at == len(statement_lines) else None


# Fields holding only whitespace and comments: positions are never asked of them (and if
# one is, the whole module is generated).
_WHITESPACE_FIELDS = frozenset({"leading_lines", "lines_after_decorators", "trailing_whitespace",
                                "header", "footer"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_KINDS: dict[type, int] = {}  # 1: a node, 2: a sequence of nodes, 0: anything else


def _child_fields(cls: type) -> tuple[str, ...]:
    names = tuple(f.name for f in fields(cls)
                  if not f.name.startswith("whitespace") and f.name not in _WHITESPACE_FIELDS)
    _CHILD_FIELDS[cls] = names
    return names


def _kind(cls: type) -> int:
    kind = 1 if issubclass(cls, cst.CSTNode) else 2 if cls in (tuple, list) else 0
    _KINDS[cls] = kind
    return kind


def _statement_owners(module: cst.Module) -> dict[int, int]:
    """id(node) -> the index of the top-level statement holding it, for every node outside whitespace.

    A plain walk over the dataclass fields: several times cheaper than
    generating the code, which also visits every whitespace node.
    """
    owner: dict[int, int] = {}
    child_fields, kinds = _CHILD_FIELDS.get, _KINDS.get
    # Backwards, so that a node shared by two statements belongs to the first.
    for index in range(len(module.body) - 1, -1, -1):
        stack = [module.body[index]]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            owner[id(node)] = index
            cls = node.__class__
            for name in child_fields(cls) or _child_fields(cls):
                value = getattr(node, name)
                kind = kinds(value.__class__)
                if kind is None:
                    kind = _kind(value.__class__)
                if kind == 1:
                    push(value)
                elif kind == 2:
                    extend(value)
    return owner


_last: NodePositions | None = None


def node_positions(module: cst.Module, source: str | None = None,
                   statement_lines: list[int] | None = None) -> NodePositions:
    """Positions of every node of ``module``, computed as they are asked for.

    The shape and the aliasing analyses of one file both ask; the last
    module's positions are kept so that they are computed once (nodes hash
    by identity, so a new tree never sees an old one's positions). The
    analyzer's front door calls this first with the source and the line of
    each top-level statement, so that positions come one statement at a time.
    """
    global _last
    if _last is None or _last.module is not module or source is not None:
        _last = NodePositions(module, source, statement_lines)
    return _last
