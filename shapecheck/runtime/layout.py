"""Strided memory layouts of views: which elements a view touches, and whether
torch's ``.view()`` can reinterpret a layout without copying.

A layout is (offset, shape, strides) in elements of its root storage, as
NumPy and PyTorch keep them. Only concrete shapes have layouts; for symbolic
shapes the callers get None ("cannot tell").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .dims import Maybe

_ENUMERATE_LIMIT = 1_000_000


@dataclass(frozen=True)
class Layout:
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    @staticmethod
    def contiguous(shape: Sequence[int]) -> "Layout":
        strides = []
        step = 1
        for size in reversed(tuple(shape)):
            strides.append(step)
            step *= max(size, 1)
        return Layout(0, tuple(shape), tuple(reversed(strides)))

    @staticmethod
    def of(array: Any) -> "Layout":
        """The layout of a NumPy array (or anything with ``shape``/``strides``/``itemsize``) within
        its root storage, in elements of that root."""
        root = array
        while getattr(root, "base", None) is not None:
            root = root.base
        itemsize = array.itemsize
        start = _address(array) - _address(root) if isinstance(root, np.ndarray) else 0
        return Layout(start // itemsize, tuple(int(n) for n in array.shape),
                      tuple(int(st) // itemsize for st in array.strides))

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    def is_contiguous(self) -> bool:
        """C-contiguous as torch defines it (size-1 dims' strides do not matter)."""
        expected = 1
        for size, stride in zip(reversed(self.shape), reversed(self.strides)):
            if size == 1:
                continue
            if stride != expected:
                return self.numel == 0
            expected *= size
        return True

    def has_repeated_elements(self) -> bool:
        """Some element is reachable at two indices (a zero stride over a dim > 1, as expand makes)."""
        if self.numel <= 1:
            return False
        nonzero = [(abs(st), sz) for sz, st in zip(self.shape, self.strides) if sz > 1]
        if any(st == 0 for st, _ in nonzero):
            return True
        # Sorted by stride, each dim must step past everything the smaller ones span.
        span = 0
        for stride, size in sorted(nonzero):
            if stride <= span:
                return True
            span += stride * (size - 1)
        return False

    def addresses(self) -> np.ndarray:
        """Every element's position in the root (small layouts only)."""
        index = np.full((), self.offset, dtype=np.int64)
        for size, stride in zip(self.shape, self.strides):
            index = index[..., None] + np.arange(size, dtype=np.int64) * stride
        return index.reshape(-1)

    def bounds(self) -> tuple[int, int] | None:
        """[low, high] positions touched, or None when the view is empty."""
        if self.numel == 0:
            return None
        low = high = self.offset
        for size, stride in zip(self.shape, self.strides):
            extent = stride * (size - 1)
            if extent < 0:
                low += extent
            else:
                high += extent
        return low, high

    # -- view ops -------------------------------------------------------------

    def slice(self, dim: int, start: int, stop: int, step: int) -> "Layout":
        """``x[..., start:stop:step, ...]`` along dim, with python slice semantics."""
        size = self.shape[dim]
        begin, end, stride = slice(start, stop, step).indices(size)
        length = len(range(begin, end, stride))
        shape = list(self.shape)
        strides = list(self.strides)
        offset = self.offset + (begin * self.strides[dim] if length else 0)
        shape[dim] = length
        strides[dim] = self.strides[dim] * stride
        return Layout(offset, tuple(shape), tuple(strides))

    def select(self, dim: int, index: int) -> "Layout":
        """``x[..., index, ...]``: drops dim."""
        index = index % self.shape[dim] if self.shape[dim] else index
        offset = self.offset + index * self.strides[dim]
        shape = self.shape[:dim] + self.shape[dim + 1:]
        strides = self.strides[:dim] + self.strides[dim + 1:]
        return Layout(offset, shape, strides)

    def permute(self, order: Sequence[int]) -> "Layout":
        return Layout(self.offset, tuple(self.shape[i] for i in order),
                      tuple(self.strides[i] for i in order))

    def transpose(self, a: int, b: int) -> "Layout":
        order = list(range(len(self.shape)))
        order[a], order[b] = order[b], order[a]
        return self.permute(order)

    def unsqueeze(self, dim: int) -> "Layout":
        stride = self.strides[dim] * self.shape[dim] if dim < len(self.shape) else 1
        return Layout(self.offset, self.shape[:dim] + (1,) + self.shape[dim:],
                      self.strides[:dim] + (stride,) + self.strides[dim:])

    def squeeze(self, dim: int) -> "Layout":
        return Layout(self.offset, self.shape[:dim] + self.shape[dim + 1:],
                      self.strides[:dim] + self.strides[dim + 1:])

    def expand(self, shape: Sequence[int]) -> "Layout":
        """Broadcast to ``shape`` as torch's ``expand`` does (ATen's inferExpandGeometry):
        stretched dims get stride 0; a new dim of size 1 gets the stride a contiguous
        tensor would give it, and a longer new dim stride 0."""
        shape = tuple(shape)
        if not self.shape:
            return Layout(self.offset, shape, (0,) * len(shape))  # a 0-d tensor: all stride 0
        lead = len(shape) - len(self.shape)
        strides = [0] * len(shape)
        for i in range(len(shape) - 1, -1, -1):
            if i >= lead:
                own, stride = self.shape[i - lead], self.strides[i - lead]
            else:
                own = 1
                stride = shape[i + 1] * strides[i + 1] if i + 1 < len(shape) else 1
            strides[i] = stride if own == shape[i] else 0
        return Layout(self.offset, shape, tuple(strides))

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> "Layout":
        n1, n2 = self.shape[dim1], self.shape[dim2]
        if offset >= 0:
            length = max(0, min(n1, n2 - offset))
            start = self.offset + offset * self.strides[dim2]
        else:
            length = max(0, min(n1 + offset, n2))
            start = self.offset - offset * self.strides[dim1]
        keep = [i for i in range(len(self.shape)) if i not in (dim1, dim2)]
        shape = tuple(self.shape[i] for i in keep) + (length,)
        strides = tuple(self.strides[i] for i in keep) + (self.strides[dim1] + self.strides[dim2],)
        return Layout(start if length else self.offset, shape, strides)

    def index(self, key: Any) -> "Layout | None":
        """``x[key]`` for a basic index (ints, slices, None, ``...``, or a tuple of them): the
        view's layout, or None for an advanced, symbolic or out-of-range index."""
        parts = list(key) if isinstance(key, tuple) else [key]
        for part in parts:
            if not (part is None or part is Ellipsis or isinstance(part, slice) or
                    isinstance(part, (int, np.integer)) and not isinstance(part, bool)):
                return None
            if isinstance(part, slice) and not all(
                    v is None or isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                    for v in (part.start, part.stop, part.step)):
                return None
        real = sum(1 for p in parts if p is not None and p is not Ellipsis)
        if real > len(self.shape) or parts.count(Ellipsis) > 1:
            return None
        if Ellipsis in parts:
            at = parts.index(Ellipsis)
            parts[at:at + 1] = [slice(None)] * (len(self.shape) - real)
        parts += [slice(None)] * (len(self.shape) - sum(1 for p in parts if p is not None))
        layout, dim = self, 0
        for part in parts:
            if part is None:
                layout = layout.unsqueeze(dim)
                dim += 1
            elif isinstance(part, slice):
                if part.step == 0:
                    return None
                layout = layout.slice(dim, part.start, part.stop, 1 if part.step is None else part.step)
                dim += 1
            else:
                if not -layout.shape[dim] <= part < layout.shape[dim]:
                    return None
                layout = layout.select(dim, int(part))
        return layout

    def view_as(self, shape: Sequence[int]) -> "Layout | None":
        """torch ``.view(shape)``: the new layout, or None when torch refuses to view."""
        strides = torch_view_strides(self.shape, self.strides, tuple(shape))
        if strides is None:
            return None
        return Layout(self.offset, tuple(shape), strides)


def _address(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


def torch_view_strides(old_shape: Sequence[int], old_strides: Sequence[int],
                       new_shape: Sequence[int]) -> tuple[int, ...] | None:
    """Strides for viewing a layout with a new shape, or None when impossible.

    A port of PyTorch's ``computeStride`` (aten/src/ATen/TensorUtils.cpp):
    dims may be merged only where they are contiguous with each other.
    """
    old_shape, old_strides, new_shape = tuple(old_shape), tuple(old_strides), tuple(new_shape)
    if not old_shape:
        return (1,) * len(new_shape)  # a 0-d tensor views as any shape of one element
    numel = int(np.prod(old_shape, dtype=np.int64)) if old_shape else 1
    if numel == 0:
        if old_shape == new_shape:
            return old_strides
        return Layout.contiguous(new_shape).strides
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1] if old_strides else 1
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def overlap(a: Layout, b: Layout) -> Maybe:
    """Do two views of one root touch a common element?"""
    ba, bb = a.bounds(), b.bounds()
    if ba is None or bb is None:
        return False
    if ba[1] < bb[0] or bb[1] < ba[0]:
        return False
    if a.numel + b.numel > _ENUMERATE_LIMIT:
        return None
    return bool(np.intersect1d(a.addresses(), b.addresses(), assume_unique=False).size)


def same_elements_in_same_order(a: Layout, b: Layout) -> bool:
    """The two views are the same view (``x += x``): element i of one is element i of the other."""
    if a.shape != b.shape:
        return False
    if a == b:
        return True
    if a.numel > _ENUMERATE_LIMIT:
        return False
    return bool(np.array_equal(a.addresses(), b.addresses()))


def is_non_overlapping_and_dense(layout: Layout) -> bool:
    """torch's test: the layout is some permutation of a contiguous block."""
    if layout.numel == 0:
        return True
    dims = sorted((st, sz) for sz, st in zip(layout.shape, layout.strides) if sz != 1)
    expected = 1
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def torch_internal_overlap(layout: Layout) -> str:
    """ATen's ``has_internal_overlap``: "yes" when a zero stride spans a dim longer than 1 (as
    expand makes), "no" for a non-overlapping dense layout, else "too_hard" (torch lets
    in-place writes through unchecked)."""
    if any(stride == 0 and size > 1 for size, stride in zip(layout.shape, layout.strides)):
        return "yes"
    return "no" if is_non_overlapping_and_dense(layout) else "too_hard"


def torch_overlap_status(written: Layout, read: Layout, same_object: bool = False) -> str:
    """PyTorch's ``get_overlap_status``: "full", "partial", "no" or "too_hard".

    torch refuses an in-place op when the status is "partial". It only looks
    at views that are non-overlapping and dense; anything else is "too_hard"
    and goes through unchecked.
    """
    if same_object:
        return "full"
    if written.numel == 0 or read.numel == 0:
        return "no"
    if not (is_non_overlapping_and_dense(written) and is_non_overlapping_and_dense(read)):
        return "too_hard"
    a_begin, a_end = written.offset, written.offset + written.numel
    b_begin, b_end = read.offset, read.offset + read.numel
    if a_begin == b_begin and a_end == b_end:
        return "full" if written.strides == read.strides else "partial"
    if a_begin < b_end and b_begin < a_end:
        return "partial"
    return "no"


def partial_overlap(written: Layout, read: Layout) -> Maybe:
    """torch's refusal: the written and read views are different, overlapping, dense views."""
    return torch_overlap_status(written, read) == "partial"


# torch's CPU kernels walk an unchecked in-place op in increasing memory order of the output,
# loading and storing a run of at most this many elements of the inner loop at a time (two
# vectors of the widest lanes any supported CPU has, for the narrowest dtype).
_TORCH_RUN = 64
# Above this many elements torch splits the walk among threads, in no fixed order.
_TORCH_GRAIN = 32768


_SMALLEST_VECTOR_PAIR = 64
"""Bytes in two of the narrowest vectors torch's CPU kernels use (32 bytes on every build): an
inner loop shorter than this runs element by element, loading every input as it goes."""


def torch_reads_overwritten(written: Layout, read: Layout, itemsize: int | None = None,
                            copy: bool = False) -> bool:
    """torch lets an in-place op through unchecked ("too_hard" overlap), and some output element
    reads an element an earlier step of the walk has already written: the result is not the
    buffered one NumPy gives (``a[:, 1:] = a[:, :-1]`` smears the first column along each row,
    ``x -= x[:, :1]`` subtracts zeros after the first column).

    Only what is certain on every CPU, with one thread and positive strides. The vectorized
    kernels load a run of the input before storing it (a read written within the same run may
    or may not be loaded first: ``a[:, 1:] = a[:, :-1]`` of 17 float32 columns comes out right),
    and load an input broadcast along the inner loop once per inner loop; an inner loop shorter
    than any vector pair runs element by element. ``read`` may be broadcast to ``written``'s
    shape; ``itemsize`` unknown is taken as the widest (16 bytes). A copy's earlier write
    changes nothing when it copied an element onto itself."""
    if written.numel == 0 or written.numel > _TORCH_GRAIN or written.has_repeated_elements() or \
            any(st < 0 for st in written.strides + read.strides) or \
            not expands_to(read.shape, written.shape) or all(n <= 1 for n in written.shape):
        return False
    broadcast = read.shape != written.shape
    if broadcast:
        read = read.expand(written.shape)
    elif read.has_repeated_elements():
        return False
    inner_size, position = _walk(written, read)
    row = position // inner_size
    if broadcast:  # loaded once per inner loop: only an earlier loop's write is certain
        step = row
    else:  # the walk splits into (row, run of at most _TORCH_RUN elements in the row)
        step = row * (inner_size // _TORCH_RUN + 1) + (position % inner_size) // _TORCH_RUN
    per_element = inner_size * (itemsize or 16) < _SMALLEST_VECTOR_PAIR
    writer, hit = _writers(written, read)
    earlier = (step[writer] < step) | per_element & (position[writer] < position)
    if copy:
        earlier &= written.addresses()[writer] != read.addresses()[writer]  # it changed
    return bool(np.any(hit & earlier))


def expands_to(shape: Sequence[int], target: Sequence[int]) -> bool:
    """``shape`` expands to ``target`` (trailing dims equal or 1, none extra)."""
    return len(shape) <= len(target) and all(
        s in (1, t) for s, t in zip(tuple(shape)[::-1], tuple(target)[::-1]))


def _walk(written: Layout, read: Layout) -> tuple[int, np.ndarray]:
    """TensorIterator's walk of an in-place op: the size of its inner loop and every element's
    step in it, in the arrays' own index order. Dims go by the output's stride, innermost
    first; adjacent dims that both operands step through evenly merge into one."""
    dims = sorted((d for d in range(len(written.shape)) if written.shape[d] > 1),
                  key=lambda d: written.strides[d])
    loops: list[list[int]] = []
    for d in dims:
        if loops:
            inner = loops[-1]
            size = int(np.prod([written.shape[i] for i in inner]))
            if all(layout.strides[d] == layout.strides[inner[0]] * size
                   for layout in (written, read)):
                inner.append(d)
                continue
        loops.append([d])
    inner_size = int(np.prod([written.shape[i] for i in loops[0]])) if loops else 1
    position = np.zeros(written.shape, dtype=np.int64)
    scale = 1
    for d in dims:  # innermost first: it moves fastest
        shape = [1] * len(written.shape)
        shape[d] = written.shape[d]
        position = position + np.arange(written.shape[d]).reshape(shape) * scale
        scale *= written.shape[d]
    return inner_size, position.reshape(-1)


def _writers(written: Layout, read: Layout) -> tuple[np.ndarray, np.ndarray]:
    """For every element: which element of the walk writes the address it reads, and whether
    any does."""
    out_addresses, in_addresses = written.addresses(), read.addresses()
    order = np.argsort(out_addresses)
    sorted_addresses = out_addresses[order]
    at = np.clip(np.searchsorted(sorted_addresses, in_addresses), 0, len(order) - 1)
    return order[at], sorted_addresses[at] == in_addresses
