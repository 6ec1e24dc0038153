"""The losses of several inputs: cosine-embedding, margin-ranking, hinge-embedding, triplet
(with or without a distance function), multi-label and multi-class margin, Gaussian NLL, and CTC.

Each F.<name> takes its tensors as shapes, then its options; each nn class
delegates to it. ``reduction`` is checked as torch checks it, before the
shapes for the ATen losses and after them for the Python ones. Most of these
losses broadcast their inputs, and a broadcast that fails is torch's own
broadcast error, with the operands in torch's order (tensor a, tensor b).
"""

from __future__ import annotations

from ..dialects import TORCH
from ..dims import Shape, dims_equal, eq, is_zero, product
from ..rules.broadcast import broadcast_shapes
from ..verdicts import Result
from .base import (
    FUNCTIONAL,
    NotModelled,
    argument_error,
    known_int,
    layer_error,
    register,
    size_repr,
    torch_size,
)

_REDUCTIONS = ("mean", "sum", "none")


def _reduction(reduction, x: Shape) -> None:
    """_Reduction.get_enum: an unknown name is a ValueError."""
    if not isinstance(reduction, str):
        raise NotModelled("a reduction not known")
    if reduction not in _REDUCTIONS:
        if reduction == "elementwise_mean":
            raise NotModelled("the deprecated elementwise_mean")
        raise layer_error(f"{reduction} is not a valid value for reduction", "ValueError", x)


def _reduced(shape: Shape, reduction: str) -> Result:
    return Result.of(shape if reduction == "none" else ())


def _broadcast(*shapes: Shape) -> Shape:
    """Left to right, as torch meets the operands; the first failure is torch's error."""
    out = shapes[0]
    for shape in shapes[1:]:
        out = broadcast_shapes(out, shape, dialect=TORCH).shape
    return out


def _loss_error(message: str, exc_type: str, *shapes: Shape):
    return layer_error(message, exc_type, *shapes, kind="loss")


def cosine_embedding_loss(x1: Shape, x2: Shape, target: Shape, margin=0.0, size_average=None, reduce=None,
                          reduction="mean") -> Result:
    x1, x2, target = tuple(x1), tuple(x2), tuple(target)
    _legacy(size_average, reduce)
    _reduction(reduction, x1)
    if len(target) not in (0, 1):
        raise _loss_error("0D or 1D target tensor expected, multi-target not supported", "RuntimeError",
                          x1, target)
    want = len(target) + 1
    if len(x1) != want or len(x2) != want:
        raise _loss_error(f"{len(target)}D target tensor expects {want}D input tensors, but found inputs "
                          f"with sizes {torch_size(x1)} and {torch_size(x2)}.", "RuntimeError", x1, x2)
    cos = _broadcast(x1, x2)[:-1]
    return _reduced(_broadcast(target, cos), reduction)


def margin_ranking_loss(x1: Shape, x2: Shape, target: Shape, margin=0.0, size_average=None, reduce=None,
                        reduction="mean") -> Result:
    x1, x2, target = tuple(x1), tuple(x2), tuple(target)
    _legacy(size_average, reduce)
    _reduction(reduction, x1)
    if len(x1) != len(x2) or len(x1) != len(target):
        raise _loss_error(f"margin_ranking_loss : All input tensors should have same dimension but got "
                          f"sizes: input1: {size_repr(x1)}, input2: {size_repr(x2)}, target: "
                          f"{size_repr(target)} ", "RuntimeError", x1, x2, target)
    return _reduced(_broadcast(target, _broadcast(x1, x2)), reduction)


def hinge_embedding_loss(x: Shape, target: Shape, margin=1.0, size_average=None, reduce=None,
                         reduction="mean") -> Result:
    x, target = tuple(x), tuple(target)
    _legacy(size_average, reduce)
    _reduction(reduction, x)
    return _reduced(_broadcast(target, x), reduction)


def _pairwise_distance(a: Shape, b: Shape) -> Shape:
    """torch.pairwise_distance: the norm of a - b over the last dim."""
    diff = _broadcast(a, b)
    return diff[:-1] if diff else ()


def _triplet_dims(anchor: Shape, positive: Shape, negative: Shape) -> None:
    if not len(anchor) == len(positive) == len(negative):
        raise _loss_error(f"The anchor, positive, and negative tensors are expected to have the same number "
                          f"of dimensions, but got: anchor {len(anchor)}D, positive {len(positive)}D, and "
                          f"negative {len(negative)}D inputs", "RuntimeError", anchor, positive, negative)
    if not anchor:
        raise NotModelled("0-d triplets")


def _margin(margin) -> None:
    if not isinstance(margin, (int, float)) or isinstance(margin, bool):
        raise NotModelled("a margin not known")
    if margin <= 0:
        raise layer_error(f"margin must be greater than 0, got {margin}", "ValueError")


def _triplet(anchor: Shape, positive: Shape, negative: Shape, swap) -> Shape:
    positive_distance = _pairwise_distance(anchor, positive)
    negative_distance = _pairwise_distance(anchor, negative)
    if swap:
        negative_distance = _broadcast(negative_distance, _pairwise_distance(positive, negative))
    return _broadcast(positive_distance, negative_distance)


def triplet_margin_loss(anchor: Shape, positive: Shape, negative: Shape, margin=1.0, p=2.0, eps=1e-6,
                        swap=False, size_average=None, reduce=None, reduction="mean") -> Result:
    anchor, positive, negative = tuple(anchor), tuple(positive), tuple(negative)
    _legacy(size_average, reduce)
    _reduction(reduction, anchor)
    _margin(margin)
    _triplet_dims(anchor, positive, negative)
    if not isinstance(swap, bool):
        raise NotModelled("swap not known")
    return _reduced(_triplet(anchor, positive, negative, swap), reduction)


def triplet_margin_with_distance_loss(anchor: Shape, positive: Shape, negative: Shape, *,
                                      distance_function=None, margin=1.0, swap=False,
                                      reduction="mean") -> Result:
    anchor, positive, negative = tuple(anchor), tuple(positive), tuple(negative)
    if distance_function is not None:
        raise NotModelled("a distance function of the caller's")
    if not isinstance(reduction, str):
        raise NotModelled("a reduction not known")
    if reduction not in _REDUCTIONS:
        raise layer_error(f"{reduction} is not a valid value for reduction", "ValueError", anchor)
    _margin(margin)
    _triplet_dims(anchor, positive, negative)
    if not isinstance(swap, bool):
        raise NotModelled("swap not known")
    return _reduced(_triplet(anchor, positive, negative, swap), reduction)


def _margin_input(x: Shape) -> None:
    """The multi-label and multi-class margin losses take a non-empty vector or (N, C)."""
    empty = len(x) in (1, 2) and known_int(x[-1]) == 0
    if len(x) > 2 or empty:
        raise _loss_error(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                          f"{torch_size(x)}", "RuntimeError", x)
    if len(x) in (1, 2) and known_int(x[-1]) is None:
        raise NotModelled("a class count that may be zero")


def multilabel_margin_loss(x: Shape, target: Shape, size_average=None, reduce=None,
                           reduction="mean") -> Result:
    x, target = tuple(x), tuple(target)
    _legacy(size_average, reduce)
    _reduction(reduction, x)
    _margin_input(x)
    if len(x) <= 1:
        classes = x[0] if x else 1
        fits = len(target) <= 1 and eq(product(target), classes)
    else:
        fits = len(target) == 2 and dims_equal(target, x)
    if fits is False:
        raise _loss_error(f"inconsistent target size: {torch_size(target)} for input of size: "
                          f"{torch_size(x)}", "RuntimeError", x, target)
    return _reduced(x[:1] if len(x) == 2 else (), reduction)


def multi_margin_loss(x: Shape, target: Shape, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean") -> Result:
    x, target = tuple(x), tuple(target)
    _legacy(size_average, reduce)
    _reduction(reduction, x)
    if p not in (1, 2):
        if not isinstance(p, (int, float)):
            raise NotModelled("a p not known")
        raise layer_error("only p == 1 and p == 2 supported", "ValueError", x)
    if weight is not None:
        raise NotModelled("class weights")
    _margin_input(x)
    if len(x) < 2:
        raise NotModelled("a single sample (its output takes the target's shape)")
    if len(target) > 1 or eq(product(target), x[0]) is False:
        raise _loss_error(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
                          f"input samples (batch size). Expected target size [{x[0]}], but got "
                          f"{torch_size(target)}. Input has shape {torch_size(x)}.", "RuntimeError", x, target)
    if not target:
        raise NotModelled("a 0-d target for a batch of one")
    return _reduced(x[:1], reduction)


def gaussian_nll_loss(x: Shape, target: Shape, var, full=False, eps=1e-6, reduction="mean") -> Result:
    x, target = tuple(x), tuple(target)
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        var = x
    var = tuple(var)
    if dims_equal(var, x) is not True:
        if dims_equal(x[:-1], var) is True and len(x) == len(var) + 1:
            var = var + (1,)
        elif len(x) == len(var) and all(known_int(a) is not None and known_int(b) is not None
                                        for a, b in zip(x, var)) and \
                sum(b for a, b in zip(x, var) if a != b) == 1:
            pass
        elif all(known_int(d) is not None for d in x + var):
            raise _loss_error("var is of incorrect size", "ValueError", x, var)
        else:
            raise NotModelled("a var whose fit depends on unknown sizes")
    if not isinstance(reduction, str):
        raise NotModelled("a reduction not known")
    if reduction not in _REDUCTIONS:
        raise layer_error(f"{reduction} is not valid", "ValueError", x)
    diff = _broadcast(x, target)
    return _reduced(_broadcast(var, _broadcast(diff, var)), reduction)


def ctc_loss(log_probs: Shape, targets: Shape, input_lengths: Shape, target_lengths: Shape, blank=0,
             reduction="mean", zero_infinity=False) -> Result:
    """F.ctc_loss with tensor lengths: (T, N, C) or (T, C) log-probabilities, one loss per sequence.

    Every refusal torch makes here reads the lengths' or targets' values, which a shape does not
    carry: only the output shape is answered.
    """
    log_probs = tuple(log_probs)
    _reduction(reduction, log_probs)
    if len(log_probs) not in (2, 3) or any(is_zero(d) is not False for d in log_probs):
        raise NotModelled("a rank or an empty size torch reads the values for")
    batch = log_probs[1:2] if len(log_probs) == 3 else ()
    for lengths in (input_lengths, target_lengths):
        if tuple(lengths) != batch:
            raise NotModelled("lengths torch checks by value")
    if len(targets) != (2 if batch else 1) or (batch and eq(targets[0], batch[0]) is not True):
        raise NotModelled("targets torch checks by value")
    return _reduced(batch, reduction)


def _legacy(size_average, reduce) -> None:
    if size_average is not None or reduce is not None:
        raise NotModelled("the legacy size_average/reduce arguments")


FUNCTIONAL.update(cosine_embedding_loss=cosine_embedding_loss, margin_ranking_loss=margin_ranking_loss,
                  hinge_embedding_loss=hinge_embedding_loss, triplet_margin_loss=triplet_margin_loss,
                  triplet_margin_with_distance_loss=triplet_margin_with_distance_loss,
                  multilabel_margin_loss=multilabel_margin_loss, multi_margin_loss=multi_margin_loss,
                  gaussian_nll_loss=gaussian_nll_loss, ctc_loss=ctc_loss)


# --------------------------------------------------------------------------- the nn classes


def _options(args: dict) -> dict:
    if args.get("size_average") is not None or args.get("reduce") is not None:
        raise NotModelled("the legacy size_average/reduce arguments")
    if args.get("weight") is not None:
        raise NotModelled("class weights")
    return args


def _forward(rule, *names: str):
    def forward(layer, *shapes: Shape) -> Result:
        return rule(*shapes, **{name: layer[name] for name in names})
    return forward


_LEGACY = [("size_average", None), ("reduce", None), ("reduction", "mean")]
register("CosineEmbeddingLoss", [("margin", 0.0)] + _LEGACY, _options,
         _forward(cosine_embedding_loss, "margin", "reduction"))
register("MarginRankingLoss", [("margin", 0.0)] + _LEGACY, _options,
         _forward(margin_ranking_loss, "margin", "reduction"))
register("HingeEmbeddingLoss", [("margin", 1.0)] + _LEGACY, _options,
         _forward(hinge_embedding_loss, "margin", "reduction"))
register("MultiLabelMarginLoss", _LEGACY, _options, _forward(multilabel_margin_loss, "reduction"))
def _multi_margin_args(args: dict) -> dict:
    if args["p"] not in (1, 2):
        if not isinstance(args["p"], (int, float)):
            raise NotModelled("a p not known")
        raise argument_error("only p == 1 and p == 2 supported")
    return _options(args)


register("MultiMarginLoss", [("p", 1), ("margin", 1.0), ("weight", None)] + _LEGACY, _multi_margin_args,
         _forward(multi_margin_loss, "p", "margin", "reduction"))
def _triplet_args(kind: str):
    def construct(args: dict) -> dict:
        margin = args["margin"]
        if not isinstance(margin, (int, float)) or isinstance(margin, bool):
            raise NotModelled("a margin not known")
        if margin <= 0:
            raise argument_error(f"{kind}: expected margin to be greater than 0, got {margin} instead")
        return _options(args)
    return construct


register("TripletMarginLoss", [("margin", 1.0), ("p", 2.0), ("eps", 1e-6), ("swap", False)] + _LEGACY,
         _triplet_args("TripletMarginLoss"), _forward(triplet_margin_loss, "margin", "p", "eps", "swap", "reduction"))
register("TripletMarginWithDistanceLoss", [("distance_function", None), ("margin", 1.0), ("swap", False),
                                           ("reduction", "mean")],
         _triplet_args("TripletMarginWithDistanceLoss"),
         _forward(triplet_margin_with_distance_loss, "distance_function", "margin", "swap", "reduction"))
register("GaussianNLLLoss", [("full", False), ("eps", 1e-6), ("reduction", "mean")], _options,
         _forward(gaussian_nll_loss, "full", "eps", "reduction"))
register("CTCLoss", [("blank", 0), ("reduction", "mean"), ("zero_infinity", False)], _options,
         _forward(ctc_loss, "blank", "reduction", "zero_infinity"))

__all__ = ["cosine_embedding_loss", "ctc_loss", "gaussian_nll_loss", "hinge_embedding_loss",
           "margin_ranking_loss", "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]
