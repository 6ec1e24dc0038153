"""The calculator's expression checks: libcst syntax, supported constructs, known names, dialect default."""

import pytest

from shapecheck.calc.checker import check_expression
from shapecheck.calc.expression import ExpressionError

ARRAYS = {"x", "y", "a", "b", "q", "k"}


@pytest.mark.parametrize("source", [
    "x + y", "x - y * a / b // q % k ** x @ y", "x < y", "x == y != a",
    "x += y", "x @= y", "z = x @ y; z.sum(0)", "z = x @ y\nz.sum(0)",
    "x.T", "x.mT", "x.add_(y)", "x.sum(1, keepdim=True)", "x.view(2, -1)",
    "x.reshape((2, 3))", "x.unsqueeze(0).expand(3, -1, -1)", "q @ k.transpose(-2, -1)",
    "x.permute(2, 0, 1)", "x[0, 1:3, None, ...]", "x[::2]", "-x", "~x",
    "np.linalg.solve(a, b)", "numpy.matmul(a, b)", "torch.cat([x, y], dim=0)",
    "F.softmax(x, dim=-1)", "matmul(x, y)", "np.einsum('ij,jk->ik', a, b)",
])
def test_supported_expressions_pass(source):
    checked = check_expression(source, ARRAYS)
    assert checked.source == source


@pytest.mark.parametrize("source, default", [
    ("x + y", "all"),
    ("np.linalg.solve(a, b)", "numpy"),
    ("numpy.add(a, b)", "numpy"),
    ("torch.matmul(a, b)", "torch"),
    ("F.relu(x)", "torch"),
    ("np.add(x, torch.ones(3))", "all"),
])
def test_default_dialect_follows_the_library_named(source, default):
    assert check_expression(source, ARRAYS).default_dialect == default


def test_assignments_bind_names_for_later_statements():
    checked = check_expression("z = x @ y; w = z.sum(0); w + z", ARRAYS)
    assert checked.assigned == ("z", "w")
    assert checked.names_used == {"x", "y"}
    assert not checked.ends_with_assignment
    assert check_expression("x += y", ARRAYS).ends_with_assignment


def test_calls_record_the_op_name_and_prefix():
    checked = check_expression("torch.nn.functional.softmax(x.sum(0), dim=-1)", ARRAYS)
    assert [(c.name, c.kind, c.library) for c in checked.calls] == [
        ("softmax", "function", "torch"), ("sum", "method", None)]


@pytest.mark.parametrize("source, problem, where", [
    ("x +", "syntax error", "column 3"),
    ("x y", "syntax error: invalid syntax", "column 3"),
    ("a = x\nb = y +", "syntax error", "line 2, column 7"),
    ("x + z", "unknown name 'z'", "column 5"),
    ("x.sum(w)", "unknown name 'w'", "column 7"),
    ("lambda: x", "unsupported construct: lambda", "column 1"),
    ("[i for i in x]", "unsupported construct: list comprehension", "column 1"),
    ("x and y", "unsupported construct: and/or", "column 1"),
    ("x if y else a", "unsupported construct: conditional expression", "column 1"),
    ("import numpy", "unsupported construct: import", "column 1"),
    ("x is y", "unsupported comparison", "column 1"),
    ("x << y", "unsupported operator '<<'", "column 1"),
    ("f(*x)", "unsupported construct: *-argument", "column 3"),
    ("x(1)", "'x' is an array, not a function", "column 1"),
    ("np + x", "'np' is a module, not an array", "column 1"),
    ("np = x", "cannot assign to 'np'", "column 1"),
    ("", "empty expression", "column 1"),
])
def test_bad_expressions_give_one_line_with_the_problem_and_position(source, problem, where):
    with pytest.raises(ExpressionError) as caught:
        check_expression(source, ARRAYS)
    message = str(caught.value)
    assert problem in message
    assert message.endswith(where)
    assert "\n" not in message
