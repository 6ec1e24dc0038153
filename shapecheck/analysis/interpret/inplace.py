"""In-place ops: ``x += y``, ``x.add_(y)``, ``x.copy_(y)`` write a result that must fit the
target's shape and dtype; ``x.unsqueeze_(2)``, ``x.t_()``, ``x.resize_(n)``, NumPy's
``a.resize(s)`` and ``a.shape = s`` change the target's own shape.

After a shape-changing op the array has the shape the op table's rule gives (runtime OpSpec
``reshapes_target``: the rule of the op's out-of-place twin), under every name of the scope
that holds that very array (``y = x`` binds the same object). The change writes no element,
but autograd counts it as an in-place op (the version counter, a leaf that requires grad) and
a caller's array changes all the same, so it is a write of no element (``Effects.write``); it
is never an in-place resize (SC201).
"""

from __future__ import annotations

import libcst as cst

from ...runtime import dtypes as rt_dtypes
from ...runtime import ops as rt_ops
from ...runtime.dims import eq
from ...runtime.verdicts import ShapeError
from ..values import UNKNOWN_VALUE, AbstractArray, ConstValue, InstanceValue, Value
from .alias_facts import concrete, replace
from .effects import NOT_DATA_WRITES
from .names import AUG_LABEL
from .operands import FAIL, array_arg, dtype_of, ndim_of


class InPlace:
    """Writes of in-place ops, and the new shape of an array an in-place op reshaped."""

    def inplace_op(self, node, target: AbstractArray, target_node, op: str, others: list,
                   name: str, kwargs: dict | None = None) -> None:
        """x += y, x.add_(y), x.copy_(y): the result must fit x's shape and dtype."""
        if name not in NOT_DATA_WRITES:
            if not name.startswith("__"):
                self.check_write_to_copy(target_node, node, f".{name}()")
            elif isinstance(target_node, cst.Subscript):  # x[i] += 1 is x[i]'s own setitem
                self.check_write_to_copy(target_node.value, node, "assignment")
            self.write(target, node, target_node,
                       "augmented assignment" if name.startswith("__") else f".{name}()",
                       tuple(v for v, _ in others))
        if target.shape is None:
            return
        dialect = self.dialect_for(target.library)
        args = [self.to_arg(v) for v, _ in others]
        if any(a is FAIL for a in args) or any(
                isinstance(v, AbstractArray) and v.shape is None for v, _ in others):
            return
        operands = [(target, target_node)] + others
        label = name if not name.startswith("__") else AUG_LABEL.get(name, name)
        self.inplace_call = True
        try:
            result = self._apply_inplace(name, dialect, target, args, kwargs, node, operands, label)
        finally:
            self.inplace_call = False
        if result is None:
            return
        other = others[0][0] if others else None
        base_op = op.rstrip("_") if not op.startswith("__") else op
        if name in ("copy_",) or other is None:
            return
        result_dtype = rt_dtypes.op_result_type(base_op, target.dtype, dtype_of(other), dialect,
                                                ndim_of(target), ndim_of(other))
        try:
            rt_dtypes.inplace_dtype(target.dtype, result_dtype, op=base_op, dialect=dialect)
        except ShapeError as err:
            self.report_error(err, node, operands, label, dialect, None)

    def _apply_inplace(self, name, dialect, target, args, kwargs, node, operands, label):
        return self.apply(name, dialect, (array_arg(target),) + tuple(args), {
            k: a for k, a in ((k, self.to_arg(v)) for k, v in (kwargs or {}).items())
            if a is not FAIL}, node, operands, label)

    def reshaping_spec(self, array: AbstractArray, name: str) -> rt_ops.OpSpec | None:
        """The op table's entry when ``array.name(...)`` changes the array's own shape."""
        spec = self.lookup(name, self.dialect_for(array.library))
        return spec if spec is not None and spec.reshapes_target is not None else None

    def reshape_in_place(self, node: cst.Call, array: AbstractArray, spec: rt_ops.OpSpec,
                         args: list, kwargs: dict, arg_nodes: list) -> Value:
        """``x.unsqueeze_(2)`` and its family: what the call returns (x itself in torch,
        None for NumPy's ``a.resize``)."""
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else node.func
        label = f".{spec.name}()"
        self.check_write_to_copy(receiver, node, label)
        self.write(array, node, receiver, label, elements=False)
        reshaped = self.reshaped(node, array, receiver, spec, args, kwargs, arg_nodes, label)
        self.rebind_reshaped(array, reshaped, receiver)
        return reshaped if array.library == "torch" else ConstValue(None)

    def assign_shape(self, target: cst.Attribute, array: AbstractArray, value: Value,
                     source: cst.CSTNode) -> None:
        """NumPy's ``a.shape = s``: reshape's rule, in place (a torch tensor refuses it)."""
        spec = self.lookup("shape", self.dialect_for(array.library))
        if spec is None:
            reshaped = array.with_shape(None)
        else:
            reshaped = self.reshaped(source, array, target.value, spec, [value], {}, [source],
                                     "shape assignment")
        self.rebind_reshaped(array, reshaped, target.value)

    def reshaped(self, node: cst.CSTNode, array: AbstractArray, receiver: cst.CSTNode,
                 spec: rt_ops.OpSpec, args: list, kwargs: dict, arg_nodes: list,
                 label: str) -> AbstractArray:
        """The array after the op: the rule's shape, its layout in the same storage when the
        twin is a view of known layout; an unknown shape when the rule cannot tell (or the
        call certainly fails, which the rule reports)."""
        alias = array.alias
        unknown = array.with_shape(None, explicit_axis=False, reduced=None, assumed_rank=False,
                                   alias=replace(alias, layout=None, contiguous=False)
                                   if alias is not None else None)
        if array.shape is None:
            return unknown
        dialect = self.dialect_for(array.library)
        conv_args = tuple(self.to_arg(v) for v in args)
        conv_kwargs = {k: self.to_arg(v) for k, v in kwargs.items()}
        if FAIL in conv_args or FAIL in conv_kwargs.values():
            return unknown
        operands = [(array, receiver)] + list(zip(args, arg_nodes or [node] * len(args)))
        result = self.apply(spec.name, dialect, (array_arg(array),) + conv_args, conv_kwargs,
                            node, operands, label)
        if result is None:
            return unknown
        shape = tuple(result.shape)
        twin = self.lookup(spec.reshapes_target, dialect)
        if alias is not None:
            layout = None
            if twin is not None and twin is not spec and concrete(shape):
                layout = rt_ops.output_layout(twin, (array_arg(array),) + conv_args,
                                              conv_kwargs, dialect, shape)
            alias = replace(alias, layout=layout,
                            contiguous=layout.is_contiguous() if layout is not None else False)
        return array.with_shape(shape, alias=alias, origin=self.origin(node), reduced=None,
                                explicit_axis=twin is not None and twin.adds_axis,
                                assumed_rank=array.assumed_rank)

    def rebind_reshaped(self, array: AbstractArray, reshaped: AbstractArray,
                        receiver: cst.CSTNode) -> None:
        """Every name of this scope bound to the very array ``array`` holds ``reshaped`` from
        here on, each with its own binding facts (``y = x``: the same object). The same base
        storage with the same shape is taken for the same object."""
        storage = array.alias.storage if array.alias is not None and \
            array.alias.view == "base" else None

        def holds(value: Value) -> bool:
            if value is array:
                return True
            return storage is not None and isinstance(value, AbstractArray) and \
                value.alias is not None and value.alias.storage == storage and \
                value.alias.view == "base" and _same_shape(value.shape, array.shape)

        scope = self.frame.scope
        for name, value in list(scope.vars.items()):
            if holds(value):
                scope.vars[name] = _rebound(value, array, reshaped)
        if isinstance(receiver, cst.Attribute):
            with self.suppressed():
                owner = self.eval(receiver.value)
            attr = receiver.attr.value
            if isinstance(owner, InstanceValue) and holds(owner.attrs.get(attr, UNKNOWN_VALUE)):
                owner.attrs[attr] = _rebound(owner.attrs[attr], array, reshaped)


def _same_shape(a: tuple | None, b: tuple | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(eq(x, y) is True for x, y in zip(a, b))


def _rebound(holder: AbstractArray, array: AbstractArray,
             reshaped: AbstractArray) -> AbstractArray:
    """``holder``'s binding (its name, its snapshot facts) of the reshaped array; the very
    value the call returns where it held the receiver's, so a chained call finds its holders
    (``x.unsqueeze_(0).squeeze_(0)``)."""
    if holder is array:
        return reshaped
    alias = holder.alias
    if alias is not None and reshaped.alias is not None:
        alias = replace(alias, layout=reshaped.alias.layout, contiguous=reshaped.alias.contiguous)
    elif reshaped.alias is None:
        alias = None
    return replace(reshaped, alias=alias)


__all__ = ["InPlace"]
