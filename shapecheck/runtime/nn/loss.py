"""The losses: cross_entropy / nll_loss, the element-wise regression losses, and BCE.

``loss(name, input, target, target_dtype=..., reduction=...)`` is the one
rule; the nn classes (CrossEntropyLoss, ...) delegate to it with their
reduction. A class-index target that does not fit the logits is the "loss"
kind; a regression target that broadcasts to another shape is a warning
(torch's own UserWarning text), and one that cannot broadcast is torch's
broadcast error.
"""

from __future__ import annotations

from ..dialects import TORCH
from ..dims import Shape, dims_equal, eq
from ..rules.broadcast import broadcast_shapes
from ..verdicts import Result, RuleWarning
from .base import (
    KNOWN_CLASSES,
    NotModelled,
    known_int,
    layer_error,
    register,
    size_repr,
    torch_size,
)

# torch's ScalarType names, which the dtype checks print.
_SCALAR_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "bool": "Bool", "float32": "Float", "float64": "Double", "float16": "Half",
                 "bfloat16": "BFloat16"}
_FLOATING = frozenset({"float32", "float64", "float16", "bfloat16"})

PAIRWISE = frozenset({"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"})
CLASS_LOSSES = frozenset({"cross_entropy", "nll_loss"})
BINARY = frozenset({"binary_cross_entropy", "binary_cross_entropy_with_logits"})
SILENT = frozenset({"kl_div", "poisson_nll_loss"})
"""Losses that broadcast a target of another shape without a word."""


def _loss_error(message: str, exc_type: str, x: Shape, t: Shape, dim: int | None = None):
    return layer_error(message, exc_type, x, t, kind="loss", dim=dim)


def _reduced(shape: Shape, reduction) -> Result:
    if reduction == "none":
        return Result.of(shape)
    if reduction in ("mean", "sum"):
        return Result.of(())
    raise NotModelled(f"reduction={reduction!r}")


def _pairwise(name: str, x: Shape, t: Shape, reduction) -> Result:
    warnings = ()
    if dims_equal(x, t) is False:
        warnings = (RuleWarning("loss-broadcast", f"Using a target size ({size_repr(t)}) that is "
                                f"different to the input size ({size_repr(x)}). This will likely lead "
                                "to incorrect results due to broadcasting. Please ensure they have the "
                                "same size."),)
    full = broadcast_shapes(x, t, dialect=TORCH).shape
    return _reduced(full, reduction).with_warnings(*warnings)


def _binary(name: str, x: Shape, t: Shape, reduction) -> Result:
    if dims_equal(x, t) is False:
        if name == "binary_cross_entropy":
            text = (f"Using a target size ({size_repr(t)}) that is different to the input size "
                    f"({size_repr(x)}) is deprecated. Please ensure they have the same size.")
        else:
            text = f"Target size ({size_repr(t)}) must be the same as input size ({size_repr(x)})"
        raise _loss_error(text, "ValueError", x, t)
    return _reduced(x, reduction)


def _target_dtype_error(dtype: str, x: Shape, t: Shape):
    if dtype not in _SCALAR_NAMES:
        raise NotModelled(f"a target of dtype {dtype}")
    raise layer_error(f"expected target dtype to be Long or Byte, but got {_SCALAR_NAMES[dtype]}",
                      "RuntimeError", x, t, kind="dtype")


def _class_targets(name: str, x: Shape, t: Shape, dtype: str | None, reduction) -> Result:
    """nll_loss_nd: class indices of shape (N, d1, ...) for logits (N, C, d1, ...)."""
    if not x or (len(x) >= 2 and not t):
        raise NotModelled("a 0-d input or target (torch reads a size it does not have)")
    wrong_dtype = dtype is not None and dtype not in ("int64", "uint8")
    if len(x) == 1:
        if not (len(t) == 0 or len(t) == 1 and known_int(t[0]) == 1):
            raise NotModelled("a 1-d input with a target of several classes")
        if wrong_dtype:
            _target_dtype_error(dtype, x, t)
        return _reduced((), reduction)
    if known_int(x[1]) == 0:
        raise NotModelled("zero classes: the error is about the target's values")
    if eq(x[0], t[0]) is False:
        raise _loss_error(f"Expected input batch_size ({x[0]}) to match target batch_size ({t[0]}).",
                          "ValueError", x, t, dim=0)
    expected = (x[0],) + tuple(x[2:])
    if len(x) == 2:
        if len(t) > 1:
            raise _loss_error("0D or 1D target tensor expected, multi-target not supported",
                              "RuntimeError", x, t)
        if wrong_dtype:
            _target_dtype_error(dtype, x, t)
    elif len(x) == 4:
        if len(t) != 3:
            raise _loss_error(f"only batches of spatial targets supported (3D tensors) but got targets "
                              f"of dimension: {len(t)}", "RuntimeError", x, t)
        if dims_equal(t, expected) is False:
            raise _loss_error(f"size mismatch (got input: {torch_size(x)} , target: {torch_size(t)}",
                              "RuntimeError", x, t)
    elif dims_equal(t, expected) is False:
        raise _loss_error(f"Expected target size {torch_size(expected)}, got {torch_size(t)}",
                          "RuntimeError", x, t)
    if len(x) > 2 and wrong_dtype:
        _target_dtype_error(dtype, x, t)
    if len(x) > 2 and dtype == "uint8":
        # Byte passes the dtype check but not the spatial kernel's.
        raise layer_error("expected scalar type Long but found Byte", "RuntimeError",
                          x, t, kind="dtype")
    return _reduced(expected, reduction)


def loss(name: str, x: Shape, t: Shape, *, target_dtype: str | None = None,
         reduction="mean") -> Result | None:
    """F.<name>(input, target, reduction=...): the loss's shape and warnings, or torch's error.

    target_dtype is the target's dtype name ("int64", "float32") or None when not known;
    None is the answer when the case is not modelled.
    """
    try:
        return _loss(name, x, t, target_dtype, reduction)
    except NotModelled:
        return None


def _check_reduction(name: str, reduction) -> None:
    """_Reduction.get_enum's refusal of a name it does not know (kl_div also takes batchmean)."""
    valid = ("mean", "sum", "none") + (("batchmean",) if name == "kl_div" else ())
    if isinstance(reduction, str) and reduction not in valid and reduction != "elementwise_mean":
        raise layer_error(f"{reduction} is not a valid value for reduction", "ValueError", kind="argument")


def _loss(name: str, x: Shape, t: Shape, target_dtype: str | None, reduction) -> Result:
    x, t = tuple(x), tuple(t)
    if name in PAIRWISE:
        result = _pairwise(name, x, t, "none")  # the broadcast fails before the reduction is read
        _check_reduction(name, reduction)
        return _reduced(result.shape, reduction).with_warnings(*result.warnings)
    _check_reduction(name, reduction)
    if name in BINARY:
        return _binary(name, x, t, reduction)
    if name in SILENT:
        # Both compute target * (...) first: the target is torch's "tensor a".
        full = broadcast_shapes(t, x, dialect=TORCH).shape
        warnings = ()
        if dims_equal(x, t) is False:
            warnings = (RuleWarning("silent-broadcast", f"input {size_repr(x)} and target {size_repr(t)} "
                                    f"broadcast to {size_repr(full)} without a warning"),)
        return _reduced(full, reduction if reduction != "batchmean" else "mean").with_warnings(*warnings)
    if name == "soft_margin_loss":
        full = broadcast_shapes(x, t, dialect=TORCH).shape
        if dims_equal(full, x) is False:
            raise _loss_error(f"output with shape {torch_size(x)} doesn't match the broadcast shape "
                              f"{torch_size(full)}", "RuntimeError", x, t)
        return _reduced(full, reduction)
    if name not in CLASS_LOSSES:
        raise NotModelled(f"the loss {name}")
    same = dims_equal(x, t)
    if name == "cross_entropy" and same is not False:
        # The same shape means class probabilities (cross_entropy only).
        if same is None or target_dtype is None:
            raise NotModelled("probabilities or class indices: the shapes or the dtype are not known")
        if target_dtype not in _FLOATING:
            raise layer_error(f"Expected floating point type for target with class probabilities, got "
                              f"{_SCALAR_NAMES.get(target_dtype, target_dtype)}", "RuntimeError", x, t,
                              kind="dtype")
        return _reduced(x[:1] + x[2:] if len(x) >= 2 else (), reduction)
    return _class_targets(name, x, t, target_dtype, reduction)


LOSSES = {"MSELoss": "mse_loss", "L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss",
          "HuberLoss": "huber_loss", "BCELoss": "binary_cross_entropy",
          "BCEWithLogitsLoss": "binary_cross_entropy_with_logits", "CrossEntropyLoss": "cross_entropy",
          "NLLLoss": "nll_loss", "KLDivLoss": "kl_div", "PoissonNLLLoss": "poisson_nll_loss",
          "SoftMarginLoss": "soft_margin_loss"}
"""nn loss class -> its functional rule."""

FUNCTIONAL_LOSSES = frozenset(LOSSES.values())
"""The F.<name> losses the rule models."""

KNOWN_CLASSES.update(LOSSES)

_SIGNATURES = {
    "MSELoss": [("size_average", None), ("reduce", None), ("reduction", "mean")],
    "L1Loss": [("size_average", None), ("reduce", None), ("reduction", "mean")],
    "SmoothL1Loss": [("size_average", None), ("reduce", None), ("reduction", "mean"), ("beta", 1.0)],
    "HuberLoss": [("reduction", "mean"), ("delta", 1.0)],
    "BCELoss": [("weight", None), ("size_average", None), ("reduce", None), ("reduction", "mean")],
    "BCEWithLogitsLoss": [("weight", None), ("size_average", None), ("reduce", None),
                          ("reduction", "mean"), ("pos_weight", None)],
    "CrossEntropyLoss": [("weight", None), ("size_average", None), ("ignore_index", -100),
                         ("reduce", None), ("reduction", "mean"), ("label_smoothing", 0.0)],
    "KLDivLoss": [("size_average", None), ("reduce", None), ("reduction", "mean"), ("log_target", False)],
    "PoissonNLLLoss": [("log_input", True), ("full", False), ("size_average", None), ("eps", 1e-8),
                       ("reduce", None), ("reduction", "mean")],
    "SoftMarginLoss": [("size_average", None), ("reduce", None), ("reduction", "mean")],
    "NLLLoss": [("weight", None), ("size_average", None), ("ignore_index", -100), ("reduce", None),
                ("reduction", "mean")],
}


def _loss_args(args: dict) -> dict:
    if args.get("size_average") is not None or args.get("reduce") is not None:
        raise NotModelled("the legacy size_average/reduce arguments")
    if args.get("weight") is not None or args.get("pos_weight") is not None or \
            args.get("label_smoothing", 0.0) not in (0, 0.0):
        # Class weights and label smoothing carry shapes and paths of their own.
        raise NotModelled("weights or label smoothing")
    return args


def _loss_forward(name: str):
    def forward(layer, x: Shape, t: Shape, target_dtype=None) -> Result:
        return _loss(name, x, t, target_dtype, layer["reduction"])
    return forward


for _cls, _name in LOSSES.items():
    register(_cls, _SIGNATURES[_cls], _loss_args, _loss_forward(_name))

__all__ = ["BINARY", "CLASS_LOSSES", "LOSSES", "PAIRWISE", "SILENT", "loss"]
