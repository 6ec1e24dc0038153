"""SC305: a function writes its caller's array in place and the caller reads it afterwards.

The standalone analysis of a function records which parameters it writes (``param_writes``,
keyed by the parameter's storage); at each call the caller's argument counts as written there,
and the write is pending (flow state) until the array is read under a name bound before the
call. Functions that say they work in place, procedures that return nothing, calls used as
statements and buffers made by allocators are exempt (``contracts.py``); a parameter passed on
to such a callee passes the write on to our own caller. A parameter nothing is known of
becomes, for its aliasing only, an array of unknown rank in the caller's memory
(``Functions.caller_owned``; ``Storage.is_array`` False).

The finding sits at the call in the function that reads the array. When that array is the
function's own (made in its body, not reached from its arguments), it stays there even when
only a caller's arguments made the array known: one finding, not one at every call of it.
"""

from __future__ import annotations

import libcst as cst

from ..rules.aliasing import argument_mutation_message
from ..values import (
    AbstractArray,
    Alias,
    BoundMethod,
    FunctionValue,
    InstanceValue,
    TupleValue,
    Value,
)
from .contracts import mutation_is_documented, returns_value


class ArgumentWrites:
    """Writes a call makes into its caller's arrays, and the reads that come after."""

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
        if pending is None or name in pending[4] or _next_piece(pending[0], node):
            return
        del self.pending_calls[alias.storage.id]
        call, (inplace_node, chain), callee, _param, _ = pending
        inplace_line = self.line(inplace_node)
        # One finding per cause, where the caller can act: at the call, naming the write. An
        # array this function made itself is its own: the finding stays at this call whatever
        # arguments made the array known, not at each call of the function that knew them.
        own = bool(self.caller_storages) and alias.storage.id not in self.caller_storages[-1][0]
        self.report("SC305", call, argument_mutation_message(
            callee, chain, name, inplace_line, self.line(node)),
            related=((self.path, inplace_line),), own=own)

    def track_argument_writes(self, node: cst.Call, func: Value, args: list,
                              kwargs: dict) -> None:
        """A user function that writes a parameter in place writes the caller's argument.

        Which parameters a function writes comes from its standalone analysis, where each
        parameter is the caller's memory (``Functions.caller_owned``). SC305 is kept for
        calls whose result is used, to functions that return something and do not say they
        work in place, with arrays that are not buffers made to be filled.
        """
        label = None
        if isinstance(func, InstanceValue):
            # loss_fn(pred, target): the module's forward (or __call__) with the instance.
            forward = func.cls.members.get("forward" if func.cls.is_nn_module else "__call__")
            if forward is None:
                forward = func.cls.members.get("__call__")
            if not isinstance(forward, FunctionValue):
                return
            label = f"{func.cls.name}.{forward.name}"
            func = BoundMethod(forward, func)
        function = func.function if isinstance(func, BoundMethod) else func
        label = label or function.name
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
                                                          (label,) + inplace[1]))
            if not storage.is_array:
                continue
            version = self.versions.get(storage.id, 0) + 1
            self.versions[storage.id] = version
            # Written through the name the call passed (tally(total) writes total), as a write
            # in the caller's own code would be: no snapshot of that name goes stale by it.
            given = _argument_node(node, index - (len(positional) - len(args)), param.name.value)
            writer = given.value if isinstance(given, cst.Name) else f"{label}()"
            self.writes[storage.id] = self.writes.get(storage.id, ()) + (
                (version, writer, None, node),)
            owned = bool(self.caller_storages) and storage.id in self.caller_storages[-1][1]
            if not mutation_is_documented(definition, param.name.value) and \
                    id(node) not in self.statement_calls and not owned and \
                    storage.id not in self.workspaces and returns_value(definition):
                self.pending_calls[storage.id] = (node, inplace, label, param.name.value,
                                                  frozenset())

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


def _argument_node(call: cst.Call, index: int, name: str) -> cst.BaseExpression | None:
    """The expression a call passes for the parameter at ``index`` (among the call's own
    positional arguments) or named ``name``; None for a splat or nothing."""
    positional = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if positional == index:
                return arg.value
            positional += 1
        elif arg.keyword.value == name:
            return arg.value
    return None


def _next_piece(call: cst.Call, read: cst.CSTNode) -> bool:
    """The read is the call's own argument ``tiles[i * n + j]``, reached again by a loop: each
    pass writes one piece and reads the next, never the piece it wrote before."""
    for arg in call.args:
        expr, indexed = arg.value, False
        while True:
            if isinstance(expr, cst.Subscript):
                indexed = indexed or not all(
                    isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Integer)
                    for e in expr.slice)
                expr = expr.value
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
                expr = expr.func.value
            elif isinstance(expr, cst.Attribute):
                expr = expr.value
            else:
                break
        if expr is read and indexed:
            return True
    return False
