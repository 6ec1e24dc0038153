"""The pointwise family of the op table: binary and unary element-wise ops, their in-place
twins and operators, comparisons, where, clamp, masked_fill and copies into an array.

Registered into the table (runtime/optable.py) on import; runtime/ops.py imports it.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

import numpy as np

from . import dtypes
from .arguments import ArrayArg
from .arguments import dtype_of as _dtype
from .arguments import is_array as _is_array
from .arguments import ndim_of as _ndim
from .arguments import operand_shapes as _operand_shapes
from .arguments import shape_of as _shape
from .autograd_saved import saves_output
from .dialects import Dialect
from .ops_selection import where_one_rule
from .optable import add_op as _add
from .optable import shape_keeping as _shape_keeping
from .out_argument import handles_out
from .rules.axes import torch_scalar_type
from .verdicts import Result, ShapeError

_broadcast = importlib.import_module(".rules.broadcast", __package__)
_pointwise = importlib.import_module(".rules.pointwise", __package__)


# user-facing spelling -> the rule's op name (torch spellings, NumPy's where they differ)
_NUMPY_BINARY = ("add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
                 "fmod", "remainder", "mod", "maximum", "minimum", "equal", "not_equal", "less",
                 "less_equal", "greater", "greater_equal", "arctan2", "hypot", "copysign",
                 "logaddexp", "fmax", "fmin", "bitwise_and", "bitwise_or", "bitwise_xor",
                 "logical_and", "logical_or", "logical_xor")
_TORCH_BINARY = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                 "floor_divide", "pow", "fmod", "remainder", "maximum", "minimum", "eq", "ne",
                 "lt", "le", "gt", "ge", "atan2", "hypot", "copysign", "logaddexp", "fmax",
                 "fmin", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
                 "logical_or", "logical_xor")
_TORCH_INPLACE = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                  "floor_divide", "pow", "fmod", "remainder", "eq", "ne", "lt", "le", "gt", "ge",
                  "atan2", "hypot", "copysign", "bitwise_and", "bitwise_or", "bitwise_xor",
                  "logical_and", "logical_or", "logical_xor")
_TORCH_SPELLING = {"subtract": "sub", "multiply": "mul", "divide": "div"}
_OPERATORS = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div",
              "floordiv": "floor_divide", "mod": "remainder", "pow": "pow",
              "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor"}
_COMPARISONS = {"lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "eq": "eq", "ne": "ne"}
# Element-wise ops whose result has the operand's shape (and an in-place torch twin).
_UNARY = ("exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "tan", "floor", "ceil", "round",
          "square", "sign", "log1p", "expm1", "log2", "log10", "sinh", "cosh", "reciprocal",
          "trunc", "exp2", "arcsin", "arccos", "arctan", "nan_to_num", "negative", "deg2rad",
          "rad2deg", "sinc")
_TORCH_UNARY = _UNARY + ("neg", "sigmoid", "relu", "rsqrt", "erf", "frac")
# Predicates and element-wise ops without an in-place twin (numpy's are functions only, bar conj).
_NUMPY_PREDICATES = ("absolute", "fabs", "isnan", "isfinite", "isinf", "logical_not", "conj",
                     "conjugate", "positive", "signbit")
_TORCH_PREDICATES = ("isnan", "isfinite", "isinf", "logical_not", "conj", "positive", "signbit",
                     "absolute", "sgn", "bitwise_not", "atan", "asin", "acos", "fix", "angle")
_NUMPY_MORE_UNARY = ("cbrt", "rint", "invert", "bitwise_not", "bitwise_invert", "spacing",
                     "degrees", "radians", "arcsinh", "arccosh", "arctanh")
# torch.nn.functional's activations and dropouts keep the input's shape (softmax and
# log_softmax, which check their dim, are ops_statistics.py's).
_FUNCTIONAL_SHAPE_KEEPING = ("relu", "relu6", "gelu", "silu", "softplus", "elu", "leaky_relu",
                             "hardtanh", "mish", "selu", "celu", "logsigmoid", "softsign",
                             "sigmoid", "tanh", "softmin", "dropout",
                             "alpha_dropout", "feature_alpha_dropout", "normalize", "hardsigmoid",
                             "hardswish", "tanhshrink", "softshrink", "hardshrink", "threshold",
                             "rrelu")
# Tensor methods that convert dtype or device: the tensor itself when nothing changes.
_TORCH_CONVERSIONS = ("float", "double", "half", "long", "int", "bool", "short", "bfloat16", "byte",
                      "char", "cpu", "cuda")


def _pointwise_rule(op: str, *, reflected: bool = False) -> Callable[..., Result]:
    """``f(a, b)`` / ``a.f(b)`` / ``a + b``; out= is checked against the result."""
    @handles_out
    def rule(*args: Any, dialect: Dialect, out: Any = None, **kwargs: Any) -> Result:
        operands = args[::-1] if reflected else args
        if op in _BITWISE:
            _integral_operands(op, operands, dialect)
        if len(operands) == 2:
            mode = kwargs.get("rounding_mode")
            # torch's div with a rounding mode runs the kernels of // (no bool loop either).
            _scalar_operand_checks(f"div_{mode}" if op in dtypes.TRUE_DIVISION_OPS and
                                   mode in ("floor", "trunc") else op, operands, dialect)
        shapes = _operand_shapes(operands, dialect)
        if len(shapes) == 1:
            # torch-legacy: a tensor with a Python scalar; nothing to broadcast.
            result = Result.of(shapes[0])
        else:
            result = _pointwise.pointwise(*shapes, op=op, dialect=dialect)
        if isinstance(out, ArrayArg) and len(shapes) > 1:
            return _pointwise.out_param(tuple(shapes), out.shape, op=op, dialect=dialect)
        return result
    return rule


def _unary(numpy_op: str | None, torch_op: str | None) -> tuple[Callable[..., Result],
                                                                 Callable[..., Any]]:
    """A unary element-wise op (its NumPy ufunc's name, torch's name): the result has the
    operand's shape and the dtype the library computes it in (``dtypes.numpy_unary_dtype``,
    ``torch_unary_dtype``), and the rule raises the library's refusal of a dtype (``-`` of a
    bool, ``~`` of a float, torch's floor of a bool)."""
    def dtype(x: Any = None, *args: Any, dialect: Dialect, **kwargs: Any) -> str | None:
        if not _is_array(x):
            return None
        if dialect.is_numpy:
            return dtypes.numpy_unary_dtype(numpy_op, _dtype(x)) if numpy_op else None
        return dtypes.torch_unary_dtype(torch_op, _dtype(x)) if torch_op else None

    def rule(*args: Any, dialect: Dialect, **kwargs: Any) -> Result:
        if args:
            dtype(args[0], dialect=dialect)
        return _identity_rule(*args, dialect=dialect, **kwargs)

    return handles_out(_shape_keeping(rule)), dtype


def _pointwise_dtype(op: str) -> Callable[..., Any]:
    """The promoted dtype of a binary element-wise op (NEP 50 weak scalars in NumPy, torch's
    categories); None with other than two operands."""
    def dtype(*args: Any, dialect: Dialect, out: Any = None, **kwargs: Any) -> str | None:
        if len(args) != 2:
            return None
        a, b = args
        if not (_is_array(a) or _is_array(b)):
            return None
        # torch's div with a rounding mode rounds to the operands' own type, as // does.
        rounded = op in dtypes.TRUE_DIVISION_OPS and kwargs.get("rounding_mode") is not None
        return dtypes.op_result_type("floor_divide" if rounded else op, _dtype(a), _dtype(b),
                                     dialect, _ndim(a), _ndim(b),
                                     exponent=None if _is_array(b) else b)
    return dtype


_BITWISE = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor"})


def _integral_operands(op: str, operands: tuple, dialect: Dialect) -> None:
    """Bitwise ops have no float loop: a float operand (array or Python float) is refused."""
    floats = [d for d in (_dtype(v) for v in operands)
              if d is not None and (dtypes.category(d) or 0) >= 2]
    if not floats:
        return
    if dialect.is_numpy:
        raise ShapeError("dtype", f"ufunc '{op}' not supported for the input types, and the "
                         "inputs could not be safely coerced to any supported types according "
                         "to the casting rule ''safe''", "TypeError")
    raise ShapeError("dtype", f'"{op}_cpu" not implemented for '
                     f"'{torch_scalar_type(floats[0])}'", "NotImplementedError")


_INT_RANGES = {name: (int(np.iinfo(name).min), int(np.iinfo(name).max))
               for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                            "uint64")}


_TORCH_NO_BOOL_KERNEL = {"floor_divide": "div_floor_cpu", "div_floor": "div_floor_cpu",
                         "div_trunc": "div_trunc_cpu", "remainder": "remainder_cpu",
                         "fmod": "fmod_cpu", "pow": "pow", "hypot": "hypot_cpu",
                         "logaddexp": "logaddexp_cpu"}
"""torch ops whose CPU kernel has no bool loop: two bool operands are refused."""


def _scalar_operand_checks(op: str, operands: tuple, dialect: Dialect) -> None:
    """Errors a Python scalar operand decides: NumPy 2 refuses an int its integer array cannot
    hold (NEP 50) and a negative integer power of integers; both libraries refuse to
    subtract booleans."""
    kinds = [_dtype(v) for v in operands]
    if op in ("sub", "subtract"):
        bools = [k in ("bool", "pybool") for k in kinds]
        if dialect.is_torch and any(bools):
            raise ShapeError("dtype", "Subtraction, the `-` operator, with a bool tensor is not "
                             "supported. If you are trying to invert a mask, use the `~` or "
                             "`logical_not()` operator instead.", "RuntimeError")
        if dialect.is_numpy and all(bools):
            raise ShapeError("dtype", "numpy boolean subtract, the `-` operator, is not "
                             "supported, use the bitwise_xor, the `^` operator, or the "
                             "logical_xor function instead.", "TypeError")
    result = dtypes.op_result_type(op, kinds[0], kinds[1], dialect, _ndim(operands[0]),
                                   _ndim(operands[1]),
                                   exponent=None if _is_array(operands[1]) else operands[1])
    # pow of a tensor by a Python scalar takes another path (x ** True is x)
    scalar_power = op == "pow" and not all(_is_array(v) for v in operands)
    common = dtypes.result_type(kinds[0], kinds[1], dialect, _ndim(operands[0]),
                                _ndim(operands[1]))
    if dialect.is_torch and op in _TORCH_NO_BOOL_KERNEL and not scalar_power and common == "bool":
        raise ShapeError("dtype", f"\"{_TORCH_NO_BOOL_KERNEL[op]}\" not implemented for 'Bool'",
                         "NotImplementedError")
    if op in dtypes.COMPARISON_OPS or result is None or (dtypes.category(result) or 0) >= 2:
        return  # an int scalar meets a float loop: nothing to overflow
    for i in (0, 1):
        scalar, other, kind = operands[i], operands[1 - i], kinds[1 - i]
        if kinds[i] != "pyint" or not _is_array(other):
            continue
        if dialect.is_numpy and kind in _INT_RANGES and \
                not _INT_RANGES[kind][0] <= scalar <= _INT_RANGES[kind][1]:
            raise ShapeError("dtype", f"Python integer {scalar} out of bounds for {kind}",
                             "OverflowError")
        if op in ("pow", "power") and i == 1 and scalar < 0:
            raise ShapeError("dtype", "Integers to negative integer powers are not allowed.",
                             "ValueError" if dialect.is_numpy else "RuntimeError")


def _inplace_rule(op: str) -> Callable[..., Result]:
    """``x.add_(y)`` / ``x += y``: the result keeps x's shape and dtype.

    NumPy resolves the loop's dtypes before broadcasting; torch broadcasts
    first, so the two checks run in the libraries' orders.
    """
    def rule(target: ArrayArg, *others: Any, dialect: Dialect, **kwargs: Any) -> Result:
        # The op's own refusals first: bitwise ops of floats, bool subtraction, torch's
        # remainder or power of bools. Kind "operand": the op refuses its operands' dtypes,
        # which is no cast of a result into the target.
        try:
            if op in _BITWISE:
                _integral_operands(op, (target,) + others, dialect)
            if len(others) == 1:
                _scalar_operand_checks(op, (target, others[0]), dialect)
        except ShapeError as err:
            raise ShapeError("operand", err.message, err.exc_type, err.dim, err.shapes) from None

        def check_dtype() -> None:
            if others:
                other = others[0]
                # bool ** 2 runs as a square, computed in int8 (which no bool target holds).
                result_dtype = dtypes.op_result_type(
                    op, _dtype(target), _dtype(other), dialect, _ndim(target), _ndim(other),
                    exponent=None if _is_array(other) else other)
                ufunc = "square" if op == "pow" and result_dtype == "int8" and \
                    _dtype(target) == "bool" else op
                dtypes.inplace_dtype(target.dtype, result_dtype, op=ufunc, dialect=dialect)

        if dialect.is_numpy:
            check_dtype()
        shapes = _operand_shapes(others, dialect)
        result = (_pointwise.inplace(target.shape, *shapes, op=op, dialect=dialect)
                  if shapes else Result.of(target.shape))
        if dialect.is_torch:
            check_dtype()
        return result
    return rule


@handles_out
@_shape_keeping
def _identity_rule(*args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    """A unary pointwise op (or a fill): the result has the operand's shape; out= as for any
    element-wise op (NumPy refuses an out the input cannot broadcast to, torch resizes it)."""
    out = kwargs.get("out")
    if isinstance(out, ArrayArg) and args:
        return _pointwise.unary_out(_shape(args[0]), out.shape, dialect=dialect)
    return Result.of(_shape(args[0]) if args else ())


def _clamp_bounds(bounds: tuple, kwargs: dict) -> list:
    """The bounds given (None for one not given): positional, then min= / max= (a_min= /
    a_max= in NumPy)."""
    lo = bounds[0] if bounds else kwargs.get("min", kwargs.get("a_min"))
    hi = bounds[1] if len(bounds) > 1 else kwargs.get("max", kwargs.get("a_max"))
    return [lo, hi]


def _torch_scalar_bounds(bounds: list) -> bool:
    """torch's clamp has a Scalar overload and a Tensor one: bounds that are all tensors (or
    None) take the Tensor one; Python numbers the Scalar one, which also reads a 0-dim tensor
    as a number; a number beside a tensor of some dims fits neither."""
    given = [b for b in bounds if b is not None]
    if not given:
        raise ShapeError("argument", "torch.clamp: At least one of 'min' or 'max' must not be "
                         "None", "RuntimeError")
    if all(_is_array(b) for b in given):
        return False
    if any(_is_array(b) and _ndim(b) > 0 for b in given):
        raise ShapeError("argument", "clamp() received an invalid combination of arguments",
                         "TypeError")
    return True


def _clamp_rule(x: Any, *bounds: Any, dialect: Dialect, out: Any = None, **kwargs: Any) -> Result:
    """clip / clamp: array bounds broadcast with the input, as in an element-wise op."""
    given = _clamp_bounds(bounds, kwargs)
    if dialect.is_torch:
        _torch_scalar_bounds(given)
    shapes = [_shape(x)] + [_shape(b) for b in given if _is_array(b)]
    if len(shapes) == 1:
        return Result.of(shapes[0])
    return _broadcast.broadcast_shapes(*shapes, dialect=dialect)


def _clamp_dtype(x: Any, *bounds: Any, dialect: Dialect, out: Any = None, **kwargs: Any) -> Any:
    """The promotion of the input and its bounds (NEP 50 in NumPy; in torch's Scalar overload
    a 0-dim tensor bound counts as a Python number of its kind)."""
    given = [b for b in _clamp_bounds(bounds, kwargs) if b is not None]
    scalar = dialect.is_torch and _torch_scalar_bounds(given)
    weak = {0: "pybool", 1: "pyint", 2: "pyfloat", 3: "pycomplex"}
    kinds = [(_dtype(x), _ndim(x))]
    for b in given:
        kind = _dtype(b)
        if scalar and _is_array(b) and kind is not None:
            kind = weak.get(dtypes.category(kind) or 0)
        kinds.append((kind, _ndim(b)))
    return dtypes.result_type_of(kinds, dialect)


def _where_rule(*args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    if len(args) == 1 and not kwargs:
        return where_one_rule(args[0], dialect=dialect)
    if len(args) != 3:
        raise ShapeError("argument", "where() takes a condition and two values here", "TypeError")
    return _pointwise.pointwise(*[_shape(a) for a in args], op="where", dialect=dialect)


def _where_dtype(*args: Any, dialect: Dialect, **kwargs: Any) -> str | None:
    """where(cond) gives int64 indices; where(cond, a, b) the promoted dtype of a and b."""
    if len(args) == 1:
        return "int64"
    if len(args) != 3 or not (_is_array(args[1]) or _is_array(args[2])):
        return None
    return dtypes.op_result_type("where", _dtype(args[1]), _dtype(args[2]), dialect,
                                 _ndim(args[1]), _ndim(args[2]))


def _ternary_rule(op: str) -> Callable[..., Result]:
    def rule(x: ArrayArg, a: Any, b: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
        return _pointwise.pointwise(_shape(x), _shape(a), _shape(b), op=op, dialect=dialect)
    return rule


def _ternary_inplace_rule(op: str) -> Callable[..., Result]:
    def rule(x: ArrayArg, a: Any, b: Any, *, dialect: Dialect, **kwargs: Any) -> Result:
        return _pointwise.inplace(_shape(x), _shape(a), _shape(b), op=op, dialect=dialect)
    return rule


def _copy_rule(dst: ArrayArg, src: Any, *args: Any, dialect: Dialect, **kwargs: Any) -> Result:
    return _pointwise.copy_into(dst.shape, _shape(src), dialect=dialect)


def _masked_fill_rule(inplace: bool) -> Callable[..., Result]:
    def rule(x: ArrayArg, mask: Any, value: Any = 0, *, dialect: Dialect, **kwargs: Any) -> Result:
        return _pointwise.masked_fill(x.shape, _shape(mask), dialect=dialect, inplace=inplace,
                                      value_ndim=_ndim(value) if _is_array(value) else 0)
    return rule


def _register_pointwise() -> None:
    fallback = _pointwise.FALLBACK_OPS
    for name in _NUMPY_BINARY:
        _add(f"np.{name}", "numpy", _pointwise_rule(name), broadcasts=True,
             dtype=_pointwise_dtype(name))
    for name in _TORCH_BINARY:
        rule_op = _TORCH_SPELLING.get(name, name)
        legacy = rule_op in fallback
        _add(f"torch.{name}", "torch", _pointwise_rule(rule_op), legacy_fallback=legacy,
             broadcasts=True, dtype=_pointwise_dtype(rule_op))
        _add(name, "torch", _pointwise_rule(rule_op), legacy_fallback=legacy, broadcasts=True,
             dtype=_pointwise_dtype(rule_op))
    for name in _TORCH_INPLACE:
        rule_op = _TORCH_SPELLING.get(name, name)
        _add(f"{name}_", "torch", _inplace_rule(rule_op), inplace=True,
             legacy_fallback=rule_op in fallback)
    for dunder, rule_op in _OPERATORS.items():
        legacy = rule_op in fallback
        _add(f"__{dunder}__", "both", _pointwise_rule(rule_op), legacy_fallback=legacy, broadcasts=True)
        _add(f"__r{dunder}__", "both", _pointwise_rule(rule_op, reflected=True),
             legacy_fallback=legacy)
        _add(f"__i{dunder}__", "both", _inplace_rule(rule_op), inplace=True,
             legacy_fallback=legacy)
    for dunder, rule_op in _COMPARISONS.items():
        _add(f"__{dunder}__", "both", _pointwise_rule(rule_op), broadcasts=True)
    for name in _UNARY + _NUMPY_PREDICATES + _NUMPY_MORE_UNARY:
        rule, dtype = _unary(name, None)
        _add(f"np.{name}", "numpy", rule, dtype=dtype)
    for name in ("conj", "conjugate", "round"):
        rule, dtype = _unary(name, None)
        _add(name, "numpy", rule, dtype=dtype)
    for name in _TORCH_UNARY:
        saves = saves_output(name)
        rule, dtype = _unary(None, name)
        _add(f"torch.{name}", "torch", rule, saves_output=saves, dtype=dtype)
        _add(name, "torch", rule, saves_output=saves, dtype=dtype)
        _add(f"{name}_", "torch", _identity_rule, inplace=True)
    for name in _TORCH_PREDICATES:
        rule, dtype = _unary(None, name)
        _add(f"torch.{name}", "torch", rule, dtype=dtype)
        _add(name, "torch", rule, dtype=dtype)
    for name in _FUNCTIONAL_SHAPE_KEEPING:
        _add(f"F.{name}", "torch", _identity_rule, saves_output=saves_output(name))
    for name in _TORCH_CONVERSIONS:
        _add(name, "torch", _identity_rule, view_kind="same")
    for name in ("np.clip", "clip"):
        _add(name, "numpy", _clamp_rule, dtype=_clamp_dtype)
    for name in ("torch.clamp", "torch.clip", "clamp", "clip"):
        _add(name, "torch", _clamp_rule, dtype=_clamp_dtype)
    for dunder, numpy_op, torch_op in (("__neg__", "negative", "neg"),
                                       ("__abs__", "absolute", "abs"),
                                       ("__pos__", "positive", "positive"),
                                       ("__invert__", "invert", "bitwise_not")):
        rule, dtype = _unary(numpy_op, torch_op)
        _add(dunder, "both", rule, dtype=dtype,
             saves_output=saves_output("neg") if dunder == "__neg__" else False)
    _add("fill_", "torch", _identity_rule, inplace=True)
    _add("zero_", "torch", _identity_rule, inplace=True)
    _add("fill", "numpy", _identity_rule, inplace=True)
    _add("np.where", "numpy", _where_rule, broadcasts=True, dtype=_where_dtype,
         sized_by_values=True)
    _add("torch.where", "torch", _where_rule, broadcasts=True, dtype=_where_dtype,
         sized_by_values=True)
    _add("where", "torch", _where_rule, broadcasts=True, dtype=_where_dtype)
    for op in ("addcmul", "addcdiv"):
        _add(f"torch.{op}", "torch", _ternary_rule(op), legacy_fallback=True)
        _add(op, "torch", _ternary_rule(op), legacy_fallback=True)
        _add(f"{op}_", "torch", _ternary_inplace_rule(op), inplace=True, legacy_fallback=True)
    _add("copy_", "torch", _copy_rule, inplace=True)
    _add("np.copyto", "numpy", _copy_rule, inplace=True)
    _add("masked_fill", "torch", _masked_fill_rule(False))
    _add("masked_fill_", "torch", _masked_fill_rule(True), inplace=True)


_register_pointwise()
