"""samples/symbolic_shapes.py: each marked bug, seen from the function body alone, is real:
run on torch with sizes that differ it raises at the marked line, and with the sizes the
code wrongly relies on it runs (which is why tests with square inputs miss it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_samples import expected
from test_samples import raised_at as raised_in

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "symbolic_shapes.py"


def raised_at(call) -> int:
    return raised_in(call, SAMPLE)


@pytest.fixture(scope="module")
def sample():
    pytest.importorskip("torch")
    source = SAMPLE.read_text()
    namespace: dict = {"__name__": "symbolic_shapes"}
    exec(compile(source, str(SAMPLE), "exec"), namespace)  # the project's own sample file
    return namespace, dict((code, line) for line, code in expected(source))


def test_attention_without_the_transpose_needs_the_head_size_equal_to_the_length(sample):
    import torch
    namespace, lines = sample
    attention = namespace["CausalSelfAttention"](n_embd=8, n_head=2)
    assert raised_at(lambda: attention(torch.ones(2, 5, 8))) == lines["SC112"]
    assert attention(torch.ones(2, 4, 8)).shape == (2, 4, 8)  # T == head_size: no error


def test_centering_without_keepdims_fails_unless_the_batch_is_as_long_as_the_sequence(sample):
    import torch
    namespace, lines = sample
    assert raised_at(lambda: namespace["center_tokens"](torch.ones(2, 3, 4))) == lines["SC103"]
    assert namespace["center_tokens"](torch.ones(3, 3, 4)).shape == (3, 3, 4)


def test_the_guarded_permute_and_the_padding_fail_for_every_size(sample):
    import torch
    namespace, lines = sample
    images = torch.ones(4, 5, 3)
    assert raised_at(lambda: namespace["to_channels_first"](images)) == lines["SC111"]
    assert raised_at(lambda: namespace["position_table"](3, 4)) == lines["SC108"]


def test_the_clean_functions_run(sample):
    import torch
    namespace, _ = sample
    assert namespace["layer_norm_stats"](torch.ones(2, 3, 4)).shape == (2, 3, 4)
    assert namespace["pool_heads"](torch.ones(2, 5, 3, 4)).shape == (2, 5, 3)
