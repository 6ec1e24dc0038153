"""The Dim algebra agrees with integer arithmetic under every substitution, and its three-valued answers are never wrong."""

from __future__ import annotations

import ast
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck.runtime import dims
from shapecheck.runtime.dims import UNKNOWN, Sym

ATOMS = ("A", "B", "C")


class OpaqueAtoms:
    """What each opaque atom floordiv made stands for, so the test can evaluate it.

    If two different quotients ever got the same atom name, the algebra would
    treat unequal sizes as equal; ``register`` records every definition so
    ``value`` can catch that.
    """

    def __init__(self) -> None:
        self.definitions: dict[str, list[tuple]] = {}

    def register(self, result, numerator, denominator) -> None:
        if isinstance(result, Sym) and len(result.terms) == 1:
            (mono, coeff), = result.terms
            # An atom already inside the operands is an exact quotient (B*N // B = N),
            # not a new definition.
            if coeff == 1 and len(mono) == 1 and mono[0] not in ATOMS and \
                    mono[0] not in _atoms_of(numerator) | _atoms_of(denominator):
                self.definitions.setdefault(mono[0], []).append((numerator, denominator))


def _atoms_of(d) -> set[str]:
    if not isinstance(d, Sym):
        return set()
    return {atom for mono, _ in d.terms for atom in mono}


class Undefined(Exception):
    """The expression divides by zero under this substitution."""


def value(d, env: dict[str, int], opaque: OpaqueAtoms) -> int:
    """The integer a Dim stands for when the atoms take the values in env."""
    if isinstance(d, int):
        return d
    assert isinstance(d, Sym), d
    total = 0
    for mono, coeff in d.terms:
        term = coeff
        for atom in mono:
            term *= atom_value(atom, env, opaque)
        total += term
    return total


def atom_value(atom: str, env: dict[str, int], opaque: OpaqueAtoms) -> int:
    if atom in env:
        return env[atom]
    meanings = set()
    for numerator, denominator in opaque.definitions[atom]:
        den = value(denominator, env, opaque)
        if den == 0:
            raise Undefined
        meanings.add(value(numerator, env, opaque) // den)
    assert len(meanings) == 1, f"atom {atom!r} names different quotients: {meanings}"
    return meanings.pop()


# An expression tree: an int, an atom name, or (op, left, right).
leaves = st.one_of(st.integers(-3, 6), st.sampled_from(ATOMS))
trees = st.recursive(
    leaves,
    lambda inner: st.tuples(st.sampled_from(["add", "sub", "mul", "floordiv"]), inner, inner),
    max_leaves=8,
)
envs = st.lists(st.fixed_dictionaries({a: st.integers(0, 7) for a in ATOMS}),
                min_size=6, max_size=6)

PY_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
          "floordiv": operator.floordiv}


def build(tree, opaque: OpaqueAtoms):
    """The tree as a Dim, through the algebra's own functions."""
    if isinstance(tree, int):
        return tree
    if isinstance(tree, str):
        return dims.sym(tree)
    op, left, right = tree
    a, b = build(left, opaque), build(right, opaque)
    result = getattr(dims, op)(a, b)
    if op == "floordiv":
        opaque.register(result, a, b)
    return result


def direct(tree, env: dict[str, int]) -> int:
    """The tree evaluated with Python ints, the ground truth."""
    if isinstance(tree, int):
        return tree
    if isinstance(tree, str):
        return env[tree]
    op, left, right = tree
    a, b = direct(left, env), direct(right, env)
    if op == "floordiv" and b == 0:
        raise Undefined
    return PY_OPS[op](a, b)


def values_or_none(tree, d, env, opaque):
    try:
        return direct(tree, env), value(d, env, opaque)
    except Undefined:
        return None


@settings(max_examples=250, deadline=None)
@given(forest=st.lists(trees, min_size=1, max_size=4), envs=envs)
def test_dim_arithmetic_agrees_with_integer_arithmetic_under_substitution(forest, envs):
    """Several expressions share one registry, so two quotients given one atom name show up."""
    opaque = OpaqueAtoms()
    built = [(tree, build(tree, opaque)) for tree in forest]
    for tree, d in built:
        if d is UNKNOWN:  # x // 0 is UNKNOWN: nothing to compare
            continue
        for env in envs:
            pair = values_or_none(tree, d, env, opaque)
            if pair is not None:
                assert pair[0] == pair[1], (tree, d, env)


_AST_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
            ast.FloorDiv: operator.floordiv}


def printed_value(text: str, env: dict[str, int]) -> int:
    """What a printed Dim means read with Python's precedence (walked with ast, never eval)."""
    def walk(node):
        if isinstance(node, ast.BinOp):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.FloorDiv) and right == 0:
                raise Undefined
            return _AST_OPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.Name):
            return env[node.id]
        assert isinstance(node, ast.Constant) and isinstance(node.value, int), ast.dump(node)
        return node.value
    return walk(ast.parse(text, mode="eval").body)


@settings(max_examples=200, deadline=None)
@given(tree=trees, envs=envs)
def test_printed_dims_read_back_with_python_precedence_to_the_same_value(tree, envs):
    """Messages show symbolic sizes; "B - 3//2" for (B - 3)//2 would mislead the reader."""
    opaque = OpaqueAtoms()
    d = build(tree, opaque)
    if d is UNKNOWN:
        return
    for env in envs:
        try:
            assert printed_value(str(d), env) == value(d, env, opaque), (str(d), env)
        except Undefined:
            pass


linear = st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3),
                   st.sampled_from([2, 3, 4, dims.sym("C")]))


@settings(max_examples=150, deadline=None)
@given(quotients=st.lists(linear, min_size=2, max_size=10), envs=envs)
def test_different_quotients_never_share_an_opaque_atom(quotients, envs):
    """floordiv's opaque atoms are identified by name; one name for two values would make
    eq answer True for sizes that differ."""
    opaque = OpaqueAtoms()
    for ca, cb, c0, k in quotients:
        a = dims.add(dims.add(dims.mul(ca, dims.sym("A")), dims.mul(cb, dims.sym("B"))), c0)
        opaque.register(dims.floordiv(a, k), a, k)
    for name in opaque.definitions:
        for env in envs:
            try:
                atom_value(name, env, opaque)  # asserts every definition gives one value
            except Undefined:
                pass


@settings(max_examples=200, deadline=None)
@given(x=trees, y=trees, envs=envs)
def test_eq_and_is_one_answer_only_when_every_substitution_agrees(x, y, envs):
    opaque = OpaqueAtoms()
    dx, dy = build(x, opaque), build(y, opaque)
    verdict, one = dims.eq(dx, dy), dims.is_one(dx)
    if dx is UNKNOWN or dy is UNKNOWN:
        assert verdict is None
        return
    if isinstance(dx, int) and isinstance(dy, int):
        assert verdict is (dx == dy) and one is (dx == 1)  # concrete: always decided
    for env in envs:
        try:
            vx, vy = value(dx, env, opaque), value(dy, env, opaque)
        except Undefined:
            continue
        if verdict is not None:
            assert (vx == vy) is verdict, (dx, dy, env)
        if one is not None:
            assert (vx == 1) is one, (dx, env)


@settings(max_examples=200, deadline=None)
@given(x=trees, y=trees, envs=envs)
def test_exact_div_returns_a_true_quotient_or_none(x, y, envs):
    opaque = OpaqueAtoms()
    a, b = build(x, opaque), build(y, opaque)
    quotient = dims.exact_div(a, b)
    if isinstance(a, int) and isinstance(b, int):
        exact = b != 0 and a % b == 0
        assert (quotient is not None) == exact
        if exact:
            assert quotient == a // b
        return
    if quotient is None:
        return
    assert dims.mul(quotient, b) == a  # an identity of polynomials
    for env in envs:
        try:
            va, vb, vq = (value(v, env, opaque) for v in (a, b, quotient))
        except Undefined:
            continue
        if vb != 0:
            assert va == vq * vb


def test_unknown_absorbs_arithmetic_except_multiplication_by_zero():
    b = dims.sym("B")
    for op in (dims.add, dims.sub, dims.mul, dims.floordiv):
        assert op(UNKNOWN, b) is UNKNOWN and op(3, UNKNOWN) is UNKNOWN
    assert dims.mul(UNKNOWN, 0) == 0 and dims.mul(0, UNKNOWN) == 0
    assert dims.eq(UNKNOWN, UNKNOWN) is None and dims.is_one(UNKNOWN) is None
    assert dims.floordiv(b, 0) is UNKNOWN and dims.floordiv(7, 0) is UNKNOWN


def test_symbols_may_be_zero_or_one_so_nothing_is_decided_about_them():
    b, c = dims.sym("B"), dims.sym("C")
    assert dims.is_one(b) is None and dims.is_zero(b) is None
    assert dims.eq(dims.mul(b, c), b) is None  # C may be 1, or B may be 0
    assert dims.eq(dims.add(b, 1), b) is False  # differ by a constant: never equal
    assert dims.eq(dims.mul(dims.add(b, 1), 2), dims.add(dims.add(b, b), 2)) is True
    assert dims.dims_equal((b, 2), (b, 3)) is False
    assert dims.dims_equal((b, c), (b, c)) is True
    assert dims.dims_equal((b, c), (c, b)) is None


def test_floordiv_simplifies_only_exact_quotients():
    b, c = dims.sym("B"), dims.sym("C")
    assert dims.floordiv(dims.add(dims.mul(b, 4), 6), 2) == dims.add(dims.mul(b, 2), 3)
    assert dims.floordiv(dims.mul(b, c), b) == c
    opaque = dims.floordiv(dims.add(b, 1), 2)
    assert isinstance(opaque, Sym) and dims.eq(dims.mul(opaque, 2), dims.add(b, 1)) is None
    # The same quotient twice is the same atom, so it compares equal to itself.
    assert dims.eq(opaque, dims.floordiv(dims.add(b, 1), 2)) is True


SHAPES = [(), (5,), (5, 2), (5, 1, 4, 1), (0, 3)]


@pytest.mark.parametrize("shape", SHAPES)
def test_format_shape_python_style_is_pythons_tuple_repr(shape):
    assert dims.format_shape(shape, "python") == repr(tuple(shape))


@pytest.mark.parametrize("shape", SHAPES)
def test_format_shape_numpy_style_is_how_numpy_errors_print_shapes(shape):
    bigger = (2, 9) + tuple(shape)
    with pytest.raises(ValueError) as error:
        np.add(np.zeros(shape), np.zeros(bigger), out=np.zeros(shape))
    assert str(error.value) == (
        f"non-broadcastable output operand with shape {dims.format_shape(shape, 'numpy')} "
        f"doesn't match the broadcast shape {dims.format_shape(bigger, 'numpy')}")


@pytest.mark.parametrize("shape", SHAPES)
def test_format_shape_torch_style_is_how_torch_errors_print_shapes(shape):
    torch = pytest.importorskip("torch")
    target = torch.zeros(shape)
    with pytest.raises(RuntimeError) as error:
        target.add_(torch.zeros((2, 9) + tuple(shape)))
    bigger = (2, 9) + tuple(shape)
    assert str(error.value) == (f"output with shape {dims.format_shape(shape, 'torch')} doesn't "
                                f"match the broadcast shape {dims.format_shape(bigger, 'torch')}")


def test_format_shape_writes_symbols_and_unknown_dims():
    b = dims.sym("B")
    assert dims.format_shape((b, dims.add(b, 1), UNKNOWN), "python") == "(B, B + 1, ?)"
    assert dims.format_shape((b,), "numpy") == "(B,)"
    assert dims.format_shape((dims.mul(b, 2), 3), "torch") == "[2*B, 3]"


@pytest.mark.parametrize("text, expected", [
    ("5", 5), (" 12 ", 12), ("0", 0), ("?", UNKNOWN), ("_", UNKNOWN), ("B", dims.sym("B")),
    ("batch_size", dims.sym("batch_size")),
])
def test_parse_dim_reads_sizes_symbols_and_unknowns(text, expected):
    assert dims.parse_dim(text) == expected


@pytest.mark.parametrize("text", ["", "-3", "--3", "3.5", "B+1", "B C", "0x10", "1e3", "²", "٣",
                                  "(B)"])
def test_parse_dim_refuses_bad_text_with_one_clear_line(text):
    with pytest.raises(ValueError) as error:
        dims.parse_dim(text)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(("not a dimension", "negative dimension"))
