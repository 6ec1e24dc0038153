"""Where a view op's output sits in its input's storage: one layout function per view op.

A layout function takes the input's Layout, the output's shape (ints, as the op's
shape rule computed it) and the op's other call arguments in the op's own order
(the op table's calling convention), and returns the output's Layout, or None
when the op cannot view this layout: then a "maybe" op (reshape, ravel,
flatten, contiguous) copies, and torch's ``view`` raises. The op table
registers them (``OpSpec.layout``); ``ops.output_layout`` calls them.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .arguments import ArrayArg, index_items, kw, shape_of, size_args
from .dialects import Dialect
from .dims import shape_is_concrete
from .layout import Layout, torch_view_strides
from .rules import indexing as _ix

LayoutFn = Callable[..., "Layout | None"]


def _axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise IndexError(axis)
    return axis % ndim


def same(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """detach, real, ndarray.view(): the very elements of the input."""
    return x


def reshaped(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout | None:
    """view / reshape / ravel / flatten: the input's elements in C order under a new shape,
    possible only where the dims merged or split are contiguous with each other."""
    strides = torch_view_strides(x.shape, x.strides, tuple(out))
    return None if strides is None else Layout(x.offset, tuple(out), strides)


def contiguous(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout | None:
    """contiguous / ascontiguousarray: the input itself when it is already C-contiguous."""
    return x if x.is_contiguous() else None


def reversed_dims(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """``.T`` (and ``np.transpose`` without axes)."""
    return x.permute(tuple(reversed(range(len(x.shape)))))


def matrix_transpose(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """``.mT``: the last two dims swapped."""
    n = len(x.shape)
    if n < 2:
        raise ValueError("mT needs two dims")
    return x.transpose(n - 2, n - 1)


def torch_t(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """``t()``: 0-d and 1-d tensors are returned as they are."""
    return x if len(x.shape) < 2 else x.transpose(0, 1)


def numpy_transpose(x: Layout, out: Sequence[int], *axes: Any, **kwargs: Any) -> Layout:
    order = size_args(axes) if axes else kw(kwargs, "axes")
    if not order:
        return reversed_dims(x, out)
    return x.permute(tuple(_axis(a, len(x.shape)) for a in order))


def permute(x: Layout, out: Sequence[int], *dims: Any, **kwargs: Any) -> Layout:
    order = size_args(dims) if dims else tuple(kw(kwargs, "dims", "axes", default=()))
    return x.permute(tuple(_axis(a, len(x.shape)) for a in order))


def swap(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """torch ``transpose(d0, d1)``, ``swapaxes`` / ``swapdims`` in both libraries."""
    a = args[0] if args else kw(kwargs, "dim0", "axis1")
    b = args[1] if len(args) > 1 else kw(kwargs, "dim1", "axis2")
    n = len(x.shape)
    if n == 0 and a in (0, -1) and b in (0, -1):
        return x
    return x.transpose(_axis(a, n), _axis(b, n))


def moveaxis(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    source = args[0] if args else kw(kwargs, "source")
    destination = args[1] if len(args) > 1 else kw(kwargs, "destination")
    n = len(x.shape)
    src = [_axis(a, n) for a in (source if isinstance(source, (tuple, list)) else (source,))]
    dst = [_axis(a, n) for a in (destination if isinstance(destination, (tuple, list))
                                 else (destination,))]
    if len(src) != len(dst):
        raise ValueError("moveaxis needs as many sources as destinations")
    order = [d for d in range(n) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x.permute(tuple(order))


def squeeze(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """The unit dims the shape rule removed, taken out of the layout."""
    which = args[0] if args else kw(kwargs, "axis", "dim")
    n = len(x.shape)
    if which is None:
        drop = [d for d in range(n) if x.shape[d] == 1]
    else:
        axes = which if isinstance(which, (tuple, list)) else (which,)
        drop = [d for d in (_axis(a, max(n, 1)) for a in axes) if d < n and x.shape[d] == 1]
    for d in sorted(set(drop), reverse=True):
        x = x.squeeze(d)
    if x.shape != tuple(out):
        raise ValueError("squeeze layout disagrees with the shape rule")
    return x


def unsqueeze(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    dim = args[0] if args else kw(kwargs, "dim")
    return x.unsqueeze(dim % (len(x.shape) + 1))


def expand_dims(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """np.expand_dims: each axis is a position in the output."""
    axis = args[0] if args else kw(kwargs, "axis")
    axes = sorted(_axis(a, len(out)) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    for a in axes:
        x = x.unsqueeze(a)
    return x


def expand(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """expand / expand_as / broadcast_to: stretched and new dims get stride 0."""
    return x.expand(tuple(out))


def diagonal(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    names = (("offset",), ("dim1", "axis1"), ("dim2", "axis2"))
    offset, dim1, dim2 = [args[i] if len(args) > i else kw(kwargs, *names[i], default=(0, 0, 1)[i])
                          for i in range(3)]
    n = len(x.shape)
    return x.diagonal(offset, _axis(dim1, n), _axis(dim2, n))


def narrow(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    dim = args[0] if args else kw(kwargs, "dim")
    start = args[1] if len(args) > 1 else kw(kwargs, "start")
    length = args[2] if len(args) > 2 else kw(kwargs, "length")
    d = _axis(dim, len(x.shape))
    if start < 0:
        start += x.shape[d]
    return x.slice(d, start, start + length, 1)


def select(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    dim = args[0] if args else kw(kwargs, "dim")
    index = args[1] if len(args) > 1 else kw(kwargs, "index")
    d = _axis(dim, len(x.shape))
    if not -x.shape[d] <= index < x.shape[d]:
        raise IndexError(index)
    return x.select(d, index)


def unfold(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """torch ``unfold(dim, size, step)``: windows along dim, each window a new last dim."""
    dim = args[0] if args else kw(kwargs, "dimension", "dim")
    size = args[1] if len(args) > 1 else kw(kwargs, "size")
    step = args[2] if len(args) > 2 else kw(kwargs, "step")
    if not x.shape:
        return Layout(x.offset, (size,), (1,))
    d = _axis(dim, len(x.shape))
    shape = list(x.shape)
    strides = list(x.strides)
    shape[d] = (x.shape[d] - size) // step + 1
    strides[d] = x.strides[d] * step
    return Layout(x.offset, tuple(shape) + (size,), tuple(strides) + (x.strides[d],))


def as_strided(x: Layout, out: Sequence[int], size: Any, stride: Any, *args: Any,
               **kwargs: Any) -> Layout:
    """torch ``as_strided(size, stride, storage_offset)``: positions in the storage itself."""
    offset = args[0] if args else kw(kwargs, "storage_offset")
    return Layout(x.offset if offset is None else offset, tuple(size), tuple(stride))


def broadcast_numpy(x: Layout, out: Sequence[int], *args: Any, **kwargs: Any) -> Layout:
    """np.broadcast_to: NumPy gives every broadcast dim stride 0, even one that stays 1."""
    lead = len(out) - len(x.shape)
    strides = (0,) * lead + tuple(0 if own == 1 else stride
                                  for own, stride in zip(x.shape, x.strides))
    return Layout(x.offset, tuple(out), strides)


def getitem(x: Layout, out: Sequence[int], key: Any, *args: Any, **kwargs: Any) -> Layout | None:
    return x.index(key)


# --------------------------------------------------------------------------
# one call: what it returns and where that sits (``spec`` is an ops.OpSpec; the op table
# imports this module, so it is not imported here)

def call_view_kind(spec: Any, args: tuple, kwargs: dict, dialect: Dialect | None = None) -> str:
    """The view kind of one call, where its arguments decide it.

    ``x[idx]`` is a view for basic indices and a copy for advanced or
    boolean ones (and, in NumPy, for integers selecting a single element,
    which give a scalar); ``astype(..., copy=False)`` may return the same
    object, while ``astype`` copies by default.
    """
    if spec.name == "__getitem__" and len(args) > 1:
        items = index_items(args[1])
        if not _ix.index_is_view(items, dialect):
            return "none"
        ndim = len(shape_of(args[0]))
        # Only integers, one per dim, give NumPy a scalar; ``a[0, ...]`` is a 0-d view.
        if (dialect is None or dialect.is_numpy) and ndim and len(items) == ndim and \
                all(isinstance(i, _ix.IntIndex) for i in items):
            return "none"
        return spec.view_kind
    if spec.name == "astype" and kwargs.get("copy") is False:
        return "same"
    return spec.view_kind


def output_layout(spec: Any, args: tuple, kwargs: dict, dialect: Dialect,
                  shape: tuple | None = None) -> Layout | None:
    """Where the output of one call sits in input 0's storage.

    ``args[0]`` is an ArrayArg whose ``layout`` is known; ``shape`` is the
    output's shape when the caller has it (else the op's rule computes it).
    None when the output is a copy, when the layout or the output's int shape
    is unknown, or when the op cannot view this layout: a "maybe" op
    (reshape, ravel, flatten, contiguous) then copies, and torch's ``view``
    raises (``view_error``).
    """
    if spec.layout is None or not args or not isinstance(args[0], ArrayArg) or \
            args[0].layout is None:
        return None
    try:
        if call_view_kind(spec, args, kwargs, dialect) == "none":
            return None
        if shape is None:
            shape = tuple(spec.rule(*args, dialect=dialect, **kwargs).shape)
        if not all(isinstance(d, int) for d in shape):
            return None
        return spec.layout(args[0].layout, tuple(shape), *args[1:], **kwargs)
    except Exception:  # arguments the layout cannot read, or a call the rule refuses: unknown
        return None


def resolved_view_kind(spec: Any, args: tuple, kwargs: dict, dialect: Dialect) -> str:
    """``call_view_kind``, with "maybe" decided when input 0's layout is known: "view" when the
    op can view that layout, "none" (a copy) when it cannot."""
    kind = call_view_kind(spec, args, kwargs, dialect)
    if kind == "maybe" and spec.layout is not None and args and isinstance(args[0], ArrayArg) \
            and args[0].layout is not None and shape_is_concrete(args[0].shape):
        return "view" if output_layout(spec, args, kwargs, dialect) is not None else "none"
    return kind


__all__ = ["LayoutFn", "same", "reshaped", "contiguous", "reversed_dims", "matrix_transpose",
           "torch_t", "numpy_transpose", "permute", "swap", "moveaxis", "squeeze", "unsqueeze",
           "expand_dims", "expand", "broadcast_numpy", "diagonal", "narrow", "select", "unfold", "as_strided",
           "getitem", "call_view_kind", "output_layout", "resolved_view_kind"]
