"""RNN, LSTM and GRU vs real torch: layouts, directions, layers, projections and initial states."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import (
    agree,
    construct,
    hypothesis_settings,
    real_verdict,
    rule_verdict,
    torch,
    zeros,
)


@st.composite
def rnn_case(draw):
    mode = draw(st.sampled_from(["RNN", "LSTM", "GRU"]))
    kwargs = {"num_layers": draw(st.integers(1, 2)), "batch_first": draw(st.booleans()),
              "bidirectional": draw(st.booleans())}
    hidden = draw(st.integers(1, 4))
    if mode == "LSTM" and draw(st.booleans()):
        kwargs["proj_size"] = draw(st.integers(0, 4))
    if mode == "RNN" and draw(st.integers(0, 5)) == 0:
        kwargs["nonlinearity"] = draw(st.sampled_from(["relu", "sigmoid"]))
    if draw(st.integers(0, 6)) == 0:
        kwargs["dropout"] = draw(st.sampled_from([0.5, 1.5]))
    features = draw(st.integers(1, 4))
    batched = draw(st.integers(0, 3)) > 0
    seq, batch = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    x = [seq, batch] if not kwargs["batch_first"] else [batch, seq]
    x = (x if batched else [seq]) + [draw(st.sampled_from([features] * 4 + [features + 1]))]
    if draw(st.integers(0, 9)) == 0:
        x = x + [1]
    state = None
    if draw(st.booleans()):
        directions = 2 if kwargs["bidirectional"] else 1
        proj = kwargs.get("proj_size", 0)
        h = [kwargs["num_layers"] * directions, batch, proj or hidden]
        c = [kwargs["num_layers"] * directions, batch, hidden]
        if not batched:
            h, c = h[:1] + h[2:], c[:1] + c[2:]
        if draw(st.booleans()):
            which = draw(st.sampled_from([h, c]))
            which[draw(st.integers(0, len(which) - 1))] += 1
        if draw(st.integers(0, 5)) == 0:
            h = h[1:]
        state = (tuple(h), tuple(c)) if mode == "LSTM" else tuple(h)
    return mode, (features, hidden), kwargs, tuple(x), state


@given(rnn_case())
@hypothesis_settings(300)
def test_recurrent_layers(case):
    mode, args, kwargs, x, state = case
    family = mode
    context = f"nn.{mode}(*{args}, **{kwargs}) on {x}, hx={state}"
    with torch.no_grad():
        module, layer = construct(family, mode, args, kwargs, context)
        if module is None:
            return
        if state is None:
            hx = None
        elif mode == "LSTM":
            hx = (zeros(state[0]), zeros(state[1]))
        else:
            hx = zeros(state)

        def run_torch():
            output, h = module(zeros(x), hx)
            return (output, *h) if mode == "LSTM" else (output, h)

        theirs = real_verdict(run_torch)
        agree(family, rule_verdict(lambda: layer.forward(x, hx=state)), theirs, context)
