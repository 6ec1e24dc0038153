"""Questions about classes: isinstance and issubclass decided through the bases, and what
``super()`` reaches (a base of the code, a torch.nn layer's __init__ or forward, a
container's __init__)."""

from __future__ import annotations

import collections.abc
import numbers

import libcst as cst

from ...runtime.dialects import TORCH
from ...runtime.nn import CONTAINERS, FUNCTIONAL_LOSSES, LOSSES, is_layer_subclass
from ...runtime.nn import FUNCTIONAL as NN_FUNCTIONAL
from ...runtime.nn import LAYERS as NN_LAYERS
from ...runtime.optable import lookup
from ..imports import canonical
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    BoundMethod,
    ClassValue,
    ConstValue,
    DictValue,
    FloatValue,
    FunctionValue,
    InstanceValue,
    IntValue,
    LayerValue,
    ModuleRef,
    TupleValue,
    Value,
)
from .env import LAYER_ATTR, ContainerInit, LayerSuperMethod, PartialValue, SuperValue


def layer_kind_of(value: Value) -> str | None:
    """The torch.nn layer class ``value`` is, or a class of the code derives from."""
    if isinstance(value, ModuleRef):
        qualname = canonical(value.qualname)
        kind = qualname[len("torch.nn."):]
        return kind if qualname.startswith("torch.nn.") and kind in NN_LAYERS else None
    if isinstance(value, ClassValue):
        return value.layer_kind
    return None


def torch_nn_class(value: Value) -> str | None:
    """The torch.nn class the rules know that ``value`` names: a layer, a loss, a container
    or Module itself."""
    if not isinstance(value, ModuleRef):
        return None
    qualname = canonical(value.qualname)
    name = qualname[len("torch.nn."):]
    if qualname.startswith("torch.nn.") and (name in NN_LAYERS or name in LOSSES or
                                             name in CONTAINERS or name == "Module"):
        return name
    return None


def library_defines(qualname: str, name: str) -> bool:
    """torch's module ``qualname`` defines ``name``, as far as the runtime knows torch: True
    for what it models (``F.hardswish``, ``nn.Conv2d``, ``torch.cat``), False when it cannot
    tell (another name, another module)."""
    if qualname == "torch.nn.functional":
        return name in NN_FUNCTIONAL or name in FUNCTIONAL_LOSSES or \
            lookup(f"F.{name}", TORCH) is not None
    if qualname == "torch.nn":
        return name in NN_LAYERS
    if qualname == "torch":
        return lookup(name, TORCH) is not None
    return False


_BUILTIN_TYPES = {"builtins.int": int, "builtins.float": float, "builtins.bool": bool,
                  "builtins.str": str, "builtins.list": list, "builtins.tuple": tuple,
                  "builtins.dict": dict}

_ABSTRACT_TYPES = {"collections.abc.Iterable": collections.abc.Iterable,
                   "collections.abc.Sequence": collections.abc.Sequence,
                   "collections.abc.Mapping": collections.abc.Mapping,
                   "typing.Iterable": collections.abc.Iterable,
                   "typing.Sequence": collections.abc.Sequence,
                   "typing.Mapping": collections.abc.Mapping,
                   "numbers.Number": numbers.Number, "numbers.Complex": numbers.Complex,
                   "numbers.Real": numbers.Real, "numbers.Rational": numbers.Rational,
                   "numbers.Integral": numbers.Integral}

_ARRAY_TYPES = {"torch.Tensor": "torch", "numpy.ndarray": "numpy"}


def type_of(value: Value) -> Value:
    """``type(x)`` when it is certain: the array class of an array, the builtin class of a
    number, a str, a tuple or a list (what ``type(window) is tuple`` compares)."""
    if isinstance(value, AbstractArray) and not value.maybe_not_array and value.library in ("numpy", "torch"):
        return ModuleRef("numpy.ndarray" if value.library == "numpy" else "torch.Tensor")
    known = _python_type(value)
    names = {kind: name for name, kind in _BUILTIN_TYPES.items()}
    return ModuleRef(names[known]) if known in names else UNKNOWN_VALUE


def same_type_name(left: Value, right: Value) -> bool | None:
    """``type(x) is tuple``: two classes both known by name (builtins, ndarray, Tensor) are
    the same class exactly when their names are; None for any other pair."""
    if not (isinstance(left, ModuleRef) and isinstance(right, ModuleRef)):
        return None
    names = [canonical(v.qualname) for v in (left, right)]
    if all(name in _BUILTIN_TYPES or name in _ARRAY_TYPES for name in names):
        return names[0] == names[1]
    return None


def _python_type(value: Value) -> type | None:
    """The Python type of a value whose type is certain."""
    if isinstance(value, ConstValue):
        return type(value.value)
    if isinstance(value, IntValue):
        return int
    if isinstance(value, FloatValue):
        return float
    if isinstance(value, TupleValue):
        return list if value.is_list else tuple
    if isinstance(value, DictValue):
        return dict
    return None


def _plain_callable(value: Value) -> bool:
    """A function of the code, or a module class of the code with no metaclass of its own:
    an object no iteration, indexing or mapping works on (an Enum class would iterate)."""
    if isinstance(value, FunctionValue):
        return True
    return isinstance(value, ClassValue) and value.is_nn_module and \
        isinstance(value.node, cst.ClassDef) and \
        not any(k.keyword is not None for k in value.node.keywords)


def _builtin_instance(value: Value, classinfo: Value) -> bool | None:
    """``isinstance(kernel_size, list)``, ``isinstance(x, torch.Tensor)``, ``isinstance(cfg,
    Sequence)`` for a value whose Python type is known: ints, floats, constants, tuples and
    lists, dicts, arrays; None otherwise."""
    if not isinstance(classinfo, ModuleRef):
        return None
    qualname = canonical(classinfo.qualname)
    known = _python_type(value)
    if qualname in _ARRAY_TYPES:
        if isinstance(value, AbstractArray) and not value.maybe_not_array:
            return value.library == _ARRAY_TYPES[qualname]
        return False if known is not None else None  # a list, a dict, a number is no array
    if qualname in _ABSTRACT_TYPES:
        if known is None and _plain_callable(value):
            return False  # to_ntuple(4)(BasicBlock): a block class is no sequence to copy
        return None if known is None else issubclass(known, _ABSTRACT_TYPES[qualname])
    kind = _BUILTIN_TYPES.get(qualname)
    if kind is None:
        return None
    if isinstance(value, ConstValue):
        return isinstance(value.value, kind)
    if known is not None:
        return issubclass(known, kind)
    if isinstance(value, AbstractArray) and not value.maybe_not_array:
        return False
    if isinstance(value, (ClassValue, FunctionValue, LayerValue)) or layer_kind_of(value) is not None:
        return False  # a class, a function or a module is no int, str, list...
    return None


# What a layer factory parameter may be (timm's get_norm_layer asserts one of them): a class,
# a function of the code, or a functools.partial.
_CALLABLE_TYPES = ("builtins.type", "types.FunctionType", "functools.partial")


def _callable_instance(value: Value, qualname: str) -> bool | None:
    """``isinstance(norm_layer, functools.partial)``, ``isinstance(nn.BatchNorm2d, type)``
    for a value known to be a class, a function of the code, a partial, or no callable at
    all; None otherwise."""
    if isinstance(value, (ClassValue, FunctionValue)) and \
            (value.node is None or value.node.decorators):
        return None  # a decorator may have put anything under the name
    if isinstance(value, ClassValue) or torch_nn_class(value) is not None:
        kind = "builtins.type"
    elif isinstance(value, FunctionValue):
        kind = "types.FunctionType"
    elif isinstance(value, PartialValue):
        kind = "functools.partial"
    elif _python_type(value) is not None or isinstance(value, LayerValue) or \
            isinstance(value, AbstractArray) and not value.maybe_not_array:
        return False  # a number, a string, a tuple, a dict, a module or an array
    else:
        return None
    return kind == qualname


_CALLABLE_ABCS = frozenset({"typing.Callable", "collections.abc.Callable"})


def is_callable(value: Value) -> bool | None:
    """``callable(x)`` and ``isinstance(x, Callable)``: True for a class, a function, a
    partial, a method, a layer or a module instance; False for a number, a string, a tuple,
    a dict or an array; None when it cannot be told (an instance of a plain class may
    define __call__)."""
    if isinstance(value, ConstValue):
        return callable(value.value)
    if _python_type(value) is not None or \
            isinstance(value, AbstractArray) and not value.maybe_not_array:
        return False
    if isinstance(value, (ClassValue, FunctionValue, PartialValue, BoundMethod, LayerValue)) or \
            torch_nn_class(value) is not None:
        return True
    if isinstance(value, ModuleRef):
        module, _, name = canonical(value.qualname).rpartition(".")
        return True if library_defines(module, name) else None  # F.relu; a module is not
    if isinstance(value, InstanceValue):
        return True if value.cls.is_nn_module or "__call__" in value.cls.members else None
    return None


def _decided(answer: bool | None) -> Value:
    return UNKNOWN_VALUE if answer is None else ConstValue(answer)


def _instance_of(cls: ClassValue, classinfo: Value, layer: str | None) -> Value:
    """Whether an instance of ``cls`` is one of ``classinfo`` (a class of the code, or the
    torch.nn class ``layer``), through its bases; unknown past a base nothing is known of."""
    if cls is classinfo:
        return ConstValue(True)
    if layer is not None and (layer == "Module" and cls.is_nn_module or any(
            kind is not None and is_layer_subclass(kind, layer)
            for kind in (cls.layer_kind, cls.container))):
        return ConstValue(True)
    answer: Value = ConstValue(False)
    for base in cls.bases:
        if isinstance(base, ClassValue):
            found = _instance_of(base, classinfo, layer)
        elif isinstance(base, ModuleRef) and (canonical(base.qualname) == "builtins.object" or
                                              torch_nn_class(base) is not None):
            found = ConstValue(False)  # torch's classes are no class of the code, nor other layers
        else:
            found = UNKNOWN_VALUE
        if isinstance(found, ConstValue) and found.value is True:
            return found
        if not isinstance(found, ConstValue):
            answer = UNKNOWN_VALUE
    return answer


def _any_of(answers: list[Value]) -> Value:
    if any(isinstance(a, ConstValue) and a.value is True for a in answers):
        return ConstValue(True)
    if all(isinstance(a, ConstValue) and a.value is False for a in answers):
        return ConstValue(False)
    return UNKNOWN_VALUE


class Classes:
    def isinstance_of(self, value: Value, classinfo: Value) -> Value:
        """``isinstance(module, nn.Linear)`` for a layer or an instance of a class of the code,
        whose class is known exactly, and for values whose Python type is known: a ConstValue
        bool, or unknown when it cannot be told."""
        if isinstance(classinfo, TupleValue):
            return _any_of([self.isinstance_of(value, item) for item in classinfo.items])
        if isinstance(classinfo, ModuleRef) and canonical(classinfo.qualname) in _CALLABLE_ABCS:
            return _decided(is_callable(value))
        builtin = _builtin_instance(value, classinfo)
        if builtin is not None:
            return ConstValue(builtin)
        if isinstance(classinfo, ModuleRef) and canonical(classinfo.qualname) in _CALLABLE_TYPES:
            return _decided(_callable_instance(value, canonical(classinfo.qualname)))
        target = torch_nn_class(classinfo)
        if isinstance(value, LayerValue) and target is not None:
            return _decided(is_layer_subclass(value.kind, target))
        if isinstance(value, InstanceValue):
            return _instance_of(value.cls, classinfo, target)
        return UNKNOWN_VALUE

    def issubclass_of(self, cls: Value, classinfo: Value) -> Value:
        """``issubclass(attn_layer, DiffAttention)`` for a class of the code or a torch.nn
        class: decided through the bases, unknown past a base nothing is known of."""
        if isinstance(classinfo, TupleValue):
            return _any_of([self.issubclass_of(cls, item) for item in classinfo.items])
        layer = torch_nn_class(classinfo)
        if isinstance(cls, ClassValue):
            return _instance_of(cls, classinfo, layer)
        kind = torch_nn_class(cls)
        if kind is not None:
            if layer is not None:
                return _decided(is_layer_subclass(kind, layer))
            if isinstance(classinfo, ClassValue):
                return ConstValue(False)  # torch's class derives from no class of the code
        return UNKNOWN_VALUE

    def super_value(self, args: list) -> Value:
        """``super()`` in a method (or ``super(Cls, self)``): the bases' members, bound to self."""
        if len(args) == 2 and isinstance(args[0], ClassValue) and isinstance(args[1], InstanceValue):
            return SuperValue(args[0], args[1])
        func = self.frame.function
        if args or func is None or not isinstance(func.owner, ClassValue):
            return UNKNOWN_VALUE
        params = func.node.params.params
        instance = self.frame.scope.vars.get(params[0].name.value) if params else None
        return SuperValue(func.owner, instance) if isinstance(instance, InstanceValue) else UNKNOWN_VALUE

    def super_member(self, sup: SuperValue, name: str) -> Value:
        """``super().name``: the first base that has it, in the order the bases are written
        (the MRO of the single inheritance real models use). nn.Sequential's, ModuleList's
        and ModuleDict's ``__init__`` takes the instance's first children."""
        for base in sup.cls.bases:
            if isinstance(base, ClassValue):
                member = base.members.get(name)
                if isinstance(member, FunctionValue):
                    return BoundMethod(member, sup.instance)
                if member is not None:
                    return member
            kind = layer_kind_of(base)
            if kind is not None and name in ("__init__", "forward"):
                return LayerSuperMethod(sup.instance, kind, name)
            if name == "__init__" and torch_nn_class(base) in CONTAINERS:
                return ContainerInit(sup.instance)
        return UNKNOWN_VALUE

    def call_layer_super(self, node, method: LayerSuperMethod, args: list, kwargs: dict,
                         arg_nodes: list) -> Value:
        """``super().__init__(c, eps=eps)`` builds the layer the instance is, as ``nn.<kind>(c,
        eps=eps)`` would; ``super().forward(x)`` runs it."""
        if method.name == "__init__":
            method.instance.attrs[LAYER_ATTR] = self.layer_value(method.kind, args, kwargs)
            return ConstValue(None)
        layer = method.instance.attrs.get(LAYER_ATTR)
        if not isinstance(layer, LayerValue):
            return UNKNOWN_VALUE
        return self.call_layer(node, layer, args, kwargs, arg_nodes)


__all__ = ["Classes", "is_callable", "layer_kind_of", "torch_nn_class"]
