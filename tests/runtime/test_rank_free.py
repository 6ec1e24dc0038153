"""An op's result rank whatever its input's rank, asked of its own rule and checked on the real libraries."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime import ops as rt_ops
from shapecheck.runtime.dialects import NUMPY, TORCH
from shapecheck.runtime.dims import UNKNOWN
from shapecheck.runtime.rank_free import MAX_PROBE_RANK, Pieces, place, rank_free_result

SIZES = (2, 3, 4, 5, 6)  # no 1: a squeeze or a broadcast decides nothing by chance


def probed(library: str, name: str, extra: tuple = (), kwargs: dict | None = None,
           dtype: str = "float32"):
    dialect = TORCH if library == "torch" else NUMPY
    spec = rt_ops.lookup(name, dialect)
    assert spec is not None, name
    return rank_free_result(lambda *a, **k: spec.rule(*a, dialect=dialect, **k),
                            lambda *probes: place((None,) + extra, dict(kwargs or {}), [0], probes),
                            [(dtype, None)])


def real_results(library: str, name: str, extra: tuple, kwargs: dict, dtype: str) -> list:
    """The real call's value at every rank the library accepts."""
    found = []
    for rank in range(MAX_PROBE_RANK + 1):
        shape = SIZES[:rank]
        if library == "torch":
            torch = pytest.importorskip("torch")
            x = torch.ones(shape, dtype=getattr(torch, dtype))
        else:
            x = np.ones(shape, dtype=dtype)
        try:
            found.append(getattr(x, name)(*extra, **kwargs))
        except (RuntimeError, ValueError, IndexError, TypeError):
            continue
    return found


FIXED_RANK = [
    ("torch", "flatten", (), {}, "float32", 1),
    ("torch", "flatten", (1,), {}, "float32", 2),
    ("torch", "flatten", (), {"start_dim": 1}, "float32", 2),
    ("torch", "flatten", (), {"end_dim": 1}, "float32", None),
    ("torch", "sum", (), {}, "float32", 0),
    ("torch", "mean", (), {}, "float32", 0),
    ("torch", "max", (), {}, "float32", 0),
    ("torch", "argmax", (), {}, "float32", 0),
    ("torch", "nonzero", (), {}, "float32", 2),
    ("torch", "repeat", (2, 3), {}, "float32", 2),
    ("torch", "view", (-1,), {}, "float32", 1),
    ("torch", "unique", (), {}, "float32", 1),
    ("torch", "all", (), {}, "bool", 0),
    ("numpy", "flatten", (), {}, "float32", 1),
    ("numpy", "ravel", (), {}, "float32", 1),
    ("numpy", "sum", (), {}, "float32", 0),
    ("numpy", "max", (), {}, "float32", 0),
]


@pytest.mark.parametrize("library, name, extra, kwargs, dtype, rank", FIXED_RANK)
def test_an_op_whose_result_rank_is_fixed_gives_that_rank_at_every_rank_the_library_takes(
        library, name, extra, kwargs, dtype, rank):
    result = probed(library, name, extra, kwargs, dtype)
    values = real_results(library, name, extra, kwargs, dtype)
    assert values, "the library takes some rank"
    if rank is None:  # flatten(end_dim=1) keeps the dims after the second: the rank varies
        assert result is None and len({np.ndim(v) for v in values}) > 1
        return
    assert result is not None and len(result.outputs) == 1
    assert len(result.outputs[0]) == rank
    assert {np.ndim(v) for v in values} == {rank}


VARYING_RANK = [
    ("torch", "sum", (0,), {}),
    ("torch", "unsqueeze", (0,), {}),
    ("torch", "t", (), {}),
    ("torch", "squeeze", (), {}),
    ("torch", "topk", (2,), {}),
    ("numpy", "sum", (0,), {}),
]


@pytest.mark.parametrize("library, name, extra, kwargs", VARYING_RANK)
def test_an_op_whose_result_rank_follows_the_input_says_nothing(library, name, extra, kwargs):
    assert probed(library, name, extra, kwargs) is None
    ranks = {np.ndim(v[0] if isinstance(v, tuple) else v)
             for v in real_results(library, name, extra, kwargs, "float32")}
    assert len(ranks) > 1  # the libraries agree that it varies


def test_a_dim_the_arguments_give_is_kept_and_one_made_of_the_input_is_unknown():
    result = probed("torch", "view", (7, -1))
    assert result is not None and result.outputs == ((7, UNKNOWN),)


def test_pieces_as_many_as_the_input_has_dims_keep_their_common_shape():
    torch = pytest.importorskip("torch")
    found = probed("torch", "nonzero", (), {"as_tuple": True}, "bool")
    assert isinstance(found, Pieces) and len(found.shape) == 1
    for rank in range(1, 4):
        pieces = torch.ones(SIZES[:rank], dtype=torch.bool).nonzero(as_tuple=True)
        assert len(pieces) == rank and {p.ndim for p in pieces} == {1}


def test_a_rule_that_cannot_answer_leaves_the_rank_unknown():
    def rule(x, **kwargs):
        raise NotImplementedError
    assert rank_free_result(rule, lambda probe: ((probe,), {}), [(None, None)]) is None


@pytest.mark.parametrize("op", ["topk", "kthvalue"])
def test_a_k_that_may_exceed_a_symbolic_size_gives_the_result_of_every_call_that_returns(op):
    from shapecheck.runtime.arguments import ArrayArg
    from shapecheck.runtime.dims import sym
    from shapecheck.runtime.verdicts import ShapeError

    spec = rt_ops.lookup(op, TORCH)
    n, k = sym("n"), sym("k")
    values, indices = spec.rule(ArrayArg((3, n), "float32"), k, dialect=TORCH).outputs
    assert values == indices == ((3, k) if op == "topk" else (3,))
    with pytest.raises(ShapeError):  # a k past a size that is known still fails
        spec.rule(ArrayArg((3, 4), "float32"), 5, dialect=TORCH)
    torch = pytest.importorskip("torch")
    assert getattr(torch.ones(3, 6), op)(2)[0].shape == ((3, 2) if op == "topk" else (3,))
    with pytest.raises(RuntimeError):
        getattr(torch.ones(3, 4), op)(5)


@pytest.mark.parametrize("kwargs", [{"start_dim": 1}, {"end_dim": -2}, {"start_dim": 0, "end_dim": 1},
                                    {"start_dim": 2, "end_dim": 1}])
def test_flatten_takes_its_dims_by_keyword_as_torch_does(kwargs):
    from shapecheck.runtime.arguments import ArrayArg
    from shapecheck.runtime.verdicts import ShapeError

    torch = pytest.importorskip("torch")
    spec = rt_ops.lookup("torch.flatten", TORCH)
    try:
        real = torch.flatten(torch.zeros(2, 3, 4), **kwargs).shape
    except RuntimeError:
        with pytest.raises(ShapeError):
            spec.rule(ArrayArg((2, 3, 4), "float32"), dialect=TORCH, **kwargs)
        return
    assert spec.rule(ArrayArg((2, 3, 4), "float32"), dialect=TORCH, **kwargs).outputs == (tuple(real),)


@pytest.mark.parametrize("op, kwargs", [("max", {"axis": 0, "keepdims": True}),
                                        ("sum", {"axis": 1}), ("argmax", {"axis": 0, "keepdims": True}),
                                        ("mean", {"keepdims": True, "axis": -1})])
def test_torch_takes_numpys_keyword_spellings(op, kwargs):
    from shapecheck.runtime.arguments import ArrayArg

    torch = pytest.importorskip("torch")
    real = getattr(torch.zeros(3, 4), op)(**kwargs)
    real = real[0] if isinstance(real, tuple) else real
    result = rt_ops.lookup(op, TORCH).rule(ArrayArg((3, 4), "float32"), dialect=TORCH, **kwargs)
    assert result.outputs[0] == tuple(real.shape)


@pytest.mark.parametrize("args", [(0,), (0, 1), ("C",), ()])
def test_ndarray_flatten_takes_an_order_and_no_dims(args):
    from shapecheck.runtime.arguments import ArrayArg
    from shapecheck.runtime.verdicts import ShapeError

    spec = rt_ops.lookup("flatten", NUMPY)
    try:
        real = np.zeros((2, 3)).flatten(*args)
    except TypeError:
        with pytest.raises(ShapeError):
            spec.rule(ArrayArg((2, 3), "float64"), *args, dialect=NUMPY)
        # so probing an array whose library is a guess leaves numpy out of flatten(0, 1)
        assert probed("numpy", "flatten", args) is not None and \
            probed("numpy", "flatten", args).__class__.__name__ == "_Refused"
        return
    assert spec.rule(ArrayArg((2, 3), "float64"), *args, dialect=NUMPY).outputs == (real.shape,)
