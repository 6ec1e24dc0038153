"""BatchNorm, InstanceNorm, LayerNorm, RMSNorm and GroupNorm vs real torch, in training and eval."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import check_functional, check_layer, hypothesis_settings

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


def _vector(d, size):
    """None, or a 1-D shape of ``size`` elements (sometimes another size)."""
    if d(st.integers(0, 2)) == 0:
        return None
    return (d(st.sampled_from([size] * 3 + [size + 1])),)


@given(st.data())
@hypothesis_settings(300)
def test_functional_norms(data):
    d = data.draw
    name = d(st.sampled_from(["layer_norm", "rms_norm", "group_norm", "batch_norm"]))
    shape = list(d(st.lists(SIZES, min_size=1, max_size=4)))
    if name in ("layer_norm", "rms_norm"):
        normalized = tuple(d(st.lists(st.integers(1, 4), min_size=1, max_size=2)))
        if d(st.integers(0, 2)):
            shape = shape[:1] + list(normalized)
        weight = normalized if d(st.booleans()) else tuple(d(st.lists(st.integers(1, 4), min_size=1,
                                                                         max_size=2)))
        tensors, args = (tuple(shape),), (list(normalized),)
        kwargs = {"weight": weight} if d(st.booleans()) else {}
        if name == "layer_norm" and d(st.booleans()):
            kwargs["bias"] = normalized if d(st.booleans()) else weight
        keys = tuple(kwargs)
    elif name == "group_norm":
        groups = d(st.integers(1, 3))
        channels = shape[1] if len(shape) > 1 else 2
        weight = _vector(d, channels)
        tensors, args = (tuple(shape),), (groups,)
        kwargs = {"weight": weight, "bias": weight} if weight is not None else {}
        keys = tuple(kwargs)
    else:
        channels = shape[1] if len(shape) > 1 else 2
        kwargs = {key: _vector(d, channels) for key in ("running_mean", "running_var", "weight",
                                                          "bias")}
        kwargs["training"] = d(st.booleans())
        tensors, args = (tuple(shape),), ()
        keys = tuple(k for k, v in kwargs.items() if k != "training" and v is not None)
    check_functional("Norm (functional)", name, tensors, args, kwargs, tensor_kwargs=keys)


def test_norm_parameters_have_the_shapes_torch_gives_them():
    torch = pytest.importorskip("torch")
    from shapecheck.runtime.nn.base import parameter_shape

    cases = [("BatchNorm2d", (4,), {}), ("BatchNorm1d", (3,), {"affine": False}),
             ("InstanceNorm2d", (4,), {"affine": True}), ("InstanceNorm1d", (4,), {}),
             ("GroupNorm", (2, 6), {}), ("GroupNorm", (2, 6), {"affine": False}),
             ("LayerNorm", ((3, 4),), {}), ("LayerNorm", (5,), {"bias": False}),
             ("LayerNorm", (5,), {"elementwise_affine": False}), ("RMSNorm", ((2, 3),), {}),
             ("RMSNorm", (3,), {"elementwise_affine": False})]
    for kind, args, kwargs in cases:
        module = getattr(torch.nn, kind)(*args, **kwargs)
        layer = build(kind, args, kwargs)
        for name in ("weight", "bias"):
            real = getattr(module, name, None)
            assert parameter_shape(layer, name) == (None if real is None else tuple(real.shape)), \
                (kind, args, kwargs, name)


def test_functional_batch_norm_in_a_mode_not_known_decides_what_holds_in_both():
    torch = pytest.importorskip("torch")
    from shapecheck.runtime.nn import functional
    from shapecheck.runtime.verdicts import ShapeError

    x = (sym("N"), 8, sym("H"), sym("W"))
    with pytest.raises(ShapeError, match="running_mean should contain 8 elements not 16"):
        functional("batch_norm", x, (16,), (16,), (16,), (16,), None)
    assert functional("batch_norm", x, (8,), (8,), (8,), (8,), None).shape == x
    assert functional("batch_norm", x, None, None, None, None, None) is None  # eval would refuse
    for training in (True, False):  # torch refuses the stats of another width in both modes
        with pytest.raises(RuntimeError, match="running_mean should contain 8 elements not 16"):
            torch.nn.functional.batch_norm(torch.zeros(2, 8, 3, 3), torch.zeros(16), torch.ones(16),
                                           training=training)
