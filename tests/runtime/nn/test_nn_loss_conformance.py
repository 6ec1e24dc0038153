"""The losses vs real torch: class-index and probability targets, regression broadcasts, BCE."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import (
    agree,
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
       st.sampled_from(["mean", "sum", "none"]))
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
       st.sampled_from(["mean", "none"]))
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
       st.sampled_from(["mean", "sum", "none"]))
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
