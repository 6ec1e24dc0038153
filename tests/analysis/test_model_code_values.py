"""The Python values model code computes its widths with, followed exactly: float width
multipliers, round and int, max of numbers, typing.cast, conditional expressions, flags set
by the constructor, isinstance of layers and classes, ``is`` between classes, and the base
classes of an imported class. Each snippet's verdict is confirmed on real torch."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import analyze_source


def findings(source: str, path: str = "model.py") -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(textwrap.dedent(source), path))


def run(source: str, call: str):
    """Run the snippet's ``call`` on real torch: None when it runs, else the error's class."""
    torch = pytest.importorskip("torch")
    namespace: dict = {"torch": torch}
    exec(textwrap.dedent(source), namespace)  # the test's own constant snippets
    try:
        eval(call, namespace)  # noqa: S307 - the test's own constant expression
    except (RuntimeError, ValueError, IndexError) as exc:
        return type(exc).__name__
    return None


WIDTHS = """
    import math
    from typing import cast
    import torch
    from torch import nn

    def divisible(v, divisor=8):
        new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
        if new_v < 0.9 * v:
            new_v += divisor
        return new_v

    class Net(nn.Module):
        def __init__(self, planes=64, width_mult=1.0, base_width=64, expand=6):
            super().__init__()
            width = int(planes * (base_width / 64.0))
            hidden = int(round(planes * expand))
            last = divisible(1280 * max(1.0, width_mult))
            first = cast(int, divisible(32 * width_mult))
            self.stem = nn.Conv2d(3, first, 3)
            self.a = nn.Conv2d(first, width, 1)
            self.b = nn.Conv2d(width, hidden, 1)
            self.c = nn.Conv2d(hidden, last, 1)
            self.fc = nn.Linear({HEAD}, 10)

        def forward(self, x):
            x = self.c(self.b(self.a(self.stem(x))))
            return self.fc(x.mean((2, 3)))
    """


def line_of(source: str, text: str) -> int:
    return textwrap.dedent(source).splitlines().index(text) + 1


@pytest.mark.parametrize("head,raises", [("1280", False), ("math.ceil(1280 * 1.5)", True)])
def test_widths_computed_with_floats_round_max_and_cast_are_exact(head, raises):
    source = WIDTHS.replace("{HEAD}", head)
    codes = [(line_of(source, "        return self.fc(x.mean((2, 3)))"), "SC106")] if raises else []
    assert findings(source) == codes
    assert run(source, "Net()(torch.zeros(1, 3, 8, 8))") == ("RuntimeError" if codes else None)


FLAGS = """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, inp, oup, stride):
            super().__init__()
            self.use_res_connect = stride == 1 and inp == oup
            self.conv = nn.Conv2d(inp, oup, 3, stride, 1)

        def forward(self, x):
            if self.use_res_connect:
                return x + self.conv(x)
            return self.conv(x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            blocks = []
            for i, (c_in, c_out) in enumerate([(8, 16), (16, 16)]):
                stride = 2 if i == 0 else 1
                blocks.append(Block(c_in, c_out, stride))
            self.blocks = nn.Sequential(*blocks)
            self.head = nn.Linear({HEAD}, 2)

        def forward(self, x):
            return self.head(self.blocks(x).mean((2, 3)))
    """


@pytest.mark.parametrize("head,raises", [("16", False), ("8", True)])
def test_a_flag_the_constructor_set_and_a_conditional_expression_take_one_path(head, raises):
    # The first block's residual add would fail (8 vs 16 channels): its flag is false.
    source = FLAGS.replace("{HEAD}", head)
    at = line_of(source, "        return self.head(self.blocks(x).mean((2, 3)))")
    codes = [(at, "SC106")] if raises else []
    assert findings(source) == codes
    assert run(source, "Net()(torch.zeros(1, 8, 8, 8))") == ("RuntimeError" if codes else None)


KINDS = """
    import torch
    from torch import nn

    class Wide(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, c, 1)

        def forward(self, x):
            return self.conv(x)

    class Narrow(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, c - 8, 1)

        def forward(self, x):
            return self.conv(x)

    def fold(module):
        w = module.weight
        if isinstance(module, nn.Conv2d):
            return w.reshape(w.shape[0], w.shape[1] * w.shape[2] * w.shape[3])
        return w

    def build(kinds=(Wide, Wide)):
        blocks = []
        for kind in kinds:
            if kind is Wide:
                blocks.append(Wide(8))
            elif kind is Narrow:
                blocks.append(Narrow(8))
        fold(nn.Linear(3, 4))
        return nn.Sequential(*blocks)

    def make():
        return build((Wide, Wide))
    """


def test_isinstance_of_a_layer_and_is_between_classes_take_one_path():
    # fold's conv branch would index a Linear's 2-D weight at 3; Narrow(8), a conv of no
    # output channels, which torch refuses, is never built.
    assert findings(KINDS) == []
    assert run(KINDS, "make()(torch.zeros(1, 8, 4, 4))") is None
    assert run(KINDS, "Narrow(8)(torch.zeros(1, 8, 4, 4))") == "RuntimeError"


def test_isinstance_agrees_with_torch_on_every_pair_of_layers_it_knows():
    torch = pytest.importorskip("torch")
    from shapecheck.runtime.nn import CONTAINERS, LAYERS, LOSSES, is_layer_subclass

    names = [n for n in (*LAYERS, *LOSSES, *CONTAINERS) if hasattr(torch.nn, n)]
    for kind in names:
        for of in [*names, "Module"]:
            assert is_layer_subclass(kind, of) == issubclass(getattr(torch.nn, kind),
                                                              getattr(torch.nn, of)), (kind, of)
    assert is_layer_subclass("Conv2d", "_ConvNd") is None


def test_an_imported_class_brings_its_base_class(tmp_path):
    # The imported class is its base's __init__ and forward (a Sequential of its layers).
    (tmp_path / "blocks.py").write_text(textwrap.dedent('''
        import torch
        from torch import nn

        class ConvNormActivation(nn.Sequential):
            def __init__(self, cin, cout, norm_layer=nn.BatchNorm2d):
                layers = [nn.Conv2d(cin, cout, 3, padding=1)]
                if norm_layer is not None:
                    layers.append(norm_layer(cout))
                layers.append(nn.ReLU())
                super().__init__(*layers)
                self.out_channels = cout
        ''' + "\n" * 40 + '''
        class Conv2dNormActivation(ConvNormActivation):
            def __init__(self, cin, cout):
                super().__init__(cin, cout)
        '''))
    model = tmp_path / "model.py"
    model.write_text(textwrap.dedent('''
        import torch
        from torch import nn
        from blocks import Conv2dNormActivation

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = Conv2dNormActivation(3, 16)
                self.fc = nn.Linear(32, 2)

            def forward(self, x):
                return self.fc(self.a(x).mean((2, 3)))
        '''))
    found = [(f.line, f.code) for f in analyze_source(model.read_text(), str(model))]
    assert found == [(13, "SC106")]


SUBCLASSES = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    class LayerNorm2d(nn.LayerNorm):
        def forward(self, x):
            x = x.permute(0, 2, 3, 1)
            x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
            return x.permute(0, 3, 1, 2)

    class FrozenBatchNorm(nn.BatchNorm2d):
        pass

    class WideNorm(nn.GroupNorm):
        def __init__(self, channels):
            super().__init__(4, channels * {FACTOR})

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 32, 3)
            self.norm = LayerNorm2d(32, eps=1e-6)
            self.bn = FrozenBatchNorm(32)
            self.gn = WideNorm(32)

        def forward(self, x):
            return self.gn(self.bn(self.norm(self.conv(x))))
    """


@pytest.mark.parametrize("factor,raises", [(1, False), (2, True)])
def test_a_class_derived_from_a_layer_is_that_layer(factor, raises):
    source = SUBCLASSES.replace("{FACTOR}", str(factor))
    at = line_of(source, "        return self.gn(self.bn(self.norm(self.conv(x))))")
    assert findings(source) == ([(at, "SC113")] if raises else [])
    assert run(source, "Net().eval()(torch.zeros(1, 3, 8, 8))") == ("RuntimeError" if raises else None)


CONFIG = """
    import copy
    import torch
    from torch import nn

    class Config:
        def __init__(self, cin, cout, layers):
            self.cin = cin
            self.cout = cout
            self.layers = layers

    class Block(nn.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.add_module("conv", nn.Conv2d(cin, cout, 3, padding=1))
            self.add_module("norm", nn.BatchNorm2d(cout))

        def forward(self, x):
            if isinstance(x, torch.Tensor):
                x = [x]
            return self.norm(self.conv(torch.cat(x, 1)))

    class Stage(nn.ModuleDict):
        def __init__(self, cnf):
            super().__init__()
            for i in range(cnf.layers):
                block_cnf = copy.copy(cnf)
                if i:
                    block_cnf.cin = block_cnf.cout
                self.add_module("block%d" % (i + 1), Block(block_cnf.cin, block_cnf.cout))

        def forward(self, x):
            for name, block in self.items():
                x = block(x)
            return x

    class Net(nn.Module):
        def __init__(self, **kwargs):
            super().__init__()
            drop = kwargs.pop("drop", 0.0)
            self.stage = Stage(Config(8, 16, 2))
            self.pool = nn.Sequential(nn.Dropout(drop), nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.head = nn.Linear({HEAD}, 2, **kwargs)

        def forward(self, x):
            return self.head(self.pool(self.stage(x)))

    def net():
        return Net(drop=0.1)
    """


@pytest.mark.parametrize("head,raises", [("16", False), ("8", True)])
def test_module_dicts_add_module_copies_and_popped_keywords_keep_the_widths(head, raises):
    # The copy's cin is the second block's own (16), not the first's: copy.copy made a new
    # config; kwargs lost "drop" to pop, so the Linear takes only what is left.
    source = CONFIG.replace("{HEAD}", head)
    at = line_of(source, "        return self.head(self.pool(self.stage(x)))")
    assert findings(source) == ([(at, "SC106")] if raises else [])
    assert run(source, "net().eval()(torch.zeros(2, 8, 4, 4))") == ("RuntimeError" if raises else None)


HELPERS = """
    import collections.abc
    from itertools import repeat
    import torch
    from torch import nn

    def _ntuple(n):
        def parse(x):
            if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
                return tuple(x)
            return tuple(repeat(x, n))
        return parse

    to_2tuple = _ntuple(2)

    class Block(nn.Module):
        def __init__(self, in_chs, out_chs=None, dilation=1):
            super().__init__()
            out_chs = out_chs or in_chs * 2
            dilation = to_2tuple(dilation)
            self.conv = nn.Conv2d(in_chs, out_chs, 3, padding=dilation[0], dilation=dilation[0])
            if dilation[0] != dilation[1]:
                self.shortcut = nn.Conv2d(out_chs, out_chs * 2, 1)
            else:
                self.shortcut = nn.Identity()
            self.head = nn.Linear({HEAD}, 2)

        def forward(self, x):
            y = self.conv(x)
            y = y + self.shortcut(y)
            return self.head(y.mean((2, 3)))

    def net():
        return Block(8)
    """


@pytest.mark.parametrize("head,raises", [("16", False), ("32", True)])
def test_or_defaults_and_tuple_helpers_keep_the_widths(head, raises):
    # out_chs or in_chs * 2 is 16; to_2tuple(1) is (1, 1), so the shortcut is Identity.
    source = HELPERS.replace("{HEAD}", head)
    at = line_of(source, "    return Block(8)")
    assert findings(source) == ([(at, "SC106")] if raises else [])
    assert run(source, "net().eval()(torch.zeros(2, 8, 4, 4))") == ("RuntimeError" if raises else None)


NORM_FACTORY = """
    import functools
    import types
    import torch
    from torch import nn

    def get_norm_layer(norm_layer):
        # timm's: a class, a function or a partial; a partial is unbound and bound again
        assert isinstance(norm_layer, (type, str, types.FunctionType, functools.partial))
        norm_kwargs = {}
        if isinstance(norm_layer, functools.partial):
            norm_kwargs.update(norm_layer.keywords)
            norm_layer = norm_layer.func
        if norm_kwargs:
            norm_layer = functools.partial(norm_layer, **norm_kwargs)
        return norm_layer

    class Net(nn.Module):
        def __init__(self, norm_layer):
            super().__init__()
            norm_layer = get_norm_layer(norm_layer)
            self.conv = nn.Conv2d(3, 8, 3)
            self.norm = norm_layer(WIDTH)

        def forward(self, x):
            return self.norm(self.conv(x))

    def make_plain():
        return Net(nn.BatchNorm2d)

    def make_partial():
        return Net(functools.partial(nn.BatchNorm2d, eps=1e-3))
"""


@pytest.mark.parametrize("width, expected", [("8", []), ("16", [(29, "SC113"), (32, "SC113")])])
def test_a_norm_factory_that_checks_and_unbinds_its_layer_gives_it_back(width, expected):
    # isinstance of a class, a function or a partial against type, FunctionType and partial,
    # and a partial's func and keywords, are known: the factory returns the layer it was given.
    source = NORM_FACTORY.replace("WIDTH", width)
    assert findings(source) == expected
    for make in ("make_plain", "make_partial"):
        assert run(source, f"{make}()(torch.zeros(1, 3, 8, 8))") == \
            (None if not expected else "RuntimeError")


MAYBE_KEYS = """
    import torch
    from torch import nn

    def make(width, cfg):
        kwargs = dict(in_channels=3, out_channels=width)
        if cfg.get("k"):
            kwargs["kernel_size"] = 3
        kwargs.setdefault("kernel_size", 1)
        if "stride" in kwargs:
            kwargs.pop("stride")
        kwargs.pop("padding", None)
        return nn.Conv2d(**kwargs)

    class Net(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.conv = make(8, cfg)
            self.norm = nn.BatchNorm2d(HEAD)

        def forward(self, x):
            return self.norm(self.conv(x))
"""


@pytest.mark.parametrize("head,raises", [("8", False), ("16", True)])
def test_a_dict_filled_by_key_on_some_paths_keeps_the_keys_every_path_gives(head, raises):
    # kernel_size is 3 on one path and 1 on the other; the channels are 8 on both.
    source = MAYBE_KEYS.replace("HEAD", head)
    assert (findings(source) != []) == raises
    for cfg in ("{}", "{'k': 1}"):
        assert (run(source, f"Net({cfg})(torch.zeros(1, 3, 8, 8))") is not None) == raises


NAMED_FACTORY = """
    import functools
    import torch
    from torch import nn

    class NormAct(nn.BatchNorm2d):
        def __init__(self, num_features, act_layer=None):
            super().__init__(num_features)
            self.act = nn.ReLU() if act_layer == "relu" else nn.Identity()

        def forward(self, x):
            return self.act(super().forward(x))

    _MAP = dict(batchnorm=NormAct, batchnorm2d=NormAct, identity=nn.Identity)
    _TAKES_ACT = {NormAct}

    def get_norm_act_layer(norm_layer, act_layer=None):
        kwargs = {}
        if isinstance(norm_layer, str):
            name = norm_layer.replace("_", "").lower().split("-")[0]
            layer = _MAP[name]
        else:
            layer = norm_layer
        if layer in _TAKES_ACT:
            kwargs.setdefault("act_layer", act_layer)
        if kwargs:
            layer = functools.partial(layer, **kwargs)
        return layer

    class Net(nn.Module):
        def __init__(self, norm_layer="Batch_Norm2d-v1"):
            super().__init__()
            norm_layer = get_norm_act_layer(norm_layer, act_layer="relu")
            self.conv = nn.Conv2d(3, 8, 3)
            self.norm = norm_layer(WIDTH)

        def forward(self, x):
            return self.norm(self.conv(x))

    def make():
        return Net()
"""


@pytest.mark.parametrize("width, expected", [("8", []), ("16", [(38, "SC113")])])
def test_a_norm_layer_named_by_a_string_is_looked_up_and_bound(width, expected):
    # timm's get_norm_act_layer: the name normalized with str methods, the class looked up
    # in a dict, a set of classes asked whether it takes an activation, a partial bound.
    source = NAMED_FACTORY.replace("WIDTH", width)
    assert findings(source) == expected
    assert run(source, "make()(torch.zeros(1, 3, 8, 8))") == (None if not expected else "RuntimeError")


FEATURE_TEST = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    class HardSwish(nn.Module):
        def forward(self, x):
            return x * F.relu6(x + 3.0) / 6.0

    _HAS = TEST
    _LAYERS = dict(hard_swish=nn.Hardswish if _HAS else HardSwish, relu=nn.ReLU)

    class Stem(nn.Sequential):
        def __init__(self, width):
            super().__init__()
            self.add_module("conv1", nn.Conv2d(3, width // 2, 3, padding=1))
            self.add_module("act", _LAYERS["hard_swish"]())
            self.add_module("conv2", nn.Conv2d(WIDTH, width, 3, padding=1))

    def make():
        return Stem(32)
"""


@pytest.mark.parametrize("test", ["'hardswish' in dir(torch.nn.functional)",
                                  "hasattr(F, 'hardswish')", "hasattr(nn, 'Hardswish')"])
@pytest.mark.parametrize("width, expected", [("width // 2", []), ("width", [(21, "SC113")])])
def test_a_feature_test_of_the_torch_version_is_decided(test, width, expected):
    # timm's create_act.py picks nn.Hardswish when `'hardswish' in dir(torch.nn.functional)`:
    # a name the runtime models is there in today's torch, so the choice is known and the
    # stem's widths reach its second conv.
    source = FEATURE_TEST.replace("TEST", test).replace("WIDTH", width)
    assert findings(source) == expected
    assert run(source, "make()(torch.zeros(1, 3, 8, 8))") == (None if not expected else "RuntimeError")


@pytest.mark.parametrize("test", ["'no_such_op' in dir(torch.nn.functional)",
                                  "hasattr(F, 'no_such_op')", "'hardswish' in dir(torch.linalg)"])
def test_a_feature_test_of_a_name_nobody_knows_stays_undecided(test):
    # Nothing says a name is absent from torch: both classes stay possible, no finding.
    source = FEATURE_TEST.replace("TEST", test).replace("WIDTH", "width")
    assert findings(source) == []


def test_a_sequential_subclass_built_by_a_builder_runs_torchs_forward():
    # No forward of its own: nn.Sequential's runs the children in the order add_module added
    # them, and the builder's instance fails for every input.
    source = FEATURE_TEST.replace("TEST", "True").replace("WIDTH", "width")
    assert findings(source) == [(21, "SC113")]
    assert findings(source.replace("return Stem(32)", "return 32")) == []


DROPOUT_HEAD = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop_rate = 0.2
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            x = F.dropout(x, p=self.drop_rate, training=FLAG)
            return self.fc(x)

    def make():
        return Head()(torch.zeros(2, WIDTH))
"""


@pytest.mark.parametrize("flag", ["self.training", "not self.training"])
@pytest.mark.parametrize("width, expected", [("16", []), ("8", [(17, "SC106")])])
def test_a_dropout_whose_mode_nobody_knows_keeps_its_input_shape(flag, width, expected):
    # timm's heads: F.dropout(x, p=self.drop_rate, training=self.training). The module's mode
    # is some bool; whichever, dropout keeps the shape, and the classifier after it is checked.
    source = DROPOUT_HEAD.replace("FLAG", flag).replace("WIDTH", width)
    assert findings(source) == expected
    assert run(source, "make()") == (None if not expected else "RuntimeError")
