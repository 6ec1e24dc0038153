"""Shape rules of matrix products (matmul, mm, mv, bmm, dot, vdot, inner, outer) and torch's fused BLAS ops.

Each rule answers what NumPy 2 or PyTorch would do with arrays of the given
shapes: the result shape, or the library's own error text. Batch dims and the
add of the fused ops broadcast through rules.broadcast; core dims must match
exactly. Ops that exist only in PyTorch (mm, bmm, addmm, ...) follow PyTorch
under every dialect.
"""

from __future__ import annotations

from ..dialects import TORCH, Dialect
from ..dims import Shape, either, eq, is_one, is_zero, numel, product
from ..verdicts import Result
from .broadcast import broadcast_dim, broadcast_shapes
from .gufuncs import (
    differ,
    np_core_mismatch,
    np_core_too_small,
    np_gufunc_loop,
    np_shape,
    shape_error,
    torch_size,
)
from .messages import torch_list

# --------------------------------------------------------------------------- matmul family

_MATMUL_SIG = "(n?,k),(k,m?)->(n?,m?)"


def _np_matmul(a: Shape, b: Shape) -> Shape:
    for i, s in enumerate((a, b)):
        if len(s) < 1:
            raise np_core_too_small("matmul", i, s, _MATMUL_SIG, 1, "matmul")
    k_a = a[-1]
    k_b = b[-2] if len(b) >= 2 else b[0]
    if differ(k_a, k_b):
        raise np_core_mismatch("matmul", 1, 0, _MATMUL_SIG, k_b, k_a, "matmul", a, b)
    out_core = ((a[-2],) if len(a) >= 2 else ()) + ((b[-1],) if len(b) >= 2 else ())
    ops = [(a, min(len(a), 2)), (b, min(len(b), 2))]
    batch = np_gufunc_loop(ops, out_core, "matmul")
    return tuple(batch) + tuple(out_core)


def _torch_mm_check(a: Shape, b: Shape) -> Shape:
    if differ(a[1], b[0]):
        raise shape_error("matmul", f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and "
                   f"{b[0]}x{b[1]})", "RuntimeError", a, b)
    return (a[0], b[1])


def _torch_mv_check(a: Shape, v: Shape) -> Shape:
    if differ(a[1], v[0]):
        raise shape_error("matmul", f"size mismatch, got input ({a[0]}), mat ({a[0]}x{a[1]}), vec "
                   f"({v[0]})", "RuntimeError", a, v)
    return (a[0],)


def _torch_dot_check(a: Shape, b: Shape) -> Shape:
    if differ(a[0], b[0]):
        raise shape_error("matmul", f"inconsistent tensor size, expected tensor [{a[0]}] and src "
                   f"[{b[0]}] to have the same number of elements, but got {a[0]} and {b[0]} "
                   "elements respectively", "RuntimeError", a, b)
    return ()


def _torch_matmul(a: Shape, b: Shape) -> Shape:
    da, db = len(a), len(b)
    if da == 0 or db == 0:
        raise shape_error("matmul", "both arguments to matmul need to be at least 1D, but they are "
                   f"{da}D and {db}D", "RuntimeError", a, b)
    if da == 1 and db == 1:
        return _torch_dot_check(a, b)
    if da == 2 and db == 1:
        return _torch_mv_check(a, b)
    if da == 1 and db == 2:
        return _torch_mm_check((1,) + a, b)[1:]
    if da == 2 and db == 2:
        return _torch_mm_check(a, b)
    # torch folds the batch into one matrix dim when the other side is a vector
    # or matrix (tensor1 larger), or when a vector multiplies a stack whose
    # transpose is contiguous; that choice decides which kernel's message shows.
    if da >= 3 and db <= 2:
        folded = product(a[:-1])
        if db == 2:
            _torch_mm_check((folded, a[-1]), b)
            return tuple(a[:-1]) + (b[1],)
        _torch_mv_check((folded, a[-1]), b)
        return tuple(a[:-1])
    if da == 1 and either(is_zero(numel(b)), is_one(b[-2])) is True:
        folded = product(tuple(b[:-2]) + (b[-1],))
        _torch_mv_check((folded, b[-2]), a)
        return tuple(b[:-2]) + (b[-1],)
    n = a[-2] if da > 1 else 1
    m1 = a[-1]
    m2 = b[-2] if db > 1 else b[0]
    p = b[-1] if db > 1 else 1
    batch = broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]), dialect=TORCH).shape
    if differ(m1, m2):
        count = product(batch)
        raise shape_error("matmul", "Expected size for first two dimensions of batch2 tensor to be: "
                   f"[{count}, {m1}] but got: [{count}, {m2}].", "RuntimeError", a, b)
    return tuple(batch) + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())


def matmul(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """``a @ b``: NumPy's gufunc rule or torch.matmul's dispatch (dot, mv, mm, folded mm, bmm)."""
    a, b = tuple(a), tuple(b)
    if dialect.is_numpy:
        return Result.of(_np_matmul(a, b))
    return Result.of(_torch_matmul(a, b))


def mm(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.mm: two matrices, no broadcasting."""
    a, b = tuple(a), tuple(b)
    if len(a) != 2:
        raise shape_error("matmul", "self must be a matrix", "RuntimeError", a, b)
    if len(b) != 2:
        raise shape_error("matmul", "mat2 must be a matrix", "RuntimeError", a, b)
    return Result.of(_torch_mm_check(a, b))


def mv(a: Shape, v: Shape, *, dialect: Dialect) -> Result:
    """torch.mv: matrix times vector (implemented by torch as addmv into an empty result)."""
    a, v = tuple(a), tuple(v)
    if len(a) == 0:
        raise shape_error("matmul", "Dimension specified as 0 but tensor has no dimensions",
                   "IndexError", a, v)
    if not (len(a) == 2 and len(v) == 1):
        raise shape_error("matmul", f"vector + matrix @ vector expected, got 1, {len(a)}, {len(v)}",
                   "RuntimeError", a, v)
    return Result.of(_torch_mv_check(a, v))


def bmm(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.bmm: two stacks of matrices with the same batch size, no broadcasting."""
    a, b = tuple(a), tuple(b)
    return Result.of(_bmm_check(a, b))


def _bmm_check(a: Shape, b: Shape) -> Shape:
    if len(a) != 3:
        raise shape_error("matmul", "batch1 must be a 3D tensor", "RuntimeError", a, b)
    if len(b) != 3:
        raise shape_error("matmul", "batch2 must be a 3D tensor", "RuntimeError", a, b)
    if differ(a[0], b[0]) or differ(a[2], b[1]):
        raise shape_error("matmul", "Expected size for first two dimensions of batch2 tensor to be: "
                   f"[{a[0]}, {a[2]}] but got: [{b[0]}, {b[1]}].", "RuntimeError", a, b)
    return (a[0], a[1], b[2])


def dot(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """np.dot (a scalar multiplies; else a's last axis meets b's second-to-last) or torch.dot (1-D)."""
    a, b = tuple(a), tuple(b)
    if dialect.is_torch:
        return Result.of(_torch_1d_pair(a, b))
    if len(a) == 0:
        return Result.of(b)
    if len(b) == 0:
        return Result.of(a)
    bdim = len(b) - 2 if len(b) >= 2 else 0
    if differ(a[-1], b[bdim]):
        raise shape_error("matmul", f"shapes {np_shape(a)} and {np_shape(b)} not aligned: {a[-1]} "
                   f"(dim {len(a) - 1}) != {b[bdim]} (dim {bdim})", "ValueError", a, b)
    rest_b = tuple(b[:-2]) + tuple(b[-1:]) if len(b) >= 2 else ()
    return Result.of(tuple(a[:-1]) + rest_b)


def _torch_1d_pair(a: Shape, b: Shape) -> Shape:
    if len(a) != 1 or len(b) != 1:
        raise shape_error("matmul", f"1D tensors expected, but got {len(a)}D and {len(b)}D tensors",
                   "RuntimeError", a, b)
    return _torch_dot_check(a, b)


def vdot(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """np.vdot flattens both (sizes must agree); torch.vdot takes two 1-D tensors."""
    a, b = tuple(a), tuple(b)
    if dialect.is_torch:
        return Result.of(_torch_1d_pair(a, b))
    na, nb = numel(a), numel(b)
    if differ(na, nb):
        raise shape_error("matmul", f"cannot reshape array of size {nb} into shape ({na},)",
                   "ValueError", a, b)
    return Result.of(())


def inner(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """Sum over the last axes of both; a scalar operand multiplies instead."""
    a, b = tuple(a), tuple(b)
    if len(a) == 0 or len(b) == 0:
        if dialect.is_torch:
            return broadcast_shapes(a, b, dialect=TORCH)
        return Result.of(b if len(a) == 0 else a)
    if differ(a[-1], b[-1]):
        if dialect.is_torch:
            raise shape_error("matmul", "inner() the last dimension must match on both input tensors "
                       f"but got shapes {torch_list(a)} and {torch_list(b)}", "RuntimeError",
                       a, b)
        # NumPy reports it as dot(a, b with its last two axes swapped).
        shown = tuple(b[:-2]) + (b[-1], b[-2]) if len(b) >= 2 else b
        bdim = max(len(b) - 2, 0)
        raise shape_error("matmul", f"shapes {np_shape(a)} and {np_shape(shown)} not aligned: {a[-1]} "
                   f"(dim {len(a) - 1}) != {b[-1]} (dim {bdim})", "ValueError", a, b)
    return Result.of(tuple(a[:-1]) + tuple(b[:-1]))


def outer(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """np.outer flattens both; torch.outer / ger need two 1-D tensors."""
    a, b = tuple(a), tuple(b)
    if dialect.is_torch:
        for arg, s in (("self", a), ("vec2", b)):
            if len(s) != 1:
                raise shape_error("matmul", f"outer: Expected 1-D argument {arg}, but got {len(s)}-D",
                           "RuntimeError", a, b)
        return Result.of((a[0], b[0]))
    return Result.of((numel(a), numel(b)))


ger = outer


# --------------------------------------------------------------------------- fused BLAS (torch)


def _expand_to(c: Shape, target: Shape) -> Shape:
    """torch's expand of the added tensor to the product's shape (only c may grow)."""
    if len(c) > len(target):
        raise shape_error("broadcast", f"expand(torch.FloatTensor{{{torch_list(c)}}}, size="
                   f"{torch_list(target)}): the number of sizes provided ({len(target)}) must be "
                   f"greater or equal to the number of dimensions in the tensor ({len(c)})",
                   "RuntimeError", c, target)
    offset = len(target) - len(c)
    for i in range(len(target) - 1, offset - 1, -1):
        have, want = c[i - offset], target[i]
        out, failed = broadcast_dim(have, want)
        if failed or eq(out, want) is False:
            raise shape_error("broadcast", f"The expanded size of the tensor ({want}) must match the "
                       f"existing size ({have}) at non-singleton dimension {i}.  Target sizes: "
                       f"{torch_list(target)}.  Tensor sizes: {torch_list(c)}",
                       "RuntimeError", c, target)
    return tuple(target)


def addmm(c: Shape, a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.addmm: c + a @ b with a, b matrices; only c broadcasts (it is expanded)."""
    c, a, b = tuple(c), tuple(a), tuple(b)
    for name, s in (("mat1", a), ("mat2", b)):
        if len(s) != 2:
            raise shape_error("matmul", f"{name} must be a matrix, got {len(s)}-D tensor",
                       "RuntimeError", a, b)
    out = _torch_mm_check(a, b)
    return Result.of(_expand_to(c, out))


def addmv(c: Shape, a: Shape, v: Shape, *, dialect: Dialect) -> Result:
    """torch.addmv: c + a @ v; c is a scalar, one element, or exactly a's row count."""
    c, a, v = tuple(c), tuple(a), tuple(v)
    if not (len(a) == 2 and len(v) == 1 and len(c) <= 1):
        raise shape_error("matmul", f"vector + matrix @ vector expected, got {len(c)}, {len(a)}, "
                   f"{len(v)}", "RuntimeError", c, a, v)
    nc = numel(c)
    size_ok = either(eq(a[0], nc), is_one(nc))
    if differ(a[1], v[0]) or size_ok is False:
        c0 = torch_size(c, 0)
        raise shape_error("matmul", f"size mismatch, got input ({c0}), mat ({a[0]}x{a[1]}), vec "
                   f"({v[0]})", "RuntimeError", c, a, v)
    # With an empty matrix torch writes beta * c into the result, which then
    # takes c's shape; otherwise the result has a's row count.
    if is_zero(numel(a)) is True:
        return Result.of(c)
    return Result.of((a[0],))


def addr(c: Shape, v1: Shape, v2: Shape, *, dialect: Dialect) -> Result:
    """torch.addr: c + outer(v1, v2); only c broadcasts."""
    c, v1, v2 = tuple(c), tuple(v1), tuple(v2)
    for name, s in (("vec1", v1), ("vec2", v2)):
        if len(s) != 1:
            raise shape_error("matmul", f"addr: Expected 1-D argument {name}, but got {len(s)}-D",
                       "RuntimeError", c, v1, v2)
    return Result.of(_expand_to(c, (v1[0], v2[0])))


def baddbmm(c: Shape, a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.baddbmm: c + bmm(a, b); c is expanded to the product's shape before bmm's checks."""
    c, a, b = tuple(c), tuple(a), tuple(b)
    target = (torch_size(a, 0), torch_size(a, 1), torch_size(b, 2))
    _expand_to(c, target)
    return Result.of(_bmm_check(a, b))


def addbmm(c: Shape, a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.addbmm: c + sum over the batch of bmm(a, b); only c broadcasts."""
    c, a, b = tuple(c), tuple(a), tuple(b)
    target = (torch_size(a, 1), torch_size(b, 2))
    _expand_to(c, target)
    if len(a) != 3:
        raise shape_error("matmul", "batch1 must be a 3D tensor", "RuntimeError", a, b)
    if len(b) != 3:
        raise shape_error("matmul", "batch2 must be a 3D tensor", "RuntimeError", a, b)
    if differ(a[0], b[0]):
        raise shape_error("matmul", "batch1 and batch2 must have same number of batches, got "
                   f"{a[0]} and {b[0]}", "RuntimeError", a, b)
    if differ(a[2], b[1]):
        raise shape_error("matmul", f"Incompatible matrix sizes for bmm ({a[1]}x{a[2]} and "
                   f"{b[1]}x{b[2]})", "RuntimeError", a, b)
    return Result.of(target)


__all__ = ["matmul", "mm", "mv", "bmm", "dot", "vdot", "inner", "outer", "ger", "addmm", "addmv", "addr", "baddbmm", "addbmm"]
