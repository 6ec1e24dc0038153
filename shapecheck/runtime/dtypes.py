"""Dtype promotion and in-place casting rules of NumPy (NEP 50) and PyTorch, on dtype names.

Dtypes are NumPy-spelled strings ("int64", "float32", ...; "bfloat16" and
"complex32" exist only in torch). Python scalars are weak and spelled
"pybool", "pyint", "pyfloat", "pycomplex". Every function answers None when
the answer depends on something unknown (an unknown dtype or operand ndim, a
value NumPy 1 would have inspected).
"""

from __future__ import annotations

import functools

from .dialects import Dialect
from .verdicts import ShapeError

WEAK_SCALARS = frozenset({"pybool", "pyint", "pyfloat", "pycomplex"})

# (category, kind, bits): category orders bool < integer < floating < complex,
# bits is the width of the value (a complex's bits are its component's).
_INFO: dict[str, tuple[int, str, int]] = {
    "bool": (0, "b", 8),
    "uint8": (1, "u", 8), "uint16": (1, "u", 16), "uint32": (1, "u", 32), "uint64": (1, "u", 64),
    "int8": (1, "i", 8), "int16": (1, "i", 16), "int32": (1, "i", 32), "int64": (1, "i", 64),
    "float16": (2, "f", 16), "bfloat16": (2, "f", 16), "float32": (2, "f", 32),
    "float64": (2, "f", 64),
    "complex32": (3, "c", 16), "complex64": (3, "c", 32), "complex128": (3, "c", 64),
}

NUMPY_DTYPES = frozenset({
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"})
# torch's uint16/32/64 refuse promotion with other types, so they are left out.
TORCH_DTYPES = frozenset({
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64", "complex32", "complex64", "complex128"})

_TORCH_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double", "complex32": "ComplexHalf", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
}

# NumPy's ufunc names for the torch and NumPy spellings of pointwise ops, for
# its casting error messages.
_UFUNC_NAMES = {
    "add": "add", "sub": "subtract", "subtract": "subtract", "mul": "multiply",
    "multiply": "multiply", "div": "divide", "divide": "divide", "true_divide": "divide",
    "floor_divide": "floor_divide", "pow": "power", "power": "power", "fmod": "fmod",
    "remainder": "remainder", "mod": "remainder", "atan2": "arctan2", "arctan2": "arctan2",
    "eq": "equal", "equal": "equal", "ne": "not_equal", "not_equal": "not_equal",
    "lt": "less", "less": "less", "le": "less_equal", "less_equal": "less_equal",
    "gt": "greater", "greater": "greater", "ge": "greater_equal",
    "greater_equal": "greater_equal", "max": "maximum", "maximum": "maximum",
    "min": "minimum", "minimum": "minimum", "fmax": "fmax", "fmin": "fmin",
    "hypot": "hypot", "copysign": "copysign", "logaddexp": "logaddexp",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
}

COMPARISON_OPS = frozenset({
    "eq", "ne", "lt", "le", "gt", "ge", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_xor"})
TRUE_DIVISION_OPS = frozenset({"div", "divide", "true_divide"})
_NUMPY_NO_BOOL_LOOP = frozenset({"floor_divide", "pow", "power", "fmod", "remainder", "mod"})
FLOAT_OUTPUT_OPS = frozenset({"atan2", "arctan2", "hypot", "logaddexp", "copysign"})


SPELLINGS = {
    "float": "float64", "int": "int64", "bool": "bool", "complex": "complex128",
    "float16": "float16", "float32": "float32", "float64": "float64", "half": "float16",
    "double": "float64", "single": "float32", "long": "int64", "short": "int16",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "bool_": "bool",
    "bfloat16": "bfloat16", "complex64": "complex64", "complex128": "complex128",
    "cfloat": "complex64", "cdouble": "complex128", "float_": "float64", "intp": "int64",
}
"""The dtype a name stands for: a string (``dtype="float32"``), numpy's attributes
(``np.float32``, ``np.intp``) and Python's types (``dtype=float``: float64 in both libraries)."""

TORCH_ATTRIBUTES = dict(SPELLINGS, float="float32", int="int32")
"""torch's dtype attributes: ``torch.float`` is float32 and ``torch.int`` int32."""

TORCH_CONVERSION_METHODS = {"float": "float32", "double": "float64", "half": "float16",
                            "long": "int64", "int": "int32", "bool": "bool",
                            "bfloat16": "bfloat16", "short": "int16", "byte": "uint8",
                            "char": "int8"}
"""``Tensor.float()`` and friends: the dtype each converts to."""


def dtype_spelling(name: object) -> str | None:
    """The dtype a string argument names (``"float32"``, ``"float"``), or None."""
    if not isinstance(name, str):
        return None
    return SPELLINGS.get(name, name if name in _INFO else None)


def torch_dtype_name(dtype: str) -> str:
    """torch's name for a dtype in its messages: "float32" -> "Float"."""
    return _TORCH_NAMES[dtype]


def itemsize(dtype: str | None) -> int | None:
    """Bytes per element ("float32" -> 4, "complex64" -> 8), or None for an unknown dtype."""
    info = _INFO.get(dtype) if dtype is not None else None
    if info is None:
        return None
    return info[2] // 8 * (2 if info[1] == "c" else 1)


def category(dtype: str) -> int | None:
    """0 bool, 1 integer, 2 floating, 3 complex; weak scalars count as their kind."""
    weak = {"pybool": 0, "pyint": 1, "pyfloat": 2, "pycomplex": 3}
    if dtype in weak:
        return weak[dtype]
    info = _INFO.get(dtype)
    return None if info is None else info[0]


def _by(cat: int, kind: str, bits: int) -> str:
    for name, info in _INFO.items():
        if info == (cat, kind, bits) and name != "bfloat16":
            return name
    raise KeyError((cat, kind, bits))


# -- NumPy ------------------------------------------------------------------

def _numpy_min_float_bits(dtype: str) -> int:
    """Bits of the smallest float an integer (or bool) converts to safely."""
    cat, kind, bits = _INFO[dtype]
    if cat == 0:
        return 16
    if cat == 1:
        return {8: 16, 16: 32}.get(bits, 64)
    return bits


def numpy_promote_types(a: str, b: str) -> str:
    """np.promote_types for two NumPy dtypes."""
    if a == b:
        return a
    ca, ka, ba = _INFO[a]
    cb, kb, bb = _INFO[b]
    if ca == 0:
        return b
    if cb == 0:
        return a
    if ca == 1 and cb == 1:
        if ka == kb:
            return a if ba >= bb else b
        ubits, ibits = (ba, bb) if ka == "u" else (bb, ba)
        if ibits > ubits:
            return _by(1, "i", ibits)
        return _by(1, "i", 2 * ubits) if ubits < 64 else "float64"
    bits = max(_numpy_min_float_bits(a), _numpy_min_float_bits(b))
    if ca == 3 or cb == 3:
        return _by(3, "c", max(bits, 32))
    return _by(2, "f", bits)


_NUMPY_WEAK_DEFAULT = {"pybool": "bool", "pyint": "int64", "pyfloat": "float64",
                       "pycomplex": "complex128"}


def _numpy_result_type(a: str, b: str) -> str | None:
    """NEP 50: a Python scalar takes the array's dtype unless its kind is higher."""
    if a not in NUMPY_DTYPES | WEAK_SCALARS or b not in NUMPY_DTYPES | WEAK_SCALARS:
        return None
    weak_a, weak_b = a in WEAK_SCALARS, b in WEAK_SCALARS
    if weak_a and weak_b:
        return _NUMPY_WEAK_DEFAULT[a if category(a) >= category(b) else b]
    if not weak_a and not weak_b:
        return numpy_promote_types(a, b)
    weak, strong = (a, b) if weak_a else (b, a)
    if category(weak) <= category(strong):
        return strong
    if weak == "pycomplex" and category(strong) == 2:
        # The scalar keeps the array's precision: float32 + 1j -> complex64.
        return _by(3, "c", max(_INFO[strong][2], 32))
    return numpy_promote_types(strong, _NUMPY_WEAK_DEFAULT[weak])


# -- torch --------------------------------------------------------------------

def torch_promote_types(a: str, b: str) -> str:
    """torch.promote_types for two torch dtypes (uint16/32/64 excluded)."""
    if a == b:
        return a
    ca, ka, ba = _INFO[a]
    cb, kb, bb = _INFO[b]
    if ca == 0:
        return b
    if cb == 0:
        return a
    if ca == 1 and cb == 1:
        if ka == kb:
            return a if ba >= bb else b
        ubits, ibits = (ba, bb) if ka == "u" else (bb, ba)
        return _by(1, "i", max(ibits, 2 * ubits))
    if ca == 1:
        return b
    if cb == 1:
        return a
    # Two floating or complex types: half and bfloat16 meet at float32.
    bits = max(ba, bb)
    if {a, b} & {"bfloat16"} and bits == 16:
        bits = 32
    return _by(max(ca, cb), "c" if max(ca, cb) == 3 else "f", bits)


def _to_complex(dtype: str) -> str:
    bits = _INFO[dtype][2]
    return {16: "complex32", 32: "complex64", 64: "complex128"}[bits] if dtype != "bfloat16" \
        else "complex64"


def _torch_combine(higher: str | None, lower: str | None) -> str | None:
    """c10's combine_categories: a lower-priority operand matters only across categories."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if category(higher) == 3:
        return higher
    if category(lower) == 3:
        return _to_complex(higher) if category(higher) == 2 else lower
    if category(higher) == 2:
        return higher
    if higher == "bool" or category(lower) == 2:
        return torch_promote_types(higher, lower)
    return higher


_TORCH_WEAK_DEFAULT = {"pybool": "bool", "pyint": "int64", "pyfloat": "float32",
                       "pycomplex": "complex64"}


def _torch_result_type(dtypes: tuple[str, ...], ndims: tuple[int, ...]) -> str | None:
    dim = zero = wrapped = None
    for dtype, ndim in zip(dtypes, ndims):
        if dtype in WEAK_SCALARS:
            current = _TORCH_WEAK_DEFAULT[dtype]
            wrapped = current if wrapped is None else torch_promote_types(wrapped, current)
        elif ndim > 0:
            dim = dtype if dim is None else torch_promote_types(dim, dtype)
        else:
            zero = dtype if zero is None else torch_promote_types(zero, dtype)
    return _torch_combine(dim, _torch_combine(zero, wrapped))


def result_type(a: str | None, b: str | None, dialect: Dialect, a_ndim: int | None = 1,
                b_ndim: int | None = 1) -> str | None:
    """The dtype of a pointwise op on operands of dtypes a and b.

    a_ndim / b_ndim matter for torch (a 0-dim tensor only wins across
    categories) and for NumPy 1 (0-d arrays were value-based); None means
    unknown, and the answer is None if it would depend on it. They are
    ignored for weak Python scalars.
    """
    if a is None or b is None:
        return None
    if dialect.is_numpy:
        if dialect.legacy:
            return _numpy1_result_type(a, b, a_ndim, b_ndim)
        return _numpy_result_type(a, b)
    known = TORCH_DTYPES | WEAK_SCALARS
    if a not in known or b not in known:
        return None
    answers = set()
    for na in ((0, 1) if a_ndim is None else (a_ndim,)):
        for nb in ((0, 1) if b_ndim is None else (b_ndim,)):
            answers.add(_torch_result_type((a, b), (na, nb)))
    return answers.pop() if len(answers) == 1 else None


def result_type_of(operands: list[tuple[str | None, int | None]],
                   dialect: Dialect) -> str | None:
    """The promoted dtype of several operands, each (dtype, ndim): arrays promote together,
    Python scalars ("pyint", ...) are weak (NEP 50 in NumPy, torch's categories, where a
    0-dim tensor also counts only across categories). None when a dtype or ndim it needs is
    unknown."""
    if any(d is None for d, _ in operands):
        return None
    if dialect.is_numpy:
        if dialect.legacy and len(operands) > 2:
            return None
        strong = [d for d, _ in operands if d not in WEAK_SCALARS]
        weak = [d for d, _ in operands if d in WEAK_SCALARS]
        out = strong[0] if strong else None
        for d in strong[1:]:
            if d not in NUMPY_DTYPES or out not in NUMPY_DTYPES:
                return None
            out = numpy_promote_types(out, d)
        for d in weak:
            out = d if out is None else _numpy_result_type(out, d)
            if out is None:
                return None
        return _NUMPY_WEAK_DEFAULT.get(out, out) if out is not None else None
    known = TORCH_DTYPES | WEAK_SCALARS
    if any(d not in known for d, _ in operands) or any(
            n is None for d, n in operands if d not in WEAK_SCALARS):
        return None
    return _torch_result_type(tuple(d for d, _ in operands),
                              tuple(n or 0 for _, n in operands))


def _numpy1_result_type(a: str, b: str, a_ndim: int | None, b_ndim: int | None) -> str | None:
    """NumPy 1 looked at the values of scalars and 0-d arrays; without values only
    two arrays (or two scalars) have a certain result."""
    scalar_a = a in WEAK_SCALARS or a_ndim == 0
    scalar_b = b in WEAK_SCALARS or b_ndim == 0
    if a_ndim is None and a not in WEAK_SCALARS or b_ndim is None and b not in WEAK_SCALARS:
        return None
    if scalar_a == scalar_b:
        return _numpy_result_type(a, b)
    return None


def op_result_type(op: str, a: str | None, b: str | None, dialect: Dialect,
                   a_ndim: int | None = 1, b_ndim: int | None = 1,
                   exponent: object = None) -> str | None:
    """The dtype a binary pointwise op produces: comparisons give bool, true
    division and float-only ops give a float for integer inputs.

    ``exponent`` is the Python number on the right of NumPy's ``**`` operator (``op`` "pow";
    ``np.power`` is "power"): ``bool_array ** 2`` runs as ``np.square``, which has no bool
    loop, so it gives int8 where ``np.power`` gives int64 (None: the exponent is not known).
    """
    if op in COMPARISON_OPS:
        return "bool"
    if dialect.is_numpy and op == "pow" and a == "bool" and b == "pyint":
        if exponent is None:
            return None
        return "int8" if exponent == 2 else "int64"
    common = result_type(a, b, dialect, a_ndim, b_ndim)
    if common is None or category(common) >= 2:
        return common
    if common == "bool" and dialect.is_numpy and op in _NUMPY_NO_BOOL_LOOP:
        return "int8"  # these ufuncs have no bool loop; int8 is the first that fits
    if op in TRUE_DIVISION_OPS:
        return "float64" if dialect.is_numpy else "float32"
    if op in FLOAT_OUTPUT_OPS:
        if dialect.is_torch:
            return "float32"
        # NumPy picks the first float loop every integer input casts to safely
        # (int16 and uint16 meet at float32, though they promote to int32).
        inputs = [common if d in WEAK_SCALARS else d for d in (a, b)]
        return _by(2, "f", max(_numpy_min_float_bits(d) for d in inputs))
    return common


# -- unary element-wise ops --------------------------------------------------

_NUMPY_NO_BOOL_UNARY = frozenset({"negative", "positive", "sign"})


def numpy_unary_dtype(op: str, dtype: str | None) -> str | None:
    """The dtype a NumPy unary ufunc computes in: the first of its loops the input casts to
    safely (NumPy's own resolution, read from ``np.<op>.types``); None when ``op`` is no such
    ufunc or the dtype is unknown. Raises the library's error when no loop takes the input."""
    import numpy as np

    if op in ("round", "around", "nan_to_num") and dtype in NUMPY_DTYPES:
        return "float16" if dtype == "bool" and op != "nan_to_num" else dtype  # no ufuncs
    if op == "sinc" and dtype in NUMPY_DTYPES:  # pi * x, then sin: a float64 at least
        return dtype if (category(dtype) or 0) >= 2 else "float64"
    ufunc = getattr(np, op, None)
    if dtype is None or dtype not in NUMPY_DTYPES or not isinstance(ufunc, np.ufunc) or \
            ufunc.nin != 1 or op == "isnat":
        return None
    if dtype == "bool" and op in _NUMPY_NO_BOOL_UNARY:
        if op == "negative":
            raise ShapeError("dtype", "The numpy boolean negative, the `-` operator, is not "
                             "supported, use the `~` operator or the logical_not function "
                             "instead.", "TypeError")
        raise ShapeError("dtype", f"ufunc '{op}' did not contain a loop with signature matching "
                         "types <class 'numpy.dtypes.BoolDType'> -> None", "UFuncTypeError")
    source = np.dtype(dtype)
    for loop in ufunc.types:
        inputs, output = loop.split("->")
        if len(inputs) == 1 and inputs not in "OMm" and np.can_cast(source, inputs, "safe"):
            return np.dtype(output[0]).name
    raise ShapeError("dtype", f"ufunc '{ufunc.__name__}' not supported for the input types, "
                     "and the inputs could not be safely coerced to any supported types "
                     "according to the casting rule ''safe''", "TypeError")


_TORCH_TO_FLOAT = frozenset({
    "sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan",
    "arcsin", "arccos", "arctan", "exp2", "expm1", "log1p", "log2", "log10", "sigmoid", "rsqrt",
    "erf", "reciprocal", "deg2rad", "rad2deg", "sinc", "angle", "asinh", "acosh", "atanh"})
_TORCH_NO_BOOL = frozenset({"abs", "absolute", "neg", "negative", "positive", "floor", "ceil",
                            "trunc", "round", "fix", "relu", "frac"})
# angle of an integer or bool is a float; of a float, a float of its own width (0 or pi).
_TORCH_PREDICATES = frozenset({"logical_not", "isnan", "isfinite", "isinf", "signbit"})
_TORCH_NO_COMPLEX = frozenset({"erf", "deg2rad", "rad2deg", "floor", "ceil", "trunc", "round",
                               "fix", "relu", "sign", "frac", "signbit"})
_TORCH_REAL_OF_COMPLEX = frozenset({"abs", "absolute", "angle", "real"})
_TORCH_INTEGRAL_ONLY = frozenset({"bitwise_not"})
_TORCH_FLOAT_ONLY = frozenset({"frac"})
_TORCH_KEEP = _TORCH_NO_BOOL | frozenset({"sign", "sgn", "conj", "nan_to_num", "real", "square",
                                         "bitwise_not"})
_TORCH_BOOL_REFUSALS = {
    "neg": "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
           "to invert a mask, use the `~` or `logical_not()` operator instead.",
    "positive": "The `+` operator, on a bool tensor is not supported.",
    "relu": "Boolean inputs not supported for relu"}
_TORCH_BOOL_REFUSALS["negative"] = _TORCH_BOOL_REFUSALS["neg"]
TORCH_UNARY_OPS = _TORCH_TO_FLOAT | _TORCH_KEEP | _TORCH_PREDICATES
"""The torch unary ops whose result dtype ``torch_unary_dtype`` knows."""


def torch_unary_dtype(op: str, dtype: str | None) -> str | None:
    """The dtype of a torch unary op: math functions compute integers and bools in the default
    float (float32); the rest keep the dtype (square makes a bool int64), predicates give bool,
    and a complex input's abs or angle is real. Raises torch's refusal of a dtype; None when
    the op or the dtype is unknown."""
    if dtype is None or dtype not in TORCH_DTYPES or op not in TORCH_UNARY_OPS:
        return None
    cat = category(dtype)
    kernel = f"\"{op}_cpu\" not implemented for '{torch_dtype_name(dtype)}'"
    if dtype == "bool" and op in _TORCH_BOOL_REFUSALS:
        raise ShapeError("dtype", _TORCH_BOOL_REFUSALS[op], "RuntimeError")
    if (dtype == "bool" and op in _TORCH_NO_BOOL) or (cat == 3 and op in _TORCH_NO_COMPLEX) or (
            cat >= 2 and op in _TORCH_INTEGRAL_ONLY) or (cat <= 1 and op in _TORCH_FLOAT_ONLY):
        raise ShapeError("dtype", kernel, "NotImplementedError")
    if op in _TORCH_PREDICATES:
        return "bool"
    if cat == 3 and op in _TORCH_REAL_OF_COMPLEX:
        return {"complex32": "float16", "complex64": "float32"}.get(dtype, "float64")
    if op in _TORCH_TO_FLOAT and cat <= 1:
        return "float32"
    if op == "square" and dtype == "bool":
        return "int64"
    return dtype


# -- reductions ---------------------------------------------------------------

@functools.cache
def numpy_reduction_dtype(op: str, dtype: str | None) -> str | None:
    """The dtype ``np.<op>`` (sum, mean, std, amax, any, ...) gives an array of ``dtype``, as
    NumPy answers for a one-element array (sums of small integers widen, means of integers are
    float64, a complex variance is real); None when NumPy refuses it or it is unknown."""
    import warnings

    import numpy as np

    if dtype is None or dtype not in NUMPY_DTYPES or not callable(getattr(np, op, None)):
        return None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            value = getattr(np, op)(np.ones((1,), dtype=dtype))
    except Exception:  # refused (ptp of bools): the rule decides what is certain
        return None
    return np.asarray(value).dtype.name


_TORCH_TOTALS = frozenset({"sum", "prod", "nansum", "cumsum", "cumprod"})
_TORCH_FLOAT_REDUCTIONS = frozenset({"mean", "nanmean", "std", "var", "norm"})
_TORCH_REAL_REDUCTIONS = frozenset({"std", "var", "norm"})
_TORCH_ORDERED = frozenset({"amax", "amin", "max", "min", "median", "aminmax"})


def torch_reduction_dtype(op: str, dtype: str | None, given: str | None = None) -> str | None:
    """The dtype of a torch reduction: totals of integers and bools are int64; means, standard
    deviations and norms take floats only (dtype= may ask for one); ``any``/``all`` give bool
    (uint8 for uint8); extremes keep the dtype; logsumexp computes integers in float32.
    Raises torch's refusal; None when unknown."""
    if given is not None and op in _TORCH_FLOAT_REDUCTIONS and (category(given) or 0) <= 1:
        raise ShapeError("dtype", f"{op}(): could not infer output dtype. Optional dtype must be "
                         f"either a floating point or complex dtype. Got: "
                         f"{torch_dtype_name(given)}", "RuntimeError")
    if given is not None:
        return given
    if dtype is None or dtype not in TORCH_DTYPES:
        return None
    cat = category(dtype)
    if op in _TORCH_FLOAT_REDUCTIONS and cat <= 1:
        if op in ("std", "var"):
            message = "std and var only support floating point and complex dtypes"
        else:
            message = (f"{op}(): could not infer output dtype. Input dtype must be either a "
                       f"floating point or complex dtype. Got: {torch_dtype_name(dtype)}")
        raise ShapeError("dtype", message, "RuntimeError")
    if cat == 3 and (op in _TORCH_ORDERED or op in ("nansum", "nanmean")):
        raise ShapeError("dtype", f"{op}(): does not support complex input",
                         "RuntimeError" if op != "median" else "NotImplementedError")
    if op == "median" and dtype == "bool":
        raise ShapeError("dtype", "\"median_out\" not implemented for 'Bool'",
                         "NotImplementedError")
    if op in _TORCH_TOTALS:
        return "int64" if cat <= 1 else dtype
    if op in ("any", "all"):
        return "uint8" if dtype == "uint8" else "bool"
    if op == "logsumexp":
        return "float32" if cat <= 1 else dtype
    if op == "count_nonzero":
        return "int64"
    if cat == 3 and op in _TORCH_REAL_REDUCTIONS:
        return {"complex32": "float16", "complex64": "float32"}.get(dtype, "float64")
    return dtype


def can_cast_inplace(result: str | None, target: str | None, dialect: Dialect) -> bool | None:
    """May a result of dtype ``result`` be written into an array of dtype ``target``?

    NumPy uses casting="same_kind" (kinds ordered bool < unsigned < signed <
    float < complex); torch forbids complex->real, float->integer, and
    anything->bool except bool.
    """
    if result is None or target is None or result not in _INFO or target not in _INFO:
        return None
    if result in WEAK_SCALARS or target in WEAK_SCALARS:
        return None
    if dialect.is_numpy:
        order = "buifc"
        return order.index(_INFO[result][1]) <= order.index(_INFO[target][1])
    rc, tc = _INFO[result][0], _INFO[target][0]
    if rc == 3 and tc != 3:
        return False
    if rc == 2 and tc <= 1:
        return False
    if result != "bool" and target == "bool":
        return False
    return True


def inplace_dtype(target_dtype: str | None, result_dtype: str | None, *, op: str,
                  dialect: Dialect) -> None:
    """Raise the library's own error when an in-place op (or out=) cannot store its result."""
    if can_cast_inplace(result_dtype, target_dtype, dialect) is not False:
        return
    assert result_dtype is not None and target_dtype is not None
    if dialect.is_numpy:
        ufunc = _UFUNC_NAMES.get(op.rstrip("_"), op.rstrip("_"))
        raise ShapeError(
            "dtype",
            f"Cannot cast ufunc '{ufunc}' output from dtype('{result_dtype}') to "
            f"dtype('{target_dtype}') with casting rule 'same_kind'",
            "UFuncTypeError")
    raise ShapeError(
        "dtype",
        f"result type {torch_dtype_name(result_dtype)} can't be cast to the desired output "
        f"type {torch_dtype_name(target_dtype)}",
        "RuntimeError")


__all__ = [
    "WEAK_SCALARS", "NUMPY_DTYPES", "TORCH_DTYPES", "COMPARISON_OPS", "torch_dtype_name",
    "category", "numpy_promote_types", "torch_promote_types", "result_type", "result_type_of",
    "op_result_type", "can_cast_inplace", "inplace_dtype", "numpy_unary_dtype",
    "torch_unary_dtype", "TORCH_UNARY_OPS", "numpy_reduction_dtype", "torch_reduction_dtype",
]
