"""More drawn families: views by layout, softmax, padding, repeat_interleave, NaN-aware
statistics, random constructors, dunder calls and ``out=``; and FAMILIES, every family the
harness draws (these and differential_cases.py's).

Each family draws an expression tree the way differential_cases.py does (the same nodes, the
same Pick), so the real library and the calculator judge one case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from differential_cases import (
    _OMIT,
    FLOATS,
    A,
    Case,
    F,
    I,
    Input,
    L,
    M,
    P,
    Pick,
    Steps,
    V,
    axis,
    boolean,
    kw,
    maybe,
    one_input,
    prefix,
    shape,
)
from differential_cases import (
    FAMILIES as _FIRST_FAMILIES,
)
from differential_more import FAMILIES as _MORE_FAMILIES


def view_layout(p: Pick) -> Case:
    """``.view`` after an op that changes strides: torch decides by the layout, not the shape."""
    inputs = {"x": Input(shape(p, 1, 3, (1, 2, 3, 4)), p.choice(FLOATS))}
    s = inputs["x"].shape
    x, rank = V("x"), len(s)
    how = p.choice(["t", "transpose", "permute", "expand", "step", "narrow", "mT", "plain"])
    base: Any = x
    out = s
    if how == "t" and rank <= 2:
        base, out = M(x, "t"), tuple(reversed(s))
    elif how == "transpose" and rank >= 2:
        a, b = p.int(0, rank - 1), p.int(0, rank - 1)
        order = list(range(rank))
        order[a], order[b] = order[b], order[a]
        base, out = M(x, "transpose", (L(a), L(b))), tuple(s[i] for i in order)
    elif how == "permute":
        order = list(range(rank))
        for i in range(rank - 1, 0, -1):
            j = p.int(0, i)
            order[i], order[j] = order[j], order[i]
        base, out = M(x, "permute", tuple(L(i) for i in order)), tuple(s[i] for i in order)
    elif how == "expand":
        out = (p.choice([1, 2, 3]),) + tuple(p.choice([n, n, 2]) if n == 1 else n for n in s)
        base = M(M(x, "unsqueeze", (L(0),)), "expand", tuple(L(n) for n in out))
    elif how == "step":
        d = p.int(0, rank - 1)
        step = p.choice([2, 3])
        base = I(x, Steps(d, step))
        out = tuple(-(-n // step) if i == d else n for i, n in enumerate(s))
    elif how == "narrow":
        d = p.int(0, rank - 1)
        length = p.int(0, s[d] - 1) if s[d] > 1 else 1
        base = M(x, "narrow", (L(d), L(s[d] - length), L(length)))
        out = tuple(length if i == d else n for i, n in enumerate(s))
    elif how == "mT" and rank >= 2:
        base, out = A(x, "mT"), s[:-2] + (s[-1], s[-2])
    return Case("view_layout", "torch", M(base, "view", _view_sizes(p, out)), inputs)


def _view_sizes(p: Pick, out: tuple) -> tuple:
    numel = 1
    for n in out:
        numel *= n
    how = p.int(0, 5)
    if how == 0:
        return (L(-1),)
    if how == 1:
        return (L(numel),)
    if how == 2:  # merge two neighbours
        if len(out) >= 2:
            i = p.int(0, len(out) - 2)
            return tuple(L(n) for n in out[:i] + (out[i] * out[i + 1],) + out[i + 2:])
        return tuple(L(n) for n in out)
    if how == 3:  # split one dim
        i = p.int(0, max(len(out) - 1, 0))
        if out and out[i] % 2 == 0:
            return tuple(L(n) for n in out[:i] + (2, out[i] // 2) + out[i + 1:])
        return tuple(L(n) for n in out) + (L(1),)
    if how == 4:
        return (L(-1), L(out[-1])) if out and out[-1] else (L(-1),)
    return (L(numel + 1),)  # no such view: a size error whatever the layout


def softmax(p: Pick) -> Case:
    """softmax / log_softmax with a dim sometimes out of range, a dtype now and then."""
    inputs = one_input(p, "torch", 0, 3, FLOATS + ("float16",))
    rank = len(inputs["x"].shape)
    x, op, d = V("x"), p.choice(["softmax", "log_softmax"]), axis(p, rank)
    dtype = maybe(p, P(f"torch.{p.choice(['float32', 'float64'])}"))
    how = p.int(0, 2)
    if how == 0:
        expr = F(f"torch.{op}", (x, L(d)), kw(dtype=dtype))
    elif how == 1:
        expr = F(f"F.{op}", (x,), kw(dim=d, dtype=dtype))
    else:
        expr = M(x, op, (L(d),), kw(dtype=dtype))
    return Case("softmax", "torch", expr, inputs)


def pad(p: Pick) -> Case:
    """np.pad and F.pad: widths as an int, a pair or one pair per axis; every mode."""
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0 if library == "numpy" else 1, 4, FLOATS)
    s = inputs["x"].shape
    rank, x = len(s), V("x")
    if library == "numpy":
        mode = maybe(p, p.choice(["constant", "edge", "reflect", "symmetric", "wrap", "maximum",
                                  "mean", "linear_ramp", "empty"]))
        how = p.int(0, 3)
        if how == 0:
            width: Any = p.int(0, 3)
        elif how == 1:
            width = (p.int(0, 3), p.int(0, 3))
        elif how == 2:
            width = tuple((p.int(0, 3), p.int(0, 3)) for _ in range(rank + (p.int(0, 6) == 0)))
        else:
            width = ((p.int(0, 3), p.int(0, 3)),)
        return Case("pad", library, F("np.pad", (x, L(width)), kw(mode=mode)), inputs)
    mode = p.choice(["constant", "constant", "reflect", "replicate", "circular"])
    count = p.int(1, min(rank, 3) + (p.int(0, 5) == 0))
    widths = tuple(p.int(0, 3) if p.int(0, 5) else -1 for _ in range(2 * count))
    kwargs = kw(mode=mode if mode != "constant" or boolean(p) else _OMIT)
    if mode == "constant":
        kwargs += kw(value=maybe(p, 0.5))
    return Case("pad", library, F("F.pad", (x, L(widths)), kwargs), inputs)


def repeat_interleave(p: Pick) -> Case:
    """torch repeat_interleave: int or tensor repeats, a dim or none (flattens), output_size."""
    inputs = one_input(p, "torch", 0, 3, FLOATS + ("int64",))
    s = inputs["x"].shape
    rank, x = len(s), V("x")
    d = maybe(p, axis(p, rank))
    if boolean(p):
        repeats: Any = L(p.int(0, 3))
    else:
        size = s[d] if d is not _OMIT and -rank <= d < rank else max(1, len(s) and s[0])
        inputs["r"] = Input((p.choice([size, size, 1, 2]),), "int64", "index")
        repeats = V("r")
    kwargs = kw(dim=d, output_size=maybe(p, p.int(0, 6)))
    how = p.int(0, 3)
    if how == 0 and isinstance(repeats, V):
        return Case("repeat_interleave", "torch", F("torch.repeat_interleave", (repeats,)),
                    inputs)
    expr = F("torch.repeat_interleave", (x, repeats), kwargs) if how < 2 \
        else M(x, "repeat_interleave", (repeats,), kwargs)
    return Case("repeat_interleave", "torch", expr, inputs)


_NUMPY_STATS = ("quantile", "nanquantile", "percentile", "nanpercentile", "median", "nanmedian",
                "nanmean", "nansum", "nanprod", "nanstd", "nanvar", "nanmax", "nanmin",
                "nanargmax", "nanargmin", "nancumsum")
_TORCH_STATS = ("quantile", "nanquantile", "median", "nanmedian", "nanmean", "nansum")


def nan_statistics(p: Pick) -> Case:
    """Quantiles, medians and the NaN-ignoring reductions, with an axis and keepdims."""
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS + ("int32", "int64", "float16"))
    rank, x = len(inputs["x"].shape), V("x")
    d = maybe(p, axis(p, rank) if boolean(p) or rank < 2 else (0, rank - 1))
    if library == "numpy":
        op = p.choice(_NUMPY_STATS)
        args: tuple = (x,)
        if "quantile" in op or "percentile" in op:
            top = 100 if "percentile" in op else 1
            q = p.choice([0.5 * top, [0.25 * top, 0.75 * top], 0.1 * top])
            args += (L(q),)
        if op in ("nanargmax", "nanargmin", "nancumsum"):
            d = d if not isinstance(d, tuple) else _OMIT
            kwargs = kw(axis=d) + (kw(keepdims=maybe(p, boolean(p))) if op != "nancumsum" else ())
        else:
            kwargs = kw(axis=d, keepdims=maybe(p, boolean(p)))
        return Case("nan_statistics", library, F(f"np.{op}", args, kwargs), inputs)
    op = p.choice(_TORCH_STATS)
    args = (x,)
    if "quantile" in op:
        args += (L(p.choice([0.5, 0.1])),)
        d = d if not isinstance(d, tuple) else _OMIT
    elif op in ("median", "nanmedian"):
        if d is not _OMIT:  # median(dim) is a (values, indices) pair: multi_output draws it
            d = _OMIT
        return Case("nan_statistics", library, F(f"torch.{op}", args) if boolean(p)
                    else M(x, op), inputs)
    kwargs = kw(dim=d, keepdim=maybe(p, boolean(p)))
    expr = F(f"torch.{op}", args, kwargs) if boolean(p) else M(x, op, args[1:], kwargs)
    return Case("nan_statistics", library, expr, inputs)


def random(p: Pick) -> Case:
    """Random constructors with sizes: np.random, a Generator's methods, torch's."""
    library = p.choice(["numpy", "numpy", "torch"])
    sizes = shape(p, 0, 3)
    size: Any = sizes if boolean(p) or not sizes else sizes[0]
    if library == "numpy":
        op = p.choice(["rand", "randn", "normal", "uniform", "randint", "choice", "random",
                       "standard_normal", "generator"])
        if op in ("rand", "randn"):
            return Case("random", library, F(f"np.random.{op}", tuple(L(n) for n in sizes)), {})
        if op == "generator":
            method = p.choice(["normal", "uniform", "integers", "random", "standard_normal",
                               "choice"])
            args = {"integers": (L(0), L(5)), "choice": (L(5),), "normal": (L(0.0), L(1.0)),
                    "uniform": (L(0.0), L(1.0))}.get(method, ())
            rng = F("np.random.default_rng", (L(0),))
            return Case("random", library, M(rng, method, args, kw(size=size)), {})
        args = {"randint": (L(0), L(5)), "choice": (L(5),), "normal": (L(0.0), L(1.0)),
                "uniform": (L(0.0), L(1.0))}.get(op, ())
        return Case("random", library, F(f"np.random.{op}", args, kw(size=size)), {})
    op = p.choice(["randn", "rand", "randint", "normal", "randn_like", "rand_like"])
    dtype = maybe(p, P(f"torch.{p.choice(['float64', 'float32'])}"))
    if op in ("randn", "rand"):
        args = tuple(L(n) for n in sizes) if boolean(p) else (L(sizes),)
        return Case("random", library, F(f"torch.{op}", args, kw(dtype=dtype)), {})
    if op == "randint":
        return Case("random", library, F("torch.randint", (L(0), L(5), L(sizes))), {})
    if op == "normal":
        return Case("random", library, F("torch.normal", (L(0.0), L(1.0), L(sizes))), {})
    inputs = one_input(p, library, 0, 3, FLOATS)
    return Case("random", library, F(f"torch.{op}", (V("x"),), kw(dtype=dtype)), inputs)


_DUNDERS = ("__add__", "__sub__", "__mul__", "__truediv__", "__matmul__", "__radd__",
            "__rsub__", "__pow__", "__lt__", "__eq__", "__and__", "__floordiv__", "__mod__",
            "__neg__", "__abs__", "__getitem__")


def dunders(p: Pick) -> Case:
    """``x.__add__(y)`` and its siblings: the operator they stand for."""
    library = p.choice(["numpy", "torch"])
    dtypes = ("float32", "float64", "int64", "bool")
    a = shape(p, 0, 3)
    b = a[p.int(0, len(a)):] if boolean(p) else shape(p, 0, 3)
    inputs = {"x": Input(a, p.choice(dtypes)), "y": Input(b, p.choice(dtypes))}
    op = p.choice(_DUNDERS)
    x = V("x")
    if op in ("__neg__", "__abs__"):
        return Case("dunders", library, M(x, op), inputs)
    if op == "__getitem__":
        key = L(p.choice([0, -1, 1, 3]) if a else ())
        return Case("dunders", library, M(x, op, (key,)), inputs)
    other = V("y") if boolean(p) else L(p.choice([2, 2.5, True]))
    if op == "__matmul__":
        other = V("y")
    return Case("dunders", library, M(x, op, (other,)), inputs)


def out_argument(p: Pick) -> Case:
    """``out=``: torch resizes a wrong-shaped out (with a warning); NumPy's ufuncs refuse it."""
    library = p.choice(["numpy", "torch"])
    a = shape(p, 0, 3)
    b = a[p.int(0, len(a)):] if boolean(p) else a
    result = a
    target = p.choice([result, result, shape(p, 0, 3), (0,), result[1:]])
    dtype = p.choice(FLOATS)
    inputs = {"x": Input(a, dtype), "y": Input(b, dtype), "o": Input(target, dtype)}
    x, y, o = V("x"), V("y"), V("o")
    pre = prefix(library)
    op = p.choice(["add", "multiply", "matmul", "sum", "exp"])
    if op == "matmul":
        inputs["y"] = Input(a[::-1], dtype)
    if op == "sum":
        rank = len(a)
        d = axis(p, rank) if rank else None
        name = "axis" if library == "numpy" else "dim"
        if library == "torch" and d is None:
            return Case("out_argument", library, F("torch.exp", (x,), kw(out=o)), inputs)
        return Case("out_argument", library, F(f"{pre}.sum", (x,), kw(**{name: d, "out": o})),
                    inputs)
    if op == "exp":
        return Case("out_argument", library, F(f"{pre}.exp", (x,), kw(out=o)), inputs)
    if library == "torch" and op == "multiply":
        op = p.choice(["mul", "multiply"])
    return Case("out_argument", library, F(f"{pre}.{op}", (x, y), kw(out=o)), inputs)


FAMILIES: dict[str, Callable[[Pick], Case]] = {
    **_FIRST_FAMILIES,
    "view_layout": view_layout, "softmax": softmax, "pad": pad,
    "repeat_interleave": repeat_interleave, "nan_statistics": nan_statistics, "random": random,
    "dunders": dunders, "out_argument": out_argument, **_MORE_FAMILIES,
}
