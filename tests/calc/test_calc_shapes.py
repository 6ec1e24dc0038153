"""Shape bindings for the calculator: the --shapes mini-language and its error positions."""

import pytest

from shapecheck.calc.shapes import ShapeSyntaxError, parse_shape_args, parse_shapes_text
from shapecheck.runtime.dims import UNKNOWN, sym


def test_comma_separated_ints_give_a_concrete_shape():
    (binding,) = parse_shapes_text("x=5,1,4,1")
    assert (binding.name, binding.shape, binding.dtype) == ("x", (5, 1, 4, 1), None)


def test_one_value_may_hold_several_bindings_separated_by_spaces_or_semicolons():
    env = parse_shape_args(["q=B,H,T,D k=B,H,T,D", "a=2;b=3,4"])
    assert list(env) == ["q", "k", "a", "b"]
    assert env["q"].shape == (sym("B"), sym("H"), sym("T"), sym("D"))
    assert env["b"].shape == (3, 4)


def test_spaces_after_commas_stay_in_the_same_binding():
    env = parse_shape_args(["x=5, 1 y=3"])
    assert env["x"].shape == (5, 1) and env["y"].shape == (3,)


def test_empty_parentheses_are_a_zero_d_array_and_brackets_are_optional():
    env = parse_shape_args(["s=()", "v=(5,)", "m=[2,3]", "u=?,4"])
    assert env["s"].shape == ()
    assert env["v"].shape == (5,)
    assert env["m"].shape == (2, 3)
    assert env["u"].shape == (UNKNOWN, 4)


def test_a_dtype_follows_a_colon():
    (binding,) = parse_shapes_text("x=5,3:int64")
    assert binding.shape == (5, 3) and binding.dtype == "int64"


@pytest.mark.parametrize("text, column, problem", [
    ("x=5,,1", 5, "empty dimension"),
    ("x=-3", 3, "negative dimension -3"),
    ("x=a.b", 3, "'a.b' is not a dimension"),
    ("x=5:floaty", 5, "unknown dtype 'floaty'"),
    ("5,3", 1, "expected name=dims"),
    ("=5", 1, "missing name"),
    ("x=1 2x=3", 5, "'2x' is not a name"),
])
def test_malformed_shapes_name_the_problem_and_its_column(text, column, problem):
    with pytest.raises(ShapeSyntaxError) as caught:
        parse_shapes_text(text)
    assert caught.value.column == column
    assert problem in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_name_given_twice_is_an_error():
    with pytest.raises(ShapeSyntaxError, match="'x' is given twice"):
        parse_shape_args(["x=1", "x=2"])
