"""Alias hazards the one walk finds because it shares calls, classes and loops with the shape walk.

Each case is checked against the real library: the snippet is run and must
fail (or show the surprising outcome) exactly where the finding points.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source
from alias_snippets import codes, run


BUMP = """
import torch

def bump(t):
    t.add_(1)

x = torch.zeros(3, 1)
"""


def test_write_into_a_broadcast_view_through_a_helper_is_reported_at_the_call():
    pytest.importorskip("torch")
    code = BUMP + "e = x.expand(3, 4)\nbump(e)\n"
    assert codes(code) == [(9, "SC302")]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        run(code)


@pytest.mark.parametrize("order", ["fresh first", "view first"])
def test_a_helper_called_with_a_fresh_tensor_of_the_same_shape_is_fine(order):
    pytest.importorskip("torch")
    calls = ["y = torch.zeros(3, 4)\nbump(y)\n", "e = x.expand(3, 4)\nbump(e)\n"]
    if order == "view first":
        calls.reverse()
    code = BUMP + "".join(calls)
    line = 9 if order == "view first" else 11
    assert codes(code) == [(line, "SC302")]
    # The fresh tensor is written without complaint; only the expanded view raises.
    assert run(BUMP + calls[0 if order == "fresh first" else 1])["y"].sum().item() == 12


def test_helper_writing_a_read_only_numpy_view_is_reported_at_the_call():
    code = """
    import numpy as np

    def clear(a):
        a[0] = 0

    d = np.ones((3, 3)).diagonal()
    clear(d)
    """
    assert codes(code) == [(8, "SC302")]
    with pytest.raises(ValueError, match="read-only"):
        run(code)


@pytest.mark.parametrize("context", ["self.assertWarns(UserWarning)", "np.testing.raises_regex(ValueError, 'x')",
                                     "pytest.raises(ValueError)", "warnings.catch_warnings(record=True)",
                                     "pytest.deprecated_call()"])
def test_every_rule_reads_one_list_of_expected_failure_contexts(context):
    code = f"""
    import warnings
    import numpy as np
    import pytest
    d = np.zeros((3, 3)).diagonal()
    def case(self):
        with {context}:
            np.ones(3) + np.ones(4)
            d[0] = 1
    """
    found = analyze_source(textwrap.dedent(code), "t.py", AnalysisSettings())
    assert [f.code for f in found] == []
    # Outside the context both are findings.
    plain = code.replace(f"with {context}:", "if True:")
    found = analyze_source(textwrap.dedent(plain), "t.py", AnalysisSettings())
    assert sorted(f.code for f in found) == ["SC101", "SC302"]


@pytest.mark.parametrize("call", ["np.testing.assert_raises(ValueError, bad)",
                                  "pytest.raises(ValueError, bad)",
                                  "self.assertRaises(ValueError, bad)"])
def test_a_function_handed_to_an_expectation_of_failure_is_written_to_fail(call):
    """numpy's own tests: ``def rs(): b.shape = (10,)`` then ``assert_raises(AttributeError,
    rs)``. The function runs inside the expectation, as a ``with pytest.raises`` body does."""
    code = f"""
    import numpy as np
    import pytest
    def case(self):
        x = np.empty((3, 1))
        def bad():
            x[:] = np.arange(3)
        {call}
    """
    assert analyze_source(textwrap.dedent(code), "t.py", AnalysisSettings()) == []
    plain = code.replace(call, "bad()")
    assert [f.code for f in analyze_source(textwrap.dedent(plain), "t.py", AnalysisSettings())] \
        == ["SC201"]
    x = np.empty((3, 1))
    with pytest.raises(ValueError):
        x[:] = np.arange(3)


MODULE = """
import torch
import torch.nn as nn

class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def bump(self):
        {body}

m = Scale()
m.bump()
"""


def test_in_place_update_of_a_parameter_in_a_module_method_is_reported():
    pytest.importorskip("torch")
    code = MODULE.format(body="self.w += 1")
    assert codes(code) == [(11, "SC307")]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        run(code)


def test_parameter_update_under_no_grad_in_a_module_method_is_fine():
    pytest.importorskip("torch")
    code = MODULE.format(body="with torch.no_grad():\n            self.w += 1")
    assert codes(code) == []
    assert run(code)["m"].w.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("call", ["detach_()", "requires_grad_(False)", "share_memory_()"])
def test_methods_that_change_autograd_or_sharing_state_are_not_writes(call):
    # Found on real model code: a Parameter detached in place before its requires_grad is
    # turned off. Those methods change metadata, not data, and torch accepts them on a leaf.
    pytest.importorskip("torch")
    code = MODULE.format(body=f"self.w.{call}")
    assert codes(code) == []
    run(code)


def test_leaf_written_through_a_helper_is_reported_at_the_call():
    pytest.importorskip("torch")
    code = """
    import torch

    def step(p):
        p.sub_(0.1)

    w = torch.ones(3, requires_grad=True)
    step(w)
    """
    assert codes(code) == [(8, "SC307")]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        run(code)


def test_helper_called_under_no_grad_is_fine():
    pytest.importorskip("torch")
    code = """
    import torch

    def step(p):
        p.sub_(0.1)

    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        step(w)
    step(w.detach())
    """
    assert codes(code) == []
    assert run(code)["w"].tolist() == pytest.approx([0.8, 0.8, 0.8])


def test_overlapping_in_place_op_through_a_helper_is_reported_at_the_call():
    pytest.importorskip("torch")
    code = """
    import torch

    def accumulate(dst, src):
        dst.add_(src)

    m = torch.ones(4, 4)
    accumulate(m[0:2], m[2:4])
    accumulate(m[1:3], m[0:2])
    """
    assert codes(code) == [(9, "SC303")]
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        run(code)
    # The disjoint halves alone run fine.
    assert run(code.split("    accumulate(m[1:3]")[0])["m"].sum().item() == 24


def test_write_into_a_masked_copy_inside_a_helper_is_reported_at_the_call():
    code = """
    import numpy as np

    def clear_first(a, mask):
        a[mask][0] = 0

    a = np.ones(4)
    clear_first(a, a > 0)
    """
    assert codes(code) == [(8, "SC301")]
    assert run(code)["a"].tolist() == [1.0, 1.0, 1.0, 1.0]  # the write went into a copy


def test_snapshot_of_an_attribute_goes_stale_through_another_method():
    code = """
    import numpy as np

    class Descent:
        def __init__(self):
            self.w = np.ones(3)

        def step(self):
            self.w -= 0.5

        def change(self):
            prev = self.w
            self.step()
            return np.abs(self.w - prev).max()

    change = Descent().change()
    """
    assert codes(code) == [(12, "SC304")]
    assert run(code)["change"] == 0.0  # prev moved with self.w: no change is ever seen


def test_snapshot_goes_stale_through_a_helper_that_writes_its_argument():
    code = """
    import numpy as np

    def decay(a):
        a *= 0.5

    x = np.ones(3)
    old = x
    decay(x)
    delta = old - x
    """
    assert codes(code) == [(8, "SC304")]
    assert run(code)["delta"].tolist() == [0.0, 0.0, 0.0]


def test_a_name_handed_to_the_helper_that_updates_it_is_not_a_stale_snapshot():
    # The caller passes the very name it reads after: it gave the helper that array to update.
    code = """
    import numpy as np

    def tally(total, x):
        total += x
        return total.sum()

    class Tracker:
        def __init__(self):
            self.total = np.ones(3)

        def step(self, x):
            total = self.total
            s = tally(total, x)
            return total.max() + s

        def step_attribute(self, x):
            s = tally(self.total, x)
            return self.total.max() + s

    out = Tracker().step(np.ones(3))
    """
    assert codes(code) == []
    assert run(code)["out"] == 2.0 + 6.0
    other = code.replace("s = tally(total, x)", "s = tally(self.total, x)")
    assert codes(other) == [(13, "SC304")]  # written through another name: stale
    assert run(other)["out"] == 2.0 + 6.0  # total moved with self.total


SCALER = """
import numpy as np

class Scaler:
    def fit(self, X):
        X -= X.mean(0)
        return self

X = np.arange(12.0).reshape(4, 3)
total = X.sum()
s = Scaler().fit(X)
print(X.sum() == total)
"""


def test_a_method_that_centers_its_argument_in_place_is_reported_once_at_the_call():
    # The one walk resolves method calls, so argument mutation is seen through them too.
    assert codes(SCALER) == [(11, "SC305")]
    env = run(SCALER.replace("print(X.sum() == total)", "changed = X.sum() != total"))
    assert env["changed"]


def test_argument_mutation_passes_through_a_helper_of_a_helper():
    code = """
    import numpy as np

    def _center(v):
        v -= v.mean()

    def prepare(v):
        _center(v)
        return v.std()

    data = np.arange(4.0)
    s = prepare(data)
    print(data)
    """
    assert codes(code) == [(12, "SC305")]
    found = analyze_source(textwrap.dedent(code), "t.py", AnalysisSettings())
    assert "prepare() -> _center() modifies 'data' in place (line 5)" in found[0].message
    env = run(code.replace("print(data)", "first = data[0]"))
    assert env["first"] == -1.5


ROUTER = """
import torch
from torch import nn

def route(logits):
    probs = logits.softmax(-1)
    logits += torch.rand(logits.shape)
    return probs.argmax(-1)

def forward_logits(layer, x):
    logits = layer(x)
    top = route(logits)
    return top, logits

def encoder(x):
    return forward_logits(nn.Linear(8, 4), x)

def decoder(x):
    return forward_logits(nn.Linear(8, 4), x)
"""


def test_a_function_reading_an_array_it_made_after_a_helper_wrote_it_is_one_finding_at_its_call():
    # Found on real model code (an MoE router returns the logits its route_tokens() added noise
    # to): the logits are known to be an array only with the callers' layers, and every caller
    # analyzes the function again. The cause is one, and the place to act is the call in it.
    pytest.importorskip("torch")
    found = analyze_source(textwrap.dedent(ROUTER), "t.py", AnalysisSettings())
    assert [(f.line, f.code) for f in found] == [(12, "SC305")]
    assert "with the arguments of this call" not in found[0].message
    env = run(ROUTER + "\nlayer = nn.Linear(8, 4)\nx = torch.ones(3, 8)\n"
                       "top, logits = forward_logits(layer, x)\nnoisy = logits != layer(x)\n")
    assert env["noisy"].all()  # the returned logits carry the noise


def test_a_str_parameter_grown_with_plus_equals_is_not_an_array_write():
    # Found on numpy's own source: `line += word` on a parameter that holds a str.
    code = """
    def extend(line, word):
        line += word
        return line

    def render(prefix):
        indent = prefix + ' '
        out = extend(indent, 'x')
        return indent + out
    """
    assert codes(code) == []


def test_a_snapshot_of_a_parameter_that_may_be_an_int_is_not_stale():
    # Found on real model code: `prev_bsz = cur_bsz` then `cur_bsz -= 1` on an int parameter.
    code = """
    def reduce_batch(features, cur_bsz):
        prev_bsz = cur_bsz
        for i in range(prev_bsz):
            cur_bsz -= 1
            print(prev_bsz)
        return cur_bsz
    """
    assert codes(code) == []
    assert run(code)["reduce_batch"](None, 3) == 0


def test_argument_write_and_rebinding_to_the_result_in_a_method_called_twice_is_fine():
    # Found on real model code: the body runs standalone and again specialized; a write pending
    # from the first pass must not meet a read of the second.
    code = """
    import torch

    def mask_border(t):
        t[:, :1] = 0
        return t

    class Matcher:
        def match(self, scores):
            mask = scores > 0.5
            mask = mask_border(mask)
            return mask.sum()

        def forward(self, x):
            return self.match(x)

    m = Matcher()
    out = m.forward(torch.ones(2, 3))
    """
    pytest.importorskip("torch")
    assert codes(code) == []
    assert run(code)["out"].item() == 4


def test_a_method_called_twice_with_the_same_shapes_writes_its_attribute_both_times():
    # The second call reuses the first one's analysis; its write must still be made.
    code = """
    import numpy as np

    class Buffer:
        def __init__(self):
            self.data = np.zeros(3)

        def add(self, x):
            self.data += x

    buf = Buffer()
    buf.add(1.0)
    snapshot = buf.data
    buf.add(1.0)
    print(snapshot)
    """
    assert codes(code) == [(13, "SC304")]
    env = run(code.replace("print(snapshot)", "seen = snapshot[0]"))
    assert env["seen"] == 2.0  # the "snapshot" moved with the buffer


EARLY_STOPPING = """
import copy

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
best_state = model.state_dict()
start = model.fc.weight.detach().clone()
for epoch in range(3):
    loss = model(torch.randn(8, 4)).pow(2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
restored = model.load_state_dict(best_state)
"""


def test_a_state_dict_kept_as_the_best_weights_moves_with_every_optimizer_step():
    torch = pytest.importorskip("torch")
    assert codes(EARLY_STOPPING) == [(20, "SC304")]
    env = run(EARLY_STOPPING)
    # The "best" weights are the trained ones: the snapshot was never one.
    assert not torch.equal(env["best_state"]["fc.weight"], env["start"])
    assert torch.equal(env["best_state"]["fc.weight"], env["model"].fc.weight)


def test_a_deep_copy_or_a_read_before_the_step_is_no_stale_alias():
    pytest.importorskip("torch")
    copied = EARLY_STOPPING.replace("best_state = model.state_dict()",
                                    "best_state = copy.deepcopy(model.state_dict())")
    assert codes(copied) == []
    saved_first = EARLY_STOPPING.replace("restored = model.load_state_dict(best_state)\n", "")
    saved_first = saved_first.replace("start = model", "n = len(best_state)\nstart = model")
    assert codes(saved_first) == []


@pytest.mark.parametrize("built", ["Net().to('cpu')", "Net().float().train()", "Net().cpu()"])
def test_a_model_moved_or_switched_with_a_method_that_returns_it_is_still_the_model(built):
    # nn.Module.to / cpu / float / train ... change the module in place and return it.
    torch = pytest.importorskip("torch")
    code = EARLY_STOPPING.replace("model = Net()", f"model = {built}")
    assert codes(code) == [(20, "SC304")]
    env = run(code)
    assert isinstance(env["model"], env["Net"])
    assert torch.equal(env["best_state"]["fc.weight"], env["model"].fc.weight)


def test_a_layer_cast_with_a_method_that_returns_it_keeps_its_shape_rule():
    torch = pytest.importorskip("torch")
    code = """
    import torch
    from torch import nn

    head = nn.Linear(3, 2).float()
    y = head(torch.ones(5, 4))
    """
    found = analyze_source(textwrap.dedent(code), "t.py", AnalysisSettings())
    assert [(f.line, f.code) for f in found] == [(6, "SC106")]
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        run(code)
    layer = torch.nn.Linear(3, 2)
    assert layer.float() is layer  # torch returns the module itself


def test_layer_parameters_are_leaves_and_nn_init_of_an_indexed_copy_does_nothing():
    torch = pytest.importorskip("torch")
    code = """
    import torch
    from torch import nn

    emb = nn.Embedding(10, 4)
    ids = torch.tensor([1, 3])
    nn.init.zeros_(emb.weight[ids])
    with torch.no_grad():
        emb.weight[0] = 0
    emb.weight[1] = 0
    """
    assert codes(code) == [(7, "SC301"), (10, "SC307")]
    with pytest.raises(RuntimeError, match="leaf Variable"):
        run(code)
    env = run(code.replace("emb.weight[1] = 0\n", ""))
    assert bool((env["emb"].weight[[1, 3]] != 0).any())  # zeros_ filled a dropped copy


def test_layer_parameters_of_layers_built_from_unknown_arguments_are_unknown():
    # Found on transformers' models: Linear(d, d, bias=config.bias) made the analyzer fail.
    code = """
    import torch
    from torch import nn

    def build(config, d):
        fc = nn.Linear(d, d, bias=config.bias)
        return fc.weight.sum() + fc.bias
    """
    assert codes(code) == []
    found = analyze_source(textwrap.dedent(code), "t.py", AnalysisSettings())
    assert [f.code for f in found] == []
