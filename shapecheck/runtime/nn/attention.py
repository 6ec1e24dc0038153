"""Attention: MultiheadAttention, F.scaled_dot_product_attention, and the Transformer
encoder and decoder layers, stacks and the whole Transformer built on them.

MultiheadAttention follows F.multi_head_attention_forward's checks in order
(ranks, embedding width, key against value, the projections, attn_mask,
the key's batch, key_padding_mask) on the sequence-first layout; batch_first
swaps the first two dims on the way in and out. Its forward answers
(attn_output, attn_weights), with None for the weights when need_weights is
false, as torch returns them. Masks are taken by shape; their dtype is not
checked. The fast inference path (eval mode, no grad) is not modelled: the
rules follow the path torch takes in training.
"""

from __future__ import annotations

from ..dialects import TORCH
from ..dims import Dim, Shape, add, dims_equal, eq, floordiv, mul, product
from ..rules.broadcast import broadcast_shapes
from ..verdicts import Result, ShapeError
from .base import (
    CHECK_ONLY,
    FUNCTIONAL,
    NOT_GIVEN,
    Layer,
    NotModelled,
    argument_error,
    dim_arg,
    flag,
    known_int,
    layer_error,
    register,
    size_repr,
    torch_size,
    wrap_dim,
)
from .basic import linear
from .norm import layer_norm


def _tuple_text(values) -> str:
    return "(" + ", ".join(map(str, values)) + ("," if len(values) == 1 else "") + ")"


def _assert(message: str, *shapes: Shape) -> ShapeError:
    return layer_error(message, "AssertionError", *shapes)


def _mha_args(args: dict) -> dict:
    embed, heads = dim_arg(args["embed_dim"]), dim_arg(args["num_heads"])
    e, h = known_int(embed), known_int(heads)
    if e is not None and h is not None:
        if e <= 0 or h <= 0:
            raise argument_error(f"embed_dim and num_heads must be greater than 0, got embed_dim={e} "
                                 f"and num_heads={h} instead")
        if (e // h) * h != e:
            raise argument_error("embed_dim must be divisible by num_heads", "AssertionError")
    kdim = embed if args["kdim"] is None else dim_arg(args["kdim"])
    vdim = embed if args["vdim"] is None else dim_arg(args["vdim"])
    for name in ("batch_first", "add_bias_kv", "add_zero_attn"):
        flag(args[name])
    return dict(args, embed_dim=embed, num_heads=heads, kdim=kdim, vdim=vdim)


def _shape_check(q: Shape, k: Shape, v: Shape, kpm, mask, heads: Dim) -> bool:
    """F._mha_shape_check: True when batched."""
    if len(q) == 3:
        if len(k) != 3 or len(v) != 3:
            raise _assert(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                          f"{len(k)}-D and {len(v)}-D tensors respectively", q, k, v)
        if kpm is not None and len(kpm) != 2:
            raise _assert(f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                          f"but found {len(kpm)}-D tensor instead", q, kpm)
        if mask is not None and len(mask) not in (2, 3):
            raise _assert(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                          f"found {len(mask)}-D tensor instead", q, mask)
        return True
    if len(q) == 2:
        if len(k) != 2 or len(v) != 2:
            raise _assert(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                          f"{len(k)}-D and {len(v)}-D tensors respectively", q, k, v)
        if kpm is not None and len(kpm) != 1:
            raise _assert(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                          f"but found {len(kpm)}-D tensor instead", q, kpm)
        if mask is not None:
            if len(mask) not in (2, 3):
                raise _assert(f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                              f"but found {len(mask)}-D tensor instead", q, mask)
            if len(mask) == 3:
                expected = (heads, q[0], k[0])
                if dims_equal(mask, expected) is False:
                    raise _assert(f"Expected `attn_mask` shape to be {_tuple_text(expected)} but got "
                                  f"{size_repr(mask)}", q, mask)
        return False
    raise _assert(f"query should be unbatched 2D or batched 3D tensor but received {len(q)}-D query "
                  "tensor", q)


def multi_head_attention(layer, query: Shape, key: Shape, value: Shape, key_padding_mask=None,
                         need_weights=True, attn_mask=None, average_attn_weights=True,
                         is_causal=False, *, key_is_value: bool = False) -> Result:
    """nn.MultiheadAttention(query, key, value, ...) in training: (output, weights or None).

    key_is_value says the key and value are one tensor (a decoder's memory): torch then projects
    both with one (2E, E) weight, which its error message shows.
    """
    q, k, v = tuple(query), tuple(key), tuple(value)
    kpm = None if key_padding_mask is None else tuple(key_padding_mask)
    mask = None if attn_mask is None else tuple(attn_mask)
    if flag(is_causal):
        raise NotModelled("is_causal (its mask is read from the values)")
    need_weights, average = flag(need_weights), flag(average_attn_weights)
    embed, heads = layer["embed_dim"], layer["num_heads"]
    batch_first = flag(layer["batch_first"])
    if batch_first and len(q) == 3:
        if len(k) < 2 or len(v) < 2:
            raise NotModelled("batch_first transposes a key or value of rank < 2")
        q, k, v = (s[1:2] + s[:1] + s[2:] for s in (q, k, v))
    batched = _shape_check(q, k, v, kpm, mask, heads)
    if not batched:
        q, k, v = (s[:1] + (1,) + s[1:] for s in (q, k, v))
        kpm = None if kpm is None else (1,) + kpm
    tgt_len, bsz, width = q
    src_len = k[0]
    if eq(width, embed) is False:
        raise _assert(f"was expecting embedding dimension of {embed}, but got {width}", q)
    separate = not (eq(layer["kdim"], embed) is True and eq(layer["vdim"], embed) is True)
    if separate and (known_int(layer["kdim"]) is None or known_int(layer["vdim"]) is None):
        raise NotModelled("kdim or vdim may or may not be the embedding width")
    if separate:
        if dims_equal(k[:2], v[:2]) is False:
            raise _assert(f"key's sequence and batch dims {size_repr(k[:2])} do not match value's "
                          f"{size_repr(v[:2])}", k, v)
        for name, got, want in (("key", k[-1], layer["kdim"]), ("value", v[-1], layer["vdim"])):
            if eq(got, want) is False:
                raise _assert(f"expecting {name} weights shape of {_tuple_text((width, got))}, but got "
                              f"{size_repr((embed, want))}", k, v)
    else:
        if dims_equal(k, v) is False:
            raise _assert(f"key shape {size_repr(k)} does not match value shape {size_repr(v)}", k, v)
        # Three tensors: w.chunk(3) gives each an (E, E) projection; one key-value tensor gets (2E, E).
        linear(k, (mul(2, embed) if key_is_value else embed, embed))
    if mask is not None:
        if len(mask) == 2:
            if dims_equal(mask, (tgt_len, src_len)) is False:
                raise layer_error(f"The shape of the 2D attn_mask is {size_repr(mask)}, but should be "
                                  f"{_tuple_text((tgt_len, src_len))}.", "RuntimeError", q, mask)
        elif dims_equal(mask, (mul(bsz, heads), tgt_len, src_len)) is False:
            raise layer_error(f"The shape of the 3D attn_mask is {size_repr(mask)}, but should be "
                              f"{_tuple_text((mul(bsz, heads), tgt_len, src_len))}.", "RuntimeError",
                              q, mask)
    extra = int(flag(layer["add_bias_kv"])) + int(flag(layer["add_zero_attn"]))
    if eq(k[1], bsz) is False:
        if flag(layer["add_bias_kv"]):
            raise NotModelled("the bias concatenation's refusal")
        head_dim = floordiv(embed, heads)
        raise layer_error(f"shape '[{src_len}, {mul(bsz, heads)}, {head_dim}]' is invalid for input of "
                          f"size {product(k[:2] + (embed,))}", "RuntimeError", q, k)
    src_len = add(src_len, extra)
    if kpm is not None:
        kpm = kpm[:1] + (add(kpm[1], extra),)  # padded with the key by the bias and zero attention
        for axis, want in ((0, bsz), (1, src_len)):
            if eq(kpm[axis], want) is False:
                raise _assert(f"Expected key_padded_mask.shape[{axis}] to be {want}, but got "
                              f"{kpm[axis]}", q, kpm)
    output = (tgt_len, bsz, embed)
    weights = (bsz, tgt_len, src_len) if average else (bsz, heads, tgt_len, src_len)
    if not batched:
        output, weights = output[:1] + output[2:], weights[1:]
    elif batch_first:
        output = (bsz, tgt_len, embed)
    return Result((output, weights if need_weights else None))


register("MultiheadAttention", [("embed_dim", NOT_GIVEN), ("num_heads", NOT_GIVEN), ("dropout", 0.0),
                                ("bias", True), ("add_bias_kv", False), ("add_zero_attn", False),
                                ("kdim", None), ("vdim", None), ("batch_first", False)],
         _mha_args, multi_head_attention)


# --------------------------------------------------------------------------- scaled_dot_product_attention


def _grouped_heads(q: Shape, k: Shape, v: Shape) -> tuple[Shape, Shape]:
    """enable_gqa=True: the key's and value's heads (dim -3) each divide the query's, and are
    repeated to as many; torch's errors when they do not."""
    wrap_dim(-3, len(q))
    heads = q[-3]
    for other in (k, v):
        h = other[-3]
        if known_int(heads) is not None and known_int(h) is not None:
            if h == 0 or heads % h:
                # torch's text, cut short as it is.
                raise layer_error("Number of heads in key and value must divide the number of heads in ",
                                  "RuntimeError", q, k, v)
        elif eq(h, heads) is not True:
            raise NotModelled("grouped heads of unknown sizes")
    return k[:-3] + (heads,) + k[-2:], v[:-3] + (heads,) + v[-2:]


def scaled_dot_product_attention(query: Shape, key: Shape, value: Shape, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False) -> Result:
    """F.scaled_dot_product_attention: (..., L, E), (..., S, E), (..., S, Ev) -> (..., L, Ev)."""
    q, k, v = tuple(query), tuple(key), tuple(value)
    if len(q) < 2 or len(k) < 2 or len(v) < 2:
        raise layer_error(f"Expected query, key, and value to all be  at least 2 dimensional, but got "
                          f"query.dim: {len(q)} key.dim: {len(k)} and value.dim: {len(v)} instead.",
                          "RuntimeError", q, k, v)
    if any(known_int(d) == 0 for d in q + k + v):
        raise NotModelled("an empty query, key or value (the kernel chosen varies)")
    if flag(is_causal) and attn_mask is not None:
        raise layer_error("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                          "is_causal=True", "RuntimeError", q)
    if len({len(q), len(k), len(v)}) != 1:
        raise NotModelled("batch dims of different ranks")
    if flag(enable_gqa):
        k, v = _grouped_heads(q, k, v)
    try:
        batch = broadcast_shapes(q[:-2], k[:-2], v[:-2], dialect=TORCH).shape
    except ShapeError:
        raise NotModelled("batch dims that do not broadcast (the kernel's own text)") from None
    same_batch = [dims_equal(s[:-2], batch) for s in (q, k, v)]
    if False in same_batch:
        raise NotModelled("broadcast batch dims (the kernel's path depends on them)")
    if None in same_batch:
        # Batch dims of sizes not known to be equal: when they are, the kernel's answer below;
        # when they are not, its path and its text are the kernel's. Either way a call that
        # succeeds gives this shape; an error needs dims known to differ, which these are not.
        if eq(q[-1], k[-1]) is False or eq(k[-2], v[-2]) is False:
            raise NotModelled("a mismatch whose text depends on the kernel's batch path")
        return Result.of(batch + (q[-2], v[-1]))
    rows = product(batch)

    def mismatch(left: Shape, right: Shape, a: Dim, b: Dim, c: Dim, d: Dim) -> ShapeError:
        """(.., a, b) @ (.., c, d) with b != c: mm's text without batch dims, bmm's with them."""
        if len(q) == 4:
            # 4-D inputs may go to a fused kernel (flash, memory-efficient; which one depends on the
            # device), and CPU's flash kernel runs some of these mismatches without a word.
            raise NotModelled("a fused kernel's own checks")
        if not batch:
            return layer_error(f"mat1 and mat2 shapes cannot be multiplied ({a}x{b} and {c}x{d})",
                               "RuntimeError", left, right)
        return layer_error(f"Expected size for first two dimensions of batch2 tensor to be: [{rows}, "
                           f"{b}] but got: [{rows}, {c}].", "RuntimeError", left, right)

    if eq(q[-1], k[-1]) is False:
        raise mismatch(q, k, q[-2], q[-1], k[-1], k[-2])
    if attn_mask is not None:
        # The mask is added in place to the scores q @ k^T, before they meet the value.
        mask = tuple(attn_mask)
        scores = batch + (q[-2], k[-2])
        if len(mask) < 2:
            raise NotModelled("a mask of rank < 2")
        try:
            full = broadcast_shapes(scores, mask, dialect=TORCH).shape
        except ShapeError as err:
            if len(q) == 4:
                raise NotModelled("a fused kernel's own check of the mask") from None
            raise layer_error(err.message, "RuntimeError", q, mask, kind="broadcast") from None
        if dims_equal(full, scores) is False:
            if len(q) == 4:
                raise NotModelled("a fused kernel's own check of the mask")
            raise layer_error(f"output with shape {torch_size(scores)} doesn't match the broadcast shape "
                              f"{torch_size(full)}", "RuntimeError", q, mask, kind="broadcast")
    if eq(k[-2], v[-2]) is False:
        raise mismatch(k, v, q[-2], k[-2], v[-2], v[-1])
    return Result.of(batch + (q[-2], v[-1]))


FUNCTIONAL["scaled_dot_product_attention"] = scaled_dot_product_attention
CHECK_ONLY["scaled_dot_product_attention"] = frozenset({"attn_mask", "dropout_p", "scale"})


# --------------------------------------------------------------------------- Transformer layers


def _transformer_layer_args(args: dict) -> dict:
    activation = args["activation"]
    if isinstance(activation, str) and activation not in ("relu", "gelu"):
        raise argument_error(f"activation should be relu/gelu, not {activation}", "RuntimeError")
    attention = _mha_args({"embed_dim": args["d_model"], "num_heads": args["nhead"], "kdim": None,
                           "vdim": None, "batch_first": args["batch_first"], "add_bias_kv": False,
                           "add_zero_attn": False})
    flag(args["norm_first"])
    return dict(args, d_model=attention["embed_dim"], nhead=attention["num_heads"],
                dim_feedforward=dim_arg(args["dim_feedforward"]))


def _attention_of(layer) -> Layer:
    """The self_attn (and multihead_attn) a Transformer layer builds."""
    return Layer("MultiheadAttention", (("embed_dim", layer["d_model"]), ("num_heads", layer["nhead"]),
                                        ("kdim", layer["d_model"]), ("vdim", layer["d_model"]),
                                        ("batch_first", layer["batch_first"]), ("add_bias_kv", False),
                                        ("add_zero_attn", False)))


def _attend(layer, x: Shape, memory: Shape, mask, padding) -> None:
    multi_head_attention(_attention_of(layer), x, memory, memory, key_padding_mask=padding,
                         need_weights=False, attn_mask=mask, key_is_value=True)


def _sublayer(layer, x: Shape, run) -> Shape:
    """One residual block: norm first (x + f(norm(x))) or after (norm(x + f(x)))."""
    width = (layer["d_model"],)
    if flag(layer["norm_first"]):
        layer_norm(x, width)
        run(x)
    else:
        run(x)
        layer_norm(x, width)
    return x


def encoder_layer(layer, src: Shape, src_mask=None, src_key_padding_mask=None, is_causal=False) -> Result:
    x = tuple(src)
    if flag(is_causal):
        raise NotModelled("is_causal")
    _sublayer(layer, x, lambda y: _attend(layer, y, y, src_mask, src_key_padding_mask))
    return Result.of(x)


def decoder_layer(layer, tgt: Shape, memory: Shape, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None, tgt_is_causal=False,
                  memory_is_causal=False) -> Result:
    x, memory = tuple(tgt), tuple(memory)
    if flag(tgt_is_causal) or flag(memory_is_causal):
        raise NotModelled("is_causal")
    _sublayer(layer, x, lambda y: _attend(layer, y, y, tgt_mask, tgt_key_padding_mask))
    _sublayer(layer, x, lambda y: _attend(layer, y, memory, memory_mask, memory_key_padding_mask))
    return Result.of(x)


_LAYER_SIGNATURE = [("d_model", NOT_GIVEN), ("nhead", NOT_GIVEN), ("dim_feedforward", 2048),
                    ("dropout", 0.1), ("activation", "relu"), ("layer_norm_eps", 1e-5),
                    ("batch_first", False), ("norm_first", False), ("bias", True)]
register("TransformerEncoderLayer", _LAYER_SIGNATURE, _transformer_layer_args, encoder_layer)
register("TransformerDecoderLayer", _LAYER_SIGNATURE, _transformer_layer_args, decoder_layer)


def _stack_args(kind: str):
    def construct(args: dict) -> dict:
        inner, norm = args[f"{kind}_layer"], args["norm"]
        if not isinstance(inner, Layer) or inner.kind != f"Transformer{kind.capitalize()}Layer":
            raise NotModelled("a layer this rule cannot read")
        if norm is not None and not (isinstance(norm, Layer) and norm.kind == "LayerNorm"):
            raise NotModelled("a final norm this rule cannot read")
        if known_int(dim_arg(args["num_layers"])) is None:
            raise NotModelled("a number of layers not known")
        return args
    return construct


def _final_norm(stack, x: Shape) -> Result:
    norm = stack["norm"]
    return Result.of(x) if norm is None else layer_norm(x, norm["normalized_shape"])


def encoder(stack, src: Shape, mask=None, src_key_padding_mask=None, is_causal=None) -> Result:
    x = tuple(src)
    if is_causal or len(x) < 2:
        raise NotModelled("is_causal, or a rank torch fails on while reading the sequence length")
    for _ in range(min(stack["num_layers"], 1)):  # each layer keeps the shape: one decides
        x = encoder_layer(stack["encoder_layer"], x, mask, src_key_padding_mask).shape
    return _final_norm(stack, x)


def decoder(stack, tgt: Shape, memory: Shape, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
            memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False) -> Result:
    x = tuple(tgt)
    if tgt_is_causal or memory_is_causal:
        raise NotModelled("is_causal")
    for _ in range(min(stack["num_layers"], 1)):
        x = decoder_layer(stack["decoder_layer"], x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                          memory_key_padding_mask).shape
    return _final_norm(stack, x)


register("TransformerEncoder", [("encoder_layer", NOT_GIVEN), ("num_layers", NOT_GIVEN), ("norm", None),
                                ("enable_nested_tensor", True), ("mask_check", True)],
         _stack_args("encoder"), encoder)
register("TransformerDecoder", [("decoder_layer", NOT_GIVEN), ("num_layers", NOT_GIVEN), ("norm", None)],
         _stack_args("decoder"), decoder)


def _transformer_args(args: dict) -> dict:
    if args["custom_encoder"] is not None or args["custom_decoder"] is not None:
        raise NotModelled("a custom encoder or decoder")
    inner = _transformer_layer_args({"d_model": args["d_model"], "nhead": args["nhead"],
                                     "dim_feedforward": args["dim_feedforward"],
                                     "activation": args["activation"], "batch_first": args["batch_first"],
                                     "norm_first": args["norm_first"]})
    for name in ("num_encoder_layers", "num_decoder_layers"):
        if known_int(dim_arg(args[name])) is None:
            raise NotModelled("a number of layers not known")
    return dict(args, d_model=inner["d_model"], nhead=inner["nhead"])


def transformer(layer, src: Shape, tgt: Shape, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
                src_is_causal=None, tgt_is_causal=None, memory_is_causal=False) -> Result:
    """nn.Transformer: its own batch and width checks, then the encoder and the decoder."""
    src, tgt = tuple(src), tuple(tgt)
    if src_is_causal or tgt_is_causal or memory_is_causal:
        raise NotModelled("is_causal")
    if len(src) == 3:
        axis = 0 if flag(layer["batch_first"]) else 1
        if len(tgt) <= axis:
            raise NotModelled("a target without a batch dim")
        if eq(src[axis], tgt[axis]) is False:
            raise layer_error("the batch number of src and tgt must be equal", "RuntimeError", src, tgt)
    if len(src) < 2 or len(tgt) < 2:
        raise NotModelled("a source or target of rank < 2 (torch fails while reading its sequence length)")
    if eq(src[-1], layer["d_model"]) is False or eq(tgt[-1], layer["d_model"]) is False:
        raise layer_error("the feature number of src and tgt must be equal to d_model", "RuntimeError",
                          src, tgt)
    inner = Layer("TransformerEncoderLayer", tuple((k, layer[k]) for k in (
        "d_model", "nhead", "batch_first", "norm_first")))
    memory = src
    if known_int(layer["num_encoder_layers"]) != 0:
        encoder_layer(inner, src, src_mask, src_key_padding_mask)
    layer_norm(memory, (layer["d_model"],))
    out = tgt
    if known_int(layer["num_decoder_layers"]) != 0:
        out = decoder_layer(inner, tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                            memory_key_padding_mask).shape
    return layer_norm(out, (layer["d_model"],))


register("Transformer", [("d_model", 512), ("nhead", 8), ("num_encoder_layers", 6),
                         ("num_decoder_layers", 6), ("dim_feedforward", 2048), ("dropout", 0.1),
                         ("activation", "relu"), ("custom_encoder", None), ("custom_decoder", None),
                         ("layer_norm_eps", 1e-5), ("batch_first", False), ("norm_first", False),
                         ("bias", True)], _transformer_args, transformer)

__all__ = ["decoder_layer", "encoder_layer", "multi_head_attention", "scaled_dot_product_attention"]
