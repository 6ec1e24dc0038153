"""SC307 on inputs autograd saved for backward: ``x * w`` keeps w when x needs grad (and x when
w does); writing a kept input in place before backward() makes torch raise. The table of
what is kept is torch's own (runtime/autograd_saved.py), checked here against real backward(),
and each snippet is linted and run."""

from __future__ import annotations

import itertools
import textwrap

import pytest

from shapecheck.runtime.autograd_saved import saved_inputs
from alias_snippets import codes

MODIFIED = "modified by an inplace operation"


def raises_at_backward(code: str) -> bool:
    """Run one of this file's own snippets (never user input): does backward() refuse?"""
    try:
        exec(compile(textwrap.dedent(code), "<snippet>", "exec"), {})  # noqa: S102
    except RuntimeError as err:
        assert MODIFIED in str(err)
        return True
    return False


@pytest.mark.parametrize(("name", "call"), [("mul", lambda a, b: a * b),
                                           ("div", lambda a, b: a / b),
                                           ("mm", lambda a, b: a @ b),
                                           ("pow", lambda a, b: a ** b)])
def test_which_inputs_are_kept_depends_on_which_need_grad_as_torch_does(name, call):
    torch = pytest.importorskip("torch")
    for needs in itertools.product((False, True), repeat=2):
        if not any(needs):
            continue
        saved = saved_inputs(name, (True, True), needs)
        for position in (0, 1):
            leaves = [torch.rand(3, 3, requires_grad=need) for need in needs]
            inputs = [leaf + 1.0 for leaf in leaves]
            y = call(*inputs)
            inputs[position].mul_(2)
            try:
                y.sum().backward()
                raised = False
            except RuntimeError as err:
                assert MODIFIED in str(err)
                raised = True
            assert raised == (position in saved), (needs, position)


SAVED_INPUT = """
import torch

x = torch.ones(3, requires_grad=True)
w = torch.ones(3) * 2
y = x * w
w.add_(1)
y.sum().backward()
"""


def test_writing_the_other_factor_of_a_product_before_backward_is_reported():
    pytest.importorskip("torch")
    assert codes(SAVED_INPUT) == [(7, "SC307")]
    assert raises_at_backward(SAVED_INPUT)
    fixed = SAVED_INPUT.replace("y = x * w", "y = x * w.clone()")
    assert codes(fixed) == []
    assert not raises_at_backward(fixed)


def test_a_factor_kept_for_no_gradient_may_be_written():
    pytest.importorskip("torch")
    # Only w needs grad: torch keeps x (for w's gradient), not w.
    code = SAVED_INPUT.replace("x = torch.ones(3, requires_grad=True)", "x = torch.ones(3)") \
        .replace("w = torch.ones(3) * 2", "w = torch.ones(3, requires_grad=True) * 2")
    assert codes(code) == []
    assert not raises_at_backward(code)
    kept = code.replace("w.add_(1)", "x.add_(1)")
    assert codes(kept) == [(7, "SC307")]
    assert raises_at_backward(kept)


def test_writes_that_autograd_does_not_see_are_not_reported():
    pytest.importorskip("torch")
    through_data = SAVED_INPUT.replace("w.add_(1)", "w.data.add_(1)")
    assert codes(through_data) == []
    assert not raises_at_backward(through_data)
    outside_graph = SAVED_INPUT.replace("y = x * w", "with torch.no_grad():\n    y0 = x * w\n"
                                        "y = x * 3")
    assert codes(outside_graph) == []
    assert not raises_at_backward(outside_graph)
    other_graph = SAVED_INPUT.replace("y.sum().backward()", "(x * 3).sum().backward()")
    assert codes(other_graph) == []
    assert not raises_at_backward(other_graph)


def test_a_power_and_a_matrix_product_keep_their_inputs():
    pytest.importorskip("torch")
    power = """
    import torch

    x = torch.ones(3, requires_grad=True)
    h = x + 1
    y = h ** 2
    h[0] = 5.0
    y.sum().backward()
    """
    product = """
    import torch

    a = torch.randn(3, 3, requires_grad=True)
    b = torch.randn(3, 3)
    y = a @ b
    b.mul_(2)
    y.sum().backward()
    """
    for code in (power, product):
        assert codes(code) == [(7, "SC307")]
        assert raises_at_backward(code)
    assert codes(product.replace("b.mul_(2)", "b = b * 2")) == []
    assert not raises_at_backward(product.replace("b.mul_(2)", "b = b * 2"))


def test_a_write_after_backward_breaks_nothing_in_a_training_loop():
    pytest.importorskip("torch")
    code = """
    import torch

    w = torch.zeros(3, requires_grad=True)
    data = [torch.ones(3) for _ in range(3)]
    for x in data:
        y = (w * 2) * x
        y.sum().backward()
        x.add_(1)
    """
    assert codes(code) == []
    assert not raises_at_backward(code)


def test_an_output_written_after_backward_is_saved_afresh_by_the_next_pass():
    pytest.importorskip("torch")
    code = """
    import torch

    w = torch.zeros(3, requires_grad=True)
    for x in [torch.ones(3), torch.ones(3)]:
        y = torch.sigmoid(w * x)
        y.sum().backward()
        y.mul_(2)
    """
    assert codes(code) == []
    assert not raises_at_backward(code)
    before = code.replace("        y.sum().backward()\n        y.mul_(2)\n",
                          "        y.mul_(2)\n        y.sum().backward()\n")
    assert codes(before) == [(7, "SC307")]
    assert raises_at_backward(before)
