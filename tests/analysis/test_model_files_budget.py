"""What a model file spends its analysis on: tables of configs the module builds, the builders
that wrap the model's construction in helpers, the numbers ABCs its layers test sizes with."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from shapecheck.analysis.api import analyze_source
from tests.analysis.test_model_code_values import run


def findings(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(textwrap.dedent(source), "model.py")
                  if f.code != "SC004")


def agrees(source: str, call: str, expected: list) -> None:
    """The findings are ``expected``, and torch raises on ``call`` exactly when there are some."""
    assert findings(source) == expected
    assert run(source, call) == ("RuntimeError" if expected else None)


MODEL = """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self, width=16, num_classes=10):
            super().__init__()
            self.conv = nn.Conv2d(3, width, 3)
            self.fc = nn.Linear(FC_IN, num_classes)

        def forward(self, x):
            return self.fc(self.conv(x).mean((2, 3)))

    def net8(pretrained=False, **kwargs):
        return Net(width=8, **kwargs)
"""


def _configs(count: int) -> str:
    rows = "".join(f"    'net{i}.v1': _cfg(hf_hub_id='org/net{i}', crop_pct={i / 1000}),\n"
                   for i in range(count))
    return ("def _cfg(url='', **kwargs):\n    return {'url': url, 'num_classes': 1000, **kwargs}\n\n\n"
            "default_cfgs = {\n" + rows + "}\n")


@pytest.mark.parametrize("fc_in, expected", [("width", []), ("16", [(15, "SC106")])])
def test_a_table_of_configs_the_module_builds_leaves_the_budget_to_the_models(fc_in, expected):
    # timm's model files end with hundreds of _cfg(...) rows, each a new set of strings: run
    # one by one, they would spend every specialization before the builder's model is built.
    source = textwrap.dedent(MODEL).replace("FC_IN", fc_in) + "\n\n" + _configs(700)
    agrees(source, "net8()(torch.zeros(1, 3, 8, 8))", expected)


BUILDERS = """    def build_model_with_cfg(model_cls, variant, **kwargs):
        return model_cls(**kwargs)

    def _build(variant, **kwargs):
        return build_model_with_cfg(Net, variant, **kwargs)

    def _create(variant, **kwargs):
        return _build(variant, **kwargs)
"""
"""timm's chain of builders: _create -> _build -> build_model_with_cfg -> the class."""


DEEP = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Norm(nn.LayerNorm):
        def forward(self, x):
            return F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape).permute(0, 3, 1, 2)

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.conv = nn.Conv2d(dim, dim, 3, padding=1)
            self.norm = Norm(NORM)

        def forward(self, x):
            return self.norm(self.conv(x))

    class Stage(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.blocks = nn.Sequential(Block(dim), Block(dim))

        def forward(self, x):
            return self.blocks(x)

    class Net(nn.Module):
        def __init__(self, dims=(8, 8)):
            super().__init__()
            self.stem = nn.Conv2d(3, dims[0], 1)
            self.stages = nn.Sequential(Stage(dims[0]), nn.Conv2d(dims[0], dims[1], 1), Stage(dims[1]))

        def forward_features(self, x):
            return self.stages(self.stem(x))

        def forward(self, x):
            return self.forward_features(x).mean((2, 3))

""" + BUILDERS + """
    def net_small(pretrained=False, **kwargs):
        return _create("net_small", **dict(dims=(4, 12), **kwargs))
"""


@pytest.mark.parametrize("norm, expected", [("dim", []), ("8", [(49, "SC113")])])
def test_a_model_a_builder_builds_through_helpers_runs_its_forward_to_full_depth(norm, expected):
    # A builder that builds through three helpers (timm's _create_x, build_model_with_cfg):
    # the model's forward reaches its norms as deep as the class's own forward does, and a
    # norm sized 8 fails on the builder's 4 channels (the defaults' 8 are fine).
    source = DEEP.replace("NORM", norm)
    agrees(source, "net_small()(torch.zeros(1, 3, 8, 8))", expected)


NUMBERS = """
    import numbers
    import torch
    from torch import nn

    class SimpleNorm2d(nn.Module):
        def __init__(self, channels, device=None, dtype=None):
            super().__init__()
            dd = {"device": device, "dtype": dtype}
            normalized_shape = channels
            if isinstance(normalized_shape, numbers.Integral):
                normalized_shape = (normalized_shape,)
            self.normalized_shape = tuple(normalized_shape)
            self.weight = nn.Parameter(torch.ones(self.normalized_shape, **dd))

        def forward(self, x):
            x = x.permute(0, 2, 3, 1)
            x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
            return x.permute(0, 3, 1, 2)

    def make():
        return SimpleNorm2d(WIDTH)(torch.zeros(2, 32, 4, 4))
"""


@pytest.mark.parametrize("width, expected", [("32", []), ("64", [(22, "SC101")])])
def test_a_size_tested_against_the_numbers_abcs_and_made_with_dtype_none(width, expected):
    # timm's SimpleNorm2d: isinstance(channels, numbers.Integral) makes the shape a tuple, and
    # the weight is made with dtype=None (the default) passed through **dd.
    source = NUMBERS.replace("WIDTH", width)
    agrees(source, "make()", expected)


DISTILLED = """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self, width=16, num_classes=10):
            super().__init__()
            self.conv = nn.Conv2d(3, width, 3)
            self.fc = nn.Linear(FC_IN, num_classes)

        def forward(self, x):
            return self.fc(self.conv(x).mean((2, 3)))

    class NetDistilled(Net):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.head_dist = nn.Linear(self.fc.in_features, self.fc.out_features)

    def net8(pretrained=False, **kwargs):
        return NetDistilled(**dict(dict(width=8), **kwargs))
"""


@pytest.mark.parametrize("fc_in, expected", [("width", []), ("16", [(20, "SC106")])])
def test_a_subclass_handing_on_its_star_args_builds_its_base(fc_in, expected):
    # LeViT's LevitDistilled(*args, **kwargs): a call that gave no positional arguments has an
    # empty *args, so super().__init__(*args, **kwargs) runs the base with the keywords.
    source = DISTILLED.replace("FC_IN", fc_in)
    agrees(source, "net8()(torch.zeros(1, 3, 8, 8))", expected)


def test_a_script_calling_a_helper_on_many_arrays_checks_every_call():
    # Only calls with no array (config tables) are capped at module level: a script or a
    # notebook that calls its helper on a dozen arrays has each call checked.
    widths = range(3, 15)
    calls = "".join(f"r{n} = head(np.ones((2, {n})))\n" for n in widths)
    source = "import numpy as np\n\ndef head(x):\n    return x @ np.ones((5, 2))\n\n" + calls
    failing = []
    for n in widths:
        try:
            np.ones((2, n)) @ np.ones((5, 2))
        except ValueError:
            failing.append(n)
    assert failing == [n for n in widths if n != 5]
    assert findings(source) == [(6 + n - 3, "SC106") for n in failing]


CONSTRUCTED_DEEP = """
    import torch
    from torch import nn

    _ACTS = dict(gelu=nn.GELU, relu=nn.ReLU)

    def get_act_layer(name):
        return _ACTS[name]

    class Mlp(nn.Module):
        def __init__(self, dim, hidden, out, act="gelu"):
            super().__init__()
            self.fc1 = nn.Linear(dim, hidden)
            self.act = get_act_layer(act)()
            self.fc2 = nn.Linear(out, dim)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class Block(nn.Module):
        def __init__(self, dim, hidden, out):
            super().__init__()
            self.mlp = Mlp(dim, hidden, out)

        def forward(self, x):
            return x + self.mlp(x)

    class Net(nn.Module):
        def __init__(self, dim=16, hidden=32, out=32):
            super().__init__()
            self.block = Block(dim, hidden, out)

        def forward(self, x):
            return self.block(x)

""" + BUILDERS + """
    def _register(variant, **kwargs):
        return _create(variant, **kwargs)

    def net_wide(pretrained=False, **kwargs):
        return _register("net_wide", **dict(dim=16, hidden=64, out=OUT, **kwargs))
"""


@pytest.mark.parametrize("out, expected", [("64", []), ("48", [(49, "SC106")])])
def test_a_model_built_deep_in_builders_builds_its_layers_through_helpers(out, expected):
    # The builders go five calls deep before Net's __init__, and the activation's factory
    # is three constructors further: each module's constructor counts its calls from its own
    # start, as a built model's forward does, or the Mlp had no activation and its fc2, fed
    # by it, was never checked against the builder's widths.
    source = CONSTRUCTED_DEEP.replace("OUT", out)
    agrees(source, "net_wide()(torch.zeros(2, 16))", expected)
