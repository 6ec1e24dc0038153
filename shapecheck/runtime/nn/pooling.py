"""MaxPool/AvgPool 1-3d, AdaptiveAvg/MaxPool 1-3d, LPPool and MaxUnpool 1-3d, Fold and Unfold,
and their F. twins.

The output size is ATen's pooling_output_shape: floor division (rounding
toward minus infinity), and with ceil_mode a last window that must start
inside the input or its left padding. 1-d pools run as the 2-d kernels over
a height of 1, so several of their messages are the 2-d ones.
"""

from __future__ import annotations

from functools import partial

from ..dims import UNKNOWN, Dim, Shape, add, dims_equal, eq, floordiv, mul, sub
from ..verdicts import Result
from .base import (
    FUNCTIONAL,
    NOT_GIVEN,
    NotModelled,
    flag,
    is_dim,
    known_int,
    layer_error,
    less,
    ntuple,
    register,
    torch_size,
)


def _output_size(size: Dim, k: Dim, p: Dim, s: Dim, d: Dim, ceil: bool) -> Dim:
    span = add(mul(d, sub(k, 1)), 1)
    if not ceil:
        return add(floordiv(sub(add(size, mul(2, p)), span), s), 1)
    values = [known_int(v) for v in (size, k, p, s, d)]
    if None in values:
        return UNKNOWN
    size, k, p, s, d = values
    out = (size + 2 * p - d * (k - 1) - 1 + s - 1) // s + 1
    if (out - 1) * s >= size + p:
        out -= 1
    return out


def _positive(values: tuple, what: str) -> tuple:
    if any(known_int(v) is not None and v <= 0 for v in values):
        raise NotModelled(f"a non-positive {what}")
    return values


def pool(x: Shape, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
         return_indices=False, *, n: int, op: str) -> Result:
    """F.max_pool{n}d / F.avg_pool{n}d (op "max" or "avg"; avg has no dilation)."""
    x = tuple(x)
    kernel = _positive(ntuple(kernel_size, n), "kernel size")
    stride = kernel if stride is None or stride == () else _positive(ntuple(stride, n), "stride")
    padding = ntuple(padding, n)
    dilation = _positive(ntuple(dilation, n), "dilation")
    if any(known_int(p) is not None and p < 0 for p in padding):
        raise NotModelled("a negative padding")
    name = f"{op}_pool{n}d"
    ceil_mode, return_indices = flag(ceil_mode), flag(return_indices)
    if len(x) not in (n + 1, n + 2):
        if op == "max" and n > 1:
            raise layer_error(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input",
                              "RuntimeError", x)
        if op == "max" and not return_indices:
            raise layer_error(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                              f"batch size for input, but got:{torch_size(x)}", "RuntimeError", x)
        if n == 1:
            raise layer_error(f"Expected 2 to 3 dimensions, but got {len(x)}-dimensional tensor for "
                              f"argument #1 'self' (while checking arguments for {name})",
                              "RuntimeError", x)
        if n == 2 and len(x) < 3:
            span = max(len(x), 1)
            raise layer_error(f"Dimension out of range (expected to be in range of [{-span}, "
                              f"{span - 1}], but got -3)", "IndexError", x)
        raise NotModelled(f"{name} of a {len(x)}-D input")
    features = x[-n - 1:]  # channels and spatial: the dims that must not be empty
    if any(known_int(v) == 0 for v in features):
        raise NotModelled("pooling an empty channel or spatial dim")
    for p, k, d in zip(padding, kernel, dilation):
        if known_int(p) is None or known_int(k) is None or known_int(d) is None:
            continue
        if n == 1 and op == "max" and not return_indices:
            # max_pool1d's own kernel halves the kernel size, not the dilated span.
            if p > k // 2:
                raise layer_error(f"max_pool1d() padding should be at most half of kernel size, but "
                                  f"got padding={p} and kernel_size={k}", "RuntimeError", x)
        elif p > (d * (k - 1) + 1) // 2:
            if n == 1:
                raise NotModelled("max_pool1d's padding check through the 2-d kernel")
            raise layer_error(f"pad should be at most half of effective kernel size, but got pad={p}, "
                              f"kernel_size={k} and dilation={d}", "RuntimeError", x)
    spatial_in = x[-n:]
    if any(known_int(p) is None or known_int(k) is None or p > k // 2
           for p, k in zip(padding, kernel)):
        # the shape check's second padding test, on the undilated kernel
        if n != 2 or None in map(known_int, padding + kernel):
            raise NotModelled("the padding check's wording at this rank")
        (kh, kw), (ph, pw) = kernel, padding
        raise layer_error(f"pad should be smaller than or equal to half of kernel size, but got "
                          f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}", "RuntimeError", x)
    if n == 3 and op == "avg" and any(less(size, k) is not False for size, k in zip(spatial_in, kernel)):
        raise NotModelled("avg_pool3d's own check of an input smaller than the kernel")
    out = tuple(_output_size(size, k, p, s, d, bool(ceil_mode))
                for size, k, p, s, d in zip(spatial_in, kernel, padding, stride, dilation))
    if any(less(o, 1) is True for o in out):
        if n == 3 and op == "avg":
            raise NotModelled("avg_pool3d's own wording")
        if n == 1 and op == "max" and not return_indices:
            raise layer_error(f"max_pool1d() Invalid computed output size: {out[0]}", "RuntimeError", x)
        shown_in = ((1,) if n == 1 else ()) + spatial_in
        shown_out = ((1,) if n == 1 else ()) + out
        raise layer_error(f"Given input size: ({'x'.join(map(str, (x[-n - 1],) + shown_in))}). "
                          f"Calculated output size: ({'x'.join(map(str, (x[-n - 1],) + shown_out))}). "
                          "Output size is too small", "RuntimeError", x)
    shape = x[:-n] + out
    return Result((shape, shape) if return_indices else (shape,))


def adaptive_pool(x: Shape, output_size, return_indices=False, *, n: int, op: str) -> Result:
    """F.adaptive_{avg,max}_pool{n}d: the trailing n dims become output_size (None keeps one)."""
    x = tuple(x)
    return_indices = flag(return_indices)
    name = f"adaptive_{op}_pool{n}d"
    if n == 1 and len(x) not in (2, 3):
        raise layer_error(f"Expected 2 to 3 dimensions, but got {len(x)}-dimensional tensor for "
                          f"argument #1 'self' (while checking arguments for {name})", "RuntimeError", x)
    if n > 1 and isinstance(output_size, (tuple, list)) and len(x) <= len(output_size):
        # F.adaptive_*_pool2d/3d fill None from the input's sizes first (_list_with_default).
        raise layer_error(f"Input dimension should be at least {len(output_size) + 1}", "ValueError", x)
    requested = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * n
    if len(x) >= len(requested):
        requested = tuple(d if s is None else s for s, d in zip(requested, x[len(x) - len(requested):]))
    if op == "avg" and all(known_int(s) == 1 for s in requested) and len(x) >= n:
        if n != 2:
            raise NotModelled("adaptive average to ones at another rank")
        return Result.of(x[:-2] + (1, 1))  # torch takes a mean over the last two dims, any rank
    if len(x) not in (n + 1, n + 2):
        colon = ":" if op == "max" else ""
        raise layer_error(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got{colon} "
                          f"{torch_size(x)}", "RuntimeError", x)
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * n
    if len(sizes) != n or not all(s is None or is_dim(s) for s in sizes):
        raise NotModelled("an output_size of another length")
    for axis in range(1, len(x)):  # ATen skips dim 0 even when it holds the channels
        if known_int(x[axis]) == 0:
            if n == 1 or op == "avg":
                # 1-d runs as 2-d; avg to a 1x1 output takes a mean that accepts empty dims.
                raise NotModelled("an empty input to this adaptive pool")
            raise layer_error(f"{name}(): Expected input to have non-zero size for non-batch "
                              f"dimensions, but input has sizes {torch_size(x)} with dimension "
                              f"{axis} being empty", "RuntimeError", x, dim=axis)
    out = tuple(size if s is None else s for size, s in zip(x[-n:], sizes))
    if any(known_int(o) is not None and o < 0 for o in out):
        raise NotModelled("a negative output size")
    shape = x[:-n] + out
    return Result((shape, shape) if return_indices and op == "max" else (shape,))


# --------------------------------------------------------------------------- the nn classes


def _max_forward(n: int):
    def forward(layer, x: Shape) -> Result:
        return pool(x, layer["kernel_size"], layer["stride"], layer["padding"], layer["dilation"],
                    layer["ceil_mode"], layer["return_indices"], n=n, op="max")
    return forward


def _avg_forward(n: int):
    def forward(layer, x: Shape) -> Result:
        if layer["divisor_override"] is not None and n == 1:
            raise NotModelled("AvgPool1d has no divisor_override")
        return pool(x, layer["kernel_size"], layer["stride"], layer["padding"], 1,
                    layer["ceil_mode"], n=n, op="avg")
    return forward


def _adaptive_forward(n: int, op: str):
    def forward(layer, x: Shape) -> Result:
        return adaptive_pool(x, layer["output_size"], layer["return_indices"] if op == "max" else False,
                             n=n, op=op)
    return forward


def _pool_args(args: dict) -> dict:
    for key in ("kernel_size", "stride", "padding", "dilation"):
        value = args.get(key)
        if value is not None and not (is_dim(value) or isinstance(value, (tuple, list))):
            raise NotModelled(f"{key}={value!r}")
    return args


def _avg_functional(n: int):
    """F.avg_pool{n}d(input, kernel_size, stride, padding, ceil_mode, ...): no dilation."""
    def avg_pool(x: Shape, kernel_size, stride=None, padding=0, ceil_mode=False, *rest, **options):
        return pool(x, kernel_size, stride, padding, 1, ceil_mode, n=n, op="avg")
    return avg_pool


for _n in (1, 2, 3):
    register(f"MaxPool{_n}d", [("kernel_size", NOT_GIVEN), ("stride", None), ("padding", 0),
                               ("dilation", 1), ("return_indices", False), ("ceil_mode", False)],
             _pool_args, _max_forward(_n))
    _avg_signature = [("kernel_size", NOT_GIVEN), ("stride", None), ("padding", 0),
                      ("ceil_mode", False), ("count_include_pad", True)]
    if _n > 1:
        _avg_signature.append(("divisor_override", None))
    register(f"AvgPool{_n}d", _avg_signature,
             lambda a: dict(_pool_args(a), divisor_override=a.get("divisor_override")), _avg_forward(_n))
    register(f"AdaptiveAvgPool{_n}d", [("output_size", NOT_GIVEN)], lambda a: a,
             _adaptive_forward(_n, "avg"))
    register(f"AdaptiveMaxPool{_n}d", [("output_size", NOT_GIVEN), ("return_indices", False)],
             lambda a: a, _adaptive_forward(_n, "max"))
    FUNCTIONAL[f"max_pool{_n}d"] = partial(pool, n=_n, op="max")
    FUNCTIONAL[f"avg_pool{_n}d"] = _avg_functional(_n)
    FUNCTIONAL[f"adaptive_avg_pool{_n}d"] = partial(adaptive_pool, n=_n, op="avg")
    FUNCTIONAL[f"adaptive_max_pool{_n}d"] = partial(adaptive_pool, n=_n, op="max")



# --------------------------------------------------------------------------- LPPool and MaxUnpool


def lp_pool(x: Shape, norm_type, kernel_size, stride=None, ceil_mode=False, *, n: int) -> Result:
    """F.lp_pool{n}d: an average pool without padding over x ** p, so the same shape."""
    if not isinstance(norm_type, (int, float)) or isinstance(norm_type, bool) or \
            norm_type in (float("inf"), -float("inf")):
        raise NotModelled("an infinite or unknown norm (a max pool)")
    if n == 1 and not is_dim(kernel_size):
        raise NotModelled("lp_pool1d multiplies by the kernel size: a tuple fails there")
    return pool(x, kernel_size, stride, 0, 1, ceil_mode, n=n, op="avg")


def _unpool_size(x: Shape, kernel: tuple, stride: tuple, padding: tuple, output_size) -> tuple:
    """F._unpool_output_size: the default (in - 1) * s + k - 2p, or a checked output_size."""
    n = len(kernel)
    if len(x) < n:
        raise NotModelled("an input of rank below the pool's (torch's IndexError)")
    default = tuple(sub(add(mul(sub(size, 1), s), k), mul(2, p))
                    for size, k, s, p in zip(x[-n:], kernel, stride, padding))
    if output_size is None:
        sizes = default
    else:
        if not isinstance(output_size, (tuple, list)) or not all(known_int(v) is not None
                                                                  for v in output_size):
            raise NotModelled("an output_size not known")
        given = output_size
        if len(given) == n + 2:
            given = given[2:]
        if len(given) != n:
            raise layer_error(f"output_size should be a sequence containing {n} or {n + 2} elements, but "
                              f"it has a length of '{len(given)}'", "ValueError", x)
        for d in range(n):
            low, high = known_int(sub(default[d], stride[d])), known_int(add(default[d], stride[d]))
            if low is None or high is None:
                raise NotModelled("bounds not known")
            if not low < given[d] < high:
                shown = "(" + ", ".join(map(str, given)) + ("," if len(given) == 1 else "") + ")" \
                    if isinstance(given, tuple) else torch_size(given)
                raise layer_error(f'invalid output_size "{shown}" (dim {d} must be between {low} and {high})',
                                  "ValueError", x)
        sizes = tuple(given)
    if any(less(v, 0) is not False and known_int(v) is not None for v in sizes):
        raise NotModelled("a negative output size")
    return sizes


def max_unpool(x: Shape, indices: Shape, kernel_size, stride=None, padding=0, output_size=None, *,
               n: int) -> Result:
    """F.max_unpool{n}d: each spatial dim back to (in - 1) * s + k - 2p (1-d runs as 2-d)."""
    x, indices = tuple(x), tuple(indices)
    kernel = ntuple(kernel_size, n)
    stride = kernel if stride is None else ntuple(stride, n)
    padding = ntuple(padding, n)
    sizes = _unpool_size(x, kernel, stride, padding, output_size)
    kernel_rank = max(n, 2)
    shown = x + (1,) * (kernel_rank - n)
    shown_indices = indices + (1,) * (kernel_rank - n)
    if len(shown) not in (kernel_rank + 1, kernel_rank + 2):
        raise layer_error(f"Input to max_unpooling{kernel_rank}d should be a {kernel_rank + 1}d or "
                          f"{kernel_rank + 2}d Tensor, but got a tensor with {len(shown)} dimensions.",
                          "RuntimeError", x)
    if dims_equal(shown, shown_indices) is False:
        raise layer_error(f"Expected shape of indices to be same as that of the input tensor "
                          f"({torch_size(shown)}) but got indices tensor with shape: "
                          f"{torch_size(shown_indices)}", "RuntimeError", x, indices)
    for axis in range(1, len(shown)):
        if known_int(shown[axis]) == 0:
            if kernel_rank == 3:
                raise NotModelled("max_unpool3d's wording of an empty input")
            raise layer_error(f"max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for "
                              f"non-batch dimensions, but got {torch_size(shown)} with dimension {axis} "
                              "being empty.", "RuntimeError", x, dim=axis)
    return Result.of(x[:-n] + sizes)


def _lp_forward(n: int):
    def forward(layer, x: Shape) -> Result:
        return lp_pool(x, layer["norm_type"], layer["kernel_size"], layer["stride"], layer["ceil_mode"], n=n)
    return forward


def _unpool_forward(n: int):
    def forward(layer, x: Shape, indices: Shape, output_size=None) -> Result:
        return max_unpool(x, indices, layer["kernel_size"], layer["stride"], layer["padding"], output_size,
                          n=n)
    return forward


for _n in (1, 2, 3):
    register(f"LPPool{_n}d", [("norm_type", NOT_GIVEN), ("kernel_size", NOT_GIVEN), ("stride", None),
                              ("ceil_mode", False)], _pool_args, _lp_forward(_n))
    register(f"MaxUnpool{_n}d", [("kernel_size", NOT_GIVEN), ("stride", None), ("padding", 0)], _pool_args,
             _unpool_forward(_n))
    FUNCTIONAL[f"lp_pool{_n}d"] = partial(lp_pool, n=_n)
    FUNCTIONAL[f"max_unpool{_n}d"] = partial(max_unpool, n=_n)



# --------------------------------------------------------------------------- Fold / Unfold


def _block_args(kernel_size, dilation, padding, stride, order: tuple) -> dict:
    """im2col / col2im's argument checks, each on its (height, width) pair."""
    values = {"kernel": ntuple(kernel_size, 2), "dilation": ntuple(dilation, 2),
              "padding": ntuple(padding, 2), "stride": ntuple(stride, 2)}
    if any(known_int(v) is None for pair in values.values() for v in pair):
        raise NotModelled("block arguments not known")
    texts = {"kernel": ("kernel size should be greater than zero", "kernel"),
             "dilation": ("dilation should be greater than zero", "dilation"),
             "stride": ("stride should be greater than zero", "stride"),
             "padding": ("padding should be non-negative", "pad")}
    for name in order:
        (h, w), (text, word) = values[name], texts[name]
        if (min(h, w) < 0) if name == "padding" else (min(h, w) <= 0):
            raise layer_error(f"{text}, but got {word}_height: {h} {word}_width: {w}", "RuntimeError")
    return values


def _blocks(size: Dim, k: int, d: int, p: int, s: int) -> Dim:
    """The number of sliding positions, rounded toward minus infinity (div_rtn)."""
    return add(floordiv(sub(add(size, 2 * p), d * (k - 1) + 1), s), 1)


def unfold(x: Shape, kernel_size, dilation=1, padding=0, stride=1) -> Result:
    """F.unfold (im2col): (N, C, H, W) -> (N, C * kh * kw, L), L the number of blocks."""
    x = tuple(x)
    if isinstance(kernel_size, (tuple, list)) and len(kernel_size) != 2:
        raise NotModelled("a kernel of another length")
    args = _block_args(kernel_size, dilation, padding, stride, ("kernel", "dilation", "padding", "stride"))
    if len(x) < 3:
        raise NotModelled("a rank below 3 (torch's IndexError while reading it)")
    batched = len(x) != 3
    must_fill = x[1:] if batched else x
    if len(x) > 4 or any(known_int(d) == 0 for d in must_fill):
        raise layer_error(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                          f"non-zero dimensions for input, but got: {torch_size(x)}", "RuntimeError", x)
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (args[k] for k in ("kernel", "dilation", "padding", "stride"))
    height, width = x[-2:]
    out_h, out_w = _blocks(height, kh, dh, ph, sh), _blocks(width, kw, dw, pw, sw)
    if less(out_h, 1) is True or less(out_w, 1) is True:
        raise layer_error(f"Given input with spatial size ({height}, {width}), kernel_size=({kh}, {kw}), "
                          f"dilation=({dh}, {dw}), padding=({ph}, {pw}), calculated shape of the array of "
                          f"sliding blocks as ({out_h}, {out_w}), but its components must be at least one.",
                          "RuntimeError", x)
    out = (mul(x[-3], kh * kw), mul(out_h, out_w))
    return Result.of(x[:1] + out if batched else out)


def fold(x: Shape, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Result:
    """F.fold (col2im): (N, C * kh * kw, L) -> (N, C, *output_size)."""
    x = tuple(x)
    if isinstance(kernel_size, (tuple, list)) and len(kernel_size) != 2 or \
            isinstance(output_size, (tuple, list)) and len(output_size) != 2:
        raise NotModelled("a kernel or output size of another length")
    out_h, out_w = ntuple(output_size, 2)
    args = _block_args(kernel_size, dilation, padding, stride, ("kernel", "stride", "dilation", "padding"))
    if len(x) not in (2, 3) or any(known_int(d) == 0 for d in (x[1:] if len(x) == 3 else x)):
        raise layer_error(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                          f"non-zero dimensions for input, but got: {torch_size(x)}", "RuntimeError", x)
    if len(x) == 2:
        raise NotModelled("an unbatched input (torch's messages count its dims as batched)")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (args[k] for k in ("kernel", "dilation", "padding", "stride"))
    planes, length = x[1], x[2]
    if known_int(planes) is not None and planes % (kh * kw):
        raise layer_error(f"Expected size of input's dimension 1 to be divisible by the product of "
                          f"kernel_size, but got input.size(1)={planes} and kernel_size=({kh}, {kw}).",
                          "RuntimeError", x, dim=1)
    blocks_h, blocks_w = _blocks(out_h, kh, dh, ph, sh), _blocks(out_w, kw, dw, pw, sw)
    if eq(length, mul(blocks_h, blocks_w)) is False:
        raise layer_error(f"Given output_size=({out_h}, {out_w}), kernel_size=({kh}, {kw}), dilation=({dh}, "
                          f"{dw}), padding=({ph}, {pw}), stride=({sh}, {sw}), expected size of input's "
                          f"dimension 2 to match the calculated number of sliding blocks {blocks_h} * "
                          f"{blocks_w} = {mul(blocks_h, blocks_w)}, but got input.size(2)={length}.",
                          "RuntimeError", x, dim=2)
    if less(blocks_h, 1) is not False or less(blocks_w, 1) is not False:
        raise NotModelled("no sliding blocks (torch words it after the count)")
    channels = floordiv(planes, kh * kw) if known_int(planes) is not None else UNKNOWN
    return Result.of((x[0], channels, out_h, out_w))


register("Unfold", [("kernel_size", NOT_GIVEN), ("dilation", 1), ("padding", 0), ("stride", 1)], _pool_args,
         lambda layer, x: unfold(x, layer["kernel_size"], layer["dilation"], layer["padding"],
                                 layer["stride"]))
register("Fold", [("output_size", NOT_GIVEN), ("kernel_size", NOT_GIVEN), ("dilation", 1), ("padding", 0),
                  ("stride", 1)], _pool_args,
         lambda layer, x: fold(x, layer["output_size"], layer["kernel_size"], layer["dilation"],
                               layer["padding"], layer["stride"]))
FUNCTIONAL.update(fold=fold, unfold=unfold)

__all__ = ["adaptive_pool", "fold", "lp_pool", "max_unpool", "pool", "unfold"]
