"""Training-loop effects: a model's parameters seen through ``state_dict()``, the optimizer
that writes them and their gradients, and autograd's saved tensors (SC307 on ``backward()``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from ...runtime import autograd_saved
from ...runtime import ops as rt_ops
from ...runtime.nn import RETURNS_SELF as NN_RETURNS_SELF
from ..rules.aliasing import saved_input_inplace_message, saved_output_inplace_message
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    Alias,
    InstanceValue,
    LayerValue,
    Storage,
    TupleValue,
    Value,
)
from .env import OptimizerValue

# nn.Module methods that reach the module's parameters: live references to them, or
# (load_state_dict, zero_grad) a write into them or their gradients, in place.
PARAMETER_VIEWS = frozenset({"state_dict", "parameters", "named_parameters", "load_state_dict",
                             "zero_grad"})
# Functions that scale or clamp the .grad of the parameters they are given, in place.
GRAD_CLIPPERS = frozenset({"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
                           "torch.nn.utils.clip_grad.clip_grad_norm_",
                           "torch.nn.utils.clip_grad.clip_grad_value_",
                           "torch.nn.utils.clip_grads_with_norm_"})


class Training:
    """Parameters, optimizers and autograd's saved tensors."""

    def parameters_of(self, node: cst.Call, instance: Any, name: str) -> Value:
        """``model.state_dict()`` (without keep_vars, deep copies or clones) holds the very
        tensors the model trains: one storage per module instance, seen through a view.
        ``model.load_state_dict(sd)`` copies ``sd`` into those tensors, in place: a state dict
        taken before is changed by it. ``model.to(device)``, ``.eval()``... return the module."""
        if name in NN_RETURNS_SELF:
            return instance
        storage = self.parameter_storages.get(id(instance))
        owner = self.text(node.func.value, 30) if isinstance(node.func, cst.Attribute) else "model"
        if storage is None:
            storage = Storage(id(instance), f"{owner}'s parameters")
            self.parameter_storages[id(instance)] = storage
            self.parameter_owners[storage.id] = instance
        if name == "load_state_dict":
            for sid in self.parameter_family(storage.id):
                self.record_write(sid, f"{owner}.load_state_dict()", node)
            return UNKNOWN_VALUE
        if name == "zero_grad":
            self.zero_grads(node, (storage.id,), f"{owner}.zero_grad")
            return UNKNOWN_VALUE
        return AbstractArray(None, None, "torch", self.origin(node),
                             alias=Alias(storage, "view", deps=frozenset({storage.id})))

    def init_fill(self, node: cst.Call, name: str, args: list, arg_nodes: list) -> Value:
        """``nn.init.normal_(w)`` writes w in place under no_grad: a leaf may be filled, a
        tensor saved for backward may not; ``nn.init.zeros_(emb.weight[ids])`` fills a copy
        that is dropped at once."""
        label = f"nn.init.{name}()"
        self.check_write_to_copy(arg_nodes[0], node, label)
        self.no_grad += 1
        try:
            self.write(args[0] if args else None, node, arg_nodes[0], label)
        finally:
            self.no_grad -= 1
        return args[0] if args else UNKNOWN_VALUE

    def optimizer(self, args: list, kwargs: dict) -> Value:
        """``torch.optim.Adam(model.parameters(), lr=...)``: it will write those parameters."""
        params = args[0] if args else kwargs.get("params")
        if isinstance(params, AbstractArray) and params.alias is not None and \
                params.alias.storage is not None:
            return OptimizerValue((params.alias.storage.id,))
        return UNKNOWN_VALUE

    def optimizer_call(self, node: cst.Call, optimizer: Any, name: str) -> None:
        """``optimizer.step()`` writes every parameter it was built from, in place;
        ``optimizer.zero_grad(set_to_none=False)`` their gradients."""
        if name == "step":
            for sid in optimizer.storages:
                for member in self.parameter_family(sid):
                    self.record_write(member, "optimizer.step()", node)
        elif name == "zero_grad":
            self.zero_grads(node, optimizer.storages, "optimizer.zero_grad")

    def zero_grads(self, node: cst.Call, storages: tuple, label: str) -> None:
        """``zero_grad()`` sets every gradient to None by default (a tensor taken before keeps
        its values); with ``set_to_none=False`` it zeroes them in place."""
        flag = next((a.value for a in node.args if a.keyword is None or
                     a.keyword.value == "set_to_none"), None)
        if not (isinstance(flag, cst.Name) and flag.value == "False"):
            return
        for sid in storages:
            for member in self.parameter_family(sid):
                self.record_write(grad_storage_id(member), f"{label}(set_to_none=False)", node)

    def clip_grads(self, node: cst.Call, qualname: str, params: Value) -> None:
        """``clip_grad_norm_(model.parameters(), ...)`` scales the parameters' gradients in
        place."""
        alias = params.alias if isinstance(params, AbstractArray) else None
        if alias is None or alias.storage is None:
            return
        label = qualname.rsplit(".", 1)[-1] + "()"
        for member in self.parameter_family(alias.storage.id):
            self.record_write(grad_storage_id(member), label, node)

    def grad_of(self, node: cst.CSTNode, array: AbstractArray) -> Value:
        """``p.grad``: the gradient autograd accumulates for ``p``, one storage per parameter
        storage, which ``zero_grad(set_to_none=False)`` and ``clip_grad_norm_`` write in
        place."""
        value = array.derived(array.shape, array.origin, tail=array.tail, requires_grad=False)
        storage = array.alias.storage if array.alias is not None else None
        if storage is None or array.library != "torch":
            return value
        grads = Storage(grad_storage_id(storage.id), f"{self.text(node, 40)}",
                        is_array=storage.is_array)
        return replace(value, alias=Alias(grads, "view", deps=frozenset()))

    def parameter_family(self, sid: int) -> set[int]:
        """A module's parameters storage with the storages of the parameters of its layers
        (``model.head.weight``), which the same optimizer writes."""
        found = {sid}
        owner = self.parameter_owners.get(sid)
        if owner is not None:
            _layer_parameters(owner, found, set())
        return found

    def record_write(self, sid: int, writer: str, node: cst.CSTNode) -> None:
        """A write into the whole of a storage that no rule checks at the write itself."""
        version = self.versions.get(sid, 0) + 1
        self.versions[sid] = version
        self.writes[sid] = self.writes.get(sid, ()) + ((version, writer, None, node),)

    def shallow_copy(self, node: cst.CSTNode, value: Value) -> Value:
        """``copy.copy(x)``: numpy copies an array's data; torch makes a new tensor on the same
        storage; a dict or a module keeps the very same tensors. An instance of a class of
        the code is a new instance with the same attributes: setting one on the copy leaves the
        original as it was (``block_cnf = copy.copy(cnf)``)."""
        if isinstance(value, InstanceValue):
            return InstanceValue(value.cls, dict(value.attrs))
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
        if isinstance(value, AbstractArray) and value.alias is not None and \
                value.alias.storage is not None:
            # A save is fresh: a write into the output the loop made last time is no harm.
            self.saved_writes.pop(value.alias.storage.id, None)
        return self.with_storage(value, saved_by=name.rsplit(".", 1)[-1])

    def save_inputs(self, name: str, operands: list, result: Value) -> None:
        """An op whose backward reads some of its inputs (``x * w`` keeps w when x needs grad,
        and x when w does, per ``runtime.autograd_saved``): torch checks at backward() that
        none was written in place since. Nothing is saved under no_grad, and only tensors
        of certain identity count."""
        alias = result.alias if isinstance(result, AbstractArray) else None
        if self.no_grad or alias is None or alias.storage is None:
            return
        if any(isinstance(o, AbstractArray) and (o.library != "torch" or o.maybe_not_array)
               for o in operands):
            return  # a numpy array, or a parameter that may be a number: no overload is certain
        needs = tuple(self.needs_grad(o) for o in operands)
        if not any(needs):
            return
        tensors = tuple(isinstance(o, AbstractArray) for o in operands)
        saved = autograd_saved.saved_inputs("mm" if name == "matmul" else name, tensors, needs)
        for position in saved or ():
            kept = operands[position].alias
            if kept is None or kept.storage is None or kept.view == "maybe":
                continue
            # A save is fresh: writes before it are no harm to this graph.
            self.saved_writes.pop(kept.storage.id, None)
            self.saved_inputs[kept.storage.id] = (name, alias.storage.id)

    def backward(self, node: cst.CSTNode, value: Value) -> None:
        """``loss.backward()``: every saved tensor written in place since is read again, when
        the op that saved it is in the loss's graph. The graph is freed then: what it saved
        is saved no more."""
        if not isinstance(value, AbstractArray) or value.alias is None:
            return
        deps = value.alias.deps
        line = self.line(node)
        for storage_id, (inplace_node, op, saver, name) in list(self.saved_writes.items()):
            if saver not in deps:
                continue
            message = saved_output_inplace_message(op, line) if name is None else \
                saved_input_inplace_message(op, name, line)
            self.report("SC307", inplace_node, message, "RuntimeError",
                        related=((self.path, line),))
            del self.saved_writes[storage_id]
        for storage_id, (_, saver) in list(self.saved_inputs.items()):
            if saver in deps:
                del self.saved_inputs[storage_id]


def grad_storage_id(sid: int) -> int:
    """The storage of the gradient of the parameters in storage ``sid``."""
    return hash(("grad", sid))


def _layer_parameters(module: Any, found: set[int], seen: set[int]) -> None:
    """The storages of the parameters of ``module`` and of every layer it holds: a layer's
    ``weight`` and ``bias`` (``Modules.layer_parameter``), a submodule's own ``parameters()``,
    an ``nn.Parameter`` attribute."""
    if id(module) in seen:
        return
    seen.add(id(module))
    found.add(id(module))
    if isinstance(module, LayerValue):
        found.update(hash((id(module), name)) for name in ("weight", "bias"))
        for child in module.layers:
            _layer_parameters(child, found, seen)
    elif isinstance(module, InstanceValue):
        for item in module.attrs.values():
            _attribute_parameters(item, found, seen)


def _attribute_parameters(item: Any, found: set[int], seen: set[int]) -> None:
    if isinstance(item, (LayerValue, InstanceValue)):
        _layer_parameters(item, found, seen)
    elif isinstance(item, TupleValue):
        for element in item.items:
            _attribute_parameters(element, found, seen)
    elif isinstance(item, AbstractArray) and item.alias is not None and \
            item.alias.storage is not None and item.alias.storage.leaf_grad:
        found.add(item.alias.storage.id)
