"""Shape rules of reshape, view, flatten, ravel and of adding or removing unit dims.

Assumptions made for symbolic sizes (documented because verdicts rely on them):
- reshape's -1 divides by the known part with dims.exact_div, which assumes
  that part is non-zero (``(B, T, C) -> (B*T, -1)`` gives ``C``).
- squeeze() without an axis, and torch's squeeze(dim) of a dim that may or may
  not be 1, keep a symbolic dim (a rank cannot be UNKNOWN); the Result then
  carries a "squeeze-uncertain" warning.
"""

from __future__ import annotations

from typing import Sequence

from ..dialects import Dialect
from ..dims import (
    UNKNOWN,
    Dim,
    Shape,
    Sym,
    eq,
    exact_div,
    floordiv,
    is_one,
    is_zero,
    mul,
    numel,
    product,
)
from ..verdicts import Result, RuleWarning, ShapeError
from .axes import normalize_numpy_axis, numpy_axis_tuple, wrap_torch_dim
from .messages import torch_list


def _uncertain(kind: str, message: str) -> RuleWarning:
    return RuleWarning(kind, message)


# ---------------------------------------------------------------------------
# Reshape, view, flatten, ravel.
# ---------------------------------------------------------------------------


def _numpy_newshape_text(newshape: Sequence[Dim]) -> str:
    """numpy's convert_shape_to_string: leading unknowns dropped, others shown as newaxis."""
    vals = list(newshape)
    i = 0
    while i < len(vals) and isinstance(vals[i], int) and vals[i] < 0:
        i += 1
    if i == len(vals):
        return "()"
    parts = [str(vals[i])]
    parts += ["newaxis" if isinstance(v, int) and v < 0 else str(v) for v in vals[i + 1:]]
    body = ",".join(parts)
    return f"({body},)" if len(vals) == 1 else f"({body})"


def reshape(shape: Shape, newshape: Sequence[Dim] | Dim, *, dialect: Dialect, op: str = "reshape") -> Result:
    """x.reshape(newshape) / x.view(newshape): -1 inference, symbolic too.

    Whether the result is a view (reshape) or the call fails on a
    non-contiguous tensor (view) depends on strides and is not judged here.
    """
    shape = tuple(shape)
    if not isinstance(newshape, (tuple, list)):
        newshape = (newshape,)
    newshape = tuple(newshape)
    size = numel(shape)
    infer: int | None = None
    known: Dim = 1
    for i, d in enumerate(newshape):
        if isinstance(d, int) and d < 0:
            if dialect.is_torch and d != -1:
                raise ShapeError("reshape", f"invalid shape dimension {d} at index {i} of shape "
                                 f"{torch_list(newshape)}", "RuntimeError")
            if infer is not None:
                text = "only one dimension can be inferred" if dialect.is_torch \
                    else "can only specify one unknown dimension"
                raise ShapeError("reshape", text, "RuntimeError" if dialect.is_torch else "ValueError")
            infer = i
        else:
            known = mul(known, d)

    def mismatch() -> ShapeError:
        if dialect.is_torch:
            return ShapeError("reshape", f"shape '{torch_list(newshape)}' is invalid for input of size {size}",
                              "RuntimeError", shapes=(shape,))
        return ShapeError("reshape", f"cannot reshape array of size {size} into shape "
                          f"{_numpy_newshape_text(newshape)}", "ValueError", shapes=(shape,))

    if infer is None:
        if eq(size, known) is False:
            raise mismatch()
        return Result.of(newshape)
    known_zero = is_zero(known)
    if dialect.is_torch:
        if known_zero is True:
            if is_zero(size) is True:
                raise ShapeError("reshape", f"cannot reshape tensor of 0 elements into shape "
                                 f"{torch_list(newshape)} because the unspecified dimension size -1 can be "
                                 "any value and is ambiguous", "RuntimeError", shapes=(shape,))
            if is_zero(size) is False:
                raise mismatch()
    elif known_zero is True:
        raise mismatch()
    inferred = exact_div(size, known)
    if inferred is None:
        if isinstance(size, int) and isinstance(known, int) or _cofactors_differ(size, known):
            # (n, 45, h, w).view(n, -1, 4, h, w): 45 is no multiple of 4 for any n, h, w; and
            # when n*h*w is 0 the -1 is ambiguous, which both libraries refuse as well.
            raise mismatch()
        inferred = _cancel_div(size, known)
    out = list(newshape)
    out[infer] = inferred
    return Result.of(tuple(out))


def _monomial(d: Dim) -> tuple[int, list[str]] | None:
    if isinstance(d, int):
        return d, []
    if isinstance(d, Sym) and len(d.terms) == 1:
        mono, coeff = d.terms[0]
        return coeff, list(mono)
    return None


def _cofactors_differ(a: Dim, b: Dim) -> bool:
    """a and b are monomials with the same symbols, whose numbers do not divide."""
    ma, mb = _monomial(a), _monomial(b)
    if ma is None or mb is None or mb[0] <= 0 or ma[0] < 0:
        return False
    return sorted(ma[1]) == sorted(mb[1]) and ma[0] % mb[0] != 0


def _cancel_div(a: Dim, b: Dim) -> Dim:
    """a / b for monomials after cancelling common factors: (B*T*C) / (B*T*H) is C//H.

    The remaining quotient is an opaque floor division: the program is taken
    to be valid (H divides C), since a reshape error needs certainty.
    """
    ma, mb = _monomial(a), _monomial(b)
    if ma is None or mb is None or mb[0] == 0:
        return UNKNOWN
    from math import gcd
    ca, atoms_a = ma
    cb, atoms_b = mb
    rest_b = []
    for atom in atoms_b:
        if atom in atoms_a:
            atoms_a.remove(atom)
        else:
            rest_b.append(atom)
    g = gcd(ca, cb) or 1
    num = mul(ca // g, product(Sym.atom(x) for x in atoms_a))
    den = mul(cb // g, product(Sym.atom(x) for x in rest_b))
    if den == 1:
        return num
    return floordiv(num, den)


def view(shape: Shape, newshape: Sequence[Dim] | Dim, *, dialect: Dialect) -> Result:
    """torch's x.view(shape): reshape's size rule."""
    return reshape(shape, newshape, dialect=dialect, op="view")


def flatten(shape: Shape, start: int | str | None = None, end: int | None = None, *,
            dialect: Dialect, start_dim: int | None = None, end_dim: int | None = None,
            order: str | None = None) -> Result:
    """x.flatten() (numpy, always 1-D, in any order) / torch.flatten(x, start_dim, end_dim),
    the dims given by position or by keyword."""
    shape = tuple(shape)
    if dialect.is_numpy:
        # ndarray.flatten(order='C'): no dims, by position or keyword.
        if start_dim is not None or end_dim is not None:
            raise ShapeError("argument", "'start_dim' is an invalid keyword argument for this "
                             "function", "TypeError")
        if end is not None:
            raise ShapeError("argument", "flatten() takes from 0 to 1 positional arguments but "
                             "2 were given", "TypeError")
        if start is not None and not isinstance(start, str):
            raise ShapeError("argument", f"order must be str, not {type(start).__name__}",
                             "TypeError")
        return Result.of((numel(shape),))
    if order is not None:
        raise ShapeError("argument", "flatten() got an unexpected keyword argument 'order'",
                         "TypeError")
    start = (0 if start is None else start) if start_dim is None else start_dim
    end = (-1 if end is None else end) if end_dim is None else end_dim
    ndim = len(shape)
    s = wrap_torch_dim(start, ndim)
    e = wrap_torch_dim(end, ndim)
    if s > e:
        raise ShapeError("argument", "flatten() has invalid args: start_dim cannot come after end_dim",
                         "RuntimeError")
    if ndim == 0:
        return Result.of((1,))
    return Result.of(shape[:s] + (product(shape[s:e + 1]),) + shape[e + 1:])


def ravel(shape: Shape, *, dialect: Dialect) -> Result:
    """x.ravel(): always 1-D."""
    return Result.of((numel(tuple(shape)),))


# ---------------------------------------------------------------------------
# Adding and removing unit dims.
# ---------------------------------------------------------------------------


def squeeze(shape: Shape, axis: int | Sequence[int] | None = None, *, dialect: Dialect) -> Result:
    """x.squeeze(axis): numpy refuses a non-1 axis, torch leaves it alone."""
    shape = tuple(shape)
    ndim = len(shape)
    warnings: list[RuleWarning] = []
    if axis is None:
        out = []
        for d in shape:
            one = is_one(d)
            if one is None:
                warnings.append(_uncertain("squeeze-uncertain", f"kept dim {d}, assumed not to be 1"))
            if one is not True:
                out.append(d)
        return Result.of(tuple(out), *warnings)
    if dialect.is_torch:
        dims = (axis,) if isinstance(axis, int) else tuple(axis)
        wrapped: list[int] = []
        for d in dims:  # squeeze wraps and checks each dim in turn (dim_list_to_bitset)
            w = wrap_torch_dim(d, ndim)
            if w in wrapped:
                raise ShapeError("axis", f"dim {w} appears multiple times in the list of dims", "RuntimeError")
            wrapped.append(w)
        if ndim == 0:
            return Result.of(())
        out = []
        for i, d in enumerate(shape):
            one = is_one(d)
            if i in wrapped and one is None:
                warnings.append(_uncertain("squeeze-uncertain", f"kept dim {d}, assumed not to be 1"))
            if not (i in wrapped and one is True):
                out.append(d)
        return Result.of(tuple(out), *warnings)
    if isinstance(axis, int) and ndim == 0 and axis in (0, -1):
        return Result.of(())
    seen: list[int] = []
    for a in (axis,) if isinstance(axis, int) else axis:  # wrapped and checked in turn
        w = normalize_numpy_axis(a, ndim)
        if w in seen:
            raise ShapeError("axis", "duplicate value in 'axis'", "ValueError")
        seen.append(w)
    axes = tuple(seen)
    for a in axes:
        if is_one(shape[a]) is False:
            raise ShapeError("axis", "cannot select an axis to squeeze out which has size not equal to one",
                             "ValueError", dim=a)
    return Result.of(tuple(d for i, d in enumerate(shape) if i not in axes))


def expand_dims(shape: Shape, axis: int | Sequence[int], *, dialect: Dialect) -> Result:
    """np.expand_dims(x, axis); under torch, unsqueeze."""
    shape = tuple(shape)
    if dialect.is_torch:
        if not isinstance(axis, int):
            raise ShapeError("argument", "unsqueeze takes a single int dim", "TypeError")
        return unsqueeze(shape, axis, dialect=dialect)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out_ndim = len(axes) + len(shape)
    norm = numpy_axis_tuple(axes, out_ndim, "")
    it = iter(shape)
    return Result.of(tuple(1 if i in norm else next(it) for i in range(out_ndim)))


def unsqueeze(shape: Shape, dim: int, *, dialect: Dialect) -> Result:
    """x.unsqueeze(dim) (torch); under numpy, expand_dims."""
    shape = tuple(shape)
    if dialect.is_numpy:
        return expand_dims(shape, dim, dialect=dialect)
    w = wrap_torch_dim(dim, len(shape) + 1)
    return Result.of(shape[:w] + (1,) + shape[w:])


# ---------------------------------------------------------------------------
# Resizing: any shape, the element count may change.
# ---------------------------------------------------------------------------


def resize(shape: Shape, new_shape: Sequence[Dim], *, dialect: Dialect, op: str = "resize") -> Result:
    """np.resize(x, s), ndarray.resize(s) (in place) and torch's x.resize_(s): the array takes
    shape ``s`` whatever its element count (np.resize repeats the elements, the in-place
    ones keep the first and add zeros or uninitialized memory)."""
    new = tuple(new_shape)
    negative = [d for d in new if isinstance(d, int) and d < 0]
    if negative:
        if dialect.is_torch:  # torch's refusal depends on the other sizes (resize_(0, -1) runs)
            raise NotImplementedError("a negative size")
        message = ("all elements of `new_shape` must be non-negative" if op == "np.resize"
                   else "negative dimensions not allowed")
        raise ShapeError("argument", message, "ValueError")
    return Result.of(new)


__all__ = ["reshape", "view", "flatten", "ravel", "squeeze", "unsqueeze", "expand_dims", "resize"]
