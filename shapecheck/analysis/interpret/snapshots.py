"""Reads of a name bound to an array: SC304 (a snapshot that is a live alias, written since
through another name) and SC306 (a write through a result that may be a view or a copy).

SC306 is pending in ``maybe_writes`` (flow state, like the write counts) until the base is read
under another name; reads in an assert test what the write did, so they do not count.
"""

from __future__ import annotations

import libcst as cst

from ..imports import canonical, dotted_name
from ..rules.aliasing import layout_dependent_write_message, stale_alias_message
from ..values import AbstractArray, Alias, ModuleRef, TupleValue, Value
from .alias_facts import may_overlap, replace
from .call_effects import SAME_STORAGE_CALLS
from .fixes import copy_fix

# Calls that read like making a new array of x, and may keep x's memory.
_CONVERSIONS = SAME_STORAGE_CALLS | {"torch.from_numpy", "copy.copy"}


class Snapshots:
    """Names bound as snapshots of an array, and the reads that find them stale."""

    def bind_name(self, name: str, value: Value) -> None:
        alias = value.alias if isinstance(value, AbstractArray) else None
        if alias is not None and alias.storage is not None and alias.view == "base":
            self.storage_names.setdefault(alias.storage.id, name)

    def bind_snapshot(self, target: cst.Name, value: Value, source: cst.CSTNode) -> Value:
        """A name is bound to an array; a copy-looking binding of an alias (``old = x``,
        ``prev = w[:]``, ``x.detach()``) becomes a snapshot at the storage's write count. So
        does each row of ``rows = list(t)``: the rows are views of t."""
        if isinstance(value, TupleValue) and isinstance(source, cst.Call):
            return TupleValue(tuple(self.bind_snapshot(target, item, source)
                                    for item in value.items), value.is_list)
        alias = value.alias if isinstance(value, AbstractArray) else None
        if alias is None or alias.storage is None:
            return value
        name = target.value
        # Only a certain array: `prev = n` of an int parameter is a copy of the number.
        # A conversion that made new memory here (copy.copy of a numpy array, np.asarray of a
        # list) is a copy indeed: nothing else holds it.
        if alias.view in ("base", "view") and alias.storage.is_array and \
                alias.storage.id != id(source) and self.looks_like_copy(source):
            alias = replace(alias, snapshot=f"{name} = {self.text(source)}", snapshot_node=target,
                            version=self.versions.get(alias.storage.id, 0), binder=name)
        else:
            alias = replace(alias, snapshot=None, snapshot_node=None, binder=name)
        return replace(value, alias=alias)

    def looks_like_copy(self, source: cst.CSTNode) -> bool:
        """``old = x``, ``prev = self.w``, ``prev = w[:]``, ``np.asarray(x)``, ``x.view()``,
        ``x.detach()``."""
        if isinstance(source, cst.Name):
            return True
        if isinstance(source, cst.Attribute) and isinstance(source.value, cst.Name) and \
                source.value.value == "self":
            return True  # an array attribute bound to a name, like old = x
        if isinstance(source, cst.Subscript):
            return all(isinstance(e.slice, cst.Slice) and e.slice.lower is None and
                       e.slice.upper is None and e.slice.step is None or
                       isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis)
                       for e in source.slice)
        if isinstance(source, cst.Attribute):
            return source.attr.value in ("data", "grad")  # g = p.grad keeps the live gradient
        if isinstance(source, cst.Call):
            method = source.func.attr.value if isinstance(source.func, cst.Attribute) else None
            if method in ("view", "detach", "numpy") and not source.args or \
                    method in ("state_dict", "unbind"):
                # best = model.state_dict(keep_vars=True), prev = w.numpy(), a, b = t.unbind()
                return True
            with self.suppressed():
                func = self.eval(source.func) if dotted_name(source.func) else None
            if not isinstance(func, ModuleRef) or not source.args or \
                    source.args[0].keyword is not None:
                return False
            qualname, rest = canonical(func.qualname), source.args[1:]
            if qualname in ("builtins.list", "builtins.tuple"):
                return not rest  # rows = list(t): the rows of t
            if qualname == "numpy.array":  # np.array(x, copy=False) never copies
                return any(a.keyword is not None and a.keyword.value == "copy" for a in rest)
            return qualname in _CONVERSIONS and all(
                a.keyword is not None and a.keyword.value == "dtype" for a in rest)
        return False

    def note_read(self, value: Value, name: str, node: cst.CSTNode) -> None:
        """A name bound to an array is read: SC304 when it is a snapshot whose storage was
        written since through another name, SC306 when its storage was written through a
        result that may be a view or a copy."""
        alias = value.alias if isinstance(value, AbstractArray) else None
        if alias is None or alias.storage is None or self.metadata_read:
            return
        self.note_maybe_view_read(alias, name, node)
        self.note_argument_read(alias, name, node)
        self.note_snapshot_read(alias, name, node)

    def note_snapshot_read(self, alias: Alias, name: str, node: cst.CSTNode) -> None:
        """SC304: a snapshot (or a row of a list of snapshots) is read after its storage was
        written through another name. An assert that reads it checks on purpose whether the
        write reached it (a test of view semantics), which is not code relying on a copy."""
        if alias.snapshot is None or alias.storage is None or self.metadata_read or \
                self.in_assert:
            return
        later = [w for w in self.writes.get(alias.storage.id, ()) if w[0] > alias.version
                 and w[1] != alias.binder and may_overlap(w[2], alias.layout)]
        if later:
            where = self.line(later[-1][3])
            self.report("SC304", alias.snapshot_node, stale_alias_message(
                alias.snapshot, self.storage_name(alias), where, name, self.line(node)),
                related=((self.path, where),), fix=copy_fix(self, alias, name))

    def note_maybe_view_read(self, alias: Alias, name: str, node: cst.CSTNode) -> None:
        """SC306: the storage was written through a maybe-view under another name, and is read
        now. An assert that reads it checks on purpose whether the write landed (a test of view
        semantics), which is not code relying on it."""
        pending = self.maybe_writes.get(alias.storage.id)
        if pending is None or pending[1] == name or self.in_assert or alias.view == "maybe":
            return  # the written result itself, under another name (a callee's parameter)
        del self.maybe_writes[alias.storage.id]
        write_node, writer = pending
        line = self.line(node)
        self.report("SC306", write_node, layout_dependent_write_message(
            writer, self.storage_name(alias), line), related=((self.path, line),))
