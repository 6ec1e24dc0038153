"""Training-loop effects: a model's parameters seen through ``state_dict()``, the optimizer
that writes them, and autograd's saved tensors (SC307 on ``backward()``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from ...runtime import ops as rt_ops
from ..rules.aliasing import saved_output_inplace_message
from ..values import UNKNOWN_VALUE, AbstractArray, Alias, Storage, Value
from .env import OptimizerValue

# nn.Module methods that reach the module's parameters: live references to them, or
# (load_state_dict) a write into them, in place.
PARAMETER_VIEWS = frozenset({"state_dict", "parameters", "named_parameters", "load_state_dict"})


class Training:
    """Parameters, optimizers and autograd's saved tensors."""

    def parameters_of(self, node: cst.Call, instance: Any, name: str) -> Value:
        """``model.state_dict()`` (without keep_vars, deep copies or clones) holds the very
        tensors the model trains: one storage per module instance, seen through a view.
        ``model.load_state_dict(sd)`` copies ``sd`` into those tensors, in place: a state dict
        taken before is changed by it."""
        storage = self.parameter_storages.get(id(instance))
        owner = self.text(node.func.value, 30) if isinstance(node.func, cst.Attribute) else "model"
        if storage is None:
            storage = Storage(id(instance), f"{owner}'s parameters")
            self.parameter_storages[id(instance)] = storage
        if name == "load_state_dict":
            self.record_write(storage.id, f"{owner}.load_state_dict()", node)
            return UNKNOWN_VALUE
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
            self.record_write(sid, "optimizer.step()", node)

    def record_write(self, sid: int, writer: str, node: cst.CSTNode) -> None:
        """A write into the whole of a storage that no rule checks at the write itself."""
        version = self.versions.get(sid, 0) + 1
        self.versions[sid] = version
        self.writes[sid] = self.writes.get(sid, ()) + ((version, writer, None, node),)

    def shallow_copy(self, node: cst.CSTNode, value: Value) -> Value:
        """``copy.copy(x)``: numpy copies an array's data; torch makes a new tensor on the same
        storage; a dict or a module keeps the very same tensors."""
        if not isinstance(value, AbstractArray):
            return value
        storage = value.alias.storage if value.alias is not None else None
        if value.library == "torch" and storage is not None and storage.is_array:
            return self.as_view(value, value, "view")
        # A numpy array, or a parameter that may be a dict or a list: a new container.
        return self.deep_copy(node, value)

    def deep_copy(self, node: cst.CSTNode, value: Value) -> Value:
        """``copy.deepcopy(x)``: new memory with x's shape."""
        if isinstance(value, AbstractArray):
            copied = self.fresh(value.derived(value.shape, self.origin(node)), node, "deepcopy")
            if value.maybe_not_array and copied.alias is not None:
                # A copy of a parameter nothing is known of (a module, a dict) is no array either.
                storage = replace(copied.alias.storage, is_array=False)
                copied = replace(copied, alias=replace(copied.alias, storage=storage))
            return copied
        return UNKNOWN_VALUE

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
