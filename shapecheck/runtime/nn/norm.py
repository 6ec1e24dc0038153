"""BatchNorm1d/2d/3d, LayerNorm, GroupNorm, InstanceNorm1d/2d/3d, RMSNorm and LocalResponseNorm.

Every norm keeps its input's shape; what the rules decide is whether torch
accepts the input: the rank, the channel count against num_features, the
trailing dims against normalized_shape, and the "more than 1 value per
channel" check that only applies in training. ``training=None`` means the
mode is not known, so that check then answers unknown instead of guessing.
"""

from __future__ import annotations

from ..dims import Shape, eq, product
from ..verdicts import Result, RuleWarning
from .base import (
    CHECK_ONLY,
    FUNCTIONAL,
    FUNCTIONAL_KEEPS_SHAPE,
    NOT_GIVEN,
    PARAMETERS,
    NotModelled,
    argument_error,
    dim_arg,
    flag,
    is_dim,
    known_int,
    layer_error,
    register,
    size_repr,
    torch_size,
    widths_differ,
)


def _single_value(count, training, message: str, x: Shape) -> None:
    """torch's _verify_batch_size / _verify_spatial_size: one value per channel cannot be normalized."""
    if known_int(count) != 1:
        return
    if training is None:
        raise NotModelled("a single value per channel, in a mode not known")
    if training:
        raise layer_error(message, "ValueError", x)


# --------------------------------------------------------------------------- BatchNorm


def batch_norm(x: Shape, num_features, *, training=True, stats: bool = True, affine: bool = True) -> Result:
    """F.batch_norm with running stats and/or affine parameters of num_features elements."""
    if any(known_int(d) == 0 for d in x):
        raise NotModelled("an empty batch (torch skips its checks)")
    _single_value(product((x[0],) + tuple(x[2:])), training,
                  f"Expected more than 1 value per channel when training, got input size {size_repr(x)}",
                  x)
    for present, name in ((stats, "running_mean"), (affine, "weight")):
        if present:
            if widths_differ(x[1], num_features):
                raise layer_error(f"{name} should contain {x[1]} elements not {num_features}",
                                  "RuntimeError", x, dim=1)
            break
    return Result.of(x)


def _batch_norm_forward(ranks: tuple[int, ...], text: str):
    def forward(layer, x: Shape, training=True) -> Result:
        if len(x) not in ranks:
            raise layer_error(f"expected {text} input (got {len(x)}D input)", "ValueError", x)
        # Without running stats torch normalizes by the batch in eval mode too.
        uses_batch = True if not flag(layer["track_running_stats"]) else training
        return batch_norm(x, layer["num_features"], training=uses_batch,
                          stats=flag(layer["track_running_stats"]), affine=flag(layer["affine"]))
    return forward


_NORM_SIGNATURE = [("num_features", NOT_GIVEN), ("eps", 1e-5), ("momentum", 0.1), ("affine", True),
                   ("track_running_stats", True)]


def _features(args: dict) -> dict:
    return dict(args, num_features=dim_arg(args["num_features"]))


register("BatchNorm1d", _NORM_SIGNATURE, _features, _batch_norm_forward((2, 3), "2D or 3D"),
         keeps_shape=True)
register("BatchNorm2d", _NORM_SIGNATURE, _features, _batch_norm_forward((4,), "4D"), keeps_shape=True)
register("BatchNorm3d", _NORM_SIGNATURE, _features, _batch_norm_forward((5,), "5D"), keeps_shape=True)


# --------------------------------------------------------------------------- InstanceNorm


def _instance_norm_forward(n: int):
    ranks = (n + 1, n + 2)

    def forward(layer, x: Shape, training=True) -> Result:
        if len(x) not in ranks:
            raise layer_error(f"expected {ranks[0]}D or {ranks[1]}D input (got {len(x)}D input)",
                              "ValueError", x)
        channel = len(x) - n - 1
        features = layer["num_features"]
        warnings = ()
        if widths_differ(x[channel], features):
            if flag(layer["affine"]):
                raise layer_error(f"expected input's size at dim={channel} to match num_features "
                                  f"({features}), but got: {x[channel]}.", "ValueError", x, dim=channel)
            if flag(layer["track_running_stats"]):
                raise NotModelled("running stats of another width without affine parameters")
            warnings = (RuleWarning("num-features", f"input's size at dim={channel} does not match "
                                    "num_features. You can silence this warning by not passing in "
                                    "num_features, which is not used because affine=False"),)
        batched = x if len(x) == n + 2 else (1,) + x
        use_input_stats = True if not flag(layer["track_running_stats"]) else training
        _single_value(product(batched[2:]), use_input_stats,
                      f"Expected more than 1 spatial element when training, got input size "
                      f"{size_repr(batched)}", x)
        return Result.of(x, *warnings)
    return forward


_INSTANCE_SIGNATURE = [("num_features", NOT_GIVEN), ("eps", 1e-5), ("momentum", 0.1),
                       ("affine", False), ("track_running_stats", False)]
for _n in (1, 2, 3):
    register(f"InstanceNorm{_n}d", _INSTANCE_SIGNATURE, _features, _instance_norm_forward(_n),
             keeps_shape=True)


# --------------------------------------------------------------------------- LayerNorm / RMSNorm


def _normalized(args: dict) -> dict:
    shape = args["normalized_shape"]
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if not shape or not all(is_dim(d) for d in shape):
        raise NotModelled("an empty or unreadable normalized_shape")
    return dict(args, normalized_shape=shape)


def _trailing_mismatch(x: Shape, shape: Shape) -> bool:
    return len(x) < len(shape) or any(widths_differ(a, b) for a, b in zip(x[len(x) - len(shape):], shape))


def layer_norm(x: Shape, normalized_shape: Shape) -> Result:
    """F.layer_norm: the trailing dims of x must be normalized_shape."""
    shape = tuple(normalized_shape)
    if _trailing_mismatch(x, shape):
        raise layer_error(f"Given normalized_shape={torch_size(shape)}, expected input with shape "
                          f"[*, {', '.join(map(str, shape))}], but got input of size{torch_size(x)}",
                          "RuntimeError", x)
    return Result.of(x)


def rms_norm(x: Shape, normalized_shape: Shape) -> Result:
    """F.rms_norm: like layer_norm, with its own rank check and wording."""
    shape = tuple(normalized_shape)
    if len(x) < len(shape):
        raise layer_error(f"Input tensor must have at least {len(shape)} dimensions, but got {len(x)}",
                          "ValueError", x)
    if _trailing_mismatch(x, shape):
        raise layer_error(f"Given normalized_shape={torch_size(shape)}, expected input with shape "
                          f"[*{', '.join(map(str, shape))}], but got input of size{torch_size(x)}",
                          "RuntimeError", x)
    return Result.of(x)


register("LayerNorm", [("normalized_shape", NOT_GIVEN), ("eps", 1e-5), ("elementwise_affine", True),
                       ("bias", True)], _normalized,
         lambda layer, x: layer_norm(x, layer["normalized_shape"]), keeps_shape=True)
register("RMSNorm", [("normalized_shape", NOT_GIVEN), ("eps", None), ("elementwise_affine", True)],
         _normalized, lambda layer, x: rms_norm(x, layer["normalized_shape"]), keeps_shape=True)


# --------------------------------------------------------------------------- GroupNorm


def _group_args(args: dict) -> dict:
    groups, channels = dim_arg(args["num_groups"]), dim_arg(args["num_channels"])
    if known_int(groups) is not None and known_int(channels) is not None:
        if groups == 0:
            raise NotModelled("zero groups (a ZeroDivisionError inside torch)")
        if channels % groups:
            raise argument_error(f"num_channels ({channels}) must be divisible by num_groups ({groups})")
    return dict(args, num_groups=groups, num_channels=channels)


def group_norm(x: Shape, num_groups, num_channels=None) -> Result:
    """F.group_norm(x, num_groups, weight of num_channels elements or none)."""
    if len(x) < 2:
        raise layer_error(f"Expected at least 2 dimensions for input tensor but received {len(x)}",
                          "RuntimeError", x)
    n, c = known_int(x[0]), known_int(x[1])
    g = known_int(num_groups)
    if None in (n, c, g) or not all(known_int(d) is not None for d in x[2:]):
        if num_channels is not None and widths_differ(x[1], num_channels):
            # Certain to fail; which check speaks first (one value per group, divisibility, the
            # weight's size) depends on the unknown sizes: the weight's is the mismatch itself.
            raise layer_error(f"Expected weight to be a vector of size equal to the number of "
                              f"channels in input, but got weight of shape [{num_channels}] and "
                              f"input of shape {torch_size(x)}", "RuntimeError", x, dim=1)
        return Result.of(x)
    verified = [n * c // g, g] + list(x[2:])
    if product(verified[:1] + verified[2:]) == 1:
        raise layer_error(f"Expected more than 1 value per channel when training, got input size "
                          f"{verified}", "ValueError", x)
    if c % g:
        raise layer_error(f"Expected number of channels in input to be divisible by num_groups, but "
                          f"got input of shape {torch_size(x)} and num_groups={g}", "RuntimeError", x)
    if num_channels is not None and c != num_channels:
        raise layer_error(f"Expected weight to be a vector of size equal to the number of channels in "
                          f"input, but got weight of shape [{num_channels}] and input of shape "
                          f"{torch_size(x)}", "RuntimeError", x, dim=1)
    return Result.of(x)


register("GroupNorm", [("num_groups", NOT_GIVEN), ("num_channels", NOT_GIVEN), ("eps", 1e-5),
                       ("affine", True)], _group_args,
         lambda layer, x: group_norm(x, layer["num_groups"],
                                     layer["num_channels"] if flag(layer["affine"]) else None),
         keeps_shape=True)



# --------------------------------------------------------------------------- LocalResponseNorm


def local_response_norm(x: Shape, size, alpha=1e-4, beta=0.75, k=1.0) -> Result:
    """F.local_response_norm: a mean over neighbouring channels; the shape is kept."""
    x = tuple(x)
    if len(x) < 3:
        raise layer_error(f"Expected 3D or higher dimensionality                          input (got "
                          f"{len(x)} dimensions)", "ValueError", x)
    if known_int(size) is None or size <= 0:
        raise NotModelled("a window size not known or not positive")
    return Result.of(x)


# --------------------------------------------------------------------------- functional forms


def _vector(shape, name: str, size, x: Shape, message: str) -> None:
    """A per-channel (or per-element) tensor of ``shape`` where torch wants ``size`` elements."""
    if shape is None:
        return
    shape = tuple(shape)
    if len(shape) != 1:
        raise NotModelled(f"a {name} of {len(shape)} dims")
    if widths_differ(shape[0], size):
        raise layer_error(message.format(name=name, got=shape[0]), "RuntimeError", x)


def layer_norm_functional(x: Shape, normalized_shape, weight=None, bias=None, eps=1e-5) -> Result:
    """F.layer_norm(input, normalized_shape, weight, bias): weight and bias are normalized_shape."""
    if not isinstance(normalized_shape, (tuple, list)) or not all(is_dim(d) for d in normalized_shape):
        raise NotModelled("a normalized_shape that is no tuple of sizes (torch's TypeError)")
    shape = tuple(normalized_shape)
    if not shape:
        raise layer_error("Expected normalized_shape to be at least 1-dimensional, i.e., containing "
                          "at least one element, but got normalized_shape = []", "RuntimeError", x)
    for name, given in (("weight", weight), ("bias", bias)):
        if given is not None and (len(tuple(given)) != len(shape) or any(
                widths_differ(a, b) for a, b in zip(given, shape))):
            if len(tuple(given)) == len(shape) and not all(
                    known_int(a) is not None for a in given):
                raise NotModelled("a symbolic weight that differs")
            raise layer_error(f"Expected {name} to be of same shape as normalized_shape, but got "
                              f"{name} of shape {torch_size(tuple(given))} and normalized_shape = "
                              f"{torch_size(shape)}", "RuntimeError", x)
    return layer_norm(x, shape)


def rms_norm_functional(x: Shape, normalized_shape, weight=None, eps=None) -> Result:
    """F.rms_norm(input, normalized_shape, weight): weight is normalized_shape."""
    if not isinstance(normalized_shape, (tuple, list)) or not normalized_shape or \
            not all(is_dim(d) for d in normalized_shape):
        raise NotModelled("a normalized_shape that is no tuple of sizes")
    shape = tuple(normalized_shape)
    if weight is not None and (len(tuple(weight)) != len(shape) or any(
            widths_differ(a, b) for a, b in zip(weight, shape))):
        if len(tuple(weight)) == len(shape) and not all(known_int(a) is not None for a in weight):
            raise NotModelled("a symbolic weight that differs")
        raise layer_error(f"Expected weight to be of same shape as normalized_shape, but got weight "
                          f"of shape {torch_size(tuple(weight))} and normalized_shape = "
                          f"{torch_size(shape)}", "RuntimeError", x)
    return rms_norm(x, shape)


def group_norm_functional(x: Shape, num_groups, weight=None, bias=None, eps=1e-5) -> Result:
    """F.group_norm(input, num_groups, weight, bias): weight has the input's channel count."""
    if not is_dim(num_groups) or bias is not None and weight is None:
        raise NotModelled("groups not a size, or a bias without a weight")
    if bias is not None and tuple(bias) != tuple(weight):
        raise NotModelled("a bias that differs from the weight (torch's message names the weight)")
    if weight is not None and len(tuple(weight)) != 1:
        raise NotModelled("a weight of several dims")
    return group_norm(x, num_groups, tuple(weight)[0] if weight is not None else None)


def batch_norm_functional(x: Shape, running_mean=None, running_var=None, weight=None, bias=None,
                          training=False, momentum=0.1, eps=1e-5) -> Result:
    """F.batch_norm: each of running_mean, running_var, weight and bias, when given, holds one
    element per channel (dim 1); in eval mode the running statistics must be given."""
    x = tuple(x)
    if len(x) < 2 or not (training is None or isinstance(training, bool)):
        raise NotModelled("an input of fewer than 2 dims, or a mode not read")
    if any(known_int(d) == 0 for d in x):
        raise NotModelled("an empty batch (torch skips its checks)")
    if training is None:
        # The mode is not known (a module's self.training): a statistic or parameter of another
        # width fails in either mode, though another check may speak first.
        for name, given in (("running_mean", running_mean), ("running_var", running_var),
                            ("weight", weight), ("bias", bias)):
            _vector(given, name, x[1], x, "{name} should contain " + str(x[1]) + " elements not {got}")
        if running_mean is None or running_var is None or weight is None:
            raise NotModelled("statistics that may or may not be needed in a mode not known")
        return Result.of(x)
    if training:
        _single_value(product((x[0],) + x[2:]), True,
                      f"Expected more than 1 value per channel when training, got input size "
                      f"{size_repr(x)}", x)
    for name, given in (("running_mean", running_mean), ("running_var", running_var)):
        if not training and given is None:
            raise layer_error(f"{name} must be defined in evaluation mode", "RuntimeError", x)
    for name, given in (("running_mean", running_mean), ("running_var", running_var),
                        ("weight", weight), ("bias", bias)):
        _vector(given, name, x[1], x, "{name} should contain " + str(x[1]) + " elements not {got}")
    if (running_mean is None) != (running_var is None):
        raise layer_error("running_mean and running_var must either both be None or neither be None",
                          "ValueError", x)
    return Result.of(x)


def instance_norm_functional(x: Shape, running_mean=None, running_var=None, weight=None,
                             bias=None, use_input_stats=True, momentum=0.1, eps=1e-5) -> Result:
    """F.instance_norm keeps the input's shape; statistics or weights sized for another channel
    count are checked against the batch times the channels, a message left unmodelled."""
    if len(x) < 2:
        raise NotModelled("an input of fewer than 2 dims")
    for given, what in ((running_mean, "running_mean"), (weight, "weight")):
        if given is not None and (len(tuple(given)) != 1 or eq(tuple(given)[0], x[1]) is not True):
            raise NotModelled(f"{what} of another width than the channels")
    return Result.of(x)


FUNCTIONAL.update(layer_norm=layer_norm_functional, rms_norm=rms_norm_functional,
                  group_norm=group_norm_functional, batch_norm=batch_norm_functional,
                  instance_norm=instance_norm_functional)
FUNCTIONAL_KEEPS_SHAPE.update({"layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm",
                               "local_response_norm"})
# (Not the running statistics: batch_norm in eval mode needs them given.)
_AFFINE = frozenset({"weight", "bias", "eps"})
CHECK_ONLY.update(layer_norm=_AFFINE, rms_norm=frozenset({"weight", "eps"}), group_norm=_AFFINE,
                  batch_norm=_AFFINE | {"momentum"}, instance_norm=_AFFINE | {"momentum"})


# --------------------------------------------------------------------------- parameters and buffers


def _feature_parameters(layer, name: str) -> Shape | None:
    """BatchNorm / InstanceNorm: weight and bias (num_features,) when affine; the running
    statistics (num_features,) when they are tracked."""
    if name in ("weight", "bias"):
        return (layer["num_features"],) if flag(layer["affine"]) else None
    if name in ("running_mean", "running_var"):
        return (layer["num_features"],) if flag(layer["track_running_stats"]) else None
    return None


def _normalized_parameters(layer, name: str) -> Shape | None:
    """LayerNorm / RMSNorm: weight (and LayerNorm's bias) of normalized_shape, when affine."""
    if name == "weight" or name == "bias" and layer.kind == "LayerNorm" and flag(layer["bias"]):
        return tuple(layer["normalized_shape"]) if flag(layer["elementwise_affine"]) else None
    return None


for _kind in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
              "InstanceNorm3d"):
    PARAMETERS[_kind] = _feature_parameters
PARAMETERS["LayerNorm"] = PARAMETERS["RMSNorm"] = _normalized_parameters
PARAMETERS["GroupNorm"] = lambda layer, name: (
    (layer["num_channels"],) if name in ("weight", "bias") and flag(layer["affine"]) else None)


register("LocalResponseNorm", [("size", NOT_GIVEN), ("alpha", 1e-4), ("beta", 0.75), ("k", 1.0)],
         lambda a: a, lambda layer, x: local_response_norm(x, layer["size"]), keeps_shape=True)
FUNCTIONAL["local_response_norm"] = local_response_norm

__all__ = ["batch_norm", "batch_norm_functional", "group_norm", "group_norm_functional",
           "instance_norm_functional", "layer_norm", "layer_norm_functional", "local_response_norm",
           "rms_norm", "rms_norm_functional"]
