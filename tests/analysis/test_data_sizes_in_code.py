"""Selections by a mask in user code: one mask selects as many elements wherever it is used,
two masks may select different counts (never an error), and a mask written in between is
another mask."""

from __future__ import annotations

import textwrap

from shapecheck.analysis.api import AnalysisSettings, analyze_source


def codes(source: str) -> list[tuple[int, str]]:
    found = analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings())
    return sorted((f.line, f.code) for f in found)


def test_two_selections_by_one_mask_broadcast_and_have_one_length():
    assert codes("""
        import torch
        x, y = torch.zeros(4, 5), torch.ones(4, 5)
        m = x > 0
        a = x[m] + y[m]
        b = torch.stack([x[m], y[m]])
        c = torch.nonzero(m)[:, 0] + a
        """) == []


def test_a_selection_stacked_with_one_element_fewer_by_the_same_mask_is_an_error():
    assert codes("""
        import torch
        x, y = torch.zeros(4, 5), torch.ones(4, 5)
        m = x > 0
        b = torch.stack([x[m], y[m][1:]])
        """) == [(5, "SC108")]


def test_selections_by_two_masks_are_never_an_error():
    assert codes("""
        import numpy as np
        x = np.zeros((4, 5))
        a = x[x > 0] + x[x > 1]
        b = np.stack([x[x > 0], x[x > 1][1:]])
        c = np.unique(x) + np.flatnonzero(x)
        """) == []


def test_a_mask_written_between_two_selections_selects_a_new_count():
    assert codes("""
        import numpy as np
        x = np.zeros((4, 5))
        m = x > 0
        a = x[m]
        m[0, 0] = True
        b = np.stack([a, x[m][1:]])
        """) == []
