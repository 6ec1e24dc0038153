"""Attribute access: of library modules, arrays, instances of the code's classes, classes,
layers and the other values the walker knows (mypy's checkmember)."""

from __future__ import annotations

import libcst as cst
import numpy as np

from ...runtime.dims import UNKNOWN, numel, sym
from ...runtime.members import TENSOR_MEMBERS
from ...runtime.nn import RETURNS_SELF as NN_RETURNS_SELF
from ...runtime.optable import RESULT_FIELDS
from ..imports import canonical
from ..values import (
    UNKNOWN_BOOL,
    UNKNOWN_VALUE,
    AbstractArray,
    BoundMethod,
    ClassValue,
    ConstValue,
    DictValue,
    DtypeValue,
    FloatValue,
    FunctionValue,
    GeneratorValue,
    InstanceValue,
    IntValue,
    LayerValue,
    ModuleRef,
    PackedValue,
    TupleValue,
    Value,
    shape_value,
)
from .classes import torch_nn_class
from .effects import METADATA, PARAMETER_VIEWS
from .env import (
    LAYER_ATTR,
    STR_METHODS,
    ArgParserMethod,
    ArgParserValue,
    ArrayMethod,
    DictGet,
    DictView,
    GeneratorMethod,
    ModuleMethod,
    NamespaceValue,
    OptimizerMethod,
    OptimizerValue,
    PartialValue,
    StrMethod,
    SuperValue,
)
from .names import method_kind


def _module_attribute(base: ModuleRef, name: str) -> Value:
    qual = f"{base.qualname}.{name}"
    if name == "__name__" and torch_nn_class(base) is not None:
        # norm_layer.__name__.lower() of nn.BatchNorm2d: timm's get_norm_act_layer maps it.
        return ConstValue(canonical(base.qualname).rsplit(".", 1)[-1])
    if qual in ("numpy.newaxis",):
        return ConstValue(None)
    if name in ("pi", "e", "inf", "nan", "euler_gamma", "tau") and base.qualname in (
            "numpy", "torch", "math"):
        return FloatValue()
    return ModuleRef(qual)


_NDARRAY_MEMBERS = frozenset(dir(np.ndarray))


def _names_a_config(name: str) -> bool:
    """``config``, ``cfg``, ``args``, ``model_config``: a parameter named as a configuration
    object, whose fields are settings. (``parameters.table`` of a test's parameter set is an
    array, and nothing says otherwise but its name.)"""
    lowered = name.lower()
    return lowered in _CONFIG_NAMES or lowered.endswith(("config", "cfg", "conf"))


_CONFIG_NAMES = frozenset({"args", "opt", "opts", "options", "hparams", "hp", "settings"})


class Attributes:
    def expr_Attribute(self, node: cst.Attribute) -> Value:
        # x.shape reads no element: not a read of x's values (for stale snapshots).
        base = self.eval_size_read(node.value) if node.attr.value in METADATA \
            else self.eval(node.value)
        return self.attribute(node, base, node.attr.value)

    def attribute(self, node: cst.CSTNode, base: Value, name: str) -> Value:
        if isinstance(base, ModuleRef):
            return _module_attribute(base, name)
        if isinstance(base, AbstractArray):
            return self.array_attribute(node, base, name)
        if isinstance(base, InstanceValue):
            if name in base.attrs:
                value = base.attrs[name]
                if isinstance(value, TupleValue) and value.is_list and not value.items:
                    # self.f_maps = [] in __init__, filled by other methods: not empty here.
                    return UNKNOWN_VALUE
                return value
            if base.cls.is_nn_module and (name in PARAMETER_VIEWS or name in NN_RETURNS_SELF) and \
                    name not in base.cls.members:
                return ModuleMethod(base, name)
            member = base.cls.members.get(name)
            if isinstance(member, FunctionValue) and member.node is not None:
                kind = method_kind(member.node)
                return member if kind == "static" else \
                    BoundMethod(member, base.cls if kind == "class" else base)
            if isinstance(member, FunctionValue):
                return BoundMethod(member, base)
            if member is None and isinstance(base.attrs.get(LAYER_ATTR), LayerValue):
                return self.layer_attribute(node, base.attrs[LAYER_ATTR], name)
            view = self.container_view(base, name) if member is None else None
            if view is not None:
                return view
            if member is None and name == "training" and base.cls.is_nn_module:
                return UNKNOWN_BOOL  # nn.Module's mode: a bool train() and eval() set
            return member if member is not None else UNKNOWN_VALUE
        if isinstance(base, PackedValue):
            return self.packed_attribute(base, name)
        if isinstance(base, SuperValue):
            return self.super_member(base, name)
        if isinstance(base, (ClassValue, FunctionValue)) and name == "__name__" and \
                not (base.node is not None and base.node.decorators):
            return ConstValue(base.name)  # a decorator may put anything under the name
        if isinstance(base, ClassValue):
            member = base.members.get(name, UNKNOWN_VALUE)
            if isinstance(member, FunctionValue) and member.node is not None and \
                    method_kind(member.node) == "class":
                return BoundMethod(member, base)  # Weights.verify(w): cls is the class
            return member
        if isinstance(base, GeneratorValue):
            return GeneratorMethod(name)
        if isinstance(base, OptimizerValue):
            return OptimizerMethod(base, name)
        if isinstance(base, ArgParserValue):
            return ArgParserMethod(base, name)
        if isinstance(base, NamespaceValue):
            return dict(base.fields).get(name, UNKNOWN_VALUE)
        if isinstance(base, ConstValue) and isinstance(base.value, str) and name in STR_METHODS:
            return StrMethod(base.value, name)
        if isinstance(base, PartialValue) and name in ("func", "args", "keywords"):
            # get_norm_layer unbinds a partial to bind its keywords again
            return base.func if name == "func" else TupleValue(base.args) if name == "args" \
                else DictValue(base.kwargs)
        if isinstance(base, DictValue) and name == "get":
            return DictGet(base)
        if isinstance(base, DictValue) and name in ("items", "values", "keys"):
            return DictView(base, name)
        if isinstance(base, LayerValue) and base.kind == "Sequential" and name in base.names:
            return self.sequential_child(base, name)
        if isinstance(base, LayerValue) and (name in PARAMETER_VIEWS or name in NN_RETURNS_SELF):
            return ModuleMethod(base, name)
        if isinstance(base, LayerValue):
            return self.layer_attribute(node, base, name)
        if isinstance(base, TupleValue) and name in RESULT_FIELDS and \
                len(base.items) == RESULT_FIELDS[name][1]:  # a named tuple: x.max(1).values
            return base.items[RESULT_FIELDS[name][0]]
        return UNKNOWN_VALUE

    def array_attribute(self, node: cst.CSTNode, array: AbstractArray, name: str) -> Value:
        if name == "shape":
            return shape_value(array.shape) if array.shape is not None else UNKNOWN_VALUE
        if name == "ndim":
            return IntValue(len(array.shape)) if array.shape is not None and \
                not array.assumed_rank else IntValue(UNKNOWN)
        if name == "size" and array.library == "numpy":
            return IntValue(numel(array.shape)) if array.shape is not None else IntValue(UNKNOWN)
        if name == "dtype":
            return DtypeValue(array.dtype)
        if name in ("T", "mT"):
            value = self.method_op(node, array, name, [], {})
            spec = self.lookup(name, self.dialect_for(array.library))
            if spec is None:
                return self.as_view(value, array, "view")
            return self.by_view_kind(node, spec, array, [], {}, value, name)
        if name in ("H", "mH"):
            return self.method_op(node, array, name, [], {})
        if name in ("real", "data") and (name == "data") == (array.library == "torch"):
            value = array.derived(array.shape, array.origin, tail=array.tail)
            return self.detached(value, array, through_data=True) if name == "data" else \
                self.as_view(value, array, "view")
        if name == "grad":
            return self.grad_of(node, array)
        if name in ("real", "imag", "data"):
            return array.derived(array.shape, array.origin, tail=array.tail)
        if name in ("device", "flags", "strides", "itemsize", "nbytes", "is_cuda", "layout"):
            return UNKNOWN_VALUE
        setting = self.setting_of(array, name)
        if setting is not None:
            return setting
        return ArrayMethod(array, name)

    def setting_of(self, array: AbstractArray, name: str) -> Value | None:
        """``config.n_embd`` of a parameter nothing is known of, where no array has ``n_embd``:
        the parameter is a config object, and its field an int named after it (the same
        symbol wherever a function reads it from a parameter of that name). A field that is
        no int is only ever compared, called or printed, which an int symbol survives."""
        alias = array.alias
        if not (array.maybe_not_array and array.shape is None and alias.view == "base"
                and alias.storage.param is not None and not name.startswith("_")
                and _names_a_config(alias.storage.name)
                and name not in _NDARRAY_MEMBERS and name not in TENSOR_MEMBERS
                and not self.is_array_op(name)):
            return None
        return IntValue(sym(f"{alias.storage.name}.{name}"))

