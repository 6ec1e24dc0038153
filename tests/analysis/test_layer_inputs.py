"""Layers whose forward reads several inputs (attention masks, recurrent states, unpooling
indices): each input reaches the runtime's rule, and a mismatch torch raises is SC113."""

from __future__ import annotations

import pytest

from shapecheck.analysis.api import analyze_source

ATTENTION = '''
import torch
from torch import nn

attn = nn.MultiheadAttention(64, 8, batch_first=True)
x = torch.randn(4, 10, 64)
mask = torch.zeros({mask}, dtype=torch.bool)
out, weights = attn(x, x, x, key_padding_mask=mask)
y = out + torch.randn({after})
'''


def findings(source: str) -> list[tuple[int, str]]:
    return [(f.span.line, f.code) for f in analyze_source(source, "t.py")]


def test_a_key_padding_mask_of_the_wrong_shape_is_torchs_error():
    torch = pytest.importorskip("torch")
    source = ATTENTION.format(mask="10, 4", after="4, 10, 64")
    found = analyze_source(source, "t.py")
    assert [(f.span.line, f.code) for f in found] == [(8, "SC113")]
    attn = torch.nn.MultiheadAttention(64, 8, batch_first=True)
    x = torch.randn(4, 10, 64)
    with pytest.raises(AssertionError) as raised:
        attn(x, x, x, key_padding_mask=torch.zeros(10, 4, dtype=torch.bool))
    assert str(raised.value) in found[0].message


def test_the_attention_output_has_the_query_shape():
    assert findings(ATTENTION.format(mask="4, 10", after="4, 10, 64")) == []
    # (4, 10, 64) + (4, 10, 32): the output's shape is known, so the add is checked.
    assert findings(ATTENTION.format(mask="4, 10", after="4, 10, 32")) == [(9, "SC101")]


def test_a_cell_takes_its_state_and_answers_it():
    source = '''
import torch
from torch import nn

cell = nn.LSTMCell(32, 64)
h, c = cell(torch.randn(5, 32), (torch.randn(5, 64), torch.randn(5, 64)))
z = h @ torch.randn({rows}, 3)
'''
    assert findings(source.format(rows=64)) == []
    assert findings(source.format(rows=32)) == [(7, "SC106")]


def test_the_transformer_block_sample_fails_on_torch_and_its_fix_runs():
    torch = pytest.importorskip("torch")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "samples" / "transformer_block.py"
    spec = importlib.util.spec_from_file_location("transformer_block", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the project's own sample file
    [finding] = analyze_source(path.read_text(), str(path))
    torch.manual_seed(0)
    with pytest.raises(AssertionError) as raised:
        module.encode()
    assert str(raised.value) in finding.message
    assert module.encode_fixed().shape == (8, 20, 64)
