"""Dtype promotion and in-place casting rules of NumPy (NEP 50) and PyTorch, on dtype names.

Dtypes are NumPy-spelled strings ("int64", "float32", ...; "bfloat16" and
"complex32" exist only in torch). Python scalars are weak and spelled
"pybool", "pyint", "pyfloat", "pycomplex". Every function answers None when
the answer depends on something unknown (an unknown dtype or operand ndim, a
value NumPy 1 would have inspected).
"""

from __future__ import annotations

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
    "category", "numpy_promote_types", "torch_promote_types", "result_type",
    "op_result_type", "can_cast_inplace", "inplace_dtype",
]
