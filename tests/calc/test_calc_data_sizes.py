"""``shapecheck eval`` on selections whose sizes the values decide: the size is a symbol named
after the values (``nnz(x)``), said in one line, and the run on the real library confirms the
rest of the shape (torch's own semantics on torch)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from eval_cli import run


def outcome(*args: str) -> dict:
    result = run(*args, "--format", "json")
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


def test_nonzero_shows_the_count_as_a_symbol_and_one_clear_line_for_it():
    torch = pytest.importorskip("torch")
    text = run("torch.nonzero(x)", "-s", "x=3,4").stdout
    assert "TypeError" not in text and "UnknownDim" not in text
    assert "= (nnz(x), 2)" in text
    assert "nnz(x): how many elements of x are nonzero; the values decide it" in text
    assert "confirmed by running it on torch" in text  # torch's nonzero, not NumPy's
    assert torch.nonzero(torch.ones(3, 4)).shape[1] == 2


def test_two_selections_by_one_mask_broadcast_to_the_mask_count():
    out = outcome("m = x > 0; x[m] + y[m]", "-s", "x=3,4", "-s", "y=3,4", "-d", "numpy")
    assert out["numpy"]["ok"] and out["numpy"]["shape"] == ["nnz(m)"]
    statuses = {(c["engine"], c["status"]) for c in out["numpy"]["confirmed"]}
    assert ("NumPy", "confirmed") in statuses
    x = np.random.default_rng(0).standard_normal((3, 4))
    assert (x[x > 0] + x[x > 0]).shape == (int((x > 0).sum()),)


def test_selections_by_two_masks_are_unknown_and_a_failing_run_is_no_disagreement():
    out = outcome("x[x > 0] + x[x > 1]", "-s", "x=5,3", "-d", "numpy")
    assert out["numpy"]["ok"] and out["numpy"]["shape"] == ["?"]
    statuses = {c["status"] for c in out["numpy"]["confirmed"]}
    assert "disagrees" not in statuses
