"""Node positions of a libcst module, the same as libcst's PositionProvider gives, at a fraction of its cost.

``MetadataWrapper(module).resolve(PositionProvider)`` first walks the whole
tree for batchable providers (even when none is asked for), then generates
the code while building a CodeRange of two CodePositions for every node and
splitting every token with a regular expression to keep line and column.
On a 10,000-line file that costs more than parsing it. Here the code
generation only notes token indices per node; a node's line and column are
worked out when someone asks, from the generated text, by bisection.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache
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
    """A read-only mapping node -> CodeRange (1-based lines, 0-based columns), like PositionProvider's result."""

    def __init__(self, module: cst.Module) -> None:
        state = _IndexingCodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
        module._codegen(state)
        self._spans = state.spans
        self._offsets = [0, *accumulate(map(len, state.tokens))]
        text = "".join(state.tokens)
        self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]

    def _position(self, token_index: int) -> CodePosition:
        offset = self._offsets[token_index]
        line = bisect.bisect_right(self._line_starts, offset)
        return CodePosition(line, offset - self._line_starts[line - 1])

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        start, end = self._spans[id(node)]  # KeyError for a node not in the module, as with libcst
        return CodeRange(self._position(start), self._position(end))

    def __contains__(self, node: object) -> bool:
        return id(node) in self._spans

    def get(self, node: cst.CSTNode, default: CodeRange | None = None) -> CodeRange | None:
        return self[node] if id(node) in self._spans else default

    def __len__(self) -> int:
        return len(self._spans)


@lru_cache(maxsize=1)
def node_positions(module: cst.Module) -> NodePositions:
    """Positions of every node of ``module``, computed in one code generation pass.

    The shape and the aliasing analyses of one file both ask; the last
    module's positions are kept so that they are computed once (nodes hash
    by identity, so a new tree never sees an old one's positions).
    """
    return NodePositions(module)
