"""NumPy's samplers: the shape of a draw (size= and the parameters broadcast together), its
dtype, a Python number when neither gives a shape, and the certain refusals, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime.arguments import ArrayArg
from shapecheck.runtime.random_draws import SCALAR, draw

PARAMETER_SHAPES = [(), (3,), (2, 1), (1, 3)]
SIZES = [None, 3, (2, 3), (4, 2, 3), (2,), ()]
SAMPLERS = {"normal": 2, "uniform": 2, "exponential": 1, "poisson": 1, "binomial": 2,
            "gamma": 1, "beta": 2, "lognormal": 2, "laplace": 2, "geometric": 1,
            "standard_normal": 0, "random": 0, "integers": 2, "chisquare": 1, "triangular": 3}


def _value(name: str, k: int, shape: tuple):
    base = {"integers": [0, 5, 0], "binomial": [5, 0.5], "triangular": [0.0, 0.5, 1.0],
            "geometric": [0.5]}.get(name, [0.5, 1.5, 2.0])[k]
    return np.full(shape, base) if shape else base


def _real(name, args, size):
    try:
        value = getattr(np.random.default_rng(0), name)(*args, size=size)
    except Exception:
        return "refused"
    if not isinstance(value, (np.ndarray, np.generic)):
        return "scalar"
    return tuple(np.shape(value)), np.asarray(value).dtype.name


def _ours(name, args, size):
    plain = tuple(ArrayArg(np.shape(a), "float64") if isinstance(a, np.ndarray) else a
                  for a in args)
    try:
        answer = draw(name, plain, {"size": size} if size is not None else {}, None)
    except Exception:
        return "refused"
    if answer is SCALAR:
        return "scalar"
    shape, dtype = answer
    return tuple(shape), dtype


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_a_samplers_draw_has_numpys_shape_and_dtype(name):
    count = SAMPLERS[name]
    for shape in PARAMETER_SHAPES if count else [()]:
        args = tuple(_value(name, k, shape if k == count - 1 else ()) for k in range(count))
        for size in SIZES:
            assert _ours(name, args, size) == _real(name, args, size), (args, size)


def test_choice_and_permutation_draw_from_a_population_or_an_array():
    rng = np.random.default_rng(0)
    assert draw("choice", (5,), {"size": (2, 2), "replace": False}, None) == ((2, 2), "int64")
    with pytest.raises(Exception):
        draw("choice", (3,), {"size": 5, "replace": False}, None)
    with pytest.raises(ValueError):
        rng.choice(3, 5, replace=False)
    x = ArrayArg((3, 4), "float32")
    assert draw("choice", (x, 2), {"axis": 1}, None) == ((3, 2), "float32")
    assert rng.choice(np.ones((3, 4), dtype="float32"), 2, axis=1).shape == (3, 2)
    assert draw("permutation", (x,), {}, None) == ((3, 4), "float32")
    assert draw("permutation", (5,), {}, None) == ((5,), "int64")
