"""What a layer says about sizes: the rank of its batched input, and which of its
constructor's arguments are sizes.

A model file rarely says what rank ``forward`` receives; its first layer
does. A Conv2d takes (N, C, H, W), or an unbatched (C, H, W); a Conv2d
with in_channels=3 says the dim at 1 is 3. An analyzer that knows nothing
else of its input takes the batched form, which is what model code passes
(the unbatched forms came later and are for single samples).

Layers whose input rank is open (Linear, LayerNorm, GroupNorm, Embedding,
activations) or has two batched forms (BatchNorm1d takes (N, C) and
(N, C, L)) are not listed: they say nothing certain about the rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..dims import Sym
from .base import LAYERS, Layer


@dataclass(frozen=True)
class BatchedInput:
    """``rank`` dims; the layer's ``feature_argument`` is the size at ``feature_dim``."""

    rank: int
    feature_dim: int | None = None
    feature_argument: str | None = None


def _spatial(n: int, feature_argument: str | None) -> BatchedInput:
    return BatchedInput(n + 2, 1 if feature_argument else None, feature_argument)


BATCHED_INPUT: dict[str, BatchedInput] = {}
for _n in (1, 2, 3):
    for _kind in (f"Conv{_n}d", f"ConvTranspose{_n}d"):
        BATCHED_INPUT[_kind] = _spatial(_n, "in_channels")
    for _kind in (f"MaxPool{_n}d", f"AvgPool{_n}d", f"AdaptiveAvgPool{_n}d",
                  f"AdaptiveMaxPool{_n}d", f"LPPool{_n}d", f"Dropout{_n}d"):
        BATCHED_INPUT[_kind] = _spatial(_n, None)
    # Without affine parameters or running statistics torch does not check num_features
    # (it warns): the width is no fact about the input.
    BATCHED_INPUT[f"InstanceNorm{_n}d"] = _spatial(_n, None)
for _n in (2, 3):
    BATCHED_INPUT[f"BatchNorm{_n}d"] = _spatial(_n, "num_features")
for _kind in ("RNN", "GRU", "LSTM"):
    # (L, N, H_in), or (N, L, H_in) with batch_first: the features are last either way.
    BATCHED_INPUT[_kind] = BatchedInput(3, -1, "input_size")


def batched_input(layer: Layer) -> BatchedInput | None:
    """What ``layer``'s batched input looks like; None when the layer does not say."""
    return BATCHED_INPUT.get(layer.kind)


FUNCTIONAL_BATCHED_RANK: dict[str, int] = {}
"""The functional forms of the layers above: ``F.conv2d(x, w)`` takes x as (N, C, H, W) as
nn.Conv2d does (a layer subclass's forward, timm's ScaledStdConv2d, calls it). Their channels
come from the weight (``weight_channels``)."""
for _n in (1, 2, 3):
    for _name in (f"conv{_n}d", f"conv_transpose{_n}d", f"max_pool{_n}d", f"avg_pool{_n}d",
                  f"adaptive_avg_pool{_n}d", f"adaptive_max_pool{_n}d", f"lp_pool{_n}d"):
        FUNCTIONAL_BATCHED_RANK[_name] = _n + 2


def weight_channels(name: str, weight: tuple, groups: Any) -> Any:
    """The input channels ``F.<name>(x, weight, groups=groups)`` needs: the weight's dim 1
    times the groups for a convolution, its dim 0 for a transposed one; None when not known."""
    if name.startswith("conv_transpose"):
        return weight[0]
    if name.startswith("conv") and isinstance(groups, int) and not isinstance(groups, bool):
        return weight[1] * groups if groups != 1 else weight[1]
    return None


def trailing_features(layer: Layer) -> tuple | None:
    """The trailing dims a layer of any input rank reads: (in_features,) for a Linear, the
    normalized shape for a LayerNorm; None for other layers, or when they are not sizes."""
    try:
        if layer.kind == "Linear":
            dims = (layer["in_features"],)
        elif layer.kind in ("LayerNorm", "RMSNorm"):
            dims = tuple(layer["normalized_shape"])
        else:
            return None
    except (KeyError, TypeError):
        return None
    if not dims or not all(isinstance(d, (int, Sym)) and not isinstance(d, bool) for d in dims):
        return None
    return dims


SIZE_ARGUMENTS = frozenset({
    "in_channels", "out_channels", "in_features", "out_features", "in1_features",
    "in2_features", "num_features", "num_channels", "num_groups", "num_embeddings",
    "embedding_dim", "input_size", "hidden_size", "proj_size", "embed_dim", "num_heads",
    "d_model", "nhead", "dim_feedforward", "groups",
})
"""Constructor arguments that are always one int: counts of channels, features, heads.
(Kernel sizes, strides and paddings may be tuples, and normalized_shape a list.)"""


# Layers that do not keep these sizes: a transformer layer keeps its sublayers instead.
_NOT_STORED = {"TransformerEncoderLayer": {"d_model", "nhead", "dim_feedforward"},
               "TransformerDecoderLayer": {"d_model", "nhead", "dim_feedforward"},
               "Transformer": {"dim_feedforward"}}


_CONV_GEOMETRY = frozenset({"kernel_size", "stride", "padding", "dilation"})

STORED_SHAPES = {"LayerNorm": frozenset({"normalized_shape"}),
                 "RMSNorm": frozenset({"normalized_shape"}),
                 **{f"{lazy}Conv{n}d": _CONV_GEOMETRY for n in (1, 2, 3) for lazy in ("", "Lazy")},
                 **{f"{lazy}ConvTranspose{n}d": _CONV_GEOMETRY | {"output_padding"}
                    for n in (1, 2, 3) for lazy in ("", "Lazy")}}
"""Layer kind -> the attributes torch keeps as tuples of sizes, normalized as the built layer
has them (``nn.LayerNorm(96).normalized_shape`` is ``(96,)``, ``nn.Conv2d(3, 8, 3,
stride=2).stride`` is ``(2, 2)``; a padding string stays the string). A convolution's
subclass hands them to F.conv2d."""


_NORMS = ("BatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm")


def stored_as_given(kind: str, name: str) -> bool:
    """``nn.<kind>(...).<name>`` is the argument as the constructor was given it: a norm's eps,
    momentum and flags (a subclass's forward hands ``self.eps`` to F.layer_norm)."""
    return name in ("eps", "momentum", "affine", "track_running_stats", "elementwise_affine") and \
        kind.startswith(_NORMS) and kind in LAYERS and any(n == name for n, _ in LAYERS[kind].signature)


def stored_size(kind: str, name: str) -> bool:
    """``nn.<kind>(...).<name>`` is the constructor's size argument of that name as given
    (``fc.in_features``, ``conv.out_channels``, ``lstm.hidden_size``): what a model reads to
    size the next layer (``nn.Linear(self.fc.in_features, n)``)."""
    spec = LAYERS.get(kind)
    return spec is not None and name in SIZE_ARGUMENTS \
        and name not in _NOT_STORED.get(kind, ()) and any(n == name for n, _ in spec.signature)


def bound_arguments(kind: str, args: list | tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """``nn.<kind>(*args, **kwargs)``'s arguments by parameter name, as far as they bind."""
    spec = LAYERS.get(kind)
    if spec is None or spec.signature == (("*", None),):
        return []
    names = [name for name, _ in spec.signature]
    return list(zip(names, args)) + list(kwargs.items())


__all__ = ["BATCHED_INPUT", "FUNCTIONAL_BATCHED_RANK", "SIZE_ARGUMENTS", "STORED_SHAPES", "BatchedInput", "batched_input",
           "bound_arguments", "stored_as_given", "stored_size", "trailing_features", "weight_channels"]
