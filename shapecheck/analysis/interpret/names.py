"""Python syntax and library names the walker recognizes, and its limits."""

from __future__ import annotations

import libcst as cst

MAX_LOOP_ITERATIONS = 3


MAX_SPECIALIZATIONS = 600


MAX_MODULE_LEVEL_RUNS = 8
"""Argument sets with no array one function runs with when the module's own statements call it."""


MAX_CALL_DEPTH = 7


MORE_KEYWORDS = "**"
"""A keyword no parameter can have: in a call's keywords, it says ``**extra`` gave more of them,
unknown (``ResNet(block, layers, **kwargs)``): every parameter the call does not name is given,
its value unknown."""


BUILTINS = frozenset({"len", "range", "int", "float", "abs", "min", "max", "tuple", "list",
                       "enumerate", "zip", "isinstance", "print", "sum", "reversed", "sorted",
                       "bool", "str", "round", "super", "type", "iter", "next", "divmod",
                       "getattr", "hasattr", "setattr", "map", "all", "any", "dict",
                       "issubclass", "dir", "callable"})


BINOPS = {
    cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "div",
    cst.FloorDivide: "floor_divide", cst.Modulo: "remainder", cst.Power: "pow",
    cst.MatrixMultiply: "matmul", cst.BitAnd: "bitwise_and", cst.BitOr: "bitwise_or",
    cst.BitXor: "bitwise_xor", cst.LeftShift: "lshift", cst.RightShift: "rshift",
}


DUNDER = {"add": "add", "sub": "sub", "mul": "mul", "div": "truediv", "floor_divide": "floordiv",
           "remainder": "mod", "pow": "pow", "matmul": "matmul", "bitwise_and": "and",
           "bitwise_or": "or", "bitwise_xor": "xor", "lshift": "lshift", "rshift": "rshift"}


AUG = {cst.AddAssign: "add", cst.SubtractAssign: "sub", cst.MultiplyAssign: "mul",
        cst.DivideAssign: "div", cst.FloorDivideAssign: "floor_divide",
        cst.ModuloAssign: "remainder", cst.PowerAssign: "pow", cst.MatrixMultiplyAssign: "matmul",
        cst.BitAndAssign: "bitwise_and", cst.BitOrAssign: "bitwise_or",
        cst.BitXorAssign: "bitwise_xor", cst.LeftShiftAssign: "lshift",
        cst.RightShiftAssign: "rshift"}


COMPARE = {cst.Equal: "eq", cst.NotEqual: "ne", cst.LessThan: "lt", cst.LessThanEqual: "le",
            cst.GreaterThan: "gt", cst.GreaterThanEqual: "ge"}


KIND_CODES = {"broadcast": "SC101", "fallback": "SC104", "matmul": "SC106", "solve": "SC106",
              "einsum": "SC106", "loss": "SC107", "layer": "SC113",
               "join": "SC108", "reshape": "SC109", "view": "SC109",
               "view-layout": "SC308", "index": "SC111",
               "axis": "SC111", "inplace": "SC201", "dtype": "SC202", "out": "SC203"}


WARNING_CODES = {"legacy-fallback": "SC104", "backcompat": "SC105", "out-resize": "SC203"}


SOLVES = frozenset({"numpy.linalg.solve", "torch.linalg.solve"})


STATE_REGISTRARS = frozenset({"register_buffer", "register_parameter"})


LIST_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort",
                            "reverse", "__setitem__", "__delitem__", "__iadd__",
                            "update", "setdefault", "popitem"})


NON_MUTATING_BUILTINS = frozenset({f"builtins.{name}" for name in (
    "len", "tuple", "list", "sorted", "reversed", "enumerate", "zip", "map", "filter", "sum",
    "min", "max", "any", "all", "isinstance", "issubclass", "callable", "print", "repr", "str", "iter",
    "range", "abs",
    "round", "set", "frozenset", "dict", "hash", "id", "type", "bool", "int", "float")})


NOT_NDARRAY_MODULES = ("numpy.ma.", "numpy.rec.", "numpy.char.", "numpy.strings.",
                        "numpy.polynomial.", "numpy.matrixlib.", "torch.masked.", "torch.sparse.",
                        "torch.nested.")


NOT_NDARRAY_FUNCS = frozenset({"numpy.matrix", "numpy.asmatrix", "numpy.bmat", "numpy.mat",
                                "numpy.recarray", "numpy.chararray"})


UNMODELED_KWARGS = frozenset({"signature", "where", "casting", "subok", "extobj", "like"})


AUG_LABEL = {f"__i{v}__": f"'{s}='" for v, s in (
    ("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("floordiv", "//"), ("mod", "%"),
    ("pow", "**"), ("matmul", "@"), ("and", "&"), ("or", "|"), ("xor", "^"))}


CONVERSIONS = frozenset({"astype", "to", "type", "requires_grad_"})
"""Methods that change dtype, device or flags and keep the shape (with their arguments)."""


OPERATOR_FUNCTIONS = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div",
                      "floordiv": "floor_divide", "mod": "remainder", "pow": "pow",
                      "matmul": "matmul", "and_": "bitwise_and", "or_": "bitwise_or",
                      "xor": "bitwise_xor", "eq": "eq", "ne": "ne", "lt": "lt", "le": "le",
                      "gt": "gt", "ge": "ge"}
"""The operator module's two-operand functions, as the binary op each one is."""


def method_kind(node: cst.FunctionDef) -> str:
    """"static", "class" or "instance": what a method's first parameter receives."""
    names = {d.decorator.value for d in node.decorators if isinstance(d.decorator, cst.Name)}
    if "staticmethod" in names:
        return "static"
    return "class" if "classmethod" in names else "instance"
