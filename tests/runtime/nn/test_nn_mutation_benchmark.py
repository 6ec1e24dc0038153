"""benchmarks/mutation_models.py on a small model: its generator gives a mutant of every kind,
torch confirms them, and shapecheck finds the layer-width bugs without flagging a mutant that runs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[3] / "benchmarks" / "mutation_models.py"

MODEL = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width=8, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, 16, 3, padding=1)
        self.norm = nn.LayerNorm(16)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = self.conv2(x)
        x = self.norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        x = self.pool(x)
        x = x.reshape(x.size(0), 16)
        return self.fc(x)
'''
STEM_LINE = 9  # the first conv: its in_channels is what the input must have, not a bug


@pytest.fixture(scope="module")
def mutations():
    spec = importlib.util.spec_from_file_location("mutation_models", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def raises_on_torch(source: str) -> bool:
    import torch
    namespace: dict = {}
    exec(compile(source, "model.py", "exec"), namespace)  # the test's own model and its mutants
    try:
        with torch.no_grad():
            namespace["Net"]().eval()(torch.randn(2, 3, 8, 8))
    except (RuntimeError, ValueError):
        return True
    return False


def test_every_kind_is_generated_from_the_code_itself(mutations):
    mutants = mutations.generate(MODEL)
    assert {m.kind for m in mutants} == set(mutations.KINDS)
    for mutant in mutants:
        changed = [(a, b) for a, b in zip(MODEL.splitlines(), mutant.source.splitlines()) if a != b]
        assert len(changed) == 1 and mutant.line == MODEL.splitlines().index(changed[0][0]) + 1


def test_shapecheck_finds_the_confirmed_width_bugs_and_flags_no_mutant_that_runs(mutations):
    pytest.importorskip("torch")
    path = Path("model.py")
    assert not raises_on_torch(MODEL) and mutations.lint_source(path, MODEL) == []
    widths = {"conv_in", "conv_out", "norm", "linear_in"}
    checked = 0
    for mutant in mutations.generate(MODEL):
        found = mutations.lint_source(path, mutant.source)
        if not raises_on_torch(mutant.source):
            assert found == [], mutant.after
        elif mutant.kind in widths and mutant.line != STEM_LINE:
            assert found, f"{mutant.kind} line {mutant.line}: {mutant.before} -> {mutant.after}"
            checked += 1
    assert checked >= 5
