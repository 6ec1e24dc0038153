"""SC114: a softmax without dim is reported with the dim torch picks, and only then."""

from __future__ import annotations

import warnings

import pytest

from shapecheck.analysis.api import analyze_source

SOURCE = '''
import torch
import torch.nn.functional as F
from torch import nn

x = torch.randn({shape})
y = {call}
'''


def lint(shape: str, call: str):
    return analyze_source(SOURCE.format(shape=shape, call=call), "t.py")


@pytest.mark.parametrize("call", ["F.softmax(x)", "F.log_softmax(x)", "F.softmin(x)",
                                  "nn.Softmax()(x)"])
def test_a_softmax_of_a_3d_input_without_dim_is_sc114_naming_dim_0(call):
    found = lint("2, 3, 5", call)
    assert [(f.span.line, f.code) for f in found] == [(7, "SC114")]
    assert "dim 0 for this 3-D input" in found[0].message


@pytest.mark.parametrize("call", ["F.softmax(x, dim=-1)", "F.log_softmax(x, 2)",
                                  "F.softmin(x, dim=0)", "nn.Softmax(dim=1)(x)",
                                  "x.softmax(-1)", "torch.softmax(x, dim=-1)"])
def test_a_softmax_given_its_dim_is_clean(call):
    assert lint("2, 3, 5", call) == []


def test_a_2d_input_names_dim_1():
    found = lint("4, 5", "F.softmax(x)")
    assert [f.code for f in found] == ["SC114"]
    assert "dim 1 for this 2-D input" in found[0].message


@pytest.mark.parametrize("shape,dim", [((5,), 0), ((4, 5), 1), ((2, 3, 5), 0), ((2, 3, 4, 5), 1)])
def test_the_named_dim_is_the_one_torch_picks(shape, dim):
    torch = pytest.importorskip("torch")
    x = torch.randn(*shape)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        implicit = torch.nn.functional.softmax(x)
    assert any("Implicit dimension choice" in str(w.message) for w in caught)
    assert torch.equal(implicit, torch.softmax(x, dim))
    found = lint(", ".join(map(str, shape)), "F.softmax(x)")
    assert f"dim {dim} for this {len(shape)}-D input" in found[0].message
