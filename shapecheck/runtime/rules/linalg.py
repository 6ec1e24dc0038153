"""Shape rules of matrix products, fused BLAS, einsum, tensordot, batched LAPACK and solve.

Each rule answers what NumPy 2 or PyTorch would do with arrays of the given
shapes: the result shape(s), or the library's own error text. Batch dims and
the add of the fused ops broadcast through rules.broadcast; everything else
(core dims of products, square matrices) must match exactly. Ops that exist
only in PyTorch (mm, bmm, addmm, ...) follow PyTorch under every dialect.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import NUMPY as NUMPY_DIALECT, TORCH, Dialect
from ..dims import (UNKNOWN, Dim, Maybe, Shape, dims_equal, either, eq, is_one, is_zero,
                    numel, product)
from ..verdicts import Result, ShapeError
from .broadcast import broadcast_dim, broadcast_pair, broadcast_shapes

# --------------------------------------------------------------------------- formatting


def _np_shape(shape: Shape) -> str:
    """NumPy's shape text in error messages: ``(2,3)``, ``(3,)``, ``()``."""
    body = [str(d) for d in shape]
    if len(body) == 1:
        return f"({body[0]},)"
    return "(" + ",".join(body) + ")"


def _np_remap(dims: Sequence[Dim | None]) -> str:
    """An nditer remapped shape: None is ``newaxis``; leading newaxes are not printed.

    nditer writes the one-element form ``(3,)`` only when the remapped shape
    has a single axis in all, counting the newaxes it left out.
    """
    items = list(dims)
    total = len(items)
    while items and items[0] is None:
        items.pop(0)
    if not items:
        return "()"
    body = ",".join("newaxis" if d is None else str(d) for d in items)
    return f"({body},)" if total == 1 else f"({body})"


def _torch_list(shape: Shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _err(kind: str, message: str, exc_type: str, *shapes: Shape) -> ShapeError:
    return ShapeError(kind, message, exc_type, shapes=tuple(tuple(s) for s in shapes))


def _differ(a: Dim, b: Dim) -> bool:
    """True only when two dims are certainly different."""
    return eq(a, b) is False


# --------------------------------------------------------------------------- NumPy gufuncs


def _np_gufunc_loop(operands: Sequence[tuple[Shape, int]], out_core: Shape, kind: str) -> Shape:
    """Broadcast the loop (batch) dims of a gufunc's operands, NumPy's nditer message on failure.

    operands are (shape, number of core dims); out_core the output's core dims,
    which nditer prints as the "requested shape".
    """
    batches = [tuple(s[:len(s) - ncore]) for s, ncore in operands]
    acc: Shape = ()
    for batch in batches:
        out, _ = broadcast_pair(acc, batch)
        if out is None:
            parts = []
            for (s, _n), b in zip(operands, batches):
                parts.append(f"{_np_shape(s)}->{_np_remap(tuple(b) + (None,) * len(out_core))} ")
            requested = "(" + ",".join(str(d) for d in out_core) + ")"
            message = ("operands could not be broadcast together with remapped shapes "
                       "[original->remapped]: " + "".join(parts)
                       + f" and requested shape {requested}")
            raise _err(kind, message, "ValueError", *(s for s, _ in operands))
        acc = out
    return acc


def _np_core_too_small(name: str, index: int, shape: Shape, signature: str, needed: int,
                       kind: str) -> ShapeError:
    return _err(kind, f"{name}: Input operand {index} does not have enough dimensions (has "
                f"{len(shape)}, gufunc core with signature {signature} requires {needed})",
                "ValueError", shape)


def _np_core_mismatch(name: str, index: int, core_dim: int, signature: str, got: Dim,
                      expected: Dim, kind: str, *shapes: Shape) -> ShapeError:
    return _err(kind, f"{name}: Input operand {index} has a mismatch in its core dimension "
                f"{core_dim}, with gufunc signature {signature} (size {got} is different from "
                f"{expected})", "ValueError", *shapes)


# --------------------------------------------------------------------------- matmul family

_MATMUL_SIG = "(n?,k),(k,m?)->(n?,m?)"


def _np_matmul(a: Shape, b: Shape) -> Shape:
    for i, s in enumerate((a, b)):
        if len(s) < 1:
            raise _np_core_too_small("matmul", i, s, _MATMUL_SIG, 1, "matmul")
    k_a = a[-1]
    k_b = b[-2] if len(b) >= 2 else b[0]
    if _differ(k_a, k_b):
        raise _np_core_mismatch("matmul", 1, 0, _MATMUL_SIG, k_b, k_a, "matmul", a, b)
    out_core = ((a[-2],) if len(a) >= 2 else ()) + ((b[-1],) if len(b) >= 2 else ())
    ops = [(a, min(len(a), 2)), (b, min(len(b), 2))]
    batch = _np_gufunc_loop(ops, out_core, "matmul")
    return tuple(batch) + tuple(out_core)


def _torch_mm_check(a: Shape, b: Shape) -> Shape:
    if _differ(a[1], b[0]):
        raise _err("matmul", f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and "
                   f"{b[0]}x{b[1]})", "RuntimeError", a, b)
    return (a[0], b[1])


def _torch_mv_check(a: Shape, v: Shape) -> Shape:
    if _differ(a[1], v[0]):
        raise _err("matmul", f"size mismatch, got input ({a[0]}), mat ({a[0]}x{a[1]}), vec "
                   f"({v[0]})", "RuntimeError", a, v)
    return (a[0],)


def _torch_dot_check(a: Shape, b: Shape) -> Shape:
    if _differ(a[0], b[0]):
        raise _err("matmul", f"inconsistent tensor size, expected tensor [{a[0]}] and src "
                   f"[{b[0]}] to have the same number of elements, but got {a[0]} and {b[0]} "
                   "elements respectively", "RuntimeError", a, b)
    return ()


def _torch_matmul(a: Shape, b: Shape) -> Shape:
    da, db = len(a), len(b)
    if da == 0 or db == 0:
        raise _err("matmul", "both arguments to matmul need to be at least 1D, but they are "
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
    if _differ(m1, m2):
        count = product(batch)
        raise _err("matmul", "Expected size for first two dimensions of batch2 tensor to be: "
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
        raise _err("matmul", "self must be a matrix", "RuntimeError", a, b)
    if len(b) != 2:
        raise _err("matmul", "mat2 must be a matrix", "RuntimeError", a, b)
    return Result.of(_torch_mm_check(a, b))


def mv(a: Shape, v: Shape, *, dialect: Dialect) -> Result:
    """torch.mv: matrix times vector (implemented by torch as addmv into an empty result)."""
    a, v = tuple(a), tuple(v)
    if len(a) == 0:
        raise _err("matmul", "Dimension specified as 0 but tensor has no dimensions",
                   "IndexError", a, v)
    if not (len(a) == 2 and len(v) == 1):
        raise _err("matmul", f"vector + matrix @ vector expected, got 1, {len(a)}, {len(v)}",
                   "RuntimeError", a, v)
    return Result.of(_torch_mv_check(a, v))


def bmm(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.bmm: two stacks of matrices with the same batch size, no broadcasting."""
    a, b = tuple(a), tuple(b)
    return Result.of(_bmm_check(a, b))


def _bmm_check(a: Shape, b: Shape) -> Shape:
    if len(a) != 3:
        raise _err("matmul", "batch1 must be a 3D tensor", "RuntimeError", a, b)
    if len(b) != 3:
        raise _err("matmul", "batch2 must be a 3D tensor", "RuntimeError", a, b)
    if _differ(a[0], b[0]) or _differ(a[2], b[1]):
        raise _err("matmul", "Expected size for first two dimensions of batch2 tensor to be: "
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
    if _differ(a[-1], b[bdim]):
        raise _err("matmul", f"shapes {_np_shape(a)} and {_np_shape(b)} not aligned: {a[-1]} "
                   f"(dim {len(a) - 1}) != {b[bdim]} (dim {bdim})", "ValueError", a, b)
    rest_b = tuple(b[:-2]) + tuple(b[-1:]) if len(b) >= 2 else ()
    return Result.of(tuple(a[:-1]) + rest_b)


def _torch_1d_pair(a: Shape, b: Shape) -> Shape:
    if len(a) != 1 or len(b) != 1:
        raise _err("matmul", f"1D tensors expected, but got {len(a)}D and {len(b)}D tensors",
                   "RuntimeError", a, b)
    return _torch_dot_check(a, b)


def vdot(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """np.vdot flattens both (sizes must agree); torch.vdot takes two 1-D tensors."""
    a, b = tuple(a), tuple(b)
    if dialect.is_torch:
        return Result.of(_torch_1d_pair(a, b))
    na, nb = numel(a), numel(b)
    if _differ(na, nb):
        raise _err("matmul", f"cannot reshape array of size {nb} into shape ({na},)",
                   "ValueError", a, b)
    return Result.of(())


def inner(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """Sum over the last axes of both; a scalar operand multiplies instead."""
    a, b = tuple(a), tuple(b)
    if len(a) == 0 or len(b) == 0:
        if dialect.is_torch:
            return broadcast_shapes(a, b, dialect=TORCH)
        return Result.of(b if len(a) == 0 else a)
    if _differ(a[-1], b[-1]):
        if dialect.is_torch:
            raise _err("matmul", "inner() the last dimension must match on both input tensors "
                       f"but got shapes {_torch_list(a)} and {_torch_list(b)}", "RuntimeError",
                       a, b)
        # NumPy reports it as dot(a, b with its last two axes swapped).
        shown = tuple(b[:-2]) + (b[-1], b[-2]) if len(b) >= 2 else b
        bdim = max(len(b) - 2, 0)
        raise _err("matmul", f"shapes {_np_shape(a)} and {_np_shape(shown)} not aligned: {a[-1]} "
                   f"(dim {len(a) - 1}) != {b[-1]} (dim {bdim})", "ValueError", a, b)
    return Result.of(tuple(a[:-1]) + tuple(b[:-1]))


def outer(a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """np.outer flattens both; torch.outer / ger need two 1-D tensors."""
    a, b = tuple(a), tuple(b)
    if dialect.is_torch:
        for arg, s in (("self", a), ("vec2", b)):
            if len(s) != 1:
                raise _err("matmul", f"outer: Expected 1-D argument {arg}, but got {len(s)}-D",
                           "RuntimeError", a, b)
        return Result.of((a[0], b[0]))
    return Result.of((numel(a), numel(b)))


ger = outer


# --------------------------------------------------------------------------- fused BLAS (torch)


def _torch_size(shape: Shape, dim: int) -> Dim:
    """``t.size(dim)`` with torch's IndexError for a missing dim."""
    nd = len(shape)
    if nd == 0:
        raise _err("matmul", f"Dimension specified as {dim} but tensor has no dimensions",
                   "IndexError", shape)
    if not -nd <= dim < nd:
        raise _err("matmul", f"Dimension out of range (expected to be in range of [{-nd}, "
                   f"{nd - 1}], but got {dim})", "IndexError", shape)
    return shape[dim]


def _expand_to(c: Shape, target: Shape) -> Shape:
    """torch's expand of the added tensor to the product's shape (only c may grow)."""
    if len(c) > len(target):
        raise _err("broadcast", f"expand(torch.FloatTensor{{{_torch_list(c)}}}, size="
                   f"{_torch_list(target)}): the number of sizes provided ({len(target)}) must be "
                   f"greater or equal to the number of dimensions in the tensor ({len(c)})",
                   "RuntimeError", c, target)
    offset = len(target) - len(c)
    for i in range(len(target) - 1, offset - 1, -1):
        have, want = c[i - offset], target[i]
        out, failed = broadcast_dim(have, want)
        if failed or eq(out, want) is False:
            raise _err("broadcast", f"The expanded size of the tensor ({want}) must match the "
                       f"existing size ({have}) at non-singleton dimension {i}.  Target sizes: "
                       f"{_torch_list(target)}.  Tensor sizes: {_torch_list(c)}",
                       "RuntimeError", c, target)
    return tuple(target)


def addmm(c: Shape, a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.addmm: c + a @ b with a, b matrices; only c broadcasts (it is expanded)."""
    c, a, b = tuple(c), tuple(a), tuple(b)
    for name, s in (("mat1", a), ("mat2", b)):
        if len(s) != 2:
            raise _err("matmul", f"{name} must be a matrix, got {len(s)}-D tensor",
                       "RuntimeError", a, b)
    out = _torch_mm_check(a, b)
    return Result.of(_expand_to(c, out))


def addmv(c: Shape, a: Shape, v: Shape, *, dialect: Dialect) -> Result:
    """torch.addmv: c + a @ v; c is a scalar, one element, or exactly a's row count."""
    c, a, v = tuple(c), tuple(a), tuple(v)
    if not (len(a) == 2 and len(v) == 1 and len(c) <= 1):
        raise _err("matmul", f"vector + matrix @ vector expected, got {len(c)}, {len(a)}, "
                   f"{len(v)}", "RuntimeError", c, a, v)
    nc = numel(c)
    size_ok = either(eq(a[0], nc), is_one(nc))
    if _differ(a[1], v[0]) or size_ok is False:
        c0 = _torch_size(c, 0)
        raise _err("matmul", f"size mismatch, got input ({c0}), mat ({a[0]}x{a[1]}), vec "
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
            raise _err("matmul", f"addr: Expected 1-D argument {name}, but got {len(s)}-D",
                       "RuntimeError", c, v1, v2)
    return Result.of(_expand_to(c, (v1[0], v2[0])))


def baddbmm(c: Shape, a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.baddbmm: c + bmm(a, b); c is expanded to the product's shape before bmm's checks."""
    c, a, b = tuple(c), tuple(a), tuple(b)
    target = (_torch_size(a, 0), _torch_size(a, 1), _torch_size(b, 2))
    _expand_to(c, target)
    return Result.of(_bmm_check(a, b))


def addbmm(c: Shape, a: Shape, b: Shape, *, dialect: Dialect) -> Result:
    """torch.addbmm: c + sum over the batch of bmm(a, b); only c broadcasts."""
    c, a, b = tuple(c), tuple(a), tuple(b)
    target = (_torch_size(a, 1), _torch_size(b, 2))
    _expand_to(c, target)
    if len(a) != 3:
        raise _err("matmul", "batch1 must be a 3D tensor", "RuntimeError", a, b)
    if len(b) != 3:
        raise _err("matmul", "batch2 must be a 3D tensor", "RuntimeError", a, b)
    if _differ(a[0], b[0]):
        raise _err("matmul", "batch1 and batch2 must have same number of batches, got "
                   f"{a[0]} and {b[0]}", "RuntimeError", a, b)
    if _differ(a[2], b[1]):
        raise _err("matmul", f"Incompatible matrix sizes for bmm ({a[1]}x{a[2]} and "
                   f"{b[1]}x{b[2]})", "RuntimeError", a, b)
    return Result.of(target)


# --------------------------------------------------------------------------- einsum

_ELLIPSIS = "..."


def _np_parse_operand(sub: str, ndim: int, index: int) -> list[str]:
    """One operand's labels as NumPy reads them; "..." stands for the ellipsis."""
    labels: list[str] = []
    seen_ellipsis = False
    i = 0
    while i < len(sub):
        ch = sub[i]
        if ch.isascii() and ch.isalpha():
            if sum(1 for x in labels if x != _ELLIPSIS) >= ndim:
                raise _err("einsum", "einstein sum subscripts string contains too many "
                           f"subscripts for operand {index}", "ValueError")
            labels.append(ch)
        elif ch == ".":
            if seen_ellipsis or i + 2 >= len(sub) or sub[i + 1] != "." or sub[i + 2] != ".":
                raise _err("einsum", "einstein sum subscripts string contains a '.' that is not "
                           f"part of an ellipsis ('...') in operand {index}", "ValueError")
            i += 2
            seen_ellipsis = True
            labels.append(_ELLIPSIS)
        elif ch != " ":
            raise _err("einsum", f"invalid subscript '{ch}' in einstein sum subscripts string, "
                       "subscripts must be letters", "ValueError")
        i += 1
    if not seen_ellipsis and len(labels) != ndim:
        raise _err("einsum", "operand has more dimensions than subscripts given in einstein sum, "
                   "but no '...' ellipsis provided to broadcast the extra dimensions.",
                   "ValueError")
    return labels


def _expand_ellipsis(labels: list[str], ndim: int) -> list[str]:
    """Replace the ellipsis with one broadcast label per dim it covers, right-aligned.

    Broadcast dims are named "0", "1", ... counted from the right so operands
    with fewer of them line up as broadcasting does.
    """
    if _ELLIPSIS not in labels:
        return list(labels)
    pos = labels.index(_ELLIPSIS)
    count = ndim - (len(labels) - 1)
    covered = [f"#{count - 1 - j}" for j in range(count)]
    return labels[:pos] + covered + labels[pos + 1:]


def _combine(size: Dim, new: Dim) -> tuple[Dim, bool]:
    out, failed = broadcast_dim(size, new)
    return (size if out is None else out), failed


def _np_einsum(subscripts: str, shapes: tuple[Shape, ...]) -> Shape:
    nop = len(shapes)
    lhs_rest = subscripts
    op_labels: list[list[str]] = []
    for iop, shape in enumerate(shapes):
        length = len(lhs_rest)
        for j, ch in enumerate(lhs_rest):
            if ch in ",-":
                length = j
                break
        nxt = lhs_rest[length] if length < len(lhs_rest) else ""
        if iop == nop - 1 and nxt == ",":
            raise _err("einsum", "more operands provided to einstein sum function than specified "
                       "in the subscripts string", "ValueError", *shapes)
        if iop < nop - 1 and nxt != ",":
            raise _err("einsum", "fewer operands provided to einstein sum function than specified "
                       "in the subscripts string", "ValueError", *shapes)
        op_labels.append(_np_parse_operand(lhs_rest[:length], len(shape), iop))
        lhs_rest = lhs_rest[length + (1 if iop < nop - 1 else 0):]
    counts: dict[str, int] = {}
    for labels in op_labels:
        for lab in labels:
            if lab != _ELLIPSIS:
                counts[lab] = counts.get(lab, 0) + 1
    n_broadcast = max((len(s) - (len(lb) - 1) for s, lb in zip(shapes, op_labels)
                       if _ELLIPSIS in lb), default=0)
    bcast = [f"#{n_broadcast - 1 - j}" for j in range(n_broadcast)]
    if lhs_rest.startswith("->"):
        out_text = lhs_rest[2:]
        out_labels: list[str] = []
        out_ellipsis = False
        i = 0
        while i < len(out_text):
            ch = out_text[i]
            if ch.isascii() and ch.isalpha():
                if ch in out_text[i + 1:]:
                    raise _err("einsum", "einstein sum subscripts string includes output "
                               f"subscript '{ch}' multiple times", "ValueError", *shapes)
                if counts.get(ch, 0) == 0:
                    raise _err("einsum", "einstein sum subscripts string included output "
                               f"subscript '{ch}' which never appeared in an input",
                               "ValueError", *shapes)
                out_labels.append(ch)
            elif ch == ".":
                if (out_ellipsis or i + 2 >= len(out_text) or out_text[i + 1] != "."
                        or out_text[i + 2] != "."):
                    raise _err("einsum", "einstein sum subscripts string contains a '.' that is "
                               "not part of an ellipsis ('...') in the output", "ValueError",
                               *shapes)
                i += 2
                out_ellipsis = True
                out_labels.extend(bcast)
            elif ch != " ":
                raise _err("einsum", f"invalid subscript '{ch}' in einstein sum subscripts "
                           "string, subscripts must be letters", "ValueError", *shapes)
            i += 1
        if not out_ellipsis and n_broadcast > 0:
            raise _err("einsum", "output has more dimensions than subscripts given in einstein "
                       "sum, but no '...' ellipsis provided to broadcast the extra dimensions.",
                       "ValueError", *shapes)
    elif lhs_rest == "":
        out_labels = bcast + sorted(lab for lab, n in counts.items() if n == 1)
    else:
        raise _err("einsum", "einstein sum subscript string does not contain proper '->' "
                   "output specified", "ValueError", *shapes)
    # Repeated labels within one operand take the diagonal (sizes must be equal).
    views: list[tuple[list[str], Shape]] = []
    for iop, (shape, labels) in enumerate(zip(shapes, op_labels)):
        full = _expand_ellipsis(labels, len(shape))
        first: dict[str, Dim] = {}
        kept_labels, kept_dims = [], []
        # A lone operand whose labels all reach the output is first tried as a
        # view, which words the diagonal error differently until a summed label
        # shows that no view is possible.
        as_view = nop == 1
        for lab, d in zip(full, shape):
            if lab not in first and lab not in out_labels:
                as_view = False
            if lab in first:
                if _differ(first[lab], d):
                    where = "single operand" if as_view else f"operand {iop}"
                    raise _err("einsum", f"dimensions in {where} for collapsing index '{lab}' "
                               f"don't match ({first[lab]} != {d})", "ValueError", *shapes)
                continue
            first[lab] = d
            kept_labels.append(lab)
            kept_dims.append(d)
        views.append((kept_labels, tuple(kept_dims)))
    iter_labels = list(out_labels) + sorted(
        lab for lab in counts if lab not in out_labels)
    sizes: dict[str, Dim] = {}
    for labels, dims in views:
        for lab, d in zip(labels, dims):
            if lab not in sizes:
                sizes[lab] = d
                continue
            new, failed = _combine(sizes[lab], d)
            if failed:
                parts = []
                for vl, vd in views:
                    remap = [vd[vl.index(x)] if x in vl else None for x in iter_labels]
                    parts.append(f"{_np_shape(vd)}->{_np_remap(remap)} ")
                raise _err("einsum", "operands could not be broadcast together with remapped "
                           "shapes [original->remapped]: " + "".join(parts), "ValueError",
                           *shapes)
            sizes[lab] = new
    return tuple(sizes.get(lab, 1) for lab in out_labels)


def _torch_einsum(equation: str, shapes: tuple[Shape, ...]) -> Shape:
    num_ops = len(shapes)
    if num_ops == 0:
        raise _err("einsum", "einsum(): must provide at least one operand", "RuntimeError")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels: list[list[str]] = [[] for _ in shapes]
    ell_in_input = False
    curr = 0
    i = 0
    while i < len(lhs):
        ch = lhs[i]
        if ch == " ":
            pass
        elif ch == ".":
            if ell_in_input:
                raise _err("einsum", f"einsum(): found '.' for operand {curr} for which an "
                           "ellipsis was already found", "RuntimeError", *shapes)
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise _err("einsum", f"einsum(): found '.' for operand {curr} that is not part "
                           "of any ellipsis", "RuntimeError", *shapes)
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            ell_in_input = True
        elif ch == ",":
            curr += 1
            if curr >= num_ops:
                raise _err("einsum", "einsum(): fewer operands were provided than specified in "
                           "the equation", "RuntimeError", *shapes)
            ell_in_input = False
        else:
            if not (ch.isascii() and ch.isalpha()):
                raise _err("einsum", f"einsum(): invalid subscript given at index {i} in the "
                           "equation string, subscripts must be in [a-zA-Z]", "RuntimeError",
                           *shapes)
            op_labels[curr].append(ch)
        i += 1
    if curr != num_ops - 1:
        raise _err("einsum", "einsum(): more operands were provided than specified in the "
                   "equation", "RuntimeError", *shapes)
    counts: dict[str, int] = {}
    ell_num_dim = 0
    for iop, (shape, labels) in enumerate(zip(shapes, op_labels)):
        nlabels = sum(1 for lab in labels if lab != _ELLIPSIS)
        has_ell = _ELLIPSIS in labels
        for lab in labels:
            if lab != _ELLIPSIS:
                counts[lab] = counts.get(lab, 0) + 1
        if has_ell:
            ell_num_dim = max(ell_num_dim, len(shape) - nlabels)
        if (nlabels > len(shape)) if has_ell else (nlabels != len(shape)):
            verb = "is more than" if has_ell else "does not match"
            tail = "" if has_ell else " and no ellipsis was given"
            raise _err("einsum", f"einsum(): the number of subscripts in the equation ({nlabels}) "
                       f"{verb} the number of dimensions ({len(shape)}) for operand {iop}{tail}",
                       "RuntimeError", *shapes)
    bcast = [f"#{ell_num_dim - 1 - j}" for j in range(ell_num_dim)]
    if arrow < 0:
        out_labels = bcast + sorted(lab for lab, n in counts.items() if n == 1)
    else:
        rhs = equation[arrow + 2:]
        out_labels = []
        ell_in_output = False
        i = 0
        while i < len(rhs):
            ch = rhs[i]
            if ch == " ":
                pass
            elif ch == ".":
                if ell_in_output:
                    raise _err("einsum", "einsum(): found '.' for output but an ellipsis (...) "
                               "was already found", "RuntimeError", *shapes)
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise _err("einsum", "einsum(): found '.' for output that is not part of any "
                               "ellipsis (...)", "RuntimeError", *shapes)
                i += 2
                out_labels.extend(bcast)
                ell_in_output = True
            else:
                if not (ch.isascii() and ch.isalpha()):
                    raise _err("einsum", f"einsum(): invalid subscript given at index "
                               f"{len(lhs) + 2 + i} in the equation string, subscripts must be "
                               "in [a-zA-Z]", "RuntimeError", *shapes)
                if counts.get(ch, 0) == 0 or ch in out_labels:
                    what = ("appears more than once in the output" if ch in out_labels
                            else "does not appear in the equation for any input operand")
                    raise _err("einsum", f"einsum(): output subscript {ch} {what}",
                               "RuntimeError", *shapes)
                out_labels.append(ch)
            i += 1
    sizes: dict[str, Dim] = {}
    for iop, (shape, labels) in enumerate(zip(shapes, op_labels)):
        full = _expand_ellipsis(labels, len(shape))
        seen: dict[str, int] = {}
        for dim, (lab, d) in enumerate(zip(full, shape)):
            if lab in seen:
                prev = shape[seen[lab]]
                if _differ(d, prev):
                    raise _err("einsum", f"einsum(): subscript {lab} is repeated for operand "
                               f"{iop} but the sizes don't match, {d} != {prev}", "RuntimeError",
                               *shapes)
                continue
            seen[lab] = dim
            if is_one(d) is True:
                continue
            before = sizes.get(lab, 1)
            new, failed = _combine(before, d)
            if failed:
                if lab.startswith("#"):
                    raise _err("einsum", f"einsum(): dimension {dim} covered by ellipsis in "
                               f"operand {iop}has size {d} which does not broadcast with "
                               f"previously seen ellipsis with size {before} for the respective "
                               "dimension", "RuntimeError", *shapes)
                raise _err("einsum", f"einsum(): subscript {lab} has size {d} for operand {iop} "
                           f"which does not broadcast with previously seen size {before}",
                           "RuntimeError", *shapes)
            sizes[lab] = new
    return tuple(sizes.get(lab, 1) for lab in out_labels)


def einsum(subscripts: str, *shapes: Shape, dialect: Dialect) -> Result:
    """np.einsum / torch.einsum: explicit or implicit output, '...', repeated labels (diagonals).

    A label's sizes across operands broadcast (size 1 stretches) in both
    libraries; repeated labels within one operand must match exactly.
    """
    shapes = tuple(tuple(s) for s in shapes)
    if dialect.is_numpy:
        return Result.of(_np_einsum(subscripts, shapes))
    return Result.of(_torch_einsum(subscripts, shapes))


# --------------------------------------------------------------------------- tensordot


def tensordot(a: Shape, b: Shape, axes: int | tuple = 2, *, dialect: Dialect) -> Result:
    """Contract a's and b's listed axes (int N: a's last N with b's first N)."""
    a, b = tuple(a), tuple(b)
    if dialect.is_torch:
        return Result.of(_torch_tensordot(a, b, axes))
    return Result.of(_np_tensordot(a, b, axes))


def _as_list(axes) -> list[int]:
    if isinstance(axes, int):
        return [axes]
    return list(axes)


def _np_tensordot(a: Shape, b: Shape, axes) -> Shape:
    if isinstance(axes, int):
        axes_a, axes_b = list(range(-axes, 0)), list(range(0, axes))
    else:
        axes_a, axes_b = _as_list(axes[0]), _as_list(axes[1])
    nda, ndb = len(a), len(b)
    for axes_list in (axes_a, axes_b):
        if len(set(axes_list)) != len(axes_list):
            raise _err("matmul", "duplicate axes are not allowed in tensordot", "ValueError", a, b)
    if len(axes_a) != len(axes_b):
        raise _err("matmul", "shape-mismatch for sum", "ValueError", a, b)
    for k in range(len(axes_a)):
        for ax, shape in ((axes_a[k], a), (axes_b[k], b)):
            if not -len(shape) <= ax < len(shape):
                raise _err("matmul", "tuple index out of range", "IndexError", a, b)
        if _differ(a[axes_a[k]], b[axes_b[k]]):
            raise _err("matmul", "shape-mismatch for sum", "ValueError", a, b)
        axes_a[k] %= nda
        axes_b[k] %= ndb
    for axes_list in (axes_a, axes_b):
        # -1 and n-1 name the same axis; numpy's transpose then refuses it.
        if len(set(axes_list)) != len(axes_list):
            raise _err("matmul", "axes don't match array", "ValueError", a, b)
    keep_a = [d for i, d in enumerate(a) if i not in axes_a]
    keep_b = [d for i, d in enumerate(b) if i not in axes_b]
    return tuple(keep_a + keep_b)


def _torch_tensordot(a: Shape, b: Shape, axes) -> Shape:
    if isinstance(axes, int):
        if axes < 0:
            raise _err("matmul", f"tensordot expects dims >= 0, but got dims={axes}",
                       "RuntimeError", a, b)
        if axes > min(len(a), len(b)):
            raise _err("matmul", f"tensordot expects dims < ndim_a or ndim_b, but got "
                       f"dims={axes}", "RuntimeError", a, b)
        dims_a, dims_b = list(range(-axes, 0)), list(range(axes))
    else:
        dims_a, dims_b = _as_list(axes[0]), _as_list(axes[1])
    if len(dims_a) != len(dims_b):
        raise _err("matmul", "both dimension lists should have same length", "RuntimeError", a, b)
    for da, db in zip(dims_a, dims_b):
        s1, s2 = _torch_size(a, da), _torch_size(b, db)
        # torch sums a size-1 side away first, so 1 contracts with anything.
        if is_one(s1) is True or is_one(s2) is True:
            continue
        if _differ(s1, s2) and is_one(s1) is False and is_one(s2) is False:
            raise _err("matmul", f"contracted dimensions need to match, but first has size {s1} "
                       f"in dim {da} and second has size {s2} in dim {db}", "RuntimeError", a, b)
    for dims_list, shape in ((dims_a, a), (dims_b, b)):
        seen: set[int] = set()
        for d in dims_list:
            wrapped = d % len(shape)
            if wrapped in seen:
                raise _err("matmul", f"dim {wrapped} appears multiple times in the list of dims",
                           "RuntimeError", a, b)
            seen.add(wrapped)
    drop_a = {d % len(a) for d in dims_a}
    drop_b = {d % len(b) for d in dims_b}
    return tuple(d for i, d in enumerate(a) if i not in drop_a) + tuple(
        d for i, d in enumerate(b) if i not in drop_b)


# --------------------------------------------------------------------------- LAPACK


def _stacked_matrix(a: Shape, name: str, dialect: Dialect, *, square: bool,
                    torch_name: str | None = None) -> None:
    """The shared checks: at least 2-D, and (for most ops) square in the last two dims."""
    label = f"linalg.{torch_name or name}"
    if len(a) < 2:
        if dialect.is_torch:
            raise _err("linalg", f"{label}: The input tensor A must have at least 2 dimensions.",
                       "RuntimeError", a)
        raise _err("linalg", f"{len(a)}-dimensional array given. Array must be at least "
                   "two-dimensional", "LinAlgError", a)
    if square and _differ(a[-1], a[-2]):
        if dialect.is_torch:
            raise _err("linalg", f"{label}: A must be batches of square matrices, but they are "
                       f"{a[-2]} by {a[-1]} matrices", "RuntimeError", a)
        raise _err("linalg", "Last 2 dimensions of the array must be square", "LinAlgError", a)


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
            raise _err("linalg", "qr received unrecognized mode '" + mode + "' but expected one "
                       "of 'reduced' (default), 'r', or 'complete'", "RuntimeError", a)
        raise _err("linalg", f"Unrecognized mode '{mode}'", "ValueError", a)
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
        raise _err("linalg", f"linalg.pinv(Float{{{_torch_list(a)}}}): expected a tensor with 2 "
                   "or more dimensions of float, double, cfloat or cdouble types",
                   "RuntimeError", a)
    if dialect.is_numpy and len(a) == 1 and is_zero(a[0]) is True:
        # numpy's shortcut for empty input unpacks the last two dims first.
        raise _err("linalg", "not enough values to unpack (expected 2, got 1)", "ValueError", a)
    _stacked_matrix(a, "pinv", dialect, square=False)
    return Result.of(a[:-2] + (a[-1], a[-2]))


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
        raise _np_core_too_small(name, 1, b, sig, ncore, "solve")
    bm = b[-1] if vector else b[-2]
    if _differ(bm, a[-2]):
        raise _np_core_mismatch(name, 1, 0, sig, bm, a[-2], "solve", a, b)
    out_core = (m,) if vector else (m, b[-1])
    batch = _np_gufunc_loop([(a, 2), (b, ncore)], out_core, "solve")
    return tuple(batch) + out_core


def _torch_solve(a: Shape, b: Shape, vector: bool, legacy: bool) -> Shape:
    b_mat = b + (1,) if vector or (legacy and len(b) == 1) else b
    if len(a) < 2:
        raise _err("solve", "linalg.solve: The input tensor A must have at least 2 dimensions.",
                   "RuntimeError", a, b)
    if _differ(a[-1], a[-2]):
        raise _err("solve", "linalg.solve: A must be batches of square matrices, but they are "
                   f"{a[-2]} by {a[-1]} matrices", "RuntimeError", a, b)
    if len(b_mat) < 2:
        raise _err("solve", "linalg.solve: The input tensor B must have at least 2 dimensions.",
                   "RuntimeError", a, b)
    if _differ(a[-2], b_mat[-2]):
        raise _err("solve", "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                   f"({a[-2]}x{a[-1]} and {b_mat[-2]}x{b_mat[-1]})", "RuntimeError", a, b)
    try:
        batch = broadcast_shapes(tuple(b_mat[:-2]), tuple(a[:-2]), dialect=TORCH).shape
    except ShapeError as exc:
        raise _err("solve", exc.message, exc.exc_type, a, b) from None
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


__all__ = [
    "matmul", "mm", "mv", "bmm", "dot", "vdot", "inner", "outer", "ger", "addmm", "addmv",
    "addr", "baddbmm", "addbmm", "einsum", "tensordot", "inv", "det", "slogdet", "eig", "eigh",
    "eigvals", "eigvalsh", "svd", "qr", "cholesky", "pinv", "solve", "solve_b_is_vector",
]
