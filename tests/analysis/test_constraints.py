"""Shapes the code states itself: unpacking names dims, and SC112 warns when an op needs two
dims the code named differently to be equal. Each bug is confirmed on real torch or numpy."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source


def findings(source: str):
    return analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings())


def codes(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in findings(source))


def test_attention_scores_without_the_transpose_need_t_equal_to_d():
    source = """
    import numpy as np

    def scores(q, k):
        B, T, D = q.shape
        assert k.shape == (B, T, D)
        return q @ k / np.sqrt(D)
    """
    found = findings(source)
    assert [(f.line, f.code) for f in found] == [(7, "SC112")]
    assert "T == D" in found[0].message or "D == T" in found[0].message
    assert "unpacked from q.shape at line 5" in found[0].message
    q = np.ones((2, 4, 8))
    with pytest.raises(ValueError):
        q @ q  # the sizes differ: numpy refuses
    assert (np.ones((2, 8, 8)) @ np.ones((2, 8, 8))).shape == (2, 8, 8)  # a square test passes


def test_the_transposed_twin_is_clean():
    assert codes("""
    import numpy as np

    def scores(q, k):
        B, T, D = q.shape
        assert k.shape == (B, T, D)
        return q @ k.swapaxes(-2, -1) / np.sqrt(D)
    """) == []


def test_a_mean_without_keepdims_is_reported_once_by_the_rule_that_names_the_cause():
    source = """
    import torch

    def center(x):
        B, T, C = x.shape
        return x - x.mean(1)
    """
    assert codes(source) == [(6, "SC103")]
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        x = torch.ones(2, 3, 4)
        x - x.mean(1)


def test_one_name_unpacked_from_two_arrays_is_the_same_dim_to_the_code():
    # diffusers' space-to-channel shortcut unpacks B, C, H, W from two arrays in turn.
    assert codes("""
    import torch

    def forward(conv, x):
        h = conv(x)
        B, C, H, W = h.shape
        h = h.reshape(B, 4 * C, H // 2, W // 2)
        B, C, H, W = x.shape
        shortcut = x.reshape(B, 4 * C, H // 2, W // 2)
        return h + shortcut
    """) == []


def test_unpacking_gives_the_rank_so_a_dim_past_it_is_an_error():
    source = """
    import torch

    def swap(x):
        B, T, C = x.shape
        return x.transpose(1, 3)
    """
    assert codes(source) == [(6, "SC111")]
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError):
        torch.ones(2, 3, 4).transpose(1, 3)


def test_placeholders_and_starred_unpacking_name_nothing():
    assert codes("""
    import torch

    def f(x, y):
        _, T, _ = x.shape
        *_, d = y.shape
        return x @ y
    """) == []


def test_jaxtyping_dims_are_named_by_the_annotation():
    source = """
    import torch
    from jaxtyping import Float
    from torch import Tensor

    def mix(a: Float[Tensor, "b t d"], w: Float[Tensor, "b t d"]):
        return a @ w
    """
    found = findings(source)
    assert [(f.line, f.code) for f in found] == [(7, "SC112")]
    assert "annotation" in found[0].message


def test_symbols_unpacked_in_a_function_stay_in_it():
    # The caller sees no symbols of the callee: what it returns from an unknown parameter is
    # unknown, so nothing is reported at the caller.
    assert codes("""
    import numpy as np

    def flat(x):
        B, T, C = x.shape
        return x.reshape(B * T, C)

    y = flat(np.ones((2, 3, 4)))
    z = y + np.ones(4)
    """) == []
