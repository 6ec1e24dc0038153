"""Conformance of the matmul, BLAS, einsum, tensordot, LAPACK and solve rules with NumPy and torch.

Every property draws shapes built to be mostly compatible and then perturbed,
runs the real library, and requires the same verdict, result shape(s),
exception class and exact message from the rule.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapecheck.runtime.dialects import NUMPY, NUMPY1, TORCH, TORCH_LEGACY
from shapecheck.runtime.dims import UNKNOWN, sym
from shapecheck.runtime.rules import contractions as contraction_rules
from shapecheck.runtime.rules import lapack as lapack_rules
from shapecheck.runtime.rules import products as product_rules
from shapecheck.runtime.verdicts import ShapeError

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None,
                derandomize=True, print_blob=False)
SIZES = st.sampled_from([0, 1, 1, 2, 3, 3, 4])


# --------------------------------------------------------------------------- harness


def _shapes_of(value) -> tuple:
    if isinstance(value, (tuple, list)) and not hasattr(value, "shape"):
        return tuple(tuple(np.shape(v)) for v in value)
    return (tuple(np.shape(value)),)


def run_real(fn, *args, **kwargs):
    """("ok", output shapes) or (exception class name, message) from the real library."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(*args, **kwargs)
        except Exception as exc:  # the verdict under test is the exception itself
            return (type(exc).__name__, str(exc))
    return ("ok", _shapes_of(out))


def run_rule(rule, *args, **kwargs):
    try:
        result = rule(*args, **kwargs)
    except ShapeError as exc:
        return (exc.exc_type, exc.message)
    return ("ok", tuple(tuple(s) for s in result.outputs))


CASES: dict[str, int] = {}
"""Comparisons made per family in this run (printed at module teardown with -s)."""


def assert_same(rule_verdict, real_verdict, context, *, family):
    CASES[family] = CASES.get(family, 0) + 1
    assert rule_verdict == real_verdict, (
        f"{context}: rule {rule_verdict!r} != real {real_verdict!r}")


@pytest.fixture(scope="module", autouse=True)
def report_case_counts():
    yield
    print("\nlinalg conformance cases per family:", dict(sorted(CASES.items())))


def np_zeros(shape):
    return np.zeros(shape)


@functools.lru_cache(maxsize=None)
def require_torch():
    """torch, or a skip; cached because importorskip costs milliseconds per call."""
    return pytest.importorskip("torch")


@st.composite
def perturbed(draw, shapes: list[tuple]) -> list[tuple]:
    """Shapes as built, or (often) with one dim replaced, dropped or added."""
    shapes = [list(s) for s in shapes]
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
        i = draw(st.integers(0, len(shapes) - 1))
        action = draw(st.sampled_from(["replace", "replace", "replace", "drop", "add"]))
        if action == "replace" and shapes[i]:
            j = draw(st.integers(0, len(shapes[i]) - 1))
            shapes[i][j] = draw(SIZES)
        elif action == "drop" and shapes[i]:
            shapes[i].pop(draw(st.integers(0, len(shapes[i]) - 1)))
        elif action == "add" and len(shapes[i]) < 5:
            shapes[i].insert(draw(st.integers(0, len(shapes[i]))), draw(SIZES))
    return [tuple(s) for s in shapes]


@st.composite
def batch_pair(draw) -> tuple[tuple, tuple]:
    """Two batch shapes that usually broadcast (dims replaced by 1 or dropped from the left)."""
    base = draw(st.lists(SIZES, min_size=0, max_size=3))
    other = [draw(st.sampled_from([d, d, 1])) for d in base]
    other = other[draw(st.integers(0, len(other))):] if other else other
    if draw(st.booleans()):
        return tuple(base), tuple(other)
    return tuple(other), tuple(base)


# --------------------------------------------------------------------------- matmul family


@st.composite
def product_operands(draw) -> tuple[tuple, tuple]:
    ba, bb = draw(batch_pair())
    n, k, m = draw(SIZES), draw(SIZES), draw(SIZES)
    a = ba + (n, k) if draw(st.integers(0, 3)) else (k,)
    b = bb + (k, m) if draw(st.integers(0, 3)) else (k,)
    a, b = draw(perturbed([a, b]))
    return a, b


PRODUCT_OPS_NUMPY = ["matmul", "dot", "vdot", "inner", "outer"]
PRODUCT_OPS_TORCH = ["mm", "mv", "bmm", "matmul", "dot", "vdot", "inner", "outer", "ger"]

MATMUL_EXAMPLES = 350


@settings(max_examples=MATMUL_EXAMPLES, **SETTINGS)
@given(operands=product_operands())
def test_products_match_numpy_and_torch(operands):
    a, b = operands
    for op in PRODUCT_OPS_NUMPY:
        real = run_real(getattr(np, op), np_zeros(a), np_zeros(b))
        assert_same(run_rule(getattr(product_rules, op), a, b, dialect=NUMPY), real, f"np.{op}{a}{b}",
                    family="matmul")
    torch = require_torch()
    for op in PRODUCT_OPS_TORCH:
        real = run_real(getattr(torch, op), torch.zeros(a), torch.zeros(b))
        assert_same(run_rule(getattr(product_rules, op), a, b, dialect=TORCH), real,
                    f"torch.{op}{a}{b}", family="matmul")


def test_matmul_example_from_the_broadcasting_notes():
    # a (2,5,7) @ b (5,2,7,3) -> (5,2,5,3) in both libraries.
    for dialect in (NUMPY, TORCH):
        assert product_rules.matmul((2, 5, 7), (5, 2, 7, 3), dialect=dialect).shape == (5, 2, 5, 3)


def test_matmul_symbolic_batch_contracts_known_inner_dim():
    B, T, D, E = sym("B"), sym("T"), sym("D"), sym("E")
    for dialect in (NUMPY, TORCH):
        assert product_rules.matmul((B, T, D), (D, E), dialect=dialect).shape == (B, T, E)


def test_matmul_symbolic_errors_only_when_certain():
    B, K, J = sym("B"), sym("K"), sym("J")
    for dialect in (NUMPY, TORCH):
        with pytest.raises(ShapeError) as info:
            product_rules.matmul((B, 3), (4, 5), dialect=dialect)
        assert info.value.kind == "matmul"
        assert product_rules.matmul((B, K), (J, 5), dialect=dialect).shape == (B, 5)
        assert product_rules.matmul((UNKNOWN, 2, 3), (4, 3, 5), dialect=dialect).shape == (4, 2, 5)


# --------------------------------------------------------------------------- fused BLAS


FUSED_OPS = ["addmm", "addmv", "addr", "baddbmm", "addbmm"]


@st.composite
def fused_operands(draw, op: str) -> tuple[str, tuple, tuple, tuple]:
    bs, n, k, m = draw(SIZES), draw(SIZES), draw(SIZES), draw(SIZES)
    a, b, out = {
        "addmm": ((n, k), (k, m), (n, m)),
        "addmv": ((n, k), (k,), (n,)),
        "addr": ((n,), (m,), (n, m)),
        "baddbmm": ((bs, n, k), (bs, k, m), (bs, n, m)),
        "addbmm": ((bs, n, k), (bs, k, m), (n, m)),
    }[op]
    # c is the product's shape with dims set to 1 or dropped from the left.
    c = [draw(st.sampled_from([d, d, 1])) for d in out]
    c = tuple(c[draw(st.integers(0, len(c))):])
    c, a, b = draw(perturbed([c, a, b]))
    return op, c, a, b


ANY_FUSED = st.sampled_from(FUSED_OPS).flatmap(fused_operands)
FUSED_EXAMPLES = 450


@settings(max_examples=FUSED_EXAMPLES, **SETTINGS)
@given(cases=st.tuples(*(fused_operands(op) for op in FUSED_OPS)))
def test_fused_blas_matches_torch(cases):
    torch = require_torch()
    for op, c, a, b in cases:
        real = run_real(getattr(torch, op), torch.zeros(c), torch.zeros(a), torch.zeros(b))
        assert_same(run_rule(getattr(product_rules, op), c, a, b, dialect=TORCH), real,
                    f"torch.{op}{c}{a}{b}", family="fused")


@pytest.mark.parametrize("op, a, b, unfused", [
    ("addmm", (2, 3), (3, 4), (2, 4)),
    ("addmv", (2, 3), (3,), (2,)),
    ("addr", (2,), (3,), (2, 3)),
    ("baddbmm", (5, 2, 3), (5, 3, 4), (5, 2, 4)),
    ("addbmm", (5, 2, 3), (5, 3, 4), (2, 4)),
])
def test_fused_ops_follow_the_notes_table_only_the_add_broadcasts(op, a, b, unfused):
    # The table: the result is the unfused product's size, and C broadcasts to it.
    rule = getattr(product_rules, op)
    assert rule(unfused, a, b, dialect=TORCH).shape == unfused
    assert rule((1,) * len(unfused), a, b, dialect=TORCH).shape == unfused
    if op != "addmv":
        with pytest.raises(ShapeError):
            rule((7,) + unfused, a, b, dialect=TORCH)  # c may not grow the product


# --------------------------------------------------------------------------- einsum

LETTERS = "ijkIl"


@st.composite
def einsum_case(draw) -> tuple[str, list[tuple]]:
    nops = draw(st.integers(1, 3))
    sizes = {c: draw(SIZES) for c in LETTERS}
    ell_dims = draw(st.lists(SIZES, max_size=2))
    subs, shapes = [], []
    for _ in range(nops):
        labels = draw(st.lists(st.sampled_from(LETTERS), max_size=3))
        shape = [sizes[c] for c in labels]
        text = "".join(labels)
        if ell_dims and draw(st.integers(0, 2)) == 0:
            pos = draw(st.integers(0, len(labels)))
            cut = draw(st.integers(0, len(ell_dims)))
            covered = [draw(st.sampled_from([d, d, 1])) for d in ell_dims[cut:]]
            text = text[:pos] + "..." + text[pos:]
            shape = shape[:pos] + covered + shape[pos:]
        subs.append(text)
        shapes.append(tuple(shape))
    equation = ",".join(subs)
    used = sorted(set("".join(subs)) - {"."})
    mode = draw(st.sampled_from(["implicit", "explicit", "explicit", "bad"]))
    if mode == "explicit":
        out = draw(st.lists(st.sampled_from(used), unique=True, max_size=3)) if used else []
        out_text = "".join(out)
        if any("..." in s for s in subs) and draw(st.integers(0, 3)):
            pos = draw(st.integers(0, len(out_text)))
            out_text = out_text[:pos] + "..." + out_text[pos:]
        equation += "->" + out_text
    elif mode == "bad":
        equation = draw(st.sampled_from([
            equation + "->" + equation[:1] * 2, equation + "->z", equation + ",i",
            equation.replace(",", "", 1), equation + "->..", ".." + equation, equation + "-j",
            equation + "1", equation + "->i->i"]))
    shapes = draw(perturbed(shapes))
    return equation, shapes


EINSUM_EXAMPLES = 550


@settings(max_examples=EINSUM_EXAMPLES, **SETTINGS)
@given(case=einsum_case())
def test_einsum_matches_numpy_and_torch(case):
    equation, shapes = case
    real = run_real(np.einsum, equation, *[np_zeros(s) for s in shapes])
    assert_same(run_rule(contraction_rules.einsum, equation, *shapes, dialect=NUMPY), real,
                f"np.einsum({equation!r}, {shapes})", family="einsum")
    torch = require_torch()
    real = run_real(torch.einsum, equation, *[torch.zeros(s) for s in shapes])
    assert_same(run_rule(contraction_rules.einsum, equation, *shapes, dialect=TORCH), real,
                f"torch.einsum({equation!r}, {shapes})", family="einsum")


def test_einsum_symbolic_sizes_flow_to_the_output():
    B, T, D, E = sym("B"), sym("T"), sym("D"), sym("E")
    for dialect in (NUMPY, TORCH):
        assert contraction_rules.einsum("btd,de->bte", (B, T, D), (D, E), dialect=dialect).shape == (B, T, E)
        assert contraction_rules.einsum("...d,d", (B, T, D), (D,), dialect=dialect).shape == (B, T)
        with pytest.raises(ShapeError) as info:
            contraction_rules.einsum("bd,d->b", (B, 3), (4,), dialect=dialect)
        assert info.value.kind == "einsum"


# --------------------------------------------------------------------------- tensordot


@st.composite
def tensordot_case(draw):
    """Two shapes sharing n dims, with axes as an int and as a pair of lists."""
    n = draw(st.integers(0, 2))
    shared = [draw(SIZES) for _ in range(n)]
    a = tuple(draw(st.lists(SIZES, max_size=2))) + tuple(shared)
    b = tuple(shared) + tuple(draw(st.lists(SIZES, max_size=2)))
    int_axes = draw(st.sampled_from([n, n, n, n + 1, 0, -1]))
    axes_a = list(range(len(a) - n, len(a)))
    axes_b = list(range(n))
    perm = draw(st.permutations(range(n)))
    axes_a = [axes_a[i] for i in perm]
    axes_b = [axes_b[i] for i in perm]
    if draw(st.integers(0, 3)) == 0 and len(a):
        axes_a = axes_a + [draw(st.integers(-len(a), len(a) - 1))]
        axes_b = axes_b + [draw(st.integers(-2, 3))]
    a, b = draw(perturbed([a, b]))
    return a, b, [int_axes, (axes_a, axes_b)]


TENSORDOT_EXAMPLES = 300


@settings(max_examples=TENSORDOT_EXAMPLES, **SETTINGS)
@given(case=tensordot_case())
def test_tensordot_matches_numpy_and_torch(case):
    a, b, axes_forms = case
    torch = require_torch()
    for axes in axes_forms:
        real = run_real(np.tensordot, np_zeros(a), np_zeros(b), axes=axes)
        assert_same(run_rule(contraction_rules.tensordot, a, b, axes, dialect=NUMPY), real,
                    f"np.tensordot{a}{b} axes={axes}", family="tensordot")
        real = run_real(torch.tensordot, torch.zeros(a), torch.zeros(b), dims=axes)
        assert_same(run_rule(contraction_rules.tensordot, a, b, axes, dialect=TORCH), real,
                    f"torch.tensordot{a}{b} dims={axes}", family="tensordot")


# --------------------------------------------------------------------------- LAPACK


def well_conditioned(shape, *, spd: bool = False):
    """Identity plus small noise (square) so only shape errors can occur."""
    rng = np.random.default_rng(0)
    noise = 0.01 * rng.standard_normal(shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        if spd:
            noise = noise + np.swapaxes(noise, -1, -2)
        return np.asarray(np.eye(shape[-1]) + noise)
    return np.asarray(noise + 1.0)


LAPACK_OPS = [
    # (rule name, numpy call, torch call, kwargs)
    ("inv", "inv", "inv", {}),
    ("det", "det", "det", {}),
    ("slogdet", "slogdet", "slogdet", {}),
    ("eig", "eig", "eig", {}),
    ("eigh", "eigh", "eigh", {}),
    ("eigvals", "eigvals", "eigvals", {}),
    ("eigvalsh", "eigvalsh", "eigvalsh", {}),
    ("cholesky", "cholesky", "cholesky", {}),
    ("pinv", "pinv", "pinv", {}),
    ("svd", "svd", "svd", {}),
    ("svd", "svd", "svd", {"full_matrices": False}),
    ("svd", "svd", None, {"compute_uv": False}),
    ("qr", "qr", "qr", {}),
    ("qr", "qr", "qr", {"mode": "complete"}),
    ("qr", "qr", "qr", {"mode": "r"}),
    ("qr", "qr", None, {"mode": "raw"}),
]


@st.composite
def lapack_shape(draw):
    batch = tuple(draw(st.lists(SIZES, max_size=2)))
    n = draw(SIZES)
    m = n if draw(st.integers(0, 2)) else draw(SIZES)
    return draw(st.sampled_from([batch + (n, m)] * 6 + [(n,), ()]))


LAPACK_EXAMPLES = 120


@settings(max_examples=LAPACK_EXAMPLES, **SETTINGS)
@given(shape=lapack_shape())
def test_lapack_shapes_match_numpy_and_torch(shape):
    torch = require_torch()
    for rule_name, np_name, torch_name, kwargs in LAPACK_OPS:
        data = well_conditioned(shape, spd=rule_name in ("cholesky", "eigh", "eigvalsh"))
        rule = getattr(lapack_rules, rule_name)
        real = run_real(getattr(np.linalg, np_name), data, **kwargs)
        assert_same(run_rule(rule, shape, dialect=NUMPY, **kwargs), real,
                    f"np.linalg.{np_name}{shape} {kwargs}", family="lapack")
        if torch_name is None:
            continue
        real = run_real(getattr(torch.linalg, torch_name), torch.from_numpy(data).float(), **kwargs)
        assert_same(run_rule(rule, shape, dialect=TORCH, **kwargs), real,
                    f"torch.linalg.{torch_name}{shape} {kwargs}", family="lapack")


# --------------------------------------------------------------------------- solve


@st.composite
def solve_case(draw):
    ba, bb = draw(batch_pair())
    m, k = draw(SIZES), draw(SIZES)
    a = ba + (m, m)
    kind = draw(st.sampled_from(["vector", "stacked-vector", "matrix", "matrix"]))
    if kind == "vector":
        b = (m,)
    elif kind == "stacked-vector":
        b = ba + (m,) if draw(st.booleans()) else bb + (m,)
    else:
        b = bb + (m, k)
    a, b = draw(perturbed([a, b]))
    return a, b


def numpy1_solve(a, b):
    """NumPy 1's linalg.solve: solve1 iff b.ndim == a.ndim - 1, via the same gufuncs."""
    from numpy.linalg import _umath_linalg

    if a.ndim < 2:
        raise np.linalg.LinAlgError(
            f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    gufunc = _umath_linalg.solve1 if b.ndim == a.ndim - 1 else _umath_linalg.solve
    return gufunc(a, b)


SOLVE_EXAMPLES = 450


@settings(max_examples=SOLVE_EXAMPLES, **SETTINGS)
@given(case=solve_case())
def test_solve_matches_numpy2_numpy1_and_torch(case):
    a, b = case
    A = well_conditioned(a)
    B = np.ones(b)
    real = run_real(np.linalg.solve, A, B)
    assert_same(run_rule(lapack_rules.solve, a, b, dialect=NUMPY), real, f"np.linalg.solve{a}{b}",
                family="solve")
    real = run_real(numpy1_solve, A, B)
    assert_same(run_rule(lapack_rules.solve, a, b, dialect=NUMPY1), real, f"numpy-1 solve{a}{b}",
                family="solve")
    torch = require_torch()
    real = run_real(torch.linalg.solve, torch.from_numpy(A), torch.from_numpy(B))
    assert_same(run_rule(lapack_rules.solve, a, b, dialect=TORCH), real, f"torch.linalg.solve{a}{b}",
                family="solve")


@pytest.mark.parametrize("b, expected", [
    ((6, 15), (2, 4, 5, 9, 6, 15)),
    ((9, 6, 15), (2, 4, 5, 9, 6, 15)),
    ((5, 9, 6, 15), (2, 4, 5, 9, 6, 15)),
    ((2, 4, 5, 9, 6), (2, 4, 5, 9, 6)),
])
def test_numpy1_solve_examples_from_the_notes(b, expected):
    assert lapack_rules.solve((2, 4, 5, 9, 6, 6), b, dialect=NUMPY1).shape == expected


def test_numpy1_solve1_pattern_error_from_the_notes():
    with pytest.raises(ShapeError) as info:
        lapack_rules.solve((2, 4, 5, 9, 6, 6), (4, 5, 9, 6, 15), dialect=NUMPY1)
    assert info.value.exc_type == "ValueError"
    assert info.value.message == (
        "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
        "(m,m),(m)->(m) (size 15 is different from 6)")


@pytest.mark.parametrize("b, expected", [((4,), (4, 1)), ((4, 1), (4, 1)), ((4, 3), (4, 3))])
def test_torch_legacy_gesv_table_treats_a_vector_b_as_a_column(b, expected):
    assert lapack_rules.solve((4, 4), b, dialect=TORCH_LEGACY).shape == expected


def test_solve_b_reading_differs_across_libraries():
    # A (5,5,5), B (5,5): the notes' ambiguous case.
    a, b = (5, 5, 5), (5, 5)
    assert lapack_rules.solve(a, b, dialect=NUMPY).shape == (5, 5, 5)       # b.ndim != 1: matrix
    assert lapack_rules.solve(a, b, dialect=NUMPY1).shape == (5, 5)         # ndim rule: vector
    assert lapack_rules.solve(a, b, dialect=TORCH).shape == (5, 5)          # b.shape == a.shape[:-1]
    # A (2,3,3), B (2,3): numpy 2 reads a matrix and fails; numpy-1 and torch read vectors.
    with pytest.raises(ShapeError):
        lapack_rules.solve((2, 3, 3), (2, 3), dialect=NUMPY)
    assert lapack_rules.solve((2, 3, 3), (2, 3), dialect=NUMPY1).shape == (2, 3)
    assert lapack_rules.solve((2, 3, 3), (2, 3), dialect=TORCH).shape == (2, 3)
    # A (1,3,3), B (2,3): torch's shape test fails, so b is a 2x3 matrix: error.
    with pytest.raises(ShapeError):
        lapack_rules.solve((1, 3, 3), (2, 3), dialect=TORCH)
    assert lapack_rules.solve((1, 3, 3), (2, 3), dialect=NUMPY1).shape == (2, 3)
    # A (2,3,3), B (3,): numpy 2 and torch broadcast the vector; numpy-1 wants a matrix.
    assert lapack_rules.solve((2, 3, 3), (3,), dialect=NUMPY).shape == (2, 3)
    assert lapack_rules.solve((2, 3, 3), (3,), dialect=TORCH).shape == (2, 3)
    with pytest.raises(ShapeError):
        lapack_rules.solve((2, 3, 3), (3,), dialect=NUMPY1)


def test_torch_legacy_products_follow_todays_torch():
    # Only solve differs in torch-legacy; matmul's batch broadcast of a matrix
    # against a stack must not hit the legacy "no dimensions" broadcasting error.
    for a, b in [((3, 4), (2, 4, 5)), ((2, 3, 4), (4,)), ((4,), (2, 1, 4, 5))]:
        assert (product_rules.matmul(a, b, dialect=TORCH_LEGACY).outputs
                == product_rules.matmul(a, b, dialect=TORCH).outputs)


def test_lapack_and_solve_on_symbolic_stacks():
    B, N, K = sym("B"), sym("N"), sym("K")
    for dialect in (NUMPY, TORCH):
        assert lapack_rules.inv((B, N, N), dialect=dialect).shape == (B, N, N)
        assert lapack_rules.eigh((B, N, N), dialect=dialect).outputs == ((B, N), (B, N, N))
        assert lapack_rules.svd((B, N, N), full_matrices=False, dialect=dialect).outputs == (
            (B, N, N), (B, N), (B, N, N))
        assert lapack_rules.inv((B, N, K), dialect=dialect).shape == (B, N, K)  # N == K possible
        with pytest.raises(ShapeError) as info:
            lapack_rules.det((B, 3, 4), dialect=dialect)
        assert info.value.kind == "linalg"
        assert lapack_rules.solve((B, N, N), (B, N, K), dialect=dialect).shape == (B, N, K)
        with pytest.raises(ShapeError) as info:
            lapack_rules.solve((B, 3, 3), (B, 4, K), dialect=dialect)
        assert info.value.kind == "solve"
    # torch reads b == a.shape[:-1] as a stack of vectors; numpy 2 as a matrix.
    assert lapack_rules.solve((B, N, N), (B, N), dialect=TORCH).shape == (B, N)
    assert lapack_rules.solve_b_is_vector((B, N, N), (B, N), dialect=NUMPY) is False
    assert lapack_rules.solve_b_is_vector((B, N, N), (K, N), dialect=TORCH) is None


def test_fused_add_symbolic_c_broadcasts_only_when_certain():
    B, N, M = sym("B"), sym("N"), sym("M")
    assert product_rules.addmm((M,), (N, 3), (3, M), dialect=TORCH).shape == (N, M)
    assert product_rules.baddbmm((1, N, M), (B, N, 3), (B, 3, M), dialect=TORCH).shape == (B, N, M)
    with pytest.raises(ShapeError) as info:
        product_rules.addmm((5,), (N, 3), (3, 4), dialect=TORCH)
    assert info.value.message.startswith("The expanded size of the tensor (4)")


# --------------------------------------------------------------------------- symbolic soundness


def _symbolize(shapes, mask):
    """Replace the dims picked by mask with symbols (or UNKNOWN); return shapes and valuation."""
    values, out, bit = {}, [], 0
    for shape in shapes:
        new = []
        for d in shape:
            pick = mask[bit % len(mask)]
            bit += 1
            if pick == "sym":
                name = f"s{bit}"
                values[name] = d
                new.append(sym(name))
            elif pick == "unknown":
                new.append(UNKNOWN)
            else:
                new.append(d)
        out.append(tuple(new))
    return out, values


def _evaluate(dim, values):
    if isinstance(dim, int) or dim is UNKNOWN:
        return dim
    total = 0
    for monomial, coeff in dim.terms:
        term = coeff
        for atom in monomial:
            if atom not in values:
                return UNKNOWN
            term *= values[atom]
        total += term
    return total


def _check_sound(rule, concrete_args, symbolic_args, values, context, **kwargs):
    """A symbolic error must be a concrete error; a symbolic shape must agree where it is known."""
    concrete = run_rule(rule, *concrete_args, **kwargs)
    try:
        result = rule(*symbolic_args, **kwargs)
    except ShapeError:
        assert concrete[0] != "ok", f"{context}: symbolic error but concrete {concrete}"
        return
    if concrete[0] != "ok":
        return
    assert len(result.outputs) == len(concrete[1]), context
    for sym_shape, real_shape in zip(result.outputs, concrete[1]):
        assert len(sym_shape) == len(real_shape), f"{context}: {sym_shape} vs {real_shape}"
        for s, r in zip(sym_shape, real_shape):
            value = _evaluate(s, values)
            assert value is UNKNOWN or value == r, f"{context}: {sym_shape} vs {real_shape}"


MASK = st.lists(st.sampled_from(["int", "int", "sym", "unknown"]), min_size=1, max_size=6)


@settings(max_examples=200, **SETTINGS)
@given(products=product_operands(), fused=ANY_FUSED, solve_args=solve_case(),
       lapack=lapack_shape(), einsum_args=einsum_case(), mask=MASK,
       dialect=st.sampled_from([NUMPY, NUMPY1, TORCH, TORCH_LEGACY]))
def test_symbolic_dims_only_error_when_every_value_errors(products, fused, solve_args, lapack,
                                                          einsum_args, mask, dialect):
    shapes, values = _symbolize(products, mask)
    ops = PRODUCT_OPS_NUMPY if dialect.is_numpy else PRODUCT_OPS_TORCH
    for op in ops:
        _check_sound(getattr(product_rules, op), products, shapes, values, f"{op}{shapes}",
                     dialect=dialect)
    op, *operands = fused
    shapes, values = _symbolize(operands, mask)
    _check_sound(getattr(product_rules, op), operands, shapes, values, f"{op}{shapes}", dialect=dialect)
    shapes, values = _symbolize(solve_args, mask)
    _check_sound(lapack_rules.solve, solve_args, shapes, values, f"solve{shapes}", dialect=dialect)
    shapes, values = _symbolize([lapack], mask)
    for name in ("inv", "det", "eigh", "svd", "qr", "pinv"):
        _check_sound(getattr(lapack_rules, name), [lapack], shapes, values, f"{name}{shapes}",
                     dialect=dialect)
    equation, operands = einsum_args
    shapes, values = _symbolize(operands, mask)
    _check_sound(contraction_rules.einsum, [equation, *operands], [equation, *shapes], values,
                 f"einsum({equation!r}, {shapes})", dialect=dialect)
