"""The analyzer survives real-world code: numpy's own source lints without internal errors."""

from __future__ import annotations

import os
from pathlib import Path

import numpy
import pytest

from shapecheck.analysis.api import analyze_source

NUMPY_ROOT = Path(os.path.dirname(numpy.__file__))
SAMPLE_MODULES = ["linalg/_linalg.py", "lib/_shape_base_impl.py", "_core/tests/test_indexing.py"]


@pytest.mark.parametrize("relative", SAMPLE_MODULES)
def test_numpy_module_lints_without_internal_error(relative):
    path = NUMPY_ROOT / relative
    if not path.exists():
        pytest.skip(f"{relative} not in this numpy")
    findings = analyze_source(path.read_text(encoding="utf-8"), str(path))
    assert [f for f in findings if f.code in ("SC099", "SC001")] == []


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SHAPECHECK_SLOW"), reason="set SHAPECHECK_SLOW=1 (minutes)")
def test_whole_numpy_package_lints_without_internal_error():
    internal = []
    for path in sorted(NUMPY_ROOT.rglob("*.py")):
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        internal.extend(f for f in analyze_source(source, str(path)) if f.code == "SC099")
    assert internal == []
