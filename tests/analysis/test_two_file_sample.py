"""samples/two_files: each bug marked in train.py needs a shape from blocks.py, and is real:
run on torch, the buggy step raises at the marked line and the fixed one runs."""

from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path

import pytest

from shapecheck.analysis.api import analyze_source
from test_samples import expected

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "two_files"
TRAIN = SAMPLE / "train.py"


@pytest.fixture(scope="module")
def train():
    pytest.importorskip("torch")
    sys.path.insert(0, str(SAMPLE))
    try:
        yield importlib.import_module("train")  # the project's own sample, importing blocks.py
    finally:
        sys.path.remove(str(SAMPLE))
        sys.modules.pop("train", None)
        sys.modules.pop("blocks", None)


def raised_at(call) -> int:
    with pytest.raises(RuntimeError) as caught:
        call()
    frames = [f for f in traceback.extract_tb(caught.value.__traceback__) if f.filename == str(TRAIN)]
    return frames[-1].lineno


def marked() -> dict[str, int]:
    return {code: line for line, code in expected(TRAIN.read_text())}


def test_the_analysis_finds_the_bugs_only_with_the_imported_file():
    source = TRAIN.read_text()
    assert sorted((f.line, f.code) for f in analyze_source(source, str(TRAIN))) == expected(source)
    elsewhere = str(SAMPLE / "absent" / "train.py")  # not a file: its imports cannot be read
    assert analyze_source(source, elsewhere) == []


def test_the_buggy_functions_raise_at_the_marked_lines(train):
    import torch
    lines = marked()
    assert raised_at(lambda: train.buggy_step(torch.ones(1))) == lines["SC106"]
    assert raised_at(train.buggy_embed) == lines["SC101"]


def test_the_fixed_functions_run(train):
    import torch
    assert train.fixed_step(torch.ones(1)).shape == ()
    assert train.fixed_embed().shape == (8, 17, 64)
