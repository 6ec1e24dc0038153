"""Symbolic facts the code establishes, and the warning they make possible.

``B, T, C = x.shape`` says x has rank 3 and names its dims: x is refined to
``(B, T, C)`` and the three names hold those symbols. ``*batch, d =
x.shape`` names x's last dim. Symbols named this way (and the dims of a
jaxtyping annotation) are *named*: the code gave them different names, so it
says nothing about their being equal.

SC112 named-dims-conflict: an op that the runtime accepts for symbolic
sizes (its verdict depends on them) is run again with every symbol a
distinct size. If it then fails, and making two named symbols equal makes it
pass, the op needs dims the code named differently to be equal:
``(B, T, C) + (B, C)`` needs ``T == B``. Symbols made up for unnamed dims
never produce that warning on their own.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from ...runtime import ops as rt_ops
from ...runtime.dialects import Dialect
from ...runtime.dims import atoms, format_shape, substitute, sym
from ...runtime.verdicts import ShapeError
from ..values import UNKNOWN_VALUE, AbstractArray, IntValue, Value

# Distinct sizes for a rerun: primes past any size code writes as a literal, so that no
# product or sum of them meets a concrete dim by chance.
_GENERIC_SIZES = (1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051, 1061, 1063, 1069,
                  1087, 1091, 1093, 1097, 1103, 1109, 1117, 1123)


@dataclass(frozen=True)
class NamedSymbol:
    """Where the code named a dim: ``B`` unpacked from ``x.shape`` at line 12."""

    name: str
    source: str
    line: int


def _shape_holder(source: cst.CSTNode) -> cst.Name | None:
    """The array whose shape ``source`` reads: ``x.shape`` or ``x.size()``."""
    if isinstance(source, cst.Attribute) and source.attr.value == "shape" and \
            isinstance(source.value, cst.Name):
        return source.value
    if isinstance(source, cst.Call) and not source.args and isinstance(source.func, cst.Attribute) \
            and source.func.attr.value == "size" and isinstance(source.func.value, cst.Name):
        return source.func.value
    return None


def _arg_atoms(value: Any) -> frozenset[str]:
    if isinstance(value, rt_ops.ArrayArg):
        return frozenset().union(*(atoms(d) for d in value.shape))
    if isinstance(value, (tuple, list)):
        return frozenset().union(*(_arg_atoms(v) for v in value))
    return atoms(value) if not isinstance(value, (str, float, bool, slice)) and \
        value is not None and value is not Ellipsis else frozenset()


def _substituted(value: Any, sizes: dict[str, int]) -> Any:
    if isinstance(value, rt_ops.ArrayArg):
        return rt_ops.ArrayArg(tuple(substitute(d, sizes) for d in value.shape), value.dtype)
    if isinstance(value, tuple):
        return tuple(_substituted(v, sizes) for v in value)
    if isinstance(value, list):
        return [_substituted(v, sizes) for v in value]
    if isinstance(value, slice):
        return slice(_substituted(value.start, sizes), _substituted(value.stop, sizes),
                     _substituted(value.step, sizes))
    if isinstance(value, (str, float, bool)) or value is None or value is Ellipsis:
        return value
    return substitute(value, sizes)


class Constraints:
    def name_symbol(self, target: cst.BaseExpression, source: str, line: int,
                    position: int) -> Any:
        """A symbol for a dim the code binds to ``target``; named when the target is a name."""
        if not isinstance(target, cst.Name) or target.value == "_":
            return sym(f"{source}[{position}]")  # not an identifier: an unnamed symbol
        name = target.value
        known = self.named_symbols.get(name)
        if known is not None and (known.source, known.line) != (source, line):
            # The same name for another dim elsewhere: a symbol of its own.
            name = next(f"{target.value}_{i}" for i in itertools.count(2)
                        if f"{target.value}_{i}" not in self.named_symbols or
                        (self.named_symbols[f"{target.value}_{i}"].source,
                         self.named_symbols[f"{target.value}_{i}"].line) == (source, line))
        self.named_symbols[name] = NamedSymbol(target.value, source, line)
        return sym(name)

    def refine_from_unpack(self, elements: list, source: cst.CSTNode) -> list[Value] | None:
        """``B, T, C = x.shape`` with x of unknown rank: x is (B, T, C) from here on."""
        holder = _shape_holder(source)
        if holder is None:
            return None
        current = self.frame.scope.lookup(holder.value)
        if not isinstance(current, AbstractArray) or current.shape is not None:
            return None
        stars = [i for i, el in enumerate(elements) if isinstance(el, cst.StarredElement)]
        if len(stars) > 1:
            return None
        text, line = f"{holder.value}.shape", self.line(source)
        if isinstance(source, cst.Call) and self.library_unsure(current):
            current = replace(current, library="torch")  # x.size(): numpy's size is no method
        if not stars:
            dims = [self.name_symbol(el.value, text, line, i) for i, el in enumerate(elements)]
            if current.tail and len(current.tail) <= len(dims):
                dims[len(dims) - len(current.tail):] = current.tail
            elif current.tail:
                return None  # fewer names than the dims known at the end: the code is wrong
            self.frame.scope.vars[holder.value] = replace(current, shape=tuple(dims), tail=())
            return [IntValue(d) for d in dims]
        star = stars[0]
        after = len(elements) - star - 1
        trailing = [self.name_symbol(el.value, text, line, i - len(elements))
                    for i, el in enumerate(elements[star + 1:], start=star + 1)]
        if current.tail:
            if len(current.tail) >= after:
                trailing = list(current.tail[len(current.tail) - after:]) if after else []
            else:
                trailing[after - len(current.tail):] = current.tail
        tail = tuple(trailing) if len(trailing) >= len(current.tail) else current.tail
        self.frame.scope.vars[holder.value] = replace(current, tail=tail)
        leading = [self.name_symbol(el.value, text, line, i)
                   for i, el in enumerate(elements[:star])]
        return [IntValue(d) for d in leading] + [UNKNOWN_VALUE] + [IntValue(d) for d in trailing]

    def name_annotation_dims(self, value: AbstractArray, what: str, line: int) -> None:
        """A jaxtyping annotation names its dims: they are named symbols too."""
        for dim in tuple(value.shape or ()) + tuple(value.tail):
            for name in atoms(dim):
                self.named_symbols.setdefault(name, NamedSymbol(name, f"the annotation of {what}",
                                                                line))

    def check_named_dims(self, spec: rt_ops.OpSpec, dialect: Dialect, args: tuple,
                         kwargs: dict, node: cst.CSTNode, operands: list, label: str) -> None:
        """SC112: the op holds for these sizes only if two dims named differently are equal."""
        used = _arg_atoms(args) | _arg_atoms(tuple(kwargs.values()))
        named = sorted(n for n in used if n in self.named_symbols)
        if len(named) < 2 or len(used) > len(_GENERIC_SIZES):
            return
        generic = dict(zip(sorted(used), _GENERIC_SIZES))

        def fails(sizes: dict[str, int]) -> bool:
            try:
                spec.rule(*_substituted(args, sizes), dialect=dialect,
                          **{k: _substituted(v, sizes) for k, v in kwargs.items()})
            except ShapeError:
                return True
            except Exception:  # a rule outside what these arguments can reach: no verdict
                return False
            return False

        if not fails(generic) or self.reported_at(node):
            return  # holds for any sizes, or a finding at this op already tells the cause
        for a, b in itertools.combinations(named, 2):
            if self.named_symbols[a].name == self.named_symbols[b].name:
                continue  # B unpacked twice, from two arrays: the code calls them the same
            if not fails(dict(generic, **{b: generic[a]})):
                self.report("SC112", node, self._named_dims_message(label, operands, a, b))
                return

    def _named_dims_message(self, label: str, operands: list, a: str, b: str) -> str:
        shapes = ", ".join(format_shape(v.shape) for v, _ in operands
                           if isinstance(v, AbstractArray) and v.shape is not None)
        first, second = self.named_symbols[a], self.named_symbols[b]
        if (first.source, first.line) == (second.source, second.line):
            where = f"{a} and {b} were unpacked from {first.source} at line {first.line}"
        else:
            where = (f"{a} comes from {first.source} (line {first.line}) and {b} from "
                     f"{second.source} (line {second.line})")
        return (f"{label} of {shapes} needs {b} == {a}, but the code names them differently; "
                f"{where}")


__all__ = ["Constraints", "NamedSymbol"]
