"""A parameter nothing describes has the rank its body says on every returning path, from the
body's first line; a norm's or activation's output says the rank of the array it kept the
shape of. Ranks said on some paths only (a loop body, a try with handlers, after an early
return) say nothing."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import analyze_source
from tests.analysis.test_shapes_from_code import TIMM_BUILDER, analyzed

BLOCK = """
    import torch
    from torch import nn

    class Attention(nn.Module):
        def __init__(self, dim, num_heads=8):
            super().__init__()
            self.num_heads = num_heads
            self.qkv = nn.Linear(dim, dim * 3)
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            B, N, C = x.shape
            qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads)
            q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
            x = ((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v).transpose(1, 2).reshape(B, N, C)
            return self.proj(x)

    class Block(nn.Module):
        def __init__(self, dim, num_heads=8):
            super().__init__()
            self.norm1 = nn.LayerNorm(dim)
            self.attn = Attention(dim, num_heads)
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            x = x + self.drop(self.attn(self.norm1(x)))
            return x.permute(PERMUTE)
"""


def test_a_callee_that_unpacks_the_norm_of_x_says_the_rank_of_x_from_the_first_line():
    shapes, findings = analyzed(BLOCK.replace("PERMUTE", "0, 2, 1"))
    assert findings == []
    # (The walk that learned it had seen them of unknown rank.)
    assert "(B, N, dim)" in shapes["x + self.drop(self.attn(self.norm1(x)))"]
    assert "(B, dim, N)" in shapes["x.permute(0, 2, 1)"]


def test_a_permute_of_four_dims_after_the_block_is_an_error_for_every_input():
    _, findings = analyzed(BLOCK.replace("PERMUTE", "0, 2, 1, 3"))
    line = textwrap.dedent(BLOCK).splitlines().index("        return x.permute(PERMUTE)") + 1
    assert findings == [(line, "SC111")]


def test_the_permute_error_is_torchs_for_any_input_the_block_takes():
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    code = compile(textwrap.dedent(BLOCK.replace("PERMUTE", "0, 2, 1, 3")), "block.py", "exec")
    exec(code, namespace)  # the test's own code, not user input
    block = namespace["Block"](16, 4)
    with pytest.raises(RuntimeError, match="number of dimensions in the tensor input does not match"):
        block(torch.zeros(2, 5, 16))


@pytest.mark.parametrize("body", [
    # Returns before it says the rank: on that path x may have any.
    """
    def f(x, flag):
        if flag:
            return x.sum(dim=3)
        B, N, C = x.shape
        return x
    """,
    # A loop body may run no time.
    """
    def f(x, n):
        y = x.sum(dim=3)
        for _ in range(n):
            B, N, C = x.shape
        return y
    """,
    # A handler may run from before the unpack.
    """
    def f(x):
        y = x.sum(dim=3)
        try:
            B, N = x.shape
        except ValueError:
            pass
        return y
    """,
    # A rank taken from how the body indexes x is a guess: not spread to the reads before.
    """
    def f(x):
        y = x.sum(dim=3)
        return y, x[:, 0]
    """,
])
def test_a_rank_said_on_some_paths_only_says_nothing_of_the_parameter(body):
    _, findings = analyzed("import torch\n" + textwrap.dedent(body))
    assert findings == []


def test_a_rank_said_on_every_returning_path_holds_before_it_too():
    # x.sum(dim=3) needs 4 dims, the unpack 3: no input gets through both.
    _, findings = analyzed("""
        import torch

        def f(x):
            y = x.sum(dim=3)
            B, N, C = x.shape
            return y
    """)
    assert findings == [(5, "SC111")]


def test_each_instance_of_a_block_has_its_own_channels_at_the_first_line():
    # The rank the conv says of x is every instance's; its channels are this instance's.
    _, findings = analyzed("""
        import torch
        from torch import nn

        class Res(nn.Module):
            def __init__(self, cin, cout):
                super().__init__()
                self.conv = nn.Conv2d(cin, cout, 3, padding=1)
                self.down = nn.Conv2d(cin, cout, 1)

            def forward(self, x):
                y = self.conv(x)
                return y + self.down(x)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.Sequential(Res(64, 64), Res(64, 96), Res(96, 128))

            def forward(self, x):
                return self.layers(x)

        net = Net()
    """)
    assert findings == []


def test_a_module_of_the_code_that_returns_its_inputs_shape_passes_the_rank_on():
    # A norm subclass whose forward returns F.layer_norm(x), a dropout that may return x itself:
    # what the caller's unpack says of x, it says of their outputs, and a callee that unpacks
    # their output says it of x.
    shapes, findings = analyzed("""
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class LN(nn.LayerNorm):
            def forward(self, x):
                return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

        class Drop(nn.Module):
            def forward(self, x):
                if not self.training:
                    return x
                return F.dropout(x, 0.1)

        class Heads(nn.Module):
            def forward(self, x):
                B, N, C = x.shape
                return x.view(B, N, 4, C // 4)

        class Block(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.norm = LN(dim)
                self.drop = Drop()
                self.heads = Heads()

            def forward(self, x):
                y = self.drop(self.norm(x))
                h = self.heads(y)
                return x + y
    """)
    assert findings == []
    assert "(B, N, C)" in shapes["self.drop(self.norm(x))"]
    assert "(B, N, C)" in shapes["x + y"]



def test_a_callees_own_array_links_never_reach_its_caller():
    # SENet through timm's builder chain: at the call-depth limit the squeeze-excite call is
    # unknown, and each block's result had kept which of the block's own arrays it came from.
    # The next block, the same forward with the same parameter, took that for its own input:
    # its input was then the stage's, with the wrong channels. No finding is right here.
    _, findings = analyzed(textwrap.dedent("""
        import torch
        import torch.nn as nn


        class SE(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.fc1 = nn.Conv2d(c, c // 4, 1)
                self.fc2 = nn.Conv2d(c // 4, c, 1)

            def forward(self, x):
                module_input = x
                x = x.mean((2, 3), keepdim=True)
                x = self.fc2(self.fc1(x))
                return module_input * x


        class Block(nn.Module):
            def __init__(self, cin, cout, stride=1, downsample=None):
                super().__init__()
                self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1)
                self.downsample = downsample
                self.se = SE(cout)
                self.relu = nn.ReLU()

            def forward(self, x):
                shortcut = x
                out = self.conv1(x)
                if self.downsample is not None:
                    shortcut = self.downsample(x)
                out = self.se(out) + shortcut
                return self.relu(out)


        class Net(nn.Module):
            def __init__(self, layers=(2, 3), num_classes=10, in_chans=3):
                super().__init__()
                self.inplanes = 64
                self.layer1 = self._make_layer(64, layers[0])
                self.layer2 = self._make_layer(128, layers[1], stride=2)

            def _make_layer(self, planes, blocks, stride=1):
                downsample = None
                if stride != 1 or self.inplanes != planes:
                    downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride), nn.BatchNorm2d(planes))
                layers = [Block(self.inplanes, planes, stride, downsample)]
                self.inplanes = planes
                for i in range(1, blocks):
                    layers.append(Block(self.inplanes, planes))
                return nn.Sequential(*layers)

            def forward_features(self, x):
                x = self.layer1(x)
                x = self.layer2(x)
                return x

            def forward(self, x):
                x = self.forward_features(x)
                return self.head(x)

            def head(self, x):
                return x.mean((2, 3))




        def _create(variant, pretrained=False, **kwargs):
            return build_model_with_cfg(Net, {}, **kwargs)


        def net34(pretrained=False, **kwargs):
            model_args = dict(layers=(3, 4))
            return _create("net34", pretrained, **dict(model_args, **kwargs))
    """) + textwrap.dedent(TIMM_BUILDER))
    assert findings == []


def test_a_function_that_keeps_its_parameters_shape_called_by_keyword():
    _, findings = analyzed("""
        import torch
        import torch.nn.functional as F

        def norm(x, eps=1e-5):
            return F.layer_norm(x, x.shape[-1:], eps=eps)

        def f(inp):
            y = norm(x=inp)
            z = norm(eps=0.1, x=inp)
            B, N, C = y.shape
            return y, z
    """)
    assert findings == []  # (an internal error, SC099, had been one)


def test_an_array_filled_in_for_a_parameter_left_to_none_is_no_claim_of_a_caller():
    # DLA's trees always pass the shortcut; the block's own default (shortcut = x) fails for
    # these widths, but nobody calls it that way.
    _, findings = analyzed("""
        from typing import Optional
        import torch
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self, cin, cout, stride):
                super().__init__()
                self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)

            def forward(self, x, shortcut: Optional[torch.Tensor] = None):
                if shortcut is None:
                    shortcut = x
                out = self.conv(x)
                out += shortcut
                return out

        class Tree(nn.Module):
            def __init__(self, cin, cout):
                super().__init__()
                self.down = nn.MaxPool2d(2, 2)
                self.project = nn.Sequential(nn.Conv2d(cin, cout, 1), nn.BatchNorm2d(cout))
                self.tree1 = Block(cin, cout, 2)

            def forward(self, x):
                return self.tree1(x, self.project(self.down(x)))

        t = Tree(32, 64)
        y = Block(32, 64, 2)(torch.zeros(1, 32, 8, 8))
    """)
    # The call that leaves the shortcut out does fail, and is reported.
    assert [code for _, code in findings] == ["SC201"]


FUNCTIONAL_CONV = """
    import torch
    import torch.nn.functional as F
    from shapecheck import reveal_shape

    def pad_same(x, k):
        return F.pad(x, (k // 2, k // 2, k // 2, k // 2))

    def scaled(x, weight):
        y = F.conv2d(pad_same(x, 3), weight)
        reveal_shape(y)
        return y

    def head(x):
        w = torch.randn(8, 3, 3, 3)
        out = F.conv2d(x, w, None, 2, 1, 1, 1)
        reveal_shape(out)
        return out + torch.zeros(BIAS)
"""


def test_a_functional_convolution_takes_an_input_nobody_describes_as_batched():
    """F.conv2d, as nn.Conv2d does, says its input is (N, C, H, W), with C the weight's
    input channels times the groups; a helper's result nobody describes (timm's pad_same on
    a parameter) is such an input too, since the call only returns for a tensor."""
    notes = [f.message for f in analyze_source(textwrap.dedent(FUNCTIONAL_CONV.replace(
        "BIAS", "8, 1, 1")), "t.py") if f.code == "SC004"]
    assert notes == ["y: (pad_same(x, 3).shape[0], ?, ?, ?) torch, dtype unknown, from line 10",
                     "out: (x.shape[0], 8, (x.shape[2] - 1)//2 + 1, (x.shape[3] - 1)//2 + 1) "
                     "torch, dtype unknown, from line 16"]


@pytest.mark.parametrize("bias,bad", [("8, 1, 1", False), ("5, 1, 1", True)])
def test_a_channel_mismatch_after_a_functional_convolution_fails_for_every_input(bias, bad):
    torch = pytest.importorskip("torch")
    found = [(f.line, f.code) for f in analyze_source(textwrap.dedent(FUNCTIONAL_CONV.replace(
        "BIAS", bias)), "t.py") if f.code != "SC004"]
    assert found == ([(18, "SC101")] if bad else [])
    namespace: dict = {}
    exec(textwrap.dedent(FUNCTIONAL_CONV.replace("BIAS", bias)), namespace)  # the test's own snippet
    for x in (torch.randn(2, 3, 9, 9), torch.randn(3, 9, 9)):  # batched or not, torch agrees
        if bad:
            with pytest.raises(RuntimeError):
                namespace["head"](x)
        else:
            namespace["head"](x)


RANK_BRANCHES = """
import torch


def first_channel(x: torch.Tensor):
    if x.dim() == 2:
        return x[:, :, 0]
    return x[:, 0]


def channels_last(x: torch.Tensor):
    rank = x.dim()
    if rank != 4:
        return x
    return x.permute(0, 2, 1)


def stale(x: torch.Tensor):
    rank = x.dim()
    x = x.unsqueeze(0)
    if rank == 2:
        return x[:, :, :, 0]  # x has 3 dims here: the test read the rank of the array before
    return x


def to_batched(x: torch.Tensor):
    tensor_dim = x.dim()
    if tensor_dim == 3:
        x = x.unsqueeze(1)
    elif tensor_dim != 4:
        raise ValueError(f"Unsupported input dimension {x.shape}")
    return x
"""


def test_a_branch_on_the_rank_runs_with_that_rank():
    from tests.analysis.test_shapes_from_code import analyzed

    shapes, found = analyzed(RANK_BRANCHES)
    # Each branch knows its test: x[:, :, 0] of a 2-D x, and a permute of 3 dims of a 4-D one.
    assert sorted(found) == [(7, "SC111"), (15, "SC111")]  # nothing in stale()
    assert shapes["x"] >= {"(?, ?, ?, ?)"}  # to_batched returns 4 dims on every path
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError):
        torch.zeros(2, 3)[:, :, 0]
    with pytest.raises(RuntimeError):
        torch.zeros(2, 3, 4, 5).permute(0, 2, 1)


def test_a_rank_a_squeeze_assumed_is_no_ground_for_the_reduced_axis_warning():
    # RAG's loss: gather's last dim is the index's, 1 in torch, but nothing here says so of a
    # target nobody describes; squeeze(-1) may keep it, so ll's rank is an assumption and SC103
    # (the reduced log-likelihood against the unreduced one) says nothing of it.
    source = """
import torch
import torch.nn.functional as F

def loss(seq_logits: torch.Tensor, target: torch.Tensor, n_docs: int, epsilon: float):
    logprobs = F.log_softmax(seq_logits, dim=-1).view(
        seq_logits.shape[0] // n_docs, n_docs, -1, seq_logits.size(-1))
    target = target.unsqueeze(1).unsqueeze(-1).repeat(1, n_docs, 1, 1)
    ll = logprobs.gather(dim=-1, index=target)
    smooth = logprobs.sum(dim=-1, keepdim=True)
    ll, smooth = ll.squeeze(-1), smooth.squeeze(-1)
    ll = ll.sum(2).logsumexp(1)
    smooth = smooth.sum(2).logsumexp(1)
    eps_i = epsilon / logprobs.size(-1)
    return (1.0 - epsilon) * -ll + eps_i * -smooth
"""
    found = [(f.line, f.code) for f in analyze_source(textwrap.dedent(source), "t.py")]
    assert found == []
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(source, "t.py", "exec"), namespace)  # noqa: S102 (our snippet)
    out = namespace["loss"](torch.zeros(4, 5, 7), torch.zeros(2, 5, dtype=torch.long), 2, 0.1)
    assert out.shape == (2,)
