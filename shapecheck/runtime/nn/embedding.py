"""Embedding and F.embedding: integer indices of any shape gain a trailing embedding_dim."""

from __future__ import annotations

from ..dims import UNKNOWN, Shape, dims_equal, is_zero, product
from ..verdicts import Result
from .base import (
    FUNCTIONAL,
    NOT_GIVEN,
    PARAMETERS,
    NotModelled,
    argument_error,
    dim_arg,
    flag,
    known_int,
    layer_error,
    register,
    size_repr,
)
from .basic import _new_tensor

# torch's legacy tensor-type names, which its dtype check prints (bool prints a device-specific
# name, so it is left out: the error is still certain, but its text is not).
_TENSOR_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                 "int8": "CharTensor", "uint8": "ByteTensor", "int16": "ShortTensor"}


def embedding(x: Shape, weight: Shape, dtype: str | None = "int64") -> Result:
    """F.embedding(indices, weight): indices must be int64 or int32; dtype None is not known."""
    if len(weight) != 2:
        raise NotModelled("a weight that is not 2-D")
    if dtype is not None and dtype not in ("int64", "int32"):
        name = _TENSOR_TYPES.get(dtype)
        if name is None:
            raise NotModelled(f"indices of dtype {dtype}")
        raise layer_error(f"Expected tensor for argument #1 'indices' to have one of the following "
                          f"scalar types: Long, Int; but got torch.{name} instead (while checking "
                          f"arguments for embedding)", "RuntimeError", x, kind="dtype")
    return Result.of(tuple(x) + (weight[1],))


def _embedding_args(args: dict) -> dict:
    count, width = dim_arg(args["num_embeddings"]), dim_arg(args["embedding_dim"])
    padding_idx = args["padding_idx"]
    if known_int(padding_idx) is not None and known_int(count) is not None and (
            padding_idx > 0 and padding_idx >= count or padding_idx < 0 and padding_idx < -count):
            raise argument_error("Padding_idx must be within num_embeddings", "AssertionError")
    _new_tensor((count, width))
    return dict(args, num_embeddings=count, embedding_dim=width)


register("Embedding", [("num_embeddings", NOT_GIVEN), ("embedding_dim", NOT_GIVEN), ("padding_idx", None),
                       ("max_norm", None), ("norm_type", 2.0), ("scale_grad_by_freq", False),
                       ("sparse", False), ("_weight", None), ("_freeze", False)], _embedding_args,
         lambda layer, x, dtype="int64": embedding(x, (layer["num_embeddings"], layer["embedding_dim"]),
                                                   dtype))
FUNCTIONAL["embedding"] = embedding

PARAMETERS["Embedding"] = lambda layer, name: (
    (layer["num_embeddings"], layer["embedding_dim"]) if name == "weight" else None)


# --------------------------------------------------------------------------- EmbeddingBag


def embedding_bag(x: Shape, weight: Shape, offsets: Shape | None = None, max_norm=None, norm_type=2.0,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None) -> Result:
    """F.embedding_bag: (B, L) indices, or 1-D indices cut into bags at offsets, give one row per bag."""
    x = tuple(x)
    if per_sample_weights is not None and dims_equal(x, tuple(per_sample_weights)) is False:
        raise layer_error(f"embedding_bag: If per_sample_weights ({size_repr(per_sample_weights)}) is not "
                          f"None, then it must have the same shape as the input ({size_repr(x)})",
                          "ValueError", x)
    if len(weight) != 2:
        raise layer_error(f"weight has to be a 2D Tensor, but got Tensor of dimension {len(weight)}",
                          "ValueError", x)
    if len(x) == 2:
        if offsets is not None:
            raise layer_error("if input is 2D, then offsets has to be None, as input is treated is a "
                              "mini-batch of fixed length sequences. However, found offsets of type "
                              "<class 'torch.Tensor'>", "ValueError", x)
        if known_int(x[1]) == 0:
            raise NotModelled("bags of length zero (torch.arange with a zero step)")
        bags = x[0]
    elif len(x) == 1:
        if offsets is None:
            raise layer_error("offsets has to be a 1D Tensor but got None", "ValueError", x)
        if len(offsets) != 1:
            raise layer_error("offsets has to be a 1D Tensor", "ValueError", x)
        bags = offsets[0]
    else:
        raise layer_error(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {len(x)}",
                          "ValueError", x)
    if not isinstance(mode, str) or not isinstance(scale_grad_by_freq, bool) or not isinstance(sparse, bool):
        raise NotModelled("a mode or flag not known")
    if mode == "max":
        if scale_grad_by_freq:
            raise layer_error("max mode does not support scaling the gradient by the frequency",
                              "ValueError", x)
        if sparse:
            raise layer_error("max mode does not support sparse weights", "ValueError", x)
    elif mode not in ("sum", "mean"):
        raise layer_error("mode has to be one of sum, mean or max", "ValueError", x)
    if per_sample_weights is not None and mode != "sum":
        raise layer_error("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                          f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                          "on GitHub.", "NotImplementedError", x)
    if len(x) == 1 and flag(include_last_offset):
        if known_int(bags) is None or bags < 1 or bags == 1 and mode == "max":
            raise NotModelled("no bags (torch's max over them crashes)")
        bags = bags - 1
    return Result.of((bags, weight[1]))


def _embedding_bag_args(args: dict) -> dict:
    count, width = dim_arg(args["num_embeddings"]), dim_arg(args["embedding_dim"])
    padding_idx = known_int(args["padding_idx"])
    if padding_idx is not None and known_int(count) is not None and (
            padding_idx > 0 and padding_idx >= count or padding_idx < 0 and padding_idx < -count):
        raise argument_error("padding_idx must be within num_embeddings", "AssertionError")
    if args["_weight"] is not None:
        raise NotModelled("a given weight")
    _new_tensor((count, width))
    return dict(args, num_embeddings=count, embedding_dim=width)


def _embedding_bag_forward(layer, x: Shape, offsets=None, per_sample_weights=None) -> Result:
    return embedding_bag(x, (layer["num_embeddings"], layer["embedding_dim"]), offsets,
                         mode=layer["mode"], sparse=layer["sparse"],
                         scale_grad_by_freq=layer["scale_grad_by_freq"],
                         per_sample_weights=per_sample_weights,
                         include_last_offset=layer["include_last_offset"])


register("EmbeddingBag", [("num_embeddings", NOT_GIVEN), ("embedding_dim", NOT_GIVEN), ("max_norm", None),
                          ("norm_type", 2.0), ("scale_grad_by_freq", False), ("mode", "mean"),
                          ("sparse", False), ("_weight", None), ("include_last_offset", False),
                          ("padding_idx", None)], _embedding_bag_args, _embedding_bag_forward)
FUNCTIONAL["embedding_bag"] = embedding_bag
PARAMETERS["EmbeddingBag"] = PARAMETERS["Embedding"]


# --------------------------------------------------------------------------- one_hot


def one_hot(x: Shape, num_classes=-1, dtype: str | None = None) -> Result:
    """F.one_hot: int64 indices gain a trailing num_classes (read from the values when -1)."""
    x = tuple(x)
    if dtype is not None and dtype != "int64":
        raise layer_error("one_hot is only applicable to index tensor of type LongTensor.", "RuntimeError",
                          x, kind="dtype")
    classes = known_int(num_classes)
    if classes is None:
        raise NotModelled("a number of classes not known")
    empty = is_zero(product(x))
    if classes <= 0 and empty is True:
        raise layer_error("Can not infer total number of classes from empty tensor.", "RuntimeError", x)
    if classes == -1:
        return Result.of(x + (UNKNOWN,))
    if classes <= 0:
        raise NotModelled("too few classes for any index (the error names the values)")
    return Result.of(x + (classes,))


FUNCTIONAL["one_hot"] = one_hot

__all__ = ["embedding", "embedding_bag", "one_hot"]
