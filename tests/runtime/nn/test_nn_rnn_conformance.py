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


@st.composite
def cell_case(draw):
    mode = draw(st.sampled_from(["RNNCell", "LSTMCell", "GRUCell"]))
    features, hidden = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    kwargs = {}
    if mode == "RNNCell" and draw(st.integers(0, 5)) == 0:
        kwargs["nonlinearity"] = draw(st.sampled_from(["relu", "sigmoid"]))
    batch = draw(st.integers(0, 3))
    rank = draw(st.sampled_from([1, 2, 2, 2, 3]))
    x = ([batch] if rank > 1 else []) + [draw(st.sampled_from([features] * 4 + [features + 1]))]
    x = [1] * max(rank - 2, 0) + x
    state = None
    if draw(st.booleans()):
        def one():
            s = ([batch] if rank > 1 else []) + [hidden]
            roll = draw(st.integers(0, 6))
            if roll == 0:
                s[draw(st.integers(0, len(s) - 1))] += 1
            elif roll == 1:
                s = [1] + s
            elif roll == 2 and len(s) > 1:
                s = s[1:]
            return tuple(s)
        state = (one(), one()) if mode == "LSTMCell" else one()
    return mode, (features, hidden), kwargs, tuple(x), state


@given(cell_case())
@hypothesis_settings(250)
def test_recurrent_cells(case):
    mode, args, kwargs, x, state = case
    context = f"nn.{mode}(*{args}, **{kwargs}) on {x}, hx={state}"
    with torch.no_grad():
        module, layer = construct(mode, mode, args, kwargs, context)
        if module is None:
            return
        if state is None:
            hx = None
        elif mode == "LSTMCell":
            hx = (zeros(state[0]), zeros(state[1]))
        else:
            hx = zeros(state)
        theirs = real_verdict(lambda: module(zeros(x), hx))
        agree(mode, rule_verdict(lambda: layer.forward(x, hx=state)), theirs, context)
