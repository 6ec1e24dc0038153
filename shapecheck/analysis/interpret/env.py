"""Scopes, frames and the joins of environments at branches and loops."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ...runtime.dims import UNKNOWN
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    ClassValue,
    ConstValue,
    DictValue,
    FunctionValue,
    InstanceValue,
    IntValue,
    Iterable,  # noqa: F401  (the interpreter's modules import it from here)
    LayerValue,
    ModuleRef,
    PartialDict,
    TupleValue,
    Value,
    join_values,
)


@dataclass(frozen=True)
class ArrayMethod:
    array: AbstractArray
    name: str


@dataclass(frozen=True)
class GeneratorMethod:
    name: str


@dataclass(frozen=True)
class ModuleMethod:
    """``model.state_dict`` / ``model.parameters`` of an nn.Module instance, not yet called."""

    instance: Any
    name: str


@dataclass(frozen=True)
class SuperValue:
    """``super()`` in a method of ``cls``: the members of its bases, bound to ``instance``."""

    cls: Any
    instance: Any


@dataclass(frozen=True)
class LayerSuperMethod:
    """``super().__init__`` / ``super().forward`` of a class derived from the torch.nn layer
    ``kind``: the first builds the layer the instance is, the second runs it."""

    instance: Any
    kind: str
    name: str


LAYER_ATTR = "__layer__"
"""Where an instance of a class derived from a torch.nn layer keeps that layer (a LayerValue)."""


@dataclass(frozen=True, eq=False)
class ArgParserValue:
    """``argparse.ArgumentParser()``: its options' defaults by destination, as added so far."""

    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ArgParserMethod:
    parser: ArgParserValue
    name: str

    def call(self, args: list, kwargs: dict) -> Value:
        """``add_argument("--hidden-size", type=int, default=256)`` records the option's
        default under its destination; ``parse_args()`` answers the defaults: a script run
        without flags, which is one way it certainly runs."""
        options = self.parser.options
        if self.name == "add_argument":
            flags = [a.value for a in args if isinstance(a, ConstValue) and isinstance(a.value, str)]
            dest = kwargs.get("dest")
            if isinstance(dest, ConstValue) and isinstance(dest.value, str):
                name = dest.value
            else:
                long = [f for f in flags if f.startswith("--")]
                name = (long or flags or [""])[0].lstrip("-").replace("-", "_")
            if name.isidentifier():
                default = kwargs.get("default")
                action = kwargs.get("action")
                if isinstance(action, ConstValue) and action.value in ("store_true", "store_false"):
                    default = ConstValue(action.value == "store_false")
                options[name] = default if default is not None else (
                    ConstValue(None) if flags and flags[0].startswith("-") else UNKNOWN_VALUE)
            return UNKNOWN_VALUE
        if self.name == "add_argument_group":
            return self.parser  # a group's options are the parser's
        if self.name in ("parse_args", "parse_known_args"):
            namespace = NamespaceValue(tuple(options.items()))
            return namespace if self.name == "parse_args" else TupleValue(
                (namespace, UNKNOWN_VALUE))
        return UNKNOWN_VALUE


@dataclass(frozen=True)
class StrMethod:
    """``padding.lower`` of a constant string: a pure method, answered on the constant."""

    text: str
    name: str


STR_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "startswith",
                         "endswith", "replace", "isdigit", "isalpha", "isnumeric", "title",
                         "capitalize", "removeprefix", "removesuffix", "split", "rsplit",
                         "partition", "rpartition", "find", "rfind", "count", "zfill"})
"""str methods that read only the string and constant arguments (no format, no join)."""


@dataclass(frozen=True)
class DictGet:
    """``dd.get`` of a dict literal: ``dd.get("dtype", None)`` reads it without a KeyError."""

    items: Any  # the DictValue


@dataclass(frozen=True)
class DictView:
    """``d.items`` / ``d.values`` / ``d.keys`` of a dict of known keys, not yet called."""

    items: Any  # the DictValue
    name: str


@dataclass(frozen=True)
class ContainerInit:
    """``super().__init__`` of a class derived from nn.Sequential, ModuleList or ModuleDict:
    its arguments are the instance's first children."""

    instance: Any


@dataclass(frozen=True)
class PartialValue:
    """``functools.partial(nn.LayerNorm, eps=1e-6)``: calling it calls ``func`` with these
    arguments first."""

    func: Any
    args: tuple
    kwargs: tuple  # (name, value) pairs


@dataclass(frozen=True)
class NamespaceValue:
    """What ``parser.parse_args()`` returns: run without flags, each option's default."""

    fields: tuple  # (destination, value) pairs


@dataclass(frozen=True, eq=False)
class OptimizerValue:
    """``torch.optim.SGD(model.parameters(), ...)``: the parameter storages it updates."""

    storages: tuple


@dataclass(frozen=True)
class OptimizerMethod:
    optimizer: OptimizerValue
    name: str


class Scope:
    """Names bound in one module, class or function body; lookups fall back to the parent."""

    __slots__ = ("vars", "parent", "kind")

    def __init__(self, parent: "Scope | None", kind: str):
        self.vars: dict[str, Value] = {}
        self.parent = parent
        self.kind = kind

    def lookup(self, name: str) -> Value | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
            while scope is not None and scope.kind == "class":
                scope = scope.parent
        return None


@dataclass
class Frame:
    scope: Scope
    returns: list = field(default_factory=list)
    is_generator: bool = False
    loops: int = 0
    """Loops running to a fixed point around the statement being walked: a list they fill
    holds any number of its items, not these items."""
    none_defaults: frozenset = frozenset()
    """Parameters no caller gave, left to a default of None."""
    refinements: dict = field(default_factory=dict)
    """Storage id -> the first refined value of an array of unknown rank (its layer or index
    said its rank): for a parameter, what the caller's argument must be."""
    exit_refinements: list = field(default_factory=list)
    """The refinements at each ``return``: what holds when the body ends is what they all
    and the end of the body (when it falls through) say."""
    function: Any = None
    """The FunctionValue whose body runs in this frame (None at module level): ``super()``."""
    dict_params: frozenset = frozenset()
    """Parameters holding a caller's dict the body edits in place only."""
    dict_exits: list = field(default_factory=list)
    """What those parameters hold where the body returns: the caller's dicts after the call."""
    dim_reads: dict = field(default_factory=dict)
    """Name -> (the name whose rank it read, the value that name then held)."""


class _Flow(Exception):
    """Not an error path: a tag for statements that end a block (return, raise, break)."""


def is_informative(value: Value) -> bool:
    if isinstance(value, AbstractArray):
        return value.shape is not None or bool(value.tail)
    if isinstance(value, IntValue):
        return value.value is not UNKNOWN
    if isinstance(value, (TupleValue, DictValue, PartialDict, LayerValue, InstanceValue,
                          ConstValue, ClassValue, FunctionValue, ModuleRef, PartialValue)):
        # A class or a factory handed on is what is called: ``_resnet(BasicBlock, ...)``
        # builds that block, ``norm_layer=nn.BatchNorm2d`` that norm.
        return True
    if isinstance(value, Iterable):
        # Any number of arrays of one shape (anchors per level, built in a loop), or of lists
        # of them: each item is what the callee reads.
        return is_informative(value.element)
    return False


def specialization_key(value: Value) -> Any:
    if isinstance(value, Iterable):
        return ("iterable", specialization_key(value.element))
    if isinstance(value, AbstractArray):
        # The view kind changes what a callee's writes do; storage ids stay out of the key, so
        # specializations are shared between arrays of one shape.
        alias = value.alias
        return ("array", value.shape, value.dtype, value.library, value.tail, value.explicit_axis,
                value.reduced, alias and (alias.view, alias.repeats))
    try:
        hash(value)
        return value
    except TypeError:
        return id(value)


def sharing_key(values: list) -> tuple:
    """Which arguments share memory, and where in it: a callee's overlap checks depend on it.
    Argument positions stand in for storage ids, so calls with unrelated arrays share one
    specialization."""
    first: dict[int, int] = {}
    out = []
    for i, value in enumerate(values):
        alias = value.alias if isinstance(value, AbstractArray) else None
        if alias is None or alias.storage is None:
            continue
        j = first.setdefault(alias.storage.id, i)
        if j != i:
            out.append((i, j, alias.layout, values[j].alias.layout))
    return tuple(out)


def join_envs(a: dict, b: dict) -> dict:
    if a is b:
        return dict(a)
    out = dict(a)
    for name, value in b.items():
        if name in out:
            if out[name] is not value:
                out[name] = join_values(out[name], value)
        else:
            out[name] = value
    return out


def join_refinements(before: dict, outcomes: list[dict]) -> dict:
    """The ranks the paths of a branch all said (those that raise say nothing: the call fails
    on them anyway). ``if x.dim() == 5: x.permute(0, 2, 3, 4, 1)`` says 5 dims on one path
    only, and the caller's array may have 4."""
    if not outcomes:
        return before
    agreed = dict(before)
    for key, value in outcomes[0].items():
        if key not in agreed and all(key in other and other[key] == value
                                     for other in outcomes[1:]):
            agreed[key] = value
    return agreed


def same_env(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(a[k] is b[k] or a[k] == b[k] for k in a)


def widen(value: Value) -> Value:
    if isinstance(value, AbstractArray):
        # Widening forgets sizes, not which memory the array is: loop-carried storage survives.
        alias = value.alias
        if alias is not None:
            alias = replace(alias, layout=None)
        return AbstractArray(None, value.dtype, value.library, value.origin, alias=alias)
    if isinstance(value, IntValue):
        return IntValue(UNKNOWN)
    if isinstance(value, (InstanceValue, FunctionValue, ClassValue, ModuleRef, LayerValue)):
        return value
    return UNKNOWN_VALUE
