"""Embedding, EmbeddingBag and F.one_hot vs real torch: index dtypes, padding_idx, offsets, modes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import (
    agree,
    check_layer,
    construct,
    hypothesis_settings,
    real_verdict,
    rule_verdict,
    torch,
)

from shapecheck.runtime.dims import UNKNOWN
from shapecheck.runtime.nn import functional

DTYPES = {"int64": torch.int64, "int32": torch.int32, "float32": torch.float32,
          "float64": torch.float64, "uint8": torch.uint8, "bool": torch.bool, "int16": torch.int16}



@given(st.data())
@hypothesis_settings(200)
def test_embedding(data):
    d = data.draw
    count, width = d(st.integers(1, 5)), d(st.integers(0, 4))
    kwargs = {}
    if d(st.booleans()):
        kwargs["padding_idx"] = d(st.integers(-7, 7))
    shape = tuple(d(st.lists(st.integers(0, 3), max_size=3)))
    dtype = d(st.sampled_from(sorted(DTYPES)))
    check_layer("Embedding", "Embedding", (count, width), kwargs, shape, dtypes=(DTYPES[dtype],),
                forward_kwargs={"dtype": dtype})


@given(st.data())
@hypothesis_settings(200)
def test_embedding_bag(data):
    d = data.draw
    count, width = d(st.integers(1, 4)), d(st.integers(0, 3))
    kwargs = {"mode": d(st.sampled_from(["mean", "sum", "max", "median"])),
              "include_last_offset": d(st.booleans())}
    if d(st.integers(0, 3)) == 0:
        kwargs["padding_idx"] = d(st.integers(-5, 5))
    if d(st.integers(0, 5)) == 0:
        kwargs["scale_grad_by_freq"] = True
    rank = d(st.sampled_from([1, 1, 2, 2, 0, 3]))
    x = tuple(d(st.lists(st.integers(0, 3), min_size=rank, max_size=rank)))
    call = {}
    if rank != 2 or d(st.integers(0, 4)) == 0:
        call["offsets"] = tuple(d(st.lists(st.integers(1, 3), min_size=1,
                                           max_size=d(st.sampled_from([1, 1, 2])))))
    if d(st.integers(0, 3)) == 0:
        call["per_sample_weights"] = x if d(st.booleans()) else \
            tuple(d(st.lists(st.integers(1, 3), max_size=2)))
    if kwargs["mode"] == "max" and kwargs["include_last_offset"] and call.get("offsets", (2,))[0] < 2:
        return  # torch 2.13 crashes (SIGSEGV) on a max over no bags
    context = f"nn.EmbeddingBag({count}, {width}, **{kwargs})({x}, **{call})"
    module, layer = construct("EmbeddingBag", "EmbeddingBag", (count, width), kwargs, context)
    if module is None:
        return
    dtypes = {"offsets": torch.int64, "per_sample_weights": torch.float32}
    tensors = {k: torch.zeros(v, dtype=dtypes[k]) for k, v in call.items()}
    theirs = real_verdict(lambda: module(torch.zeros(x, dtype=torch.int64), **tensors))
    agree("EmbeddingBag", rule_verdict(lambda: layer.forward(x, **call)), theirs, context)


@given(st.data())
@hypothesis_settings(100)
def test_one_hot(data):
    d = data.draw
    shape = tuple(d(st.lists(st.integers(0, 3), max_size=3)))
    classes = d(st.sampled_from([-1, 0, 1, 3, 5]))
    dtype = d(st.sampled_from(["int64", "int64", "int32", "float32"]))
    theirs = real_verdict(lambda: torch.nn.functional.one_hot(torch.zeros(shape, dtype=DTYPES[dtype]),
                                                              classes))
    ours = rule_verdict(lambda: functional("one_hot", shape, classes, dtype=dtype))
    if classes == -1 and ours[0] == "ok":  # the width is read from the values: unknown to the rule
        assert ours[1][0][-1] is UNKNOWN
        ours = ("ok", ((ours[1][0][:-1] + (1,)),), ())
    agree("F.one_hot", ours, theirs, f"F.one_hot({shape} {dtype}, {classes})")
