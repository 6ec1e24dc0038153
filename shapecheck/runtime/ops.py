"""The op table: for each NumPy / PyTorch op, its shape rule, in-place-ness and aliasing.

Names
-----
An op is named the way user code spells it:

- library functions with their module path: ``np.add``, ``np.linalg.solve``,
  ``torch.matmul``, ``torch.linalg.solve``;
- ndarray / tensor methods and attributes by their bare name: ``add_``,
  ``sum``, ``view``, ``t``, ``T``, ``mT``, ``reshape``;
- Python operators by their dunder: ``__add__``, ``__iadd__``,
  ``__matmul__``, ``__getitem__``, ``__setitem__``.

``lookup(name, dialect)`` finds the entry for that dialect's library (the
same method name may mean different things: ``ndarray.view`` takes a dtype,
``Tensor.view`` a shape), or None when the library has no such op.

Rule calling convention
-----------------------
``spec.rule(*args, dialect=dialect, **kwargs) -> Result`` takes the op's own
call arguments, in the op's own order, with every array operand replaced by
an :class:`ArrayArg` (its shape and dtype) and every other argument left as
the plain Python value (ints, tuples, slices, None, Ellipsis, strings). For
methods and operators ``args[0]`` is the array the method is called on. A
Python list used as an index or as an operand is passed as an ArrayArg of
its array shape. The rule raises ShapeError (the library's own message)
only when the call certainly fails; the adapters here only translate
arguments and delegate to the one implementation in ``runtime/rules``.

Aliasing
--------
``view_map`` and ``destroy_map`` follow PyTensor: ``{0: [0]}`` in view_map
means output 0 is a view of input 0, in destroy_map that output 0 was
computed by overwriting input 0. Every in-place op has destroy_map
``{0: [0]}``. ``view_kind`` says what the output is with respect to input 0
in today's library:

- ``"none"``: a new array (a copy);
- ``"view"``: a view sharing memory; writes through it reach the input;
- ``"repeated"``: a view in which several indices may reach one element
  (``expand``); torch refuses in-place writes into it;
- ``"readonly"``: a view NumPy marks read-only (``broadcast_to``,
  ``diagonal``); writes raise "assignment destination is read-only";
- ``"maybe"``: a view when the input's strides allow it, else a copy
  (``reshape``, ``ravel``, torch ``flatten``, ``contiguous``);
- ``"same"``: may return the very same object (``np.asarray``,
  ``astype(copy=False)``).

A few calls decide their kind by their arguments; ``call_view_kind(spec,
args, kwargs, dialect)`` answers for one call (``x[idx]`` is a copy for
advanced or boolean indices and, in NumPy, for a full integer index, which
gives a scalar; ``astype(copy=False)`` is "same"). NumPy's ``.real`` of a
real array is the array itself, which aliases it as a view does. ``repeats``
marks ops whose output may hold repeated elements (``expand``,
``broadcast_to``, ``broadcast_arrays``, ``as_strided``). For
``multi_output`` ops (``split``, ``unbind``, ``broadcast_arrays``, ``svd``)
``view_map`` ``{0: [0]}`` stands for every output: each piece of a split
views input 0, and output i of ``broadcast_arrays`` views input i.

Layouts
-------
An ArrayArg may carry its ``layout`` (runtime/layout.py; int sizes only). Each
view op registers a layout function (runtime/views.py) that places its output
in input 0's storage; ``output_layout(spec, args, kwargs, dialect)`` answers
for one call, and ``resolved_view_kind`` decides a "maybe" op by it (a view
when the layout allows, else a copy). ``writes_reach_input(name)`` says a
method/attribute is a plain view in every library (a write into it writes
the input). ``saves_output`` marks the ops whose output autograd keeps for
backward.

``legacy_fallback`` marks the pointwise ops that in torch-legacy accepted
same-numel, non-broadcastable operands with a deprecation warning.

The table itself (OpSpec, the registry and its queries) is runtime/optable.py; the
pointwise family registers from runtime/ops_pointwise.py. Public names: ArrayArg, OpSpec,
lookup, all_specs, call_view_kind, output_layout, resolved_view_kind, writes_reach_input,
keeps_shape, is_array_op, shape_from_arguments, index_items, VIEW_KINDS, ALIASING_KINDS.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from . import (
    ops_ordering,  # noqa: F401  (registers orderings, arg-reductions and norms)
    ops_padding,  # noqa: F401  (np.pad, F.pad, repeat_interleave)
    ops_pointwise,  # noqa: F401  (registers the pointwise family on import)
    ops_statistics,  # noqa: F401  (softmax, quantiles, nan-reductions)
    ops_structure,  # noqa: F401  (registers stacks, splits, selections, creation)
)
from . import views as V
from .arguments import ArrayArg, index_items, size_args
from .arguments import dtype_of as _dtype
from .arguments import kw as _kw
from .arguments import shape_of as _shape
from .dialects import Dialect
from .dims import eq, numel, shape_is_concrete
from .layout import torch_view_strides
from .optable import (
    _TABLE,
    ALIASING_KINDS,
    VIEW_KINDS,
    OpSpec,
    ViewKind,
    all_specs,
    is_array_op,
    keeps_shape,
    lookup,
    shape_from_arguments,
    writes_reach_input,
)
from .optable import add_op as _add
from .optable import shape_keeping as _shape_keeping
from .rules.axes import torch_scalar_type
from .rules.messages import NUMPY_SHAPE_IN_PLACE, TORCH_VIEW_STRIDE
from .verdicts import Result, ShapeError
from .views import call_view_kind, output_layout, resolved_view_kind

# The rules package re-exports functions named like their modules (``pointwise``), so the
# modules are imported by their full names.
_broadcast_views = importlib.import_module(".rules.broadcast_views", __package__)
_contractions = importlib.import_module(".rules.contractions", __package__)
_indexing = importlib.import_module(".rules.indexing", __package__)
_joins = importlib.import_module(".rules.joins", __package__)
_lapack = importlib.import_module(".rules.lapack", __package__)
_pointwise = importlib.import_module(".rules.pointwise", __package__)
_products = importlib.import_module(".rules.products", __package__)
_reductions = importlib.import_module(".rules.reductions", __package__)
_repetition = importlib.import_module(".rules.repetition", __package__)
_reshaping = importlib.import_module(".rules.reshaping", __package__)
_scatter_gather = importlib.import_module(".rules.scatter_gather", __package__)
_splits = importlib.import_module(".rules.splits", __package__)
_transposes = importlib.import_module(".rules.transposes", __package__)


def _getitem_rule(x: Any, key: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    return _indexing.index(_shape(x), index_items(key), dialect=dialect)


def _setitem_rule(x: Any, key: Any, value: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    return _indexing.setitem(_shape(x), index_items(key), _shape(value), dialect=dialect)


_add("__getitem__", "both", _getitem_rule, view_kind="view", layout=V.getitem)
_add("__setitem__", "both", _setitem_rule, inplace=True)




# --------------------------------------------------------------------------
# shape / view family

def _x(rule: Callable[..., Result]) -> Callable[..., Result]:
    """Adapt ``rule(shape, ..., dialect)`` to a call whose first argument is the array."""
    def adapted(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        return rule(_shape(x), *args, dialect=dialect, **kwargs)
    return adapted


def _viewable(x: Any, result: Result) -> Result:
    """torch's view never copies: it refuses a layout whose dims cannot be regrouped into the
    new shape (a transposed, expanded or stepped tensor), where reshape would copy."""
    layout = x.layout if isinstance(x, ArrayArg) else None
    if layout is not None and layout.shape == tuple(x.shape) and \
            shape_is_concrete(result.shape) and \
            torch_view_strides(layout.shape, layout.strides, tuple(result.shape)) is None:
        raise ShapeError("view-layout", TORCH_VIEW_STRIDE, "RuntimeError")
    return result


def _reshape_rule(op: str) -> Callable[..., Result]:
    def rule(x: Any, *sizes: Any, dialect: Dialect, **kwargs: Any) -> Result:
        new = size_args(sizes or (_kw(kwargs, "shape", "newshape", default=()),))
        if op == "view" and dialect.is_torch:
            return _viewable(x, _reshaping.view(_shape(x), new, dialect=dialect))
        return _reshaping.reshape(_shape(x), new, dialect=dialect, op=op)
    return rule


def _like_rule(op: str) -> Callable[..., Result]:
    """``x.view_as(y)`` / ``x.reshape_as(y)`` / ``x.expand_as(y)``."""
    def rule(x: Any, other: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
        if op == "expand":
            return _broadcast_views.expand(_shape(x), _shape(other), dialect=dialect, dtype=_dtype(x))
        result = _reshaping.reshape(_shape(x), _shape(other), dialect=dialect, op=op)
        return _viewable(x, result) if op == "view" else result
    return rule


def _numpy_transpose_rule(x: Any, *axes: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """``np.transpose(x, axes)`` and ``x.transpose(*axes)``."""
    order = size_args(axes) if axes else _kw(kwargs, "axes")
    if order is not None and len(order) == 0:
        order = None
    return _transposes.transpose(_shape(x), order, dialect=dialect)


def _torch_transpose_rule(x: Any, dim0: int, dim1: int, *, dialect: Dialect,
                          **kwargs: Any) -> Result:
    return _transposes.transpose(_shape(x), (dim0, dim1), dialect=dialect)


def _torch_t_rule(x: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    return _transposes.transpose(_shape(x), None, dialect=dialect)


def _permute_rule(x: Any, *dims: Any, dialect: Dialect, **kwargs: Any) -> Result:
    order = size_args(dims) if dims else tuple(_kw(kwargs, "dims", "axes", default=()))
    return _transposes.permute(_shape(x), order, dialect=dialect)


def _squeeze_rule(x: Any, *axis: Any, dialect: Dialect, **kwargs: Any) -> Result:
    which = axis[0] if axis else _kw(kwargs, "axis", "dim")
    return _reshaping.squeeze(_shape(x), which, dialect=dialect)


def _expand_rule(x: Any, *sizes: Any, dialect: Dialect, **kwargs: Any) -> Result:
    if not sizes and "size" not in kwargs:
        raise ShapeError("argument", 'expand() missing 1 required positional arguments: "size"',
                         "TypeError")
    target = size_args(sizes or (kwargs["size"],))
    return _broadcast_views.expand(_shape(x), target, dialect=dialect, dtype=_dtype(x))


def _broadcast_to_rule(x: Any, shape: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    target = size_args((shape,))
    return _broadcast_views.broadcast_to(_shape(x), target, dialect=dialect, dtype=_dtype(x))


def _broadcast_arrays_rule(*xs: Any, dialect: Dialect, **kwargs: Any) -> Result:
    return _broadcast_views.broadcast_arrays(*[_shape(x) for x in xs], dialect=dialect)


def _join_rule(rule: Callable[..., Result], axis_names: tuple[str, ...]) -> Callable[..., Result]:
    """``np.concatenate([a, b], axis)`` / ``torch.cat((a, b), dim)`` / stack."""
    def adapted(arrays: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        axis = args[0] if args else _kw(kwargs, *axis_names, default=0)
        return rule([_shape(a) for a in arrays], axis, dialect=dialect)
    return adapted


def _hvstack_rule(rule: Callable[..., Result]) -> Callable[..., Result]:
    def adapted(arrays: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
        return rule([_shape(a) for a in arrays], dialect=dialect)
    return adapted


def _reduce_rule(op: str) -> Callable[..., Result]:
    """NumPy ``sum(x, axis, ..., keepdims=)``; torch ``sum(x, dim, keepdim)``."""
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        if dialect.is_torch:
            axis = args[0] if args else _kw(kwargs, "dim", "axis")
            keep = args[1] if len(args) > 1 else _kw(kwargs, "keepdim", "keepdims", default=False)
        else:
            axis = args[0] if args else _kw(kwargs, "axis")
            keep = _kw(kwargs, "keepdims", default=False)
        if isinstance(axis, list):
            axis = tuple(axis)
        result = _reductions.reduce(_shape(x), axis, bool(keep), op=op, dialect=dialect)
        out = kwargs.get("out")
        if isinstance(out, ArrayArg) and len(result.outputs) == 1:
            return _pointwise.reduction_out(result, out.shape, op=op, dialect=dialect)
        return result
    return rule


def _split_rule(rule: Callable[..., Result], axis_names: tuple[str, ...]) -> Callable[..., Result]:
    def adapted(x: Any, sections: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        axis = args[0] if args else _kw(kwargs, *axis_names, default=0)
        return rule(_shape(x), sections, axis, dialect=dialect)
    return adapted


def _unbind_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    dim = args[0] if args else _kw(kwargs, "dim", "axis", default=0)
    return _splits.unbind(_shape(x), dim, dialect=dialect)


def _diagonal_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    names = (("offset",), ("dim1", "axis1"), ("dim2", "axis2"))
    defaults = (0, 0, 1)
    values = [args[i] if len(args) > i else _kw(kwargs, *names[i], default=defaults[i])
              for i in range(3)]
    return _splits.diagonal(_shape(x), *values, dialect=dialect)


@_shape_keeping
def _same_shape_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """copy / clone / detach / contiguous / asarray / astype / real / imag: shape unchanged."""
    return Result.of(_shape(x))


def _torch_repeat_rule(x: Any, *sizes: Any, dialect: Dialect, **kwargs: Any) -> Result:
    return _repetition.repeat(_shape(x), size_args(sizes), dialect=dialect)


def _numpy_repeat_rule(x: Any, repeats: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    axis = args[0] if args else _kw(kwargs, "axis")
    return _repetition.repeat(_shape(x), repeats, axis, dialect=dialect)


def _tile_rule(x: Any, *reps: Any, dialect: Dialect, **kwargs: Any) -> Result:
    return _repetition.tile(_shape(x), size_args(reps) if len(reps) != 1 else reps[0], dialect=dialect)


def _gather_rule(x: Any, dim: int, index: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    return _indexing.gather(_shape(x), dim, _shape(index), dialect=dialect)


def _index_select_rule(x: Any, dim: int, index: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    return _scatter_gather.index_select(_shape(x), dim, _shape(index), dialect=dialect)


def _take_along_rule(x: Any, indices: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    axis = args[0] if args else _kw(kwargs, "axis", "dim", default=-1)
    if dialect.is_torch and not args and "dim" not in kwargs:
        return Result.of((numel(_shape(indices)),))  # no dim: both are read flattened
    return _indexing.take_along_axis(_shape(x), _shape(indices), axis, dialect=dialect)


def _numpy_view_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """``ndarray.view()`` / ``view(dtype)`` of the same item size: the same shape."""
    return Result.of(_shape(x))


def _as_strided_rule(x: Any, size: Any, stride: Any, *args: Any, dialect: Dialect,
                     **kwargs: Any) -> Result:
    return Result.of(tuple(size))


def _resize_rule(op: str) -> Callable[..., Result]:
    """``np.resize(x, s)``, ndarray's ``x.resize(s)`` (in place), torch's ``x.resize_(*s)``."""
    def rule(x: Any, *sizes: Any, dialect: Dialect, **kwargs: Any) -> Result:
        given = sizes or (_kw(kwargs, "new_shape", "size"),)
        if given == (None,):
            return Result.of(_shape(x))  # ndarray's x.resize() changes nothing
        return _reshaping.resize(_shape(x), size_args(given), dialect=dialect, op=op)
    return rule


def _resize_as_rule(x: Any, other: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    """torch's ``x.resize_as_(other)``: x takes other's shape."""
    return Result.of(_shape(other))


def _shape_assignment_rule(x: Any, shape: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
    """NumPy's ``a.shape = s``: reshape's rule, but never a copy, so a layout whose dims cannot
    be regrouped into ``s`` raises (the test torch's ``.view`` makes)."""
    result = _reshaping.reshape(_shape(x), size_args((shape,)), dialect=dialect, op="reshape")
    layout = x.layout if isinstance(x, ArrayArg) else None
    if layout is not None and layout.shape == tuple(x.shape) and \
            shape_is_concrete(result.shape) and \
            torch_view_strides(layout.shape, layout.strides, tuple(result.shape)) is None:
        raise ShapeError("view-layout", NUMPY_SHAPE_IN_PLACE, "AttributeError")
    return result


def _reshapes_like(name: str, library: str, twin: str) -> None:
    """``name`` changes its own target's shape in place as ``twin`` shapes its result: the
    twin's rule, naming ``name`` where the library's message names the op (``t_() expects``)."""
    twin_rule = _TABLE[(twin, library)].rule

    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        try:
            return twin_rule(x, *args, dialect=dialect, **kwargs)
        except ShapeError as err:
            raise ShapeError(err.kind, err.message.replace(f"{twin}()", f"{name}()"),
                             err.exc_type, err.dim, err.shapes) from None

    _add(name, library, rule, inplace=True, reshapes_target=twin)


def _register_reshaping_inplace() -> None:
    """In-place ops that change the target's own shape and strides, not its elements."""
    for name in ("unsqueeze", "squeeze", "transpose", "t", "swapdims", "swapaxes", "as_strided"):
        _reshapes_like(f"{name}_", "torch", name)
    _add("resize_", "torch", _resize_rule("resize_"), inplace=True, reshapes_target="resize_")
    _add("resize_as_", "torch", _resize_as_rule, inplace=True, reshapes_target="resize_as_")
    _add("np.resize", "numpy", _resize_rule("np.resize"))  # a new array, elements repeated
    _add("resize", "numpy", _resize_rule("resize"), inplace=True, reshapes_target="resize")
    _add("shape", "numpy", _shape_assignment_rule, inplace=True, reshapes_target="reshape")


_REDUCTIONS = ("sum", "prod", "mean", "std", "var", "amax", "amin", "any", "all")


def _register_shape_ops() -> None:
    # reshaping: a view when the strides allow it
    _add("np.reshape", "numpy", _reshape_rule("reshape"), view_kind="maybe", layout=V.reshaped)
    _add("reshape", "both", _reshape_rule("reshape"), view_kind="maybe", layout=V.reshaped)
    _add("torch.reshape", "torch", _reshape_rule("reshape"), view_kind="maybe", layout=V.reshaped)
    _add("view", "torch", _reshape_rule("view"), view_kind="view", layout=V.reshaped)
    _add("view", "numpy", _numpy_view_rule, view_kind="view", layout=V.same)
    _add("view_as", "torch", _like_rule("view"), view_kind="view", layout=V.reshaped)
    _add("reshape_as", "torch", _like_rule("reshape"), view_kind="maybe", layout=V.reshaped)
    _add("np.ravel", "numpy", _x(_reshaping.ravel), view_kind="maybe", layout=V.reshaped)
    _add("ravel", "both", _x(_reshaping.ravel), view_kind="maybe", layout=V.reshaped)
    _add("torch.ravel", "torch", _x(_reshaping.ravel), view_kind="maybe", layout=V.reshaped)
    _add("flatten", "numpy", _x(_reshaping.flatten))  # ndarray.flatten always copies
    _add("flatten", "torch", _x(_reshaping.flatten), view_kind="maybe", layout=V.reshaped)
    _add("torch.flatten", "torch", _x(_reshaping.flatten), view_kind="maybe", layout=V.reshaped)
    _add("contiguous", "torch", _same_shape_rule, view_kind="maybe", layout=V.contiguous)
    _add("np.ascontiguousarray", "numpy", _same_shape_rule, view_kind="maybe",
         layout=V.contiguous)
    # permutations: always views
    _add("np.transpose", "numpy", _numpy_transpose_rule, view_kind="view", layout=V.numpy_transpose)
    _add("np.permute_dims", "numpy", _numpy_transpose_rule, view_kind="view", layout=V.numpy_transpose)
    _add("transpose", "numpy", _numpy_transpose_rule, view_kind="view", layout=V.numpy_transpose)
    _add("transpose", "torch", _torch_transpose_rule, view_kind="view", layout=V.swap)
    _add("torch.transpose", "torch", _torch_transpose_rule, view_kind="view", layout=V.swap)
    for name in ("swapaxes", "swapdims"):
        _add(name, "torch", _x(_transposes.swapaxes), view_kind="view", layout=V.swap)
        _add(f"torch.{name}", "torch", _x(_transposes.swapaxes), view_kind="view", layout=V.swap)
    _add("swapaxes", "numpy", _x(_transposes.swapaxes), view_kind="view", layout=V.swap)
    _add("np.swapaxes", "numpy", _x(_transposes.swapaxes), view_kind="view", layout=V.swap)
    _add("np.moveaxis", "numpy", _x(_transposes.moveaxis), view_kind="view", layout=V.moveaxis)
    for name in ("movedim", "moveaxis"):
        _add(name, "torch", _x(_transposes.moveaxis), view_kind="view", layout=V.moveaxis)
        _add(f"torch.{name}", "torch", _x(_transposes.moveaxis), view_kind="view", layout=V.moveaxis)
    _add("T", "both", _x(_transposes.T_attr), view_kind="view", layout=V.reversed_dims)
    _add("mT", "both", _x(_transposes.matrix_transpose), view_kind="view", layout=V.matrix_transpose)
    _add("np.matrix_transpose", "numpy", _x(_transposes.matrix_transpose), view_kind="view", layout=V.matrix_transpose)
    _add("t", "torch", _torch_t_rule, view_kind="view", layout=V.torch_t)
    _add("torch.t", "torch", _torch_t_rule, view_kind="view", layout=V.torch_t)
    _add("permute", "torch", _permute_rule, view_kind="view", layout=V.permute)
    _add("torch.permute", "torch", _permute_rule, view_kind="view", layout=V.permute)
    # unit dims
    _add("squeeze", "both", _squeeze_rule, view_kind="view", layout=V.squeeze)
    _add("np.squeeze", "numpy", _squeeze_rule, view_kind="view", layout=V.squeeze)
    _add("torch.squeeze", "torch", _squeeze_rule, view_kind="view", layout=V.squeeze)
    _add("np.expand_dims", "numpy", _x(_reshaping.expand_dims), view_kind="view",
         layout=V.expand_dims, adds_axis=True)
    _add("unsqueeze", "torch", _x(_reshaping.unsqueeze), view_kind="view", layout=V.unsqueeze,
         adds_axis=True)
    _add("torch.unsqueeze", "torch", _x(_reshaping.unsqueeze), view_kind="view",
         layout=V.unsqueeze, adds_axis=True)
    # broadcasting views: several indices may reach one element
    _add("expand", "torch", _expand_rule, view_kind="repeated", repeats=True, layout=V.expand)
    _add("expand_as", "torch", _like_rule("expand"), view_kind="repeated", repeats=True, layout=V.expand)
    _add("torch.broadcast_to", "torch", _broadcast_to_rule, view_kind="repeated", repeats=True, layout=V.expand)
    _add("broadcast_to", "torch", _broadcast_to_rule, view_kind="repeated", repeats=True, layout=V.expand)
    _add("np.broadcast_to", "numpy", _broadcast_to_rule, view_kind="readonly", repeats=True,
         layout=V.broadcast_numpy)
    # NumPy's broadcast_arrays are still writable (with a DeprecationWarning on write)
    _add("np.broadcast_arrays", "numpy", _broadcast_arrays_rule, view_kind="repeated",
         repeats=True, multi_output=True)
    _add("torch.broadcast_tensors", "torch", _broadcast_arrays_rule, view_kind="repeated",
         repeats=True, multi_output=True)
    _add("as_strided", "torch", _as_strided_rule, view_kind="view", repeats=True, layout=V.as_strided)
    _add("torch.as_strided", "torch", _as_strided_rule, view_kind="view", repeats=True, layout=V.as_strided)
    # slicing views
    _add("narrow", "torch", _x(_splits.narrow), view_kind="view", layout=V.narrow)
    _add("torch.narrow", "torch", _x(_splits.narrow), view_kind="view", layout=V.narrow)
    _add("select", "torch", _x(_splits.select), view_kind="view", layout=V.select)
    _add("torch.select", "torch", _x(_splits.select), view_kind="view", layout=V.select)
    _add("unfold", "torch", _x(_splits.unfold), view_kind="view", layout=V.unfold)
    _add("diagonal", "numpy", _diagonal_rule, view_kind="readonly", layout=V.diagonal)
    _add("np.diagonal", "numpy", _diagonal_rule, view_kind="readonly", layout=V.diagonal)
    _add("diagonal", "torch", _diagonal_rule, view_kind="view", layout=V.diagonal)
    _add("torch.diagonal", "torch", _diagonal_rule, view_kind="view", layout=V.diagonal)
    # splitting: every piece views the input
    _add("np.split", "numpy", _split_rule(_splits.split, ("axis",)), view_kind="view",
         multi_output=True)
    _add("np.array_split", "numpy", _split_rule(_splits.array_split, ("axis",)), view_kind="view",
         multi_output=True)
    _add("np.unstack", "numpy", _unbind_rule, view_kind="view", multi_output=True)
    for name, rule in (("split", _split_rule(_splits.split, ("dim",))),
                       ("chunk", _split_rule(_splits.chunk, ("dim",))), ("unbind", _unbind_rule)):
        _add(name, "torch", rule, view_kind="view", multi_output=True)
        _add(f"torch.{name}", "torch", rule, view_kind="view", multi_output=True)
    # joins and repetition: new arrays
    joined = ops_structure.sequence_dtype
    _add("np.concatenate", "numpy", _join_rule(_joins.concatenate, ("axis",)), takes_sequence=True,
         dtype=joined)
    _add("np.concat", "numpy", _join_rule(_joins.concatenate, ("axis",)), takes_sequence=True,
         dtype=joined)
    _add("np.stack", "numpy", _join_rule(_joins.stack, ("axis",)), takes_sequence=True,
         dtype=joined)
    _add("np.hstack", "numpy", _hvstack_rule(_joins.hstack), takes_sequence=True, dtype=joined)
    _add("np.vstack", "numpy", _hvstack_rule(_joins.vstack), takes_sequence=True, dtype=joined)
    for name in ("cat", "concat", "concatenate"):
        _add(f"torch.{name}", "torch", _join_rule(_joins.concatenate, ("dim", "axis")),
             takes_sequence=True, dtype=joined)
    _add("torch.stack", "torch", _join_rule(_joins.stack, ("dim", "axis")), takes_sequence=True,
         dtype=joined)
    _add("torch.hstack", "torch", _hvstack_rule(_joins.hstack), takes_sequence=True, dtype=joined)
    _add("torch.vstack", "torch", _hvstack_rule(_joins.vstack), takes_sequence=True, dtype=joined)
    _add("repeat", "torch", _torch_repeat_rule)
    _add("repeat", "numpy", _numpy_repeat_rule)
    _add("np.repeat", "numpy", _numpy_repeat_rule)
    _add("np.tile", "numpy", _tile_rule)
    _add("tile", "torch", _tile_rule)
    _add("torch.tile", "torch", _tile_rule)
    # gathers: new arrays
    _add("gather", "torch", _gather_rule)
    _add("torch.gather", "torch", _gather_rule)
    _add("index_select", "torch", _index_select_rule)
    _add("torch.index_select", "torch", _index_select_rule)
    _add("np.take_along_axis", "numpy", _take_along_rule)
    _add("torch.take_along_dim", "torch", _take_along_rule)
    # reductions: new arrays
    for op in _REDUCTIONS:
        _add(f"np.{op}", "numpy", _reduce_rule(op))
        _add(op, "torch", _reduce_rule(op))
        _add(f"torch.{op}", "torch", _reduce_rule(op))
        if op not in ("amax", "amin"):  # ndarray spells those max / min
            _add(op, "numpy", _reduce_rule(op))
    for op in ("max", "min"):  # torch's max(dim) returns (values, indices): not modelled here
        _add(f"np.{op}", "numpy", _reduce_rule(op))
        _add(op, "numpy", _reduce_rule(op))
    # copies, and the calls that may hand back their input
    _add("np.copy", "numpy", _same_shape_rule)
    _add("copy", "numpy", _same_shape_rule)
    _add("np.array", "numpy", _same_shape_rule)
    _add("clone", "torch", _same_shape_rule)
    _add("torch.clone", "torch", _same_shape_rule)
    _add("np.asarray", "numpy", _same_shape_rule, view_kind="same")
    _add("astype", "numpy", _same_shape_rule)  # copy=False: "same" (see call_view_kind)
    _add("detach", "torch", _same_shape_rule, view_kind="view", layout=V.same)
    _add("torch.detach", "torch", _same_shape_rule, view_kind="view", layout=V.same)
    for part in ("real", "imag"):
        # Layouts count elements of the root, so a part touches the very elements it views.
        part_layout = V.same if part == "real" else None
        _add(part, "both", _same_shape_rule, view_kind="view", layout=part_layout)
        _add(f"np.{part}", "numpy", _same_shape_rule, view_kind="view", layout=part_layout)
        _add(f"torch.{part}", "torch", _same_shape_rule, view_kind="view", layout=part_layout)


_register_shape_ops()
_register_reshaping_inplace()


# --------------------------------------------------------------------------
# linear algebra family

def _binary(rule: Callable[..., Result], *, reflected: bool = False) -> Callable[..., Result]:
    def adapted(a: Any, b: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        if reflected:
            a, b = b, a
        return rule(_shape(a), _shape(b), dialect=dialect)
    return adapted


_C_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
            "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _matmul_rule(reflected: bool = False) -> Callable[..., Result]:
    """matmul in either library, with out=; torch's does not promote: two operands of
    different dtypes are refused (after the shape check), in the words of the kernel the
    ranks pick."""
    shaped = _binary(_products.matmul, reflected=reflected)

    def rule(a: Any, b: Any, *args: Any, dialect: Dialect, out: Any = None,
             **kwargs: Any) -> Result:
        result = shaped(a, b, *args, dialect=dialect, **kwargs)
        if reflected:
            a, b = b, a
        if isinstance(out, ArrayArg):
            core = 2 - sum(1 for v in (a, b) if len(_shape(v)) == 1)
            result = _matmul_out(result, out.shape, core, dialect)
        left, right = _dtype(a), _dtype(b)
        if isinstance(a, ArrayArg) and isinstance(b, ArrayArg) and left and right \
                and left != right and dialect.is_torch and not dialect.legacy:
            if a.ndim == 1 and b.ndim == 1:
                message = (f"dot : expected both vectors to have same dtype, but found "
                           f"{torch_scalar_type(left)} and {torch_scalar_type(right)}")
            else:
                message = (f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_C_TYPES.get(left, left)} != {_C_TYPES.get(right, right)}")
            raise ShapeError("dtype", message, "RuntimeError")
        return result
    return rule


def _matmul_out(result: Result, out: tuple, core: int, dialect: Dialect) -> Result:
    """matmul's out=: NumPy's gufunc needs out's core dims equal to the result's and its loop
    dims to hold the result's without broadcasting; torch resizes out as for any op."""
    if dialect.is_torch:
        return _pointwise.reduction_out(result, out, op="matmul", dialect=dialect)
    shape, out = tuple(result.shape), tuple(out)
    if len(out) < len(shape):
        # The gufunc's optional core dims (n?, m?) let some such outs through ((1, 1) @ (1, 1)
        # into a (1,) out): what it accepts there is not modelled.
        raise NotImplementedError("an out of fewer dims than the result")
    for i in range(core):
        o, r = out[len(out) - core + i], shape[len(shape) - core + i]
        if eq(o, r) is False:
            raise ShapeError("out", f"matmul: Output operand 0 has a mismatch in its core "
                             f"dimension {i}, with gufunc signature (n?,k),(k,m?)->(n?,m?) "
                             f"(size {o} is different from {r})", "ValueError", shapes=(out, shape))
    loops, out_loops = shape[:len(shape) - core], out[:len(out) - core]
    _pointwise.unary_out(loops, out_loops, dialect=dialect)
    return Result.of(out)


def _fused(rule: Callable[..., Result]) -> Callable[..., Result]:
    """``addmm(c, a, b, beta=, alpha=)`` and its relatives."""
    def adapted(c: Any, a: Any, b: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        return rule(_shape(c), _shape(a), _shape(b), dialect=dialect)
    return adapted


def _unary_linalg(rule: Callable[..., Result]) -> Callable[..., Result]:
    def adapted(a: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        return rule(_shape(a), dialect=dialect)
    return adapted


def _einsum_rule(subscripts: str, *operands: Any, dialect: Dialect, **kwargs: Any) -> Result:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])  # torch.einsum("ij,jk", [a, b])
    return _contractions.einsum(subscripts, *[_shape(o) for o in operands], dialect=dialect)


def _tensordot_rule(a: Any, b: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    if dialect.is_torch and _dtype(a) and _dtype(b) and _dtype(a) != _dtype(b):
        raise ShapeError("dtype", "both inputs should have same dtype", "RuntimeError")
    axes = args[0] if args else _kw(kwargs, "axes", "dims", default=2)
    if isinstance(axes, list):
        axes = tuple(tuple(x) if isinstance(x, list) else x for x in axes)
    return _contractions.tensordot(_shape(a), _shape(b), axes, dialect=dialect)


def _svd_rule(a: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    full = args[0] if args else _kw(kwargs, "full_matrices", default=True)
    compute_uv = args[1] if len(args) > 1 else _kw(kwargs, "compute_uv", default=True)
    return _lapack.svd(_shape(a), full_matrices=full, compute_uv=compute_uv, dialect=dialect)


def _qr_rule(a: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    mode = args[0] if args else _kw(kwargs, "mode", default="reduced")
    return _lapack.qr(_shape(a), mode=mode, dialect=dialect)


_MULTI_LINALG = ("slogdet", "eig", "eigh", "svd", "qr")


def _register_linalg() -> None:
    _add("np.matmul", "numpy", _matmul_rule(), dtype=ops_structure.product_dtype)
    _add("torch.matmul", "torch", _matmul_rule())
    _add("matmul", "torch", _matmul_rule())
    _add("__matmul__", "both", _matmul_rule())
    _add("__rmatmul__", "both", _matmul_rule(reflected=True))
    for name in ("mm", "mv", "bmm"):
        _add(name, "torch", _binary(getattr(_products, name)))
        _add(f"torch.{name}", "torch", _binary(getattr(_products, name)))
    for name in ("dot", "vdot", "inner", "outer"):
        _add(f"np.{name}", "numpy", _binary(getattr(_products, name)),
             dtype=ops_structure.product_dtype)
        rule = _binary(getattr(_products, name))
        if name == "inner":
            rule = ops_structure.torch_inner_rule(rule)
        multiplies = name in ("inner", "outer")  # dot and vdot refuse two dtypes
        dtype = ops_structure.torch_elementwise_product_dtype if multiplies else None
        _add(f"torch.{name}", "torch", rule, dtype=dtype)
        _add(name, "torch", rule, dtype=dtype)
    _add("dot", "numpy", _binary(_products.dot))
    _add("torch.ger", "torch", _binary(_products.outer),
         dtype=ops_structure.torch_elementwise_product_dtype)
    _add("ger", "torch", _binary(_products.outer),
         dtype=ops_structure.torch_elementwise_product_dtype)
    for name in ("addmm", "addmv", "addr", "baddbmm", "addbmm"):
        _add(name, "torch", _fused(getattr(_products, name)))
        _add(f"torch.{name}", "torch", _fused(getattr(_products, name)))
    _add("np.einsum", "numpy", _einsum_rule)
    # torch.einsum("ij,jk", [a, b]) takes its operands as one list; numpy would stack it.
    _add("torch.einsum", "torch", _einsum_rule, takes_sequence=True)
    _add("np.tensordot", "numpy", _tensordot_rule, dtype=ops_structure.product_dtype)
    _add("torch.tensordot", "torch", _tensordot_rule, dtype=ops_structure.product_dtype)
    for name in ("inv", "det", "slogdet", "eig", "eigh", "eigvals", "eigvalsh", "cholesky",
                 "pinv"):
        rule = _unary_linalg(getattr(_lapack, name))
        multi = name in _MULTI_LINALG
        _add(f"np.linalg.{name}", "numpy", rule, multi_output=multi)
        _add(f"torch.linalg.{name}", "torch", rule, multi_output=multi)
    _add("torch.inverse", "torch", _unary_linalg(_lapack.inv))
    _add("inverse", "torch", _unary_linalg(_lapack.inv))
    _add("torch.det", "torch", _unary_linalg(_lapack.det))
    _add("det", "torch", _unary_linalg(_lapack.det))
    _add("np.linalg.svd", "numpy", _svd_rule, multi_output=True)
    _add("torch.linalg.svd", "torch", _svd_rule, multi_output=True)
    _add("np.linalg.qr", "numpy", _qr_rule, multi_output=True)
    _add("torch.linalg.qr", "torch", _qr_rule, multi_output=True)
    _add("np.linalg.solve", "numpy", _binary(_lapack.solve))
    _add("torch.linalg.solve", "torch", _binary(_lapack.solve))


_register_linalg()


__all__ = ["ALIASING_KINDS", "VIEW_KINDS", "ArrayArg", "OpSpec", "ViewKind", "_TABLE",
           "all_specs", "call_view_kind", "index_items", "is_array_op", "keeps_shape", "lookup",
           "output_layout", "resolved_view_kind", "shape_from_arguments", "size_args",
           "writes_reach_input"]
