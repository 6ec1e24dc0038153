"""BatchNorm, InstanceNorm, LayerNorm, RMSNorm and GroupNorm vs real torch, in training and eval."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import check_layer, hypothesis_settings

from shapecheck.runtime.dims import sym
from shapecheck.runtime.nn import build

SIZES = st.sampled_from([1, 1, 2, 3, 4, 0])



@st.composite
def with_channels(draw, channels, min_rank=0, max_rank=5):
    shape = draw(st.lists(SIZES, min_size=min_rank, max_size=max_rank))
    if len(shape) >= 2 and draw(st.integers(0, 3)):
        shape[1] = channels
    return tuple(shape)


@given(st.data())
@hypothesis_settings(300)
def test_batch_and_instance_norm(data):
    d = data.draw
    kind = d(st.sampled_from(["BatchNorm", "InstanceNorm"])) + f"{d(st.integers(1, 3))}d"
    features = d(st.integers(1, 4))
    kwargs = {"affine": d(st.booleans()), "track_running_stats": d(st.booleans())}
    shape = d(with_channels(features))
    if kind.startswith("Instance") and len(shape) >= 1 and d(st.booleans()):
        shape = (features,) + shape[1:]  # unbatched: the channels lead
    train = d(st.booleans())
    check_layer(kind.split("Norm")[0] + "Norm", kind, (features,), kwargs, shape, train=train,
                forward_kwargs={"training": train},
                keep_warning=lambda text: "num_features" in text)


@given(st.data())
@hypothesis_settings(200)
def test_layer_and_rms_norm(data):
    d = data.draw
    kind = d(st.sampled_from(["LayerNorm", "RMSNorm"]))
    normalized = tuple(d(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    shape = list(d(st.lists(SIZES, max_size=4)))
    if d(st.integers(0, 2)):
        shape = shape + list(normalized)
        if d(st.booleans()) and shape:
            shape[d(st.integers(0, len(shape) - 1))] = d(SIZES)
    arg = normalized[0] if len(normalized) == 1 and d(st.booleans()) else normalized
    check_layer(kind, kind, (arg,), {}, tuple(shape))


@given(st.data())
@hypothesis_settings(200)
def test_group_norm(data):
    d = data.draw
    groups, channels = d(st.integers(1, 4)), d(st.integers(1, 6))
    shape = d(with_channels(channels, max_rank=4))
    check_layer("GroupNorm", "GroupNorm", (groups, channels), {"affine": d(st.booleans())}, shape)


def test_batch_norm_of_the_wrong_width_is_certain_for_any_batch():
    layer = build("BatchNorm2d", (64,), {})
    with pytest.raises(Exception, match="running_mean should contain 32 elements not 64"):
        layer.forward((sym("N"), 32, sym("H"), sym("W")))
    assert layer.forward((sym("N"), 64, sym("H"), sym("W"))).shape == (sym("N"), 64, sym("H"), sym("W"))


@given(st.data())
@hypothesis_settings(80)
def test_local_response_norm(data):
    d = data.draw
    shape = tuple(d(st.lists(st.integers(0, 3), max_size=5)))
    check_layer("LocalResponseNorm", "LocalResponseNorm", (d(st.integers(1, 4)),), {}, shape)
