"""Shape-op rules agree with real NumPy and real PyTorch: verdict, shape, exception class and message."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.runtime.dialects import NUMPY, TORCH
from shapecheck.runtime.dims import UNKNOWN, sym
from shapecheck.runtime.rules import (broadcast_views, joins, reductions, repetition, reshaping, scatter_gather,
                                      splits, transposes)
from shapecheck.runtime.rules import indexing as ix
from shapecheck.runtime.verdicts import ShapeError

TALLY: collections.Counter = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _print_tally():
    yield
    for key in sorted(TALLY):
        print(f"shape_ops conformance {key}: {TALLY[key]}")


def conformance(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _shapes_of(value):
    if hasattr(value, "shape"):
        return (tuple(value.shape),)
    return tuple(tuple(v.shape) for v in value)


def real(fn):
    """Run the real library call: ("ok", shapes) or ("err", class name, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", _shapes_of(fn()))
    except Exception as exc:  # noqa: BLE001 - we compare whatever the library raises
        return ("err", type(exc).__name__, str(exc))


def model(fn):
    try:
        return ("ok", tuple(tuple(s) for s in fn().outputs))
    except ShapeError as exc:
        return ("err", exc.exc_type, exc.message)


def check(family: str, real_fn, model_fn):
    want = real(real_fn)
    got = model(model_fn)
    TALLY[f"{family} {want[0]}"] += 1
    assert got == want, f"{family}: model {got} != real {want}"


shape_st = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)
nonempty_shape_st = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)


def arr(shape):
    return np.zeros(shape)


def ten(shape):
    torch = pytest.importorskip("torch")
    return torch.zeros(shape)


# ---------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------

NUMPY_REDUCE = ["sum", "prod", "mean", "std", "var", "max", "min", "argmax", "argmin", "any", "all"]
TORCH_REDUCE = ["sum", "prod", "mean", "std", "var", "amax", "amin", "max", "min", "argmax", "argmin",
                "any", "all"]


@st.composite
def reduce_case(draw):
    shape = draw(shape_st)
    n = len(shape)
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    ax = st.integers(-n - 2, n + 1)
    axis = None if kind == "none" else draw(ax) if kind == "int" else tuple(draw(st.lists(ax, max_size=3)))
    return shape, axis


@conformance(400)
@given(reduce_case())
def test_numpy_reductions_match_numpy(case):
    shape, axis = case
    for op in NUMPY_REDUCE:
        op_axis = axis
        if op in ("argmax", "argmin") and isinstance(axis, tuple):
            op_axis = axis[0] if axis else None
        for keepdims in (False, True):
            check("reduce[numpy]", lambda: getattr(np, op)(arr(shape), axis=op_axis, keepdims=keepdims),
                  lambda: reductions.reduce(shape, op_axis, keepdims, op=op, dialect=NUMPY))


@conformance(400)
@given(reduce_case())
def test_torch_reductions_match_torch(case):
    torch = pytest.importorskip("torch")
    shape, axis = case
    for op in TORCH_REDUCE:
        op_axis = axis
        if op in ("prod", "max", "min", "argmax", "argmin") and isinstance(axis, tuple):
            op_axis = axis[0] if axis else None  # a tuple is a TypeError naming the call; not modelled
        fn = getattr(torch, op)
        for keepdims in (False, True):
            if op_axis is None:
                if keepdims and op not in ("argmax", "argmin"):
                    continue  # torch.sum(x, keepdim=True) is not a valid call
                call = (lambda: fn(ten(shape), keepdim=True)) if keepdims else (lambda: fn(ten(shape)))
            else:
                call = lambda: fn(ten(shape), dim=op_axis, keepdim=keepdims)  # noqa: E731
            check("reduce[torch]", call, lambda: reductions.reduce(shape, op_axis, keepdims, op=op, dialect=TORCH))


# ---------------------------------------------------------------------------
# reshape / view / flatten / ravel
# ---------------------------------------------------------------------------


@st.composite
def reshape_case(draw):
    shape = draw(shape_st)
    if draw(st.booleans()):
        new = list(draw(st.permutations(list(shape)))) if shape else []
        if new and draw(st.booleans()):
            new[draw(st.integers(0, len(new) - 1))] = -1
        if draw(st.booleans()):
            new.insert(draw(st.integers(0, len(new))), draw(st.sampled_from([1, -1, 2])))
    else:
        new = draw(st.lists(st.integers(-2, 6), max_size=4))
    return shape, tuple(new)


@conformance(800)
@given(reshape_case())
def test_reshape_matches_numpy_and_torch(case):
    torch = pytest.importorskip("torch")
    shape, new = case
    check("reshape[numpy]", lambda: arr(shape).reshape(new), lambda: reshaping.reshape(shape, new, dialect=NUMPY))
    check("reshape[torch]", lambda: ten(shape).reshape(new), lambda: reshaping.reshape(shape, new, dialect=TORCH))
    check("view[torch]", lambda: ten(shape).view(new), lambda: reshaping.view(shape, new, dialect=TORCH))


@conformance(300)
@given(shape_st, st.integers(-5, 4), st.integers(-5, 4))
def test_flatten_and_ravel_match(shape, start, end):
    torch = pytest.importorskip("torch")
    check("flatten[torch]", lambda: torch.flatten(ten(shape), start, end),
          lambda: reshaping.flatten(shape, start, end, dialect=TORCH))
    check("flatten[numpy]", lambda: arr(shape).flatten(), lambda: reshaping.flatten(shape, dialect=NUMPY))
    check("ravel[numpy]", lambda: arr(shape).ravel(), lambda: reshaping.ravel(shape, dialect=NUMPY))
    check("ravel[torch]", lambda: ten(shape).ravel(), lambda: reshaping.ravel(shape, dialect=TORCH))


def test_reshape_infers_symbolic_minus_one():
    B, T, C, H = sym("B"), sym("T"), sym("C"), sym("H")
    from shapecheck.runtime.dims import add, floordiv, mul
    assert reshaping.reshape((B, T, C), (mul(B, T), -1), dialect=NUMPY).shape == (mul(B, T), C)
    assert reshaping.reshape((B, T, C), (B, T, H, -1), dialect=TORCH).shape == (B, T, H, floordiv(C, H))
    assert reshaping.reshape((B, T, C), (-1,), dialect=TORCH).shape == (mul(mul(B, T), C),)
    # 12 elements can never be 5 * B for every B, but the verdict needs certainty: unknown, no error.
    assert reshaping.reshape((12,), (B, -1), dialect=NUMPY).shape == (B, floordiv(12, B))
    assert reshaping.reshape((add(T, 1), C), (H, -1), dialect=NUMPY).shape == (H, UNKNOWN)  # not a monomial
    # B may be 0, when both sides have no elements: no certain error.
    assert reshaping.reshape((B, 4), (B, 5), dialect=TORCH).shape == (B, 5)
    with pytest.raises(ShapeError) as err:
        reshaping.reshape((B, 4), (add(B, 1), 4), dialect=TORCH)
    assert err.value.message == "shape '[B + 1, 4]' is invalid for input of size 4*B"


def test_a_minus_one_whose_cofactor_does_not_divide_fails_for_every_size_zero_included():
    """(n, 45, h, w).view(n, -1, 4, h, w): 45 is no multiple of 4, and with no elements the
    -1 is ambiguous: both libraries refuse it for every n, h, w, as the rule says."""
    torch = pytest.importorskip("torch")
    n, h, w = sym("n"), sym("h"), sym("w")
    for dialect in (TORCH, NUMPY):
        with pytest.raises(ShapeError):
            reshaping.reshape((n, 45, h, w), (n, -1, 4, h, w), dialect=dialect)
        assert reshaping.reshape((n, 48, h, w), (n, -1, 4, h, w), dialect=dialect).shape == \
            (n, 12, 4, h, w)
    for sizes in ((0, 2, 2), (2, 0, 3), (1, 1, 1), (2, 3, 5)):
        a, b, c = sizes
        with pytest.raises(RuntimeError):
            torch.zeros(a, 45, b, c).view(a, -1, 4, b, c)
        with pytest.raises(ValueError):
            np.zeros((a, 45, b, c)).reshape(a, -1, 4, b, c)


# ---------------------------------------------------------------------------
# axis moves
# ---------------------------------------------------------------------------


@st.composite
def axes_case(draw):
    shape = draw(shape_st)
    n = len(shape)
    ax = st.integers(-n - 1, n)
    if draw(st.booleans()) and n:
        perm = list(draw(st.permutations(range(n))))
        perm = [p - n if draw(st.booleans()) else p for p in perm]
    else:
        perm = draw(st.lists(ax, max_size=n + 1))
    return shape, tuple(perm), draw(ax), draw(ax)


@conformance(400)
@given(axes_case())
def test_axis_moves_match(case):
    torch = pytest.importorskip("torch")
    shape, perm, a0, b = case
    check("transpose[numpy]", lambda: arr(shape).transpose(perm),
          lambda: transposes.transpose(shape, perm, dialect=NUMPY))
    check("permute[torch]", lambda: ten(shape).permute(perm), lambda: transposes.permute(shape, perm, dialect=TORCH))
    check("t()[torch]", lambda: ten(shape).t(), lambda: transposes.transpose(shape, None, dialect=TORCH))
    check("T[numpy]", lambda: arr(shape).T, lambda: transposes.T_attr(shape, dialect=NUMPY))
    check("T[torch]", lambda: ten(shape).T, lambda: transposes.T_attr(shape, dialect=TORCH))
    check("mT[numpy]", lambda: arr(shape).mT, lambda: transposes.matrix_transpose(shape, dialect=NUMPY))
    check("mT[torch]", lambda: ten(shape).mT, lambda: transposes.matrix_transpose(shape, dialect=TORCH))
    src, dst = perm[: len(perm) // 2 + 1], perm[len(perm) // 2:]
    check("moveaxis[numpy]", lambda: np.moveaxis(arr(shape), src, dst),
          lambda: transposes.moveaxis(shape, src, dst, dialect=NUMPY))
    check("moveaxis[torch]", lambda: torch.moveaxis(ten(shape), src, dst),
          lambda: transposes.moveaxis(shape, src, dst, dialect=TORCH))
    for a in range(-len(shape) - 1, len(shape) + 1):
        axis_pair_checks(torch, shape, a, b)


def axis_pair_checks(torch, shape, a, b):
    check("transpose[torch]", lambda: ten(shape).transpose(a, b),
          lambda: transposes.transpose(shape, (a, b), dialect=TORCH))
    check("swapaxes[numpy]", lambda: arr(shape).swapaxes(a, b), lambda: transposes.swapaxes(shape, a, b, dialect=NUMPY))
    check("swapaxes[torch]", lambda: ten(shape).swapaxes(a, b), lambda: transposes.swapaxes(shape, a, b, dialect=TORCH))
    check("moveaxis-int[numpy]", lambda: np.moveaxis(arr(shape), a, b),
          lambda: transposes.moveaxis(shape, a, b, dialect=NUMPY))
    check("moveaxis-int[torch]", lambda: torch.moveaxis(ten(shape), a, b),
          lambda: transposes.moveaxis(shape, a, b, dialect=TORCH))


def test_torch_T_on_3d_warns_like_torch():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        torch.zeros(2, 3, 4).T
    result = transposes.T_attr((2, 3, 4), dialect=TORCH)
    assert result.shape == (4, 3, 2)
    assert [w.kind for w in result.warnings] == ["deprecated"]
    # torch warns once per process (TORCH_WARN_ONCE); compare the text when this call was the first.
    if record:
        assert str(record[0].message).startswith(result.warnings[0].message)
    assert transposes.T_attr((2, 3), dialect=TORCH).warnings == ()


# ---------------------------------------------------------------------------
# squeeze / unsqueeze / expand_dims
# ---------------------------------------------------------------------------

unit_shape_st = st.lists(st.sampled_from([1, 1, 0, 2, 3]), max_size=4).map(tuple)


@conformance(600)
@given(unit_shape_st, st.data())
def test_squeeze_unsqueeze_expand_dims_match(shape, data):
    torch = pytest.importorskip("torch")
    n = len(shape)
    ax = st.integers(-n - 2, n + 1)
    axis = data.draw(st.one_of(st.none(), ax, st.lists(ax, max_size=3).map(tuple)))
    check("squeeze[numpy]", lambda: arr(shape).squeeze(axis), lambda: reshaping.squeeze(shape, axis, dialect=NUMPY))
    check("squeeze[torch]", lambda: ten(shape).squeeze() if axis is None else ten(shape).squeeze(axis),
          lambda: reshaping.squeeze(shape, axis, dialect=TORCH))
    d = data.draw(ax)
    check("unsqueeze[torch]", lambda: ten(shape).unsqueeze(d), lambda: reshaping.unsqueeze(shape, d, dialect=TORCH))
    e = data.draw(st.one_of(ax, st.lists(ax, max_size=3).map(tuple)))
    check("expand_dims[numpy]", lambda: np.expand_dims(arr(shape), e),
          lambda: reshaping.expand_dims(shape, e, dialect=NUMPY))


def test_squeeze_of_symbolic_dim_keeps_it_and_warns():
    T = sym("T")
    result = reshaping.squeeze((T, 1, 3), dialect=NUMPY)
    assert result.shape == (T, 3)
    assert [w.kind for w in result.warnings] == ["squeeze-uncertain"]
    assert reshaping.squeeze((T, 1), 0, dialect=NUMPY).shape == (1,)  # numpy: T must be 1 or it raises


# ---------------------------------------------------------------------------
# expand / broadcast_to / broadcast_arrays
# ---------------------------------------------------------------------------


@st.composite
def expand_case(draw):
    shape = draw(unit_shape_st)
    lead = draw(st.lists(st.sampled_from([1, 2, 3, 0, -1]), max_size=2))
    body = [draw(st.sampled_from([d, d, 1, 2, 3, -1])) for d in shape]
    if draw(st.booleans()) and body:
        body = body[draw(st.integers(0, len(body))):]
    return shape, tuple(lead + body)


@conformance(700)
@given(expand_case())
def test_expand_and_broadcast_to_match(case):
    torch = pytest.importorskip("torch")
    shape, sizes = case
    if not shape:
        sizes = tuple(s for s in sizes if s != -1)  # 0-d expand(-1) overflows inside ATen; not modelled
    check("expand[torch]", lambda: ten(shape).expand(sizes),
          lambda: broadcast_views.expand(shape, sizes, dialect=TORCH))
    check("broadcast_to[torch]", lambda: torch.broadcast_to(ten(shape), sizes),
          lambda: broadcast_views.broadcast_to(shape, sizes, dialect=TORCH))
    check("broadcast_to[numpy]", lambda: np.broadcast_to(arr(shape), sizes),
          lambda: broadcast_views.broadcast_to(shape, sizes, dialect=NUMPY))


@conformance(500)
@given(st.lists(unit_shape_st, min_size=1, max_size=4))
def test_broadcast_arrays_match(shapes):
    torch = pytest.importorskip("torch")
    check("broadcast_arrays[numpy]", lambda: np.broadcast_arrays(*[arr(s) for s in shapes]),
          lambda: broadcast_views.broadcast_arrays(*shapes, dialect=NUMPY))
    check("broadcast_tensors[torch]", lambda: torch.broadcast_tensors(*[ten(s) for s in shapes]),
          lambda: broadcast_views.broadcast_arrays(*shapes, dialect=TORCH))


# ---------------------------------------------------------------------------
# joins
# ---------------------------------------------------------------------------


@st.composite
def join_case(draw):
    base = draw(st.lists(st.integers(0, 3), max_size=3).map(tuple))
    k = draw(st.integers(0, 4))
    shapes = []
    for _ in range(k):
        choice = draw(st.integers(0, 5))
        if choice <= 2 or not base:
            s = list(base)
            if s and choice:
                s[draw(st.integers(0, len(s) - 1))] = draw(st.integers(0, 3))
            shapes.append(tuple(s))
        elif choice == 3:
            shapes.append((0,))
        else:
            shapes.append(draw(st.lists(st.integers(0, 3), max_size=3).map(tuple)))
    axis = draw(st.integers(-len(base) - 2, len(base) + 1))
    return shapes, axis


@conformance(600)
@given(join_case())
def test_joins_match(case):
    torch = pytest.importorskip("torch")
    shapes, axis = case
    check("concatenate[numpy]", lambda: np.concatenate([arr(s) for s in shapes], axis=axis),
          lambda: joins.concatenate(shapes, axis, dialect=NUMPY))
    check("concatenate-None[numpy]", lambda: np.concatenate([arr(s) for s in shapes], axis=None),
          lambda: joins.concatenate(shapes, None, dialect=NUMPY))
    check("cat[torch]", lambda: torch.cat([ten(s) for s in shapes], dim=axis),
          lambda: joins.concatenate(shapes, axis, dialect=TORCH))
    check("stack[numpy]", lambda: np.stack([arr(s) for s in shapes], axis=axis),
          lambda: joins.stack(shapes, axis, dialect=NUMPY))
    check("stack[torch]", lambda: torch.stack([ten(s) for s in shapes], dim=axis),
          lambda: joins.stack(shapes, axis, dialect=TORCH))
    check("hstack[numpy]", lambda: np.hstack([arr(s) for s in shapes]), lambda: joins.hstack(shapes, dialect=NUMPY))
    check("hstack[torch]", lambda: torch.hstack([ten(s) for s in shapes]), lambda: joins.hstack(shapes, dialect=TORCH))
    check("vstack[numpy]", lambda: np.vstack([arr(s) for s in shapes]), lambda: joins.vstack(shapes, dialect=NUMPY))
    check("vstack[torch]", lambda: torch.vstack([ten(s) for s in shapes]), lambda: joins.vstack(shapes, dialect=TORCH))


def test_cat_joins_symbolic_sizes_and_keeps_certain_errors():
    B, T = sym("B"), sym("T")
    from shapecheck.runtime.dims import add
    assert joins.concatenate([(B, T), (B, 3)], 1, dialect=TORCH).shape == (B, add(T, 3))
    assert joins.concatenate([(B, T), (2, T)], 0, dialect=NUMPY).shape == (add(B, 2), T)
    with pytest.raises(ShapeError):
        joins.concatenate([(B, 3), (B, 4)], 0, dialect=NUMPY)


# ---------------------------------------------------------------------------
# splits, narrow, select, unfold, diagonal
# ---------------------------------------------------------------------------


@conformance(400)
@given(shape_st, st.data())
def test_splits_match(shape, data):
    torch = pytest.importorskip("torch")
    n = len(shape)
    size = data.draw(st.integers(-1, 5))
    sizes = data.draw(st.lists(st.integers(-1, 4), max_size=3))
    points = data.draw(st.lists(st.integers(-5, 5), max_size=3))
    for dim in range(-n - 1, n + 1):
        split_checks(torch, shape, dim, size, sizes, points)


def split_checks(torch, shape, dim, size, sizes, points):
    check("split[torch]", lambda: torch.split(ten(shape), size, dim),
          lambda: splits.split(shape, size, dim, dialect=TORCH))
    check("split-sizes[torch]", lambda: torch.split(ten(shape), sizes, dim),
          lambda: splits.split(shape, sizes, dim, dialect=TORCH))
    check("chunk[torch]", lambda: torch.chunk(ten(shape), size, dim),
          lambda: splits.chunk(shape, size, dim, dialect=TORCH))
    check("unbind[torch]", lambda: torch.unbind(ten(shape), dim), lambda: splits.unbind(shape, dim, dialect=TORCH))
    check("split[numpy]", lambda: np.split(arr(shape), size, axis=dim),
          lambda: splits.split(shape, size, dim, dialect=NUMPY))
    check("split-points[numpy]", lambda: np.split(arr(shape), points, axis=dim),
          lambda: splits.split(shape, points, dim, dialect=NUMPY))
    check("array_split[numpy]", lambda: np.array_split(arr(shape), size, axis=dim),
          lambda: splits.array_split(shape, size, dim, dialect=NUMPY))
    check("unstack[numpy]", lambda: np.unstack(arr(shape), axis=dim), lambda: splits.unbind(shape, dim, dialect=NUMPY))


@conformance(400)
@given(shape_st, st.data())
def test_narrow_select_unfold_diagonal_match(shape, data):
    torch = pytest.importorskip("torch")
    n = len(shape)
    dim2 = data.draw(st.integers(-n - 1, n))
    start = data.draw(st.integers(-6, 6))
    length = data.draw(st.integers(-1, 5))
    step = data.draw(st.integers(0, 3))
    for dim in range(-n - 1, n + 1):
        window_checks(torch, shape, dim, dim2, start, length, step)


def window_checks(torch, shape, dim, dim2, start, length, step):
    check("narrow[torch]", lambda: ten(shape).narrow(dim, start, length),
          lambda: splits.narrow(shape, dim, start, length, dialect=TORCH))
    check("select[torch]", lambda: ten(shape).select(dim, start),
          lambda: splits.select(shape, dim, start, dialect=TORCH))
    check("unfold[torch]", lambda: ten(shape).unfold(dim, length, step),
          lambda: splits.unfold(shape, dim, length, step, dialect=TORCH))
    check("diagonal[numpy]", lambda: arr(shape).diagonal(start, dim, dim2),
          lambda: splits.diagonal(shape, start, dim, dim2, dialect=NUMPY))
    check("diagonal[torch]", lambda: ten(shape).diagonal(start, dim, dim2),
          lambda: splits.diagonal(shape, start, dim, dim2, dialect=TORCH))


@conformance(500)
@given(shape_st, st.data())
def test_repeat_and_tile_match(shape, data):
    torch = pytest.importorskip("torch")
    n = len(shape)
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=5)))
    # A 0-d array repeats along axis 0 (or -1) as a 1-d one: NumPy's axis check reads it so.
    axis = data.draw(st.one_of(st.none(), st.integers(-max(n, 1), max(n, 1) - 1)))
    r = data.draw(st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=1, max_size=4)))
    check("tile[numpy]", lambda: np.tile(arr(shape), reps), lambda: repetition.tile(shape, reps, dialect=NUMPY))
    check("tile[torch]", lambda: torch.tile(ten(shape), reps), lambda: repetition.tile(shape, reps, dialect=TORCH))
    check("repeat[torch]", lambda: ten(shape).repeat(*reps) if reps else ten(shape).repeat(()),
          lambda: repetition.repeat(shape, reps, dialect=TORCH))
    check("repeat[numpy]", lambda: np.repeat(arr(shape), r, axis=axis),
          lambda: repetition.repeat(shape, r, axis, dialect=NUMPY))


# ---------------------------------------------------------------------------
# gather / scatter / index_select / index_add_ / index_copy_ / take_along_axis
# ---------------------------------------------------------------------------


@st.composite
def gather_case(draw):
    x = draw(st.lists(st.integers(0, 4), max_size=3).map(tuple))
    if draw(st.integers(0, 3)) and x:
        idx = tuple(draw(st.integers(0, d + 1)) for d in x)
    else:
        idx = draw(st.lists(st.integers(0, 4), max_size=3).map(tuple))
    if draw(st.booleans()):
        src = tuple(d + draw(st.integers(-1, 1)) for d in idx) if idx else ()
        src = tuple(max(d, 0) for d in src)
    else:
        src = draw(st.lists(st.integers(0, 4), max_size=3).map(tuple))
    dim = draw(st.integers(-len(x) - 1, len(x)))
    return x, idx, src, dim


@conformance(700)
@given(gather_case())
def test_gather_scatter_family_matches_torch(case):
    torch = pytest.importorskip("torch")
    x, idx, src, dim = case
    long = lambda s: torch.zeros(s, dtype=torch.long)  # noqa: E731
    # Index values are zeros, in range unless the indexed dim is empty; then every library error is about
    # the values ("index 0 is out of bounds"), which a shape rule does not see.
    n = max(len(x), 1)
    if -n <= dim < n and x and x[dim] == 0:
        return
    check("gather[torch]", lambda: torch.gather(ten(x), dim, long(idx)), lambda: ix.gather(x, dim, idx, dialect=TORCH))
    check("scatter[torch]", lambda: ten(x).scatter_(dim, long(idx), ten(src)),
          lambda: scatter_gather.scatter(x, dim, idx, src, dialect=TORCH))
    check("scatter-value[torch]", lambda: ten(x).scatter_(dim, long(idx), 1.0),
          lambda: scatter_gather.scatter(x, dim, idx, None, dialect=TORCH))
    check("scatter_add[torch]", lambda: ten(x).scatter_add_(dim, long(idx), ten(src)),
          lambda: scatter_gather.scatter(x, dim, idx, src, dialect=TORCH))
    vec = idx[:1] if len(idx) > 1 and draw_vec(idx) else idx
    check("index_select[torch]", lambda: torch.index_select(ten(x), dim, long(vec)),
          lambda: scatter_gather.index_select(x, dim, vec, dialect=TORCH))
    check("index_add[torch]", lambda: ten(x).index_add_(dim, long(vec), ten(src)),
          lambda: scatter_gather.index_add(x, dim, vec, src, dialect=TORCH))
    check("index_copy[torch]", lambda: ten(x).index_copy_(dim, long(vec), ten(src)),
          lambda: scatter_gather.index_copy(x, dim, vec, src, dialect=TORCH))
    check("take_along_dim[torch]", lambda: torch.take_along_dim(ten(x), long(idx), dim),
          lambda: ix.take_along_axis(x, idx, dim, dialect=TORCH))
    check("take_along_axis[numpy]", lambda: np.take_along_axis(arr(x), np.zeros(idx, dtype=np.intp), dim),
          lambda: ix.take_along_axis(x, idx, dim, dialect=NUMPY))


def draw_vec(idx):
    # Mostly 1-D indices for the vector-index ops, sometimes the raw (maybe 2-D) shape.
    return sum(idx) % 4 != 0


def test_reference_notes_index_add_and_index_copy_examples():
    # pytorch-broadcasting-notes: zeros(3,3).index_add_(0, LongTensor([1,0]), arange(1,7).view(2,3)) is 3x3,
    # with no broadcasting of source.
    assert scatter_gather.index_add((3, 3), 0, (2,), (2, 3), dialect=TORCH).shape == (3, 3)
    assert scatter_gather.index_copy((3, 3), 0, (2,), (2, 3), dialect=TORCH).shape == (3, 3)
    with pytest.raises(ShapeError) as err:
        scatter_gather.index_add((3, 3), 0, (2,), (3,), dialect=TORCH)
    assert err.value.exc_type == "RuntimeError"


def test_reference_notes_gather_broadcasting_never_shipped():
    # The 2017 notes proposed broadcasting index against self in gather/scatter; today's torch requires
    # index to have self's rank and be no larger apart from dim. Each proposal case, checked for real.
    torch = pytest.importorskip("torch")
    long = lambda s: torch.zeros(s, dtype=torch.long)  # noqa: E731
    cases = [((7, 3, 4), 0, (1, 3, 4)),   # i <= index.dim() == n: index shape kept
             ((7, 3, 4), 0, (4,)),        # numpy.choose-style lower-rank index: rejected today
             ((3, 5, 7), 0, (5, 7)),      # "expand like (1,5,7)": rejected today
             ((3, 5, 7), 1, (3, 9, 7))]   # larger along dim is fine
    for x, dim, idx in cases:
        check("gather[notes]", lambda: torch.gather(ten(x), dim, long(idx)),
              lambda: ix.gather(x, dim, idx, dialect=TORCH))
        check("scatter[notes]", lambda: ten(x).scatter_(dim, long(idx), ten(idx)),
              lambda: scatter_gather.scatter(x, dim, idx, idx, dialect=TORCH))
    with pytest.raises(ShapeError) as err:
        ix.gather((3, 5, 7), 0, (5, 7), dialect=TORCH)
    assert err.value.message == "Index tensor must have the same number of dimensions as input tensor"
