"""Dunder calls as the operators they stand for: ``x.__add__(y)`` is ``x + y``.

An array's ``__add__`` is what ``+`` calls, with the same broadcasting, dtype and errors, so
the calculator evaluates the operator (and its step reads as the operator). A reflected
dunder swaps its operands (``x.__radd__(2)`` is ``2 + x``). In-place dunders and calls with
keywords or stars are left as written.
"""

from __future__ import annotations

import libcst as cst

_BINARY = {"add": cst.Add, "sub": cst.Subtract, "mul": cst.Multiply, "truediv": cst.Divide,
           "floordiv": cst.FloorDivide, "mod": cst.Modulo, "pow": cst.Power,
           "matmul": cst.MatrixMultiply, "and": cst.BitAnd, "or": cst.BitOr, "xor": cst.BitXor,
           "lshift": cst.LeftShift, "rshift": cst.RightShift}
_COMPARE = {"lt": cst.LessThan, "le": cst.LessThanEqual, "gt": cst.GreaterThan,
            "ge": cst.GreaterThanEqual, "eq": cst.Equal, "ne": cst.NotEqual}
_UNARY = {"neg": cst.Minus, "pos": cst.Plus, "invert": cst.BitInvert}


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
          cst.Imaginary, cst.SimpleString, cst.Tuple, cst.List)


def _wrapped(node: cst.BaseExpression) -> cst.BaseExpression:
    """Parenthesized unless atomic, so the operator's precedence cannot regroup its operands."""
    if node.lpar or isinstance(node, _ATOMS):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def operator_for(call: cst.Call, abs_function: str = "") -> cst.BaseExpression | None:
    """The operator expression a dunder call means, or None when it is no such call;
    ``__abs__`` becomes ``abs_function`` (the library's own: ``np.absolute``)."""
    if not isinstance(call.func, cst.Attribute) or any(
            a.keyword is not None or a.star for a in call.args):
        return None
    name = call.func.attr.value
    if not (name.startswith("__") and name.endswith("__")):
        return None
    short = name[2:-2]
    receiver = _wrapped(call.func.value)
    args = [_wrapped(a.value) for a in call.args]
    if short in _UNARY and not args:
        return _wrapped(cst.UnaryOperation(_UNARY[short](), receiver))
    if short == "abs" and not args and abs_function:
        return cst.Call(cst.parse_expression(abs_function), [cst.Arg(receiver)])
    if len(args) != 1:
        return None
    other = args[0]
    if short == "getitem":  # the key as written: a tuple keeps its parentheses
        return cst.Subscript(receiver, [cst.SubscriptElement(cst.Index(call.args[0].value))])
    if short in _BINARY:
        return _wrapped(cst.BinaryOperation(receiver, _BINARY[short](), other))
    if short.startswith("r") and short[1:] in _BINARY:
        return _wrapped(cst.BinaryOperation(other, _BINARY[short[1:]](), receiver))
    if short in _COMPARE:
        return _wrapped(cst.Comparison(receiver, [cst.ComparisonTarget(_COMPARE[short](),
                                                                       other)]))
    return None


class DunderCalls(cst.CSTTransformer):
    """Rewrites every dunder call the module makes into its operator."""

    def __init__(self, abs_function: str = ""):
        super().__init__()
        self.abs_function = abs_function

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return operator_for(updated, self.abs_function) or updated
