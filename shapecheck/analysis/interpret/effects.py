"""Alias facts and the events that aliasing rules fire from.

The shape walk computes every array value; this part adds to each the
storage it shares and how it reaches it (``values.Alias``). Writes
(augmented assignment, ``*_`` methods, setitem, ``out=``, ``np.copyto``,
numpy's in-place methods) are events: ``write`` checks the written view and
reports. Because this runs in the one walk, a write in a helper function
reaches the rules with the caller's arrays (the callee is specialized with
them), and a finding there is reported at the call like any other finding
of a specialization (``emit_at_call``; the callee's own line is reported
only when the callee alone is wrong, e.g. when it writes an array it made
itself).

Flow state: write counts and writes per storage live on the walker; branches
run from one state and join it (a write on any path counts); loops add writes
monotonically and get one extra pass with the aliases an iteration leaves.
Storage ids are the id of the node that made the memory, so walking a body
again makes the same storage; they never enter a specialization key (which
holds view kinds and which arguments share memory, by position).

The concerns live in their own modules: ``call_effects`` (results of calls
and subscripts), ``snapshots`` (SC304, SC306), ``argument_writes`` (SC305),
``training`` (parameters, optimizers, autograd).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ...runtime import dtypes as rt_dtypes
from ...runtime import ops as rt_ops
from ...runtime.dims import format_shape
from ...runtime.layout import (
    Layout,
    expands_to,
    torch_overlap_status,
    torch_reads_overwritten,
)
from ..rules.aliasing import (
    leaf_inplace_message,
    multi_view_inplace_message,
    overlapping_inplace_message,
    unchecked_overlap_message,
    write_to_broadcast_view_message,
    write_to_copy_message,
)
from ..values import AbstractArray, Alias, Storage, TupleValue, Value
from .alias_facts import certainly_repeats, compose, concrete, replace, writer_name
from .argument_writes import ArgumentWrites, storage_paths
from .call_effects import CallEffects
from .contracts import ALLOCATORS
from .fixes import index_fix
from .snapshots import Snapshots
from .training import PARAMETER_VIEWS, Training

# Attributes that describe an array without reading its elements.
METADATA = frozenset({"shape", "dtype", "ndim", "size", "device", "itemsize", "nbytes", "flags",
                      "strides", "is_leaf", "requires_grad", "layout", "names"})
# tensor methods that select elements as an index would, into new memory.
SELECTIONS = frozenset({"index_select", "masked_select", "take", "take_along_dim", "gather"})
# torch methods ending in "_" that change flags, not data.
NOT_DATA_WRITES = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "detach_"})


def _holds_storage(value: Value, storage_id: int) -> bool:
    if isinstance(value, AbstractArray):
        return value.alias is not None and value.alias.storage is not None and \
            value.alias.storage.id == storage_id
    if isinstance(value, TupleValue):
        return any(_holds_storage(item, storage_id) for item in value.items)
    return False


class Effects(CallEffects, Snapshots, ArgumentWrites, Training):
    """Alias facts for every array the walk makes, and the write events."""

    # ------------------------------------------------------------------ values

    def fresh(self, value: Value, node: cst.CSTNode, what: str, *, leaf_grad: bool = False,
              operands: tuple = ()) -> Value:
        """``value`` (an array, or a tuple of them) is new memory made at ``node`` from the
        arrays ``operands`` (its autograd dependencies)."""
        if isinstance(value, TupleValue):
            return TupleValue(tuple(self.fresh(item, node, what, operands=operands)
                                    for item in value.items), value.is_list)
        if not isinstance(value, AbstractArray):
            return value
        # Computed only from parameters nothing is known of (a str as well as an array), the
        # result is no more certainly an array than they are.
        arrays = [o for o in operands if isinstance(o, AbstractArray)]
        if any(o.assumed_rank for o in arrays):
            value = replace(value, assumed_rank=True)
        certain = not arrays or any(o.alias is None or o.alias.storage is None
                                    or o.alias.storage.is_array for o in arrays)
        storage = Storage(self.fresh_storage_id(node), what, leaf_grad=leaf_grad, is_array=certain)
        self.storage_nodes[storage.id] = node
        # New memory: a write through a maybe-view of what this node made before (the same
        # function run again for another call) is no write into this array.
        self.maybe_writes.pop(storage.id, None)
        if what in ALLOCATORS:
            self.workspaces.add(storage.id)
        if leaf_grad:
            self.grad_storages.add(storage.id)
        shape = value.shape
        layout = Layout.contiguous(shape) if concrete(shape) else None
        # Under no_grad a result is cut from autograd's graph: it depends on nothing.
        deps = frozenset({storage.id}).union(*(
            o.alias.deps for o in operands if isinstance(o, AbstractArray) and o.alias is not None
            and not self.no_grad))
        return replace(value, alias=Alias(storage, "base", layout, contiguous=True, deps=deps))

    def fresh_storage_id(self, node: cst.CSTNode) -> int:
        """The storage of new memory made at ``node``: the same each time the node runs, so
        a loop walked again or a function analyzed again makes the same storage, unless a
        name still holds what the node made before (``c = der`` in one pass of a loop, then
        ``der = np.empty(...)`` in the next): that was other memory."""
        made = id(node)
        if made not in self.made_at:
            self.made_at.add(made)
            return made
        generation = self.storage_generations.get(made, 0)
        current = made if not generation else hash((made, generation))
        if any(_holds_storage(value, current) for value in self.frame.scope.vars.values()):
            generation += 1
            self.storage_generations[made] = generation
            return hash((made, generation))
        return current

    def as_view(self, value: Value, base: AbstractArray, kind: str,
                layout: Layout | None = None) -> Value:
        """``value`` views ``base``'s memory (kind as the op table names it) at ``layout``."""
        if isinstance(value, TupleValue):
            return TupleValue(tuple(self.as_view(item, base, kind) for item in value.items),
                              value.is_list)
        if not isinstance(value, AbstractArray):
            return value
        if kind in ("repeated", "readonly"):
            repeats = layout.has_repeated_elements() if layout is not None else \
                certainly_repeats(base.shape, value.shape)
        else:
            repeats = False
        alias = compose(base.alias, kind, repeats)
        if alias is not None and layout is not None and alias.storage is not None:
            alias = replace(alias, layout=layout)
        return replace(value, alias=alias)

    def needs_grad(self, value: Value) -> bool:
        """autograd records ops on this value: it requires grad, or was computed from a leaf
        that does (outside no_grad)."""
        if not isinstance(value, AbstractArray) or self.no_grad:
            return False
        alias = value.alias
        return value.requires_grad or alias is not None and bool(alias.deps & self.grad_storages)

    def with_storage(self, value: Value, **facts: Any) -> Value:
        """The same value in the same memory, with other storage facts (leaf, saved by)."""
        if not isinstance(value, AbstractArray) or value.alias is None or \
                value.alias.storage is None:
            return value
        return replace(value, alias=replace(value.alias,
                                            storage=replace(value.alias.storage, **facts)))

    def contents_of(self, array: AbstractArray) -> str | None:
        """A name for the values ``array`` holds, the same as long as they are: a whole storage,
        not written since. Sizes read off the values (how many a mask selects) are symbols over
        this name, so two selections by one mask have one size. None for a view, a storage
        nobody knows, or a value that may be no array."""
        alias = array.alias
        if alias is None or alias.storage is None or alias.view != "base" or \
                not alias.storage.is_array:
            return None
        storage = alias.storage
        key = (storage.id, self.versions.get(storage.id, 0))
        name = self.contents_names.get(key)
        if name is None:
            made_by = self.storage_nodes.get(storage.id)
            base = self.storage_names.get(storage.id) or (
                self.text(made_by, 30) if made_by is not None else storage.name)
            # Other values named alike (another storage, or this one rewritten) count on.
            count = self.contents_bases.get(base, 0) + 1
            self.contents_bases[base] = count
            name = base if count == 1 else f"{base}#{count}"
            self.contents_names[key] = name
        return name

    def storage_name(self, alias: Alias | None, fallback: str = "?") -> str:
        """The name a storage was first bound to (or what made it)."""
        if alias is None or alias.storage is None:
            return fallback
        return self.storage_names.get(alias.storage.id, alias.storage.name)

    # ------------------------------------------------------------------ flow state

    def effect_state(self) -> tuple:
        return (dict(self.versions), dict(self.writes), dict(self.maybe_writes),
                dict(self.pending_calls))

    def restore_effects(self, state: tuple) -> None:
        self.versions, self.writes, self.maybe_writes, self.pending_calls = (
            dict(d) for d in state)

    def join_effects(self, states: list) -> None:
        """Paths meet: every write on any path counts (versions by maximum).

        The tables hold every storage of the module, and most paths touch few of them: a
        path equal to the join so far adds nothing, and a storage whose writes are the very
        same tuple on both sides keeps it. A stored tuple has no repeated write (a write gets
        a version above every earlier one, and joins drop repeats), so keeping it is exact.
        """
        first_versions, first_writes, first_maybe, first_calls = states[0]
        versions, writes = dict(first_versions), dict(first_writes)
        maybe_writes, pending_calls = dict(first_maybe), dict(first_calls)
        for path_versions, path_writes, path_maybe, path_calls in states[1:]:
            if path_versions != versions:
                for key, version in path_versions.items():
                    known = versions.get(key)
                    if known is None or version > known:
                        versions[key] = version
            if path_writes != writes:
                for key, ws in path_writes.items():
                    known = writes.get(key)
                    if known is None:
                        writes[key] = ws
                    elif known is not ws:
                        writes[key] = tuple(dict.fromkeys(known + ws))
            maybe_writes.update(path_maybe)
            pending_calls.update(path_calls)
        self.versions, self.writes, self.maybe_writes, self.pending_calls = (
            versions, writes, maybe_writes, pending_calls)

    # ------------------------------------------------------------------ events

    def write(self, target: Value, node: cst.CSTNode, writer: cst.CSTNode | None,
              op: str, reads: tuple = (), elements: bool = True) -> None:
        """``target`` is written in place at ``node``, computed from the values ``reads``.

        ``elements`` False: the op changes the array's own shape, not its elements
        (``unsqueeze_``, ``t_``): no alias sees new values (SC304, SC306), but autograd counts
        an in-place op (SC307) and a caller's array changes all the same (SC305)."""
        if not isinstance(target, AbstractArray) or target.alias is None:
            return
        if elements:
            self.check_write_target(target, node, op)
        for value in reads:
            self.check_overlap(target, value, node, op)
        storage = target.alias.storage
        if storage is None:
            return
        writer_var = writer_name(writer)
        if elements:
            version = self.versions.get(storage.id, 0) + 1
            self.versions[storage.id] = version
            self.writes[storage.id] = self.writes.get(storage.id, ()) + (
                (version, writer_var, target.alias.layout, node),)
        if storage.param is not None and target.alias.view != "maybe":
            self.param_writes.setdefault(storage.id, (node, ()))
        if elements and target.alias.view == "maybe" and writer_var is not None:
            self.maybe_writes[storage.id] = (node, writer_var)
        if storage.saved_by is not None:
            # The first write after the save is the one that breaks backward.
            self.saved_writes.setdefault(storage.id, (node, storage.saved_by, storage.id, None))
        elif storage.id in self.saved_inputs and not storage.unversioned:
            op, saver = self.saved_inputs[storage.id]
            self.saved_writes.setdefault(storage.id, (node, op, saver,
                                                      self.storage_name(target.alias)))
        if target.alias.multi_view is not None and not self.no_grad:
            self.report("SC307", node, multi_view_inplace_message(
                op, target.alias.multi_view, self.storage_name(target.alias)), "RuntimeError")
        elif storage.leaf_grad and not self.no_grad:
            self.report("SC307", node, leaf_inplace_message(
                op, target.alias.view != "base", self.storage_name(target.alias)), "RuntimeError")

    def store_back(self, node: cst.AugAssign, item: AbstractArray, value: Value) -> None:
        """``a[i] += v`` is ``a[i] = a[i] + v``: a write into ``a`` even when ``a[i]`` is a
        copy (advanced indexing, or an item of an array of unknown rank)."""
        if not isinstance(node.target, cst.Subscript):
            return
        own = item.alias.storage if item.alias is not None else None
        with self.suppressed():
            base = self.eval(node.target.value)
            items = self.index_items(node.target)
        if not isinstance(base, AbstractArray) or base.alias is None or \
                base.alias.storage is None or own is not None and own.id == base.alias.storage.id:
            return  # a view of base: the in-place op wrote base already
        self.write(self.written_region(base, items), node, node.target.value, "assignment",
                   (value,))

    def check_write_to_copy(self, expr: cst.BaseExpression, node: cst.CSTNode, op: str,
                            target: cst.BaseExpression | None = None) -> None:
        """SC301: the write goes, through plain views, into the result of advanced indexing: a
        copy that is dropped at once. ``target``: the assignment's whole target, when ``expr``
        is the array it indexes (the fix folds the two indexes into one)."""
        while True:
            if isinstance(expr, cst.Subscript):
                if id(expr) in self.copies:
                    self.report("SC301", node, write_to_copy_message(
                        op, self.text(expr), self.text(expr.value)), fix=index_fix(self, target, expr))
                    return
                expr = expr.value
            elif isinstance(expr, cst.Attribute) and rt_ops.writes_reach_input(expr.attr.value):
                expr = expr.value
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
                    rt_ops.writes_reach_input(expr.func.attr.value):
                expr = expr.func.value
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
                    expr.func.attr.value in SELECTIONS:
                # t.index_select(0, ids).zero_(): a selection reads like indexing, and copies;
                # probs = x.gather(1, ids).exp_() keeps the copy on purpose.
                if isinstance(node, cst.Call) and id(node) not in self.statement_calls:
                    return
                with self.suppressed():
                    base = self.eval(expr.func.value)
                if isinstance(base, AbstractArray) and base.library == "torch":
                    self.report("SC301", node, write_to_copy_message(
                        op, self.text(expr), self.text(expr.func.value)))
                return
            else:
                return

    def check_overlap(self, written: AbstractArray, read: Value, node: cst.CSTNode,
                      op: str = "") -> None:
        """SC303: torch refuses an in-place op whose input partially overlaps its output, or lets
        it through unchecked and reads what it has already written (``op`` says whether a
        broadcast input is read element-wise: a copy, or a pointwise op)."""
        if not isinstance(read, AbstractArray) or read.alias is None or \
                written.library != "torch" or read.library != "torch" or \
                self.dialect_for("torch").legacy:
            return
        a, b = written.alias, read.alias
        if a.storage is None or b.storage is None or a.storage.id != b.storage.id or \
                a.layout is None or b.layout is None:
            return
        checked = b.layout
        if op == "assignment" and b.layout.shape != a.layout.shape:
            # x[...] = v of another shape is a copy from v expanded (a 0-d v is a fill_ with its
            # value): torch cannot check an expanded input, so it never refuses one.
            if not b.layout.shape or not expands_to(b.layout.shape, a.layout.shape):
                return
            checked = b.layout.expand(a.layout.shape)
        status = torch_overlap_status(a.layout, checked)
        shapes = (format_shape(a.layout.shape), self.storage_name(a),
                  format_shape(b.layout.shape))
        if status == "partial":
            self.report("SC303", node, overlapping_inplace_message(*shapes), "RuntimeError")
        elif status == "too_hard" and self.reads_overwritten(written, op, a, b):
            self.report("SC303", node, unchecked_overlap_message(*shapes))

    def reads_overwritten(self, written: AbstractArray, op: str, a: Alias, b: Alias) -> bool:
        """An unchecked overlap whose walk certainly reads an element it has already written
        (``a[:, 1:] = a[:, :-1]``, ``x -= x[:, :1]``). A broadcast input is judged only for a
        copy or a pointwise op, which read it element by element."""
        copy = op in ("assignment", ".copy_()")
        name = op[1:-3] if op.startswith(".") and op.endswith("_()") else None
        spec = self.lookup(name, self.dialect_for("torch")) if name else None
        pointwise = copy or op == "augmented assignment" or spec is not None and spec.broadcasts
        if b.layout.shape != a.layout.shape and not pointwise:
            return False
        return torch_reads_overwritten(a.layout, b.layout, rt_dtypes.itemsize(written.dtype),
                                       copy)

    def check_write_target(self, target: AbstractArray, node: cst.CSTNode, op: str) -> None:
        """SC302: the written view is read-only, or reaches one element at several indices."""
        alias = target.alias
        if alias.view == "readonly" or alias.view == "repeated" and alias.repeats:
            message = write_to_broadcast_view_message(
                op, alias.view, self.storage_name(alias), target.library,
                format_shape(target.shape) if target.shape is not None else "(?)")
            self.report("SC302", node, message,
                        "RuntimeError" if target.library == "torch" else "ValueError")


__all__ = ["METADATA", "NOT_DATA_WRITES", "PARAMETER_VIEWS", "Effects", "storage_paths"]
