"""Print the conformance counts per family once, at the end of the run (visible with -s)."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(scope="session", autouse=True)
def nn_conformance_counts():
    yield
    harness = sys.modules.get("nn_conformance")
    if harness is not None and harness.CASES:
        harness.report("torch.nn")
