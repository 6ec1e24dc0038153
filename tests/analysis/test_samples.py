"""Linting samples/ gives exactly the findings the samples mark with ``# expect: SCxxx``."""

from __future__ import annotations

import re
import traceback
from pathlib import Path

import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
EXPECT = re.compile(r"#\s*expect:\s*(SC\d{3}(?:\s*,\s*SC\d{3})*)")
FILES = sorted(SAMPLES.rglob("*.py"))


def expected(source: str) -> list[tuple[int, str]]:
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            out.extend((number, code.strip()) for code in match.group(1).split(","))
    return sorted(out)


def raised_at(call, sample: Path, exception: type = Exception) -> int:
    """The line of ``sample`` at which running ``call`` raised ``exception``."""
    with pytest.raises(exception) as caught:
        call()
    frames = [f for f in traceback.extract_tb(caught.value.__traceback__)
              if f.filename == str(sample)]
    return frames[-1].lineno


def settings_for(path: Path) -> AnalysisSettings:
    # samples/legacy holds pre-broadcasting torch code, linted in its own era.
    return AnalysisSettings(dialect="torch-legacy" if path.parent.name == "legacy" else None)


def test_samples_cover_every_shape_rule():
    codes = {code for path in FILES for _, code in expected(path.read_text())}
    assert codes >= {"SC101", "SC102", "SC103", "SC104", "SC105", "SC106", "SC107", "SC108",
                     "SC109", "SC110", "SC111", "SC201", "SC202", "SC203"}


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SAMPLES)) for p in FILES])
def test_sample_findings_are_exactly_the_marked_ones(path: Path):
    source = path.read_text()
    findings = analyze_source(source, str(path), settings_for(path))
    assert sorted((f.line, f.code) for f in findings) == expected(source)


def test_sample_messages_name_both_shapes_and_the_library_text():
    path = SAMPLES / "data_pipeline.py"
    findings = analyze_source(path.read_text(), str(path))
    by_code = {f.code: f.message for f in findings}
    assert "(100, 9) and (50, 9)" in by_code["SC108"]
    assert "with_bias from line 27, extra from line 28" in by_code["SC108"]
    assert by_code["SC109"].endswith(
        "numpy: cannot reshape array of size 800 into shape (3,newaxis,8)")


def test_clean_sample_is_clean():
    path = SAMPLES / "clean_idioms.py"
    assert analyze_source(path.read_text(), str(path)) == []
