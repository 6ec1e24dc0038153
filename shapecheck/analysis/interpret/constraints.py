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
from ...runtime.dims import UNKNOWN, Sym, atoms, format_shape, substitute, sym
from ...runtime.nn.base import Layer
from ...runtime.nn.sizes import BatchedInput
from ...runtime.verdicts import ShapeError
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    IntValue,
    TupleValue,
    Value,
    shape_root,
)

# Distinct sizes for a rerun: primes past any size code writes as a literal, so that no
# product or sum of them meets a concrete dim by chance.
_GENERIC_SIZES = (1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051, 1061, 1063, 1069,
                  1087, 1091, 1093, 1097, 1103, 1109, 1117, 1123)


@dataclass(frozen=True)
class NamedSymbol:
    """Where the code named a dim: ``B`` unpacked from ``x.shape`` at line 12."""

    name: str
    source: str
    where: Any
    """The node that named it (its line is computed only for a message: positions cost)."""
    scope: int = 0
    """The function whose analysis named it: another function may reuse the name."""
    derived_from: frozenset = frozenset()
    """Named symbols the code computed it from (tokens = seq_len // groups): equal to one of
    them by construction for some sizes, so no SC112 between them."""


def _bare_name(d: Any) -> str | None:
    """The size name ``d`` is when it is one plain name (not ``2*C``, not ``C//8``)."""
    if isinstance(d, Sym) and len(d.terms) == 1:
        (mono, coeff), = d.terms
        if coeff == 1 and len(mono) == 1 and mono[0].isidentifier():
            return mono[0]
    return None


def _pinned(value: Value, pins: dict) -> Value:
    """``value`` with the pinned size names replaced by their widths."""
    if isinstance(value, AbstractArray) and (value.shape is not None or value.tail):
        shape = None if value.shape is None else tuple(substitute(d, pins) for d in value.shape)
        tail = tuple(substitute(d, pins) for d in value.tail)
        if shape == value.shape and tail == value.tail:
            return value
        return replace(value, shape=shape, tail=tail)
    if isinstance(value, IntValue) and isinstance(value.value, Sym):
        pinned = substitute(value.value, pins)
        return value if pinned == value.value else IntValue(pinned)
    if isinstance(value, TupleValue):
        items = tuple(_pinned(item, pins) for item in value.items)
        return value if all(a is b for a, b in zip(items, value.items)) else replace(value, items=items)
    return value


def _shape_holder(source: cst.CSTNode) -> cst.Name | None:
    """The array whose shape ``source`` reads: ``x.shape`` or ``x.size()``."""
    if isinstance(source, cst.Attribute) and source.attr.value == "shape" and \
            isinstance(source.value, cst.Name):
        return source.value
    if isinstance(source, cst.Call) and not source.args and isinstance(source.func, cst.Attribute) \
            and source.func.attr.value == "size" and isinstance(source.func.value, cst.Name):
        return source.func.value
    return None


def _dim_read(source: cst.CSTNode) -> tuple[cst.Name, int] | None:
    """``x.shape[i]`` or ``x.size(i)`` with a literal i: (x, i)."""
    if isinstance(source, cst.Subscript) and len(source.slice) == 1 and \
            isinstance(source.slice[0].slice, cst.Index):
        holder, index = _shape_holder(source.value), source.slice[0].slice.value
    elif isinstance(source, cst.Call) and len(source.args) == 1 and \
            isinstance(source.func, cst.Attribute) and source.func.attr.value == "size" and \
            isinstance(source.func.value, cst.Name) and source.args[0].keyword is None:
        holder, index = source.func.value, source.args[0].value
    else:
        return None
    negative = isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus)
    number = index.expression if negative else index
    if holder is None or not isinstance(number, cst.Integer):
        return None
    return holder, -int(number.value) if negative else int(number.value)


def _arg_atoms(value: Any) -> frozenset[str]:
    if isinstance(value, rt_ops.ArrayArg):
        return frozenset().union(*(atoms(d) for d in value.shape))
    if isinstance(value, (tuple, list)):
        return frozenset().union(*(_arg_atoms(v) for v in value))
    return atoms(value) if not isinstance(value, (str, float, bool, slice)) and \
        value is not None and value is not Ellipsis else frozenset()


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    """The plain names an int expression reads (not attribute names); cheap, no visitor."""
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, cst.BinaryOperation):
        return _names_in(node.left) + _names_in(node.right)
    if isinstance(node, cst.UnaryOperation):
        return _names_in(node.expression)
    if isinstance(node, (cst.Attribute, cst.Subscript)):
        return _names_in(node.value)
    if isinstance(node, cst.Call):
        return _names_in(node.func) + [n for arg in node.args for n in _names_in(arg.value)]
    return []


def _arg_ints(value: Any) -> set[int]:
    """The concrete sizes in call arguments (dims of array operands, int arguments)."""
    if isinstance(value, rt_ops.ArrayArg):
        return {d for d in value.shape if type(d) is int}
    if isinstance(value, (tuple, list)):
        return set().union(*(_arg_ints(v) for v in value)) if value else set()
    return {value} if type(value) is int else set()


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
    def name_symbol(self, target: cst.BaseExpression, source: str, where: Any,
                    position: int, derived_from: frozenset = frozenset()) -> Any:
        """A symbol for a dim the code binds to ``target``; named when the target is a name."""
        if not isinstance(target, cst.Name) or target.value == "_":
            return sym(f"{source}[{position}]")  # not an identifier: an unnamed symbol
        scope = self.active[-1] if self.active else 0

        def free(candidate: str) -> bool:
            known = self.named_symbols.get(candidate)
            # Symbols stay in the function that names them (what it returns from a parameter
            # nothing is known of is unknown), so only the same function's names collide.
            return known is None or known.scope != scope or \
                (known.source == source and known.where is where)

        name = next(candidate for candidate in itertools.chain(
            [target.value], (f"{target.value}_{i}" for i in itertools.count(2)))
            if free(candidate))
        self.named_symbols[name] = NamedSymbol(target.value, source, where, scope, derived_from)
        return sym(name)

    def name_int(self, target: cst.Name, source: cst.CSTNode) -> Any:
        """``head = C // self.n_head``: an int nobody knows, which the code names; it remembers
        the named dims it was computed from."""
        used: set[str] = set()
        for node in _names_in(source):
            value = self.frame.scope.lookup(node.value)
            if isinstance(value, IntValue):
                used |= atoms(value.value)
        return IntValue(self.name_symbol(target, "an int expression", source, 0,
                                         frozenset(used)))

    def name_unpacked_dims(self, elements: list, items: list, source: cst.CSTNode) -> list:
        """``B, T, C = x.shape`` with x of known rank: the dims nobody knew get the names."""
        holder = _shape_holder(source)
        current = self.frame.scope.lookup(holder.value) if holder is not None else None
        if not (isinstance(current, AbstractArray) and current.shape is not None and
                len(current.shape) == len(items) == len(elements)):
            return items
        shape, named = list(current.shape), list(items)
        for i, (element, item) in enumerate(zip(elements, items)):
            if isinstance(item, IntValue) and item.value is UNKNOWN and shape[i] is UNKNOWN \
                    and isinstance(element.value, cst.Name) and element.value.value != "_":
                shape[i] = self.name_symbol(element.value, f"{holder.value}.shape",
                                            source, i)
                named[i] = IntValue(shape[i])
        if named != items or current.assumed_rank:
            # The unpack says the rank, which an indexing had only assumed.
            self.frame.scope.vars[holder.value] = replace(current, shape=tuple(shape),
                                                          assumed_rank=False)
        return named

    def refine_from_unpack(self, elements: list, source: cst.CSTNode) -> list[Value] | None:
        """``B, T, C = x.shape`` with x of unknown rank: x is (B, T, C) from here on."""
        holder = _shape_holder(source)
        if holder is None:
            return None
        current = self.frame.scope.lookup(holder.value)
        if not isinstance(current, AbstractArray) or current.shape is not None and \
                not current.assumed_rank:
            return None
        stars = [i for i, el in enumerate(elements) if isinstance(el, cst.StarredElement)]
        if len(stars) > 1:
            return None
        text = f"{holder.value}.shape"
        if isinstance(source, cst.Call) and self.library_unsure(current):
            current = replace(current, library="torch")  # x.size(): numpy's size is no method
        if not stars:
            dims = [self.name_symbol(el.value, text, source, i) for i, el in enumerate(elements)]
            if current.tail and len(current.tail) <= len(dims):
                dims[len(dims) - len(current.tail):] = current.tail
            elif current.tail:
                return None  # fewer names than the dims known at the end: the code is wrong
            # Still maybe a numpy array or a tensor: the unpack says nothing of the library.
            self.refine_array(current, holder, tuple(dims), library=current.library,
                              settles_library=False)
            return [IntValue(d) for d in dims]
        star = stars[0]
        after = len(elements) - star - 1
        trailing = [self.name_symbol(el.value, text, source, i - len(elements))
                    for i, el in enumerate(elements[star + 1:], start=star + 1)]
        if current.tail:
            if len(current.tail) >= after:
                trailing = list(current.tail[len(current.tail) - after:]) if after else []
            else:
                trailing[after - len(current.tail):] = current.tail
        tail = tuple(trailing) if len(trailing) >= len(current.tail) else current.tail
        self.frame.scope.vars[holder.value] = replace(current, tail=tail)
        leading = [self.name_symbol(el.value, text, source, i)
                   for i, el in enumerate(elements[:star])]
        return [IntValue(d) for d in leading] + [UNKNOWN_VALUE] + [IntValue(d) for d in trailing]

    def refine_from_dim_read(self, target: cst.Name, value: Value,
                             source: cst.CSTNode) -> Value:
        """``d = x.shape[-1]`` / ``n = x.size(1)`` of a dim nobody knows: the name names it, and
        x keeps it (its trailing dims when its rank is unknown)."""
        if not (value is UNKNOWN_VALUE or isinstance(value, IntValue) and value.value is UNKNOWN):
            return value
        read = _dim_read(source)
        if read is None:
            return value
        holder, index = read
        current = self.frame.scope.lookup(holder.value)
        if not isinstance(current, AbstractArray):
            return value
        text = f"{holder.value}.shape"
        if current.shape is not None:
            if not -len(current.shape) <= index < len(current.shape) or \
                    current.shape[index] is not UNKNOWN:
                return value
            dim = self.name_symbol(target, text, source, index)
            shape = list(current.shape)
            shape[index] = dim
            self.frame.scope.vars[holder.value] = replace(current, shape=tuple(shape))
            return IntValue(dim)
        if index >= 0:
            # A leading dim of an array of unknown rank has no place to be kept; it is an int.
            return IntValue(UNKNOWN)
        tail = list(current.tail)
        if len(tail) < -index:
            tail = [UNKNOWN] * (-index - len(tail)) + tail
        if tail[index] is not UNKNOWN:
            return value
        dim = self.name_symbol(target, text, source, index)
        tail[index] = dim
        self.frame.scope.vars[holder.value] = replace(current, tail=tuple(tail))
        return IntValue(dim)

    def split_pieces(self, count: int, source: cst.CSTNode) -> list[Value] | None:
        """``q, k, v = x.split(C, dim=2)`` when x's size along dim is unknown: the code says
        there are ``count`` pieces; all but the last are C long there, the last at most C."""
        if not (isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute)
                and source.func.attr.value in ("split", "chunk") and source.args):
            return None
        with self.suppressed():
            base = self.eval(source.func.value)
            size = self.eval(source.args[0].value)
            dim = next((self.eval(a.value) for a in source.args[1:]
                        if a.keyword is None or a.keyword.value == "dim"), IntValue(0))
        if not (isinstance(base, AbstractArray) and base.shape is not None and
                base.library == "torch" and isinstance(dim, IntValue) and
                isinstance(dim.value, int) and -len(base.shape) <= dim.value < len(base.shape)):
            return None
        if source.func.attr.value == "chunk" or not isinstance(size, IntValue):
            size = IntValue(UNKNOWN)
        axis = dim.value % len(base.shape)
        pieces = []
        for i in range(count):
            shape = list(base.shape)
            shape[axis] = size.value if i < count - 1 else UNKNOWN
            pieces.append(base.derived(tuple(shape), self.origin(source)))
        return pieces

    def assume_batched(self, current: AbstractArray, holder: cst.BaseExpression,
                       expected: BatchedInput, layer: Layer) -> AbstractArray:
        """``self.conv1(x)`` with x of unknown rank: x is the layer's batched input from here on.

        Its dims are symbols nobody named (so never SC112 on their own), the features the
        layer's constructor states, and what was known of its trailing dims. Every name in
        this scope that holds the same array (``identity = x`` before the conv) is refined
        with it; x stays a parameter's array, so a caller never sees the assumption.
        """
        feature = UNKNOWN
        if expected.feature_argument is not None:
            try:
                feature = layer[expected.feature_argument]
            except KeyError:
                feature = UNKNOWN
        return self.assume_input(current, holder, expected.rank, expected.feature_dim, feature)

    def assume_input(self, current: AbstractArray, holder: cst.BaseExpression, rank: int,
                     feature_dim: int | None = None, feature: Any = UNKNOWN) -> AbstractArray:
        """``current`` (of unknown rank) is a layer's batched input of ``rank`` dims from here
        on, with ``feature`` at ``feature_dim`` when it is a size (see assume_batched)."""
        text = self.refined_text(holder)
        dims = [sym(f"{text}[{i}]") for i in range(rank)]
        if feature_dim is not None and isinstance(feature, (int, Sym)) and \
                not isinstance(feature, bool):
            dims[feature_dim] = feature
        tail = current.tail[-rank:] if current.tail else ()
        if tail:
            dims[rank - len(tail):] = tail
        return self.refine_array(current, holder, tuple(dims))

    def assume_indexed_rank(self, node: cst.Subscript, base: AbstractArray) -> AbstractArray | None:
        """``boxes[:, 0]`` with boxes of unknown rank: the index needs at least 2 dims, and
        boxes is taken to have exactly 2 from here on, its dims symbols nobody named.

        Only literal ints and slices count (with at least one slice, which no list or dict
        takes); a name may be an index array or a mask of any rank. The rank is an
        assumption, so the array and all computed from it carry ``assumed_rank``: no error
        rests on them, ``ndim`` stays unknown (a branch on it is not decided), and an unpack
        or a permute that states the rank replaces it.
        """
        if base.tail or not isinstance(node.value, cst.Name) or len(node.slice) < 2:
            return None
        rank = 0
        sliced = False
        for element in node.slice:
            part = element.slice
            if isinstance(part, cst.Slice):
                rank, sliced = rank + 1, True
                continue
            value = part.value
            if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
                value = value.expression
            if isinstance(value, cst.Integer):
                rank += 1
            elif not (isinstance(value, cst.Name) and value.value == "None"):
                return None
        if not sliced:
            return None
        text = self.refined_text(node.value)
        dims = tuple(sym(f"{text}[{i}]") for i in range(rank))

        def refine(value: AbstractArray) -> AbstractArray:
            alias = value.alias
            if alias is not None and alias.storage is not None and not alias.storage.is_array:
                # Only an array takes a tuple index with a slice in it.
                alias = replace(alias, storage=replace(alias.storage, is_array=True))
            return replace(value, shape=dims, tail=(), alias=alias, assumed_rank=True)

        refined = self.rebind_holders(base, refine)
        if self.coverage is not None:
            self.coverage.record(node.value, refined)
        return refined

    def rank_assumed(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` holds an array whose rank was assumed from an index."""
        with self.suppressed():
            value = self.eval(node)
        return isinstance(value, AbstractArray) and value.assumed_rank

    def refine_rank(self, current: AbstractArray, holder: cst.BaseExpression,
                    rank: int) -> AbstractArray:
        """``x.permute(0, 2, 3, 1)`` with x of unknown rank: the code says x has 4 dims."""
        text = self.refined_text(holder)
        dims = [sym(f"{text}[{i}]") for i in range(rank)]
        if current.tail and len(current.tail) <= rank:
            dims[rank - len(current.tail):] = current.tail
        return self.refine_array(current, holder, tuple(dims))

    def refine_tail(self, current: AbstractArray, tail: tuple) -> AbstractArray:
        """``self.fc(x)`` with x of unknown rank: x ends in the Linear's in_features from here
        on (the call fails otherwise), and so does every name of this scope that holds it."""
        return self.rebind_holders(current, lambda value: replace(value, tail=tuple(tail)))

    def pin_widths(self, given: tuple, wanted: tuple) -> dict[str, Any]:
        """A layer that ran on dims ``given`` needs them to be ``wanted`` (a Linear's
        in_features, a LayerNorm's normalized shape, a convolution's in_channels): each given
        dim that is a size the code named (``C`` of ``B, N, C = x.shape``) is that width from
        here on, in every value of this scope, since the call fails otherwise. A later op that
        needs another width then fails for every input."""
        pins: dict[str, Any] = {}
        for got, want in zip(given, wanted):
            name = _bare_name(got)
            # Only a name the code gave a dim (an unpack, a dim read): a constructor's size
            # parameter (in_channels of a class built many times) names another width in
            # each instance.
            if name is not None and name in self.named_symbols and name not in pins and \
                    name not in atoms(want) and \
                    want is not UNKNOWN and (isinstance(want, int) or isinstance(want, Sym)):
                pins[name] = want
        if not pins:
            return pins
        scope = self.frame.scope
        for name, value in list(scope.vars.items()):
            pinned = _pinned(value, pins)
            if pinned is not value:
                scope.vars[name] = pinned
        return pins

    def read_widths(self, current: AbstractArray, shape: tuple, start: int,
                    wanted: tuple) -> tuple[AbstractArray, dict[str, Any]]:
        """A layer read dims ``start...`` of ``shape`` (``current``'s, as the rule takes it) as
        ``wanted``: ``current`` with the widths nobody knew filled in, and the sizes the code
        named pinned to them (see ``fill_widths`` and ``pin_widths``)."""
        return self.fill_widths(current, start, wanted), \
            self.pin_widths(shape[start:start + len(wanted)], wanted)

    def fill_widths(self, current: AbstractArray, start: int, wanted: tuple) -> AbstractArray:
        """A layer read dims ``start...`` of ``current`` as ``wanted`` (a LayerNorm's normalized
        shape, a convolution's in_channels): the ones nobody knew are those widths from here
        on, in every name of this scope that holds the array, since the call fails otherwise."""
        shape = current.shape
        if shape is None or start < 0 or start + len(wanted) > len(shape):
            return current
        filled = list(shape)
        for i, want in enumerate(wanted):
            if shape[start + i] is UNKNOWN and (isinstance(want, (int, Sym))
                                                and not isinstance(want, bool)):
                filled[start + i] = want
        if filled == list(shape):
            return current
        filled = tuple(filled)

        def refine(value: AbstractArray) -> AbstractArray:
            same = value.shape is not None and len(value.shape) == len(filled)
            return replace(value, shape=filled) if same else value

        return self.rebind_holders(current, refine)

    def refined_text(self, holder: cst.BaseExpression) -> str:
        """``x.shape`` for the dims of the first array of unknown rank refined under the name x
        in this function; ``x#2.shape`` for the next (x rebound to another array): the dims of
        two arrays must not share a name, or they would pass for equal."""
        text = self.text(holder, 30)
        scope = self.active[-1] if self.active else 0
        seen = self.refined_holders.setdefault((scope, text), [])
        if holder not in seen:
            seen.append(holder)
        number = seen.index(holder) + 1
        return f"{text}.shape" if number == 1 else f"{text}#{number}.shape"

    def refine_array(self, current: AbstractArray, holder: cst.BaseExpression,
                     dims: tuple, library: str = "torch",
                     settles_library: bool = True, assumed: bool = False) -> AbstractArray:
        """``current`` (of unknown rank) has ``dims`` from here on, and so has every name of
        this scope that holds it."""
        def refine(value: AbstractArray) -> AbstractArray:
            alias = value.alias
            if settles_library and alias is not None and alias.storage is not None and \
                    not alias.storage.is_array:
                # The layer says it is an array: no longer "maybe a str or a config".
                alias = replace(alias, storage=replace(alias.storage, is_array=True))
            return replace(value, shape=dims, tail=(), library=library, alias=alias,
                           assumed_rank=assumed)

        refined = self.rebind_holders(current, refine)
        if self.coverage is not None:
            self.coverage.record(holder, refined)
        return refined

    def rebind_holders(self, current: AbstractArray, refine) -> AbstractArray:
        """Every name of this scope that holds ``current`` (or the same base storage, still of
        unknown rank: ``identity = x``) holds ``refine`` of it from here on."""
        root = shape_root(current)
        refined = refine(current)
        if root is not None and refined.shape is not None:
            # Of the storage itself, or of the one whose shape it kept (``norm(x)``, taken by
            # a block that unpacks three dims: x has three).
            self.frame.refinements.setdefault(root, replace(refined, shape_of=None))
            self.refined_storages.add(root)
            if self.coverage is not None:
                self.coverage.refine(root, refined)
        scope = self.frame.scope
        for name, value in list(scope.vars.items()):
            if value is current or root is not None and isinstance(value, AbstractArray) and \
                    shape_root(value) == root:
                scope.vars[name] = replace(refine(value), shape_of=None)
        return replace(refined, shape_of=None)

    def symbol_roots(self, name: str, seen: frozenset = frozenset()) -> frozenset:
        """Where a named dim comes from in the end: the array whose shape named it (or the
        signature's annotations); an int computed from named dims comes from theirs."""
        symbol = self.named_symbols.get(name)
        if symbol is None or name in seen:
            return frozenset()
        if symbol.source.startswith("the annotation of"):
            return frozenset({"<annotations>"})  # annotations share one namespace of dims
        if not symbol.derived_from:
            return frozenset({(symbol.source, id(symbol.where))
                              if symbol.source == "an int expression" else symbol.source})
        return frozenset().union(*(self.symbol_roots(d, seen | {name})
                                   for d in symbol.derived_from))

    def name_annotation_dims(self, value: AbstractArray, what: str, where: Any) -> None:
        """A jaxtyping annotation names its dims: they are named symbols too."""
        for dim in tuple(value.shape or ()) + tuple(value.tail):
            for name in atoms(dim):
                self.named_symbols.setdefault(name, NamedSymbol(name, f"the annotation of {what}",
                                                                where))

    def check_named_dims(self, spec: rt_ops.OpSpec, dialect: Dialect, args: tuple,
                         kwargs: dict, node: cst.CSTNode, operands: list, label: str) -> None:
        """SC112: the op holds for these sizes only if two dims named differently are equal."""
        if spec.name in ("view", "reshape", "np.reshape", "torch.reshape") and -1 in args[1:]:
            return  # a -1 needs the rest to divide, not two named dims to be equal
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
        # Sizes the operands state: an op that holds when a named dim takes one of them (a view
        # whose -1 absorbs the rest) does not need two names equal, only sizes that divide.
        stated = {d for d in _arg_ints(args) if d > 1}
        for a, b in itertools.combinations(named, 2):
            first, second = self.named_symbols[a], self.named_symbols[b]
            if first.name == second.name or a in second.derived_from or b in first.derived_from:
                continue  # the same name twice, or one computed from the other
            if first.scope and second.scope and first.scope != second.scope:
                # Named by two functions (N in one helper, token_size in another): no place in
                # the code holds both names, so nothing the code says makes them differ.
                continue
            if not self.symbol_roots(a) & self.symbol_roots(b):
                continue  # dims of two inputs: that they fit is the caller's precondition
            if any(not fails(dict(generic, **{n: size})) for n in (a, b) for size in stated):
                continue
            if not fails(dict(generic, **{b: generic[a]})):
                self.report("SC112", node, self._named_dims_message(label, operands, a, b))
                return

    def _named_dims_message(self, label: str, operands: list, a: str, b: str) -> str:
        shapes = ", ".join(format_shape(v.shape) for v, _ in operands
                           if isinstance(v, AbstractArray) and v.shape is not None)
        first, second = self.named_symbols[a], self.named_symbols[b]
        first_line, second_line = self.line(first.where), self.line(second.where)
        if (first.source, first_line) == (second.source, second_line):
            where = f"{a} and {b} were unpacked from {first.source} at line {first_line}"
        else:
            where = (f"{a} comes from {first.source} (line {first_line}) and {b} from "
                     f"{second.source} (line {second_line})")
        return (f"{label} of {shapes} needs {b} == {a}, but the code names them differently; "
                f"{where}")


__all__ = ["Constraints", "NamedSymbol"]
