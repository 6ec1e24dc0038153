"""Arrays made by creation functions (zeros, arange, array literals, random)."""

from __future__ import annotations

from dataclasses import replace

from ...runtime.dims import UNKNOWN, eq, sub
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    ConstValue,
    IntValue,
    TupleValue,
    Value,
    dims_of,
)
from .names import CREATION_KWARGS, CREATORS
from .operands import dtype_from, literal_shape


def _size_args(args: list, kwargs: dict, varargs: bool) -> tuple | None:
    """The shape a creation call's size arguments give: ``(2, 3)``, ``[2, 3]``, ``2, 3``, ``n``."""
    if "size" in kwargs and not args:
        return dims_of(kwargs["size"])
    if "shape" in kwargs and not args:
        return dims_of(kwargs["shape"])
    if not args:
        return None
    if len(args) == 1:
        return dims_of(args[0])
    if varargs and all(isinstance(a, IntValue) for a in args):
        return tuple(a.value for a in args)
    return dims_of(args[0]) if not varargs else None


def _arange_shape(args: list) -> tuple | None:
    if not args or not all(isinstance(a, IntValue) for a in args):
        if len(args) == 1 and isinstance(args[0], ConstValue) and isinstance(args[0].value, float):
            import math
            return (max(0, math.ceil(args[0].value)),)
        return None
    values = [a.value for a in args]
    if len(values) == 1:
        return (values[0],)
    if all(isinstance(v, int) for v in values):
        return (len(range(*values[:3])),)
    if len(values) == 2:
        return (sub(values[1], values[0]),) if eq(values[0], 0) is True else (UNKNOWN,)
    return (UNKNOWN,)


def _arange_dtype(args: list, kwargs: dict, torch: bool, default_float: str) -> str | None:
    values = list(args) + [kwargs[k] for k in ("start", "end", "stop", "step") if k in kwargs]
    if values and all(isinstance(a, IntValue) for a in values):
        return "int64"
    if any(isinstance(a, ConstValue) and isinstance(a.value, float) for a in values):
        return default_float
    return None


class Creation:
    def create(self, node, library: str, name: str, args: list, kwargs: dict,
               generator: bool = False) -> Value | None:
        """Arrays made by creation functions: shape from size arguments or literal nesting."""
        torch = library == "torch"
        origin = self.origin(node)
        default_float = "float32" if torch else "float64"
        dtype = dtype_from(kwargs.get("dtype"), library) if "dtype" in kwargs else None
        if ("dtype" in kwargs and dtype is None) or set(kwargs) - CREATION_KWARGS:
            # Object, structured or string dtypes, ndmin=...: shapes we do not model.
            if name in CREATORS or name.startswith("random.") or generator:
                return AbstractArray(None, None, library, origin)
            return None
        grad = isinstance(kwargs.get("requires_grad"), ConstValue) and kwargs["requires_grad"].value is True

        def make(shape, default_dtype=default_float) -> AbstractArray:
            return AbstractArray(shape=None if shape is None else tuple(shape),
                                 dtype=dtype or default_dtype, library=library, origin=origin,
                                 requires_grad=grad)

        positional_dtype = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1,
                            "arange": None}.get(name) if not torch else None
        if positional_dtype is not None and len(args) > positional_dtype:
            dtype = dtype_from(args[positional_dtype], library)
            if dtype is None:
                return AbstractArray(None, None, library, origin)
            args = list(args[:positional_dtype])
        if name in ("zeros", "ones", "empty", "rand", "randn") and not (
                name in ("rand", "randn") and not torch):
            return make(_size_args(args, kwargs, torch))
        if name in ("random.rand", "random.randn") and not generator:
            return make(_size_args(args, {}, True))
        if name == "full":
            fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
            default = "int64" if isinstance(fill, IntValue) else (
                "bool" if isinstance(fill, ConstValue) and isinstance(fill.value, bool) else default_float)
            return make(_size_args(args[:1], kwargs, False), default)
        if name in ("eye", "identity"):
            n = args[0] if args else kwargs.get("N", kwargs.get("n"))
            m = args[1] if len(args) > 1 and name == "eye" else kwargs.get("M", kwargs.get("m", n))
            if isinstance(n, IntValue) and isinstance(m, IntValue):
                return make((n.value, m.value))
            return make(None)
        if name == "arange":
            return make(_arange_shape(args), _arange_dtype(args, kwargs, torch, default_float))
        if name in ("linspace", "logspace"):
            num = args[2] if len(args) > 2 else kwargs.get("num", kwargs.get("steps",
                                                                                IntValue(50) if not torch else None))
            return make((num.value,) if isinstance(num, IntValue) else None)
        if name in ("array", "asarray", "tensor", "as_tensor", "asanyarray", "ascontiguousarray",
                    "from_numpy", "asfortranarray", "copy"):
            if not args:
                return None
            source = args[0]
            if isinstance(source, AbstractArray):
                return replace(source, library=library, origin=origin, dtype=dtype or source.dtype,
                               alias=None, requires_grad=grad)
            shape, kind = literal_shape(source)
            if shape is None:
                return make(None, None)
            default = {"int": "int64", "float": default_float, "bool": "bool"}.get(kind)
            return make(shape, default)
        if name.endswith("_like") and name[:-5] in ("zeros", "ones", "empty", "full", "rand",
                                                     "randn", "randint"):
            source = args[0] if args else kwargs.get("input", kwargs.get("a"))
            if isinstance(source, AbstractArray):
                return AbstractArray(source.shape, dtype or source.dtype, library, origin,
                                     tail=source.tail, requires_grad=grad)
            return None
        if generator or name.startswith("random."):
            short = name.split(".", 1)[1] if "." in name else name
            size = kwargs.get("size")
            positions = {"normal": 2, "uniform": 2, "randint": 2, "integers": 2, "random": 0,
                         "random_sample": 0, "standard_normal": 0, "rand": None, "randn": None,
                         "poisson": 1, "binomial": 2, "exponential": 1, "choice": 1,
                         "permutation": None, "beta": 2, "gamma": 2, "laplace": 2}
            if short not in positions:
                return None
            if short in ("randint", "integers"):
                default = "int64"
            else:
                default = "float64"
            if short in ("rand", "randn") and generator:
                return None
            position = positions[short]
            if size is None and position is not None and len(args) > position:
                size = args[position]
            if size is None or isinstance(size, ConstValue) and size.value is None:
                return UNKNOWN_VALUE  # a scalar
            dims = dims_of(size)
            return make(dims, default)
        if torch and name == "randint":
            size = kwargs.get("size")
            if size is None:
                tuples = [a for a in args if isinstance(a, TupleValue)]
                size = tuples[0] if tuples else None
            return make(dims_of(size) if size is not None else None, "int64")
        return None
