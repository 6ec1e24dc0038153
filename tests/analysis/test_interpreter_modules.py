"""Shapes flow through the torch idioms of real models: ModuleList blocks, registered buffers,
shape-keeping element-wise ops and float constants. Each buggy program is also run on torch."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source

BLOCKS = """
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)

    def forward(self, x):
        return x + torch.relu(self.fc(x))


class Net(nn.Module):
    def __init__(self, n, layers, classes):
        super().__init__()
        self.blocks = nn.ModuleList([Block(n) for _ in range(layers)])
        self.head = nn.Linear(HEAD_IN, classes)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


net = Net(16, 3, 4)
out = net(torch.randn(8, 16))
"""

BUFFER = """
import torch
import torch.nn as nn


class Masked(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(size, size)).view(1, size, size))

    def forward(self, scores):
        T = scores.size(-1)
        scores = scores.masked_fill(self.mask[:, :T, :T] == 0, float('-inf'))
        return torch.softmax(scores, dim=-1) + BIAS


m = Masked(6)
y = m(torch.randn(2, 6, 6))
"""


def findings(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(textwrap.dedent(source), "t.py"))


def run(source: str) -> None:
    exec(compile(textwrap.dedent(source), "t.py", "exec"), {})


def test_shapes_flow_through_a_module_list_of_user_blocks():
    pytest.importorskip("torch")
    good, bad = BLOCKS.replace("HEAD_IN", "n"), BLOCKS.replace("HEAD_IN", "2 * n")
    assert findings(good) == []
    run(good)
    assert [code for _, code in findings(bad)] == ["SC106"]
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        run(bad)


def test_a_registered_buffer_keeps_its_shape_through_tril_view_and_softmax():
    pytest.importorskip("torch")
    good, bad = BUFFER.replace("BIAS", "torch.zeros(6)"), BUFFER.replace("BIAS", "torch.zeros(5)")
    assert findings(good) == []
    run(good)
    assert [code for _, code in findings(bad)] == ["SC101"]
    with pytest.raises(RuntimeError, match="must match the size"):
        run(bad)


def test_float_of_a_bad_string_is_unknown_not_a_crash():
    source = """
    import torch
    x = torch.randn(3).masked_fill(torch.ones(3) == 0, float("not a number"))
    """
    assert findings(source) == []


def test_functional_layers_use_the_runtime_rules_and_torch_agrees():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    source = """
    import torch
    import torch.nn.functional as F

    x = torch.randn(8, 3, 32, 32)
    y = F.conv2d(x, torch.randn(16, 3, 3, 3), padding=1, stride=2)
    h = F.max_pool2d(y, 2)
    z = F.linear(h.flatten(1), torch.randn(10, 16 * 8 * 8))
    bad = F.conv2d(x, torch.randn(16, 4, 3, 3))
    worse = F.linear(z, torch.randn(5, 11))
    """
    found = analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings())
    # A conv given the wrong channels is a layer-input mismatch; a linear is a matmul.
    assert sorted((f.line, f.code) for f in found) == [(9, "SC113"), (10, "SC106")]
    x = torch.randn(8, 3, 32, 32)
    y = F.conv2d(x, torch.randn(16, 3, 3, 3), padding=1, stride=2)
    z = F.linear(F.max_pool2d(y, 2).flatten(1), torch.randn(10, 16 * 8 * 8))
    assert z.shape == (8, 10)
    with pytest.raises(RuntimeError):
        F.conv2d(x, torch.randn(16, 4, 3, 3))
    with pytest.raises(RuntimeError):
        F.linear(z, torch.randn(5, 11))


LEVELS = """
import torch
import torch.nn as nn


class Level(nn.Module):
    def __init__(self, dim, prev_dim=None):
        super().__init__()
        self.pool = nn.Conv2d(prev_dim, dim, 1) if prev_dim is not None else nn.Identity()
        self.pos = nn.Parameter(torch.zeros(1, dim, 1, 1))

    def forward(self, x):
        return self.pool(x) + self.pos


class Net(nn.Module):
    def __init__(self, embed_dims=(8, 16, 32), num_levels=3):
        super().__init__()
        self.num_blocks = (4 ** torch.arange(num_levels)).tolist()  # a length nobody knows
        levels = []
        prev_dim = None
        for i in range(len(self.num_blocks)):
            levels.append(Level(embed_dims[i], prev_dim))
            prev_dim = embed_dims[i]
        self.levels = nn.Sequential(*levels)
        self.norm = nn.LayerNorm(NORM_WIDTH)

    def forward(self, x):
        x = self.levels(x)
        return self.norm(x.permute(0, 2, 3, 1))


out = Net()(torch.randn(2, 8, 4, 4))
"""


@pytest.mark.parametrize("width,bad", [("embed_dims[-1]", False), ("embed_dims[-1] + 1", True)])
def test_a_loop_of_unknown_count_building_different_levels_repeats_none_of_them(width, bad):
    """NesT builds its levels in a loop over a list whose length the analyzer does not know,
    with a pool only after the first. Taking the first level for all of them made the last
    norm see the first level's width: a false error. Levels that differ are alternatives, and
    a call of several alternatives reports nothing."""
    source = LEVELS.replace("NORM_WIDTH", width)
    assert findings(source) == []
    if bad:
        with pytest.raises(RuntimeError):
            run(source)
    else:
        run(source)
