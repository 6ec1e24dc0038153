"""The layer mistakes the nn samples mark are real: torch raises the error the linter quotes,
and the sample's correct paths run."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from shapecheck.analysis.api import analyze_source

torch = pytest.importorskip("torch")

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def _without_shapes(text: str) -> str:
    """The text with every bracketed shape, nested or not, and every element count taken
    out (a symbolic input's count is an expression)."""
    text = re.sub(r"of size \S+", "of size", text)
    while True:
        shorter = re.sub(r"\[[^\[\]]*\]", "", text)
        if shorter == text:
            return text
        text = shorter


def load(name: str):
    path = SAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"sample_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the project's own sample file
    return module, analyze_source(path.read_text(), str(path))


@pytest.mark.parametrize(("name", "broken", "working", "code"), [
    ("seq2seq_lstm", "encode_batch", "decode_step", "SC113"),
    ("autoencoder", "reconstruct", "upsample_back", "SC113"),
    ("unet_skip", "segment", "upsample_only", "SC113"),
    ("detection_head", "detect", "classify_only", "SC109"),
])
def test_the_marked_layer_mistake_raises_what_the_finding_quotes(name, broken, working, code):
    module, findings = load(name)
    [finding] = findings
    assert finding.code == code
    torch.manual_seed(0)
    with pytest.raises(RuntimeError) as raised:
        getattr(module, broken)()
    # A model's own forward is checked for every input, so the quoted shapes may be symbolic
    # (input[x.shape[0], 16, ...]) where torch names the sizes of this run: compare the rest.
    assert _without_shapes(f"torch: {raised.value}") in _without_shapes(finding.message)
    getattr(module, working)()  # the unmarked path runs on torch
