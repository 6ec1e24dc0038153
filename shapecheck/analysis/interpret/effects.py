"""Alias facts and the events that aliasing rules fire from.

The shape walk computes every array value; this part adds to each the
storage it shares and how it reaches it (``values.Alias``), from the
runtime op table's view kinds: creation and copying ops make a fresh
storage, view ops keep the operand's, and a view of a view composes (a view
of a read-only view stays read-only). Writes (augmented assignment, ``*_``
methods, setitem, ``out=``, ``np.copyto``, numpy's in-place methods) are
events: ``write`` checks the written view and reports. Because this runs in
the one walk, a write in a helper function reaches the rules with the
caller's arrays (the callee is specialized with them), and a finding there
is reported at the call like any other finding of a specialization
(``emit_at_call``; the callee's own line is reported only when the callee
alone is wrong, e.g. when it writes an array it made itself).

Flow state: write counts and writes per storage live on the walker; branches
run from one state and join it (a write on any path counts); loops add writes
monotonically and get one extra pass with the aliases an iteration leaves.
Storage ids are the id of the node that made the memory, so walking a body
again makes the same storage; they never enter a specialization key (which
holds view kinds and which arguments share memory, by position).

SC308 (a torch ``.view`` of a layout that cannot be viewed) is the runtime's
verdict: ``array_arg`` passes the layout known here into the op's operand.

SC306 (a write through a reshape/ravel/flatten/astype(copy=False) result
that may be a view or a copy) is pending in ``maybe_writes`` (flow state, like
the write counts) until the base is read under another name; reads in an
assert test what the write did, so they do not count. A parameter nothing is
known of becomes, for its aliasing only, an array of unknown rank in the
caller's memory (``Functions.caller_owned``; ``Storage.is_array`` False):
no shape rule reads it, and a function's result computed from one is unknown.

SC305 (a function writes its caller's array in place and the caller reads it
afterwards): the standalone analysis of a function records which parameters
it writes (``param_writes``, keyed by the parameter's storage); at each call
the caller's argument counts as written there, and the write is pending
(flow state) until the array is read under a name bound before the call.
Functions that say they work in place, procedures that return nothing,
calls used as statements and buffers made by allocators are exempt
(``contracts.py``); a parameter passed on to such a callee passes the write
on to our own caller.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ...runtime import ops as rt_ops
from ...runtime.dims import eq, format_shape
from ...runtime.layout import Layout, overlap, torch_overlap_status
from ...runtime.rules import indexing as rt_indexing
from ..imports import canonical, dotted_name
from ..rules.aliasing import (
    argument_mutation_message,
    layout_dependent_write_message,
    leaf_inplace_message,
    overlapping_inplace_message,
    saved_output_inplace_message,
    stale_alias_message,
    write_to_broadcast_view_message,
    write_to_copy_message,
)
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    Alias,
    ConstValue,
    InstanceValue,
    ModuleRef,
    Storage,
    TupleValue,
    Value,
)
from .contracts import ALLOCATORS, mutation_is_documented, returns_value
from .env import OptimizerValue
from .operands import FAIL, array_arg, rule_index_items, to_arg

# nn.Module methods that hand back live references to the module's parameters.
PARAMETER_VIEWS = frozenset({"state_dict", "parameters", "named_parameters"})

# Attributes that describe an array without reading its elements.
METADATA = frozenset({"shape", "dtype", "ndim", "size", "device", "itemsize", "nbytes", "flags",
                      "strides", "is_leaf", "requires_grad", "layout", "names"})
# torch methods ending in "_" that change flags, not data.
NOT_DATA_WRITES = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "detach_"})
# numpy's in-place ndarray methods (torch spells in-place with a trailing "_").
NUMPY_INPLACE_METHODS = frozenset({"fill", "sort", "put", "itemset", "partition", "resize",
                                   "setfield"})
_COPIES = frozenset({"copy", "clone"})
_SAME_STORAGE_CALLS = frozenset({"numpy.asarray", "numpy.asanyarray", "torch.as_tensor"})



def replace(value: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for the plain frozen value classes of values.py (no
    ``__post_init__``, no ``init=False`` field, no slots), without its field lookup on every
    call: it runs for nearly every array the walk makes."""
    new = object.__new__(value.__class__)
    new.__dict__.update(value.__dict__, **changes)
    return new

def _concrete(shape: tuple | None) -> bool:
    return shape is not None and all(isinstance(d, int) and not isinstance(d, bool) for d in shape)


def _certainly_repeats(source: tuple | None, result: tuple | None) -> bool:
    """A broadcast from ``source`` to ``result`` reaches one element at several indices: a
    size-1 (or new) axis became a size known to exceed 1."""
    if source is None or result is None or len(result) < len(source):
        return False
    lead = len(result) - len(source)
    for i, d in enumerate(result):
        grown = isinstance(d, int) and d > 1
        if grown and (i < lead or eq(source[i - lead], 1) is True):
            return True
    return False


def compose(base: Alias | None, kind: str, repeats: bool = False) -> Alias | None:
    """A view of ``kind`` taken of an array whose alias facts are ``base``; "same" is the
    operand's own kind."""
    if base is None:
        return None if kind == "same" else Alias(None, kind, repeats=repeats)
    if base.view == "readonly" and kind in ("view", "same"):
        kind = "readonly"
    elif base.view == "maybe" and kind != "none":
        kind = "maybe"
    elif base.view == "repeated" and kind == "view":
        kind = "repeated"
    elif kind == "same":
        kind = base.view
    return Alias(base.storage, kind, repeats=base.repeats or repeats, deps=base.deps)


class Effects:
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
        certain = not arrays or any(o.alias is None or o.alias.storage is None
                                    or o.alias.storage.is_array for o in arrays)
        storage = Storage(id(node), what, leaf_grad=leaf_grad, is_array=certain)
        if what in ALLOCATORS:
            self.workspaces.add(storage.id)
        if leaf_grad:
            self.grad_storages.add(storage.id)
        shape = value.shape
        layout = Layout.contiguous(shape) if _concrete(shape) else None
        # Under no_grad a result is cut from autograd's graph: it depends on nothing.
        deps = frozenset({storage.id}).union(*(
            o.alias.deps for o in operands if isinstance(o, AbstractArray) and o.alias is not None
            and not self.no_grad))
        return replace(value, alias=Alias(storage, "base", layout, contiguous=True, deps=deps))

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
                _certainly_repeats(base.shape, value.shape)
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

    def saved_for_backward(self, value: Value, spec: rt_ops.OpSpec | None, operand: Value,
                           name: str) -> Value:
        """A torch op whose output autograd keeps for backward (sigmoid, exp, relu, ...)."""
        if spec is None or not spec.saves_output or not self.needs_grad(operand):
            return value
        return self.with_storage(value, saved_by=name.rsplit(".", 1)[-1])

    def backward(self, node: cst.CSTNode, value: Value) -> None:
        """``loss.backward()``: every saved output written in place since is read again."""
        if not isinstance(value, AbstractArray) or value.alias is None:
            return
        for storage_id, (inplace_node, op) in list(self.saved_writes.items()):
            if storage_id in value.alias.deps:
                line = self.line(node)
                self.report("SC307", inplace_node, saved_output_inplace_message(op, line),
                            "RuntimeError", related=((self.path, line),))

    def storage_name(self, alias: Alias | None, fallback: str = "?") -> str:
        """The name a storage was first bound to (or what made it)."""
        if alias is None or alias.storage is None:
            return fallback
        return self.storage_names.get(alias.storage.id, alias.storage.name)

    def bind_name(self, name: str, value: Value) -> None:
        alias = value.alias if isinstance(value, AbstractArray) else None
        if alias is not None and alias.storage is not None and alias.view == "base":
            self.storage_names.setdefault(alias.storage.id, name)

    def bind_snapshot(self, target: cst.Name, value: Value, source: cst.CSTNode) -> Value:
        """A name is bound to an array; a copy-looking binding of an alias (``old = x``,
        ``prev = w[:]``, ``x.detach()``) becomes a snapshot at the storage's write count."""
        alias = value.alias if isinstance(value, AbstractArray) else None
        if alias is None or alias.storage is None:
            return value
        name = target.value
        # Only a certain array: `prev = n` of an int parameter is a copy of the number.
        if alias.view in ("base", "view") and alias.storage.is_array and \
                self.looks_like_copy(source):
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
            return source.attr.value == "data"
        if isinstance(source, cst.Call):
            if isinstance(source.func, cst.Attribute) and source.func.attr.value in (
                    "view", "detach", "state_dict") and not source.args:
                return True  # best = model.state_dict() reads like a snapshot
            with self.suppressed():
                func = self.eval(source.func) if dotted_name(source.func) else None
            return isinstance(func, ModuleRef) and canonical(func.qualname) in \
                _SAME_STORAGE_CALLS and len(source.args) == 1
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
        if alias.snapshot is None:
            return
        later = [w for w in self.writes.get(alias.storage.id, ()) if w[0] > alias.version
                 and w[1] != alias.binder and _may_overlap(w[2], alias.layout)]
        if later:
            where = self.line(later[-1][3])
            self.report("SC304", alias.snapshot_node, stale_alias_message(
                alias.snapshot, self.storage_name(alias), where, name, self.line(node)),
                related=((self.path, where),))

    def note_maybe_view_read(self, alias: Alias, name: str, node: cst.CSTNode) -> None:
        """SC306: the storage was written through a maybe-view under another name, and is read
        now. An assert that reads it checks on purpose whether the write landed (a test of view
        semantics), which is not code relying on it."""
        pending = self.maybe_writes.get(alias.storage.id)
        if pending is None or pending[1] == name or self.in_assert:
            return
        del self.maybe_writes[alias.storage.id]
        write_node, writer = pending
        line = self.line(node)
        self.report("SC306", write_node, layout_dependent_write_message(
            writer, self.storage_name(alias), line), related=((self.path, line),))

    def bind_call_result(self, name: str, value: Value, source: cst.CSTNode) -> None:
        """``data = scale(data)``: the caller takes the written array back from the call, so
        reading it through this name is reading the result it asked for."""
        alias = value.alias if isinstance(value, AbstractArray) else None
        if alias is None or alias.storage is None:
            return
        pending = self.pending_calls.get(alias.storage.id)
        if pending is not None and pending[0] is source:
            self.pending_calls[alias.storage.id] = pending[:4] + (pending[4] | {name},)

    def note_argument_read(self, alias: Alias, name: str, node: cst.CSTNode) -> None:
        """SC305: a callee wrote this array in place, and the caller reads it now (under a
        name bound before the call, not to the call's result)."""
        pending = self.pending_calls.get(alias.storage.id)
        if pending is None or name in pending[4]:
            return
        del self.pending_calls[alias.storage.id]
        call, (inplace_node, chain), callee, _param, _ = pending
        inplace_line = self.line(inplace_node)
        # One finding per cause, where the caller can act: at the call, naming the write.
        self.report("SC305", call, argument_mutation_message(
            callee, chain, name, inplace_line, self.line(node)),
            related=((self.path, inplace_line),))

    def track_argument_writes(self, node: cst.Call, func: Value, args: list,
                              kwargs: dict) -> None:
        """A user function that writes a parameter in place writes the caller's argument.

        Which parameters a function writes comes from its standalone analysis, where each
        parameter is the caller's memory (``Functions.caller_owned``). SC305 is kept for
        calls whose result is used, to functions that return something and do not say they
        work in place, with arrays that are not buffers made to be filled.
        """
        from ..values import BoundMethod

        function = func.function if isinstance(func, BoundMethod) else func
        positional = [func.self_value] + list(args) if isinstance(func, BoundMethod) else args
        definition = function.node
        if not isinstance(definition, cst.FunctionDef):
            return
        params = list(definition.params.posonly_params) + list(definition.params.params)
        for index, param in enumerate(params):
            inplace = self.param_writes.get(id(param))
            if inplace is None:
                continue
            arg = positional[index] if index < len(positional) else kwargs.get(param.name.value)
            alias = arg.alias if isinstance(arg, AbstractArray) else None
            if alias is None or alias.storage is None or alias.view == "maybe":
                continue
            storage = alias.storage
            if storage.param is not None:
                # Our own parameter passed on: the callee's write reaches our caller.
                self.param_writes.setdefault(storage.id, (inplace[0],
                                                          (function.name,) + inplace[1]))
            if not storage.is_array:
                continue
            version = self.versions.get(storage.id, 0) + 1
            self.versions[storage.id] = version
            self.writes[storage.id] = self.writes.get(storage.id, ()) + (
                (version, f"{function.name}()", None, node),)
            if not mutation_is_documented(definition, param.name.value) and \
                    id(node) not in self.statement_calls and \
                    storage.id not in self.workspaces and returns_value(definition):
                self.pending_calls[storage.id] = (node, inplace, function.name, param.name.value,
                                                  frozenset())

    def parameters_of(self, node: cst.Call, instance: Any, name: str) -> Value:
        """``model.state_dict()`` (without keep_vars, deep copies or clones) holds the very
        tensors the model trains: one storage per module instance, seen through a view."""
        storage = self.parameter_storages.get(id(instance))
        if storage is None:
            owner = self.text(node.func.value, 30) if isinstance(node.func, cst.Attribute) else "model"
            storage = Storage(id(instance), f"{owner}'s parameters")
            self.parameter_storages[id(instance)] = storage
        return AbstractArray(None, None, "torch", self.origin(node),
                             alias=Alias(storage, "view", deps=frozenset({storage.id})))

    def optimizer(self, args: list, kwargs: dict) -> Value:
        """``torch.optim.Adam(model.parameters(), lr=...)``: it will write those parameters."""
        params = args[0] if args else kwargs.get("params")
        if isinstance(params, AbstractArray) and params.alias is not None and \
                params.alias.storage is not None:
            return OptimizerValue((params.alias.storage.id,))
        return UNKNOWN_VALUE

    def optimizer_step(self, node: cst.CSTNode, optimizer: Any) -> None:
        """``optimizer.step()`` writes every parameter it was built from, in place."""
        for sid in optimizer.storages:
            version = self.versions.get(sid, 0) + 1
            self.versions[sid] = version
            self.writes[sid] = self.writes.get(sid, ()) + ((version, "optimizer.step()", None,
                                                            node),)

    def deep_copy(self, node: cst.CSTNode, value: Value) -> Value:
        """``copy.deepcopy(x)``: new memory with x's shape."""
        if isinstance(value, AbstractArray):
            return self.fresh(value.derived(value.shape, self.origin(node)), node, "deepcopy")
        return UNKNOWN_VALUE

    def replay_writes(self, values: list, replay: tuple) -> None:
        """A cached call's writes into its caller's arrays, made again on this call's arrays."""
        reachable = storage_paths(values)
        done: set[int] = set()
        for path, entries in replay:
            sid = reachable.get(path)
            if sid is None or sid in done:
                continue
            done.add(sid)
            for _, writer, layout, write_node in entries:
                version = self.versions.get(sid, 0) + 1
                self.versions[sid] = version
                self.writes[sid] = self.writes.get(sid, ()) + ((version, writer, layout,
                                                                write_node),)

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

    # ------------------------------------------------------------------ results of calls

    def track_call(self, node: cst.Call, func: Value, args: list, kwargs: dict,
                   value: Value) -> Value:
        """The alias facts of a library call's or an array method's result, and its writes."""
        from .env import ArrayMethod

        if isinstance(func, ArrayMethod):
            return self.track_method(node, func.array, func.name, args, kwargs, value)
        if isinstance(func, ModuleRef) and func.library in ("numpy", "torch"):
            return self.track_library(node, func.qualname, args, kwargs, value)
        return value

    def track_method(self, node: cst.Call, array: AbstractArray, name: str, args: list,
                     kwargs: dict, value: Value) -> Value:
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else node.func
        if name in NUMPY_INPLACE_METHODS and array.library == "numpy":
            self.check_write_to_copy(receiver, node, f".{name}()")
            self.write(array, node, receiver, f".{name}()")
            return value
        if name == "requires_grad_":
            flag = args[0] if args else kwargs.get("requires_grad", ConstValue(True))
            alias = array.alias
            if flag == ConstValue(True) and alias is not None and alias.view == "base" and \
                    alias.storage is not None:
                self.grad_storages.add(alias.storage.id)
                return replace(self.with_storage(array, leaf_grad=True), requires_grad=True)
            return array
        if name == "backward":
            self.backward(node, array)
            return value
        if name.endswith("_") and not name.startswith("_"):  # written by inplace_op
            return array if isinstance(value, AbstractArray) else value
        if name in _COPIES or name == "astype" and kwargs.get("copy") != ConstValue(False):
            return self.fresh(value, node, "copy", operands=(array,))
        if name == "astype":
            return self.as_view(value, array, "maybe")
        if name in ("detach", "data"):
            return self.detached(value, array)
        dialect = self.dialect_for(array.library)
        spec = self.lookup(name, dialect)
        if spec is None:
            return value
        result = self.by_view_kind(node, spec, array, args, kwargs, value, name)
        return self.saved_for_backward(result, spec, array, name)

    def detached(self, value: Value, array: AbstractArray) -> Value:
        """``x.detach()`` / ``x.data``: the same memory, outside autograd's graph."""
        value = self.as_view(value, array, "view")
        if isinstance(value, AbstractArray) and value.alias is not None:
            storage = value.alias.storage
            value = replace(value, requires_grad=False, alias=replace(
                value.alias, deps=frozenset(),
                storage=replace(storage, leaf_grad=False, saved_by=None) if storage else None))
        return value

    def track_library(self, node: cst.Call, qualname: str, args: list, kwargs: dict,
                      value: Value) -> Value:
        """A numpy or torch function's result: new memory made here is certainly an array,
        whatever its arguments were (``np.ones(n)`` of a parameter ``n``)."""
        value = self.library_result(node, qualname, args, kwargs, value)
        alias = value.alias if isinstance(value, AbstractArray) else None
        if alias is not None and alias.storage is not None and alias.storage.id == id(node) \
                and not alias.storage.is_array:
            value = self.with_storage(value, is_array=True)
        return value

    def library_result(self, node: cst.Call, qualname: str, args: list, kwargs: dict,
                       value: Value) -> Value:
        first = args[0] if args else None
        if qualname in ("torch.autograd.grad", "torch.autograd.backward"):
            self.backward(node, first)
            return value
        if qualname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            off = kwargs.get("requires_grad") == ConstValue(False) or \
                len(args) > 1 and args[1] == ConstValue(False)
            return self.fresh(value, node, "parameter", leaf_grad=not off)
        if qualname == "numpy.copyto" and isinstance(first, AbstractArray):
            self.check_write_to_copy(node.args[0].value, node, "np.copyto")
            self.write(first, node, node.args[0].value, "np.copyto", tuple(args[1:2]))
            return value
        out = kwargs.get("out")
        if isinstance(out, AbstractArray):
            out_node = next(a.value for a in node.args if a.keyword is not None
                            and a.keyword.value == "out")
            self.write(out, node, out_node, "out= write", tuple(args))
        if not isinstance(first, AbstractArray):
            grad = kwargs.get("requires_grad") == ConstValue(True) and qualname.startswith("torch.")
            return self.fresh(value, node, qualname.rsplit(".", 1)[-1], leaf_grad=grad,
                              operands=tuple(args))
        if qualname in _SAME_STORAGE_CALLS:
            kind = "maybe" if "dtype" in kwargs or len(args) > 1 else "same"
            return self.as_view(value, first, kind)
        if qualname == "torch.from_numpy":
            return self.as_view(value, first, "view")
        if qualname == "numpy.array" and kwargs.get("copy") == ConstValue(False):
            return self.as_view(value, first, "same")
        library, _, name = qualname.partition(".")
        candidates = [("np." if library == "numpy" else "torch.") + name]
        if name.startswith("nn.functional."):
            candidates = ["F." + name[len("nn.functional."):], "torch." + name]
        dialect = self.dialect_for(first.library)
        op_name = next((c for c in candidates if self.lookup(c, dialect) is not None),
                       candidates[0])
        spec = self.lookup(op_name, dialect)
        if spec is None or spec.inplace:
            result = self.fresh(value, node, name.rsplit(".", 1)[-1], operands=tuple(args))
        else:
            result = self.by_view_kind(node, spec, first, args[1:], kwargs, value, op_name,
                                       pieces=args if spec.multi_output and qualname.endswith(
                                           ("broadcast_arrays", "broadcast_tensors")) else None)
        if library == "torch" and kwargs.get("inplace") != ConstValue(True):
            # What autograd saves is a property of the op, whichever namespace spells it.
            short = name.rsplit(".", 1)[-1]
            result = self.saved_for_backward(result, self.lookup(short, dialect), first, short)
        return result

    def by_view_kind(self, node: cst.CSTNode, spec: rt_ops.OpSpec, base: AbstractArray,
                     rest: list, kwargs: dict, value: Value, name: str,
                     pieces: list | None = None) -> Value:
        """A view of ``base`` of the kind the op table gives this call, or new memory."""
        if pieces is not None and isinstance(value, TupleValue) and \
                len(value.items) == len(pieces):
            kind = "repeated" if spec.repeats else "view"
            return TupleValue(tuple(self.as_view(item, source, kind) if isinstance(
                source, AbstractArray) else item for item, source in zip(value.items, pieces)),
                value.is_list)
        kind = spec.view_kind
        plain = [to_arg(v) for v in rest]
        plain_kwargs = {k: to_arg(v) for k, v in kwargs.items()}
        layout = None
        if base.shape is not None and FAIL not in plain and FAIL not in plain_kwargs.values():
            dialect = self.dialect_for(base.library)
            args = (self.operand(base),) + tuple(plain)
            try:
                kind = rt_ops.call_view_kind(spec, args, plain_kwargs, dialect)
            except Exception:  # arguments the op table cannot read: keep the op's own kind
                kind = spec.view_kind
            if kind != "none" and isinstance(value, AbstractArray) and _concrete(value.shape):
                layout = rt_ops.output_layout(spec, args, plain_kwargs, dialect,
                                              tuple(value.shape))
        alias = base.alias
        if kind == "maybe" and alias is not None and alias.layout is not None:
            # The operand's layout is known, so whether this is a view is decided.
            kind = "view" if layout is not None else "none"
        elif kind == "maybe" and alias is not None and alias.contiguous and \
                alias.view == "base" and spec.name != "astype" and "order" not in kwargs:
            kind = "view"  # a C-contiguous array reshapes, ravels and flattens without copying
        if kind == "none":
            return self.fresh(value, node, name.rsplit(".", 1)[-1], operands=(base, *rest))
        return self.as_view(value, base, kind, layout)

    def operand(self, array: AbstractArray) -> rt_ops.ArrayArg:
        """An array as the op table takes it, with its layout when known."""
        return array_arg(array)

    def track_index(self, node: cst.Subscript, base: AbstractArray, items: Any,
                    value: Value) -> Value:
        """``base[items]``: a view for basic indices, new memory for advanced ones."""
        if not isinstance(value, AbstractArray):
            return value
        if items is None:
            return value
        spec = self.lookup("__getitem__", self.dialect_for(base.library))
        try:
            kind = rt_ops.call_view_kind(spec, (array_arg(base), items), {},
                                         self.dialect_for(base.library)) \
                if base.shape is not None else _basic_kind(items)
        except Exception:
            return value
        if kind == "unknown":
            return value
        if kind == "none":
            storage = base.alias.storage if base.alias is not None else None
            if _certainly_advanced(items) and (storage is None or storage.is_array):
                self.copies.add(id(node))
            return self.fresh(value, node, "copy", operands=(base,))
        layout = None
        if base.alias is not None and base.alias.layout is not None:
            layout = _index_layout(base.alias.layout, items)
        return self.as_view(value, base, kind, layout)

    def written_region(self, base: AbstractArray, items: Any) -> AbstractArray:
        """What ``base[items] = ...`` writes: always base's memory, through the indexed view
        when the index is basic (a single element is still a place in base)."""
        shape = None
        if base.shape is not None and items is not None:
            rule_items = rule_index_items(items)
            try:
                shape = rt_indexing.index(tuple(base.shape), rule_items,
                                          dialect=self.dialect_for(base.library)).shape
            except Exception:
                shape = None
        region = replace(base, shape=None if shape is None else tuple(shape))
        if items is None:
            return replace(region, alias=compose(base.alias, "same"))
        parts = items if isinstance(items, tuple) else (items,)
        advanced = any(isinstance(p, (rt_ops.ArrayArg, list)) for p in parts)
        alias = compose(base.alias, "same" if advanced else "view")
        if alias is not None and not advanced and base.alias is not None and \
                base.alias.layout is not None:
            alias = replace(alias, layout=_index_layout(base.alias.layout, items))
        return replace(region, alias=alias)

    # ------------------------------------------------------------------ events

    def write(self, target: Value, node: cst.CSTNode, writer: cst.CSTNode | None,
              op: str, reads: tuple = ()) -> None:
        """``target`` is written in place at ``node``, computed from the values ``reads``."""
        if not isinstance(target, AbstractArray) or target.alias is None:
            return
        self.check_write_target(target, node, op)
        for value in reads:
            self.check_overlap(target, value, node)
        storage = target.alias.storage
        if storage is None:
            return
        version = self.versions.get(storage.id, 0) + 1
        self.versions[storage.id] = version
        self.writes[storage.id] = self.writes.get(storage.id, ()) + (
            (version, _writer_name(writer), target.alias.layout, node),)
        writer_name = _writer_name(writer)
        if storage.param is not None and target.alias.view != "maybe":
            self.param_writes.setdefault(storage.id, (node, ()))
        if target.alias.view == "maybe" and writer_name is not None:
            self.maybe_writes[storage.id] = (node, writer_name)
        if storage.saved_by is not None:
            self.saved_writes[storage.id] = (node, storage.saved_by)
        if storage.leaf_grad and not self.no_grad:
            self.report("SC307", node, leaf_inplace_message(
                op, target.alias.view != "base", self.storage_name(target.alias)), "RuntimeError")

    def check_write_to_copy(self, expr: cst.BaseExpression, node: cst.CSTNode, op: str) -> None:
        """SC301: the write goes, through plain views, into the result of advanced indexing: a
        copy that is dropped at once."""
        while True:
            if isinstance(expr, cst.Subscript):
                if id(expr) in self.copies:
                    self.report("SC301", node, write_to_copy_message(
                        op, self.text(expr), self.text(expr.value)))
                    return
                expr = expr.value
            elif isinstance(expr, cst.Attribute) and rt_ops.writes_reach_input(expr.attr.value):
                expr = expr.value
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
                    rt_ops.writes_reach_input(expr.func.attr.value):
                expr = expr.func.value
            else:
                return

    def check_overlap(self, written: AbstractArray, read: Value, node: cst.CSTNode) -> None:
        """SC303: torch refuses an in-place op whose input partially overlaps its output."""
        if not isinstance(read, AbstractArray) or read.alias is None or \
                written.library != "torch" or read.library != "torch" or \
                self.dialect_for("torch").legacy:
            return
        a, b = written.alias, read.alias
        if a.storage is None or b.storage is None or a.storage.id != b.storage.id or \
                a.layout is None or b.layout is None:
            return
        if torch_overlap_status(a.layout, b.layout) != "partial":
            return
        self.report("SC303", node, overlapping_inplace_message(
            format_shape(a.layout.shape), self.storage_name(a), format_shape(b.layout.shape)),
            "RuntimeError")

    def check_write_target(self, target: AbstractArray, node: cst.CSTNode, op: str) -> None:
        """SC302: the written view is read-only, or reaches one element at several indices."""
        alias = target.alias
        if alias.view == "readonly" or alias.view == "repeated" and alias.repeats:
            message = write_to_broadcast_view_message(
                op, alias.view, self.storage_name(alias), target.library,
                format_shape(target.shape) if target.shape is not None else "(?)")
            self.report("SC302", node, message,
                        "RuntimeError" if target.library == "torch" else "ValueError")


def storage_paths(values: list) -> dict[tuple, int]:
    """The storage of every array reachable from call arguments, by its path (argument index,
    then attribute names or tuple positions), so two calls with different arrays in the same
    places can be matched."""
    found: dict[tuple, int] = {}

    def walk(value: Value, path: tuple, seen: set) -> None:
        if isinstance(value, AbstractArray):
            if value.alias is not None and value.alias.storage is not None:
                found.setdefault(path, value.alias.storage.id)
        elif isinstance(value, InstanceValue) and id(value) not in seen:
            seen.add(id(value))
            for name, item in value.attrs.items():
                walk(item, path + (name,), seen)
        elif isinstance(value, TupleValue):
            for i, item in enumerate(value.items):
                walk(item, path + (i,), seen)

    for index, value in enumerate(values):
        walk(value, (index,), set())
    return found


def _basic_kind(items: Any) -> str:
    """The view kind of an index into an array of unknown rank, where the items alone tell."""
    parts = items if isinstance(items, tuple) else (items,)
    if any(isinstance(p, (rt_ops.ArrayArg, list)) for p in parts):
        return "none"
    if all(isinstance(p, slice) or p is None or p is Ellipsis for p in parts):
        return "view"
    return "unknown"


def _index_layout(layout: Layout, items: Any) -> Layout | None:
    """The layout of a basic index into ``layout``; None when the runtime cannot place it."""
    try:
        return layout.index(items)
    except Exception:  # an index the layout cannot read: the place is unknown, not an error
        return None


def _certainly_advanced(items: Any) -> bool:
    """An index with a list or an array of known rank (or a boolean mask): advanced indexing,
    which copies."""
    parts = items if isinstance(items, tuple) else (items,)
    return any(isinstance(p, list) or isinstance(p, rt_ops.ArrayArg) and (
        p.dtype == "bool" or len(p.shape) > 0) for p in parts)


def _may_overlap(a: Layout | None, b: Layout | None) -> bool:
    if a is None or b is None:
        return True
    return overlap(a, b) is not False


def _writer_name(node: cst.BaseExpression | None) -> str | None:
    """The name a write goes through: ``x`` for ``x[0] = 1`` or ``x.add_(1)``."""
    while node is not None:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, (cst.Subscript, cst.Attribute)):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None
    return None
