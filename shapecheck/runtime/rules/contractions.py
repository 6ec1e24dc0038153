"""Shape rules of einsum and tensordot, each parsed and checked the way NumPy 2 or PyTorch does.
"""

from __future__ import annotations

from ..dialects import Dialect
from ..dims import Dim, Shape, both, is_one, le
from ..verdicts import Result
from .broadcast import broadcast_dim
from .gufuncs import differ, np_remap, np_shape, shape_error, torch_size

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
                raise shape_error("einsum", "einstein sum subscripts string contains too many "
                           f"subscripts for operand {index}", "ValueError")
            labels.append(ch)
        elif ch == ".":
            if seen_ellipsis or i + 2 >= len(sub) or sub[i + 1] != "." or sub[i + 2] != ".":
                raise shape_error("einsum", "einstein sum subscripts string contains a '.' that is not "
                           f"part of an ellipsis ('...') in operand {index}", "ValueError")
            i += 2
            seen_ellipsis = True
            labels.append(_ELLIPSIS)
        elif ch != " ":
            raise shape_error("einsum", f"invalid subscript '{ch}' in einstein sum subscripts string, "
                       "subscripts must be letters", "ValueError")
        i += 1
    if not seen_ellipsis and len(labels) != ndim:
        raise shape_error("einsum", "operand has more dimensions than subscripts given in einstein sum, "
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
            raise shape_error("einsum", "more operands provided to einstein sum function than specified "
                       "in the subscripts string", "ValueError", *shapes)
        if iop < nop - 1 and nxt != ",":
            raise shape_error("einsum", "fewer operands provided to einstein sum function than specified "
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
                    raise shape_error("einsum", "einstein sum subscripts string includes output "
                               f"subscript '{ch}' multiple times", "ValueError", *shapes)
                if counts.get(ch, 0) == 0:
                    raise shape_error("einsum", "einstein sum subscripts string included output "
                               f"subscript '{ch}' which never appeared in an input",
                               "ValueError", *shapes)
                out_labels.append(ch)
            elif ch == ".":
                if (out_ellipsis or i + 2 >= len(out_text) or out_text[i + 1] != "."
                        or out_text[i + 2] != "."):
                    raise shape_error("einsum", "einstein sum subscripts string contains a '.' that is "
                               "not part of an ellipsis ('...') in the output", "ValueError",
                               *shapes)
                i += 2
                out_ellipsis = True
                out_labels.extend(bcast)
            elif ch != " ":
                raise shape_error("einsum", f"invalid subscript '{ch}' in einstein sum subscripts "
                           "string, subscripts must be letters", "ValueError", *shapes)
            i += 1
        if not out_ellipsis and n_broadcast > 0:
            raise shape_error("einsum", "output has more dimensions than subscripts given in einstein "
                       "sum, but no '...' ellipsis provided to broadcast the extra dimensions.",
                       "ValueError", *shapes)
    elif lhs_rest == "":
        out_labels = bcast + sorted(lab for lab, n in counts.items() if n == 1)
    else:
        raise shape_error("einsum", "einstein sum subscript string does not contain proper '->' "
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
                if differ(first[lab], d):
                    where = "single operand" if as_view else f"operand {iop}"
                    raise shape_error("einsum", f"dimensions in {where} for collapsing index '{lab}' "
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
                    parts.append(f"{np_shape(vd)}->{np_remap(remap)} ")
                raise shape_error("einsum", "operands could not be broadcast together with remapped "
                           "shapes [original->remapped]: " + "".join(parts), "ValueError",
                           *shapes)
            sizes[lab] = new
    return tuple(sizes.get(lab, 1) for lab in out_labels)


def _torch_einsum(equation: str, shapes: tuple[Shape, ...]) -> Shape:
    _, out_labels, sizes = _torch_einsum_labels(equation, shapes)
    return tuple(sizes.get(lab, 1) for lab in out_labels)


def _torch_einsum_labels(equation: str, shapes: tuple[Shape, ...]) -> tuple[list, list, dict]:
    """torch's parse: each operand's label per dim (ellipsis dims "#k"), the output's labels,
    and each label's (broadcast) size; raises torch's error for a bad equation."""
    num_ops = len(shapes)
    if num_ops == 0:
        raise shape_error("einsum", "einsum(): must provide at least one operand", "RuntimeError")
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
                raise shape_error("einsum", f"einsum(): found '.' for operand {curr} for which an "
                           "ellipsis was already found", "RuntimeError", *shapes)
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise shape_error("einsum", f"einsum(): found '.' for operand {curr} that is not part "
                           "of any ellipsis", "RuntimeError", *shapes)
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            ell_in_input = True
        elif ch == ",":
            curr += 1
            if curr >= num_ops:
                raise shape_error("einsum", "einsum(): fewer operands were provided than specified in "
                           "the equation", "RuntimeError", *shapes)
            ell_in_input = False
        else:
            if not (ch.isascii() and ch.isalpha()):
                raise shape_error("einsum", f"einsum(): invalid subscript given at index {i} in the "
                           "equation string, subscripts must be in [a-zA-Z]", "RuntimeError",
                           *shapes)
            op_labels[curr].append(ch)
        i += 1
    if curr != num_ops - 1:
        raise shape_error("einsum", "einsum(): more operands were provided than specified in the "
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
            raise shape_error("einsum", f"einsum(): the number of subscripts in the equation ({nlabels}) "
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
                    raise shape_error("einsum", "einsum(): found '.' for output but an ellipsis (...) "
                               "was already found", "RuntimeError", *shapes)
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise shape_error("einsum", "einsum(): found '.' for output that is not part of any "
                               "ellipsis (...)", "RuntimeError", *shapes)
                i += 2
                out_labels.extend(bcast)
                ell_in_output = True
            else:
                if not (ch.isascii() and ch.isalpha()):
                    raise shape_error("einsum", f"einsum(): invalid subscript given at index "
                               f"{len(lhs) + 2 + i} in the equation string, subscripts must be "
                               "in [a-zA-Z]", "RuntimeError", *shapes)
                if counts.get(ch, 0) == 0 or ch in out_labels:
                    what = ("appears more than once in the output" if ch in out_labels
                            else "does not appear in the equation for any input operand")
                    raise shape_error("einsum", f"einsum(): output subscript {ch} {what}",
                               "RuntimeError", *shapes)
                out_labels.append(ch)
            i += 1
    sizes: dict[str, Dim] = {}
    expanded = []
    for iop, (shape, labels) in enumerate(zip(shapes, op_labels)):
        full = _expand_ellipsis(labels, len(shape))
        expanded.append(full)
        seen: dict[str, int] = {}
        for dim, (lab, d) in enumerate(zip(full, shape)):
            if lab in seen:
                prev = shape[seen[lab]]
                if differ(d, prev):
                    raise shape_error("einsum", f"einsum(): subscript {lab} is repeated for operand "
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
                    raise shape_error("einsum", f"einsum(): dimension {dim} covered by ellipsis in "
                               f"operand {iop}has size {d} which does not broadcast with "
                               f"previously seen ellipsis with size {before} for the respective "
                               "dimension", "RuntimeError", *shapes)
                raise shape_error("einsum", f"einsum(): subscript {lab} has size {d} for operand {iop} "
                           f"which does not broadcast with previously seen size {before}",
                           "RuntimeError", *shapes)
            sizes[lab] = new
    return expanded, out_labels, sizes


def torch_einsum_clash(equation: str, shapes: tuple[Shape, ...]) -> bool | None:
    """Does torch contract two operands through bmm, which refuses two dtypes? It does when a
    label both operands have is summed away and its size is more than 1 (labels of size 1 are
    summed first) in each of them; an element-wise product promotes instead. None when the
    sizes decide."""
    labels, out_labels, _ = _torch_einsum_labels(equation, shapes)
    if len(labels) != 2:
        return None
    own = [dict(zip(reversed(ls), reversed(shape))) for ls, shape in zip(labels, shapes)]
    verdict: bool | None = False
    for lab in (set(labels[0]) & set(labels[1])) - set(out_labels):
        more = both(le(2, own[0][lab]), le(2, own[1][lab]))
        if more is True:
            return True
        if more is None:
            verdict = None
    return verdict


_SUBLIST_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def sublist_equation(parts: tuple) -> tuple[str, tuple] | None:
    """einsum's sublist form ``(a, [0, 1], b, [1, 2], [0, 2])`` as its equation and operands
    (``"ab,bc->ac"``, (a, b)); axis numbers 0..51 stand for letters, Ellipsis for "...".
    None when the parts are not that form."""
    def spelled(sublist: object) -> str | None:
        if not isinstance(sublist, (list, tuple)):
            return None
        out = ""
        for item in sublist:
            if item is Ellipsis:
                out += _ELLIPSIS
            elif isinstance(item, int) and not isinstance(item, bool) and \
                    0 <= item < len(_SUBLIST_LETTERS):
                out += _SUBLIST_LETTERS[item]
            else:
                return None
        return out

    operands, terms = [], []
    for k in range(0, len(parts) - 1, 2):
        term = spelled(parts[k + 1])
        if term is None or isinstance(parts[k], (list, tuple, str)):
            return None
        operands.append(parts[k])
        terms.append(term)
    equation = ",".join(terms)
    if len(parts) % 2:
        out = spelled(parts[-1])
        if out is None:
            return None
        equation += "->" + out
    return (equation, tuple(operands)) if operands else None


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
            raise shape_error("matmul", "duplicate axes are not allowed in tensordot", "ValueError", a, b)
    if len(axes_a) != len(axes_b):
        raise shape_error("matmul", "shape-mismatch for sum", "ValueError", a, b)
    for k in range(len(axes_a)):
        for ax, shape in ((axes_a[k], a), (axes_b[k], b)):
            if not -len(shape) <= ax < len(shape):
                raise shape_error("matmul", "tuple index out of range", "IndexError", a, b)
        if differ(a[axes_a[k]], b[axes_b[k]]):
            raise shape_error("matmul", "shape-mismatch for sum", "ValueError", a, b)
        axes_a[k] %= nda
        axes_b[k] %= ndb
    for axes_list in (axes_a, axes_b):
        # -1 and n-1 name the same axis; numpy's transpose then refuses it.
        if len(set(axes_list)) != len(axes_list):
            raise shape_error("matmul", "axes don't match array", "ValueError", a, b)
    keep_a = [d for i, d in enumerate(a) if i not in axes_a]
    keep_b = [d for i, d in enumerate(b) if i not in axes_b]
    return tuple(keep_a + keep_b)


def _torch_tensordot(a: Shape, b: Shape, axes) -> Shape:
    if isinstance(axes, int):
        if axes < 0:
            raise shape_error("matmul", f"tensordot expects dims >= 0, but got dims={axes}",
                       "RuntimeError", a, b)
        if axes > min(len(a), len(b)):
            raise shape_error("matmul", f"tensordot expects dims < ndim_a or ndim_b, but got "
                       f"dims={axes}", "RuntimeError", a, b)
        dims_a, dims_b = list(range(-axes, 0)), list(range(axes))
    else:
        dims_a, dims_b = _as_list(axes[0]), _as_list(axes[1])
    if len(dims_a) != len(dims_b):
        raise shape_error("matmul", "both dimension lists should have same length", "RuntimeError", a, b)
    for da, db in zip(dims_a, dims_b):
        s1, s2 = torch_size(a, da), torch_size(b, db)
        # torch sums a size-1 side away first, so 1 contracts with anything.
        if is_one(s1) is True or is_one(s2) is True:
            continue
        if differ(s1, s2) and is_one(s1) is False and is_one(s2) is False:
            raise shape_error("matmul", f"contracted dimensions need to match, but first has size {s1} "
                       f"in dim {da} and second has size {s2} in dim {db}", "RuntimeError", a, b)
    for dims_list, shape in ((dims_a, a), (dims_b, b)):
        seen: set[int] = set()
        for d in dims_list:
            wrapped = d % len(shape)
            if wrapped in seen:
                raise shape_error("matmul", f"dim {wrapped} appears multiple times in the list of dims",
                           "RuntimeError", a, b)
            seen.add(wrapped)
    drop_a = {d % len(a) for d in dims_a}
    drop_b = {d % len(b) for d in dims_b}
    return tuple(d for i, d in enumerate(a) if i not in drop_a) + tuple(
        d for i, d in enumerate(b) if i not in drop_b)


__all__ = ["einsum", "sublist_equation", "tensordot", "torch_einsum_clash"]
