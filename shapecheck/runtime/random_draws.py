"""What NumPy's random samplers draw (``np.random.<f>`` and a ``default_rng()`` Generator's
methods): the shape, from ``size=`` and the distribution's parameters broadcast together, the
dtype, and the calls NumPy certainly refuses.

Without a size, array parameters give the broadcast of their shapes and scalar ones a Python
scalar (``SCALAR``); with a size, the parameters must broadcast to that very size ("Output
size (2,) is not compatible with broadcast dimensions of inputs (2, 2)"). A parameter is an
ArrayArg (its shape), a literal list, a number, or a marker for what the caller could not read
(then the shape is unknown, never an error).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arguments import ArrayArg
from .dialects import NUMPY
from .dims import dims_equal, numel
from .verdicts import ShapeError

DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "normal": ("loc", "scale"), "uniform": ("low", "high"), "lognormal": ("mean", "sigma"),
    "laplace": ("loc", "scale"), "logistic": ("loc", "scale"), "gumbel": ("loc", "scale"),
    "beta": ("a", "b"), "gamma": ("shape", "scale"), "f": ("dfnum", "dfden"),
    "binomial": ("n", "p"), "negative_binomial": ("n", "p"), "vonmises": ("mu", "kappa"),
    "wald": ("mean", "scale"), "noncentral_chisquare": ("df", "nonc"),
    "exponential": ("scale",), "poisson": ("lam",), "geometric": ("p",), "chisquare": ("df",),
    "standard_t": ("df",), "standard_gamma": ("shape",), "pareto": ("a",), "power": ("a",),
    "weibull": ("a",), "rayleigh": ("scale",), "zipf": ("a",), "logseries": ("p",),
    "triangular": ("left", "mode", "right"), "hypergeometric": ("ngood", "nbad", "nsample"),
    "noncentral_f": ("dfnum", "dfden", "nonc"), "standard_normal": (),
    "standard_exponential": (), "standard_cauchy": (), "random": (), "random_sample": (),
    "integers": ("low", "high"), "randint": ("low", "high"),
}
"""Each sampler's parameters, in order; ``size`` comes after them."""

_INTEGERS = frozenset({"binomial", "negative_binomial", "poisson", "geometric", "zipf",
                       "logseries", "hypergeometric", "integers", "randint"})
_PROBABILITY = {"binomial": "p < 0, p > 1 or p is NaN",
                "negative_binomial": "p < 0, p > 1 or p is NaN",
                "geometric": "p <= 0, p > 1 or p contains NaNs"}
SAMPLERS = frozenset(DISTRIBUTIONS) | {"choice", "permutation", "permuted", "shuffle",
                                       "multivariate_normal", "rand", "randn"}
"""Every sampler this module answers for."""


class Scalar:
    """The answer for a draw of one Python number."""


SCALAR = Scalar()


def _param_shape(value: Any) -> tuple | None:
    if isinstance(value, ArrayArg):
        return tuple(value.shape)
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return ()
    if isinstance(value, (list, tuple)):
        try:
            return tuple(np.shape(value))
        except ValueError:
            return None
    return None


def _sizes(size: Any) -> tuple | None:
    if isinstance(size, int) and not isinstance(size, bool):
        return (size,)
    if isinstance(size, (tuple, list)) and all(
            isinstance(v, int) and not isinstance(v, bool) or hasattr(v, "terms")
            for v in size):
        return tuple(size)
    return None


def _broadcast(shapes: list[tuple]) -> tuple:
    from .rules.broadcast import broadcast_shapes

    try:
        return tuple(broadcast_shapes(*shapes, dialect=NUMPY).shape)
    except ShapeError:
        raise ShapeError("argument", "shape mismatch: objects cannot be broadcast to a single "
                         "shape", "ValueError") from None


def draw(name: str, args: tuple, kwargs: dict, dtype: str | None,
         generator: bool = True) -> Any:
    """(shape, dtype) of ``name``'s draw (a shape of None: only the rank is unknown),
    ``SCALAR``, or None when not modelled; raises the library's certain refusal.
    ``generator``: a Generator's method rather than the legacy ``np.random.<name>``."""
    if name in ("choice", "permutation", "permuted", "shuffle", "multivariate_normal"):
        return _sampling(name, args, kwargs, generator)
    names = DISTRIBUTIONS.get(name)
    if names is None:
        return None
    params = list(args[:len(names)]) + [kwargs[n] for n in names[len(args):] if n in kwargs]
    size = args[len(names)] if len(args) > len(names) else kwargs.get("size")
    for value, param in zip(params, names):
        message = _PROBABILITY.get(name)
        if param == "p" and message and isinstance(value, float) and (
                value < 0 or value > 1 or (value == 0 and name == "geometric")):
            raise ShapeError("argument", message, "ValueError")
    default = "int64" if name in _INTEGERS else "float64"
    kind = dtype or default
    shapes = [_param_shape(v) for v in params]
    if size is None:
        if any(s is None for s in shapes):
            return None, kind
        if all(s == () for s in shapes):
            # A Python number, but for a Generator's integers: a NumPy int64 scalar.
            return ((), kind) if name == "integers" and generator else SCALAR
        return _broadcast([s for s in shapes]), kind
    out = _sizes(size)
    if out is None:
        return None, kind
    if all(s is not None for s in shapes) and any(shapes):
        full = _broadcast([out] + shapes)
        # The integer samplers only need the bounds to broadcast with the size.
        if dims_equal(full, out) is False and name not in ("integers", "randint"):
            raise ShapeError("argument", f"Output size {tuple(out)} is not compatible with "
                             f"broadcast dimensions of inputs {tuple(full)}.", "ValueError")
    return out, kind


def _sampling(name: str, args: tuple, kwargs: dict, generator: bool) -> Any:
    first = args[0] if args else kwargs.get("a", kwargs.get("x", kwargs.get("mean")))
    if name in ("permutation", "permuted", "shuffle"):
        if isinstance(first, ArrayArg):
            return (None if name == "shuffle" else tuple(first.shape)), first.dtype
        if isinstance(first, int) and not isinstance(first, bool) and name == "permutation":
            return (first,), "int64"
        return None
    if name == "multivariate_normal":
        mean = _param_shape(first)
        size = args[2] if len(args) > 2 else kwargs.get("size")
        if mean is None or len(mean) != 1:
            return None
        out = () if size is None else _sizes(size)
        return (None if out is None else out + mean), "float64"
    size = args[1] if len(args) > 1 else kwargs.get("size")
    replace = args[2] if len(args) > 2 else kwargs.get("replace", True)
    axis = kwargs.get("axis", 0)
    if isinstance(first, int) and not isinstance(first, bool):
        if size is None:
            return SCALAR
        out = _sizes(size)
        if out is not None and replace is False and all(isinstance(d, int) for d in out) \
                and numel(out) > first:
            raise ShapeError("argument", "Cannot take a larger sample than population when "
                             "'replace=False'", "ValueError")
        return out, "int64"
    if not isinstance(first, ArrayArg) or not isinstance(axis, int):
        return None
    shape = tuple(first.shape)
    if not generator and len(shape) != 1:
        raise ShapeError("argument", "a must be 1-dimensional", "ValueError")
    if not shape or not -len(shape) <= axis < len(shape):
        return None
    axis %= len(shape)
    if size is None:
        rest = shape[:axis] + shape[axis + 1:]
        return (rest, first.dtype) if rest else SCALAR
    out = _sizes(size)
    return (None if out is None else shape[:axis] + out + shape[axis + 1:]), first.dtype


__all__ = ["DISTRIBUTIONS", "SAMPLERS", "SCALAR", "draw"]
