"""The linter asks runtime/nn about layers: each snippet's verdict is confirmed on real torch."""

from __future__ import annotations

import pytest

from shapecheck.analysis.api import analyze_source

CASES = [
    # (snippet, expected codes at its last line, raises on torch)
    ("norm = nn.BatchNorm1d(64)\nx = torch.randn(8, 32)\ny = norm(x)\n", ["SC113"], True),
    ("conv = nn.Conv2d(3, 16, 3)\nx = torch.randn(2, 32, 32, 3)\ny = conv(x)\n", ["SC113"], True),
    ("pool = nn.AvgPool2d(5)\nx = torch.randn(1, 3, 4, 4)\ny = pool(x)\n", ["SC113"], True),
    ("norm = nn.GroupNorm(4, 12)\nx = torch.randn(2, 10, 5)\ny = norm(x)\n", ["SC113"], True),
    ("up = nn.ConvTranspose2d(8, 4, 2, stride=2)\nx = torch.randn(1, 8, 5, 5)\n"
     "y = nn.Linear(10, 3)(up(x))\n", [], False),
    ("up = nn.ConvTranspose2d(8, 4, 2, stride=2)\nx = torch.randn(1, 8, 5, 5)\n"
     "y = nn.Linear(11, 3)(up(x))\n", ["SC106"], True),
    ("feats = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),\n"
     "                      nn.Flatten())\nx = torch.randn(2, 3, 9, 9)\ny = nn.Linear(16, 2)(feats(x))\n",
     ["SC106"], True),
    ("feats = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),\n"
     "                      nn.Flatten())\nx = torch.randn(2, 3, 9, 9)\ny = nn.Linear(8, 2)(feats(x))\n",
     [], False),
    ("logits = torch.randn(4, 7, 10)\nlabels = torch.randint(0, 10, (4, 7))\n"
     "loss = nn.CrossEntropyLoss()(logits, labels)\n", ["SC107"], True),
    ("norm = nn.LayerNorm(16)\nx = torch.randn(4, 10, 16)\ny = norm(x)\n", [], False),
    ("up = nn.PixelShuffle(2)\nx = torch.randn(1, 12, 8, 8)\ny = nn.Conv2d(3, 4, 3)(up(x))\n",
     [], False),
    ("up = nn.PixelShuffle(2)\nx = torch.randn(1, 12, 8, 8)\ny = nn.Conv2d(12, 4, 3)(up(x))\n",
     ["SC113"], True),
    ("x = torch.randn(1, 6, 8, 8)\ny = nn.functional.pixel_shuffle(x, 2)\n", ["SC113"], True),
    ("x = nn.functional.pad(torch.randn(2, 3, 5), (1, 1))\ny = nn.Linear(7, 2)(x)\n", [], False),
    ("x = nn.functional.pad(torch.randn(2, 3, 5), (1, 1))\ny = nn.Linear(5, 2)(x)\n", ["SC106"],
     True),
]


@pytest.mark.parametrize("snippet,codes,raises", CASES)
def test_layer_findings_agree_with_torch(snippet, codes, raises):
    source = "import torch\nfrom torch import nn\n" + snippet
    last = source.rstrip("\n").count("\n") + 1
    findings = analyze_source(source, "model.py")
    assert sorted(f.code for f in findings if f.line == last) == codes, findings
    assert [f for f in findings if f.line != last] == []
    try:
        exec(compile(source, "<snippet>", "exec"), {})  # the test's own constant snippets
        raised = False
    except (RuntimeError, ValueError):
        raised = True
    assert raised == raises


def test_symbolic_sizes_flow_through_the_layer_rules():
    source = ("import torch\nfrom torch import nn, Tensor\nfrom jaxtyping import Float\n"
              "def f(x: Float[Tensor, \"B 3 H W\"]):\n"
              "    y = nn.Conv2d(3, 8, 3, stride=2)(x)\n"
              "    return nn.BatchNorm2d(16)(y)\n")
    findings = analyze_source(source, "model.py")
    assert [(f.line, f.code) for f in findings] == [(6, "SC113")]
    # The conv's output stays an expression of the symbolic sizes; the channels are certain.
    assert "(B, 8, (H - 3)//2 + 1, (W - 3)//2 + 1)" in findings[0].message
    assert "running_mean should contain 8 elements not 16" in findings[0].message


def test_a_layer_returning_a_tuple_is_not_read_as_one_tensor():
    source = ("import torch\nfrom torch import nn\n"
              "pool = nn.MaxPool2d(2, return_indices=True)\n"
              "out, idx = pool(torch.randn(2, 3, 8, 8))\n"
              "y = torch.cat([out, torch.randn(2, 3, 4, 4)], dim=3)\n")
    assert analyze_source(source, "model.py") == []
    namespace: dict = {}
    exec(compile(source, "<snippet>", "exec"), namespace)  # the test's own constant snippet
    assert tuple(namespace["y"].shape) == (2, 3, 4, 8)


@pytest.mark.parametrize("state,codes", [
    ("(torch.zeros(2, 4, 16), torch.zeros(2, 4, 16))", []),
    ("(torch.zeros(4, 2, 16), torch.zeros(4, 2, 16))", ["SC113"]),  # a batch-first h0
])
def test_lstm_initial_state_is_checked(state, codes):
    source = ("import torch\nfrom torch import nn\n"
              "lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)\n"
              "x = torch.randn(4, 5, 8)\n"
              f"out, (h, c) = lstm(x, {state})\n")
    findings = analyze_source(source, "model.py")
    assert [f.code for f in findings] == codes
    try:
        exec(compile(source, "<snippet>", "exec"), {})  # the test's own constant snippet
        raised = False
    except RuntimeError:
        raised = True
    assert raised == bool(codes)


def test_lstm_fed_the_wrong_feature_size():
    source = ("import torch\nfrom torch import nn\n"
              "lstm = nn.LSTM(8, 16)\n"
              "out, _ = lstm(torch.randn(5, 4, 10))\n")
    assert [f.code for f in analyze_source(source, "model.py")] == ["SC113"]
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        exec(compile(source, "<snippet>", "exec"), {})  # the test's own constant snippet


BLOCK = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, inplanes, planes):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d({second}, planes, 3, padding=1)

    def forward(self, x):
        return self.conv2(torch.relu(self.bn1(self.conv1(x))))
'''


@pytest.mark.parametrize("second,codes", [("planes", []), ("planes * 2", ["SC113"]),
                                          ("inplanes", [])])
def test_widths_that_differ_by_a_multiple_of_a_parameter_differ_for_every_model(second, codes):
    # planes * 2 is planes only for a width of 0, a model that computes nothing; inplanes may
    # be planes, so nothing is certain.
    source = BLOCK.format(second=second)
    assert [(f.code, f.line) for f in analyze_source(source, "model.py")] == \
        [(code, 13) for code in codes]
    namespace: dict = {}
    exec(compile(source, "<snippet>", "exec"), namespace)  # the test's own constant snippet
    block = namespace["Block"](4, 4).eval()
    try:
        block(torch_randn(2, 4, 6, 6))
        raised = False
    except RuntimeError:
        raised = True
    assert raised == bool(codes)


def torch_randn(*shape):
    torch = pytest.importorskip("torch")
    return torch.randn(*shape)


def test_a_model_built_with_a_builders_arguments_runs_its_forward_with_them():
    source = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, width, 3)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.conv(x)), 1))


def net64():
    return Net(64)
'''
    findings = analyze_source(source, "model.py")
    # Net on its own may be built with width 128; net64's Net is not.
    assert [(f.code, f.line) for f in findings] == [("SC106", 17)]
    assert "in Net.forward, line 13" in findings[0].message
    namespace: dict = {}
    exec(compile(source, "<snippet>", "exec"), namespace)  # the test's own constant snippet
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        namespace["net64"]()(torch_randn(2, 3, 8, 8))
    namespace["Net"](128)(torch_randn(2, 3, 8, 8))


@pytest.mark.parametrize("second,codes", [("256", []), ("128", ["SC106"])])
def test_a_head_fed_by_a_module_nothing_is_known_of_still_checks_its_own_layers(second, codes):
    # features is whatever the caller passes: its output is a tensor (the Linear raises on
    # anything else) of unknown shape, and the head's layers must agree with each other.
    source = f'''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.features = features
        self.head = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear({second}, 10))

    def forward(self, x):
        return self.head(self.features(x))
'''
    assert [(f.code, f.line) for f in analyze_source(source, "model.py")] == \
        [(code, 12) for code in codes]
    namespace: dict = {}
    exec(compile(source, "<snippet>", "exec"), namespace)  # the test's own constant snippet
    net = namespace["Net"](nn_flatten())
    try:
        net(torch_randn(2, 8, 8, 8))
        raised = False
    except RuntimeError:
        raised = True
    assert raised == bool(codes)


def nn_flatten():
    torch = pytest.importorskip("torch")
    return torch.nn.Flatten()


BLOCK_WITH_PERMUTE = '''from functools import partial

import torch
from torch import nn


class Permute(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return torch.permute(x, self.dims)


class Block(nn.Module):
    def __init__(self, dim, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.LayerNorm, eps=1e-6)
        self.block = nn.Sequential(
            nn.Conv2d(dim, {conv_out}, 7, padding=3, groups=dim),
            Permute([0, 2, 3, 1]),
            norm_layer(dim),
        )

    def forward(self, x):
        return self.block(x)
'''


@pytest.mark.parametrize("conv_out,codes", [("dim", []), ("dim * 2", ["SC113"])])
def test_a_partial_layer_class_and_a_submodules_forward_carry_the_widths(conv_out, codes):
    # functools.partial(nn.LayerNorm, eps=1e-6) builds a LayerNorm when called; Permute's
    # forward, handed the conv's output, returns its permuted shape to the Sequential.
    source = BLOCK_WITH_PERMUTE.format(conv_out=conv_out)
    assert [(f.code, f.line) for f in analyze_source(source, "model.py")] == \
        [(code, 28) for code in codes]
    namespace: dict = {}
    exec(compile(source, "<snippet>", "exec"), namespace)  # the test's own constant snippet
    try:
        namespace["Block"](4)(torch_randn(2, 4, 6, 6))
        raised = False
    except RuntimeError:
        raised = True
    assert raised == bool(codes)


PACKED = '''import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(nn.Module):
    def __init__(self, vocab=100, emb=32, hidden=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear({OUT}, 10)
        self.last = nn.Linear({LAST}, 10)

    def forward(self, tokens, lengths):
        x = self.emb(tokens)
        packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, (h, c) = self.rnn(packed)
        padded, _ = pad_packed_sequence(out, batch_first=True)
        return self.out(padded), self.last(h[-1])


def run():
    tokens = torch.zeros(4, 7, dtype=torch.long)
    lengths = torch.tensor([7, 5, 3, 2])
    return Encoder()(tokens, lengths)
'''


@pytest.mark.parametrize("out,last,raises", [("128", "64", False), ("64", "64", True),
                                             ("128", "128", True)])
def test_a_packed_sequence_through_an_lstm_and_back_keeps_its_shapes(out, last, raises):
    # The padded output is (4, T, 2 * 64) with T the longest length, unknown from a tensor;
    # h_n is (2, 4, 64), so h[-1] is (4, 64).
    source = PACKED.replace("{OUT}", out).replace("{LAST}", last)
    findings = analyze_source(source, "model.py")
    assert [(f.line, f.code) for f in findings] == ([(25, "SC106")] if raises else [])
    namespace: dict = {}
    exec(compile(source, "<model>", "exec"), namespace)  # the test's own constant model
    try:
        namespace["run"]()
        raised = False
    except RuntimeError:
        raised = True
    assert raised == raises


def test_an_rnn_returns_its_output_and_state_as_torch_does():
    source = ("import torch\nfrom torch import nn\n"
              "gru = nn.GRU(8, 16, num_layers=2)\nx = torch.randn(5, 3, 8)\n"
              "out, h = gru(x)\ny = nn.Linear(16, 2)(out) + nn.Linear(16, 2)(h)\n")
    findings = analyze_source(source, "model.py")
    # out (5, 3, 16) and h (2, 3, 16) give (5, 3, 2) and (2, 3, 2): they cannot be added.
    assert [(f.line, f.code) for f in findings] == [(6, "SC101")]
    with pytest.raises(RuntimeError, match="must match the size"):
        exec(compile(source, "<snippet>", "exec"), {})  # the test's own constant snippet
