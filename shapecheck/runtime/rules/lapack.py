"""Shape rules of batched LAPACK (inv, det, eig, svd, qr, cholesky, pinv, ...) and solve.

Square and stacked-matrix requirements are exact; the batch dims of solve
broadcast the way each library does.
"""

from __future__ import annotations

from ..dialects import NUMPY as NUMPY_DIALECT
from ..dialects import TORCH, Dialect
from ..dims import UNKNOWN, Dim, Maybe, Shape, dims_equal, eq, is_zero, le
from ..verdicts import Result, ShapeError
from .broadcast import broadcast_shapes
from .gufuncs import (
    differ,
    np_core_mismatch,
    np_core_too_small,
    np_gufunc_loop,
    shape_error,
)
from .messages import torch_list

# --------------------------------------------------------------------------- LAPACK


def _stacked_matrix(a: Shape, name: str, dialect: Dialect, *, square: bool,
                    torch_name: str | None = None) -> None:
    """The shared checks: at least 2-D, and (for most ops) square in the last two dims."""
    label = f"linalg.{torch_name or name}"
    if len(a) < 2:
        if dialect.is_torch:
            raise shape_error("linalg", f"{label}: The input tensor A must have at least 2 dimensions.",
                       "RuntimeError", a)
        raise shape_error("linalg", f"{len(a)}-dimensional array given. Array must be at least "
                   "two-dimensional", "LinAlgError", a)
    if square and differ(a[-1], a[-2]):
        if dialect.is_torch:
            raise shape_error("linalg", f"{label}: A must be batches of square matrices, but they are "
                       f"{a[-2]} by {a[-1]} matrices", "RuntimeError", a)
        raise shape_error("linalg", "Last 2 dimensions of the array must be square", "LinAlgError", a)


def inv(a: Shape, *, dialect: Dialect) -> Result:
    """Batched inverse: (*, n, n) -> (*, n, n)."""
    a = tuple(a)
    _stacked_matrix(a, "inv", dialect, square=True)
    return Result.of(a)


def cholesky(a: Shape, *, dialect: Dialect) -> Result:
    """Batched Cholesky factor: (*, n, n) -> (*, n, n)."""
    a = tuple(a)
    _stacked_matrix(a, "cholesky", dialect, square=True)
    return Result.of(a)


def det(a: Shape, *, dialect: Dialect) -> Result:
    """Batched determinant: (*, n, n) -> (*)."""
    a = tuple(a)
    _stacked_matrix(a, "det", dialect, square=True)
    return Result.of(a[:-2])


def slogdet(a: Shape, *, dialect: Dialect) -> Result:
    """Batched (sign, logabsdet): two outputs of shape (*)."""
    a = tuple(a)
    _stacked_matrix(a, "slogdet", dialect, square=True)
    return Result((a[:-2], a[:-2]))


def eig(a: Shape, *, dialect: Dialect) -> Result:
    """Eigenvalues (*, n) and eigenvectors (*, n, n)."""
    a = tuple(a)
    _stacked_matrix(a, "eig", dialect, square=True)
    return Result((a[:-1], a))


def eigh(a: Shape, *, dialect: Dialect) -> Result:
    """Hermitian eigenvalues (*, n) and eigenvectors (*, n, n)."""
    a = tuple(a)
    _stacked_matrix(a, "eigh", dialect, square=True)
    return Result((a[:-1], a))


def eigvals(a: Shape, *, dialect: Dialect) -> Result:
    """Eigenvalues only: (*, n)."""
    a = tuple(a)
    _stacked_matrix(a, "eigvals", dialect, square=True)
    return Result.of(a[:-1])


def eigvalsh(a: Shape, *, dialect: Dialect) -> Result:
    """Hermitian eigenvalues only: (*, n); torch words its errors as linalg.eigh."""
    a = tuple(a)
    _stacked_matrix(a, "eigvalsh", dialect, square=True, torch_name="eigh")
    return Result.of(a[:-1])


def _min_dim(m: Dim, n: Dim) -> Dim:
    if isinstance(m, int) and isinstance(n, int):
        return min(m, n)
    if eq(m, n) is True:
        return m
    return UNKNOWN


def svd(a: Shape, *, full_matrices: bool = True, compute_uv: bool = True,
        dialect: Dialect) -> Result:
    """U, S, Vh of a (*, m, n) stack (k = min(m, n)); S alone when compute_uv is False."""
    a = tuple(a)
    _stacked_matrix(a, "svd", dialect, square=False)
    batch, m, n = a[:-2], a[-2], a[-1]
    k = _min_dim(m, n)
    s = batch + (k,)
    if not compute_uv:
        return Result((s,))
    if full_matrices:
        return Result((batch + (m, m), s, batch + (n, n)))
    return Result((batch + (m, k), s, batch + (k, n)))


def qr(a: Shape, *, mode: str = "reduced", dialect: Dialect) -> Result:
    """Q and R of a (*, m, n) stack; numpy's "r" gives R alone and "raw" gives (h, tau)."""
    a = tuple(a)
    valid = ("reduced", "complete", "r") + (() if dialect.is_torch else ("raw",))
    if mode not in valid:
        if dialect.is_torch:
            raise shape_error("linalg", "qr received unrecognized mode '" + mode + "' but expected one "
                       "of 'reduced' (default), 'r', or 'complete'", "RuntimeError", a)
        raise shape_error("linalg", f"Unrecognized mode '{mode}'", "ValueError", a)
    _stacked_matrix(a, "qr", dialect, square=False)
    batch, m, n = a[:-2], a[-2], a[-1]
    k = _min_dim(m, n)
    if mode == "complete":
        return Result((batch + (m, m), batch + (m, n)))
    if mode == "r":
        if dialect.is_torch:
            return Result(((0,), batch + (k, n)))
        return Result((batch + (k, n),))
    if mode == "raw":
        return Result((batch + (n, m), batch + (k,)))
    return Result((batch + (m, k), batch + (k, n)))


def pinv(a: Shape, *, dialect: Dialect) -> Result:
    """Pseudo-inverse: (*, m, n) -> (*, n, m) (torch's message assumes float32)."""
    a = tuple(a)
    if dialect.is_torch and len(a) < 2:
        raise shape_error("linalg", f"linalg.pinv(Float{{{torch_list(a)}}}): expected a tensor with 2 "
                   "or more dimensions of float, double, cfloat or cdouble types",
                   "RuntimeError", a)
    if dialect.is_numpy and len(a) == 1 and is_zero(a[0]) is True:
        # numpy's shortcut for empty input unpacks the last two dims first.
        raise shape_error("linalg", "not enough values to unpack (expected 2, got 1)", "ValueError", a)
    _stacked_matrix(a, "pinv", dialect, square=False)
    return Result.of(a[:-2] + (a[-1], a[-2]))


# --------------------------------------------------------------------------- least squares

def lstsq(a: Shape, b: Shape, *, driver: str | None = None, dialect: Dialect) -> Result:
    """Least squares a x = b: the solution, the residuals, the rank and the singular values.

    NumPy takes one matrix a (m, n) and b (m,) or (m, k); its residuals have k (or 1) entries
    when m > n and a has full rank, which the values decide, else none. torch takes stacks,
    reads b as (stacks of) vectors when it has one dim fewer than a, broadcasts the batch dims
    first, and with its CPU default driver (gelsy) computes neither residuals nor singular
    values (empty outputs); gels gives no rank, gelsd and gelss the singular values.
    """
    a, b = tuple(a), tuple(b)
    if dialect.is_numpy:
        for x in (a, b) if len(a) == 2 else (a,):
            if len(x) != 2 and (x is a or len(x) != 1):
                raise shape_error("linalg", f"{len(x)}-dimensional array given. Array must be "
                                  "two-dimensional", "LinAlgError", a, b)
        if differ(a[0], b[0]):
            raise shape_error("linalg", "Incompatible dimensions", "LinAlgError", a, b)
        m, n = a
        rhs = b[1:]
        residuals: Shape = (0,) if le(m, n) is True else (UNKNOWN,)
        return Result((((n,) + rhs), residuals, (), (_min_dim(m, n),)))
    if len(a) < 2:
        raise shape_error("linalg", "torch.linalg.lstsq: input must have at least 2 dimensions.",
                          "RuntimeError", a, b)
    if len(a) - len(b) not in (0, 1):
        raise shape_error("linalg", "torch.linalg.lstsq: input.dim() must be greater or equal "
                          "to other.dim() and (input.dim() - other.dim()) <= 1", "RuntimeError",
                          a, b)
    vector = len(b) == 1 or (len(b) == len(a) - 1 and dims_equal(b, a[:-1]))
    if len(b) == len(a) - 1 and len(b) > 1 and vector is not True:
        # One dim fewer, yet no stack of vectors a's batch: torch reads such a b by rules of
        # its own (sometimes as a matrix with its batch broadcast), not modelled.
        raise NotImplementedError("a b of one dim fewer that is no stack of vectors")
    b_mat = b + (1,) if vector else b
    try:
        batch = broadcast_shapes(tuple(a[:-2]), tuple(b_mat[:-2]), dialect=TORCH).shape
    except ShapeError as exc:
        raise shape_error("linalg", exc.message, exc.exc_type, a, b) from None
    if differ(a[-2], b_mat[-2]):
        which = "other.size(-1)" if vector else "other.size(-2)"
        raise shape_error("linalg", f"torch.linalg.lstsq: input.size(-2) should match {which}",
                          "RuntimeError", a, b)
    m, n = a[-2], a[-1]
    solution = tuple(batch) + ((n,) if vector else (n, b_mat[-1]))
    own = tuple(a[:-2])  # the rank and singular values follow a's own batch, not the broadcast
    if driver in (None, "gelsy"):
        return Result((solution, (0,), own, (0,)))
    if driver not in ("gels", "gelsd", "gelss") or (batch and le(m, n) is not True):
        raise NotImplementedError("residuals of a stack, whose ranks the values decide")
    residuals = (0,) if le(m, n) is True else (UNKNOWN,)
    rank = (0,) if driver == "gels" else own
    singular = (0,) if driver == "gels" else own + (_min_dim(m, n),)
    return Result((solution, residuals, rank, singular))


# --------------------------------------------------------------------------- solve

_SOLVE_SIG = "(m,m),(m,n)->(m,n)"
_SOLVE1_SIG = "(m,m),(m)->(m)"


def solve_b_is_vector(a: Shape, b: Shape, *, dialect: Dialect) -> Maybe:
    """Does the library read b as a (stack of) vector(s)? None when it depends on sizes.

    numpy (2.x): b.ndim == 1. numpy-1: b.ndim == a.ndim - 1. torch:
    b.ndim == 1, or b.ndim == a.ndim - 1 and b.shape == a.shape[:-1].
    torch-legacy (gesv): never; a 1-D b is treated as an (m, 1) matrix.
    """
    a, b = tuple(a), tuple(b)
    if dialect.is_numpy:
        return len(b) == 1 if not dialect.legacy else len(b) == len(a) - 1
    if dialect.legacy:
        return False
    if len(b) == 1:
        return True
    if len(b) != len(a) - 1:
        return False
    return dims_equal(b, a[:-1])


def _np_solve(a: Shape, b: Shape, vector: bool) -> Shape:
    _stacked_matrix(a, "solve", NUMPY_DIALECT, square=True)
    m = a[-2]
    name, sig, ncore = ("solve1", _SOLVE1_SIG, 1) if vector else ("solve", _SOLVE_SIG, 2)
    if len(b) < ncore:
        raise np_core_too_small(name, 1, b, sig, ncore, "solve")
    bm = b[-1] if vector else b[-2]
    if differ(bm, a[-2]):
        raise np_core_mismatch(name, 1, 0, sig, bm, a[-2], "solve", a, b)
    out_core = (m,) if vector else (m, b[-1])
    batch = np_gufunc_loop([(a, 2), (b, ncore)], out_core, "solve")
    return tuple(batch) + out_core


def _torch_solve(a: Shape, b: Shape, vector: bool, legacy: bool) -> Shape:
    b_mat = b + (1,) if vector or (legacy and len(b) == 1) else b
    if len(a) < 2:
        raise shape_error("solve", "linalg.solve: The input tensor A must have at least 2 dimensions.",
                   "RuntimeError", a, b)
    if differ(a[-1], a[-2]):
        raise shape_error("solve", "linalg.solve: A must be batches of square matrices, but they are "
                   f"{a[-2]} by {a[-1]} matrices", "RuntimeError", a, b)
    if len(b_mat) < 2:
        raise shape_error("solve", "linalg.solve: The input tensor B must have at least 2 dimensions.",
                   "RuntimeError", a, b)
    if differ(a[-2], b_mat[-2]):
        raise shape_error("solve", "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                   f"({a[-2]}x{a[-1]} and {b_mat[-2]}x{b_mat[-1]})", "RuntimeError", a, b)
    try:
        batch = broadcast_shapes(tuple(b_mat[:-2]), tuple(a[:-2]), dialect=TORCH).shape
    except ShapeError as exc:
        raise shape_error("solve", exc.message, exc.exc_type, a, b) from None
    out = tuple(batch) + tuple(b_mat[-2:])
    return out[:-1] if vector else out


def solve(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """Solve a x = b for stacks of square a; whether b is a vector follows each library's rule.

    See solve_b_is_vector. When torch's choice depends on unknown sizes, the
    matrix reading is taken unless only the vector reading can succeed.
    """
    a, b = tuple(a), tuple(b)
    vector = solve_b_is_vector(a, b, dialect=dialect)
    if dialect.is_numpy:
        return Result.of(_np_solve(a, b, bool(vector)))
    if vector is None:
        try:
            return Result.of(_torch_solve(a, b, False, dialect.legacy))
        except ShapeError:
            return Result.of(_torch_solve(a, b, True, dialect.legacy))
    return Result.of(_torch_solve(a, b, vector, dialect.legacy))


__all__ = ["inv", "det", "slogdet", "eig", "eigh", "eigvals", "eigvalsh", "svd", "qr", "cholesky",
           "pinv", "lstsq", "solve", "solve_b_is_vector"]
