"""Embedding and F.embedding: integer indices of any shape gain a trailing embedding_dim."""

from __future__ import annotations

from ..dims import Shape
from ..verdicts import Result
from .base import (
    FUNCTIONAL,
    NOT_GIVEN,
    PARAMETERS,
    NotModelled,
    argument_error,
    dim_arg,
    known_int,
    layer_error,
    register,
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

__all__ = ["embedding"]
PARAMETERS["Embedding"] = lambda layer, name: (
    (layer["num_embeddings"], layer["embedding_dim"]) if name == "weight" else None)
