"""samples/config_defaults.py: each marked bug fails on torch with the configuration the
analyzer reads (options' defaults, a config's fields), at the marked line."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from test_samples import expected
from test_samples import raised_at as raised_in

from shapecheck.analysis.api import analyze_source

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "config_defaults.py"


def raised_at(call) -> int:
    return raised_in(call, SAMPLE, RuntimeError)


@pytest.fixture(scope="module")
def sample():
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("config_defaults", SAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["config_defaults"] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)  # the project's own sample file
    finally:
        del sys.modules["config_defaults"]
    return vars(module), sorted(line for line, _ in expected(SAMPLE.read_text()))


def test_the_script_run_without_flags_fails_at_the_marked_line(sample, monkeypatch):
    namespace, lines = sample
    monkeypatch.setattr(sys, "argv", ["config_defaults.py"])
    assert raised_at(namespace["main"]) in lines


def test_the_head_fails_for_any_width(sample):
    import torch
    namespace, lines = sample
    for n_embd in (8, 12):
        head = namespace["Head"](SimpleNamespace(n_embd=n_embd, vocab_size=5))
        assert raised_at(lambda: head(torch.ones(2, n_embd))) in lines


def test_a_flag_a_script_does_not_read_leaves_nothing_known():
    source = '''
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--n", type=int, default=4)
group = parser.add_argument_group("model")
group.add_argument("--width", type=int, default=3)
args, _ = parser.parse_known_args()
a = torch.ones(args.n, args.width)
b = torch.ones(args.width, args.n)
c = a + b
d = torch.ones(args.depth) + a
'''
    findings = analyze_source(source, "t.py")
    # (4, 3) + (3, 4) fails (as old torch's 1-D fallback would not: same element count);
    # args.depth was never added: unknown, no finding.
    assert [(f.code, f.span.line) for f in findings] == [("SC104", 12)]
