"""Alias facts of library calls, array methods and subscripts: which results share their
operand's memory (by the runtime op table's view kinds) and which calls write it.

Creation and copying ops make a fresh storage, view ops keep the operand's, and a view of a
view composes (``alias_facts.compose``). SC308 (a torch ``.view`` of a layout that cannot be
viewed) is the runtime's verdict: ``array_arg`` passes the layout known here into the op's
operand.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from ...runtime import dtypes as rt_dtypes
from ...runtime import ops as rt_ops
from ...runtime.rules import indexing as rt_indexing
from ...runtime.verdicts import ShapeError
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    ConstValue,
    LayerValue,
    ModuleRef,
    TupleValue,
    Value,
)
from .alias_facts import compose, concrete, index_layout, replace
from .operands import (
    FAIL,
    array_arg,
    dtype_from,
    dtype_of,
    ndim_of,
    rule_index_items,
    to_arg,
)
from .training import GRAD_CLIPPERS

# numpy's in-place ndarray methods (torch spells in-place with a trailing "_").
# (ndarray.resize changes the array's own shape: inplace.py.)
NUMPY_INPLACE_METHODS = frozenset({"fill", "sort", "put", "itemset", "partition", "setfield"})
_COPIES = frozenset({"copy", "clone"})
# torch ops whose outputs are several views of the input (tensor_split's are not marked so).
MULTI_VIEW_OPS = frozenset({"unbind", "split", "chunk"})
SAME_STORAGE_CALLS = frozenset({"numpy.asarray", "numpy.asanyarray", "torch.as_tensor"})
# numpy functions that write into their first argument, in place; the value is what they read.
_NUMPY_WRITERS = {"numpy.copyto": "np.copyto", "numpy.put": "np.put", "numpy.place": "np.place",
                  "numpy.putmask": "np.putmask", "numpy.fill_diagonal": "np.fill_diagonal"}


class CallEffects:
    """The alias facts of call and subscript results, and the writes calls make."""

    def track_call(self, node: cst.Call, func: Value, args: list, kwargs: dict,
                   value: Value) -> Value:
        """The alias facts of a library call's or an array method's result, and its writes."""
        from .env import ArrayMethod

        if isinstance(func, ArrayMethod):
            return self.track_method(node, func.array, func.name, args, kwargs, value)
        if isinstance(func, ModuleRef) and func.library in ("numpy", "torch"):
            return self.track_library(node, func.qualname, args, kwargs, value)
        if isinstance(func, LayerValue) and isinstance(value, AbstractArray) and not self.no_grad:
            # A layer's output is computed from its weight, a leaf that requires grad.
            weight = self.layer_parameter(node, func, "weight")
            if isinstance(weight, AbstractArray):
                return self.fresh(value, node, func.kind, operands=(weight, *args))
        return value

    def track_method(self, node: cst.Call, array: AbstractArray, name: str, args: list,
                     kwargs: dict, value: Value) -> Value:
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else node.func
        if self.reshaping_spec(array, name) is not None:
            return value  # the array itself, reshaped and written (inplace.py)
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
                leaf = replace(self.with_storage(array, leaf_grad=True), requires_grad=True)
                if isinstance(receiver, cst.Name) and receiver.value in self.frame.scope.vars:
                    self.frame.scope.vars[receiver.value] = leaf  # t.requires_grad_() flags t
                return leaf
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
        if name == "numpy" and array.library == "torch" and not args:
            # A CPU tensor's .numpy() is an ndarray on the tensor's own memory.
            result = value if isinstance(value, AbstractArray) else AbstractArray(
                array.shape, array.dtype, "numpy", self.origin(node))
            return self.as_view(replace(result, library="numpy"), array, "view")
        dialect = self.dialect_for(array.library)
        spec = self.lookup(name, dialect)
        if spec is None:
            return value
        result = self.by_view_kind(node, spec, array, args, kwargs, value, name)
        if name in MULTI_VIEW_OPS:
            result = self.pieces_of(result, array, name)
        self.save_inputs(name, [array, *args], result)
        return self.saved_for_backward(result, spec, array, name)

    def detached(self, value: Value, array: AbstractArray, through_data: bool = False) -> Value:
        """``x.detach()`` / ``x.data``: the same memory, outside autograd's graph (and, through
        ``.data``, outside the version counter autograd checks at backward)."""
        value = self.as_view(value, array, "view")
        if isinstance(value, AbstractArray) and value.alias is not None:
            storage = value.alias.storage
            value = replace(value, requires_grad=False, alias=replace(
                value.alias, deps=frozenset(), multi_view=None,
                storage=replace(storage, leaf_grad=False, saved_by=None,
                                unversioned=through_data) if storage else None))
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
        if qualname in GRAD_CLIPPERS:
            self.clip_grads(node, qualname, first if first is not None else kwargs.get(
                "parameters"))
            return value
        if qualname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            off = kwargs.get("requires_grad") == ConstValue(False) or \
                len(args) > 1 and args[1] == ConstValue(False)
            return self.fresh(value, node, "parameter", leaf_grad=not off)
        if qualname in _NUMPY_WRITERS and isinstance(first, AbstractArray) and node.args:
            label = _NUMPY_WRITERS[qualname]
            self.check_write_to_copy(node.args[0].value, node, label)
            self.write(first, node, node.args[0].value, label, tuple(args[1:]))
            return value
        out = kwargs.get("out")
        if isinstance(out, AbstractArray):
            # out= written out, or in a ``**kw`` dict of known keys: then the call is where.
            out_node = next((a.value for a in node.args if a.keyword is not None
                             and a.keyword.value == "out"), node)
            self.write(out, node, out_node, "out= write", tuple(args))
            self.check_out_dtype(node, qualname, args, kwargs, out, out_node)
        if not isinstance(first, AbstractArray):
            grad = kwargs.get("requires_grad") == ConstValue(True) and qualname.startswith("torch.")
            return self.fresh(value, node, qualname.rsplit(".", 1)[-1], leaf_grad=grad,
                              operands=tuple(args))
        if qualname in SAME_STORAGE_CALLS:
            kind = self.conversion_kind(qualname, first, args, kwargs)
            if kind == "none":
                return self.fresh(value, node, "copy", operands=(first,))
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
            if short in MULTI_VIEW_OPS:
                result = self.pieces_of(result, first, short)
            self.save_inputs(short, list(args), result)
            result = self.saved_for_backward(result, self.lookup(short, dialect), first, short)
        return result

    def conversion_kind(self, qualname: str, first: AbstractArray, args: list,
                        kwargs: dict) -> str:
        """``np.asarray(x, dtype)`` / ``torch.as_tensor(x, dtype)`` keep x's memory when the
        dtype is x's own (or not given), and copy when it differs; other arguments (device,
        order) leave it open."""
        if set(kwargs) - {"dtype"} or len(args) > 2:
            return "maybe"
        dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        if dtype is None or dtype == ConstValue(None):
            return "same"
        target = dtype_from(dtype, qualname.partition(".")[0])
        if target is None or first.dtype is None:
            return "maybe"
        return "same" if target == first.dtype else "none"

    def check_out_dtype(self, node: cst.Call, qualname: str, args: list, kwargs: dict,
                        out: AbstractArray, out_node: cst.CSTNode) -> None:
        """SC202: a pointwise op's result must cast to out='s dtype (NumPy's same_kind rule;
        torch refuses float into integer and anything into bool). Any other keyword (casting=,
        dtype=, rounding_mode=) may change the result's dtype or the rule: not judged."""
        if set(kwargs) != {"out"}:
            return
        library, _, name = qualname.partition(".")
        dialect = self.dialect_for(library)
        spec = self.lookup(("np." if library == "numpy" else "torch.") + name, dialect)
        if spec is None or not spec.broadcasts or len(args) < 2:
            return
        a, b = args[0], args[1]
        result = rt_dtypes.op_result_type(name, dtype_of(a), dtype_of(b), dialect, ndim_of(a),
                                          ndim_of(b))
        try:
            rt_dtypes.inplace_dtype(out.dtype, result, op=name, dialect=dialect)
        except ShapeError as err:
            operands = [(v, n.value) for v, n in zip(args[:2], node.args) if isinstance(
                v, AbstractArray)] + [(out, out_node)]
            label = f"{'np' if library == 'numpy' else 'torch'}.{name} out="
            saved, self.out_call = self.out_call, True  # a write into out='s stated dtype
            try:
                self.report_error(err, node, operands, label, dialect, None)
            finally:
                self.out_call = saved

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
            if kind != "none" and isinstance(value, AbstractArray) and concrete(value.shape):
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
            layout = index_layout(base.alias.layout, items)
        return self.as_view(value, base, kind, layout)

    def row_of(self, array: AbstractArray) -> AbstractArray:
        """What iterating ``array`` gives: views of its rows (torch unbinds, numpy indexes).
        Of a parameter nothing is known of, an item of a list, a dict's key or a row:
        anything, in the caller's memory when the caller passes an array."""
        if array.shape:
            row = array.derived(array.shape[1:], array.origin, dtype=array.dtype)
        elif array.maybe_not_array:
            row = AbstractArray(None, None, array.library, array.origin)
        else:
            row = AbstractArray(None, array.dtype, array.library, array.origin)
        return self.pieces_of(self.as_view(row, array, "view"), array, "unbind")

    def pieces_of(self, value: Value, base: AbstractArray, op: str) -> Value:
        """The outputs of ``base.unbind()`` / ``split`` / ``chunk`` (and iteration, which
        unbinds): views torch will not write in place while autograd records ``base``."""
        if isinstance(value, TupleValue):
            return TupleValue(tuple(self.pieces_of(item, base, op) for item in value.items),
                              value.is_list)
        if base.library != "torch" or not self.needs_grad(base) or \
                not isinstance(value, AbstractArray) or value.alias is None or \
                value.alias.view == "base":
            return value
        return replace(value, alias=replace(value.alias, multi_view=op))

    def listed_rows(self, array: AbstractArray, is_list: bool) -> Value:
        """``list(t)`` / ``tuple(t)``: the rows of t, views of its memory, when they are few
        and counted."""
        if array.shape and isinstance(array.shape[0], int) and 0 < array.shape[0] <= 64:
            return TupleValue((self.row_of(array),) * array.shape[0], is_list)
        return UNKNOWN_VALUE

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
            alias = replace(alias, layout=index_layout(base.alias.layout, items))
        return replace(region, alias=alias)


def _basic_kind(items: Any) -> str:
    """The view kind of an index into an array of unknown rank, where the items alone tell."""
    parts = items if isinstance(items, tuple) else (items,)
    if any(isinstance(p, (rt_ops.ArrayArg, list)) for p in parts):
        return "none"
    if all(isinstance(p, slice) or p is None or p is Ellipsis for p in parts):
        return "view"
    return "unknown"


def _certainly_advanced(items: Any) -> bool:
    """An index with a list or an array of known rank (or a boolean mask): advanced indexing,
    which copies."""
    parts = items if isinstance(items, tuple) else (items,)
    return any(isinstance(p, list) or isinstance(p, rt_ops.ArrayArg) and (
        p.dtype == "bool" or len(p.shape) > 0) for p in parts)
