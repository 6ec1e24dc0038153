"""Abstract values the interpreter computes for expressions: arrays, ints, tuples, or unknown."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Union

from ..runtime.dims import UNKNOWN, Dim, Maybe, eq


@dataclass(frozen=True)
class Origin:
    """Where a value's shape came from, for messages: ``x from line 4``.

    ``line`` is 0 while only the source node is known; the interpreter
    resolves positions lazily, when a message needs them.
    """

    line: int
    what: str
    node: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Reduction:
    """Provenance of a reduction without keepdims: the input shape and the (normalized) axis.

    For an input of unknown rank ``shape`` is None, ``axis`` the positive axis the code names
    and ``source`` the input itself: ``X - X.mean(axis=1)`` lines axes up wrongly whatever
    X's rank."""

    shape: tuple | None
    axis: int
    source: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Storage:
    """One block of memory that arrays may share (PyTensor's root of a view chain).

    ``id`` is stable for the node that made it, so walking a loop body or a
    function again makes the same storage; ``name`` is what made it, for
    messages, until a name is bound to it. ``param`` is the parameter index
    when the storage belongs to the caller; ``leaf_grad`` marks a leaf that
    requires grad; ``saved_by`` the op that saved it for backward.
    """

    id: int
    name: str
    param: int | None = None
    leaf_grad: bool = False
    saved_by: str | None = None
    # False for a parameter nothing is known of, assumed an array only for its aliasing: it
    # may be a list or a DataFrame, so no finding rests on its being an ndarray.
    is_array: bool = True
    # Reached through ``.data``: a write bumps no version counter autograd checks.
    unversioned: bool = False


@dataclass(frozen=True)
class Alias:
    """How an array reaches its storage: the alias facts of one array value.

    ``view`` is "base" (the storage itself), "view", "repeated" (a broadcast
    view), "readonly" (numpy broadcast_to, diagonal) or "maybe" (a view or a
    copy depending on the layout), as the runtime op table names them.
    ``storage`` None means the storage is unknown: never a finding about
    identity, though the view kind still holds. ``repeats`` says elements
    certainly repeat; ``layout`` is the place in the storage when every
    size is an int; ``contiguous`` is known also for symbolic sizes.
    ``snapshot`` is the binding text when a name was bound to an alias as if
    to a copy (``old = x``) and ``version`` the storage's write count then.
    ``deps`` are the storages the value was computed from (autograd's graph).
    """

    storage: Storage | None
    view: str = "base"
    layout: Any = None
    repeats: bool = False
    contiguous: bool = False
    snapshot: str | None = None
    version: int = 0
    deps: frozenset = frozenset()  # the storages this value was computed from (for backward)
    binder: str | None = None  # the name the value was bound to (its own writes are not stale)
    # The op (unbind, split, chunk) of which this is one of several outputs, taken while autograd
    # recorded: torch refuses an in-place op on it (or on a view of it).
    multi_view: str | None = None
    snapshot_node: Any = field(default=None, compare=False)


@dataclass(frozen=True)
class AbstractArray:
    """A numpy array or torch tensor as far as the source tells.

    shape is None when even the rank is unknown; ``tail`` then keeps the
    trailing dims that are known (jaxtyping ``"*batch d"``). ``explicit_axis``
    marks arrays carrying a size-1 axis the code inserted on purpose (None
    index, unsqueeze, expand_dims, keepdims), so the outer products they
    create are not findings. ``reduced`` records a reduction without
    keepdims (SC103). ``alias`` holds the alias facts (storage, view kind,
    layout); it does not take part in equality, so the shape walk's joins and
    fixed points are the same with or without it, and None means unknown.
    ``assumed_rank`` marks a rank taken from how the code indexes an array of
    unknown rank (``boxes[:, 0]`` needs at least 2 dims; taken as exactly 2),
    and everything computed from it: its shapes are for the coverage and for
    the shapes further on, and no error rests on them. ``shape_of`` is the
    storage of an array of unknown rank whose shape this one has (a norm
    layer's or an activation's output, ``x.float()``): when the code later
    says this one's rank, it has said that array's too.
    """

    shape: tuple | None
    dtype: str | None
    library: str  # "numpy" or "torch"
    origin: Origin | None = None
    tail: tuple = ()
    explicit_axis: bool = False
    reduced: Reduction | None = None
    requires_grad: bool = False
    alias: Alias | None = field(default=None, compare=False)
    assumed_rank: bool = False
    shape_of: int | None = None

    @property
    def ndim(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    @property
    def maybe_not_array(self) -> bool:
        """Computed only from parameters nothing is known of: it may as well be an int, a str
        or a config as an array (of either library)."""
        return self.alias is not None and self.alias.storage is not None and \
            not self.alias.storage.is_array

    def with_shape(self, shape: tuple | None, **changes: Any) -> "AbstractArray":
        changes.setdefault("tail", ())
        if shape is not None:
            changes.setdefault("shape_of", None)
        return replace(self, shape=None if shape is None else tuple(shape), **changes)

    def derived(self, shape: tuple | None, origin: Origin | None, **changes: Any) -> "AbstractArray":
        """A new array computed from this one: provenance flags reset unless given."""
        base = dict(shape=None if shape is None else tuple(shape), origin=origin, tail=(),
                    explicit_axis=False, reduced=None, alias=None, shape_of=None)
        base.update(changes)
        return replace(self, **base)


def shape_root(value: Any) -> int | None:
    """The storage of unknown rank whose shape ``value`` has: its own (a parameter nothing
    described), or the one a shape-keeping op passed on (``norm(x)``, ``x.float()``)."""
    if not isinstance(value, AbstractArray) or value.shape is not None:
        return None
    if value.shape_of is not None:
        return value.shape_of
    alias = value.alias
    if alias is not None and alias.view == "base" and alias.storage is not None:
        return alias.storage.id
    return None


@dataclass(frozen=True)
class UnknownValue:
    """Anything the analyzer does not understand. Never produces a finding."""

    def __repr__(self) -> str:
        return "Unknown"


UNKNOWN_VALUE = UnknownValue()


@dataclass(frozen=True)
class IntValue:
    """A Python int: constant, symbolic (``B``) or unknown (``?``)."""

    value: Dim


@dataclass(frozen=True)
class FloatValue:
    """A Python float whose value is not known (``math.sqrt(d)``, ``float(s)``, ``math.pi``):
    a scalar in array arithmetic, never a size. ``integral`` is the int it equals when that is
    known (``planes * 1.0`` is ``planes``): ``int()`` of it is that size."""

    integral: Any = None


@dataclass(frozen=True)
class ConstValue:
    """Another Python constant: float, str, bool, None, Ellipsis."""

    value: Any


@dataclass(frozen=True)
class UnknownBool:
    """A Python bool the analysis cannot decide: ``n == m`` of ints nobody knows, ``not flag``.

    Unlike the unknown value it is surely a bool, so ``not flag and n == m`` with n and m
    known to differ is surely False."""

    def __repr__(self) -> str:
        return "bool"


UNKNOWN_BOOL = UnknownBool()


@dataclass(frozen=True)
class KnownTruth:
    """A value nobody knows whose truth is known: ``self.training and self.drop > 0`` with
    the drop 0 is ``self.training`` (when that is false) or False, false either way."""

    truth: bool


@dataclass(frozen=True)
class TupleValue:
    """A tuple or list literal (or a shape); ``is_list`` for lists."""

    items: tuple
    is_list: bool = False


@dataclass(frozen=True)
class SetValue:
    """A set literal of known items (``{BatchNormAct2d, GroupNormAct}``): what ``in`` asks of
    it. Its order is not Python's, so nothing iterates or indexes it."""

    items: tuple


@dataclass(frozen=True)
class NamespaceNames:
    """``dir(torch.nn.functional)``: the names a library module defines, of which the analysis
    knows some (what ``'hardswish' in dir(F)`` asks) but never all."""

    qualname: str


@dataclass(frozen=True)
class Iterable:
    """Something iterated over whose length is not known and whose items are all ``element``:
    ``range(n)``, a comprehension, a list filled by ``append`` in a loop. ``items`` are the
    items in order when they are known too (``range(3)``, a comprehension over them): a loop
    over them runs once per item."""

    element: Any
    items: tuple | None = None


@dataclass(frozen=True)
class DictValue:
    """A dict literal whose keys are all strings: ``dd = {"device": device, "dtype": dtype}``.

    It is what ``**dd`` passes to a call and ``dd["dtype"]`` reads; a write into it, or a
    call that may change it, makes the name unknown again.
    """

    items: tuple  # (key, value) pairs, in the literal's order

    def get(self, key: str) -> Any:
        """The value under ``key``, None when the literal has no such key."""
        for name, value in self.items:
            if name == key:
                return value
        return None


@dataclass(frozen=True)
class PartialDict:
    """A dict of string keys after paths that filled it differently met (``if weights is not
    None: kwargs["num_classes"] = n``): ``items`` every path holds, ``maybe`` the (key,
    value) pairs only some paths put in. ``**d`` gives a maybe key's parameter an unknown
    value (its default or that value); anything else done with it is done with an unknown
    dict."""

    items: tuple
    maybe: tuple


def _join_dicts(a: DictValue | PartialDict, b: DictValue | PartialDict) -> Any:
    sure_a, sure_b = dict(a.items), dict(b.items)
    items = tuple((k, join_values(v, sure_b[k])) for k, v in a.items if k in sure_b)
    maybe: dict = {}
    for key, value in (*a.items, *getattr(a, "maybe", ()), *b.items, *getattr(b, "maybe", ())):
        if key in sure_a and key in sure_b:
            continue
        maybe[key] = join_values(maybe[key], value) if key in maybe else value
    return PartialDict(items, tuple(maybe.items())) if maybe else DictValue(items)


@dataclass(frozen=True)
class SliceValue:
    start: Any
    stop: Any
    step: Any


@dataclass(frozen=True)
class ModuleRef:
    """A name that resolves to a numpy/torch module, function or class: ``numpy.linalg.solve``."""

    qualname: str

    def attr(self, name: str) -> "ModuleRef":
        return ModuleRef(f"{self.qualname}.{name}")

    @property
    def library(self) -> str:
        return self.qualname.split(".", 1)[0]


@dataclass(frozen=True)
class DtypeValue:
    name: str | None


@dataclass(frozen=True)
class GeneratorValue:
    """``np.random.default_rng()``: its methods create arrays like np.random's."""

    library: str = "numpy"


@dataclass(frozen=True)
class LayerValue:
    """A torch.nn layer built from constant arguments: ``Linear(64, 10)``."""

    kind: str
    args: tuple = ()
    kwargs: tuple = ()
    layers: tuple = ()  # Sequential's children
    names: tuple = ()  # their names, "" for a positional child
    repeated: Any = None  # after the children, any number of this module (``*blocks``)

    def kw(self, name: str, position: int | None = None, default: Any = UNKNOWN_VALUE) -> Any:
        for key, value in self.kwargs:
            if key == name:
                return value
        if position is not None and position < len(self.args):
            return self.args[position]
        return default


@dataclass(frozen=True)
class PackedValue:
    """A torch PackedSequence: its ``data`` (an array of one row per time step of every
    sequence), the number of sequences and the number of time steps."""

    data: Any
    batch: Any
    steps: Any
    unsorted: bool = False


@dataclass(frozen=True, eq=False)
class FunctionValue:
    """A function or method defined in the analyzed file; ``scope`` is its closure."""

    node: Any = field(repr=False)
    scope: Any = field(repr=False)
    name: str = ""
    owner: Any = field(default=None, repr=False)  # ClassValue for methods


@dataclass(frozen=True, eq=False)
class ClassValue:
    """A class of the analyzed code. ``bases`` are what its bases evaluated to (what
    ``super()`` reaches); ``layer_kind`` names the torch.nn layer it derives from, directly
    or through a base of the code (``class LayerNorm2d(nn.LayerNorm)``), and ``container``
    the torch.nn container (``class Stage(nn.Sequential)``)."""

    node: Any = field(repr=False)
    name: str = ""
    scope: Any = field(default=None, repr=False)
    members: dict = field(default_factory=dict, repr=False)
    is_nn_module: bool = False
    bases: tuple = field(default=(), repr=False)
    layer_kind: str | None = None
    container: str | None = None  # "Sequential", "ModuleList" or "ModuleDict" among its bases

    @property
    def sequential(self) -> bool:
        """Derived from nn.Sequential: calling it runs its children."""
        return self.container == "Sequential"


@dataclass(frozen=True, eq=False)
class InstanceValue:
    """An instance of a class from the file; ``attrs`` collects ``self.x = ...``."""

    cls: ClassValue
    attrs: dict = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class BoundMethod:
    function: FunctionValue
    self_value: Any


MAX_ALTERNATIVES = 4  # modules one name may be after its branches; beyond: unknown


@dataclass(frozen=True)
class Alternatives:
    """A module that is one of several, as branches left it: ``self.norm = norm_layer(dim) if
    qk_norm else nn.Identity()``. Calling it gives what the calls of all of them agree on (the
    join of their results), with no finding of its own: which one runs is not known."""

    items: tuple


@dataclass(frozen=True)
class TupleChoice:
    """A tuple of constants that is one of several, as branches left it: ``names +=
    ("img_size",)`` on one path only. A loop over it runs once per tuple, each as a path of
    its own; anything else done with it is done with an unknown value."""

    items: tuple  # the TupleValues, each of constants


def _constants(value: Any) -> bool:
    return isinstance(value, TupleValue) and all(
        isinstance(item, ConstValue) or isinstance(item, IntValue) and isinstance(item.value, int)
        for item in value.items)


def _join_tuples(a: Any, b: Any) -> Any:
    options: list = []
    for side in (a, b):
        for option in side.items if isinstance(side, TupleChoice) else (side,):
            if option not in options:
                options.append(option)
    if len(options) > MAX_ALTERNATIVES:
        return UNKNOWN_VALUE
    return options[0] if len(options) == 1 else TupleChoice(tuple(options))


def is_module(value: Any) -> bool:
    """A torch layer, or an instance of a module class of the code."""
    return isinstance(value, LayerValue) or isinstance(value, InstanceValue) and \
        value.cls.is_nn_module


def _same_state(a: Any, b: Any, depth: int = 0) -> bool:
    """Two values the code cannot tell apart by what they hold: the same object, equal
    values, arrays of one shape and dtype (each instance has parameters of its own), or
    instances of one class whose attributes are so, a few levels deep. Nest's levels, built
    in a loop with a pool only after the first, are not: one of them is no stand-in for all."""
    if a is b or a == b:
        return True
    if depth > 3 or type(a) is not type(b):
        return False
    if isinstance(a, AbstractArray):
        return a.shape == b.shape and a.dtype == b.dtype and a.library == b.library
    if isinstance(a, InstanceValue):
        return a.cls is b.cls and a.attrs.keys() == b.attrs.keys() and all(
            _same_state(a.attrs[k], b.attrs[k], depth + 1) for k in a.attrs)
    if isinstance(a, TupleValue):
        return a.is_list == b.is_list and len(a.items) == len(b.items) and all(
            _same_state(x, y, depth + 1) for x, y in zip(a.items, b.items))
    if isinstance(a, LayerValue):
        return (a.kind, a.args, a.kwargs, a.names) == (b.kind, b.args, b.kwargs, b.names) and \
            len(a.layers) == len(b.layers) and all(
                _same_state(x, y, depth + 1) for x, y in zip(a.layers, b.layers)) and \
            _same_state(a.repeated, b.repeated, depth + 1)
    return False


def _join_modules(a: Any, b: Any) -> Any:
    items: list = []
    for side in (a, b):
        for item in side.items if isinstance(side, Alternatives) else (side,):
            if not any(item is known or item == known for known in items):
                items.append(item)
    if len(items) > MAX_ALTERNATIVES:
        return UNKNOWN_VALUE
    return items[0] if len(items) == 1 else Alternatives(tuple(items))


Value = Union[AbstractArray, UnknownValue, UnknownBool, KnownTruth, IntValue, FloatValue, ConstValue, TupleValue,
              DictValue, PartialDict, SliceValue, ModuleRef, DtypeValue, GeneratorValue, LayerValue, FunctionValue,
              ClassValue, InstanceValue, BoundMethod, Alternatives, TupleChoice, SetValue, NamespaceNames]


def join_dims(a: Dim, b: Dim) -> Dim:
    return a if eq(a, b) is True else UNKNOWN


def join_alias(a: Alias | None, b: Alias | None) -> Alias | None:
    """Paths that disagree on the storage or the view kind leave both unknown; two snapshots
    of one binding keep the older one (it is stale the soonest)."""
    if a is None or b is None:
        return None
    if replace(a, version=0, snapshot_node=None) == replace(b, version=0, snapshot_node=None):
        return a if a.version <= b.version else b
    return None


def join_values(a: Value, b: Value) -> Value:
    """The value a name has after two control-flow paths meet: what both agree on."""
    if isinstance(a, AbstractArray) and isinstance(b, AbstractArray) and a.alias != b.alias:
        alias = join_alias(a.alias, b.alias)
        # x, or a norm of x: both have x's shape, whatever the storage they end up in.
        kept = shape_root(a) if shape_root(a) == shape_root(b) else None
        a, b = replace(a, alias=alias, shape_of=kept), replace(b, alias=alias, shape_of=kept)
    if a is b or a == b:
        return a
    if isinstance(a, AbstractArray) and isinstance(b, AbstractArray):
        if a.library != b.library:
            return UNKNOWN_VALUE
        if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
            shape = None
        else:
            shape = tuple(join_dims(x, y) for x, y in zip(a.shape, b.shape))
        return AbstractArray(shape=shape, dtype=a.dtype if a.dtype == b.dtype else None,
                             library=a.library, origin=a.origin if a.origin == b.origin else None,
                             explicit_axis=a.explicit_axis and b.explicit_axis,
                             reduced=a.reduced if a.reduced == b.reduced else None,
                             requires_grad=a.requires_grad or b.requires_grad,
                             alias=a.alias, assumed_rank=a.assumed_rank or b.assumed_rank,
                             shape_of=a.shape_of if shape is None and
                             a.shape_of == b.shape_of else None)
    if isinstance(a, FloatValue) and (isinstance(b, FloatValue) or isinstance(b, ConstValue)
                                      and type(b.value) is float) or isinstance(b, FloatValue) \
            and isinstance(a, ConstValue) and type(a.value) is float:
        return FloatValue()
    if isinstance(a, IntValue) and isinstance(b, IntValue):
        return IntValue(join_dims(a.value, b.value))
    if is_bool(a) and is_bool(b):
        return UNKNOWN_BOOL
    if all(_constants(v) or isinstance(v, TupleChoice) for v in (a, b)) and not (
            isinstance(a, TupleValue) and isinstance(b, TupleValue) and
            len(a.items) == len(b.items)):
        return _join_tuples(a, b)  # names, or names + ("img_size",)
    if isinstance(a, Iterable) or isinstance(b, Iterable):
        # A list filled in a loop meets the list before the loop: any length, any of the items.
        items = [v for side in (a, b) for v in (
            (side.element,) if isinstance(side, Iterable) else
            side.items if isinstance(side, TupleValue) and side.is_list else (UNKNOWN_VALUE,))]
        out = items[0]
        for item in items[1:]:
            out = join_values(out, item)
        return Iterable(out) if out is not UNKNOWN_VALUE else UNKNOWN_VALUE
    if isinstance(a, TupleValue) and isinstance(b, TupleValue) and len(a.items) == len(b.items):
        return TupleValue(tuple(join_values(x, y) for x, y in zip(a.items, b.items)), a.is_list)
    if isinstance(a, InstanceValue) and isinstance(b, InstanceValue) and a.cls is b.cls and \
            _same_state(a, b):
        return a  # the blocks a loop builds alike, each iteration a new object
    if all(is_module(v) or isinstance(v, Alternatives) for v in (a, b)):
        return _join_modules(a, b)
    if isinstance(a, (DictValue, PartialDict)) and isinstance(b, (DictValue, PartialDict)):
        return _join_dicts(a, b)
    return UNKNOWN_VALUE


def is_bool(value: Value) -> bool:
    """Surely a Python bool, known or not."""
    return isinstance(value, UnknownBool) or isinstance(value, ConstValue) and \
        isinstance(value.value, bool)


def truth(value: Value) -> Maybe:
    """What ``bool(value)`` surely is, or None: decided for constants, ints, tuples and dicts
    of known length, functions, classes (torch.nn's too) and layers. Lists are left alone
    (another method may fill them), and so are instances (a config parameter declared
    ``cfg: Config = None``), containers (an empty Sequential is false) and other library
    names (``torch.backends.cudnn.enabled``)."""
    if isinstance(value, ConstValue):
        try:
            return bool(value.value)
        except Exception:
            return None
    if isinstance(value, IntValue):
        return bool(value.value) if isinstance(value.value, int) else None
    if isinstance(value, KnownTruth):
        return value.truth
    if isinstance(value, TupleValue) and not value.is_list or isinstance(value, DictValue):
        return bool(value.items)
    if isinstance(value, (FunctionValue, ClassValue)) or isinstance(value, ModuleRef) and \
            is_torch_nn_class(value.qualname):
        return True
    if isinstance(value, LayerValue) and value.kind not in ("Sequential", "ModuleList", "ModuleDict"):
        return True  # a layer (an empty container is false)
    return None


def is_torch_nn_class(qualname: str) -> bool:
    """``torch.nn.Conv2d``, ``torch.nn.Module``: a class torch.nn defines (its public names
    that start with a capital are classes), which is never None and always true."""
    return qualname.startswith("torch.nn.") and qualname.count(".") == 2 and qualname[9:10].isupper()


def dims_of(value: Value) -> tuple | None:
    """A tuple of dims from a shape-like value: ``(B, 3)``, ``[4]``, ``5``; None if not one."""
    if isinstance(value, IntValue):
        return (value.value,)
    if isinstance(value, TupleValue):
        out = []
        for item in value.items:
            if not isinstance(item, IntValue):
                return None
            out.append(item.value)
        return tuple(out)
    return None


def vague(value: Value) -> bool:
    """Of unknown rank, computed only from parameters nothing is known of: an int where a size
    is expected (``C // n_head``, ``zeros((n, 4))``), data of unknown shape elsewhere."""
    return isinstance(value, AbstractArray) and value.shape is None and not value.tail and \
        value.maybe_not_array


def known_int(value: Value) -> int | None:
    """The int a value surely is, or None."""
    if isinstance(value, IntValue) and isinstance(value.value, int):
        return value.value
    return None


def shape_value(shape: tuple) -> TupleValue:
    return TupleValue(tuple(IntValue(d) for d in shape))


__all__ = [
    "Origin", "Reduction", "Storage", "Alias", "AbstractArray", "UnknownValue", "UNKNOWN_VALUE",
    "UnknownBool", "UNKNOWN_BOOL", "KnownTruth", "IntValue",
    "ConstValue", "FloatValue", "TupleValue", "DictValue", "PartialDict", "Iterable", "SliceValue", "ModuleRef", "DtypeValue", "GeneratorValue",
    "LayerValue", "FunctionValue", "ClassValue", "InstanceValue", "BoundMethod", "Value",
    "Alternatives", "is_module",
    "join_values", "join_dims", "is_bool", "is_torch_nn_class", "truth", "dims_of", "known_int", "shape_value", "vague",
]
