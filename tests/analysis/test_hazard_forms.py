"""The aliasing hazards in the forms real training and preprocessing code writes them.

Each buggy snippet is linted (its finding at the marked line) and run on the real library
beside its fixed twin: the bug gives another number, or raises, and the twin lints clean.
"""

from __future__ import annotations

import pytest

from alias_snippets import codes, run


@pytest.mark.parametrize(("bug", "fix"), [
    ("np.add(b, 1.0, out=b)", "b = np.add(b, 1.0)"),
    ("np.multiply(b, 2.0, out=b)", "b = b * 2.0"),
])
def test_an_out_argument_changes_every_alias_of_the_array(bug, fix):
    code = f"""
    import numpy as np

    b = np.ones(3)
    b_old = b
    {bug}
    change = (b - b_old).sum()
    """
    assert codes(code) == [(5, "SC304")]
    assert run(code)["change"] == 0.0  # the "old" values moved with b
    fixed = code.replace(bug, fix)
    assert codes(fixed) == []
    assert run(fixed)["change"] > 0.0


@pytest.mark.parametrize("snapshot", ["old = w[:]", "old = w.data", "old = w.detach()"])
def test_a_full_slice_data_or_detach_of_a_tensor_is_a_view(snapshot):
    pytest.importorskip("torch")
    code = f"""
    import torch

    w = torch.ones(3)
    {snapshot}
    w.mul_(2.0)
    change = float((w - old).sum())
    """
    assert codes(code) == [(5, "SC304")]
    assert run(code)["change"] == 0.0
    fixed = code.replace(snapshot, snapshot + ".clone()")
    assert codes(fixed) == []
    assert run(fixed)["change"] == 3.0


def test_a_parameter_scaled_through_its_data_moves_a_snapshot_of_it():
    torch = pytest.importorskip("torch")
    code = """
    import torch
    from torch import nn

    lin = nn.Linear(3, 3)
    old = lin.weight.detach()
    lin.weight.data.mul_(0.5)
    same = torch.equal(old, lin.weight)
    """
    assert codes(code) == [(6, "SC304")]
    assert run(code)["same"]
    fixed = code.replace("lin.weight.detach()", "lin.weight.detach().clone()")
    assert codes(fixed) == []
    assert not run(fixed)["same"]


BORDER = """
import numpy as np

def border_total(x):
    cloned = x
    cloned[:, 0] = 0
    return cloned.sum()

data = np.ones((3, 4))
total = border_total(data)
left = data[:, 0].sum()
"""


def test_a_callee_writing_through_a_name_it_bound_to_its_argument_changes_the_caller():
    assert codes(BORDER) == [(10, "SC305")]
    assert run(BORDER)["left"] == 0.0
    fixed = BORDER.replace("cloned = x\n", "cloned = x.copy()\n")
    assert codes(fixed) == []
    assert run(fixed)["left"] == 3.0


@pytest.mark.parametrize(("bug", "fix"), [
    ("a[i, :][:, j] *= 2", "a[np.ix_(i, j)] *= 2"),
    ("a[i][...] = 7", "a[i] = 7"),
    ("a[a > 0][0] = 7", "a[np.nonzero(a > 0)[0][0], np.nonzero(a > 0)[1][0]] = 7"),
])
def test_chained_advanced_indexing_writes_a_dropped_copy(bug, fix):
    code = f"""
    import numpy as np

    a = np.ones((4, 5))
    i = np.array([0, 2])
    j = np.array([1, 3])
    {bug}
    total = a.sum()
    """
    assert codes(code) == [(7, "SC301")]
    assert run(code)["total"] == 20.0  # nothing changed
    fixed = code.replace(bug, fix)
    assert codes(fixed) == []
    assert run(fixed)["total"] != 20.0


@pytest.mark.parametrize(("bug", "fix"), [
    ("t[mask].add_(1)", "t[mask] += 1"),
    ("t[idx].mul_(3)", "t[idx] *= 3"),
])
def test_an_in_place_method_on_a_masked_or_indexed_tensor_writes_a_dropped_copy(bug, fix):
    pytest.importorskip("torch")
    code = f"""
    import torch

    t = torch.ones(5, 3)
    mask = t.sum(1) > 0
    idx = torch.tensor([0, 2])
    {bug}
    total = float(t.sum())
    """
    assert codes(code) == [(7, "SC301")]
    assert run(code)["total"] == 15.0
    fixed = code.replace(bug, fix)
    assert codes(fixed) == []
    assert run(fixed)["total"] != 15.0


def test_adding_the_residual_to_a_relu_output_in_place_breaks_backward():
    pytest.importorskip("torch")
    code = """
    import torch
    import torch.nn.functional as F

    x = torch.randn(4, 3, requires_grad=True)
    h = F.relu(x)
    h += x
    h.sum().backward()
    """
    assert codes(code) == [(7, "SC307")]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        run(code)
    fixed = code.replace("h += x", "h = h + x")
    assert codes(fixed) == []
    assert run(fixed)["x"].grad is not None


@pytest.mark.parametrize("header", ["def update_counts(v):", "def apply_decay(v):",
                                    "def decay(v, running_mean):"])
def test_functions_whose_job_is_to_update_their_argument_are_not_reported(header):
    name = header.split()[1].split("(")[0]
    call = f"{name}(data, data)" if "running_mean" in header else f"{name}(data)"
    target = "running_mean" if "running_mean" in header else "v"
    code = f"""
    import numpy as np

    {header}
        {target} *= 0.5
        return {target}.sum()

    data = np.ones(3)
    s = {call}
    print(data)
    """
    assert codes(code) == []
    renamed = code.replace(name, "total_of").replace("running_mean", "values")
    assert [c for _, c in codes(renamed)] == ["SC305"]
