"""What every torch.nn family shares: the layer value, argument binding, and errors.

A layer is built from its constructor name and the arguments as the caller
has them (ints, Dims, bools, strings, tuples, None, or UNKNOWN for a value
nothing is known about). Construction runs torch's own argument checks and
raises a ShapeError carrying torch's text; a layer whose arguments cannot be
read is "not modelled" (None), never an error. Forward rules take input
shapes and answer a Result, a ShapeError, or None when the shape is unknown.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..dims import UNKNOWN, Dim, Maybe, Shape, Sym, eq, is_known, sub
from ..verdicts import Result, ShapeError

NOT_GIVEN = object()
"""A parameter left to its default in a signature table."""


class NotModelled(Exception):
    """The arguments are outside what the rules model: the answer is "unknown"."""


@dataclass(frozen=True)
class Layer:
    """A constructed nn layer: its class name and its bound, normalized arguments."""

    kind: str
    params: tuple[tuple[str, Any], ...]

    def __getitem__(self, name: str) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        raise KeyError(name)

    def forward(self, *inputs: Shape, **kwargs: Any) -> Result | None:
        """The output shape(s) of ``layer(*inputs)``; None when not modelled."""
        spec = LAYERS[self.kind]
        try:
            # A shape as a tuple; a PackedSequence (runtime/nn/packed.py) as it is.
            return spec.forward(self, *(tuple(s) if isinstance(s, (list, tuple)) else s
                                        for s in inputs), **kwargs)
        except NotModelled:
            return None


@dataclass(frozen=True)
class LayerSpec:
    """One nn class: its constructor signature, its checks, and its forward rule.

    signature lists (name, default) in torch's positional order (NOT_GIVEN for
    a required parameter). construct receives the bound arguments and returns
    them normalized (kernel sizes as tuples, ...) or raises torch's error.
    """

    signature: tuple[tuple[str, Any], ...]
    construct: Callable[[dict], dict]
    forward: Callable[..., Result]
    keeps_shape: bool = False
    """Every output the forward rule answers has the input's shape (activations, dropout,
    normalization layers): an analyzer may keep what it knows of a partly known input."""


LAYERS: dict[str, LayerSpec] = {}
FUNCTIONAL: dict[str, Callable[..., Result]] = {}
FUNCTIONAL_KEEPS_SHAPE: set[str] = set()
"""F.<name> whose result has its first input's shape whenever the call succeeds (the norms):
an analyzer may keep what it knows of that input when other arguments are unknown."""

RETURNS_SELF = frozenset({"to", "cuda", "cpu", "xpu", "float", "double", "half", "bfloat16",
                          "type", "train", "eval", "apply", "share_memory", "to_empty"})
"""nn.Module methods that move, cast or switch the module in place and return it (torch's
docs: "Returns: self"), so ``model = Net().to(device)`` is still the model. requires_grad_ also
returns it, but with parameters that no longer require grad: not listed."""


def register(names, signature, construct, forward, *, keeps_shape: bool = False) -> None:
    for name in ([names] if isinstance(names, str) else names):
        LAYERS[name] = LayerSpec(tuple(signature), construct, forward, keeps_shape)


SUBCLASS_OF: dict[str, tuple[str, ...]] = {
    **{f"Lazy{base}": (base,) for base in ("Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
                                           "ConvTranspose2d", "ConvTranspose3d")},
    "ReLU6": ("Hardtanh",),
    "UpsamplingBilinear2d": ("Upsample",), "UpsamplingNearest2d": ("Upsample",),
    "ZeroPad1d": ("ConstantPad1d",), "ZeroPad2d": ("ConstantPad2d",), "ZeroPad3d": ("ConstantPad3d",),
}
"""The registered classes torch derives a registered class from (LazyLinear is a Linear)."""


CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict"})

KNOWN_CLASSES: set[str] = set(CONTAINERS)
"""torch.nn classes the rules know besides the registered layers: the containers, and the
losses (loss.py adds them)."""


def is_layer_subclass(kind: str, base: str) -> bool | None:
    """``issubclass(nn.<kind>, nn.<base>)`` among the classes the rules know (layers, losses,
    containers) and nn.Module; None when either is another class (a private base such as
    _ConvNd), whose place in torch's hierarchy is not read."""
    if base == "Module":
        return True
    if not all(name in LAYERS or name in KNOWN_CLASSES for name in (kind, base)):
        return None
    return kind == base or base in SUBCLASS_OF.get(kind, ())


def functional_keeps_shape(name: str) -> bool:
    """``F.<name>`` answers its first input's shape (see FUNCTIONAL_KEEPS_SHAPE)."""
    return name in FUNCTIONAL_KEEPS_SHAPE


def keeps_shape(kind: str) -> bool:
    """``nn.<kind>`` answers its input's shape (see LayerSpec.keeps_shape)."""
    spec = LAYERS.get(kind)
    return spec is not None and spec.keeps_shape


def no_checks(args: dict) -> dict:
    return args


def bind(kind: str, args: tuple, kwargs: dict) -> dict:
    """Python's argument binding against torch's signature (NotModelled when it would fail)."""
    signature = LAYERS[kind].signature
    if signature == (("*", None),):
        return {}  # a layer whose arguments never matter to a shape (Identity, ReLU, ...)
    names = [name for name, _ in signature]
    if len(args) > len(names):
        raise NotModelled(f"{kind} takes at most {len(names)} arguments")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key in ("device", "dtype"):
            continue
        if key not in names or key in bound:
            raise NotModelled(f"{kind} got an unexpected or repeated argument {key!r}")
        bound[key] = value
    for name, default in signature:
        if name not in bound:
            if default is NOT_GIVEN:
                raise NotModelled(f"{kind} is missing {name!r}")
            bound[name] = default
    return bound


def build(kind: str, args: tuple = (), kwargs: dict | None = None) -> Layer | None:
    """``nn.<kind>(*args, **kwargs)``: the layer, torch's construction error, or None if not modelled."""
    if kind not in LAYERS:
        return None
    try:
        bound = LAYERS[kind].construct(bind(kind, tuple(args), dict(kwargs or {})))
    except NotModelled:
        return None
    return Layer(kind, tuple(bound.items()))


PARAMETERS: dict[str, Callable[[Layer, str], Shape | None]] = {}
"""Layer kind -> the shape of one of its parameters (``weight``, ``bias``), None if it has none."""


def parameter_shape(layer: Layer, name: str) -> Shape | None:
    """The shape of ``layer.<name>`` (a Parameter): Linear's weight is (out, in)."""
    rule = PARAMETERS.get(layer.kind)
    try:
        return rule(layer, name) if rule is not None else None
    except (KeyError, TypeError, NotModelled):
        return None  # a flag or size the constructor was not given as a constant


CHECK_ONLY: dict[str, frozenset[str]] = {}
"""Functional name -> its arguments that never change the output's shape, only add checks (a
norm's affine weight, an attention mask, a dropout rate): with one of them unknown, the
output is what the call gives without it, or the call fails."""


def with_unknowns_left_out(name: str, args: list, kwargs: dict, unknown: Any) -> tuple[list, dict]:
    """``args`` and ``kwargs`` with each ``unknown`` one that only adds checks set to its
    default (its checks left out); the others as they are."""
    rule, neutral = FUNCTIONAL.get(name), CHECK_ONLY.get(name, frozenset())
    if rule is None or not neutral:
        return args, kwargs
    parameters = inspect.signature(rule).parameters
    names = list(parameters)

    def left_out(name: str | None, value: Any) -> Any:
        return parameters[name].default if value is unknown and name in neutral else value

    args = [left_out(names[i] if i < len(names) else None, value) for i, value in enumerate(args)]
    return args, {key: left_out(key, value) for key, value in kwargs.items()}


def functional(name: str, *args: Any, **kwargs: Any) -> Result | None:
    """``F.<name>(...)`` with shapes for the tensor arguments; None when not modelled."""
    rule = FUNCTIONAL.get(name)
    if rule is None:
        return None
    try:
        return rule(*args, **kwargs)
    except NotModelled:
        return None


# --------------------------------------------------------------------------- arguments


def is_dim(value: Any) -> bool:
    """An int-like size: int (not bool), a symbol, or unknown."""
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, Sym) \
        or value is UNKNOWN


def dim_arg(value: Any) -> Dim:
    """A size argument; NotModelled for anything else (a float, a string)."""
    if not is_dim(value):
        raise NotModelled(f"not a size: {value!r}")
    return value


def ntuple(value: Any, n: int) -> tuple:
    """torch's _single/_pair/_triple: a scalar repeated n times, a sequence kept as given."""
    if isinstance(value, (tuple, list)):
        items = tuple(value)
        if len(items) != n or not all(is_dim(v) for v in items):
            raise NotModelled(f"expected {n} sizes, got {value!r}")
        return items
    return (dim_arg(value),) * n


def flag(value: Any) -> bool:
    """A bool argument; NotModelled when it is not known (UNKNOWN would read as true)."""
    if isinstance(value, int):
        return bool(value)
    raise NotModelled(f"not a known flag: {value!r}")


def text_arg(value: Any) -> str:
    """A string argument; NotModelled when it is not known."""
    if isinstance(value, str):
        return value
    raise NotModelled(f"not a known string: {value!r}")


def known_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def less(a: Dim, b: Dim) -> Maybe:
    """Three-valued ``a < b``: certain only when the difference is a constant."""
    if not (is_known(a) and is_known(b)):
        return None
    diff = sub(a, b)
    return diff < 0 if isinstance(diff, int) else None


def widths_differ(got: Dim, want: Dim) -> bool:
    """Certainly unequal widths (channels, features, a normalized size): what ``eq`` proves,
    and also a difference such as ``planes * 2 - planes``, a polynomial in plain size names
    whose coefficients (its constant too) are all of one sign, not all zero. Such a difference
    is 0 only when some name is 0: a model whose width is 0 computes nothing (torch refuses a
    convolution of 0 output channels at forward, "expected weight to be at least 1 at
    dimension 0"), so a width is taken to be at least 1. Opaque atoms (``C//8``) may be 0 for
    widths that are not, and are left to ``eq``."""
    verdict = eq(got, want)
    if verdict is not None:
        return verdict is False
    if not (is_known(got) and is_known(want)):
        return False
    diff = sub(got, want)
    if not isinstance(diff, Sym) or any(not atom.isidentifier() for mono, _ in diff.terms
                                        for atom in mono):
        return False
    coefficients = [c for _, c in diff.terms]
    return all(c >= 0 for c in coefficients) or all(c <= 0 for c in coefficients)


def torch_size(shape: Shape) -> str:
    """``[2, 3]`` as torch prints ``IntArrayRef``."""
    return "[" + ", ".join(str(d) for d in shape) + "]"


def size_repr(shape: Shape) -> str:
    """``torch.Size([2, 3])`` as ``str(tensor.size())`` prints."""
    return f"torch.Size({torch_size(shape)})"


def layer_error(message: str, exc_type: str = "RuntimeError", *shapes: Shape,
                kind: str = "layer", dim: int | None = None) -> ShapeError:
    """A forward-time mismatch between a layer and its input."""
    return ShapeError(kind, message, exc_type, dim=dim, shapes=tuple(tuple(s) for s in shapes))


def argument_error(message: str, exc_type: str = "ValueError") -> ShapeError:
    """A constructor argument torch refuses."""
    return ShapeError("argument", message, exc_type)


def unknown_shape(rank: int) -> Shape:
    return (UNKNOWN,) * rank


def wrap_dim(dim: int, ndim: int) -> int:
    """torch's maybe_wrap_dim, with its IndexError (a 0-d tensor wraps as 1-d)."""
    span = max(ndim, 1)
    if not -span <= dim < span:
        raise ShapeError("axis", f"Dimension out of range (expected to be in range of [{-span}, "
                         f"{span - 1}], but got {dim})", "IndexError", dim=dim)
    return dim % span


__all__ = [
    "FUNCTIONAL",
    "LAYERS",
    "NOT_GIVEN",
    "RETURNS_SELF",
    "Layer",
    "LayerSpec",
    "NotModelled",
    "argument_error",
    "bind",
    "build",
    "dim_arg",
    "flag",
    "functional",
    "is_dim",
    "known_int",
    "layer_error",
    "less",
    "no_checks",
    "ntuple",
    "register",
    "size_repr",
    "text_arg",
    "torch_size",
    "unknown_shape",
    "widths_differ",
    "wrap_dim",
]
