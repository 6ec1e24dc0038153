"""Conv1d/2d/3d and ConvTranspose1d/2d/3d, their lazy forms, and their functional twins F.conv*d.

A lazy convolution reads in_channels from its first input (dim 1, or dim 0 unbatched).

The nn layer builds its weight shape ((out, in // groups, *k), or
(in, out // groups, *k) when transposed) and hands it to the functional
rule, which runs ATen's checks in ATen's order: input rank, groups against
the weight, channels, then the spatial sizes. A channel mismatch keeps the
matmul kind, as the linter has always filed it.
"""

from __future__ import annotations

from functools import partial

from ..dims import UNKNOWN, Dim, Shape, add, floordiv, is_known, mul, sub
from ..verdicts import Result
from .base import (
    FUNCTIONAL,
    NOT_GIVEN,
    PARAMETERS,
    Layer,
    NotModelled,
    argument_error,
    dim_arg,
    flag,
    is_dim,
    known_int,
    layer_error,
    less,
    ntuple,
    register,
    text_arg,
    torch_size,
    widths_differ,
)
from .basic import _new_tensor

_AXES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _spatial(sizes, n: int, what: str) -> tuple:
    values = ntuple(sizes, n)
    if what == "padding":
        bad = any(known_int(v) is not None and v < 0 for v in values)
    else:
        bad = any(known_int(v) is not None and v <= 0 for v in values)
    if bad:
        # torch's texts for these differ between entry points; the answer stays unknown.
        raise NotModelled(f"a non-positive {what}")
    return values


def _check_weight(x: Shape, weight: Shape, groups: Dim, n: int) -> None:
    """ATen's check_shape_forward on the weight and groups."""
    if len(weight) != n + 2:
        raise NotModelled("a weight of another rank")
    if known_int(groups) is None:
        return
    out = weight[0]
    if less(out, groups) is True:
        raise layer_error(f"Given groups={groups}, expected weight to be at least {groups} at "
                          f"dimension 0, but got weight of size {torch_size(weight)} instead",
                          "RuntimeError", x, weight)
    if known_int(out) is not None and out % groups:
        raise layer_error(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                          f"dimension 0, but got weight of size [{torch_size(weight)}] instead",
                          "RuntimeError", x, weight)


def _channels_error(x: Shape, weight: Shape, expected: Dim, header: str) -> None:
    if widths_differ(x[1], expected):
        raise layer_error(f"{header}, weight of size {torch_size(weight)}, expected input"
                          f"{torch_size(x)} to have {expected} channels, but got {x[1]} channels "
                          "instead", "RuntimeError", x, weight, dim=1)


def _rank(x: Shape, n: int, name: str) -> bool:
    """True when x is batched; torch's error when its rank is neither."""
    if len(x) not in (n + 1, n + 2):
        raise layer_error(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, "
                          f"but got input of size: {torch_size(x)}", "RuntimeError", x)
    return len(x) == n + 2


def conv(x: Shape, weight: Shape, bias: Shape | None = None, stride=1, padding=0, dilation=1,
         groups=1, *, n: int) -> Result:
    """F.conv{n}d(x, weight, bias, stride, padding, dilation, groups)."""
    x, weight = tuple(x), tuple(weight)
    batched = _rank(x, n, f"conv{n}d")
    xb = x if batched else (1,) + x
    stride, dilation = _spatial(stride, n, "stride"), _spatial(dilation, n, "dilation")
    groups = dim_arg(groups)
    _check_weight(xb, weight, groups, n)
    kernel = weight[2:]
    if isinstance(padding, str):
        if padding == "valid":
            totals = (0,) * n
        elif padding == "same":
            if any(known_int(s) != 1 for s in stride):
                raise NotModelled("strided 'same' convolution (torch refuses it)")
            totals = tuple(mul(d, sub(k, 1)) for d, k in zip(dilation, kernel))
        else:
            raise NotModelled(f"padding={padding!r}")
    else:
        totals = tuple(mul(2, p) for p in _spatial(padding, n, "padding"))
    expected = mul(weight[1], groups)
    if known_int(expected) == 0:
        raise NotModelled("a convolution over zero input channels")
    _channels_error(xb, weight, expected, f"Given groups={groups}")
    padded = tuple(add(size, total) for size, total in zip(xb[2:], totals))
    spans = tuple(add(mul(d, sub(k, 1)), 1) for d, k in zip(dilation, kernel))
    if isinstance(padding, str) and padding == "same" and any(known_int(s) == 0 for s in xb[2:]):
        raise NotModelled("'same' padding of an empty input")
    if any(less(p, s) is True for p, s in zip(padded, spans)):
        raise layer_error(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))})."
                          f" Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be "
                          "greater than actual input size", "RuntimeError", x, weight)
    if any(known_int(s) == 0 for s in xb[2:]):
        raise NotModelled("an empty spatial input (torch prints it at another rank)")
    if isinstance(padding, str) and padding == "same":
        spatial = xb[2:]
    else:
        spatial = tuple(add(floordiv(sub(p, k), s), 1) if is_known(s) else UNKNOWN
                        for p, k, s in zip(padded, spans, stride))
    out = (weight[0],) + spatial
    return Result.of(((xb[0],) if batched else ()) + out)


def conv_transpose(x: Shape, weight: Shape, bias: Shape | None = None, stride=1, padding=0,
                   output_padding=0, groups=1, dilation=1, *, n: int) -> Result:
    """F.conv_transpose{n}d(x, weight, bias, stride, padding, output_padding, groups, dilation)."""
    x, weight = tuple(x), tuple(weight)
    batched = _rank(x, n, f"conv_transpose{n}d")
    xb = x if batched else (1,) + x
    stride, dilation = _spatial(stride, n, "stride"), _spatial(dilation, n, "dilation")
    padding = _spatial(padding, n, "padding")
    output_padding = _spatial(output_padding, n, "padding")
    groups = dim_arg(groups)
    _check_weight(xb, weight, groups, n)
    if any(known_int(d) == 0 for d in weight[1:2] + xb):
        raise NotModelled("an empty transposed convolution (torch's text depends on the rank)")
    _channels_error(xb, weight, weight[0], "Given transposed=1")
    kernel = weight[2:]
    # conv_transpose1d runs as the 2-d kernel over a height of 1.
    shown = n if n > 1 else 2
    pad_to = (lambda v, fill: ((fill,) * (shown - n)) + tuple(v))
    ops, strides, dils = pad_to(output_padding, 0), pad_to(stride, 1), pad_to(dilation, 1)
    if any(known_int(o) is not None and known_int(s) is not None and known_int(d) is not None
           and o >= s and o >= d for o, s, d in zip(ops, strides, dils)):
        axes = _AXES[shown]
        text = " ".join(f"output_padding_{a}: {v}" for a, v in zip(axes, ops)) + " " + \
            " ".join(f"stride_{a}: {v}" for a, v in zip(axes, strides)) + " " + \
            " ".join(f"dilation_{a}: {v}" for a, v in zip(axes, dils))
        raise layer_error(f"output padding must be smaller than either stride or dilation, but got "
                          f"{text}", "RuntimeError", x, weight)
    spatial = tuple(
        add(add(sub(mul(sub(size, 1), s), mul(2, p)), mul(d, sub(k, 1))), add(o, 1))
        for size, s, p, d, k, o in zip(xb[2:], stride, padding, dilation, kernel, output_padding))
    if any(less(o, 1) is True for o in spatial):
        shown_in = pad_to(xb[2:], 1)
        shown_out = pad_to(spatial, 1)
        raise layer_error(f"Given input size per channel: ({' x '.join(map(str, shown_in))}). "
                          f"Calculated output size per channel: ({' x '.join(map(str, shown_out))}). "
                          "Output size is too small", "RuntimeError", x, weight)
    out = (mul(weight[1], groups),) + spatial
    return Result.of(((xb[0],) if batched else ()) + out)


# --------------------------------------------------------------------------- the nn classes

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _conv_args(n: int, transposed: bool):
    name = f"ConvTranspose{n}d" if transposed else f"Conv{n}d"

    def construct(args: dict) -> dict:
        # Every padding mode pads by the same amounts: one nobody knows (a keyword from a
        # factory's **kwargs) leaves the output shape as it is, and only its own refusals unknown.
        mode_known = args["padding_mode"] is not UNKNOWN
        if mode_known:
            text_arg(args["padding_mode"])
        elif transposed:
            raise NotModelled("a transposed convolution of an unknown padding mode")
        if transposed and args["padding_mode"] != "zeros":
            raise argument_error(f'Only "zeros" padding mode is supported for {name}')
        kernel = ntuple(args["kernel_size"], n)
        stride = ntuple(args["stride"], n)
        padding = args["padding"]
        if not isinstance(padding, (str, tuple, list)) and not is_dim(padding):
            raise NotModelled(f"padding={padding!r}")
        if transposed and isinstance(padding, str):
            raise NotModelled("a padding string for a transposed convolution")
        padding = padding if isinstance(padding, str) else ntuple(padding, n)
        dilation = ntuple(args["dilation"], n)
        in_channels, out_channels = dim_arg(args["in_channels"]), dim_arg(args["out_channels"])
        groups = dim_arg(args["groups"])
        if known_int(groups) is not None:
            if groups <= 0:
                raise argument_error("groups must be a positive integer")
            if known_int(in_channels) is not None and in_channels % groups:
                raise argument_error("in_channels must be divisible by groups")
            if known_int(out_channels) is not None and out_channels % groups:
                raise argument_error("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise argument_error(f"Invalid padding string {padding!r}, should be one of "
                                     f"{_PADDING_STRINGS}")
            if padding == "same" and any(known_int(s) not in (None, 1) for s in stride):
                raise argument_error("padding='same' is not supported for strided convolutions")
        if mode_known and args["padding_mode"] not in _PADDING_MODES:
            raise argument_error(f"padding_mode must be one of {_PADDING_MODES}, but got "
                                 f"padding_mode='{args['padding_mode']}'")
        bound = dict(args, kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
                     in_channels=in_channels, out_channels=out_channels, groups=groups)
        if transposed:
            bound["output_padding"] = ntuple(args["output_padding"], n)
        _new_tensor(_weight(bound, transposed))
        return bound
    return construct


def _weight(layer, transposed: bool) -> Shape:
    groups = layer["groups"]
    if transposed:
        return (layer["in_channels"], floordiv(layer["out_channels"], groups)) + layer["kernel_size"]
    return (layer["out_channels"], floordiv(layer["in_channels"], groups)) + layer["kernel_size"]


def _pad_first(layer, x: Shape, n: int) -> tuple[Shape, object]:
    """Modes other than zeros run F.pad and then an unpadded conv; F.pad's refusals stay unknown."""
    mode, padding = layer["padding_mode"], layer["padding"]
    if mode == "zeros" or mode is UNKNOWN:
        return x, padding
    if len(x) not in (n + 1, n + 2):
        raise NotModelled("F.pad's refusal of the rank")
    if isinstance(padding, str):
        totals = tuple(mul(d, sub(k, 1)) if padding == "same" else 0
                       for d, k in zip(layer["dilation"], layer["kernel_size"]))
        sides = tuple((t + 1) // 2 if known_int(t) is not None else UNKNOWN for t in totals)
    else:
        totals, sides = tuple(mul(2, p) for p in padding), padding
    if any(known_int(d) == 0 for d in x):
        raise NotModelled(f"F.pad's {mode} of an empty tensor")
    for size, pad in zip(x[-n:], sides):
        if known_int(size) is None or known_int(pad) is None:
            raise NotModelled("padding an input of unknown size")
        if mode == "reflect" and pad >= size or mode == "circular" and pad > size:
            raise NotModelled(f"F.pad's {mode} refusal")
    padded = tuple(x[:-n]) + tuple(add(size, total) for size, total in zip(x[-n:], totals))
    return padded, (0,) * n


def _conv_forward(n: int):
    def forward(layer, x: Shape) -> Result:
        x, padding = _pad_first(layer, x, n)
        return conv(x, _weight(layer, False), None, layer["stride"], padding,
                    layer["dilation"], layer["groups"], n=n)
    return forward


def _conv_transpose_forward(n: int):
    def forward(layer, x: Shape, output_size=None) -> Result:
        if output_size is not None:
            raise NotModelled("ConvTranspose with output_size")
        return conv_transpose(x, _weight(layer, True), None, layer["stride"], layer["padding"],
                              layer["output_padding"], layer["groups"], layer["dilation"], n=n)
    return forward


for _n in (1, 2, 3):
    register(f"Conv{_n}d", [("in_channels", NOT_GIVEN), ("out_channels", NOT_GIVEN),
                            ("kernel_size", NOT_GIVEN), ("stride", 1), ("padding", 0),
                            ("dilation", 1), ("groups", 1), ("bias", True),
                            ("padding_mode", "zeros")], _conv_args(_n, False), _conv_forward(_n))
    register(f"ConvTranspose{_n}d", [("in_channels", NOT_GIVEN), ("out_channels", NOT_GIVEN),
                                     ("kernel_size", NOT_GIVEN), ("stride", 1), ("padding", 0),
                                     ("output_padding", 0), ("groups", 1), ("bias", True),
                                     ("dilation", 1), ("padding_mode", "zeros")],
             _conv_args(_n, True), _conv_transpose_forward(_n))
    FUNCTIONAL[f"conv{_n}d"] = partial(conv, n=_n)
    FUNCTIONAL[f"conv_transpose{_n}d"] = partial(conv_transpose, n=_n)

__all__ = ["conv", "conv_transpose"]


def _conv_parameters(transposed: bool):
    def shape(layer, name: str) -> Shape | None:
        if name == "weight":
            return _weight(layer, transposed)
        if name == "bias" and flag(layer["bias"]):
            return (layer["out_channels"],)
        return None
    return shape


for _n in (1, 2, 3):
    PARAMETERS[f"Conv{_n}d"] = _conv_parameters(False)
    PARAMETERS[f"ConvTranspose{_n}d"] = _conv_parameters(True)


# --------------------------------------------------------------------------- the lazy convolutions


def _lazy_args(n: int, transposed: bool):
    check = _conv_args(n, transposed)

    def construct(args: dict) -> dict:
        # torch builds the lazy layer as a convolution from 0 to 0 channels: only groups is checked.
        bound = check(dict(args, in_channels=0, out_channels=0))
        return dict(bound, out_channels=dim_arg(args["out_channels"]), in_channels=None)
    return construct


def _lazy_forward(n: int, transposed: bool):
    name = f"LazyConvTranspose{n}d" if transposed else f"LazyConv{n}d"
    eager = _conv_transpose_forward(n) if transposed else _conv_forward(n)

    def forward(layer, x: Shape, *rest) -> Result:
        if len(x) not in (n + 1, n + 2):
            raise layer_error(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but "
                              f"got input of size: torch.Size({torch_size(x)})", "RuntimeError", x)
        channels = x[1] if len(x) == n + 2 else x[0]
        groups = layer["groups"]
        if known_int(channels) is not None and known_int(groups) is not None and channels % groups:
            raise layer_error("in_channels must be divisible by groups", "ValueError", x)
        if transposed and not (known_int(layer["out_channels"]) is not None and known_int(groups)
                               and layer["out_channels"] % groups == 0):
            raise NotModelled("out_channels that groups may not divide (torch then fails on the bias)")
        params = dict(layer.params, in_channels=channels)
        return eager(Layer(layer.kind, tuple(params.items())), x, *rest)
    return forward


for _n in (1, 2, 3):
    register(f"LazyConv{_n}d", [("out_channels", NOT_GIVEN), ("kernel_size", NOT_GIVEN), ("stride", 1),
                                ("padding", 0), ("dilation", 1), ("groups", 1), ("bias", True),
                                ("padding_mode", "zeros")], _lazy_args(_n, False), _lazy_forward(_n, False))
    register(f"LazyConvTranspose{_n}d", [("out_channels", NOT_GIVEN), ("kernel_size", NOT_GIVEN),
                                         ("stride", 1), ("padding", 0), ("output_padding", 0),
                                         ("groups", 1), ("bias", True), ("dilation", 1),
                                         ("padding_mode", "zeros")], _lazy_args(_n, True),
             _lazy_forward(_n, True))
