"""Every example of the PyTorch broadcasting notes (shared/reference/pytorch-broadcasting-notes.txt), as rule tests.

Where the notes describe PyTorch of 2017, torch-legacy (and numpy-1 for solve)
keep the notes' behaviour and numpy / torch assert today's libraries; wherever
today's NumPy or PyTorch can run the example, the test also runs it for real.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from shapecheck.runtime.dialects import DIALECTS, NUMPY, NUMPY1, TORCH, TORCH_LEGACY
from shapecheck.runtime.rules import (broadcast_views, indexing, joins, pointwise, reductions, reshaping,
                                      scatter_gather)
from shapecheck.runtime.rules import lapack as lapack_rules
from shapecheck.runtime.rules import products as product_rules
from shapecheck.runtime.rules.broadcast import broadcast_shapes
from shapecheck.runtime.vectorized import FALLBACK_ERROR, FALLBACK_WARNING, broadcast_verdicts_of
from shapecheck.runtime.verdicts import ShapeError

ALL = list(DIALECTS.values())
TODAY = [NUMPY, TORCH]


def outcome(call):
    """(result shape, warning kinds) or ("error", exc_type, message) for a rule call."""
    try:
        result = call()
    except ShapeError as error:
        return ("error", error.exc_type, error.message)
    return (result.shape, tuple(w.kind for w in result.warnings))


def real(call):
    """A real library call: its result's shape, or ("error", exception class name, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = call()
    except (ValueError, RuntimeError, IndexError, TypeError) as error:
        return ("error", type(error).__name__, str(error))
    return tuple(value.shape)


def same_text(a: str, b: str) -> bool:
    """Messages equal up to line wrapping (the notes' wiki page wraps long warnings)."""
    return a.split() == b.split()


# --------------------------------------------------------------------- general semantics

BROADCASTING_EXAMPLES = [
    # (x, y, result) from "General semantics": same shapes, trailing alignment, a 1-dim x.
    ((5, 7, 3), (5, 7, 3), (5, 7, 3)),
    ((5, 1, 4, 1), (3, 1, 1), (5, 3, 4, 1)),
    ((1,), (3, 1, 7), (3, 1, 7)),
]


@pytest.mark.parametrize("x, y, expected", BROADCASTING_EXAMPLES)
@pytest.mark.parametrize("dialect", ALL, ids=str)
def test_notes_broadcastable_examples_give_the_notes_sizes(x, y, expected, dialect):
    assert outcome(lambda: pointwise.pointwise(x, y, op="add", dialect=dialect)) == (expected, ())
    assert broadcast_shapes(x, y, dialect=dialect).shape == expected
    verdicts = broadcast_verdicts_of([(x, y)], dialect)
    assert verdicts.broadcastable.tolist() == [True]
    assert verdicts.result.shape(0) == expected


@pytest.mark.parametrize("x, y, expected", BROADCASTING_EXAMPLES)
def test_notes_broadcastable_examples_hold_in_real_numpy_and_torch(x, y, expected):
    assert real(lambda: np.zeros(x) + np.zeros(y)) == expected
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.zeros(x) + torch.zeros(y)) == expected


def test_empty_tensor_example_fails_only_in_the_notes_era():
    # x=torch.FloatTensor() had no dims: "not broadcastable, because x does not have at
    # least 1 dimension". Today a 0-d tensor broadcasts like a scalar.
    legacy = outcome(lambda: pointwise.pointwise((), (2, 2), op="add", dialect=TORCH_LEGACY))
    assert legacy[:2] == ("error", "RuntimeError")
    assert "at least one dimension" in legacy[2]
    assert broadcast_verdicts_of([((), (2, 2))], TORCH_LEGACY).broadcastable.tolist() == [False]
    for dialect in (NUMPY, NUMPY1, TORCH):
        assert outcome(lambda: pointwise.pointwise((), (2, 2), op="add", dialect=dialect)) == \
            ((2, 2), ())
    assert real(lambda: np.zeros(()) + np.zeros((2, 2))) == (2, 2)
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.zeros(()) + torch.zeros(2, 2)) == (2, 2)


TORCH_MISMATCH = ("The size of tensor a (2) must match the size of tensor b (3) at "
                  "non-singleton dimension 1")


@pytest.mark.parametrize("dialect", [TORCH, TORCH_LEGACY], ids=str)
def test_failing_example_gives_the_notes_torch_message(dialect):
    got = outcome(lambda: pointwise.pointwise((5, 2, 4, 1), (3, 1, 1), op="add", dialect=dialect))
    assert got == ("error", "RuntimeError", TORCH_MISMATCH)
    verdicts = broadcast_verdicts_of([((5, 2, 4, 1), (3, 1, 1))], dialect)
    assert verdicts.broadcastable.tolist() == [False]
    assert verdicts.failing_index.tolist() == [1]  # "at non-singleton dimension 1"


@pytest.mark.parametrize("dialect", [NUMPY, NUMPY1], ids=str)
def test_failing_example_gives_numpys_message_in_numpy_dialects(dialect):
    got = outcome(lambda: pointwise.pointwise((5, 2, 4, 1), (3, 1, 1), op="add", dialect=dialect))
    assert got == real(lambda: np.zeros((5, 2, 4, 1)) + np.zeros((3, 1, 1)))
    assert got[:2] == ("error", "ValueError")


def test_failing_example_message_is_real_torchs():
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.zeros(5, 2, 4, 1) + torch.zeros(3, 1, 1)) == \
        ("error", "RuntimeError", TORCH_MISMATCH)


# --------------------------------------------------------------------- in-place semantics


@pytest.mark.parametrize("dialect", ALL, ids=str)
def test_inplace_add_keeps_the_target_shape_when_the_other_expands_to_it(dialect):
    assert outcome(lambda: pointwise.inplace((5, 3, 4, 1), (3, 1, 1), op="add", dialect=dialect)) \
        == ((5, 3, 4, 1), ())
    verdicts = broadcast_verdicts_of([((5, 3, 4, 1), (3, 1, 1))], dialect)
    assert verdicts.inplace_ok.tolist() == [True]


def test_inplace_add_that_would_resize_the_target_fails_with_each_eras_message():
    x, y = (1, 3, 1), (3, 1, 7)
    legacy = outcome(lambda: pointwise.inplace(x, y, op="add", dialect=TORCH_LEGACY))
    # The notes' message (old THTensor expand).
    assert legacy == ("error", "RuntimeError", "The expanded size of the tensor (1) must match "
                      "the existing size (7) at non-singleton dimension 2.")
    for dialect in ALL:
        assert broadcast_verdicts_of([(x, y)], dialect).inplace_ok.tolist() == [False]
    numpy_got = outcome(lambda: pointwise.inplace(x, y, op="add", dialect=NUMPY))
    target = np.zeros(x)

    def numpy_iadd():
        target.__iadd__(np.zeros(y))
        return target
    assert numpy_got == real(numpy_iadd)
    torch = pytest.importorskip("torch")
    torch_got = outcome(lambda: pointwise.inplace(x, y, op="add", dialect=TORCH))
    assert torch_got == real(lambda: torch.zeros(x).add_(torch.zeros(y)))
    assert torch_got[:2] == ("error", "RuntimeError")


def test_inplace_add_success_example_runs_in_real_torch_and_numpy():
    target = np.zeros((5, 3, 4, 1))
    target += np.zeros((3, 1, 1))
    assert target.shape == (5, 3, 4, 1)
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.zeros(5, 3, 4, 1).add_(torch.zeros(3, 1, 1))) == (5, 3, 4, 1)


# --------------------------------------------------------------------- backwards compatibility

BACKCOMPAT_TEXT = ("self and other do not have the same shape, but are broadcastable, and have "
                   "the same number of elements. Changing behavior in a backwards incompatible "
                   "manner to broadcasting rather than viewing as 1-dimensional.")


def test_backcompat_example_broadcasts_to_4x4_today_without_warning():
    for dialect in (NUMPY, NUMPY1, TORCH):
        assert outcome(lambda: pointwise.pointwise((4, 1), (4,), op="add", dialect=dialect)) == \
            ((4, 4), ())
    assert real(lambda: np.add(np.ones((4, 1)), np.random.randn(4))) == (4, 4)
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.add(torch.ones(4, 1), torch.randn(4))) == (4, 4)


def test_backcompat_example_warns_in_torch_legacy_with_the_notes_text():
    # The notes: the old 1-D view gave (4, 1); since broadcasting it is (4, 4), and the
    # backcompat switch makes torch.add(ones(4,1), ones(4)) warn about the change.
    result = pointwise.pointwise((4, 1), (4,), op="add", dialect=TORCH_LEGACY)
    assert result.shape == (4, 4)
    assert [w.kind for w in result.warnings] == ["backcompat"]
    assert same_text(result.warnings[0].message, BACKCOMPAT_TEXT)
    verdicts = broadcast_verdicts_of([((4, 1), (4,))], TORCH_LEGACY)
    assert verdicts.backcompat.tolist() == [True]
    assert verdicts.result.shape(0) == (4, 4)
    # Same shapes or different counts: nothing changed meaning, so no warning.
    assert pointwise.pointwise((4, 1), (4, 1), op="add", dialect=TORCH_LEGACY).warnings == ()
    assert pointwise.pointwise((4, 1), (3,), op="add", dialect=TORCH_LEGACY).warnings == ()


# --------------------------------------------------------------------- pointwise function lists

NOTES_POINTWISE_MATH = ["add", "atan2", "div", "fmod", "lerp", "mul", "pow", "remainder", "dist",
                        "sub"]
NOTES_POINTWISE_COMPARISON = ["eq", "ge", "gt", "le", "lt", "max", "min", "ne"]
NOTES_FALLBACK = ["pow", "add", "sub", "mul", "div", "fmod", "remainder", "addcmul", "addcdiv"]


def _torch_binary(torch, op, x, y):
    if op == "lerp":
        return torch.lerp(x, y, 0.5)
    return getattr(torch, op)(x, y)


@pytest.mark.parametrize("op", NOTES_POINTWISE_MATH + NOTES_POINTWISE_COMPARISON)
def test_notes_pointwise_functions_broadcast_like_add_in_rules_and_real_torch(op):
    x, y = (5, 1, 4, 1), (3, 1, 1)
    expected = () if op == "dist" else (5, 3, 4, 1)  # dist reduces to a 0-d norm
    for dialect in (TORCH, TORCH_LEGACY):
        assert pointwise.pointwise(x, y, op=op, dialect=dialect).shape == expected
        failed = outcome(lambda: pointwise.pointwise((5, 2, 4, 1), y, op=op, dialect=dialect))
        assert failed[0] == "error"
    torch = pytest.importorskip("torch")
    assert real(lambda: _torch_binary(torch, op, torch.ones(x), torch.ones(y))) == expected
    assert real(lambda: _torch_binary(torch, op, torch.ones(5, 2, 4, 1), torch.ones(y)))[0] == \
        "error"


def test_the_fallback_list_is_the_notes_list():
    assert pointwise.FALLBACK_OPS == frozenset(NOTES_FALLBACK)


def _fallback_operands(op):
    # Not broadcastable, same number of elements (6).
    return ((2, 3), (3, 2), (6,)) if op in ("addcmul", "addcdiv") else ((2, 3), (3, 2))


@pytest.mark.parametrize("op", NOTES_FALLBACK)
def test_fallback_functions_warn_and_view_as_1d_in_torch_legacy_and_fail_today(op):
    shapes = _fallback_operands(op)
    legacy = pointwise.pointwise(*shapes, op=op, dialect=TORCH_LEGACY)
    assert legacy.shape == (2, 3)
    assert [w.kind for w in legacy.warnings] == ["legacy-fallback"]
    assert "Falling back to deprecated pointwise behavior." in legacy.warnings[0].message
    assert outcome(lambda: pointwise.pointwise(*shapes, op=op, dialect=TORCH))[:2] == \
        ("error", "RuntimeError")
    pair = [(shapes[0], shapes[1])]
    assert broadcast_verdicts_of(pair, TORCH_LEGACY).fallback.tolist() == [FALLBACK_WARNING]
    assert broadcast_verdicts_of(pair, TORCH).fallback.tolist() == [FALLBACK_ERROR]
    torch = pytest.importorskip("torch")
    tensors = [torch.ones(s) for s in shapes]
    assert real(lambda: getattr(torch, op)(*tensors))[:2] == ("error", "RuntimeError")


@pytest.mark.parametrize("op", ["atan2", "lerp", "eq", "max"])
def test_functions_outside_the_fallback_list_fail_even_in_torch_legacy(op):
    got = outcome(lambda: pointwise.pointwise((2, 3), (3, 2), op=op, dialect=TORCH_LEGACY))
    assert got[:2] == ("error", "RuntimeError")


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_three_operand_functions_broadcast_all_operands_together(op):
    c, a, b = (5, 1, 1), (1, 3, 1), (1, 1, 4)
    for dialect in (TORCH, TORCH_LEGACY):
        assert pointwise.pointwise(c, a, b, op=op, dialect=dialect).shape == (5, 3, 4)
        # In place, the others broadcast to the result's size, which must be c's.
        assert pointwise.inplace((5, 3, 4), (3, 1), (1, 4), op=op, dialect=dialect).shape == \
            (5, 3, 4)
        assert outcome(lambda: pointwise.inplace(c, a, b, op=op, dialect=dialect))[0] == "error"
    torch = pytest.importorskip("torch")
    assert real(lambda: getattr(torch, op)(torch.ones(c), torch.ones(a), torch.ones(b))) == \
        (5, 3, 4)
    assert real(lambda: getattr(torch.ones(5, 3, 4), op + "_")(torch.ones(3, 1),
                                                               torch.ones(1, 4))) == (5, 3, 4)
    assert real(lambda: getattr(torch.ones(c), op + "_")(torch.ones(a), torch.ones(b)))[0] == \
        "error"


def test_addcmul_equals_add_of_mul_on_random_shapes_as_the_notes_prove():
    """addcmul(C, A, B) broadcasts exactly like add(C, mul(A, B)), failures included."""
    rng = np.random.default_rng(1563)
    for _ in range(400):
        c, a, b = (tuple(int(d) for d in rng.integers(1, 4, rng.integers(1, 4)))
                   for _ in range(3))
        fused = outcome(lambda: pointwise.pointwise(c, a, b, op="addcmul", dialect=TORCH))
        try:
            product = pointwise.pointwise(a, b, op="mul", dialect=TORCH).shape
            split = outcome(lambda: pointwise.pointwise(c, product, op="add", dialect=TORCH))
        except ShapeError:
            split = ("error",)
        assert fused[0] == split[0], (c, a, b)


# --------------------------------------------------------------------- keepdim example


@pytest.mark.parametrize("dialect", ALL, ids=str)
def test_keepdim_example_sums_over_4_elements_and_16_with_keepdim(dialect):
    running_mean, data = (4,), (4, 4)
    input_mean = reductions.reduce(data, 1, False, op="mean", dialect=dialect).shape
    diff = pointwise.pointwise(input_mean, running_mean, op="sub", dialect=dialect).shape
    assert diff == (4,)
    kept = reductions.reduce(data, 1, True, op="mean", dialect=dialect).shape
    assert kept == (4, 1)
    diff_kept = pointwise.pointwise(kept, running_mean, op="sub", dialect=dialect).shape
    assert diff_kept == (4, 4)  # the sum now runs over 4*4 elements
    assert reductions.reduce(diff_kept, None, False, op="sum", dialect=dialect).shape == ()


def test_keepdim_example_runs_the_same_in_real_torch_and_numpy():
    torch = pytest.importorskip("torch")
    running_mean, data = torch.randn(4), torch.randn(4, 4)
    assert (data.mean(1) - running_mean).shape == (4,)
    assert (data.mean(1, keepdim=True) - running_mean).shape == (4, 4)
    assert (np.ones((4, 4)).mean(1, keepdims=True) - np.ones(4)).shape == (4, 4)


# --------------------------------------------------------------------- matmul and BLAS


@pytest.mark.parametrize("dialect", ALL, ids=str)
def test_matmul_broadcasts_batch_dims_as_in_the_notes(dialect):
    assert product_rules.matmul((2, 5, 7), (5, 2, 7, 3), dialect=dialect).shape == (5, 2, 5, 3)


@pytest.mark.parametrize("dialect", [TORCH, TORCH_LEGACY], ids=str)
def test_matmul_equals_the_notes_expand_view_bmm_spelling(dialect):
    expanded = broadcast_views.expand((2, 5, 7), (5, 2, 5, 7), dialect=dialect).shape
    a = reshaping.reshape(expanded, (5 * 2, 5, 7), dialect=dialect).shape
    b = reshaping.reshape((5, 2, 7, 3), (5 * 2, 7, 3), dialect=dialect, op="view").shape
    product = product_rules.bmm(a, b, dialect=dialect).shape
    assert reshaping.reshape(product, (5, 2, 5, 3), dialect=dialect, op="view").shape == \
        product_rules.matmul((2, 5, 7), (5, 2, 7, 3), dialect=dialect).shape


def test_matmul_example_in_real_numpy_and_torch_matches_the_bmm_spelling():
    a_np, b_np = np.random.randn(2, 5, 7), np.random.randn(5, 2, 7, 3)
    c_np = a_np @ b_np
    assert c_np.shape == (5, 2, 5, 3)
    torch = pytest.importorskip("torch")
    a, b = torch.from_numpy(a_np), torch.from_numpy(b_np)
    c = torch.bmm(a.expand(5, 2, 5, 7).contiguous().view(5 * 2, 5, 7),
                  b.view(5 * 2, 7, 3)).view(5, 2, 5, 3)
    assert (c - torch.from_numpy(c_np)).abs().max().item() < 1e-12
    assert tuple((a @ b).shape) == (5, 2, 5, 3)


BLAS_NO_BROADCAST = [
    # mm, mv, bmm, dot, ger: lower-level, no broadcasting or batching of their own.
    ("mm", (2, 3), (3, 4), (2, 4)),
    ("mm", (1, 2, 3), (3, 4), None),
    ("mv", (2, 3), (3,), (2,)),
    ("mv", (2, 3), (1,), None),
    ("bmm", (5, 2, 3), (5, 3, 4), (5, 2, 4)),
    ("bmm", (1, 2, 3), (5, 3, 4), None),
    ("dot", (3,), (3,), ()),
    ("dot", (3,), (1,), None),
    ("outer", (3,), (4,), (3, 4)),
]


@pytest.mark.parametrize("op, a, b, expected", BLAS_NO_BROADCAST)
def test_blas_functions_do_not_broadcast_in_rules_or_real_torch(op, a, b, expected):
    got = outcome(lambda: getattr(product_rules, op)(a, b, dialect=TORCH))
    if expected is None:
        assert got[0] == "error"
    else:
        assert got == (expected, ())
    torch = pytest.importorskip("torch")
    torch_op = "ger" if op == "outer" else op
    actual = real(lambda: getattr(torch, torch_op)(torch.ones(a), torch.ones(b)))
    assert (actual[0] == "error") if expected is None else (actual == expected)
    if expected is None:
        assert got[1:] == actual[1:]  # the rule speaks torch's words


N, M, P, B = 2, 3, 4, 5
FUSED_TABLE = [
    # The notes' table: only the add broadcasts, C to the unfused size.
    ("addmm", (N, M), (M, P), (N, P)),
    ("addmv", (N, M), (M,), (N,)),
    ("addr", (N,), (M,), (N, M)),
    ("baddbmm", (B, N, M), (B, M, P), (B, N, P)),
    ("addbmm", (B, N, M), (B, M, P), (N, P)),
]


def _fused_c_choices(op, size):
    """C shapes that broadcast to the unfused size: itself, its last dim, ones."""
    choices = [size, size[-1:], (1,) * len(size)]
    if op == "addmv":  # torch's addmv takes a vector c (or a scalar)
        choices = [size, (1,), ()]
    return choices


@pytest.mark.parametrize("op, a, b, size", FUSED_TABLE)
def test_fused_blas_broadcasts_only_c_as_in_the_notes_table(op, a, b, size):
    fn = getattr(product_rules, op)
    for c in _fused_c_choices(op, size):
        assert fn(c, a, b, dialect=TORCH).shape == size, c
    # C may not grow the result, and A, B never broadcast.
    assert outcome(lambda: fn((7,) + size, a, b, dialect=TORCH))[0] == "error"
    torch = pytest.importorskip("torch")
    for c in _fused_c_choices(op, size):
        assert real(lambda: getattr(torch, op)(torch.ones(c), torch.ones(a), torch.ones(b))) == size
    bigger = real(lambda: getattr(torch, op)(torch.ones((7,) + size), torch.ones(a), torch.ones(b)))
    assert bigger[0] == "error"


@pytest.mark.parametrize("op, a, b", [("addmm", (1, N, M), (M, P)),
                                      ("baddbmm", (1, N, M), (B, M, P)),
                                      ("addbmm", (1, N, M), (B, M, P))])
def test_fused_blas_matrix_operands_do_not_broadcast(op, a, b):
    got = outcome(lambda: getattr(product_rules, op)((1,), a, b, dialect=TORCH))
    assert got[0] == "error"
    torch = pytest.importorskip("torch")
    assert real(lambda: getattr(torch, op)(torch.ones(1), torch.ones(a), torch.ones(b)))[0] == \
        "error"


# --------------------------------------------------------------------- LAPACK


@pytest.mark.parametrize("dialect", ALL, ids=str)
def test_inv_batches_a_stack_of_matrices(dialect):
    assert lapack_rules.inv((2, 2), dialect=dialect).shape == (2, 2)
    assert lapack_rules.inv((2, 2, 2), dialect=dialect).shape == (2, 2, 2)
    a = np.array([[0, 1], [1, 1]])
    assert np.linalg.inv([a, a]).shape == (2, 2, 2)
    assert np.allclose(np.linalg.inv(a), [[-1, 1], [1, 0]])


LAPACK_ONE_OPERAND = [
    # The notes' table: numpy.linalg's inv, eig, eigh, svd, cholesky batch ("yes"); qr, a
    # "no" in 2017, batches in NumPy 2 and torch today. Output shapes for a (2, 3, 3) stack.
    ("inv", "inv", [(2, 3, 3)]),
    ("eig", "eig", [(2, 3), (2, 3, 3)]),
    ("eigh", "eigh", [(2, 3), (2, 3, 3)]),
    ("svd", "svd", [(2, 3, 3), (2, 3), (2, 3, 3)]),
    ("cholesky", "cholesky", [(2, 3, 3)]),
    ("qr", "qr", [(2, 3, 3), (2, 3, 3)]),
]


def _spd_stack():
    m = np.random.default_rng(0).standard_normal((2, 3, 3))
    return m @ np.swapaxes(m, -1, -2) + 3 * np.eye(3)


@pytest.mark.parametrize("rule, name, shapes", LAPACK_ONE_OPERAND)
def test_lapack_functions_batch_over_leading_dims_like_real_numpy_and_torch(rule, name, shapes):
    for dialect in (NUMPY, TORCH):
        assert list(getattr(lapack_rules, rule)((2, 3, 3), dialect=dialect).outputs) == shapes
    outputs = getattr(np.linalg, name)(_spd_stack())
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    assert [o.shape for o in outputs] == shapes
    torch = pytest.importorskip("torch")
    outputs = getattr(torch.linalg, name)(torch.from_numpy(_spd_stack()))
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    assert [tuple(o.shape) for o in outputs] == shapes


A6 = (2, 4, 5, 9, 6, 6)
SOLVE_EXAMPLES = [
    # (b, numpy-1 as in the notes, numpy 2, torch)
    ((6, 15), (2, 4, 5, 9, 6, 15), (2, 4, 5, 9, 6, 15), (2, 4, 5, 9, 6, 15)),
    ((9, 6, 15), (2, 4, 5, 9, 6, 15), (2, 4, 5, 9, 6, 15), (2, 4, 5, 9, 6, 15)),
    ((5, 9, 6, 15), (2, 4, 5, 9, 6, 15), (2, 4, 5, 9, 6, 15), (2, 4, 5, 9, 6, 15)),
    ((4, 5, 9, 6, 15), "solve1: Input operand 1 has a mismatch in its core dimension 0, with "
     "gufunc signature (m,m),(m)->(m) (size 15 is different from 6)",
     (2, 4, 5, 9, 6, 15), (2, 4, 5, 9, 6, 15)),
    ((2, 4, 5, 9, 6), (2, 4, 5, 9, 6), "error", (2, 4, 5, 9, 6)),
]


@pytest.mark.parametrize("b, numpy1, numpy2, torch_shape", SOLVE_EXAMPLES)
def test_solve_examples_follow_each_librarys_vector_rule(b, numpy1, numpy2, torch_shape):
    got1 = outcome(lambda: lapack_rules.solve(A6, b, dialect=NUMPY1))
    if isinstance(numpy1, str):
        assert got1 == ("error", "ValueError", numpy1)  # the notes' traceback, word for word
    else:
        assert got1 == (numpy1, ())
    got2 = outcome(lambda: lapack_rules.solve(A6, b, dialect=NUMPY))
    real2 = real(lambda: np.linalg.solve(np.random.randn(*A6), np.random.randn(*b)))
    assert got2 == (real2 if real2[0] == "error" else (real2, ()))
    assert (got2[0] == "error") if numpy2 == "error" else (got2 == (numpy2, ()))
    assert outcome(lambda: lapack_rules.solve(A6, b, dialect=TORCH)) == (torch_shape, ())
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.linalg.solve(torch.randn(A6, dtype=torch.float64),
                                           torch.randn(b, dtype=torch.float64))) == torch_shape


GESV_TABLE = [
    # (B, previous/new gesv[0] shape = torch-legacy, today's torch.linalg.solve)
    ((3,), (3, 1), (3,)),
    ((3, 1), (3, 1), (3, 1)),
    ((3, 4), (3, 4), (3, 4)),
]


@pytest.mark.parametrize("b, legacy, today", GESV_TABLE)
def test_gesv_table_shapes_in_torch_legacy_and_today(b, legacy, today):
    assert lapack_rules.solve((3, 3), b, dialect=TORCH_LEGACY).shape == legacy
    assert lapack_rules.solve((3, 3), b, dialect=TORCH).shape == today
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.linalg.solve(torch.eye(3), torch.ones(b))) == today


def test_solve_5x5x5_with_5x5_b_is_ambiguous_across_libraries():
    # The notes: read as a matrix the result is (5, 5, 5); as a vector, (5, 5) [(5, 5, 1) as a matrix].
    assert lapack_rules.solve((5, 5, 5), (5, 5), dialect=NUMPY).shape == (5, 5, 5)
    assert lapack_rules.solve((5, 5, 5), (5, 5), dialect=TORCH_LEGACY).shape == (5, 5, 5)
    assert lapack_rules.solve((5, 5, 5), (5, 5), dialect=NUMPY1).shape == (5, 5)
    assert lapack_rules.solve((5, 5, 5), (5, 5), dialect=TORCH).shape == (5, 5)
    a = np.random.randn(5, 5, 5) + 5 * np.eye(5)
    assert real(lambda: np.linalg.solve(a, np.ones((5, 5)))) == (5, 5, 5)
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.linalg.solve(torch.from_numpy(a), torch.ones(5, 5,
                                                                          dtype=torch.float64))) \
        == (5, 5)


# --------------------------------------------------------------------- indexing, joining


@pytest.mark.parametrize("dialect", ALL, ids=str)
def test_cat_does_not_broadcast(dialect):
    assert joins.concatenate([(2, 3), (2, 4)], 1, dialect=dialect).shape == (2, 7)
    assert outcome(lambda: joins.concatenate([(2, 3), (1, 3)], 1, dialect=dialect))[0] == \
        "error"
    assert real(lambda: np.concatenate([np.ones((2, 3)), np.ones((1, 3))], 1))[0] == "error"


def test_gather_with_a_smaller_index_gives_the_index_shape():
    # The notes' np.choose example: x (7, 3, 4), index (1, 3, 4) along dim 0.
    assert indexing.gather((7, 3, 4), 0, (1, 3, 4), dialect=TORCH).shape == (1, 3, 4)
    assert indexing.gather((7, 3, 4), 0, (1, 3, 4), dialect=NUMPY).shape == (1, 3, 4)
    x, y = np.random.randn(7, 3, 4), np.zeros((1, 3, 4)).astype("int64")
    assert np.array_equal(np.choose(y, x), np.take_along_axis(x, y, 0))
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.gather(torch.from_numpy(x), 0, torch.from_numpy(y))) == (1, 3, 4)


@pytest.mark.parametrize("dialect", [NUMPY, TORCH, TORCH_LEGACY], ids=str)
def test_gather_index_of_lower_rank_is_refused_the_proposed_broadcast_never_shipped(dialect):
    # tensor (3, 5, 7) with index (5, 7): the notes proposed (1, 5, 7) -> (3, 5, 7).
    got = outcome(lambda: indexing.gather((3, 5, 7), 0, (5, 7), dialect=dialect))
    assert got[0] == "error"
    if dialect.is_numpy:
        assert got == real(lambda: np.take_along_axis(np.ones((3, 5, 7)),
                                                      np.zeros((5, 7), "int64"), 0))
        return
    torch = pytest.importorskip("torch")
    assert got == real(lambda: torch.gather(torch.ones(3, 5, 7), 0,
                                            torch.zeros(5, 7, dtype=torch.int64)))


def test_scatter_takes_index_no_larger_than_src_and_self():
    assert scatter_gather.scatter((3, 5), 0, (2, 5), (4, 5), dialect=TORCH).shape == (3, 5)
    got = outcome(lambda: scatter_gather.scatter((3, 5), 0, (2, 5), (1, 5), dialect=TORCH))
    assert got[0] == "error"
    torch = pytest.importorskip("torch")
    index = torch.zeros(2, 5, dtype=torch.int64)
    assert real(lambda: torch.zeros(3, 5).scatter_(0, index, torch.ones(4, 5))) == (3, 5)
    assert got == real(lambda: torch.zeros(3, 5).scatter_(0, index, torch.ones(1, 5)))


def test_index_select_is_numpy_take_without_broadcasting():
    assert scatter_gather.index_select((3, 4), 0, (2,), dialect=TORCH).shape == (2, 4)
    assert scatter_gather.index_select((3, 4), 0, (2,), dialect=NUMPY).shape == \
        np.take(np.ones((3, 4)), [1, 0], axis=0).shape
    got = outcome(lambda: scatter_gather.index_select((3, 4), 0, (2, 1), dialect=TORCH))
    torch = pytest.importorskip("torch")
    assert got == real(lambda: torch.index_select(torch.ones(3, 4), 0,
                                                  torch.zeros(2, 1, dtype=torch.int64)))


@pytest.mark.parametrize("method", ["index_add", "index_copy"])
def test_index_add_and_index_copy_example_keeps_self_shape_and_values(method):
    rule = getattr(scatter_gather, method)
    assert rule((3, 3), 0, (2,), (2, 3), dialect=TORCH).shape == (3, 3)
    # No broadcasting: a source that would broadcast to (2, 3) is refused.
    refused = outcome(lambda: rule((3, 3), 0, (2,), (2, 1), dialect=TORCH))
    assert refused[0] == "error"
    torch = pytest.importorskip("torch")
    x = torch.arange(1, 7).view(2, 3).float()
    out = getattr(torch.zeros(3, 3), method + "_")(0, torch.LongTensor([1, 0]), x)
    assert out.tolist() == [[4, 5, 6], [1, 2, 3], [0, 0, 0]]  # the notes' printed tensor
    assert refused == real(lambda: getattr(torch.zeros(3, 3), method + "_")(
        0, torch.LongTensor([1, 0]), torch.ones(2, 1)))


# --------------------------------------------------------------------- uncategorized, out=


@pytest.mark.parametrize("dialect", ALL, ids=str)
def test_copy_and_masked_fill_broadcast_into_the_target(dialect):
    assert pointwise.copy_into((3, 4), (4,), dialect=dialect).shape == (3, 4)
    assert outcome(lambda: pointwise.copy_into((3, 4), (3,), dialect=dialect))[0] == "error"
    if dialect.is_torch:
        assert pointwise.masked_fill((3, 4), (4,), dialect=dialect).shape == (3, 4)


def test_copy_and_masked_fill_match_real_numpy_and_torch():
    dst = np.zeros((3, 4))
    np.copyto(dst, np.arange(4))
    assert dst.shape == (3, 4) and (dst == np.arange(4)).all()
    assert outcome(lambda: pointwise.copy_into((3, 4), (3,), dialect=NUMPY)) == \
        real(lambda: np.copyto(np.zeros((3, 4)), np.ones(3)) or np.zeros(0))
    torch = pytest.importorskip("torch")
    assert real(lambda: torch.zeros(3, 4).copy_(torch.ones(4))) == (3, 4)
    assert real(lambda: torch.zeros(3, 4).masked_fill(torch.ones(4, dtype=torch.bool), 1.0)) == \
        (3, 4)
    assert outcome(lambda: pointwise.copy_into((3, 4), (3,), dialect=TORCH)) == \
        real(lambda: torch.zeros(3, 4).copy_(torch.ones(3)))


def test_numpy_refuses_to_resize_out_while_torch_resizes_it():
    inputs, out = ((3, 4), (4,)), (2, 2)
    numpy_got = outcome(lambda: pointwise.out_param(inputs, out, op="add", dialect=NUMPY))
    assert numpy_got == real(lambda: np.add(np.ones((3, 4)), np.ones(4), out=np.zeros((2, 2))))
    assert numpy_got[0] == "error"
    assert outcome(lambda: pointwise.out_param(inputs, out, op="add", dialect=TORCH)) == \
        ((3, 4), ("out-resize",))
    assert outcome(lambda: pointwise.out_param(inputs, out, op="add", dialect=TORCH_LEGACY)) == \
        ((3, 4), ())
    torch = pytest.importorskip("torch")
    target = torch.zeros(2, 2)
    with pytest.warns(UserWarning, match="was resized"):
        torch.add(torch.ones(3, 4), torch.ones(4), out=target)
    assert tuple(target.shape) == (3, 4)
