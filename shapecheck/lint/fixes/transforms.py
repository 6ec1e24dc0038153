"""The rewrites behind ``--fix``: libcst transforms that touch one node each and keep all other formatting.

Each finding's ``Fix`` (analysis/findings.py) names a kind and the span of the
node to rewrite; the analysis attached it only where the rewrite is certain
(analysis/interpret/fixes.py). A transform checks the node's shape once more
and leaves anything else alone, so a fix applied twice changes nothing the
second time.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
from libcst.metadata import PositionProvider

from ...analysis.findings import Fix, Span

_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


def _span(position) -> Span:
    return Span(position.start.line, position.start.column + 1, position.end.line, position.end.column + 1)


class FixTransformer(cst.CSTTransformer):
    """Applies every fix whose span a node of the right kind has; ``applied`` counts them."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, fixes: Iterable[Fix]) -> None:
        super().__init__()
        self.by_span: dict[tuple[str, Span], Fix] = {(f.kind, f.span): f for f in fixes}
        self.applied: list[Fix] = []

    def _fix_for(self, kind: str, node: cst.CSTNode) -> Fix | None:
        try:
            span = _span(self.get_metadata(PositionProvider, node))
        except KeyError:
            return None
        return self.by_span.get((kind, span))

    # ---------------------------------------------------------------- keepdims=True

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        fix = self._fix_for("keepdims", original)
        if fix is None or any(a.keyword is not None and a.keyword.value in ("keepdims", "keepdim")
                              for a in updated.args) or any(a.star for a in updated.args):
            return updated
        self.applied.append(fix)
        return updated.with_changes(args=_appended(updated, fix.option))

    # ---------------------------------------------------------------- .copy() / .clone()

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        if len(original.targets) != 1:
            return updated
        fix = self._fix_for("copy", original.targets[0].target)
        if fix is None or _copied(updated.value, fix.option):
            return updated
        self.applied.append(fix)
        return updated.with_changes(value=_copy_of(updated.value, fix.option))

    def leave_AnnAssign(self, original: cst.AnnAssign, updated: cst.AnnAssign) -> cst.AnnAssign:
        fix = self._fix_for("copy", original.target)
        if fix is None or updated.value is None or _copied(updated.value, fix.option):
            return updated
        self.applied.append(fix)
        return updated.with_changes(value=_copy_of(updated.value, fix.option))

    # ---------------------------------------------------------------- .view -> .reshape

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        fix = self._fix_for("reshape", original.attr)
        if fix is None or updated.attr.value not in ("view", "view_as"):
            return updated
        self.applied.append(fix)
        return updated.with_changes(attr=updated.attr.with_changes(value=fix.option))

    # ---------------------------------------------------------------- a[i][:, j] -> a[i, j]

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        fix = self._fix_for("index", original)
        inner = updated.value
        if fix is None or not isinstance(inner, cst.Subscript) or len(inner.slice) != 1 or \
                len(updated.slice) != 2 or not isinstance(inner.slice[0].slice, cst.Index) or \
                not isinstance(updated.slice[0].slice, cst.Slice):
            return updated
        rows = inner.slice[0].slice
        second = updated.slice[1].slice
        if fix.option:  # a[rows][:, cols] -> a[np.ix_(rows, cols)]
            if not isinstance(second, cst.Index):
                return updated
            ix = cst.Call(func=cst.Attribute(cst.Name(fix.option), cst.Name("ix_")),
                          args=[cst.Arg(rows.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                cst.Arg(second.value)])
            elements = [cst.SubscriptElement(cst.Index(ix))]
        else:  # a[rows][:, j] -> a[rows, j]
            elements = [inner.slice[0].with_changes(comma=updated.slice[0].comma), updated.slice[1]]
        self.applied.append(fix)
        return inner.with_changes(slice=elements, rbracket=updated.rbracket)


def _appended(call: cst.Call, keyword: str) -> list[cst.Arg]:
    """The call's arguments and ``keyword=True`` after them, in the call's own layout."""
    new = cst.Arg(cst.Name("True"), keyword=cst.Name(keyword),
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                        whitespace_after=cst.SimpleWhitespace("")))
    args = list(call.args)
    if not args:
        return [new]
    last = args[-1]
    if isinstance(last.comma, cst.Comma):  # a trailing comma: the new argument goes on a line like the last
        between = args[-2].comma if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) else \
            cst.Comma(whitespace_after=call.whitespace_before_args)
        args[-1] = last.with_changes(comma=between)
        return args + [new.with_changes(comma=last.comma)]
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return args + [new]


def _copied(value: cst.BaseExpression, method: str) -> bool:
    return isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute) and \
        value.func.attr.value == method


def _copy_of(value: cst.BaseExpression, method: str) -> cst.Call:
    """``value.method()``, parenthesizing a value that is no atom (``(a if c else b).copy()``)."""
    if not isinstance(value, _ATOMS) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value, cst.Name(method)))


def apply_to_source(source: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """The source with the fixes applied, and the fixes that were (the others did not match)."""
    fixes = list(fixes)
    if not fixes:
        return source, []
    module = cst.parse_module(source)
    transformer = FixTransformer(fixes)
    fixed = cst.MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
    return fixed.code, transformer.applied


__all__ = ["FixTransformer", "apply_to_source"]
