"""Classes derived from torch.nn layers, super(), isinstance on modules, and layer factories
that edit their keyword dicts: the forms real model libraries build their layers with. Each
program that the analysis says fails is run on torch and fails there, at the same line."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source


def findings(source: str, path: str = "t.py", settings: AnalysisSettings | None = None
             ) -> list[tuple[int, str]]:
    found = analyze_source(textwrap.dedent(source), path, settings or AnalysisSettings())
    return sorted((f.line, f.code) for f in found)


def line_of(source: str, text: str) -> int:
    """The line of the dedented ``source`` that holds ``text`` (once)."""
    lines = [i for i, line in enumerate(textwrap.dedent(source).splitlines(), 1) if text in line]
    assert len(lines) == 1, lines
    return lines[0]


def raised_line(source: str) -> int | None:
    """The line of ``source`` (a module of its own) whose run raises, None when it runs."""
    try:
        exec(compile(textwrap.dedent(source), "snippet.py", "exec"), {})
    except Exception as exc:  # noqa: BLE001 - any failure of the program is the point
        tb = exc.__traceback__
        line = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "snippet.py":
                line = tb.tb_lineno
            tb = tb.tb_next
        return line
    return None


LAYER_NORM_SUBCLASS = """
import torch
import torch.nn.functional as F
from torch import nn


class LayerNorm2d(nn.LayerNorm):
    def __init__(self, num_channels, eps=1e-6, affine=True, **kwargs):
        super().__init__(num_channels, eps=eps, elementwise_affine=affine, **kwargs)

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class PlainNorm(nn.LayerNorm):
    pass


class Stem(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.norm = LayerNorm2d(NORM_WIDTH)
        self.head_norm = PlainNorm(HEAD_WIDTH)

    def forward(self, x):
        x = self.norm(self.conv(x))
        return self.head_norm(x.mean((2, 3)))


Stem(8)(torch.randn(2, 3, 16, 16))
"""


def test_a_layer_norm_subclass_with_its_own_forward_checks_its_width():
    pytest.importorskip("torch")
    good = LAYER_NORM_SUBCLASS.replace("NORM_WIDTH", "c").replace("HEAD_WIDTH", "c")
    assert findings(good) == []
    assert raised_line(good) is None
    bad = LAYER_NORM_SUBCLASS.replace("NORM_WIDTH", "2 * c").replace("HEAD_WIDTH", "c")
    # torch refuses the conv's output in the subclass's forward: normalized for 2 * c channels.
    norm_line = line_of(bad, "x = F.layer_norm(")
    assert raised_line(bad) == norm_line
    assert "SC113" in {code for _, code in findings(bad)}


def test_a_layer_subclass_without_forward_is_the_layer_it_derives_from():
    pytest.importorskip("torch")
    bad = LAYER_NORM_SUBCLASS.replace("NORM_WIDTH", "c").replace("HEAD_WIDTH", "c + 1")
    assert [code for _, code in findings(bad)] == ["SC113"]
    assert raised_line(bad) == line_of(bad, "return self.head_norm(")


SUPER_FORWARD = """
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc = nn.Linear(c, 2 * c)

    def forward(self, x):
        return self.fc(x)


class Child(Base):
    def __init__(self, c):
        super().__init__(c)
        self.out = nn.Linear(OUT_IN, c)

    def forward(self, x):
        h = super().forward(x)
        return self.out(h)


Child(4)(torch.randn(3, 4))
"""


def test_super_forward_runs_the_base_class_forward():
    pytest.importorskip("torch")
    assert findings(SUPER_FORWARD.replace("OUT_IN", "2 * c")) == []
    bad = SUPER_FORWARD.replace("OUT_IN", "3 * c")
    # Reported at the call that builds and runs the module (the finding names forward's line).
    assert findings(bad) == [(line_of(bad, "Child(4)("), "SC106")]
    assert raised_line(bad) == line_of(bad, "return self.out(h)")


MERGE = """
import torch
from torch import nn


def merge(module):
    weight = module.weight.data
    if isinstance(module, nn.Linear):
        return weight @ weight.T
    elif isinstance(module, nn.Conv2d):
        assert weight.shape[2] == 1 and weight.shape[3] == 1
        return weight.reshape(weight.shape[0], weight.shape[1])
    return weight


merge(nn.Linear(4, 4))
merge(nn.Conv2d(4, 4, 1))
merge(nn.LazyLinear(4))
"""


def test_isinstance_of_a_layer_decides_the_branch():
    pytest.importorskip("torch")
    # The Conv2d branch indexes dims a Linear's weight lacks: it never runs for the Linear.
    assert findings(MERGE) == []
    assert raised_line(MERGE) is None


def test_a_bug_in_the_branch_isinstance_takes_is_found():
    pytest.importorskip("torch")
    bad = MERGE.replace("weight @ weight.T", "weight @ weight[:2]")
    # Reported at the call whose module takes the branch; torch raises in it.
    assert findings(bad) == [(line_of(bad, "merge(nn.Linear(4, 4))"), "SC106")]
    assert raised_line(bad) == line_of(bad, "weight @ weight[:2]")


FACTORY = """
import torch
from torch import nn


def get_padding(kernel_size, stride=1, dilation=1, **_):
    return ((stride - 1) + dilation * (kernel_size - 1)) // 2


def create_conv2d(in_chs, out_chs, kernel_size, **kwargs):
    depthwise = kwargs.pop("depthwise", False)
    groups = in_chs if depthwise else kwargs.pop("groups", 1)
    padding = kwargs.pop("padding", "")
    kwargs.setdefault("bias", False)
    if "padding" not in kwargs:
        padding = get_padding(kernel_size, **kwargs)
    return nn.Conv2d(in_chs, out_chs, kernel_size, padding=padding, groups=groups, **kwargs)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dw = create_conv2d(c, c, 7, depthwise=True, stride=2)
        self.pw = nn.Linear(PW_IN, c)

    def forward(self, x):
        x = self.dw(x)
        return self.pw(x.flatten(1))


Block(4)(torch.randn(2, 4, 8, 8))
"""


def test_a_factory_that_pops_its_keywords_builds_the_layer_the_caller_asked_for():
    pytest.importorskip("torch")
    # depthwise=True and stride=2 reach the conv: 8x8 becomes 4x4 with 4 channels.
    assert findings(FACTORY.replace("PW_IN", "c * 4 * 4")) == []
    assert raised_line(FACTORY.replace("PW_IN", "c * 4 * 4")) is None
    bad = FACTORY.replace("PW_IN", "c * 8 * 8")
    # The flattened width depends on the input's size: reported at the call that gives it.
    assert findings(bad) == [(line_of(bad, "Block(4)("), "SC106")]
    assert raised_line(bad) == line_of(bad, "return self.pw(")


def test_splatting_a_dict_into_a_call_leaves_the_dict_as_it_was():
    source = """
    import torch

    def size(n, **_):
        return n

    opts = {"device": None}
    n = size(3, **opts)
    x = torch.zeros(2, **opts) + torch.zeros(3, **opts)
    """
    assert findings(source) == [(line_of(source, "x = torch.zeros(2"), "SC101")]


def test_from_a_package_import_a_name_its_init_rebinds_gives_the_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .make import make\n")
    (package / "make.py").write_text(textwrap.dedent("""
        from torch import nn


        def make(c):
            return nn.Linear(c, 2 * c)
    """))
    user = tmp_path / "model.py"
    user.write_text(textwrap.dedent("""
        import torch
        from pkg import make

        layer = make(4)
        y = layer(torch.randn(3, 5))
    """))
    found = analyze_source(user.read_text(), str(user), AnalysisSettings(project_root=str(tmp_path)))
    assert [(f.line, f.code) for f in found] == [(line_of(user.read_text(), "y = layer("), "SC106")]


PADDING_FACTORY = """
from torch import nn


def get_padding(kernel_size, stride=1, dilation=1, **_):
    if any([isinstance(v, (tuple, list)) for v in [kernel_size, stride, dilation]]):
        return [get_padding(*a) for a in zip(kernel_size, stride, dilation)]
    return ((stride - 1) + dilation * (kernel_size - 1)) // 2


def get_padding_value(padding, kernel_size, **kwargs):
    dynamic = False
    if isinstance(padding, str):
        padding = padding.lower()
        if padding == "same":
            padding, dynamic = 0, True
        elif padding == "valid":
            padding = 0
        else:
            padding = get_padding(kernel_size, **kwargs)
    return padding, dynamic


class MixedConv2d(nn.ModuleDict):
    pass


def create_conv2d(in_chs, out_chs, kernel_size, norm_layer=None, **kwargs):
    if not norm_layer:
        norm_layer = nn.BatchNorm2d
    if isinstance(kernel_size, list):
        return MixedConv2d()
    padding, is_dynamic = get_padding_value(kwargs.pop("padding", ""), kernel_size, **kwargs)
    if is_dynamic:
        return MixedConv2d()
    return nn.Sequential(nn.Conv2d(in_chs, out_chs, kernel_size, padding=padding, **kwargs),
                         norm_layer(NORM_WIDTH))


def stem(x):
    return create_conv2d(3, 8, 5, padding="Default", stride=2)(x)


stem(torch.randn(2, 3, 9, 9))
"""


def test_a_factory_that_decides_its_padding_from_strings_and_types_builds_its_layer():
    pytest.importorskip("torch")
    source = "import torch\n" + PADDING_FACTORY
    assert findings(source.replace("NORM_WIDTH", "out_chs")) == []
    assert raised_line(source.replace("NORM_WIDTH", "out_chs")) is None
    bad = source.replace("NORM_WIDTH", "in_chs")
    assert [code for _, code in findings(bad)] == ["SC113"]
    assert raised_line(bad) == line_of(bad, "return create_conv2d(3, 8, 5")


def test_a_squeeze_of_a_dim_that_may_be_one_grounds_no_error():
    """An image specialization of a video conv squeezes its time dim, which is 1 when it is
    used as meant: the 4-d input the conv then takes is not certain, nor is its refusal."""
    torch = pytest.importorskip("torch")
    source = """
    import torch
    from torch import nn


    class CausalConv2d(nn.Conv2d):
        def forward(self, x):
            x = x.squeeze(2)
            return super().forward(x).unsqueeze(2)


    class Up(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.time_conv = CausalConv2d(c, c, 3, padding=1)

        def forward(self, x):
            b, c, t, h, w = x.shape
            return self.time_conv(x)
    """
    assert findings(source) == []
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "snippet.py", "exec"), namespace)
    up = namespace["Up"](4)
    assert up(torch.randn(2, 4, 1, 8, 8)).shape == (2, 4, 1, 8, 8)
    with pytest.raises(RuntimeError):
        up(torch.randn(2, 4, 3, 8, 8))



LAYER_REGISTRY = """
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=2):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        return self.qkv(x)


class DiffAttention(Attention):
    pass


LAYERS = {"attn": Attention, "diff": DiffAttention}


def create_attn(attn_layer, dim, **kwargs):
    if isinstance(attn_layer, str):
        attn_layer = LAYERS[attn_layer]
    if issubclass(attn_layer, DiffAttention):
        kwargs["depth"] = 1
    return attn_layer(dim, **kwargs)


class Block(nn.Module):
    def __init__(self, dim, attn_layer=Attention):
        super().__init__()
        self.attn = create_attn(attn_layer, dim)
        self.out = nn.Linear(OUT_IN, dim)

    def forward(self, x):
        return self.out(self.attn(x))


Block(4)(torch.randn(2, 5, 4))
"""


def test_a_layer_class_handed_to_a_factory_is_the_class_it_builds():
    """A class passed on as an argument (or left to its default) is what the factory calls;
    isinstance against str and issubclass against another class of the code decide their
    branches, so the DiffAttention-only keyword never reaches Attention."""
    pytest.importorskip("torch")
    assert findings(LAYER_REGISTRY.replace("OUT_IN", "3 * dim")) == []
    assert raised_line(LAYER_REGISTRY.replace("OUT_IN", "3 * dim")) is None
    bad = LAYER_REGISTRY.replace("OUT_IN", "2 * dim")
    assert [code for _, code in findings(bad)] == ["SC106"]
    assert raised_line(bad) == line_of(bad, "return self.out(self.attn(x))")


def test_an_imported_class_keeps_its_torch_base_when_its_file_is_long(tmp_path):
    """Only the definitions an import needs are read from another file, within a budget of
    lines; the imports those definitions read are always kept, or a class derived from
    nn.LayerNorm after many long ones would lose its base."""
    package = tmp_path / "layers"
    package.mkdir()
    (package / "__init__.py").write_text("from .norms import Norm0, Norm1, LayerNorm\n")
    # Two classes of 149 lines and LayerNorm's 2 spend the whole budget of 300 lines.
    long_classes = "".join(
        f"\n\nclass Norm{i}(nn.Module):\n    def forward(self, x):\n" + "".join(
            f"        x = x + {j}\n" for j in range(146)) + "        return x\n" for i in range(2))
    (package / "norms.py").write_text("import torch.nn as nn\n" + long_classes + textwrap.dedent("""


        class LayerNorm(nn.LayerNorm):
            pass
    """))
    user = tmp_path / "model.py"
    user.write_text(textwrap.dedent("""
        import torch
        from layers import LayerNorm, Norm0, Norm1

        norm = LayerNorm(8)
        y = norm(torch.randn(2, 7))
    """))
    found = analyze_source(user.read_text(), str(user), AnalysisSettings(project_root=str(tmp_path)))
    assert [(f.line, f.code) for f in found] == [(line_of(user.read_text(), "y = norm("), "SC113")]


CONV_SUBCLASS = """
import torch
import torch.nn.functional as F
from torch import nn


class ScaledConv(nn.Conv2d):
    def __init__(self, cin, cout, k, stride=1, padding=0, dtype=None):
        super().__init__(cin, cout, k, stride=stride, padding=padding)
        self.gain = nn.Parameter(torch.tensor(1.0, dtype=dtype))

    def forward(self, x):
        w = self.weight * self.gain
        return F.conv2d(x, w, self.bias, self.stride, self.padding, self.dilation, self.groups)


conv = ScaledConv(3, 8, 3, stride=2, padding="PADDING")
y = conv(torch.randn(2, 3, 9, 9))
z = nn.Linear(HEAD, 4)(y.flatten(1))
"""


@pytest.mark.parametrize("padding,head,bad", [
    ("1", "8 * 5 * 5", False),   # stride (2, 2), padding (1, 1): 9 -> 5
    ("1", "8 * 4 * 4", True),    # as if the stride or padding were not the layer's
    ("0", "8 * 4 * 4", False),
])
def test_a_conv_subclass_hands_its_normalized_stride_and_padding_to_f_conv2d(padding, head, bad):
    """torch keeps a convolution's kernel_size, stride, padding and dilation as tuples; a
    subclass's forward (timm's ScaledStdConv2d) hands them to F.conv2d, and a 0-d gain made
    with a dtype nobody knows (``torch.tensor(1.0, dtype=dtype)``) keeps the weight's shape."""
    pytest.importorskip("torch")
    source = CONV_SUBCLASS.replace('"PADDING"', padding).replace("HEAD", head)
    expected = [(line_of(source, "z = nn.Linear("), "SC106")] if bad else []
    assert findings(source) == expected
    assert raised_line(source) == (expected[0][0] if bad else None)


CALLABLE_FACTORY = """
import torch
import torch.nn.functional as F
from typing import Callable

_ACTS = dict(gelu=F.gelu, relu=F.relu)


def get_act_fn(name="relu"):
    if isinstance(name, Callable):
        return name
    return _ACTS[name]


def act_or_none(fn):
    return fn if callable(fn) else None


x = torch.randn(2, 5)
y = get_act_fn("gelu")(x) + torch.randn(4, 1)
z = act_or_none(F.relu)(x) + torch.randn(3, 1)
"""


def test_isinstance_of_callable_and_callable_decide_an_activation_factory():
    """timm's get_act_fn returns a callable as it is and looks a name up: isinstance(name,
    Callable) is False for a string, so the activation is the table's, and its shape known."""
    pytest.importorskip("torch")
    assert findings(CALLABLE_FACTORY) == [(line_of(CALLABLE_FACTORY, "y = get_act_fn"), "SC101"),
                                          (line_of(CALLABLE_FACTORY, "z = act_or_none"), "SC101")]
    assert raised_line(CALLABLE_FACTORY) == line_of(CALLABLE_FACTORY, "y = get_act_fn")


NORM_ACT_FACTORY = """
import functools
import types

import torch
from torch import nn


class BatchNormAct2d(nn.BatchNorm2d):
    def __init__(self, num_features, act_layer=nn.ReLU, **kwargs):
        super().__init__(num_features, **kwargs)
        self.act = act_layer()

    def forward(self, x):
        return self.act(super().forward(x))


_NORM_ACT_MAP = dict(batchnorm=BatchNormAct2d, batchnorm2d=BatchNormAct2d)
_NORM_ACT_TYPES = {m for n, m in _NORM_ACT_MAP.items()}


def get_norm_act_layer(norm_layer, act_layer=None):
    assert isinstance(norm_layer, (type, str, types.FunctionType, functools.partial))
    norm_act_kwargs = {}
    if norm_layer in _NORM_ACT_TYPES:
        norm_act_layer = norm_layer
    elif isinstance(norm_layer, types.FunctionType):
        norm_act_layer = norm_layer
    else:
        norm_act_layer = _NORM_ACT_MAP[norm_layer.__name__.lower()]
    norm_act_kwargs.setdefault("act_layer", act_layer)
    return functools.partial(norm_act_layer, **norm_act_kwargs)


class ConvNormAct(nn.Module):
    def __init__(self, cin, cout, device=None, dtype=None, conv_kwargs=None):
        super().__init__()
        dd = {"device": device, "dtype": dtype}
        conv_kwargs = {**dd, **(conv_kwargs or {})}
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, **conv_kwargs)
        self.bn = get_norm_act_layer(nn.BatchNorm2d, nn.ReLU)(NORM_WIDTH)

    def forward(self, x):
        return self.bn(self.conv(x))


y = ConvNormAct(3, 8)(torch.randn(2, 3, 5, 5))
"""


@pytest.mark.parametrize("width,bad", [("cout", False), ("2 * cout", True)])
def test_a_norm_act_factory_maps_a_torch_norm_class_by_its_name(width, bad):
    """timm's get_norm_act_layer: a set built by a comprehension over a dict's items, a
    torch class's __name__, isinstance of types.FunctionType, and a dict display of **
    splats (the conv's keywords) are all decided, so the norm after the conv is known."""
    pytest.importorskip("torch")
    source = NORM_ACT_FACTORY.replace("NORM_WIDTH", width)
    expected = [(line_of(source, "return self.bn(self.conv(x))"), "SC113")] if bad else []
    assert findings(source) == expected
    # torch raises in the norm's own forward, below the reported call
    assert (raised_line(source) == line_of(source, "return self.act(super().forward(x))")) is bad
