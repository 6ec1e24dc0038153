"""The generated table of what autograd saves agrees with real torch: an in-place write into a
tensor the table says is saved makes backward() raise, and a write into one it says is not
saved does not."""

from __future__ import annotations

import pytest

from shapecheck.runtime.autograd_saved import SAVED_INPUTS, SAVES_OUTPUT, saves_output

UNARY = ("sigmoid", "tanh", "exp", "relu", "sqrt", "rsqrt", "exp2", "expm1", "reciprocal", "tan",
         "sin", "cos", "log", "abs", "neg", "atan", "erf", "log1p", "floor", "sinh")
MODIFIED = "modified by an inplace operation"


def _raises(run) -> bool:
    try:
        run()
    except RuntimeError as err:
        assert MODIFIED in str(err)
        return True
    return False


@pytest.mark.parametrize("name", UNARY)
def test_a_unary_op_saves_its_output_or_input_as_the_table_says(name):
    torch = pytest.importorskip("torch")
    op = getattr(torch, name)

    def write_output():
        x = torch.rand(4, requires_grad=True)
        y = op(x + 0.5)
        y.mul_(2)
        y.sum().backward()

    def write_input():
        x = torch.rand(4, requires_grad=True)
        h = x + 0.5
        y = op(h)
        h.mul_(2)
        y.sum().backward()

    assert _raises(write_output) == saves_output(name)
    assert _raises(write_input) == (0 in SAVED_INPUTS.get(name, ()))


def test_softmax_saves_its_output_through_its_implementation():
    torch = pytest.importorskip("torch")
    assert "_softmax" in SAVES_OUTPUT and saves_output("softmax")
    x = torch.rand(3, 4, requires_grad=True)
    y = torch.softmax(x, dim=1)
    y.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()


@pytest.mark.parametrize(("name", "call"), [("mul.Tensor", lambda a, b: a * b),
                                           ("div.Tensor", lambda a, b: a / b),
                                           ("mm", lambda a, b: a @ b),
                                           ("add.Tensor", lambda a, b: a + b),
                                           ("sub.Tensor", lambda a, b: a - b)])
def test_a_binary_op_saves_the_inputs_the_table_names(name, call):
    torch = pytest.importorskip("torch")
    for position in (0, 1):
        def write(position=position):
            leaves = [torch.rand(3, 3, requires_grad=True) for _ in range(2)]
            inputs = [leaf + 1.0 for leaf in leaves]
            y = call(*inputs)
            inputs[position].mul_(2)
            y.sum().backward()
        assert _raises(write) == (position in SAVED_INPUTS.get(name, ())), position
