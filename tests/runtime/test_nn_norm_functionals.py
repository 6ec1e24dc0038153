"""The norm functionals (F.layer_norm, F.rms_norm, F.group_norm, F.batch_norm, F.instance_norm),
the layers' parameter shapes, torch's class hierarchy among the registered layers, and a
convolution whose padding mode nobody knows: each checked against real torch."""

from __future__ import annotations

import inspect
import itertools

import pytest

from shapecheck.runtime.dims import UNKNOWN
from shapecheck.runtime.nn import (
    CHECK_ONLY,
    FUNCTIONAL,
    LAYERS,
    build,
    functional,
    is_layer_subclass,
    with_unknowns_left_out,
)
from shapecheck.runtime.nn.base import parameter_shape
from shapecheck.runtime.verdicts import ShapeError

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _tensor(shape):
    return None if shape is None else torch.randn(*shape)


def _ours(name, args, kwargs):
    try:
        result = functional(name, *args, **kwargs)
    except ShapeError as err:
        return "error", str(err)
    return ("unknown", None) if result is None else ("ok", tuple(result.shape))


def _theirs(call):
    try:
        return "ok", tuple(call().shape)
    except (RuntimeError, ValueError) as err:
        return "error", str(err).splitlines()[0]


X3, X4 = (2, 6, 8), (2, 6, 5, 5)
CASES = [
    # (functional, shape arguments, keywords, the real call)
    ("layer_norm", (X3, (8,), (8,), (8,)), {}, lambda: F.layer_norm(_tensor(X3), (8,), _tensor((8,)), _tensor((8,)))),
    ("layer_norm", (X3, (8,), (7,)), {}, lambda: F.layer_norm(_tensor(X3), (8,), _tensor((7,)))),
    ("layer_norm", (X3, (8,), None, (4,)), {}, lambda: F.layer_norm(_tensor(X3), (8,), None, _tensor((4,)))),
    ("layer_norm", (X3, (7,), (7,)), {}, lambda: F.layer_norm(_tensor(X3), (7,), _tensor((7,)))),
    ("layer_norm", (X3, (6, 8), (6, 8)), {}, lambda: F.layer_norm(_tensor(X3), (6, 8), _tensor((6, 8)))),
    ("rms_norm", (X3, (8,), (8,)), {}, lambda: F.rms_norm(_tensor(X3), (8,), _tensor((8,)))),
    ("rms_norm", (X3, (8,), (7,)), {}, lambda: F.rms_norm(_tensor(X3), (8,), _tensor((7,)))),
    ("rms_norm", (X3, (5,)), {}, lambda: F.rms_norm(_tensor(X3), (5,))),
    ("group_norm", (X4, 3, (6,), (6,)), {}, lambda: F.group_norm(_tensor(X4), 3, _tensor((6,)), _tensor((6,)))),
    ("group_norm", (X4, 3, (5,)), {}, lambda: F.group_norm(_tensor(X4), 3, _tensor((5,)))),
    ("group_norm", (X4, 4), {}, lambda: F.group_norm(_tensor(X4), 4)),
    ("batch_norm", (X4, (6,), (6,)), {}, lambda: F.batch_norm(_tensor(X4), _tensor((6,)), _tensor((6,)).abs())),
    ("batch_norm", (X4, (5,), (5,)), {}, lambda: F.batch_norm(_tensor(X4), _tensor((5,)), _tensor((5,)))),
    ("batch_norm", (X4, (6,), (5,)), {}, lambda: F.batch_norm(_tensor(X4), _tensor((6,)), _tensor((5,)))),
    ("batch_norm", (X4, (6,), (6,), (6,), (4,)), {},
     lambda: F.batch_norm(_tensor(X4), _tensor((6,)), _tensor((6,)), _tensor((6,)), _tensor((4,)))),
    ("batch_norm", (X4, None, None, (5,)), {"training": True},
     lambda: F.batch_norm(_tensor(X4), None, None, _tensor((5,)), training=True)),
    ("batch_norm", ((1, 6), None, None), {"training": True},
     lambda: F.batch_norm(_tensor((1, 6)), None, None, training=True)),
    ("instance_norm", (X4,), {}, lambda: F.instance_norm(_tensor(X4))),
    ("instance_norm", (X4,), {"weight": (6,), "bias": (6,)},
     lambda: F.instance_norm(_tensor(X4), weight=_tensor((6,)), bias=_tensor((6,)))),
    ("instance_norm", (X4,), {"weight": (5,)}, lambda: F.instance_norm(_tensor(X4), weight=_tensor((5,)))),
]


@pytest.mark.parametrize("name, args, kwargs, real", CASES)
def test_norm_functionals_agree_with_torch(name, args, kwargs, real):
    ours, theirs = _ours(name, args, kwargs), _theirs(real)
    if ours[0] == "unknown":
        return  # not modelled: never an error
    assert ours == theirs


def test_the_norm_functionals_answer_some_error_and_some_shape():
    verdicts = {_ours(name, args, kwargs)[0] for name, args, kwargs, _ in CASES}
    assert verdicts == {"ok", "error", "unknown"}


Q, K, V = (2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 4)
ATTENTION_CASES = [
    ("scaled_dot_product_attention", (Q, K, V), {"attn_mask": (5, 7)},
     lambda: F.scaled_dot_product_attention(_tensor(Q), _tensor(K), _tensor(V), attn_mask=_tensor((5, 7)))),
    ("scaled_dot_product_attention", (Q, K, V), {"attn_mask": (5, 6)},
     lambda: F.scaled_dot_product_attention(_tensor(Q), _tensor(K), _tensor(V), attn_mask=_tensor((5, 6)))),
    ("scaled_dot_product_attention", ((3, 5, 8), (3, 7, 6), (3, 7, 4)), {"attn_mask": (5, 7)},
     lambda: F.scaled_dot_product_attention(_tensor((3, 5, 8)), _tensor((3, 7, 6)), _tensor((3, 7, 4)),
                                            attn_mask=_tensor((5, 7)))),
    ("scaled_dot_product_attention", (Q, K, V), {"dropout_p": 0.0, "scale": 0.5},
     lambda: F.scaled_dot_product_attention(_tensor(Q), _tensor(K), _tensor(V), dropout_p=0.0, scale=0.5)),
]
_NOBODY_KNOWS = object()


@pytest.mark.parametrize("name, args, kwargs, real", CASES + ATTENTION_CASES)
def test_an_argument_that_only_adds_checks_left_out_keeps_torchs_shape(name, args, kwargs, real):
    """CHECK_ONLY's claim: with those arguments unknown, the output is the shape torch gives
    when the call succeeds, and an error without their checks is torch's error with them."""
    names = list(inspect.signature(FUNCTIONAL[name]).parameters)
    assert CHECK_ONLY[name] <= set(names)
    unknown_args = [_NOBODY_KNOWS if names[i] in CHECK_ONLY[name] else a for i, a in enumerate(args)]
    unknown_kwargs = {k: _NOBODY_KNOWS if k in CHECK_ONLY[name] else v for k, v in kwargs.items()}
    left_args, left_kwargs = with_unknowns_left_out(name, unknown_args, unknown_kwargs, _NOBODY_KNOWS)
    assert _NOBODY_KNOWS not in left_args and _NOBODY_KNOWS not in left_kwargs.values()
    ours, theirs = _ours(name, left_args, left_kwargs), _theirs(real)
    if theirs[0] == "ok":
        assert ours in (theirs, ("unknown", None))
    elif ours[0] == "error":
        assert theirs[0] == "error"


LAYER_CASES = [
    ("Linear", (4, 6), {}), ("Linear", (4, 6), {"bias": False}),
    ("Conv2d", (4, 6, 3), {"groups": 2}), ("ConvTranspose2d", (4, 6, 3), {"groups": 2}),
    ("Embedding", (10, 3), {}),
    ("LayerNorm", (8,), {}), ("LayerNorm", ((4, 8),), {"bias": False}),
    ("LayerNorm", (8,), {"elementwise_affine": False}),
    ("RMSNorm", (8,), {}), ("GroupNorm", (2, 8), {}), ("GroupNorm", (2, 8), {"affine": False}),
    ("BatchNorm2d", (8,), {}), ("BatchNorm1d", (8,), {"affine": False, "track_running_stats": False}),
    ("InstanceNorm2d", (8,), {}), ("InstanceNorm3d", (8,), {"affine": True, "track_running_stats": True}),
]


@pytest.mark.parametrize("kind, args, kwargs", LAYER_CASES)
def test_layer_parameters_have_torch_shapes(kind, args, kwargs):
    layer, module = build(kind, args, kwargs), getattr(torch.nn, kind)(*args, **kwargs)
    for name in ("weight", "bias", "running_mean", "running_var"):
        real = getattr(module, name, None)
        expected = None if real is None else tuple(real.shape)
        if name.startswith("running") and kind in ("Linear", "Conv2d", "ConvTranspose2d", "Embedding"):
            continue
        assert parameter_shape(layer, name) == expected, name


def test_the_layer_hierarchy_is_torchs():
    kinds = sorted(LAYERS)
    for kind, base in itertools.product(kinds, kinds + ["Module"]):
        assert is_layer_subclass(kind, base) == issubclass(getattr(torch.nn, kind),
                                                           getattr(torch.nn, base)), (kind, base)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_an_unknown_padding_mode_keeps_the_shape_every_mode_gives(mode):
    known = build("Conv2d", (3, 4, 3), {"padding": 1, "stride": 2})
    unknown = build("Conv2d", (3, 4, 3), {"padding": 1, "stride": 2, "padding_mode": UNKNOWN})
    real = torch.nn.Conv2d(3, 4, 3, padding=1, stride=2, padding_mode=mode)(torch.randn(2, 3, 9, 9))
    assert unknown.forward((2, 3, 9, 9)).shape == known.forward((2, 3, 9, 9)).shape == tuple(real.shape)
