"""The op table itself: OpSpec, the registry, and the questions asked of it.

The contract of the table (how ops are named, how rules are called, what
view_map, destroy_map, view kinds and layouts mean) is described in
``runtime/ops.py``, which fills the table with the libraries' ops. This
module holds only what every family of ops registers through and what the
analyzer asks: ``lookup``, ``all_specs``, ``keeps_shape``, ``is_array_op``,
``shape_from_arguments``, ``writes_reach_input``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .arguments import ArrayArg, size_args
from .dialects import Dialect
from .dims import UNKNOWN
from .out_argument import out_dtype, with_out
from .verdicts import Result
from .views import LayoutFn

ViewKind = Literal["none", "view", "repeated", "readonly", "maybe", "same"]
VIEW_KINDS: frozenset[str] = frozenset({"none", "view", "repeated", "readonly", "maybe", "same"})
ALIASING_KINDS: frozenset[str] = frozenset({"view", "repeated", "readonly", "maybe", "same"})
"""View kinds whose output may share memory with input 0."""


@dataclass(frozen=True)
class OpSpec:
    """One op in one library: how to get its result shape and how it aliases its inputs."""

    name: str
    library: str  # "numpy" | "torch" | "both"
    rule: Callable[..., Result]
    inplace: bool = False
    view_map: dict[int, list[int]] = field(default_factory=dict, hash=False, compare=False)
    destroy_map: dict[int, list[int]] = field(default_factory=dict, hash=False, compare=False)
    view_kind: str = "none"
    legacy_fallback: bool = False
    repeats: bool = False
    """The output may reach one input element at several indices (expand, broadcast_to)."""
    multi_output: bool = False
    """The op returns a tuple (split, unbind, broadcast_arrays, svd, ...)."""
    layout: LayoutFn | None = field(default=None, hash=False, compare=False)
    """For a view op: the output's layout from input 0's (runtime/views.py); None = unknown."""
    saves_output: bool = False
    """Autograd keeps the output for the backward pass: writing into it in place breaks
    backward (torch's "modified by an inplace operation")."""
    keeps_shape: bool = False
    """The output has input 0's shape whatever the other arguments are: a unary element-wise
    op, an activation, a copy, a dtype or device conversion. It is what an analyzer may
    still say of the result when input 0's shape is only partly known."""
    takes_sequence: bool = False
    """Input 0 is a sequence of arrays (concatenate, stack, cat): a list there is the arrays,
    not one array made of them."""
    broadcasts: bool = False
    """An element-wise op over broadcast operands (add, maximum, where): an outer product it
    makes by broadcasting is a finding's business (SC102)."""
    adds_axis: bool = False
    """The op inserts a size-1 axis on purpose (expand_dims, unsqueeze)."""
    from_sizes: bool = False
    """The op makes arrays from sizes alone (``tril_indices(n, m)``): it runs with no array
    argument."""
    dtype: Callable[..., Any] | None = field(default=None, hash=False, compare=False)
    """The result's dtype, called like ``rule``: one dtype for every output, a tuple with one
    per output, or None when it cannot tell. Unset: each output has input 0's dtype."""
    sized_by_values: bool = False
    """Some output size is read off an operand's values (``nonzero``, ``unique``): the rule
    names it after the operand's contents (ArrayArg.contents) when the caller gives them."""
    reshapes_target: str | None = None
    """An in-place op that changes its target's own shape and strides, not its elements
    (``unsqueeze_``, ``t_``, ``resize_``, numpy's ``a.shape = s``): the op whose rule and
    implementation give the target's new shape, its out-of-place twin (``unsqueeze``), or the
    op itself where the library has none (``resize_``). The rule's result is the target's new
    shape; the target keeps its storage, and the change is no in-place resize (SC201)."""

    def applies_to(self, dialect: Dialect) -> bool:
        return self.library in ("both", dialect.library)


# --------------------------------------------------------------------------
# the table

_TABLE: dict[tuple[str, str], OpSpec] = {}
_SHAPE_KEEPING_RULES: set[Callable[..., Result]] = set()


def shape_keeping(rule: Callable[..., Result]) -> Callable[..., Result]:
    """Mark a rule whose result always has input 0's shape (OpSpec.keeps_shape by default)."""
    _SHAPE_KEEPING_RULES.add(rule)
    return rule


def add_op(name: str, library: str, rule: Callable[..., Result], *, inplace: bool = False,
         view_kind: str = "none", legacy_fallback: bool = False, repeats: bool = False,
         multi_output: bool = False, layout: LayoutFn | None = None,
         saves_output: bool = False, keeps_shape: bool | None = None,
         takes_sequence: bool = False, broadcasts: bool = False, adds_axis: bool = False,
         from_sizes: bool = False, dtype: Callable[..., Any] | None = None,
         sized_by_values: bool = False, reshapes_target: str | None = None) -> None:
    assert view_kind in VIEW_KINDS, view_kind
    if keeps_shape is None:
        keeps_shape = not inplace and rule in _SHAPE_KEEPING_RULES
    if inplace:
        view_map: dict[int, list[int]] = {}
        destroy_map = {0: [0]}
    else:
        view_map = {0: [0]} if view_kind != "none" else {}
        destroy_map = {}
    for lib in (("numpy", "torch") if library == "both" else (library,)):
        checked = rule if inplace else with_out(name, lib, rule, dtype)
        if lib == "torch":
            checked = _numpy_spellings(checked)
        _TABLE[(name, lib)] = OpSpec(name, library, checked, inplace, dict(view_map),
                                     dict(destroy_map), view_kind, legacy_fallback, repeats,
                                     multi_output, layout, saves_output, keeps_shape,
                                     takes_sequence, broadcasts, adds_axis, from_sizes, dtype,
                                     sized_by_values, reshapes_target)


# torch's argument parser takes NumPy's keywords for its own: ``t.max(axis=0, keepdims=True)``
# is ``t.max(dim=0, keepdim=True)`` (python_arg_parser.cpp, numpy_compatibility_arg_names).
_TORCH_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def _numpy_spellings(rule: Callable[..., Result]) -> Callable[..., Result]:
    @functools.wraps(rule)
    def spelled(*args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        if dialect.is_torch and any(k in kwargs for k in _TORCH_ALIASES):
            renamed = {_TORCH_ALIASES.get(k, k): v for k, v in kwargs.items()}
            if len(renamed) == len(kwargs):  # both spellings of one keyword: torch refuses
                kwargs = renamed
        return rule(*args, dialect=dialect, **kwargs)
    return spelled


def lookup(name: str, dialect: Dialect) -> OpSpec | None:
    """The op called ``name`` in the dialect's library, or None if that library has none."""
    return _TABLE.get((name, dialect.library))


def result_dtypes(spec: OpSpec, args: tuple, kwargs: dict,
                  dialect: Dialect) -> tuple[str | None, ...] | str | None:
    """What the op's dtype rule says of this call's outputs (see OpSpec.dtype): one dtype for
    every output or a tuple with one per output, None standing for "unknown". None when the op
    has no dtype rule (each output then has input 0's dtype)."""
    out = out_dtype(kwargs)
    if out is not None:
        return out  # the call returns out itself
    if spec.dtype is None:
        return None
    try:
        found = spec.dtype(*args, dialect=dialect, **kwargs)
    except Exception:  # arguments the dtype rule cannot read: the dtype is unknown
        return (None,)
    # The rule's None is "not known" (where(cond, t, 0) with t's dtype unknown), never
    # "input 0's dtype": input 0 of where is the bool condition.
    return (None,) if found is None else found


def returns_tuple(spec: OpSpec | None, result: Result | None) -> bool:
    """The call's value is a tuple of arrays even when the rule gave one output: a split into
    one piece, ``np.nonzero`` of a 1-D array. Not so for a split whose piece count is unknown,
    whose one output stands for every piece."""
    if result is None:
        return False
    if result.as_tuple:
        return True
    return spec is not None and spec.multi_output and not any(
        w.kind == "piece-count-unknown" for w in result.warnings)


def all_specs() -> list[OpSpec]:
    """Every entry; an op both libraries share appears once per library."""
    return list(_TABLE.values())


@functools.cache
def keeps_shape(name: str) -> bool:
    """Some library's op spelled ``name`` returns input 0's shape whatever its other
    arguments (see OpSpec.keeps_shape)."""
    return any(spec.keeps_shape for (n, _), spec in _TABLE.items() if n == name)


@functools.cache
def sized_by_values(name: str) -> bool:
    """Some library's op spelled ``name`` reads a size off an operand's values (see
    OpSpec.sized_by_values): the caller names the operands' contents for it."""
    return any(spec.sized_by_values for (n, _), spec in _TABLE.items() if n == name)


@functools.cache
def is_array_op(name: str) -> bool:
    """Some library has an op spelled ``name`` that returns an array: a method of that name on
    an array of unknown library most likely returns one, even where this library lacks the op.
    NumPy's in-place methods return None (``a.fill(0)``, ``a.resize(s)``)."""
    return any(n == name and not (spec.inplace and spec.library == "numpy")
               for (n, _), spec in _TABLE.items())


RESULT_FIELDS: dict[str, tuple[int, int]] = {
    "values": (0, 2), "indices": (1, 2), "min": (0, 2), "max": (1, 2),
    "U": (0, 3), "S": (1, 3), "Vh": (2, 3), "Q": (0, 2), "R": (1, 2),
    "eigenvalues": (0, 2), "eigenvectors": (1, 2), "sign": (0, 2), "logabsdet": (1, 2),
    "inverse": (0, 2), "info": (1, 2), "LU": (0, 2), "pivots": (1, 2),
    "solution": (0, 4), "residuals": (1, 4), "rank": (2, 4), "singular_values": (3, 4),
}
"""Fields of the named tuples multi-output ops return (torch.return_types, NumPy's SVDResult,
QRResult, EighResult, SlogdetResult): field -> (index, length of the tuple it names)."""


# Methods whose result's sizes are their own arguments: reshape(2, -1) is 2-D whatever it
# reshapes; new_zeros(sizes) has those sizes.
_SIZED_BY_ARGUMENTS = {"reshape": True, "view": True, "expand": True, "new_zeros": False,
                       "new_ones": False, "new_empty": False, "new_full": False}


def shape_from_arguments(name: str, args: tuple, dialect: Dialect) -> tuple | None:
    """What a method's own arguments say of its result when input 0's shape is unknown.

    ``x.reshape(B, -1)`` is (B, ?) and ``x.permute(0, 2, 1)`` has rank 3, whatever x is;
    ``x.new_zeros((2, 3))`` is (2, 3). ``args`` are the call's arguments after input 0
    (ints or Dims, UNKNOWN for ints nobody knows); None when they say nothing.
    """
    if dialect.is_numpy and name != "reshape":
        return None  # numpy's view takes a dtype; its reshape takes the same sizes
    if name in _SIZED_BY_ARGUMENTS:
        if name == "new_full":
            args = args[:1]
        try:
            sizes = size_args(args)
        except NotImplementedError:  # a dtype view, or no sizes at all
            return None
        if not sizes or not all(_is_size(s) for s in sizes):
            return None
        minus_one = _SIZED_BY_ARGUMENTS[name]
        return tuple(UNKNOWN if minus_one and s == -1 else s for s in sizes)
    if name == "permute":
        try:
            dims = size_args(args)
        except NotImplementedError:
            return None
        return (UNKNOWN,) * len(dims) if dims and all(isinstance(d, int) for d in dims) else None
    return None


def _is_size(value: Any) -> bool:
    return not isinstance(value, (bool, float, str, tuple, list, ArrayArg)) and value is not None


def writes_reach_input(name: str) -> bool:
    """Every library's op called ``name`` returns a plain view of input 0 (``t``, ``T``,
    ``transpose``, ``view``, ``squeeze``, ``narrow``, ...): a write into the output writes into
    the input, and a write into a view of a copy is lost with the copy."""
    specs = [spec for (n, _), spec in _TABLE.items() if n == name]
    return bool(specs) and all(spec.view_kind == "view" and not spec.multi_output
                               for spec in specs)


__all__ = ["ALIASING_KINDS", "RESULT_FIELDS", "VIEW_KINDS", "OpSpec", "add_op", "all_specs",
           "is_array_op", "keeps_shape", "lookup", "result_dtypes", "returns_tuple",
           "shape_from_arguments", "shape_keeping", "sized_by_values", "writes_reach_input"]
