"""The creation rule answers the shape and dtype real NumPy and torch give."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime.creation import ARRAY, SCALAR, Created, creation, literal_shape
from shapecheck.runtime.dims import UNKNOWN, sym

# (library, name, args, kwargs): each is run on the real library too.
CASES = [
    ("numpy", "zeros", ((2, 3),), {}),
    ("numpy", "ones", (4,), {"dtype": "int32"}),
    ("numpy", "empty", ([2, 5],), {}),
    ("numpy", "zeros", ((2, 3), "float32"), {}),
    ("numpy", "full", ((2, 2), 7), {}),
    ("numpy", "full", ((2,), True), {}),
    ("numpy", "full", ((3,), 1.5), {}),
    ("numpy", "eye", (3,), {}),
    ("numpy", "eye", (3, 4), {}),
    ("numpy", "identity", (2,), {}),
    ("numpy", "arange", (5,), {}),
    ("numpy", "arange", (2, 11, 3), {}),
    ("numpy", "arange", (2.5,), {}),
    ("numpy", "linspace", (0, 1), {}),
    ("numpy", "linspace", (0, 1, 7), {}),
    ("numpy", "array", ([[1, 2], [3, 4]],), {}),
    ("numpy", "array", ([[1.0, 2], [3, 4]],), {}),
    ("numpy", "array", ([True, False],), {}),
    ("numpy", "asarray", ([],), {}),
    ("numpy", "random.rand", (2, 3), {}),
    ("numpy", "random.randn", (4,), {}),
    ("numpy", "random.normal", (0, 1, (3, 2)), {}),
    ("numpy", "random.randint", (0, 5), {"size": (2, 2)}),
    ("torch", "zeros", (2, 3), {}),
    ("torch", "zeros", ((2, 3),), {}),
    ("torch", "ones", (4,), {"dtype": "float64"}),
    ("torch", "rand", (2, 3), {}),
    ("torch", "randn", (5,), {}),
    ("torch", "full", ((2, 2), 7), {}),
    ("torch", "full", ((2, 2), 7.0), {}),
    ("torch", "eye", (3,), {}),
    ("torch", "arange", (5,), {}),
    ("torch", "arange", (0.0, 1.0, 0.25), {}),
    ("torch", "arange", (1, 2.0, 0.1), {}),
    ("numpy", "arange", (0, 1, 0.1), {}),
    ("numpy", "arange", (3.0, 1.0), {}),
    ("torch", "linspace", (0, 1), {"steps": 9}),
    ("torch", "tensor", ([[1, 2], [3, 4]],), {}),
    ("torch", "tensor", ([1.0, 2.0],), {}),
    ("torch", "randint", (0, 10, (3, 4)), {}),
    # dtype=None is the default (timm passes dtype=dtype through every constructor)
    ("torch", "empty", ((64,),), {"dtype": None}),
    ("torch", "zeros", (3, 4), {"dtype": None, "device": None}),
    ("torch", "tensor", ([1, 2],), {"dtype": None}),
    ("numpy", "zeros", ((2,),), {"dtype": None}),
    ("numpy", "array", ([[1, 2]],), {"dtype": None}),
    ("numpy", "full", ((2,), 1.5), {"dtype": None}),
]


def _real(library, name, args, kwargs):
    if library == "numpy":
        func = np
        for part in name.split("."):
            func = getattr(func, part)
        kwargs = {k: getattr(np, v) if k == "dtype" and v else v for k, v in kwargs.items()}
        return np.asarray(func(*args, **kwargs))
    torch = pytest.importorskip("torch")
    kwargs = {k: getattr(torch, v) if k == "dtype" and v else v for k, v in kwargs.items()}
    return getattr(torch, name)(*args, **kwargs)


@pytest.mark.parametrize("library,name,args,kwargs", CASES)
def test_creation_matches_the_real_library(library, name, args, kwargs):
    real = _real(library, name, args, kwargs)
    answer = creation(library, name, args, kwargs)
    assert isinstance(answer, Created)
    assert answer.shape == tuple(real.shape)
    assert answer.dtype == str(real.dtype).removeprefix("torch.")


def test_symbolic_sizes_stay_symbolic_and_unread_sizes_leave_the_rank_open():
    n = sym("n")
    assert creation("torch", "zeros", (n, 3), {}).shape == (n, 3)
    assert creation("numpy", "arange", (0, n), {}).shape == (n,)
    assert creation("numpy", "arange", (1, n), {}).shape == (UNKNOWN,)
    assert creation("numpy", "zeros", ([1, 2], [3]), {"order": "C"}).shape is None


def test_arrays_unknown_dtypes_and_scalars():
    assert creation("numpy", "array", (ARRAY,), {}) == Created(None, None, like=0)
    assert creation("torch", "zeros_like", (ARRAY,), {"dtype": "int64"}) == Created(None, "int64", like=0)
    assert creation("numpy", "zeros", ((2,),), {"dtype": "U10"}) == Created(None, None)
    assert creation("numpy", "zeros", ((2,),), {"ndmin": 3}) == Created(None, None)
    assert creation("numpy", "random.normal", (0, 1), {}) is SCALAR
    assert creation("numpy", "normal", (0, 1), {}, generator=True) is SCALAR
    assert creation("numpy", "random.normal", (0, 1), {"size": None}) is SCALAR
    assert creation("numpy", "where", (ARRAY,), {}) is None


def test_literal_shapes_of_ragged_and_nested_lists():
    assert literal_shape([[1, 2], [3]]) == (None, None)
    assert literal_shape([[1, 2.0], [3, 4]]) == ((2, 2), "float")
    assert np.array([[1, 2.0], [3, 4]]).shape == (2, 2)


def test_a_value_nothing_is_known_of_is_an_int_inside_a_size_and_data_elsewhere():
    from shapecheck.runtime.creation import ANYTHING
    assert creation("numpy", "zeros", ((ANYTHING, 4),), {}).shape == (UNKNOWN, 4)
    assert creation("torch", "zeros", (ANYTHING, 4), {}).shape == (UNKNOWN, 4)
    assert creation("numpy", "zeros", (ANYTHING,), {}).shape is None  # n or a shape tuple
    assert creation("numpy", "arange", (ANYTHING,), {}).shape == (UNKNOWN,)
    assert creation("numpy", "array", (ANYTHING,), {}) == Created(None, None, like=0)


RANGES = [
    ("numpy", "arange", (-3,), {}), ("numpy", "arange", (7, 5, 0), {}),
    ("numpy", "arange", (2.5, 7, 0.0), {}), ("numpy", "arange", (0, 5, -1), {}),
    ("torch", "arange", (-3,), {}), ("torch", "arange", (2, 1), {}),
    ("torch", "arange", (0, 7, 0), {}), ("torch", "arange", (2, 2.5, 7), {"dtype": "int64"}),
    ("torch", "arange", (2.5,), {"dtype": "int64"}), ("torch", "arange", (0.5,), {"dtype": "int64"}),
    ("torch", "arange", (2, 2.5, 7), {"dtype": "int32"}), ("torch", "arange", (0, -5, -2), {}),
    ("torch", "arange", (0, 5, 0.5), {"dtype": "int64"}),
    ("numpy", "linspace", (0, 1, -1), {}), ("torch", "linspace", (0, 1, -1), {}),
    ("numpy", "geomspace", (1, 8, 4), {}), ("numpy", "geomspace", (0, 8, 4), {}),
    ("numpy", "logspace", (0, 1), {"num": 0}), ("torch", "randperm", (4,), {}),
    ("torch", "randperm", (-1,), {}), ("torch", "rand", (), {}), ("torch", "zeros", (), {}),
]


@pytest.mark.parametrize("library,name,args,kwargs", RANGES)
def test_ranges_count_and_refuse_as_the_library_does(library, name, args, kwargs):
    from shapecheck.runtime.verdicts import ShapeError
    try:
        real = _real(library, name, args, kwargs)
    except Exception:
        with pytest.raises(ShapeError):
            creation(library, name, args, kwargs)
        return
    answer = creation(library, name, args, kwargs)
    assert answer.shape == tuple(real.shape)
    assert answer.dtype == str(real.dtype).removeprefix("torch.")


def test_arange_from_zero_to_a_symbol_counts_its_steps():
    from shapecheck.runtime.dims import add, floordiv
    n = sym("n")
    assert creation("numpy", "arange", (0, n, 1), {}).shape == (n,)
    assert creation("torch", "arange", (0, n, 2), {}).shape == (floordiv(add(n, 1), 2),)
    assert all((k + 1) // 2 == len(np.arange(0, k, 2)) for k in range(7))


@pytest.mark.parametrize("library, name, args, kwargs, rank", [
    ("numpy", "eye", (4,), {}, 2), ("torch", "eye", (4,), {}, 2), ("numpy", "identity", (4,), {}, 2),
    ("torch", "linspace", (0, 1, 5), {}, 1), ("numpy", "linspace", (0, 1, 5), {}, 1),
    ("numpy", "logspace", (0, 1, 5), {}, 1), ("torch", "logspace", (0, 1, 5), {}, 1),
])
def test_a_size_nothing_is_known_of_still_gives_the_rank_the_function_always_makes(
        library, name, args, kwargs, rank):
    """eye is 2-d and linspace 1-d whatever their sizes (a size of another type is the
    library's TypeError); only the sizes are unknown."""
    from shapecheck.runtime.creation import ANYTHING
    assert len(_real(library, name, args, kwargs).shape) == rank
    unknown = tuple(ANYTHING if isinstance(a, int) and a > 1 else a for a in args)
    assert creation(library, name, unknown, kwargs).shape == (UNKNOWN,) * rank


def test_numpy_linspace_between_arrays_adds_their_dims():
    assert np.linspace(np.zeros(3), np.ones(3), 5).shape == (5, 3)
    assert creation("numpy", "linspace", (ARRAY, ARRAY, 5), {}).shape is None
