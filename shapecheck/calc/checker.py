"""Checks a calculator expression before evaluation: syntax, supported constructs, known names.

The text is parsed with libcst and never evaluated by Python. What passes
here is handed whole to the analyzer's interpreter.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .expression import (
    CONSTANTS,
    MODULE_PREFIXES,
    CheckedExpression,
    ExpressionError,
    FunctionUse,
    Position,
)
from .shapes import normalize_name

_NATIVE_POSITION = re.compile(r"(?:parser error: )?error at (\d+):(\d+): ")

_ALLOWED_EXPRESSIONS = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BinaryOperation, cst.UnaryOperation,
    cst.Comparison, cst.Integer, cst.Float, cst.SimpleString, cst.Tuple, cst.List, cst.Ellipsis,
)
_ALLOWED_BINARY = (
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
    cst.MatrixMultiply, cst.BitAnd, cst.BitOr, cst.BitXor,
)
_ALLOWED_AUGMENTED = (
    cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign,
    cst.FloorDivideAssign, cst.ModuloAssign, cst.PowerAssign, cst.MatrixMultiplyAssign,
    cst.BitAndAssign, cst.BitOrAssign, cst.BitXorAssign,
)
_ALLOWED_COMPARISONS = (
    cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual,
)
_ALLOWED_UNARY = (cst.Minus, cst.Plus, cst.BitInvert)

# Readable names for constructs users try that the calculator does not take.
_CONSTRUCT_NAMES = {
    "Lambda": "lambda", "ListComp": "list comprehension", "GeneratorExp": "generator expression",
    "DictComp": "dict comprehension", "SetComp": "set comprehension", "Dict": "dict literal",
    "Set": "set literal", "IfExp": "conditional expression", "BooleanOperation": "and/or",
    "NamedExpr": "walrus (:=)", "Await": "await", "Yield": "yield", "FormattedString": "f-string",
    "ConcatenatedString": "concatenated string", "Imaginary": "complex literal",
    "StarredElement": "starred expression", "Import": "import", "ImportFrom": "import",
    "FunctionDef": "def", "ClassDef": "class", "If": "if statement", "For": "for loop",
    "While": "while loop", "With": "with statement", "Try": "try statement",
    "Return": "return", "Del": "del", "Pass": "pass", "Global": "global", "Nonlocal": "nonlocal",
    "Assert": "assert", "Raise": "raise", "AnnAssign": "annotated assignment",
    "Break": "break", "Continue": "continue", "Match": "match statement",
}


def _position(ranges, node: cst.CSTNode) -> Position:
    where: CodeRange = ranges[node]
    return Position(where.start.line, where.start.column + 1)


def _dotted(node: cst.BaseExpression) -> list[str] | None:
    """``np.linalg.solve`` -> ["np", "linalg", "solve"]; None for anything but a name chain."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else inner + [node.attr.value]
    return None


class _Checker:
    """One pass over the parsed statements, in order, so assignments bind for later statements."""

    def __init__(self, source: str, ranges, known: set[str], in_session: bool = False,
                 layers: frozenset[str] = frozenset()):
        self.layers = layers
        self.layers_called: set[str] = set()
        self.in_session = in_session
        self.source = source
        self.ranges = ranges
        self.known = set(known)
        self.libraries: set[str] = set()
        self.assigned: list[str] = []
        self.calls: list[FunctionUse] = []
        self.names_used: set[str] = set()
        self.last_binds = False

    def fail(self, problem: str, node: cst.CSTNode) -> ExpressionError:
        return ExpressionError(problem, _position(self.ranges, node), self.source)

    def unsupported(self, node: cst.CSTNode) -> ExpressionError:
        kind = type(node).__name__
        label = _CONSTRUCT_NAMES.get(kind, kind)
        return self.fail(f"unsupported construct: {label}", node)

    def statement(self, line: cst.CSTNode) -> None:
        if not isinstance(line, cst.SimpleStatementLine):
            raise self.unsupported(line)
        for small in line.body:
            self.last_binds = isinstance(small, (cst.Assign, cst.AugAssign))
            if isinstance(small, cst.Expr):
                self.expression(small.value)
            elif isinstance(small, cst.Assign):
                self.expression(small.value)
                for target in small.targets:
                    self.target(target.target, binds=True)
            elif isinstance(small, cst.AugAssign):
                if not isinstance(small.operator, _ALLOWED_AUGMENTED):
                    raise self.fail(f"unsupported operator {small.operator.operator.value!r}"
                                    if hasattr(small.operator, "operator") else
                                    "unsupported augmented operator", small)
                self.expression(small.value)
                self.target(small.target, binds=False)
            else:
                raise self.unsupported(small)

    def target(self, node: cst.BaseExpression, binds: bool) -> None:
        if isinstance(node, cst.Name):
            if binds:
                if node.value in MODULE_PREFIXES or node.value in CONSTANTS:
                    raise self.fail(f"cannot assign to {node.value!r}", node)
                self.known.add(node.value)
                self.assigned.append(node.value)
            else:
                self.name(node)
        elif isinstance(node, cst.Subscript):
            self.expression(node)
        elif isinstance(node, (cst.Tuple, cst.List)) and binds:
            # a, b = torch.max(x, 1): each name takes one result (the interpreter unpacks).
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    raise self.fail("unsupported construct: starred unpacking (*name)", element)
                self.target(element.value, binds=True)
        else:
            raise self.fail(f"cannot assign to {type(node).__name__.lower()}", node)

    def name(self, node: cst.Name) -> None:
        if node.value in CONSTANTS:
            return
        if node.value in MODULE_PREFIXES:
            raise self.fail(f"{node.value!r} is a module, not an array", node)
        if node.value not in self.known:
            how = (f"define it with {node.value} = (...)" if self.in_session
                   else f"give its shape with -s {node.value}=...")
            raise self.fail(f"unknown name {node.value!r} ({how})", node)
        if node.value not in self.assigned:
            self.names_used.add(node.value)

    def expression(self, node: cst.CSTNode) -> None:
        if not isinstance(node, _ALLOWED_EXPRESSIONS):
            raise self.unsupported(node)
        if isinstance(node, cst.Name):
            self.name(node)
        elif isinstance(node, cst.Attribute):
            chain = _dotted(node)
            if chain is not None and chain[0] in MODULE_PREFIXES:
                self.libraries.add(MODULE_PREFIXES[chain[0]])
                return  # a library attribute such as np.newaxis or torch.float32
            self.expression(node.value)
        elif isinstance(node, cst.Call):
            self.call(node)
        elif isinstance(node, cst.Subscript):
            self.expression(node.value)
            for element in node.slice:
                item = element.slice
                if isinstance(item, cst.Index):
                    if item.star is not None:
                        raise self.fail("unsupported construct: starred index", item)
                    self.expression(item.value)
                else:
                    for part in (item.lower, item.upper, item.step):
                        if part is not None:
                            self.expression(part)
        elif isinstance(node, cst.BinaryOperation):
            if not isinstance(node.operator, _ALLOWED_BINARY):
                raise self.fail(f"unsupported operator {node.operator._get_token()!r}", node)
            self.expression(node.left)
            self.expression(node.right)
        elif isinstance(node, cst.UnaryOperation):
            if not isinstance(node.operator, _ALLOWED_UNARY):
                raise self.fail("unsupported operator 'not'", node)
            self.expression(node.expression)
        elif isinstance(node, cst.Comparison):
            self.expression(node.left)
            for target in node.comparisons:
                if not isinstance(target.operator, _ALLOWED_COMPARISONS):
                    raise self.fail("unsupported comparison (in / is)", node)
                self.expression(target.comparator)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                if not isinstance(element, cst.Element):
                    raise self.unsupported(element)
                self.expression(element.value)

    def call(self, node: cst.Call) -> None:
        chain = _dotted(node.func)
        position = _position(self.ranges, node)
        if chain is not None and chain[0] in MODULE_PREFIXES:
            library = MODULE_PREFIXES[chain[0]]
            self.libraries.add(library)
            parts = chain[1:]
            functional = chain[0] == "F"
            if chain[0] == "torch" and parts[:2] == ["nn", "functional"]:
                parts, functional = parts[2:], True
            if not parts:
                raise self.fail(f"{chain[0]!r} is a module, not a function", node)
            self.calls.append(FunctionUse(".".join(parts), "function", library, position,
                                          functional))
        elif isinstance(node.func, cst.Name) and node.func.value in self.layers:
            self.libraries.add("torch")  # an nn layer runs on tensors
            self.layers_called.add(node.func.value)
            self.calls.append(FunctionUse(node.func.value, "layer", "torch", position))
        elif isinstance(node.func, cst.Name):
            if node.func.value in self.known:
                raise self.fail(f"{node.func.value!r} is an array, not a function", node)
            self.calls.append(FunctionUse(node.func.value, "function", None, position))
        elif isinstance(node.func, cst.Attribute):
            # Recorded before the receiver's own calls: calls are listed in pre-order.
            self.calls.append(FunctionUse(node.func.attr.value, "method", None, position))
            self.expression(node.func.value)
        else:
            raise self.fail("unsupported construct: call of a computed value", node)
        for arg in node.args:
            if arg.star:
                raise self.fail(f"unsupported construct: {arg.star}-argument", arg)
            self.expression(arg.value)


def _syntax_error(source: str, exc: cst.ParserSyntaxError) -> ExpressionError:
    line, column = max(exc.raw_line, 1), exc.raw_column + 1
    message = exc.message.rstrip(".")
    # The native parser puts the real position in its message, not in raw_column.
    found = _NATIVE_POSITION.match(message)
    if found:
        line, column = int(found.group(1)), int(found.group(2))
        message = message[found.end():]
    if message.startswith("expected one of") and message.count(",") > 8:
        message = "invalid syntax"  # the full token list hides the point
    return ExpressionError(f"syntax error: {message}", Position(line, column), source)


class _NormalizedNames(cst.CSTTransformer):
    """Names as Python reads them (NFKC, PEP 3131): ``ﬁ`` and ``fi`` are one name."""

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        normal = normalize_name(updated.value)
        return updated if normal == updated.value else updated.with_changes(value=normal)


def check_expression(source: str, known_names: set[str] | frozenset[str],
                     in_session: bool = False, layers: tuple = ()) -> CheckedExpression:
    """Parse ``source`` and check it; ExpressionError (with the position) on the first problem.

    ``layers`` are calc.layers.LayerBinding values: their names may be called (``conv(x)``).
    """
    if not source.strip():
        raise ExpressionError("empty expression", Position(1, 1), source)
    # Leading blanks would be an indentation error; " -x" is how a shell passes "-x".
    stripped = source.lstrip(" \t")
    if "\n" not in stripped.strip():
        source = stripped
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise _syntax_error(source, exc) from None
    except Exception as exc:  # libcst raises a few other errors on odd input
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ExpressionError(f"syntax error: {first}", Position(1, 1), source) from None
    if not source.isascii():
        module = module.visit(_NormalizedNames())
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    ranges = wrapper.resolve(PositionProvider)
    checker = _Checker(source, ranges, set(known_names), in_session,
                       frozenset(layer.name for layer in layers))
    for statement in module.body:
        checker.statement(statement)
    if not module.body:
        raise ExpressionError("empty expression", Position(1, 1), source)
    return CheckedExpression(source, module, frozenset(checker.libraries),
                             tuple(checker.assigned), tuple(checker.calls),
                             frozenset(checker.names_used), checker.last_binds,
                             tuple(layer for layer in layers if layer.name in checker.layers_called))
