"""NumPy implementations of each op under each library, looked up by op-table name.

The rules give the verdict; these compute the data, on NumPy arrays and
views, the way NumPy or PyTorch would (torch's expand, view, split, ... as
NumPy views with torch's argument conventions).
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Sequence

import numpy as np

from . import ops
from .dialects import Dialect
from .layout import Layout, torch_view_strides
from .operands import is_writeable
from .rules.messages import TORCH_VIEW_STRIDE
from .verdicts import ShapeError

# ----------------------------------------------------------------------------
# NumPy implementations of each op under each library

def implementation_of(name: str, dialect: Dialect) -> Callable[..., Any] | None:
    """NumPy code computing op ``name`` as the dialect's library does; None if there is none."""
    if dialect.is_torch:
        return _TORCH_IMPL.get(name)
    else:
        impl = _NUMPY_IMPL.get(name)
        if impl is not None:
            return impl
        if name.startswith("np."):
            target: Any = np
            for part in name.split(".")[1:]:
                target = getattr(target, part)
            return target
    return lambda self, *args, **kwargs: _call_method(self, name, args, kwargs)


def _call_method(self: Any, name: str, args: tuple, kwargs: dict) -> Any:
    attr = getattr(self, name)
    return attr(*args, **kwargs) if callable(attr) else attr


def _axis(dim: int, ndim: int) -> int:
    return dim % ndim if ndim else 0


def _torch_expand(x: np.ndarray, *sizes: Any) -> np.ndarray:
    sizes = ops.size_args(sizes)
    lead = len(sizes) - x.ndim
    target = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    strides = tuple(0 if i < lead or (x.shape[i - lead] == 1 and s != 1) else x.strides[i - lead]
                    for i, s in enumerate(target))
    return np.lib.stride_tricks.as_strided(x, shape=target, strides=strides,
                                           writeable=is_writeable(x))


def _torch_squeeze(x: np.ndarray, dim: Any = None) -> np.ndarray:
    if dim is None:
        return np.squeeze(x)
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = tuple(sorted({_axis(d, x.ndim) for d in dims if x.ndim and x.shape[_axis(d, x.ndim)] == 1}))
    return np.squeeze(x, axis=axes) if axes else x.view()


def _torch_flatten(x: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    if x.ndim == 0:
        return x.reshape(1)
    s, e = _axis(start_dim, x.ndim), _axis(end_dim, x.ndim)
    if s == e:
        return x  # torch returns the input itself
    shape = x.shape[:s] + (math.prod(x.shape[s:e + 1]),) + x.shape[e + 1:]
    return x.reshape(shape)


def _torch_einsum(equation, *operands):
    """torch.einsum also takes its operands as one list."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return np.einsum(equation, *operands)


def _torch_view(x: np.ndarray, *sizes: Any) -> np.ndarray:
    """torch's view: the layout decides (layout.torch_view_strides), never a copy."""
    target = ops.size_args(sizes)
    known = math.prod(d for d in target if d != -1)
    shape = tuple(x.size // known if d == -1 and known else d for d in target)
    layout = Layout.of(x)
    strides = torch_view_strides(layout.shape, layout.strides, shape)
    if strides is None:
        raise ShapeError("view-layout", TORCH_VIEW_STRIDE, "RuntimeError")
    try:
        return np.reshape(x, shape, copy=False)
    except ValueError:  # NumPy refuses where torch's rule allows: build torch's strides
        return np.lib.stride_tricks.as_strided(x, shape, tuple(st * x.itemsize for st in strides))


def _torch_unfold(x: np.ndarray, dimension: int, size: int, step: int) -> np.ndarray:
    if x.ndim == 0:
        return np.lib.stride_tricks.as_strided(x, shape=(size,), strides=(0,))
    d = _axis(dimension, x.ndim)
    count = (x.shape[d] - size) // step + 1
    shape = x.shape[:d] + (count,) + x.shape[d + 1:] + (size,)
    strides = x.strides[:d] + (x.strides[d] * step,) + x.strides[d + 1:] + (x.strides[d],)
    return np.lib.stride_tricks.as_strided(x, shape=shape, strides=strides,
                                           writeable=is_writeable(x))


def _torch_select(x: np.ndarray, dim: int, index: int) -> np.ndarray:
    d = _axis(dim, x.ndim)
    return x[(slice(None),) * d + (index, Ellipsis)]


def _torch_narrow(x: np.ndarray, dim: int, start: int, length: int) -> np.ndarray:
    d = _axis(dim, x.ndim)
    start = start % x.shape[d] if start < 0 else start
    return x[(slice(None),) * d + (slice(start, start + length),)]


def _torch_split(x: np.ndarray, split_size_or_sections: Any, dim: int = 0) -> tuple:
    d = _axis(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if size else [0]
    else:
        sizes = list(split_size_or_sections)
    out, start = [], 0
    for size in sizes:
        out.append(x[(slice(None),) * d + (slice(start, start + size),)])
        start += size
    return tuple(out)


def _torch_chunk(x: np.ndarray, chunks: int, dim: int = 0) -> tuple:
    n = x.shape[_axis(dim, x.ndim)]
    return _torch_split(x, max(-(-n // chunks), 1) if n else 1, dim) if n else (x,)


def _torch_unbind(x: np.ndarray, dim: int = 0) -> tuple:
    d = _axis(dim, x.ndim)
    return tuple(_torch_select(x, d, i) for i in range(x.shape[d]))


def _torch_transpose(x: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    return np.swapaxes(x, dim0, dim1) if x.ndim else x.view()


def _torch_t(x: np.ndarray) -> np.ndarray:
    return x.T if x.ndim == 2 else x.view()


def _torch_permute(x: np.ndarray, *dims: Any) -> np.ndarray:
    return np.transpose(x, ops.size_args(dims))


def _torch_reduce(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: np.ndarray, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
        # torch also accepts NumPy's spellings axis= and keepdims=.
        dim = kwargs.get("axis", dim)
        keepdim = kwargs.get("keepdims", keepdim)
        axis = tuple(dim) if isinstance(dim, list) else dim
        return fn(x, axis=axis, keepdims=keepdim)
    return run


def _torch_binary(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: Any, y: Any, *, alpha: Any = 1, out: Any = None) -> Any:
        y = y * alpha if alpha != 1 else y
        return fn(x, y) if out is None else fn(x, y, out=out, casting="unsafe")
    return run


def _torch_inplace(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: np.ndarray, *others: Any, alpha: Any = 1) -> np.ndarray:
        if others:
            y = others[0] * alpha if alpha != 1 else others[0]
            fn(x, y, out=x, casting="unsafe")
        else:
            fn(x, out=x, casting="unsafe")
        return x
    return run


def _torch_addmm(c: Any, a: Any, b: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return beta * c + alpha * np.matmul(a, b)


def _copy_into(dst: np.ndarray, src: Any, *args: Any) -> np.ndarray:
    np.copyto(dst, src, casting="unsafe")
    return dst


def _fill(dst: np.ndarray, value: Any) -> np.ndarray:
    dst[...] = value
    return dst


def _masked_fill_(dst: np.ndarray, mask: np.ndarray, value: Any) -> np.ndarray:
    np.copyto(dst, value, where=np.broadcast_to(mask, dst.shape), casting="unsafe")
    return dst


def _torch_broadcast_tensors(*xs: np.ndarray) -> tuple:
    shape = np.broadcast_shapes(*[x.shape for x in xs])
    return tuple(_torch_expand(x, shape) for x in xs)


def _torch_cat(xs: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    """torch.cat still skips legacy empty 1-D tensors of shape (0,)."""
    kept = [x for x in xs if not (x.ndim == 1 and x.shape[0] == 0)]
    if not kept:
        return np.concatenate(xs)
    return np.concatenate(kept, axis=dim)


def _torch_contiguous(x: np.ndarray) -> np.ndarray:
    return x if x.flags.c_contiguous else np.ascontiguousarray(x)


def _ufunc_names() -> dict[str, Callable[..., Any]]:
    return {
        "add": np.add, "sub": np.subtract, "subtract": np.subtract, "mul": np.multiply,
        "multiply": np.multiply, "div": np.true_divide, "divide": np.true_divide,
        "true_divide": np.true_divide, "floor_divide": np.floor_divide, "pow": np.power,
        "fmod": np.fmod, "remainder": np.remainder, "maximum": np.maximum, "minimum": np.minimum,
        "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal, "atan2": np.arctan2,
        "logical_and": np.logical_and, "logical_or": np.logical_or,
        "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
        "logical_xor": np.logical_xor, "copysign": np.copysign, "fmax": np.fmax, "fmin": np.fmin,
        "hypot": np.hypot, "logaddexp": np.logaddexp,
    }


def _unary_names() -> dict[str, Callable[..., Any]]:
    return {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "neg": np.negative,
            "negative": np.negative, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
            "sigmoid": lambda x, **kw: np.divide(1, 1 + np.exp(-x), **kw),
            "relu": lambda x, **kw: np.maximum(x, 0, **kw)}


def _build_torch_impl() -> dict[str, Callable[..., Any]]:
    impl: dict[str, Callable[..., Any]] = {}
    for name, fn in _ufunc_names().items():
        impl[name] = impl[f"torch.{name}"] = _torch_binary(fn)
        impl[f"{name}_"] = _torch_inplace(fn)
    for name, fn in _unary_names().items():
        impl[name] = impl[f"torch.{name}"] = fn
        impl[f"{name}_"] = _torch_inplace(fn)
    for dunder, fn in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                       ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                       ("mod", operator.mod), ("pow", operator.pow), ("matmul", operator.matmul),
                       ("and", operator.and_), ("or", operator.or_), ("xor", operator.xor)):
        impl[f"__{dunder}__"] = fn
        impl[f"__r{dunder}__"] = (lambda f: lambda x, y: f(y, x))(fn)
        impl[f"__i{dunder}__"] = (lambda f: lambda x, y: _copy_into(x, f(x, y)))(fn)
    for name in ("lt", "le", "gt", "ge", "eq", "ne"):
        impl[f"__{name}__"] = getattr(operator, name)
    impl["__neg__"] = np.negative
    impl["__abs__"] = np.abs
    impl["__getitem__"] = lambda x, key: x[_torch_key(key)]
    impl["torch.where"] = impl["where"] = np.where
    for name in ("matmul", "mm", "bmm", "mv"):
        impl[name] = impl[f"torch.{name}"] = np.matmul
    for name, fn in (("dot", np.dot), ("vdot", np.vdot), ("inner", np.inner),
                     ("outer", np.outer), ("ger", np.outer)):
        impl[name] = impl[f"torch.{name}"] = fn
    impl["addmm"] = impl["torch.addmm"] = _torch_addmm
    impl["torch.einsum"] = _torch_einsum
    impl["torch.tensordot"] = lambda a, b, dims=2: np.tensordot(a, b, axes=dims)
    impl["reshape"] = impl["torch.reshape"] = lambda x, *s: np.reshape(x, ops.size_args(s))
    impl["view"] = _torch_view
    impl["flatten"] = impl["torch.flatten"] = _torch_flatten
    impl["transpose"] = impl["torch.transpose"] = _torch_transpose
    impl["swapaxes"] = impl["torch.swapaxes"] = _torch_transpose
    impl["t"] = impl["torch.t"] = _torch_t
    impl["T"] = lambda x: x.T
    impl["mT"] = lambda x: np.swapaxes(x, -1, -2) if x.ndim >= 2 else x.view()
    impl["permute"] = impl["torch.permute"] = _torch_permute
    impl["movedim"] = impl["torch.movedim"] = np.moveaxis
    impl["squeeze"] = impl["torch.squeeze"] = _torch_squeeze
    impl["unsqueeze"] = impl["torch.unsqueeze"] = lambda x, dim: np.expand_dims(
        x, _axis(dim, x.ndim + 1))
    impl["expand"] = _torch_expand
    impl["expand_as"] = lambda x, other: _torch_expand(x, other.shape)
    impl["broadcast_to"] = impl["torch.broadcast_to"] = _torch_expand
    impl["torch.broadcast_tensors"] = _torch_broadcast_tensors
    impl["narrow"] = impl["torch.narrow"] = _torch_narrow
    impl["select"] = impl["torch.select"] = _torch_select
    impl["unfold"] = _torch_unfold
    impl["split"] = impl["torch.split"] = _torch_split
    impl["chunk"] = impl["torch.chunk"] = _torch_chunk
    impl["unbind"] = impl["torch.unbind"] = _torch_unbind
    impl["diagonal"] = impl["torch.diagonal"] = lambda x, offset=0, dim1=0, dim2=1: np.diagonal(
        x, offset, dim1, dim2)
    impl["torch.cat"] = impl["torch.concat"] = impl["torch.concatenate"] = _torch_cat
    impl["torch.stack"] = lambda xs, dim=0: np.stack(xs, axis=dim)
    for name, fn in (("sum", np.sum), ("mean", np.mean), ("prod", np.prod), ("amax", np.amax),
                     ("amin", np.amin)):
        impl[name] = impl[f"torch.{name}"] = _torch_reduce(fn)
    impl["clone"] = impl["torch.clone"] = lambda x: x.copy()
    impl["contiguous"] = _torch_contiguous
    impl["detach"] = impl["torch.detach"] = lambda x: x.view()
    impl["real"] = impl["torch.real"] = lambda x: x.real if np.iscomplexobj(x) else x
    impl["imag"] = impl["torch.imag"] = lambda x: x.imag
    impl["copy_"] = _copy_into
    impl["fill_"] = _fill
    impl["zero_"] = lambda x: _fill(x, 0)
    impl["masked_fill"] = lambda x, mask, value: np.where(mask, value, x).astype(x.dtype)
    impl["masked_fill_"] = _masked_fill_
    impl["ravel"] = impl["torch.ravel"] = lambda x: np.reshape(x, -1)
    impl["view_as"] = lambda x, other: _torch_view(x, other.shape)
    impl["reshape_as"] = lambda x, other: np.reshape(x, other.shape)
    for name in ("swapdims", "moveaxis"):
        impl[name] = impl[f"torch.{name}"] = impl["swapaxes" if name == "swapdims" else "movedim"]
    impl["repeat"] = lambda x, *sizes: np.tile(x, ops.size_args(sizes))
    impl["tile"] = impl["torch.tile"] = lambda x, *reps: np.tile(
        x, ops.size_args(reps) if len(reps) != 1 else reps[0])
    impl["torch.hstack"] = np.hstack
    impl["torch.vstack"] = np.vstack
    for name, fn in (("std", np.std), ("var", np.var), ("any", np.any), ("all", np.all)):
        impl[name] = impl[f"torch.{name}"] = _torch_reduce(fn)
    impl["addmv"] = impl["torch.addmv"] = _torch_addmm
    impl["addr"] = impl["torch.addr"] = lambda c, a, b, *, beta=1, alpha=1: \
        beta * c + alpha * np.outer(a, b)
    impl["baddbmm"] = impl["torch.baddbmm"] = _torch_addmm
    impl["addbmm"] = impl["torch.addbmm"] = lambda c, a, b, *, beta=1, alpha=1: \
        beta * c + alpha * np.matmul(a, b).sum(axis=0)
    for name in ("inv", "det", "slogdet", "eig", "eigh", "eigvals", "eigvalsh", "cholesky",
                 "pinv"):
        impl[f"torch.linalg.{name}"] = getattr(np.linalg, name)
    impl["torch.inverse"] = impl["inverse"] = np.linalg.inv
    impl["torch.det"] = impl["det"] = np.linalg.det
    impl["torch.linalg.svd"] = lambda a, full_matrices=True: tuple(
        np.linalg.svd(a, full_matrices=full_matrices))
    impl["torch.linalg.qr"] = _torch_qr
    impl["torch.linalg.solve"] = _torch_solve
    impl["__pos__"] = np.positive
    impl["__invert__"] = np.invert
    impl["addcmul"] = impl["torch.addcmul"] = lambda x, a, b, *, value=1: x + value * a * b
    impl["addcdiv"] = impl["torch.addcdiv"] = lambda x, a, b, *, value=1: x + value * a / b
    impl["addcmul_"] = lambda x, a, b, *, value=1: _copy_into(x, x + value * a * b)
    impl["addcdiv_"] = lambda x, a, b, *, value=1: _copy_into(x, x + value * a / b)
    impl["gather"] = impl["torch.gather"] = _torch_gather
    impl["resize_"] = lambda x, *sizes, memory_format=None: _resized(x, sizes, zeros=False)
    impl["resize_as_"] = lambda x, other, memory_format=None: _resized(x, (other.shape,),
                                                                       zeros=False)
    impl["index_select"] = impl["torch.index_select"] = lambda x, dim, index: np.take(
        x, index, axis=dim)
    impl["torch.take_along_dim"] = lambda x, indices, dim=None: np.take_along_axis(
        x, indices, axis=dim)
    return impl


def _torch_gather(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """out[i][j] = x[index[i][j]][j] (dim 0); index may be smaller than x in the other dims."""
    d = _axis(dim, max(x.ndim, 1))
    region = tuple(slice(None) if i == d else slice(0, n) for i, n in enumerate(index.shape))
    return np.take_along_axis(x[region], index, axis=d)


def _torch_qr(a: np.ndarray, mode: str = "reduced") -> tuple:
    if mode == "r":
        return (np.zeros((0,), a.dtype), np.linalg.qr(a, mode="r"))
    return tuple(np.linalg.qr(a, mode=mode))


def _torch_solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch reads b as a (batch of) vector(s) when b.shape == a.shape[:-1], too."""
    if b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]):
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _torch_key(key: Any) -> Any:
    items = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (list, np.ndarray)) for k in items) or Ellipsis in items:
        return key
    return items + (Ellipsis,)


def _resized(x: np.ndarray, sizes: tuple, zeros: bool) -> np.ndarray | None:
    """x's elements in C order under a new shape of any element count: the first ones kept,
    the rest zeros (ndarray.resize) or unknown (torch's resize_ leaves new memory as it finds
    it, and reads a non-contiguous tensor's storage in memory order: None)."""
    shape = tuple(ops.size_args(sizes))
    count = math.prod(shape)
    if not zeros and (count > x.size or not x.flags.c_contiguous):
        return None
    out = np.zeros(count, dtype=x.dtype)
    kept = min(count, x.size)
    out[:kept] = x.reshape(-1)[:kept]
    return out.reshape(shape)


def _build_numpy_impl() -> dict[str, Callable[..., Any]]:
    impl: dict[str, Callable[..., Any]] = {}
    impl["resize"] = lambda x, *sizes, refcheck=True, new_shape=None: _resized(
        x, sizes or (new_shape,), zeros=True) if sizes or new_shape is not None else x
    impl["np.copyto"] = _copy_into
    impl["fill"] = _fill
    impl["np.broadcast_arrays"] = lambda *xs: tuple(np.broadcast_arrays(*xs))
    impl["np.split"] = lambda x, indices_or_sections, axis=0: tuple(
        np.split(x, indices_or_sections, axis))
    return impl


_TORCH_IMPL = _build_torch_impl()
_NUMPY_IMPL = _build_numpy_impl()
