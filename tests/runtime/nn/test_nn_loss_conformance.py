"""The losses vs real torch: class-index and probability targets, regression broadcasts, BCE."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import (
    agree,
    check_functional,
    check_layer,
    hypothesis_settings,
    real_verdict,
    rule_verdict,
    torch,
)

from shapecheck.runtime.dims import sym
from shapecheck.runtime.nn import loss

F = torch.nn.functional
DTYPES = {"int64": torch.int64, "int32": torch.int32, "float32": torch.float32, "uint8": torch.uint8}
SIZES = st.sampled_from([1, 2, 3, 3, 4])
BROADCAST_WARNING = "Using a target size"



@st.composite
def class_case(draw):
    x = tuple(draw(st.lists(SIZES, min_size=1, max_size=5)))
    choice = draw(st.sampled_from(["indices", "indices", "probabilities", "sequence-mistake", "other"]))
    if choice == "indices":
        t = x[:1] + x[2:] if len(x) >= 2 else ()
    elif choice == "probabilities":
        t = x
    elif choice == "sequence-mistake" and len(x) == 3:
        t = x[:2]  # (N, T, C) logits with (N, T) targets
    else:
        t = tuple(draw(st.lists(SIZES, max_size=4)))
    dtype = draw(st.sampled_from(["int64", "int64", "float32", "int32", "uint8"]))
    return x, t, dtype


@given(class_case(), st.sampled_from(["cross_entropy", "nll_loss"]),
       st.sampled_from(["mean", "sum", "none", "bogus"]))
@hypothesis_settings(400)
def test_class_losses(case, name, reduction):
    x, t, dtype = case
    target = torch.zeros(t, dtype=DTYPES[dtype])
    theirs = real_verdict(lambda: getattr(F, name)(torch.zeros(x), target, reduction=reduction))
    ours = rule_verdict(lambda: loss(name, x, t, target_dtype=dtype, reduction=reduction))
    agree(name, ours, theirs, f"F.{name}({x}, {t} {dtype}, reduction={reduction!r})")


@st.composite
def pair_case(draw):
    x = tuple(draw(st.lists(SIZES, max_size=4)))
    t = list(x)
    for _ in range(draw(st.integers(0, 2))):
        action = draw(st.sampled_from(["replace", "drop", "one"]))
        if t and action == "replace":
            t[draw(st.integers(0, len(t) - 1))] = draw(SIZES)
        elif t and action == "drop":
            t.pop(draw(st.integers(0, len(t) - 1)))
        elif t:
            t[draw(st.integers(0, len(t) - 1))] = 1
    return x, tuple(t)


@given(pair_case(), st.sampled_from(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                                     "binary_cross_entropy", "binary_cross_entropy_with_logits"]),
       st.sampled_from(["mean", "none", "bogus"]))
@hypothesis_settings(400)
def test_regression_and_binary_losses(case, name, reduction):
    x, t = case
    theirs = real_verdict(lambda: getattr(F, name)(torch.full(x, 0.5), torch.full(t, 0.5),
                                                   reduction=reduction),
                          keep_warning=lambda text: text.startswith(BROADCAST_WARNING))
    ours = rule_verdict(lambda: loss(name, x, t, reduction=reduction))
    agree(name, ours, theirs, f"F.{name}({x}, {t}, reduction={reduction!r})")


@given(class_case(), st.sampled_from(["CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss"]),
       st.sampled_from(["mean", "none"]))
@hypothesis_settings(150)
def test_loss_modules_delegate_to_the_functional_rule(case, kind, reduction):
    x, t, dtype = case
    if kind in ("MSELoss", "BCEWithLogitsLoss"):
        dtype = "float32"
    check_layer(f"nn.{kind}", kind, (), {"reduction": reduction}, x, t,
                dtypes=(None, DTYPES[dtype]), forward_kwargs={"target_dtype": dtype},
                keep_warning=lambda text: text.startswith(BROADCAST_WARNING))


def test_sequence_logits_with_token_targets_is_certain_for_any_batch():
    N, T, C = sym("N"), sym("T"), sym("C")
    with pytest.raises(Exception, match=r"Expected target size \[N, 10\], got \[N, 7\]"):
        loss("cross_entropy", (N, 7, 10), (N, 7), target_dtype="int64")
    # With symbolic T and C the same call may be right (T == C): no verdict, no false error.
    assert loss("cross_entropy", (N, T, C), (N, T), target_dtype="int64").shape == ()
    assert loss("cross_entropy", (N, C, T), (N, T), target_dtype="int64", reduction="none").shape == (N, T)


@given(pair_case(), st.sampled_from(["kl_div", "poisson_nll_loss", "soft_margin_loss"]),
       st.sampled_from(["mean", "sum", "none", "batchmean", "bogus"]))
@hypothesis_settings(150)
def test_losses_that_broadcast_silently(case, name, reduction):
    """torch says nothing when these broadcast; the rule says so, and must still match the shape."""
    x, t = case
    theirs = real_verdict(lambda: getattr(F, name)(torch.full(x, 0.5), torch.full(t, 0.5),
                                                   reduction=reduction))
    ours = rule_verdict(lambda: loss(name, x, t, reduction=reduction))
    if ours[0] == "ok" and name != "soft_margin_loss":
        assert bool(ours[2]) == (x != t), (x, t, ours)
        ours = ours[:2] + ((),)
    agree(name, ours, theirs, f"F.{name}({x}, {t}, reduction={reduction!r})")


# --------------------------------------------------------------------------- losses of several inputs


def _nudged(draw, shape):
    shape = list(shape)
    roll = draw(st.integers(0, 7))
    if roll == 0 and shape:
        shape[draw(st.integers(0, len(shape) - 1))] = draw(st.sampled_from([1, 2, 5]))
    elif roll == 1 and shape:
        shape.pop(draw(st.integers(0, len(shape) - 1)))
    elif roll == 2:
        shape.insert(0, draw(st.sampled_from([1, 3])))
    return tuple(shape)


REDUCTIONS = st.sampled_from(["mean", "sum", "none", "none", "bogus"])
SEVERAL = {"cosine_embedding_loss": "CosineEmbeddingLoss", "margin_ranking_loss": "MarginRankingLoss",
           "hinge_embedding_loss": "HingeEmbeddingLoss", "triplet_margin_loss": "TripletMarginLoss",
           "triplet_margin_with_distance_loss": "TripletMarginWithDistanceLoss",
           "multilabel_margin_loss": "MultiLabelMarginLoss", "multi_margin_loss": "MultiMarginLoss",
           "gaussian_nll_loss": "GaussianNLLLoss"}


@st.composite
def several_input_case(draw):
    name = draw(st.sampled_from(sorted(SEVERAL)))
    n, c = draw(st.integers(1, 3)), draw(st.sampled_from([0, 2, 3, 4, 4]))
    batched = draw(st.integers(0, 3)) > 0
    x = (n, c) if batched else (c,)
    long = torch.int64
    if name == "cosine_embedding_loss":
        shapes, dtypes = [x, x, x[:-1]], [None, None, None]
    elif name == "margin_ranking_loss":
        shapes, dtypes = [x[:1]] * 3, [None] * 3
    elif name == "hinge_embedding_loss":
        shapes, dtypes = [x, x], [None, None]
    elif name.startswith("triplet"):
        shapes, dtypes = [x] * 3, [None] * 3
    elif name == "multilabel_margin_loss":
        shapes, dtypes = [x, x], [None, long]
    elif name == "multi_margin_loss":
        shapes, dtypes = [x, x[:1] if batched else (1,)], [None, long]
    else:
        var = draw(st.sampled_from([x, x[:-1], x[:-1] + (1,)]))
        shapes, dtypes = [x, x, var], [None] * 3
    shapes = [_nudged(draw, s) for s in shapes]
    kwargs = {"reduction": draw(REDUCTIONS)}
    if name == "multi_margin_loss" and draw(st.integers(0, 4)) == 0:
        kwargs["p"] = 3
    if name.startswith("triplet"):
        if draw(st.booleans()):
            kwargs["swap"] = True
        if draw(st.integers(0, 6)) == 0:
            kwargs["margin"] = 0.0
    return name, tuple(shapes), dtypes, kwargs


@given(several_input_case())
@hypothesis_settings(500)
def test_losses_of_several_inputs(case):
    name, shapes, dtypes, kwargs = case
    check_functional(f"F.{name}", name, shapes, (), kwargs, dtypes=dtypes)


@given(several_input_case())
@hypothesis_settings(100)
def test_several_input_loss_modules_delegate(case):
    name, shapes, dtypes, kwargs = case
    check_layer(f"nn.{SEVERAL[name]}", SEVERAL[name], (), kwargs, *shapes, dtypes=dtypes)


@given(st.data())
@hypothesis_settings(80)
def test_ctc_loss(data):
    d = data.draw
    T, N, C, S = d(st.integers(1, 4)), d(st.integers(1, 3)), d(st.integers(2, 4)), d(st.integers(1, 3))
    batched = d(st.booleans())
    log_probs = (T, N, C) if batched else (T, C)
    # Unbatched targets are concatenated: their size is the sum of the (zero) target lengths.
    targets = (N, S) if batched else (0,)
    lengths = (N,) if batched else ()
    long = torch.int64
    check_functional("F.ctc_loss", "ctc_loss", (log_probs, targets, lengths, lengths), (),
                     {"reduction": d(REDUCTIONS)}, dtypes=(None, long, long, long))
