"""Linear, Bilinear, activations, Dropout, Softmax, Flatten/Unflatten and convolutions vs real torch."""

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
    zeros,
)

from shapecheck.runtime.dims import sym
from shapecheck.runtime.nn import build, functional
from shapecheck.runtime.verdicts import ShapeError

SIZES = st.sampled_from([0, 1, 2, 2, 3, 3, 4])
POSITIVE = st.integers(1, 4)



def near(draw, value):
    """Usually the value the layer wants, sometimes another size."""
    return draw(st.sampled_from([value, value, value, 0, 1, 2, 3, 5]))


@st.composite
def shape_ending(draw, last, min_rank=0, max_rank=4):
    rank = draw(st.integers(min_rank, max_rank))
    if rank == 0:
        return ()
    return tuple(draw(st.lists(SIZES, min_size=rank - 1, max_size=rank - 1))) + (near(draw, last),)


@given(st.data())
@hypothesis_settings(250)
def test_linear(data):
    d = data.draw
    features = (d(st.sampled_from([-1, 0, 1, 2, 3, 4])), d(SIZES))
    check_layer("Linear", "Linear", features, {"bias": d(st.booleans())},
                d(shape_ending(features[0])))


@given(st.data())
@hypothesis_settings(150)
def test_bilinear(data):
    d = data.draw
    in1, in2, out = d(POSITIVE), d(POSITIVE), d(SIZES)
    batch = tuple(d(st.lists(SIZES, max_size=2)))
    other = tuple(near(d, b) for b in batch) if d(st.booleans()) else batch[1:]
    x1 = batch + (near(d, in1),)
    x2 = other + (near(d, in2),)
    check_layer("Bilinear", "Bilinear", (in1, in2, out), {}, x1, x2)


ELEMENTWISE = ["ReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "LeakyReLU", "ELU", "Identity",
               "Hardswish", "Softplus", "Mish"]


@given(st.data())
@hypothesis_settings(150)
def test_activations_and_dropout(data):
    d = data.draw
    shape = tuple(d(st.lists(SIZES, max_size=5)))
    kind = d(st.sampled_from(ELEMENTWISE + ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                            "PReLU", "GLU", "Softmax2d"]))
    args: tuple = ()
    if kind.startswith("Dropout"):
        args = (d(st.sampled_from([0.0, 0.5, 1.0, 1.5, -0.1])),)
    elif kind == "PReLU":
        args = (d(st.sampled_from([1, 2, 3])),)
    elif kind == "GLU":
        args = (d(st.integers(-3, 3)),)
    check_layer("activations/dropout", kind, args, {}, shape)


@given(st.data())
@hypothesis_settings(150)
def test_softmax_family(data):
    d = data.draw
    kind = d(st.sampled_from(["Softmax", "LogSoftmax", "Softmin"]))
    dim = d(st.sampled_from([None, -3, -2, -1, 0, 1, 2, 3]))
    shape = tuple(d(st.lists(SIZES, max_size=4)))
    check_layer("softmax", kind, (dim,), {}, shape,
                keep_warning=lambda text: text.startswith("Implicit dimension"))


@given(st.data())
@hypothesis_settings(200)
def test_flatten_unflatten(data):
    d = data.draw
    shape = tuple(d(st.lists(SIZES, max_size=4)))
    if d(st.booleans()):
        check_layer("Flatten/Unflatten", "Flatten", (d(st.integers(-3, 3)), d(st.integers(-3, 3))),
                    {}, shape)
    else:
        sizes = tuple(d(st.lists(st.sampled_from([-1, 1, 2, 2, 3, 0]), max_size=3)))
        check_layer("Flatten/Unflatten", "Unflatten", (d(st.integers(-3, 3)), sizes), {}, shape)


@st.composite
def conv_case(draw, transposed: bool):
    n = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 1, 1, 2, 0]))
    in_ch = draw(st.sampled_from([1, 2, 2, 4, 3]))
    out_ch = draw(st.sampled_from([1, 2, 4, 4, 3]))

    def spatial(values):
        if draw(st.booleans()):
            return draw(values)
        return tuple(draw(st.lists(values, min_size=n, max_size=n)))

    kwargs = dict(stride=spatial(st.integers(1, 2)), dilation=spatial(st.integers(1, 2)),
                  groups=groups)
    padding = spatial(st.integers(0, 2))
    if not transposed:
        padding = draw(st.sampled_from([padding, padding, padding, "same", "valid", "full"]))
        kwargs["padding_mode"] = draw(st.sampled_from(["zeros", "zeros", "zeros", "reflect",
                                                       "replicate", "circular", "bogus"]))
    else:
        kwargs["output_padding"] = spatial(st.integers(0, 1))
        kwargs["padding_mode"] = draw(st.sampled_from(["zeros"] * 9 + ["reflect"]))
    kwargs["padding"] = padding
    kernel = spatial(st.integers(1, 3))
    batched = draw(st.sampled_from([True, True, False]))
    rank = n + (2 if batched else 1) + draw(st.sampled_from([0, 0, 0, 0, 0, 1, -1]))
    sizes = draw(st.lists(st.sampled_from([0, 1, 2, 3, 4, 5, 6, 6, 5]), min_size=rank,
                          max_size=rank))
    channel_at = 1 if batched else 0
    if rank > channel_at and draw(st.integers(0, 3)):
        sizes[channel_at] = in_ch
    if batched and rank > 0:
        sizes[0] = draw(st.sampled_from([1, 2, 0]))
    return n, (in_ch, out_ch, kernel), kwargs, tuple(sizes)


@given(conv_case(transposed=False))
@hypothesis_settings(400)
def test_conv(case):
    n, args, kwargs, shape = case
    check_layer(f"Conv{n}d", f"Conv{n}d", args, kwargs, shape)


@given(conv_case(transposed=True))
@hypothesis_settings(400)
def test_conv_transpose(case):
    n, args, kwargs, shape = case
    check_layer(f"ConvTranspose{n}d", f"ConvTranspose{n}d", args, kwargs, shape)


@given(conv_case(transposed=False))
@hypothesis_settings(150)
def test_functional_conv_shares_the_layer_rule(case):
    n, (in_ch, out_ch, kernel), kwargs, shape = case
    if kwargs["padding_mode"] != "zeros" or kwargs["groups"] < 1 or in_ch % kwargs["groups"]:
        return
    k = kernel if isinstance(kernel, tuple) else (kernel,) * n
    weight = (out_ch, in_ch // kwargs["groups"]) + k
    call = dict(stride=kwargs["stride"], padding=kwargs["padding"], dilation=kwargs["dilation"],
                groups=kwargs["groups"])
    fn = getattr(torch.nn.functional, f"conv{n}d")
    theirs = real_verdict(lambda: fn(zeros(shape), zeros(weight), **call))
    ours = rule_verdict(lambda: functional(f"conv{n}d", shape, weight, **call))
    if theirs[0] == "ValueError" or "strided" in str(theirs):  # Python-side text differs from nn's
        return
    agree(f"F.conv{n}d", ours, theirs, f"F.conv{n}d({shape}, {weight}, **{call})")


# --------------------------------------------------------------------------- symbolic dims


def test_conv_output_stays_an_expression_over_symbolic_sizes():
    H = sym("H")
    layer = build("Conv2d", (3, 16, 3), {"stride": 2, "padding": 1})
    out = layer.forward((sym("N"), 3, H, 32)).shape
    assert str(out[2]) == "(H - 1)//2 + 1"
    assert out[:2] == (sym("N"), 16) and out[3] == 16
    # The same expression at H = 31 is what torch computes.
    real = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)(zeros((1, 3, 31, 32))).shape[2]
    assert (31 - 1) // 2 + 1 == real


def test_symbolic_channel_mismatch_is_decided_only_when_certain():
    layer = build("Conv2d", (sym("C"), 8, 3), {})
    assert layer.forward((2, sym("C"), 5, 5)).shape == (2, 8, 3, 3)
    assert layer.forward((2, sym("D"), 5, 5)).shape == (2, 8, 3, 3)  # may or may not match
    with pytest.raises(ShapeError) as err:
        build("Conv2d", (3, 8, 3), {}).forward((2, 4, sym("H"), 5))
    assert err.value.kind == "layer" and "to have 3 channels, but got 4" in err.value.message


def test_linear_over_a_symbolic_batch():
    layer = build("Linear", (sym("F"), 10), {})
    assert layer.forward((sym("B"), sym("F"))).shape == (sym("B"), 10)
    with pytest.raises(ShapeError):
        build("Linear", (64, 10), {}).forward((sym("B"), 32))


@given(st.data())
@hypothesis_settings(60)
def test_pixel_shuffle_and_unshuffle(data):
    d = data.draw
    shape = tuple(d(st.lists(st.sampled_from([0, 1, 2, 3, 4, 8, 9]), max_size=5)))
    factor = d(st.integers(-1, 3))
    kind = d(st.sampled_from(["PixelShuffle", "PixelUnshuffle"]))
    check_layer("PixelShuffle", kind, (factor,), {}, shape)


def test_pixel_shuffle_with_symbolic_sizes():
    b, h = sym("B"), sym("H")
    from shapecheck.runtime.dims import mul
    assert functional("pixel_shuffle", (b, 12, h, 5), 2).shape == (b, 3, mul(h, 2), 10)
    assert functional("pixel_shuffle", (b, sym("C"), 4, 4), 2) is None  # C may not divide
    with pytest.raises(ShapeError, match="divisible by the square"):
        functional("pixel_shuffle", (b, 6, h, 5), 2)


@given(st.data())
@hypothesis_settings(80)
def test_constant_pad(data):
    d = data.draw
    shape = tuple(d(st.lists(st.sampled_from([0, 1, 2, 3]), max_size=3)))
    amounts = tuple(d(st.lists(st.integers(-3, 2), max_size=7)))
    x = zeros(shape)
    theirs = real_verdict(lambda: torch.nn.functional.pad(x, amounts))
    ours = rule_verdict(lambda: functional("pad", shape, amounts))
    agree("F.pad", ours, theirs, f"F.pad({shape}, {amounts})")


@given(conv_case(transposed=False), st.booleans())
@hypothesis_settings(150)
def test_lazy_convolutions(case, transposed):
    n, (_, out_ch, kernel), kwargs, shape = case
    if transposed:
        kwargs = {k: v for k, v in kwargs.items() if k not in ("padding_mode",)}
        if isinstance(kwargs["padding"], str):
            kwargs["padding"] = 0
    kind = f"LazyConvTranspose{n}d" if transposed else f"LazyConv{n}d"
    check_layer("Lazy convolutions", kind, (out_ch, kernel), kwargs, shape)


@given(st.data())
@hypothesis_settings(80)
def test_lazy_linear(data):
    d = data.draw
    out = d(st.sampled_from([-1, 0, 1, 3]))
    check_layer("LazyLinear", "LazyLinear", (out,), {}, tuple(d(st.lists(SIZES, min_size=1, max_size=3))))
