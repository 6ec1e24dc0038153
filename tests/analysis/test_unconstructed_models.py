"""Models that nothing in their file builds or calls: the first layer that consumes
``forward``'s input says its rank and width, and constructor parameters used as layer
widths are sizes. samples/unconstructed_models.py's bugs are real: run on torch, each
raises at the marked line, and the clean block runs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from test_samples import expected
from test_samples import raised_at as raised_in
from test_shape_coverage import measured

from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.coverage import FULLY_KNOWN, RANK_UNKNOWN

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "unconstructed_models.py"


def raised_at(call) -> int:
    return raised_in(call, SAMPLE, RuntimeError)


@pytest.fixture(scope="module")
def sample():
    pytest.importorskip("torch")
    source = SAMPLE.read_text()
    namespace: dict = {"__name__": "unconstructed_models"}
    exec(compile(source, str(SAMPLE), "exec"), namespace)  # the project's own sample file
    return namespace, {line: code for line, code in expected(source)}


def test_each_marked_layer_mismatch_raises_on_torch_at_its_line(sample):
    import torch
    namespace, lines = sample
    images = torch.ones(2, 3, 8, 8)
    assert {raised_at(lambda: namespace["SmallCNN"]()(images)),
            raised_at(lambda: namespace["Classifier"]()(images))} == set(lines)


def test_the_consistent_block_runs(sample):
    import torch
    namespace, _ = sample
    assert namespace["BasicBlock"](8, 8)(torch.ones(2, 8, 5, 5)).shape == (2, 8, 5, 5)


def test_the_first_conv_gives_forward_its_batched_rank_and_width():
    _, levels = measured('''
        from torch import nn

        class Stem(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 16, 3)
                self.norm = nn.BatchNorm2d(16)

            def forward(self, x):
                skip = x
                y = self.norm(self.conv(x))
                return y, skip.sum(1)
    ''')
    assert levels["self.conv(x)"] == FULLY_KNOWN
    assert levels["self.norm(self.conv(x))"] == FULLY_KNOWN
    # skip was bound to the same input before the conv read it: it has the rank too.
    assert levels["skip.sum(1)"] == FULLY_KNOWN


def test_an_input_the_rank_is_assumed_for_still_fails_the_layer_it_does_not_fit():
    source = '''
from torch import nn

class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
        self.norm = nn.BatchNorm2d(8)

    def forward(self, x):
        return self.norm(self.conv(x))
'''
    findings = analyze_source(source, "t.py")
    assert [(f.code, f.span.line) for f in findings] == [("SC113", 11)]
    assert "running_mean should contain 16 elements not 8" in findings[0].message + str(
        findings[0].__dict__)


def test_constructor_parameters_used_as_widths_are_symbolic_sizes():
    _, levels = measured('''
        from torch import nn

        def conv3x3(cin, cout):
            return nn.Conv2d(cin, cout, 3, padding=1)

        class Block(nn.Module):
            def __init__(self, inplanes, planes):
                super().__init__()
                self.conv = conv3x3(inplanes, planes)

            def forward(self, x):
                return self.conv(x)
    ''')
    # The conv's output width is the parameter planes, through the helper: fully known.
    assert levels["self.conv(x)"] == FULLY_KNOWN


def test_a_parameter_the_code_types_as_no_array_is_not_counted_as_one():
    _, levels = measured('''
        import torch

        def scale(layer_scale: float, settings: list[str], table):
            out = torch.ones(3, 4) * layer_scale
            for s in settings:
                pass
            return out, table[settings]
    ''')
    assert levels["torch.ones(3, 4) * layer_scale"] == FULLY_KNOWN
    assert "s" not in levels and "layer_scale" not in levels
    # An item of a parameter nothing is known of may be anything: not counted as an array.
    assert "table[settings]" not in levels


def test_a_layer_that_does_not_state_a_rank_assumes_none():
    _, levels = measured('''
        from torch import nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 4)

            def forward(self, x):
                return self.fc(x)
    ''')
    assert levels.get("self.fc(x)", RANK_UNKNOWN) == RANK_UNKNOWN


def test_factory_keywords_splatted_into_layers_and_creations_keep_the_widths():
    _, levels = measured('''
        import torch
        from torch import nn

        class Attention(nn.Module):
            def __init__(self, dim, num_heads=8, device=None, dtype=None):
                dd = {"device": device, "dtype": dtype}
                super().__init__()
                self.num_heads = num_heads
                self.scale = (dim // num_heads) ** -0.5
                self.qkv = nn.Linear(dim, dim * 3, **dd)
                self.bias = nn.Parameter(torch.zeros(dim, **dd))

            def forward(self, x):
                B, N, C = x.shape
                qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads)
                q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
                attn = (q @ k.transpose(-2, -1)) * self.scale
                return attn, self.bias
    ''')
    assert levels["self.qkv(x)"] == FULLY_KNOWN  # (B, N, 3*dim)
    assert levels["self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads)"] == \
        FULLY_KNOWN  # C // 8 is a symbolic dim
    assert levels["(q @ k.transpose(-2, -1)) * self.scale"] == FULLY_KNOWN  # a float scale
    assert levels["self.bias"] == FULLY_KNOWN


def test_a_splat_that_may_hold_a_stride_leaves_the_spatial_dims_unknown():
    findings = analyze_source('''
from torch import nn

class Down(nn.Module):
    def __init__(self, conv_kwargs):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, **conv_kwargs)

    def forward(self, x):
        y = self.conv(x)
        return y + x[:, :1]
''', "t.py")
    # With stride=1, padding=1 in the splat the add is fine; nothing is certain.
    assert findings == []


def test_a_parameter_left_to_its_none_default_follows_the_body_that_fills_it():
    source = '''
from torch import nn

class Block(nn.Module):
    def __init__(self, planes, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self.conv = nn.Conv2d(3, 16, 3)
        self.bn = norm_layer(8)

    def forward(self, x):
        return self.bn(self.conv(x))
'''
    assert [(f.code, f.span.line) for f in analyze_source(source, "t.py")] == [("SC113", 13)]
    # A caller's own norm layer is another story: nothing is certain then.
    called = source + '''
def build(norm):
    return Block(8, norm_layer=norm)(None)
'''
    assert [(f.code, f.span.line) for f in analyze_source(called, "t.py")] == [("SC113", 13)]


def test_config_fields_are_sizes_and_a_linear_fixes_the_last_dim():
    source = '''
import torch
from torch import nn

class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x):
        B, T, C = x.shape
        h = self.c_fc(x)
        return self.c_proj(torch.relu(h))

class Head(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fc = nn.Linear(config.n_embd, 512)
        self.out = nn.Linear(256, config.vocab_size)

    def forward(self, x):
        return self.out(torch.tanh(self.fc(x)))
'''
    findings = analyze_source(source, "t.py")
    # x's rank is unknown in Head: the first Linear still says what the second receives.
    assert [(f.code, f.span.line) for f in findings] == [("SC106", 23)]
    _, levels = measured(source)
    # (B, T, 4*config.n_embd): the config's fields are sizes.
    assert levels["self.c_fc(x)"] == FULLY_KNOWN
    assert levels["self.c_proj(torch.relu(h))"] == FULLY_KNOWN


def test_a_dataclass_config_gives_its_defaults_and_layer_norm_fixes_the_last_dims():
    source = '''
from dataclasses import dataclass
from torch import nn

@dataclass
class Config:
    n_embd: int = 768

class Head(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.ln = nn.LayerNorm(config.n_embd)
        self.proj = nn.Linear(config.n_embd * 2, 10)

    def forward(self, x):
        return self.proj(self.ln(x))
'''
    assert [(f.code, f.span.line) for f in analyze_source(source, "t.py")] == [("SC106", 16)]


def test_an_embedding_bag_answers_float_rows_for_int_ids():
    source = '''
import torch
from torch import nn

bag = nn.EmbeddingBag(100, 8, mode="mean")
ids = torch.randint(0, 100, (4, 3))
out = bag(ids)
out += torch.rand(4, 8)
'''
    assert analyze_source(source, "t.py") == []


SUBMODULES = """
    import torch
    from torch import nn


    class Block(nn.Module):
        def __init__(self, chs):
            super().__init__()
            self.conv = nn.Conv2d(chs, chs, 3, padding=1)
            self.norm = nn.BatchNorm2d(chs)

        def forward(self, x):
            return self.norm(self.conv(x))


    class Net(nn.Module):
        def __init__(self, widths=(8, 16, 24, 32, 40, 48, 56, 64, 72, 80)):
            super().__init__()
            self.stem = nn.Conv2d(3, widths[0], 3)
            blocks = []
            prev = widths[0]
            for w in widths:
                blocks += [nn.Conv2d(prev, w, 1), Block(w)]
                prev = w
            self.blocks = nn.Sequential(*blocks)
            self.head = nn.Linear(HEAD, 10)

        def forward(self, x):
            x = self.blocks(self.stem(x))
            return self.head(x.mean((2, 3)))


    def net():
        return Net()
"""


@pytest.mark.parametrize("head, expected", [("80", []), ("81", [(30, "SC106")])])
def test_the_modules_a_constructor_builds_run_in_its_forward_not_each_on_its_own(head, expected,
                                                                               monkeypatch):
    # Each of the ten blocks running a forward of its own when built spent the budget of
    # specializations before the model's forward reached its head (DenseNet's 58 layers and
    # 116 norms did so with the real budget).
    from shapecheck.analysis.interpret import functions, modules

    monkeypatch.setattr(functions, "MAX_SPECIALIZATIONS", 22)
    monkeypatch.setattr(modules, "MAX_SPECIALIZATIONS", 22)
    source = textwrap.dedent(SUBMODULES).replace("HEAD", head)
    assert sorted((f.line, f.code) for f in analyze_source(source, "t.py")) == expected
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(source, namespace)  # the test's own constant snippet
    if expected:
        with pytest.raises(RuntimeError, match="cannot be multiplied"):
            namespace["net"]()(torch.zeros(1, 3, 12, 12))
    else:
        assert namespace["net"]()(torch.zeros(1, 3, 12, 12)).shape == (1, 10)
