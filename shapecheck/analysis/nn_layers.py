"""torch.nn layers as shape functions: what ``layer(x)`` gives for x's shape, or torch's error."""

from __future__ import annotations

from typing import Callable

from ..runtime.dialects import Dialect
from ..runtime.dims import UNKNOWN, Dim, add, eq, floordiv, format_shape, mul, sub
from ..runtime.verdicts import ShapeError
from .values import AbstractArray, ConstValue, IntValue, LayerValue, TupleValue

_IDENTITY = frozenset({"Dropout", "Dropout1d", "Dropout2d", "AlphaDropout", "ReLU", "ReLU6", "GELU",
                       "Tanh", "Sigmoid", "SiLU", "LeakyReLU", "ELU", "SELU", "Mish", "Softplus",
                       "Hardtanh", "Softmax", "LogSoftmax", "Identity", "LayerNorm", "BatchNorm1d",
                       "BatchNorm2d", "BatchNorm3d", "GroupNorm", "InstanceNorm1d",
                       "InstanceNorm2d", "RMSNorm", "PReLU", "Hardswish", "Softsign"})

LAYER_KINDS = frozenset({"Linear", "Conv1d", "Conv2d", "Embedding", "Flatten", "Sequential"}
                        | _IDENTITY)

LOSS_LAYERS = {"MSELoss": "mse_loss", "L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss",
               "HuberLoss": "huber_loss", "BCELoss": "binary_cross_entropy",
               "BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
               "CrossEntropyLoss": "cross_entropy", "NLLLoss": "nll_loss", "KLDivLoss": "kl_div"}


def _int(value) -> Dim | None:
    if isinstance(value, IntValue):
        return value.value
    return None


def _pair(value, n: int) -> tuple | None:
    if isinstance(value, IntValue):
        return (value.value,) * n
    if isinstance(value, TupleValue) and len(value.items) == n and all(
            isinstance(i, IntValue) for i in value.items):
        return tuple(i.value for i in value.items)
    return None


def apply_layer(layer: LayerValue, x: AbstractArray, dialect: Dialect,
                lookup: Callable) -> tuple[tuple | None, str | None] | ShapeError:
    """(output shape, dtype) of ``layer(x)``; a ShapeError when torch certainly raises."""
    kind = layer.kind
    if kind in _IDENTITY:
        return x.shape, None
    if kind == "Linear":
        return _linear(layer, x, dialect, lookup)
    if kind == "Embedding":
        dim = _int(layer.kw("embedding_dim", 1))
        if x.shape is None or dim is None:
            return None, "float32"
        return tuple(x.shape) + (dim,), "float32"
    if kind in ("Conv1d", "Conv2d"):
        return _conv(layer, x, 1 if kind == "Conv1d" else 2)
    if kind == "Flatten":
        spec = lookup("flatten", dialect)
        if spec is None or x.shape is None:
            return None, None
        start = _int(layer.kw("start_dim", 0, IntValue(1)))
        end = _int(layer.kw("end_dim", 1, IntValue(-1)))
        from ..runtime.ops import ArrayArg
        try:
            return tuple(spec.rule(ArrayArg(tuple(x.shape), x.dtype), start, end,
                                   dialect=dialect).shape), None
        except ShapeError as err:
            return err
        except Exception:
            return None, None
    return None, None


def _linear(layer: LayerValue, x: AbstractArray, dialect: Dialect, lookup: Callable):
    in_features = _int(layer.kw("in_features", 0))
    out_features = _int(layer.kw("out_features", 1))
    if in_features is None or out_features is None:
        return None, None
    shape = x.shape
    if shape is None:
        if not x.tail:
            return None, None
        shape = (UNKNOWN, x.tail[-1])
    spec = lookup("torch.matmul", dialect) or lookup("__matmul__", dialect)
    if spec is None:
        return None, None
    from ..runtime.ops import ArrayArg
    try:
        result = spec.rule(ArrayArg(tuple(shape), x.dtype), ArrayArg((in_features, out_features),
                                                                     x.dtype), dialect=dialect)
    except ShapeError as err:
        return err
    except Exception:
        return None, None
    return (tuple(result.shape) if x.shape is not None else None), None


def _conv(layer: LayerValue, x: AbstractArray, spatial: int):
    in_channels = _int(layer.kw("in_channels", 0))
    out_channels = _int(layer.kw("out_channels", 1))
    kernel = _pair(layer.kw("kernel_size", 2), spatial)
    stride = _pair(layer.kw("stride", 3, IntValue(1)), spatial)
    padding_value = layer.kw("padding", 4, IntValue(0))
    dilation = _pair(layer.kw("dilation", 5, IntValue(1)), spatial)
    groups = _int(layer.kw("groups", 6, IntValue(1)))
    if x.shape is None or len(x.shape) not in (spatial + 1, spatial + 2):
        return None, None
    batched = len(x.shape) == spatial + 2
    channels = x.shape[1 if batched else 0]
    if in_channels is not None and groups == 1 and eq(channels, in_channels) is False and \
            kernel is not None and out_channels is not None:
        weight = [out_channels, in_channels, *kernel]
        raise_text = (f"Given groups=1, weight of size {format_shape(tuple(weight), 'torch')}, "
                      f"expected input{format_shape(x.shape, 'torch')} to have {in_channels} "
                      f"channels, but got {channels} channels instead")
        return ShapeError("matmul", raise_text, "RuntimeError", dim=1 if batched else 0,
                          shapes=(tuple(x.shape),))
    if isinstance(padding_value, ConstValue) and padding_value.value == "same":
        spatial_out = tuple(x.shape[-spatial:])
    else:
        padding = _pair(padding_value, spatial)
        if None in (kernel, stride, padding, dilation) or out_channels is None:
            return None, None
        spatial_out = []
        for size, k, s, p, d in zip(x.shape[-spatial:], kernel, stride, padding, dilation):
            span = add(mul(d, sub(k, 1)), 1)
            spatial_out.append(add(floordiv(sub(add(size, mul(2, p)), span), s), 1)
                               if s is not UNKNOWN else UNKNOWN)
        spatial_out = tuple(spatial_out)
    lead = (x.shape[0],) if batched else ()
    return lead + (out_channels if out_channels is not None else UNKNOWN,) + spatial_out, None


__all__ = ["LAYER_KINDS", "LOSS_LAYERS", "apply_layer"]
