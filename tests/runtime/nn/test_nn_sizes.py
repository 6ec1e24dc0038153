"""runtime/nn/sizes.py against real torch: each layer listed takes a batched input of the
listed rank with its features where the table says, and refuses them elsewhere."""

from __future__ import annotations

import pytest

from shapecheck.runtime.nn import build
from shapecheck.runtime.nn.sizes import (
    BATCHED_INPUT,
    FUNCTIONAL_BATCHED_RANK,
    SIZE_ARGUMENTS,
    STORED_SHAPES,
    trailing_features,
    weight_channels,
)

torch = pytest.importorskip("torch")

# Constructor arguments for each kind the table lists (features 4, small kernels).
ARGS = {"Conv": (4, 6, 1), "ConvTranspose": (4, 6, 1), "MaxPool": (1,), "AvgPool": (1,),
        "AdaptiveAvgPool": (2,), "AdaptiveMaxPool": (2,), "LPPool": (2, 1), "Dropout": (),
        "InstanceNorm": (4,), "BatchNorm": (4,), "RNN": (4, 5), "GRU": (4, 5), "LSTM": (4, 5)}


def _args(kind: str) -> tuple:
    return ARGS[kind.rstrip("123d") if kind[-2:-1].isdigit() else kind]


@pytest.mark.parametrize("kind", sorted(k for k in BATCHED_INPUT if hasattr(torch.nn, k)))
def test_each_layer_takes_the_batched_rank_with_its_features_in_place(kind):
    expected = BATCHED_INPUT[kind]
    layer = getattr(torch.nn, kind)(*_args(kind)).eval()
    shape = [2] + [3] * (expected.rank - 1)
    if expected.feature_dim is not None:
        shape[expected.feature_dim] = 4
    with torch.no_grad():
        layer(torch.ones(*shape))  # runs: the rank and the feature dim are the layer's own
    if expected.feature_dim is not None:
        wrong = list(shape)
        wrong[expected.feature_dim] = 7
        with pytest.raises((RuntimeError, ValueError)):
            layer(torch.ones(*wrong))
        # The table names the constructor argument that holds the features.
        built = build(kind, _args(kind), {})
        assert built[expected.feature_argument] == 4


def test_trailing_features_are_what_linear_and_layer_norm_read():
    for kind, args, trailing in (("Linear", (4, 6), (4,)), ("LayerNorm", ((3, 4),), (3, 4)),
                                 ("RMSNorm", ((4,),), (4,))):
        built = build(kind, args, {})
        assert trailing_features(built) == trailing
        layer = getattr(torch.nn, kind)(*args)
        layer(torch.ones(5, 2, *trailing))  # any leading dims
    assert trailing_features(build("Conv2d", (4, 6, 1), {})) is None


def test_size_arguments_are_int_parameters_of_torch_layers():
    import inspect
    names = set()
    for kind in ("Conv2d", "Linear", "Bilinear", "BatchNorm2d", "GroupNorm", "Embedding", "LSTM",
                 "MultiheadAttention", "TransformerEncoderLayer"):
        names |= set(inspect.signature(getattr(torch.nn, kind)).parameters)
    assert SIZE_ARGUMENTS - {"input_size", "hidden_size", "proj_size"} <= names


def test_stored_sizes_are_the_attributes_torch_keeps_under_the_arguments_name():
    from shapecheck.runtime.nn import LAYERS
    from shapecheck.runtime.nn.base import NOT_GIVEN, bind
    from shapecheck.runtime.nn.sizes import stored_size

    checked = 0
    for kind, spec in sorted(LAYERS.items()):
        names = [name for name, _ in spec.signature]
        if not set(names) & SIZE_ARGUMENTS or not hasattr(torch.nn, kind):
            continue
        given = {name: {"num_groups": 2, "nhead": 2, "num_heads": 2}.get(name, 4)
                 for name, default in spec.signature if default is NOT_GIVEN}
        module = getattr(torch.nn, kind)(**given)
        bound = bind(kind, (), given)
        for name in set(names) & SIZE_ARGUMENTS:
            kept = getattr(module, name, None) == bound[name]
            assert stored_size(kind, name) == kept, (kind, name)
            checked += 1
    assert checked > 40


@pytest.mark.parametrize("kind", sorted(k for k in STORED_SHAPES if hasattr(torch.nn, k)
                                        and not k.startswith("Lazy")))
@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 1, "dilation": 2},
                                    {"stride": (2, 1, 1), "padding": (0, 1, 2)}])
def test_each_stored_shape_is_the_attribute_torch_keeps(kind, kwargs):
    """A convolution's kernel_size, stride, padding and dilation (and a LayerNorm's
    normalized_shape) are what torch's built layer holds: tuples of the layer's rank."""
    if kind.startswith(("LayerNorm", "RMSNorm")):
        args, kwargs = (4,), {}
    else:
        n = int(kind[-2])
        args = (4, 6, 3)
        kwargs = {k: v[:n] if isinstance(v, tuple) else v for k, v in kwargs.items()}
    built = build(kind, args, kwargs)
    layer = getattr(torch.nn, kind)(*args, **kwargs)
    for name in STORED_SHAPES[kind]:
        assert tuple(built[name]) == tuple(getattr(layer, name)), name


@pytest.mark.parametrize("name,groups", [("conv1d", 1), ("conv2d", 2), ("conv3d", 1),
                                         ("conv_transpose2d", 1), ("conv_transpose1d", 2)])
def test_a_functional_convolution_takes_the_channels_its_weight_says(name, groups):
    n = FUNCTIONAL_BATCHED_RANK[name] - 2
    weight = torch.randn(4, 6 // groups, *(3,) * n)  # (out, in/g, k...); transposed: (in, out/g, k...)
    channels = weight_channels(name, tuple(weight.shape), groups)
    run = getattr(torch.nn.functional, name)
    run(torch.randn(2, channels, *(5,) * n), weight, groups=groups)  # the batched input runs
    with pytest.raises(RuntimeError):
        run(torch.randn(2, channels + 1, *(5,) * n), weight, groups=groups)
