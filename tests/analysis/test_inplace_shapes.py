"""An in-place op that changes an array's own shape (x.unsqueeze_(2), x.t_(), a.shape = s,
a.resize(s)) gives the array, under every name holding it, the shape the real library gives."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source


def codes(source: str) -> list[tuple[int, str]]:
    found = analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings())
    return sorted((f.line, f.code) for f in found)


def test_a_tensor_unsqueezed_in_place_joins_the_higher_rank_tensors_it_now_matches():
    torch = pytest.importorskip("torch")
    first, last = torch.zeros(2, 4, 8, 16), torch.zeros(2, 4, 8, 16)
    first.unsqueeze_(2)
    last.unsqueeze_(2)
    assert tuple(torch.cat([first, torch.zeros(2, 4, 5, 8, 16), last], dim=2).shape) == \
        (2, 4, 7, 8, 16)
    with pytest.raises(RuntimeError):
        torch.cat([torch.zeros(2, 4, 8, 16), torch.zeros(2, 4, 5, 8, 16)], dim=2)
    assert codes("""
        import torch
        first = torch.zeros(2, 4, 8, 16)
        first.unsqueeze_(2)
        middle = torch.zeros(2, 4, 5, 8, 16)
        last = torch.zeros(2, 4, 8, 16)
        last.unsqueeze_(2)
        out = torch.cat([first, middle, last], dim=2)
        bad = torch.cat([torch.zeros(2, 4, 8, 16), middle], dim=2)
        """) == [(9, "SC108")]


def test_every_name_bound_to_the_array_sees_its_new_shape_and_no_stale_alias():
    torch = pytest.importorskip("torch")
    x = torch.zeros(2, 3)
    y = x
    x.t_()
    assert tuple((y @ torch.zeros(2, 5)).shape) == (3, 5)
    assert codes("""
        import torch
        x = torch.zeros(2, 3)
        y = x
        x.t_()
        z = y @ torch.zeros(2, 5)
        w = y @ torch.zeros(3, 5)
        """) == [(7, "SC106")]


def test_an_inplace_reshape_is_no_inplace_resize_and_later_writes_fit_the_new_shape():
    torch = pytest.importorskip("torch")
    x = torch.zeros(2, 3)
    x.unsqueeze_(0)
    x += torch.ones(1, 2, 3)
    r = torch.zeros(2, 3)
    r.resize_(4, 5)
    r += torch.ones(4, 5)
    with pytest.raises(RuntimeError):
        r += torch.ones(2, 3)
    assert codes("""
        import torch
        x = torch.zeros(2, 3)
        x.unsqueeze_(0)
        x += torch.ones(1, 2, 3)
        r = torch.zeros(2, 3)
        r.resize_(4, 5)
        r += torch.ones(4, 5)
        r += torch.ones(2, 3)
        """) == [(9, "SC201")]


def test_the_inplace_ops_own_refusals_are_reported_like_their_twins():
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError):
        torch.zeros(2, 3).unsqueeze_(5)
    with pytest.raises(RuntimeError, match=r"t_\(\) expects"):
        torch.zeros(2, 3, 4).t_()
    assert codes("""
        import torch
        x = torch.zeros(2, 3)
        x.unsqueeze_(5)
        y = torch.zeros(2, 3, 4)
        y.t_()
        """) == [(4, "SC111"), (6, "SC111")]


def test_numpy_shape_assignment_and_resize_change_the_array_in_place():
    a = np.zeros(6)
    a.shape = (2, -1)
    a + np.zeros((2, 3))
    a.resize((4, 4), refcheck=False)
    a + np.zeros((4, 4))
    with pytest.raises(ValueError):
        a.shape = (5, 3)
    transposed = np.zeros((2, 3)).T
    with pytest.raises(AttributeError):
        transposed.shape = (6,)
    assert codes("""
        import numpy as np
        a = np.zeros(6)
        a.shape = (2, -1)
        b = a + np.zeros((2, 3))
        a.resize((4, 4))
        c = a + np.zeros((4, 4))
        a.shape = (5, 3)
        t = np.zeros((2, 3)).T
        t.shape = (6,)
        """) == [(8, "SC109"), (10, "SC308")]


def test_autograd_still_counts_an_inplace_reshape_of_a_leaf_that_requires_grad():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="leaf Variable"):
        torch.zeros(3, requires_grad=True).unsqueeze_(0)
    assert codes("""
        import torch
        w = torch.zeros(3, requires_grad=True)
        w.unsqueeze_(0)
        """) == [(4, "SC307")]


def test_a_snapshot_of_the_array_is_stale_after_a_write_of_values_not_after_a_reshape():
    source = """
        import torch
        x = torch.zeros(2, 3)
        old = x
        x.{op}
        print(old)
        """
    assert codes(source.format(op="t_()")) == []
    assert codes(source.format(op="add_(1)")) == [(4, "SC304")]


def test_an_attribute_reshaped_in_place_keeps_its_new_shape():
    torch = pytest.importorskip("torch")
    buf = torch.zeros(2, 3)
    buf.t_()
    assert tuple((buf @ torch.zeros(2, 5)).shape) == (3, 5)
    assert codes("""
        import torch


        class Holder(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.buf = torch.zeros(2, 3)

            def forward(self):
                self.buf.t_()
                ok = self.buf @ torch.zeros(2, 5)
                return self.buf @ torch.zeros(3, 5)
        """) == [(13, "SC106")]
