"""``shapecheck eval --layer NAME=nn.Kind(...)``: literal constructors, the runtime's nn rules, torch's own words."""

from __future__ import annotations

import io
import json

import pytest

from shapecheck.calc.arguments import main
from shapecheck.calc.layers import LayerSyntaxError, parse_layer_arg


def _eval(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _json(*args: str) -> dict:
    _, out, err = _eval(*args, "-f", "json")
    assert err == ""
    return json.loads(out)["torch"]


def test_a_constructor_is_read_as_literals():
    layer = parse_layer_arg("conv=torch.nn.Conv2d(3, 16, (3, 5), stride=[2, 1], bias=False, "
                            "padding_mode='zeros')")
    assert (layer.name, layer.kind) == ("conv", "Conv2d")
    assert layer.args == (3, 16, (3, 5))
    assert dict(layer.kwargs) == {"stride": (2, 1), "bias": False, "padding_mode": "zeros"}


@pytest.mark.parametrize("value, problem", [
    ("conv=nn.Conv2d(3, 16, k)", "'k' is not a literal"),
    ("conv=nn.Linear(__import__('os').getpid(), 3)", "is not a literal"),
    ("conv=os.system('true')", "the constructor is nn.<Layer>(...)"),
    ("conv=nn.Frobnicate(3)", "nn.Frobnicate is not a layer the calculator models"),
    ("nn.Conv2d(3, 16, 3)", "expected name=nn.Kind(arguments)"),
    ("conv=nn.Conv2d(3, 16,", "is not a Python call"),
])
def test_a_layer_that_cannot_be_read_is_one_line_and_exit_2(value, problem):
    with pytest.raises(LayerSyntaxError, match="bad layer"):
        parse_layer_arg(value)
    code, out, err = _eval("conv(x)", "-s", "x=8,3,32,32", "--layer", value)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and problem in err


def _spelled(kind: str, args: tuple, kwargs: dict) -> str:
    """The constructor as a user writes it on the command line."""
    return f"nn.{kind}({', '.join([repr(a) for a in args] + [f'{k}={v!r}' for k, v in kwargs.items()])})"


@pytest.mark.parametrize("kind, args, kwargs", [
    ("Conv2d", (3, 16, 3), {"groups": 5}),
    ("Conv2d", (3, 16, 3), {"padding": "same", "stride": 2}),
    ("GroupNorm", (4, 10), {}),
])
def test_a_constructor_torch_refuses_is_torchs_error_on_one_line(kind, args, kwargs):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as raised:
        getattr(torch.nn, kind)(*args, **kwargs)
    code, out, err = _eval("conv(x)", "-s", "x=8,3,32,32", "--layer",
                           f"conv={_spelled(kind, args, kwargs)}")
    assert code == 2 and out == ""
    assert err.strip().endswith(f"{type(raised.value).__name__}: {raised.value}")


@pytest.mark.parametrize("kind, args, kwargs, shape", [
    ("Conv2d", (3, 16, 3), {"stride": 2}, "8,3,32,32"),
    ("Conv2d", (3, 16, 3), {"stride": 2}, "3,32,32"),
    ("Conv2d", (3, 16, 3), {"stride": 2}, "8,4,32,32"),
    ("Linear", (20, 5), {}, "7,3,20"),
    ("Linear", (20, 5), {}, "7,21"),
    ("MaxPool2d", (2,), {"ceil_mode": True}, "1,3,7,7"),
    ("BatchNorm1d", (10,), {}, "4,12"),
    ("LayerNorm", ((4, 5),), {}, "2,4,5"),
    ("LayerNorm", ((4, 5),), {}, "2,5,4"),
])
def test_a_layer_call_agrees_with_real_torch_and_says_it_was_confirmed_there(kind, args, kwargs,
                                                                             shape):
    torch = pytest.importorskip("torch")
    dims = tuple(int(d) for d in shape.split(","))
    module = getattr(torch.nn, kind)(*args, **kwargs)
    constructor = _spelled(kind, args, kwargs)
    try:
        expected, message = tuple(module(torch.zeros(dims)).shape), None
    except (RuntimeError, ValueError, IndexError) as exc:  # torch's refusal of the input
        expected, message = None, str(exc).splitlines()[0]
    result = _json("layer(x)", "-s", f"x={shape}", "--layer", f"layer={constructor}")
    assert result["ok"] == (expected is not None)
    assert (tuple(result["shape"]) if result["ok"] else None) == expected
    if message is not None:
        assert result["error"]["message"] == message
    assert {"engine": "torch", "status": "confirmed", "detail": "same error" if message else ""} \
        in result["confirmed"]


def test_layers_compose_with_the_ops_of_an_expression():
    pytest.importorskip("torch")
    layers = ["--layer", "conv=nn.Conv2d(3, 16, 3, stride=2)", "--layer", "fc=nn.Linear(3000, 10)"]
    result = _json("fc(conv(x).flatten(1))", "-s", "x=8,3,32,32", *layers)
    assert result["steps"] == [[8, 16, 15, 15], [8, 3600], None]
    assert result["error"]["message"] == "mat1 and mat2 shapes cannot be multiplied (8x3600 and 3000x10)"
    assert result["confirmed"][-1]["status"] == "confirmed"


def test_a_layer_needs_a_torch_dialect():
    code, _, err = _eval("conv(x)", "-s", "x=8,3,32,32", "--layer", "conv=nn.Conv2d(3, 16, 3)",
                         "-d", "numpy")
    assert code == 2 and "--layer needs a torch dialect" in err


def test_a_layer_name_may_not_also_be_a_shape():
    code, _, err = _eval("conv(x)", "-s", "x=8,3,32,32", "-s", "conv=3", "--layer",
                         "conv=nn.Conv2d(3, 16, 3)")
    assert code == 2 and "'conv' is given twice" in err


def test_a_batch_applies_a_layer_row_by_row(tmp_path):
    path = tmp_path / "images.csv"
    path.write_text("x\n8x3x32x32\n8x4x32x32\n")
    code, out, _ = _eval("conv(x)", "--batch", str(path), "--layer", "conv=nn.Conv2d(3, 16, 3)")
    assert code == 1
    assert "valid     1 row (50.0%)" in out
    assert "expected input[8, 4, 32, 32] to have 3 channels, but got 4 channels instead" in out
