"""pack_padded_sequence, a PackedSequence through RNN, LSTM and GRU, and pad_packed_sequence
vs real torch. Lengths given as a tensor leave the total and the longest length unknown:
an unknown dim of the rules agrees with any size torch gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import CASES, hypothesis_settings, torch, zeros

from shapecheck.runtime.dims import UNKNOWN
from shapecheck.runtime.nn import build
from shapecheck.runtime.nn.packed import Packed, pack_padded_sequence, pad_packed_sequence
from shapecheck.runtime.verdicts import ShapeError

rnn_utils = torch.nn.utils.rnn
FAMILY = "PackedSequence"
# torch's checks of the lengths' values (a tensor's values are not known to the rules).
_VALUE_CHECKS = ("Length of all samples has to be greater than 0", "must be sorted in decreasing order",
                 "Expected total_length to be at least the length of the longest")


def _values_decide(ours, theirs, as_tensor: bool):
    """With lengths from a tensor, a refusal of their values is no verdict of the rules."""
    if as_tensor and ours[0] == "ok" and theirs[0] != "ok" and any(
            text in theirs[1] for text in _VALUE_CHECKS):
        return ("unknown",)
    return ours


def _ours(fn):
    try:
        out = fn()
    except ShapeError as exc:
        return (exc.exc_type, exc.message)
    if out is None:
        return ("unknown",)
    return ("ok", out)


def _shapes(value):
    """A Packed as (data, batch_sizes) shapes; a Result's outputs the same way."""
    if isinstance(value, Packed):
        return (tuple(value.data), value.batch_sizes)
    return tuple(_shapes(v) if isinstance(v, Packed) else tuple(v) for v in value.outputs)


def _torch_shapes(value):
    if isinstance(value, rnn_utils.PackedSequence):
        return (tuple(value.data.shape), tuple(value.batch_sizes.shape))
    return tuple(_torch_shapes(v) for v in value) if isinstance(value, tuple) else tuple(value.shape)


def _same(ours, theirs) -> bool:
    if isinstance(ours, tuple) and isinstance(theirs, tuple):
        return len(ours) == len(theirs) and all(_same(a, b) for a, b in zip(ours, theirs))
    return ours is UNKNOWN or ours == theirs


def _agree(ours, theirs, context) -> bool:
    """Count the case; True when both ran (and their shapes agree)."""
    counts = CASES.setdefault(FAMILY, [0, 0])
    counts[0] += 1
    if ours == ("unknown",):
        counts[1] += 1
        return False
    if ours[0] == "ok" and theirs[0] == "ok":
        assert _same(_shapes(ours[1]), _torch_shapes(theirs[1])), f"{context}: {ours} != {theirs}"
        return True
    assert ours == theirs, f"{context}: rules {ours!r} != torch {theirs!r}"
    return False


_torch_value: list = [None]


def _run(fn):
    """torch's verdict, keeping the value itself (a PackedSequence is no tensor)."""
    try:
        _torch_value[0] = fn()
    except Exception as exc:  # the verdict under test is the exception itself
        return (type(exc).__name__, str(exc))
    return ("ok", _torch_value[0])


@st.composite
def packing(draw):
    batch_first = draw(st.booleans())
    batch, steps = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    rank = draw(st.sampled_from([1, 2, 3, 3, 3, 4]))
    features = draw(st.integers(1, 3))
    shape = [batch, steps] if batch_first else [steps, batch]
    shape = (shape + [features] * (rank - 2))[:rank]
    if draw(st.integers(0, 9)) == 0:
        shape[draw(st.integers(0, rank - 1))] = 0
    count = draw(st.sampled_from([batch] * 6 + [batch + 1, max(batch - 1, 1)]))
    lengths = sorted((draw(st.integers(1, steps)) for _ in range(count)), reverse=True)
    roll = draw(st.integers(0, 9))
    if roll == 0 and lengths:
        lengths[-1] = 0
    elif roll == 1 and len(lengths) > 1:
        lengths = lengths[::-1]
    as_tensor = draw(st.booleans())
    tensor_rank = 1 if draw(st.integers(0, 7)) else 2
    return (tuple(shape), lengths, as_tensor, tensor_rank, batch_first,
            draw(st.booleans()))


@given(packing(), st.data())
@hypothesis_settings(400)
def test_pack_run_and_pad(case, data):
    shape, lengths, as_tensor, tensor_rank, batch_first, enforce_sorted = case
    d = data.draw
    context = f"pack({shape}, {lengths}, tensor={as_tensor}/{tensor_rank}, batch_first={batch_first}, " \
              f"enforce_sorted={enforce_sorted})"
    if as_tensor:
        lengths_t = torch.tensor(lengths, dtype=torch.int64)
        if tensor_rank == 2:
            lengths_t = lengths_t[None]
        theirs = _run(lambda: rnn_utils.pack_padded_sequence(
            zeros(shape), lengths_t, batch_first=batch_first, enforce_sorted=enforce_sorted))
        ours = _ours(lambda: pack_padded_sequence(shape, lengths_shape=tuple(lengths_t.shape),
                                                  batch_first=batch_first,
                                                  enforce_sorted=enforce_sorted))
        ours = _values_decide(ours, theirs, True)
    else:
        theirs = _run(lambda: rnn_utils.pack_padded_sequence(
            zeros(shape), lengths, batch_first=batch_first, enforce_sorted=enforce_sorted))
        ours = _ours(lambda: pack_padded_sequence(shape, lengths, batch_first=batch_first,
                                                  enforce_sorted=enforce_sorted))
    if not _agree(ours, theirs, context):
        return
    packed, real = ours[1], theirs[1]

    if len(shape) == 3 and d(st.booleans()):
        mode = d(st.sampled_from(["RNN", "GRU", "LSTM"]))
        kwargs = {"num_layers": d(st.integers(1, 2)), "bidirectional": d(st.booleans())}
        size = shape[2] if d(st.integers(0, 4)) else shape[2] + 1
        hidden = d(st.integers(1, 3))
        module = getattr(torch.nn, mode)(size, hidden, **kwargs)
        layer = build(mode, (size, hidden), kwargs)
        state = None
        if d(st.booleans()):
            h = [kwargs["num_layers"] * (2 if kwargs["bidirectional"] else 1), real.batch_sizes[0].item(),
                 hidden]
            if d(st.booleans()):
                h[d(st.integers(0, 2))] += 1
            state = (tuple(h), tuple(h)) if mode == "LSTM" else tuple(h)
        hx = None if state is None else (
            (zeros(state[0]), zeros(state[1])) if mode == "LSTM" else zeros(state))

        def run_torch():
            output, h_n = module(real, hx)
            return (output, *h_n) if mode == "LSTM" else (output, h_n)

        with torch.no_grad():
            theirs = _run(run_torch)
        ours = _ours(lambda: layer.forward(packed, hx=state))
        if not _agree(ours, theirs, f"{context} then nn.{mode}({size}, {hidden}, **{kwargs}), hx={state}"):
            return
        packed, real = ours[1].outputs[0], theirs[1][0]

    first = d(st.booleans())
    total = d(st.sampled_from([None, None, 1, 3, 5]))
    theirs = _run(lambda: rnn_utils.pad_packed_sequence(real, batch_first=first, total_length=total))
    ours = _ours(lambda: pad_packed_sequence(packed, batch_first=first, total_length=total))
    _agree(_values_decide(ours, theirs, as_tensor), theirs,
           f"{context} then pad(batch_first={first}, total_length={total})")
