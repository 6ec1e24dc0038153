"""torch's samplers of a tensor, in the op table: ``bernoulli`` and ``poisson`` (one draw per
element), ``normal`` of tensor means or deviations (broadcast together), ``multinomial`` (draws
per row of a matrix of probabilities), and the in-place fills (``x.normal_()``, ...).

Sizes made from sizes alone (``torch.randn(2, 3)``, ``torch.randperm(n)``) are creation.py's.
Registered into the table on import; runtime/ops.py imports it.
"""

from __future__ import annotations

import importlib
from typing import Any

from .arguments import arg as _arg
from .arguments import dtype_of as _dtype
from .arguments import is_array as _is_array
from .arguments import shape_of as _shape
from .dialects import Dialect
from .dims import le, lt
from .optable import add_op as _add
from .optable import shape_keeping as _shape_keeping
from .verdicts import Result, ShapeError

_broadcast = importlib.import_module(".rules.broadcast", __package__)

_FILLS = ("normal_", "uniform_", "exponential_", "bernoulli_", "random_", "cauchy_",
          "log_normal_", "geometric_")


@_shape_keeping
def _each_element_rule(x: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """One draw per element: the input's shape and dtype."""
    return Result.of(_shape(x))


def _normal_rule(mean: Any, std: Any = 1.0, *args: Any, dialect: Dialect,
                 **kwargs: Any) -> Result:
    """normal(mean, std) with a tensor among them: their broadcast shape (a size then is the
    creation's business)."""
    if not (_is_array(mean) or _is_array(std)) or args or "size" in kwargs:
        raise NotImplementedError("normal of numbers and a size: a creation")
    return _broadcast.broadcast_shapes(*[_shape(v) for v in (mean, std) if _is_array(v)],
                                       dialect=dialect)


def _normal_dtype(mean: Any, std: Any = 1.0, *args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    return _dtype(mean) if _is_array(mean) else _dtype(std)


def _multinomial_rule(x: Any, count: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """multinomial(probs, n, replacement=False): n draws per row of a vector or matrix."""
    shape = _shape(x)
    replacement = _arg(args, 0, kwargs, "replacement", default=False)
    if len(shape) not in (1, 2):
        raise ShapeError("argument", "prob_dist must be 1 or 2 dim", "RuntimeError")
    if not isinstance(count, int) or isinstance(count, bool):
        raise NotImplementedError("a count that is not an int")
    if count <= 0:
        raise ShapeError("argument", "cannot sample n_sample <= 0 samples", "RuntimeError")
    if not replacement and lt(shape[-1], count) is True:
        raise ShapeError("argument", "cannot sample n_sample > prob_dist.size(-1) samples "
                         "without replacement", "RuntimeError")
    if not replacement and le(count, shape[-1]) is not True:
        raise NotImplementedError("a count against a size nobody knows")
    return Result.of(tuple(shape[:-1]) + (count,))


def _index_dtype(*args: Any, dialect: Dialect, **kwargs: Any) -> Any:
    return "int64"


def _register() -> None:
    for op in ("bernoulli", "poisson"):
        _add(f"torch.{op}", "torch", _each_element_rule)
    _add("bernoulli", "torch", _each_element_rule)
    _add("torch.normal", "torch", _normal_rule, dtype=_normal_dtype)
    _add("torch.multinomial", "torch", _multinomial_rule, dtype=_index_dtype)
    _add("multinomial", "torch", _multinomial_rule, dtype=_index_dtype)
    for op in _FILLS:
        _add(op, "torch", _each_element_rule, inplace=True)


_register()
