"""In-place ops that change their target's own shape and strides, not its elements, in the op
table: torch's ``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``, ``swapdims_``,
``swapaxes_``, ``as_strided_``, ``resize_`` and ``resize_as_``; NumPy's ``a.resize(s)`` and
``a.shape = s`` (and ``np.resize``, the copy that repeats elements).

Each names its out-of-place twin in OpSpec.reshapes_target (the op itself where the library
has none): the engine and the analyzer give the target the shape the twin gives its result.
A twin's rule is looked up when the op is checked, so this module registers on import
whatever order the op table's modules load in.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from .arguments import ArrayArg, size_args
from .arguments import kw as _kw
from .arguments import shape_of as _shape
from .dialects import Dialect
from .dims import shape_is_concrete
from .layout import torch_view_strides
from .optable import _TABLE
from .optable import add_op as _add
from .rules.messages import NUMPY_SHAPE_IN_PLACE
from .verdicts import Result, ShapeError

_reshaping = importlib.import_module(".rules.reshaping", __package__)


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
    def rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        try:
            return _TABLE[(twin, library)].rule(x, *args, dialect=dialect, **kwargs)
        except ShapeError as err:
            raise ShapeError(err.kind, err.message.replace(f"{twin}()", f"{name}()"),
                             err.exc_type, err.dim, err.shapes) from None

    _add(name, library, rule, inplace=True, reshapes_target=twin)


def _register() -> None:
    for name in ("unsqueeze", "squeeze", "transpose", "t", "swapdims", "swapaxes", "as_strided"):
        _reshapes_like(f"{name}_", "torch", name)
    _add("resize_", "torch", _resize_rule("resize_"), inplace=True, reshapes_target="resize_")
    _add("resize_as_", "torch", _resize_as_rule, inplace=True, reshapes_target="resize_as_")
    _add("np.resize", "numpy", _resize_rule("np.resize"))  # a new array, elements repeated
    _add("resize", "numpy", _resize_rule("resize"), inplace=True, reshapes_target="resize")
    _add("shape", "numpy", _shape_assignment_rule, inplace=True, reshapes_target="reshape")


_register()
