"""Ops that return several arrays reach the analyzer: unpacked, indexed or read by field name,
each result keeps its shape (and dtype), so a shape bug further down is found."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source


def codes(source: str) -> list[tuple[int, str]]:
    found = analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings())
    return sorted((f.line, f.code) for f in found)


@pytest.mark.parametrize("read", [
    "values, idx = x.max(dim=1)",
    "values, idx = torch.max(x, 1)",
    "values = x.max(dim=1).values",
    "values = torch.max(x, 1)[0]",
    "values, idx = x.topk(3, dim=1)",
    "values, idx = torch.sort(x, dim=1)",
    "values = torch.median(x, dim=1).values",
])
def test_a_shape_bug_downstream_of_a_multi_output_op_is_found(read):
    # x is (4, 5): max/median over dim 1 give (4,), topk(3) and sort give (4, 3) / (4, 5);
    # each is then added to a (7,) tensor, which broadcasts with none of them.
    found = codes(f"""
        import torch
        x = torch.zeros(4, 5)
        {read}
        y = values + torch.zeros(7)
        """)
    assert found == [(5, "SC101")]


@pytest.mark.parametrize("read", [
    "values, idx = x.max(dim=1)",
    "values = x.max(dim=1).values",
    "values, idx = torch.sort(x, dim=1)",
])
def test_the_same_code_with_matching_shapes_is_quiet(read):
    found = codes(f"""
        import torch
        x = torch.zeros(4, 5)
        {read}
        y = values + torch.zeros(values.shape[-1])
        """)
    assert found == []


def test_the_indices_of_a_max_are_int64_and_index_the_rows():
    found = codes("""
        import torch
        x = torch.zeros(4, 5)
        values, idx = x.max(dim=1)
        picked = x[torch.arange(4), idx]
        wrong = picked + torch.zeros(3)
        """)
    assert found == [(6, "SC101")]


def test_numpy_svd_fields_keep_their_shapes():
    found = codes("""
        import numpy as np
        a = np.zeros((6, 4))
        result = np.linalg.svd(a, full_matrices=False)
        s = result.S
        u = result.U
        bad = u * s[:3]
        """)
    assert found == [(7, "SC101")]
