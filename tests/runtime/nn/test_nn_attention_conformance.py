"""MultiheadAttention, scaled_dot_product_attention and the Transformer layers vs real torch."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import (
    agree,
    check_functional,
    construct,
    hypothesis_settings,
    real_verdict,
    rule_verdict,
    torch,
    zeros,
)

from shapecheck.runtime.dims import sym
from shapecheck.runtime.nn import FUNCTIONAL, build
from shapecheck.runtime.nn.base import NotModelled


def _nudge(draw, shape, rate=6):
    """Usually the shape as given; sometimes one dim off by one, or a dim dropped."""
    shape = list(shape)
    roll = draw(st.integers(0, rate))
    if roll == 0 and shape:
        shape[draw(st.integers(0, len(shape) - 1))] += 1
    elif roll == 1 and shape:
        shape.pop(draw(st.integers(0, len(shape) - 1)))
    return tuple(shape)


def _seq(batch_first, batched, length, batch, width):
    if not batched:
        return (length, width)
    return (batch, length, width) if batch_first else (length, batch, width)


@st.composite
def mha_case(draw):
    heads = draw(st.sampled_from([1, 2, 2, 3]))
    embed = heads * draw(st.integers(1, 3)) + draw(st.sampled_from([0, 0, 0, 0, 1]))
    kwargs = {"batch_first": draw(st.booleans())}
    if draw(st.integers(0, 2)) == 0:
        kwargs["kdim"] = draw(st.integers(1, 4))
        kwargs["vdim"] = draw(st.integers(1, 4))
    if draw(st.integers(0, 4)) == 0:
        kwargs["add_bias_kv"] = True
    if draw(st.integers(0, 4)) == 0:
        kwargs["add_zero_attn"] = True
    batched = draw(st.integers(0, 3)) > 0
    L, S, B = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    bf = kwargs["batch_first"]
    q = _nudge(draw, _seq(bf, batched, L, B, embed))
    k = _nudge(draw, _seq(bf, batched, S, B, kwargs.get("kdim", embed)))
    v = _nudge(draw, _seq(bf, batched, S, B, kwargs.get("vdim", embed)))
    call = {"need_weights": draw(st.booleans()), "average_attn_weights": draw(st.booleans())}
    if draw(st.booleans()):
        call["key_padding_mask"] = _nudge(draw, (B, S) if batched else (S,))
    if draw(st.booleans()):
        full = (B * heads, L, S) if batched or draw(st.booleans()) else (heads, L, S)
        call["attn_mask"] = _nudge(draw, (L, S) if draw(st.booleans()) else full)
    return (embed, heads), kwargs, (q, k, v), call


@given(mha_case())
@hypothesis_settings(300)
def test_multihead_attention(case):
    args, kwargs, shapes, call = case
    context = f"nn.MultiheadAttention(*{args}, **{kwargs})({shapes}, **{call})"
    module, layer = construct("MultiheadAttention", "MultiheadAttention", args, kwargs, context)
    if module is None:
        return
    masks = {k: zeros(v) if isinstance(v, tuple) else v for k, v in call.items()}
    with torch.no_grad():
        theirs = real_verdict(lambda: module(*(zeros(s) for s in shapes), **masks))
    agree("MultiheadAttention", rule_verdict(lambda: layer.forward(*shapes, **call)), theirs, context)


@given(st.data())
@hypothesis_settings(250)
def test_scaled_dot_product_attention(data):
    d = data.draw
    batch = tuple(d(st.lists(st.integers(1, 3), max_size=2)))
    L, S, E, Ev = (d(st.sampled_from([1, 2, 3, 3, 0])) for _ in range(4))
    q = _nudge(d, batch + (L, E), 9)
    k = _nudge(d, batch + (S, E), 9)
    v = _nudge(d, batch + (S, Ev), 9)
    kwargs = {}
    if d(st.booleans()):
        kwargs["attn_mask"] = _nudge(d, (L, S) if d(st.booleans()) else batch + (L, S))
    if d(st.integers(0, 4)) == 0:
        kwargs["is_causal"] = True
    check_functional("F.scaled_dot_product_attention", "scaled_dot_product_attention", (q, k, v),
                     (), kwargs, tensor_kwargs=("attn_mask",))


@given(st.data())
@hypothesis_settings(150)
def test_grouped_query_attention(data):
    # enable_gqa=True: key/value heads (dim -3) must divide the query's; a rank-2 query has none.
    d = data.draw
    batch = tuple(d(st.lists(st.integers(1, 2), max_size=1)))
    heads = d(st.sampled_from([1, 2, 3, 4, 6]))
    kv_heads = [d(st.sampled_from([1, 2, 3, 4])) for _ in range(2)]
    L, S, E, Ev = (d(st.integers(1, 3)) for _ in range(4))
    rank2 = d(st.integers(0, 9)) == 0
    q = (L, E) if rank2 else batch + (heads, L, E)
    k = (S, E) if rank2 else batch + (kv_heads[0], S, E)
    v = (S, Ev) if rank2 else batch + (kv_heads[1], S, Ev)
    k = _nudge(d, k, 9)
    kwargs = {"enable_gqa": True}
    if d(st.booleans()):
        kwargs["attn_mask"] = _nudge(d, (L, S), 9)
    if d(st.integers(0, 3)) == 0:
        kwargs["is_causal"] = True
    check_functional("F.scaled_dot_product_attention", "scaled_dot_product_attention", (q, k, v),
                     (), kwargs, tensor_kwargs=("attn_mask",))


@st.composite
def transformer_layer_case(draw):
    heads = draw(st.sampled_from([1, 2]))
    d_model = heads * draw(st.integers(1, 3)) + draw(st.sampled_from([0, 0, 0, 0, 1]))
    kwargs = {"dim_feedforward": 4, "dropout": 0.0, "batch_first": draw(st.booleans()),
              "norm_first": draw(st.booleans())}
    if draw(st.integers(0, 9)) == 0:
        kwargs["activation"] = "tanh"
    batched = draw(st.integers(0, 3)) > 0
    L, S, B = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    x = _nudge(draw, _seq(kwargs["batch_first"], batched, L, B, d_model))
    memory = _nudge(draw, _seq(kwargs["batch_first"], batched, S, B, d_model))
    call = {}
    if draw(st.booleans()):
        call["mask"] = _nudge(draw, (L, L))
    if draw(st.booleans()):
        call["padding"] = _nudge(draw, (B, L) if batched else (L,))
    return (d_model, heads), kwargs, x, memory, call


@given(transformer_layer_case(), st.sampled_from(["Encoder", "Decoder"]), st.booleans())
@hypothesis_settings(120)
def test_transformer_layers_and_stacks(case, which, stacked):
    args, kwargs, x, memory, call = case
    kind = f"Transformer{which}Layer"
    context = f"nn.{kind}(*{args}, **{kwargs})({x}, {memory}, {call}) stacked={stacked}"
    module, layer = construct(f"Transformer{which}", kind, args, kwargs, context)
    if module is None:
        return
    if stacked:
        norm = torch.nn.LayerNorm(args[0])
        module = getattr(torch.nn, f"Transformer{which}")(module, 2, norm=norm)
        layer = build(f"Transformer{which}", (layer, 2), {"norm": build("LayerNorm", (args[0],))})
    mask = call.get("mask")
    padding = call.get("padding")
    if which == "Encoder":
        names = ("mask", "src_key_padding_mask") if stacked else ("src_mask", "src_key_padding_mask")
        shapes = (x,)
    else:
        names = ("tgt_mask", "tgt_key_padding_mask")
        shapes = (x, memory)
    options = {n: v for n, v in zip(names, (mask, padding)) if v is not None}
    module.train(True)
    with torch.no_grad():
        theirs = real_verdict(lambda: module(*(zeros(s) for s in shapes),
                                             **{n: zeros(v) for n, v in options.items()}))
    agree(f"Transformer{which}", rule_verdict(lambda: layer.forward(*shapes, **options)), theirs, context)


@given(st.data())
@hypothesis_settings(40)
def test_whole_transformer(data):
    d = data.draw
    batch_first = d(st.booleans())
    kwargs = {"d_model": 4, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
              "dim_feedforward": 4, "dropout": 0.0, "batch_first": batch_first}
    batched = d(st.integers(0, 3)) > 0
    S, L, B = d(st.integers(1, 3)), d(st.integers(1, 3)), d(st.integers(1, 3))
    src = _nudge(d, _seq(batch_first, batched, S, B, 4), 4)
    tgt = _nudge(d, _seq(batch_first, batched, L, B, 4), 4)
    context = f"nn.Transformer(**{kwargs})({src}, {tgt})"
    module, layer = construct("Transformer", "Transformer", (), kwargs, context)
    if module is None:
        return
    module.train(True)
    with torch.no_grad():
        theirs = real_verdict(lambda: module(zeros(src), zeros(tgt)))
    agree("Transformer", rule_verdict(lambda: layer.forward(src, tgt)), theirs, context)


def test_attention_over_symbolic_sequences():
    T, N = sym("T"), sym("N")
    layer = build("MultiheadAttention", (16, 4), {"batch_first": True})
    out, weights = layer.forward((N, T, 16), (N, sym("S"), 16), (N, sym("S"), 16)).outputs
    assert out == (N, T, 16) and weights == (N, T, sym("S"))


def test_scaled_dot_product_attention_over_batch_dims_not_known_equal():
    """Batch dims the code does not relate (B, B2): a call that succeeds gives (..., L, Ev),
    the batch dim one that is B and B2 at once; only dims known to differ could be an error,
    and then the text is the kernel's, so no answer is given."""
    B, B2, H, L, S, E = (sym(n) for n in ("B", "B2", "H", "L", "S", "E"))
    sdpa = FUNCTIONAL["scaled_dot_product_attention"]
    out = sdpa((B, H, L, E), (B2, H, S, E), (B2, H, S, 7)).shape
    assert out[1:] == (H, L, 7) and len(out) == 4
    with pytest.raises(NotModelled):
        sdpa((B, H, L, 4), (B2, H, S, 5), (B2, H, S, 7))
