"""Linear, Bilinear, Identity, Flatten/Unflatten, the Dropout family and the activations.

Linear's in_features mismatch keeps the matmul kind: torch reports it from
its matmul ("mat1 and mat2 shapes cannot be multiplied"), and the linter has
always filed it with the other matmul mismatches.
"""

from __future__ import annotations

from ..dialects import TORCH
from ..dims import UNKNOWN, Shape, eq, floordiv, is_zero, mul, product
from ..rules.reshaping import flatten as flatten_rule
from ..verdicts import Result, RuleWarning
from .base import (
    FUNCTIONAL,
    NOT_GIVEN,
    PARAMETERS,
    NotModelled,
    argument_error,
    dim_arg,
    flag,
    is_dim,
    known_int,
    layer_error,
    no_checks,
    register,
    torch_size,
    widths_differ,
    wrap_dim,
)


def _new_tensor(shape: Shape) -> None:
    """torch.empty(shape)'s refusal of a negative size, raised while building the weight."""
    for d in shape:
        if known_int(d) is not None and d < 0:
            raise argument_error(f"Trying to create tensor with negative dimension {d}: "
                                 f"{torch_size(shape)}", "RuntimeError")


# --------------------------------------------------------------------------- Linear


def linear(x: Shape, weight: Shape, bias: Shape | None = None) -> Result:
    """F.linear(x, weight, bias): x (..., in) times weight (out, in)^T."""
    x, weight = tuple(x), tuple(weight)
    if not x or not weight:
        raise layer_error(f"both arguments to linear need to be at least 1D, but they are "
                          f"{len(x)}D and {len(weight)}D", "RuntimeError", x, weight, kind="matmul")
    if len(weight) != 2:
        raise NotModelled("F.linear with a weight that is not 2-D")
    out_features, in_features = weight
    if widths_differ(x[-1], in_features):
        rows = product(x[:-1]) if len(x) > 1 else 1
        raise layer_error(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x[-1]} and "
                          f"{in_features}x{out_features})", "RuntimeError", x, weight,
                          kind="matmul", dim=len(x) - 1)
    return Result.of(x[:-1] + (out_features,))


def _linear_args(args: dict) -> dict:
    args = dict(args, in_features=dim_arg(args["in_features"]),
                out_features=dim_arg(args["out_features"]))
    _new_tensor((args["out_features"], args["in_features"]))
    return args


def _linear_forward(layer, x: Shape) -> Result:
    return linear(x, (layer["out_features"], layer["in_features"]))


def bilinear(x1: Shape, x2: Shape, weight: Shape, bias: Shape | None = None) -> Result:
    """F.bilinear: x1 (..., in1), x2 (..., in2), weight (out, in1, in2)."""
    if not x1 or not x2 or len(weight) != 3:
        raise NotModelled("bilinear of a 0-d input")
    if len(x1) != len(x2):
        raise layer_error(f"bilinear(): input dimensions do not match: got {len(x1)} and {len(x2)}",
                          "RuntimeError", x1, x2)
    for i, (a, b) in enumerate(zip(x1[:-1], x2[:-1])):
        if eq(a, b) is False:
            raise layer_error(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                              f"{a} and {b}", "RuntimeError", x1, x2, dim=i)
    for name, got, want in (("input1", x1[-1], weight[1]), ("input2", x2[-1], weight[2])):
        if eq(got, want) is False:
            raise layer_error(f"bilinear(): {name} size does not match weight size: got {got} but "
                              f"expected {want}", "RuntimeError", x1, x2)
    batch = tuple(a if known_int(a) is not None or b is UNKNOWN else b for a, b in zip(x1[:-1], x2[:-1]))
    return Result.of(batch + (weight[0],))


def _bilinear_args(args: dict) -> dict:
    for key in ("in1_features", "in2_features", "out_features"):
        args[key] = dim_arg(args[key])
    _new_tensor((args["out_features"], args["in1_features"], args["in2_features"]))
    return args


def _bilinear_forward(layer, x1: Shape, x2: Shape) -> Result:
    return bilinear(x1, x2, (layer["out_features"], layer["in1_features"], layer["in2_features"]))


register("Linear", [("in_features", NOT_GIVEN), ("out_features", NOT_GIVEN), ("bias", True)],
         _linear_args, _linear_forward)
def _lazy_linear_forward(layer, x: Shape) -> Result:
    """LazyLinear reads in_features from its first input's last dim, then runs as Linear."""
    if not x:
        raise NotModelled("a 0-d input (torch fails reading its last dim)")
    _new_tensor((layer["out_features"], x[-1]))
    return linear(x, (layer["out_features"], x[-1]))


register("LazyLinear", [("out_features", NOT_GIVEN), ("bias", True)],
         lambda a: dict(a, out_features=dim_arg(a["out_features"])), _lazy_linear_forward)
register("Bilinear", [("in1_features", NOT_GIVEN), ("in2_features", NOT_GIVEN),
                      ("out_features", NOT_GIVEN), ("bias", True)], _bilinear_args, _bilinear_forward)
FUNCTIONAL.update(linear=linear, bilinear=bilinear)
PARAMETERS["Linear"] = lambda layer, name: {
    "weight": (layer["out_features"], layer["in_features"]),
    "bias": (layer["out_features"],) if flag(layer["bias"]) else None}.get(name)


# --------------------------------------------------------------------------- shape-preserving


def _same(layer, x: Shape) -> Result:
    return Result.of(x)


# Activations whose arguments never change a shape: Identity takes and ignores anything.
_ELEMENTWISE = ("Identity", "ReLU", "ReLU6", "GELU", "Tanh", "Sigmoid", "SiLU", "LeakyReLU", "ELU",
                "CELU", "SELU", "Mish", "Softplus", "Softshrink", "Hardshrink", "Tanhshrink",
                "Hardtanh", "Hardsigmoid", "Hardswish", "LogSigmoid", "Softsign", "Threshold",
                "RReLU", "AlphaDropout", "FeatureAlphaDropout")
register(_ELEMENTWISE, [("*", None)], no_checks, _same, keeps_shape=True)


def _dropout_args(args: dict) -> dict:
    p = args["p"]
    if isinstance(p, (int, float)) and not isinstance(p, bool) and (p < 0 or p > 1):
        raise argument_error(f"dropout probability has to be between 0 and 1, but got {p}")
    return args


def _dropout_nd(n: int):
    def forward(layer, x: Shape) -> Result:
        ndim = len(x)
        if n == 1 and ndim not in (2, 3):
            raise layer_error(
                f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. Note that "
                "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
                "inputs).", "RuntimeError", x)
        if n > 1 and ndim not in (n + 1, n + 2):
            # torch warns (2-D input, or 3-D input to dropout2d) and still answers x's shape.
            raise NotModelled(f"dropout{n}d of a {ndim}-D input only warns")
        return Result.of(x)
    return forward


_DROPOUT_SIGNATURE = [("p", 0.5), ("inplace", False)]
register("Dropout", _DROPOUT_SIGNATURE, _dropout_args, _same, keeps_shape=True)
for _n in (1, 2, 3):
    register(f"Dropout{_n}d", _DROPOUT_SIGNATURE, _dropout_args, _dropout_nd(_n), keeps_shape=True)


def _prelu_forward(layer, x: Shape) -> Result:
    count = layer["num_parameters"]
    if known_int(count) == 1:
        return Result.of(x)
    if not x:
        raise layer_error("Not allow zero-dim input tensor.", "RuntimeError", x)
    channels = x[1] if len(x) >= 2 else 1
    if eq(count, channels) is False:
        raise layer_error(f"Mismatch of parameter numbers and input channel size. Found parameter "
                          f"numbers = {count} and channel size = {channels}.", "RuntimeError", x)
    return Result.of(x)


register("PReLU", [("num_parameters", 1), ("init", 0.25)],
         lambda a: dict(a, num_parameters=dim_arg(a["num_parameters"])), _prelu_forward)


def glu(x: Shape, dim: int = -1) -> Result:
    if not x:
        raise layer_error("glu does not support scalars because halving size must be even",
                          "RuntimeError", x)
    if known_int(dim) is None:
        raise NotModelled("a GLU dim that is not an int")
    axis = wrap_dim(dim, len(x))
    size = x[axis]
    if known_int(size) is not None:
        if size % 2:
            raise layer_error(f"Halving dimension must be even, but dimension {axis} is size {size}",
                              "RuntimeError", x, dim=axis)
        half = size // 2
    else:
        half = UNKNOWN
    return Result.of(x[:axis] + (half,) + x[axis + 1:])


register("GLU", [("dim", -1)], no_checks, lambda layer, x: glu(x, layer["dim"]))
FUNCTIONAL.update(glu=glu)


# --------------------------------------------------------------------------- softmax family


def softmax(x: Shape, dim=None, *, name: str = "softmax") -> Result:
    """F.softmax / log_softmax / softmin: dim wrapped like any torch dim; None is the implicit choice."""
    if dim is None:
        warning = RuleWarning("implicit-dim", f"Implicit dimension choice for {name} has been "
                              "deprecated. Change the call to include dim=X as an argument.")
        return Result.of(x, warning)
    if known_int(dim) is None:
        raise NotModelled("a softmax dim that is not an int")
    wrap_dim(dim, len(x))
    return Result.of(x)


def _softmax_layer(name: str):
    return lambda layer, x: softmax(x, layer["dim"], name=name)


for _name, _kind in (("softmax", "Softmax"), ("log_softmax", "LogSoftmax"), ("softmin", "Softmin")):
    register(_kind, [("dim", None)], no_checks, _softmax_layer(_name), keeps_shape=True)


def _softmax2d(layer, x: Shape) -> Result:
    if len(x) not in (3, 4):
        raise layer_error(f"Softmax2d: expected input to be 3D or 4D, got {len(x)}D instead",
                          "ValueError", x)
    return Result.of(x)


register("Softmax2d", [], no_checks, _softmax2d, keeps_shape=True)
FUNCTIONAL.update(softmax=softmax,
                  log_softmax=lambda x, dim=None: softmax(x, dim, name="log_softmax"),
                  softmin=lambda x, dim=None: softmax(x, dim, name="softmin"))


# --------------------------------------------------------------------------- Flatten / Unflatten


def _flatten_forward(layer, x: Shape) -> Result:
    start, end = layer["start_dim"], layer["end_dim"]
    if known_int(start) is None or known_int(end) is None:
        raise NotModelled("Flatten with dims that are not ints")
    return flatten_rule(x, start, end, dialect=TORCH)


register("Flatten", [("start_dim", 1), ("end_dim", -1)], no_checks, _flatten_forward)


def _unflatten_args(args: dict) -> dict:
    sizes = args["unflattened_size"]
    if not isinstance(sizes, (tuple, list)) or not all(is_dim(s) for s in sizes) or \
            known_int(args["dim"]) is None:
        raise NotModelled("Unflatten with a named dim or sizes that are not ints")
    return dict(args, unflattened_size=tuple(sizes))


def unflatten(x: Shape, dim: int, sizes: tuple) -> Result:
    """x.unflatten(dim, sizes); torch's internal errors (several -1, ...) are left unknown."""
    if not sizes:
        raise layer_error("unflatten: sizes must be non-empty", "RuntimeError", x)
    if not x:
        raise NotModelled("unflatten of a 0-d tensor")
    axis = wrap_dim(dim, len(x))
    size = x[axis]
    inferred = [i for i, s in enumerate(sizes) if s == -1]
    if len(inferred) > 1 or any(known_int(s) is not None and s < -1 for s in sizes):
        raise NotModelled("an unflatten torch rejects with an internal error")
    rest = product(s for s in sizes if s != -1)
    mismatch = layer_error(f"unflatten: Provided sizes {torch_size(sizes)} don't multiply up to the "
                           f"size of dim {axis} ({size}) in the input tensor", "RuntimeError", x,
                           kind="reshape", dim=axis)
    if not inferred:
        if eq(rest, size) is False:
            raise mismatch
        return Result.of(x[:axis] + tuple(sizes) + x[axis + 1:])
    known_size, known_rest = known_int(size), known_int(rest)
    if known_size is None or known_rest is None:
        filled = UNKNOWN
    elif known_rest == 0:
        if known_size == 0:
            raise NotModelled("torch's ambiguous -1 over zero elements")
        raise mismatch
    elif known_size % known_rest:
        raise mismatch
    else:
        filled = known_size // known_rest
    out = tuple(filled if s == -1 else s for s in sizes)
    return Result.of(x[:axis] + out + x[axis + 1:])


register("Unflatten", [("dim", NOT_GIVEN), ("unflattened_size", NOT_GIVEN)], _unflatten_args,
         lambda layer, x: unflatten(x, layer["dim"], layer["unflattened_size"]))

__all__ = ["bilinear", "glu", "linear", "softmax", "unflatten"]


# --------------------------------------------------------------------------- PixelShuffle


def _pixel_input(x: Shape, value, op: str, word: str) -> int:
    """Both pixel ops' checks, in torch's order: at least 3 dims, then a positive factor."""
    if len(x) < 3:
        raise layer_error(f"{op} expects input to have at least 3 dimensions, but got input with "
                          f"{len(x)} dimension(s)", "RuntimeError", x)
    factor = known_int(value)
    if factor is None:
        raise NotModelled(f"{op} with a factor that is not a known int")
    if factor <= 0:
        raise layer_error(f"{op} expects a positive {word}, but got {factor}", "RuntimeError")
    return factor


def _divides(size, factor: int) -> bool | None:
    """factor divides size: True, False, or None when the size is symbolic."""
    if isinstance(size, int):
        return size % factor == 0
    return True if factor == 1 else None


def pixel_shuffle(x: Shape, upscale_factor) -> Result:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    x = tuple(x)
    r = _pixel_input(x, upscale_factor, "pixel_shuffle", "upscale_factor")
    channels, height, width = x[-3:]
    divides = _divides(channels, r * r)
    if divides is False:
        raise layer_error(f"pixel_shuffle expects its input's 'channel' dimension to be divisible "
                          f"by the square of upscale_factor, but input.size(-3)={channels} is not "
                          f"divisible by {r * r}", "RuntimeError", x)
    if divides is None:
        raise NotModelled("channels that may not divide")
    return Result.of(x[:-3] + (floordiv(channels, r * r), mul(height, r), mul(width, r)))


def pixel_unshuffle(x: Shape, downscale_factor) -> Result:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W); torch hands back an empty input unchanged."""
    x = tuple(x)
    r = _pixel_input(x, downscale_factor, "pixel_unshuffle", "downscale_factor")
    channels, height, width = x[-3:]
    for size, word, index in ((height, "height", -2), (width, "width", -1)):
        divides = _divides(size, r)
        if divides is False:
            raise layer_error(f"pixel_unshuffle expects {word} to be divisible by "
                              f"downscale_factor, but input.size({index})={size} is not "
                              f"divisible by {r}", "RuntimeError", x)
        if divides is None:
            raise NotModelled("sizes that may not divide")
    empty = is_zero(product(x))
    if empty is None:
        raise NotModelled("an input that may be empty (torch returns it unchanged)")
    if empty:
        return Result.of(x)
    return Result.of(x[:-3] + (mul(channels, r * r), floordiv(height, r), floordiv(width, r)))


register("PixelShuffle", [("upscale_factor", NOT_GIVEN)], no_checks,
         lambda layer, x: pixel_shuffle(x, layer["upscale_factor"]))
register("PixelUnshuffle", [("downscale_factor", NOT_GIVEN)], no_checks,
         lambda layer, x: pixel_unshuffle(x, layer["downscale_factor"]))
FUNCTIONAL.update(pixel_shuffle=pixel_shuffle, pixel_unshuffle=pixel_unshuffle)
