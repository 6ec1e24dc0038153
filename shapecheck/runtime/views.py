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

from .arguments import kw, size_args
from .layout import Layout, torch_view_strides

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


def getitem(x: Layout, out: Sequence[int], key: Any, *args: Any, **kwargs: Any) -> Layout | None:
    return x.index(key)


__all__ = ["LayoutFn", "same", "reshaped", "contiguous", "reversed_dims", "matrix_transpose",
           "torch_t", "numpy_transpose", "permute", "swap", "moveaxis", "squeeze", "unsqueeze",
           "expand_dims", "expand", "diagonal", "narrow", "select", "unfold", "as_strided",
           "getitem"]
