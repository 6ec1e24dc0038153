"""Gradients are storages too, rows of an array are views of it, and a loss module is a
function: each snippet is linted, then run on the real library to show the harm its finding
names, and its fixed twin lints clean and keeps its values."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source
from alias_snippets import codes, run


NET = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(8, 3)).pow(2).sum().backward()
"""


def test_zeroing_gradients_in_place_empties_a_gradient_kept_before():
    torch = pytest.importorskip("torch")
    code = NET + """
grad = model.head.weight.grad
optimizer.zero_grad(set_to_none=False)
norm = float(grad.norm())
"""
    assert codes(code) == [(21, "SC304")]
    assert run(code)["norm"] == 0.0  # the kept gradient was zeroed under it
    fixed = code.replace("grad = model.head.weight.grad", "grad = model.head.weight.grad.clone()")
    assert codes(fixed) == []
    assert run(fixed)["norm"] > 0.0
    # By default zero_grad() drops the gradients: the tensor kept before keeps its values.
    dropped = code.replace("zero_grad(set_to_none=False)", "zero_grad()")
    assert codes(dropped) == []
    assert run(dropped)["norm"] == run(fixed)["norm"]
    assert torch.is_tensor(run(dropped)["grad"])


def test_clipping_scales_every_gradient_of_the_parameters_in_place():
    pytest.importorskip("torch")
    code = NET + """
norms = []
for p in model.parameters():
    g = p.grad
    nn.utils.clip_grad_norm_(model.parameters(), 1e-3)
    norms.append(float(g.norm()))
"""
    assert codes(code) == [(23, "SC304")]
    assert max(run(code)["norms"]) <= 1e-3 + 1e-6  # the raw norms are gone
    fixed = code.replace("g = p.grad", "g = p.grad.clone()")
    assert codes(fixed) == []
    assert max(run(fixed)["norms"]) > 1e-2


def test_model_zero_grad_and_optimizer_step_reach_the_layers_of_the_model():
    pytest.importorskip("torch")
    code = NET + """
bias_grad = model.body.bias.grad
before = model.head.weight.data
optimizer.step()
model.zero_grad(set_to_none=False)
moved = float((model.head.weight - before).abs().sum())
zeroed = float(bias_grad.abs().sum())
"""
    assert codes(code) == [(21, "SC304"), (22, "SC304")]
    env = run(code)
    assert env["moved"] == 0.0 and env["zeroed"] == 0.0
    fixed = code.replace(".grad\n", ".grad.clone()\n").replace(".data\n", ".data.clone()\n")
    assert codes(fixed) == []
    assert run(fixed)["moved"] > 0.0 and run(fixed)["zeroed"] > 0.0


def test_iterating_an_array_gives_views_that_write_the_caller_array():
    code = """
    import numpy as np

    def center_rows(X):
        for row in X:
            row -= row.mean()
        return X.std()

    data = np.arange(12.0).reshape(4, 3)
    spread = center_rows(data)
    raw_mean = data.mean()
    """
    assert codes(code) == [(10, "SC305")]
    assert run(code)["raw_mean"] == 0.0  # every row was centered under the caller
    fixed = code.replace("for row in X:", "X = X.copy()\n        for row in X:")
    assert codes(fixed) == []
    assert run(fixed)["raw_mean"] == np.arange(12.0).mean()


def test_rows_of_a_leaf_from_list_or_unbind_are_views_of_the_leaf():
    pytest.importorskip("torch")
    for rows in ("list(w)", "w.unbind(0)"):
        code = (f"\nimport torch\n\nw = torch.zeros(3, 4, requires_grad=True)\nrows = {rows}\n"
                "rows[0].add_(1)\n")
        assert codes(code) == [(6, "SC307")], rows
        # torch names the multi-output view first: "Output 0 of Unbind is a view and is being
        # modified inplace"; the leaf's own refusal is behind it.
        with pytest.raises(RuntimeError, match="modified inplace|leaf Variable"):
            run(code)
        fixed = code.replace("rows[0].add_(1)", "with torch.no_grad():\n    rows[0].add_(1)")
        assert codes(fixed) == []
        assert run(fixed)["w"][0].sum() == 4.0  # the write reached the leaf


def test_an_indexed_augmented_assignment_stores_into_the_array():
    code = """
    import numpy as np

    def shift_first(X):
        X[0] -= 1.0
        return X.sum()

    data = np.ones((2, 3))
    total = shift_first(data)
    first = data[0, 0]
    """
    assert codes(code) == [(9, "SC305")]
    assert run(code)["first"] == 0.0
    assert codes(code.replace("X[0] -= 1.0", "X = X - 1.0")) == []


LOSS = """
import torch
from torch import nn


class ShiftedMSE(nn.Module):
    def forward(self, pred, target):
        pred += 0.5
        return ((pred - target) ** 2).mean()


class Trainer:
    def __init__(self, criterion):
        self.criterion = criterion

    def score(self, pred, target):
        loss = self.criterion(pred, target)
        return loss, pred.mean()


torch.manual_seed(0)
pred = torch.randn(16)
loss, mean = Trainer(ShiftedMSE()).score(pred, torch.zeros(16))
"""


def test_a_loss_module_held_by_a_trainer_writes_the_predictions_of_the_caller():
    pytest.importorskip("torch")
    found = analyze_source(textwrap.dedent(LOSS), "t.py", AnalysisSettings())
    assert [(f.line, f.code) for f in found] == [(23, "SC305")]
    assert "ShiftedMSE.forward() modifies 'pred' in place (line 8)" in found[0].message
    shifted = float(run(LOSS)["mean"])
    fixed = LOSS.replace("pred += 0.5", "pred = pred + 0.5")
    assert codes(fixed) == []
    assert shifted == pytest.approx(float(run(fixed)["mean"]) + 0.5)  # the caller's pred moved


def test_a_torch_helper_calling_tensor_methods_numpy_spells_as_functions_writes_its_caller():
    pytest.importorskip("torch")
    # pred.pow() is a tensor's method, not the mark of an array namespace (as xp.pow would be).
    code = """
    import torch

    def squared_error(pred, target):
        pred.sub_(target)
        return pred.pow(2).mean()

    torch.manual_seed(0)
    pred = torch.randn(5)
    err = squared_error(pred, torch.ones(5))
    mean = float(pred.mean())
    """
    assert codes(code) == [(10, "SC305")]
    fixed = code.replace("pred.sub_(target)", "pred = pred - target")
    assert codes(fixed) == []
    assert run(code)["mean"] == pytest.approx(run(fixed)["mean"] - 1.0)


ATTENTION = """
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q *= 0.5
        return (q @ k.transpose(-2, -1)).softmax(-1) @ v


out = Attention()(torch.randn(2, 5, 8))
"""


def test_scaling_a_piece_of_chunk_in_place_is_refused_while_autograd_records():
    torch = pytest.importorskip("torch")
    found = analyze_source(textwrap.dedent(ATTENTION), "t.py", AnalysisSettings())
    assert [(f.line, f.code) for f in found] == [(17, "SC307")]
    assert "output of chunk()" in found[0].message and "line 13" in found[0].message
    with pytest.raises(RuntimeError, match="returns multiple views"):
        run(ATTENTION)
    fixed = ATTENTION.replace("q *= 0.5", "q = q * 0.5")
    assert codes(fixed) == []
    assert run(fixed)["out"].shape == (2, 5, 8)
    inference = ATTENTION.replace("out = Attention()", "with torch.no_grad():\n    out = Attention()")
    assert codes(inference) == []
    assert torch.is_tensor(run(inference)["out"])
