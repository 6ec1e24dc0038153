"""Embedding vs real torch: index dtypes, padding_idx, any index shape."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import check_layer, hypothesis_settings, torch

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
