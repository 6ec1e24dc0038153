"""Still more drawn families: clamp, einsum in every form, indexing with literal keys,
repetition, augmented assignment, ranges, least squares, element-wise and reduction dtypes,
``out=`` of NumPy's non-ufunc functions, and the random constructors with values as
arguments.

Each family draws an expression tree the way differential_cases.py does (the same nodes, the
same Pick), so the real library and the calculator judge one case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from differential_cases import (
    _OMIT,
    ALL_DTYPES,
    FLOATS,
    A,
    Aug,
    B,
    Case,
    F,
    I,
    Input,
    L,
    M,
    P,
    Pick,
    Seq,
    Then,
    V,
    axis,
    boolean,
    kw,
    maybe,
    one_input,
    prefix,
    shape,
)

NUMBERS = ("int32", "int64", "float32", "float64")


def _near(p: Pick, s: tuple) -> tuple:
    """A shape that broadcasts with s most of the time: a suffix of it, with some dims 1."""
    if p.int(0, 5) == 0:
        return shape(p, 0, 3)
    tail = s[p.int(0, len(s)):]
    return tuple(1 if boolean(p) and p.int(0, 2) == 0 else n for n in tail)


def clamp(p: Pick) -> Case:
    """clip / clamp with scalar, array or missing bounds, positional or by keyword."""
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, NUMBERS)
    s, x = inputs["x"].shape, V("x")

    def bound(name: str) -> Any:
        how = p.int(0, 4)
        if how == 0:
            return L(None)
        if how <= 2:
            return L(p.choice([0, 1, -1, 0.5, 2.5]))
        inputs[name] = Input(_near(p, s), p.choice(NUMBERS))
        return V(name)

    lo, hi = bound("lo"), bound("hi")
    if library == "numpy":
        how = p.int(0, 2)
        if how == 0:
            return Case("clamp", library, F("np.clip", (x, lo, hi)), inputs)
        if how == 1:
            return Case("clamp", library, M(x, "clip", (lo, hi)), inputs)
        return Case("clamp", library, F("np.clip", (x,), kw(min=lo, max=hi)), inputs)
    op = p.choice(["clamp", "clip"])
    if boolean(p):
        return Case("clamp", library, F(f"torch.{op}", (x,), kw(min=lo, max=hi)), inputs)
    return Case("clamp", library, M(x, op, (lo, hi)), inputs)


_LETTERS = "ijklm"


def einsum(p: Pick) -> Case:
    """einsum as a string (implicit or explicit output, ellipses), with torch's operand list,
    and in the sublist form (operand, [axes], operand, [axes], [output])."""
    library = p.choice(["numpy", "torch"])
    count = p.int(1, 2)
    sizes = {c: p.choice([1, 2, 3, 4]) for c in _LETTERS}
    batch = shape(p, 0, 2) if p.int(0, 2) == 0 else None
    terms, inputs = [], {}
    for k in range(count):
        letters = "".join(p.choice(_LETTERS[:4]) for _ in range(p.int(0, 3)))
        dims = tuple(sizes[c] for c in letters)
        if p.int(0, 9) == 0 and dims:
            dims = dims[:-1] + (dims[-1] + 1,)  # a size that disagrees: an error
        lead = ()
        if batch is not None:
            lead = batch[p.int(0, len(batch)):]
            letters = "..." + letters
        name = "xyz"[k]
        inputs[name] = Input(lead + dims, p.choice(FLOATS))
        terms.append(letters)
    used = sorted({c for t in terms for c in t if c != "."})
    explicit = boolean(p)
    out = "".join(c for c in used if boolean(p))
    if batch is not None and explicit:
        out = "..." + out
    names = [V("xyz"[k]) for k in range(count)]
    if p.int(0, 3) == 0:  # sublist form: axes as ints
        args: list = []
        for name, term in zip(names, terms):
            axes = [ord(c) - ord("i") for c in term.replace("...", "")]
            args += [name, L(([Ellipsis] if "..." in term else []) + axes)]
        if explicit:
            out_axes = [ord(c) - ord("i") for c in out.replace("...", "")]
            args.append(L(([Ellipsis] if "..." in out else []) + out_axes))
        return Case("einsum", library, F(f"{prefix(library)}.einsum", tuple(args)), inputs)
    equation = ",".join(terms) + (f"->{out}" if explicit else "")
    if library == "torch" and boolean(p):
        return Case("einsum", library, F("torch.einsum", (L(equation), Seq(tuple(names)))),
                    inputs)
    return Case("einsum", library, F(f"{prefix(library)}.einsum", (L(equation), *names)), inputs)


def indexing(p: Pick) -> Case:
    """Literal keys: ints (some out of range), slices with steps, None, Ellipsis, literal
    integer and boolean lists, alone or in a tuple."""
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS + ("int64",))
    s = inputs["x"].shape

    def item(d: int | None) -> Any:
        n = s[d] if d is not None and d < len(s) else 3
        how = p.int(0, 9)
        if how <= 1:
            return p.choice([0, 1, -1, n, -n - 1, n - 1])
        if how <= 3:
            return slice(p.choice([None, 0, 1, -1]), p.choice([None, n, 2, -1]),
                         p.choice([None, None, 2, -1]))
        if how == 4:
            return None
        if how == 5:
            return Ellipsis
        if how <= 7:
            return [p.choice([0, 1, -1, n]) for _ in range(p.int(0, 3))]
        return [boolean(p) for _ in range(p.choice([n, n, n + 1, 1]))]

    count = p.int(1, 3)
    items = tuple(item(d) for d in range(count))
    key = items[0] if count == 1 and boolean(p) else items
    return Case("indexing", library, I(V("x"), L(key)), inputs)


def repetition(p: Pick) -> Case:
    """np.repeat and ndarray.repeat (elements, along an axis or flat), tile, torch's repeat."""
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS + ("int64",))
    s, x = inputs["x"].shape, V("x")
    rank = len(s)
    if library == "numpy":
        op = p.choice(["repeat", "method", "tile"])
        if op == "tile":
            reps = p.int(0, 3) if boolean(p) else tuple(p.int(0, 3) for _ in range(p.int(0, 4)))
            return Case("repetition", library, F("np.tile", (x, L(reps))), inputs)
        d = maybe(p, axis(p, max(rank, 1)))
        size = s[d] if d is not _OMIT and -rank <= d < rank else (1 if not s else 2)
        counts: Any = p.int(0, 3) if boolean(p) else \
            [p.int(0, 3) for _ in range(p.choice([size, size, 1, 2]))]
        if op == "repeat":
            return Case("repetition", library, F("np.repeat", (x, L(counts)), kw(axis=d)), inputs)
        return Case("repetition", library, M(x, "repeat", (L(counts),), kw(axis=d)), inputs)
    sizes = tuple(p.int(0, 3) for _ in range(p.int(max(rank - 1, 0), rank + 2)))
    if boolean(p):
        return Case("repetition", library, F("torch.tile", (x, L(sizes))), inputs)
    args = (L(sizes),) if boolean(p) else tuple(L(n) for n in sizes)
    return Case("repetition", library, M(x, "repeat", args), inputs)


_AUGMENTED = ("+", "-", "*", "/", "//", "%", "**", "@", "&", "|")


def augmented(p: Pick) -> Case:
    """``x op= y; x``: in place in both libraries (x keeps its shape and dtype, or the call
    fails), except torch's ``@=``, which rebinds x."""
    library = p.choice(["numpy", "torch"])
    a = shape(p, 0, 3)
    op = p.choice(_AUGMENTED)
    b = a[p.int(0, len(a)):] if boolean(p) else shape(p, 0, 3)
    if op == "@" and a and boolean(p):
        b = (a[-1], p.choice([a[-1], 2, 3]))
    dtypes = ("bool", "int32", "int64", "float32", "float64")
    inputs = {"x": Input(a, p.choice(dtypes)), "y": Input(b, p.choice(dtypes))}
    other = V("y") if op == "@" or boolean(p) else L(p.choice([2, 2.5, True]))
    return Case("augmented", library, Then(Aug(op, "x", other), V("x")), inputs)


def ranges(p: Pick) -> Case:
    """arange, linspace, logspace and geomspace with int and float bounds, steps and dtypes."""
    library = p.choice(["numpy", "torch"])
    pre = prefix(library)
    op = p.choice(["arange", "arange", "linspace", "logspace"] +
                  (["geomspace"] if library == "numpy" else []))
    number = lambda: p.choice([0, 1, 2, 5, 7, -3, 0.5, 2.5])  # noqa: E731
    if op == "arange":
        args = tuple(L(number()) for _ in range(p.int(1, 3)))
        if len(args) == 3 and p.int(0, 5) == 0:
            args = args[:2] + (L(0),)  # a zero step: an error
        dtype = maybe(p, P(f"{pre}.{p.choice(['float32', 'int64', 'float64'])}"))
        return Case("ranges", library, F(f"{pre}.arange", args, kw(dtype=dtype)), {})
    start, stop = L(p.choice([0, 1, 2.5])), L(p.choice([1, 5, 8.0]))
    count = p.choice([0, 1, 5, 7])
    name = "num" if library == "numpy" else "steps"
    extra = kw(endpoint=maybe(p, boolean(p))) if library == "numpy" else ()
    dtype = maybe(p, P(f"{pre}.{p.choice(['float32', 'float64'])}"))
    count_arg = (L(count),) if boolean(p) else ()
    kwargs = kw(**{name: count}) if not count_arg and (library == "torch" or boolean(p)) else ()
    return Case("ranges", library, F(f"{pre}.{op}", (start, stop) + count_arg,
                                     kwargs + extra + kw(dtype=dtype)), {})


def least_squares(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    m, n = p.choice([2, 3, 5]), p.choice([2, 3])
    batch = shape(p, 0, 1) if library == "torch" else ()
    a = batch + (m, n)
    b = (batch + (m,)) if boolean(p) else (batch + (m, p.choice([1, 2])))
    if p.int(0, 6) == 0:
        b = b[:-1] + (b[-1] + 1,)
    inputs = {"x": Input(a, p.choice(FLOATS)), "y": Input(b, p.choice(FLOATS))}
    if library == "numpy":
        expr = F("np.linalg.lstsq", (V("x"), V("y")), kw(rcond=None))
        return Case("least_squares", library, I(expr, L(p.int(0, 3))), inputs)
    expr = F("torch.linalg.lstsq", (V("x"), V("y")))
    if boolean(p):
        return Case("least_squares", library,
                    A(expr, p.choice(["solution", "residuals", "rank", "singular_values"])),
                    inputs)
    return Case("least_squares", library, I(expr, L(p.int(0, 3))), inputs)


_NUMPY_UNARY = ("sqrt", "exp", "log", "sin", "tanh", "abs", "absolute", "negative", "positive",
                "floor", "ceil", "trunc", "rint", "round", "sign", "square", "reciprocal",
                "invert", "logical_not", "isnan", "isfinite", "exp2", "log1p", "cbrt", "fabs",
                "arctan", "deg2rad", "signbit", "conj")
_TORCH_UNARY = ("sqrt", "exp", "log", "sin", "tanh", "abs", "neg", "floor", "ceil", "trunc",
                "round", "sign", "square", "reciprocal", "bitwise_not", "logical_not", "isnan",
                "isfinite", "exp2", "log1p", "sigmoid", "relu", "frac", "rsqrt", "erf",
                "positive", "sgn", "atan", "deg2rad", "signbit", "conj")


def elementwise(p: Pick) -> Case:
    """Unary element-wise ops over every dtype: what each library computes them in."""
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 2, ALL_DTYPES)
    x = V("x")
    if p.int(0, 5) == 0:
        return Case("elementwise", library, p.choice([B("-", L(0), x), M(x, "__invert__"),
                                                      M(x, "__neg__"), M(x, "__abs__")]),
                    inputs)
    if library == "numpy":
        return Case("elementwise", library, F(f"np.{p.choice(_NUMPY_UNARY)}", (x,)), inputs)
    op = p.choice(_TORCH_UNARY)
    expr = F(f"torch.{op}", (x,)) if boolean(p) or op == "relu" else M(x, op)
    return Case("elementwise", library, expr, inputs)


_NUMPY_REDUCTIONS = ("sum", "prod", "mean", "std", "var", "max", "min", "amax", "any", "all",
                     "ptp", "average", "median", "nansum", "cumsum")
_TORCH_REDUCTIONS = ("sum", "prod", "mean", "std", "var", "amax", "amin", "any", "all", "max",
                     "min", "nansum", "logsumexp", "norm", "count_nonzero", "aminmax")


def reductions(p: Pick) -> Case:
    """Reductions over every dtype, with an axis, keepdims and dtype=: shape and result dtype."""
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, ALL_DTYPES)
    rank, x = len(inputs["x"].shape), V("x")
    d = maybe(p, axis(p, rank) if boolean(p) or rank < 2 else (0, rank - 1))
    keep = maybe(p, boolean(p))
    if library == "numpy":
        op = p.choice(_NUMPY_REDUCTIONS)
        kwargs = kw(axis=d)
        if op not in ("average", "median", "cumsum"):
            kwargs += kw(keepdims=keep)
        if op in ("sum", "prod", "mean", "cumsum", "std", "var") and p.int(0, 3) == 0:
            kwargs += kw(dtype=P(f"np.{p.choice(['float32', 'int64', 'float64'])}"))
        expr = F(f"np.{op}", (x,), kwargs) if boolean(p) or op in (
            "amax", "average", "median", "nansum", "ptp") else M(x, op, (), kwargs)
        return Case("reductions", library, expr, inputs)
    op = p.choice(_TORCH_REDUCTIONS)
    if op in ("max", "min") and d is not _OMIT:
        d = _OMIT  # max(dim) is a (values, indices) pair: multi_output draws it
    if op == "logsumexp" and d is _OMIT:
        d = 0 if rank else ()
    kwargs = kw(dim=d)
    if op not in ("count_nonzero", "max", "min"):
        kwargs += kw(keepdim=keep)
    if op in ("sum", "prod", "mean", "nansum") and p.int(0, 3) == 0:
        kwargs += kw(dtype=P(f"torch.{p.choice(['float32', 'int64', 'float64'])}"))
    expr = F(f"torch.{op}", (x,), kwargs) if boolean(p) else M(x, op, (), kwargs)
    if op == "aminmax":
        expr = I(expr, L(p.int(0, 1)))
    return Case("reductions", library, expr, inputs)


def out_functions(p: Pick) -> Case:
    """out= of NumPy functions that are no ufunc (concatenate, dot, cumsum, clip, mean,
    argmax, round...) and of torch's, with outs of the wrong shape or dtype."""
    library = p.choice(["numpy", "torch"])
    a = shape(p, 1, 3)
    dtype = p.choice(FLOATS)
    inputs = {"x": Input(a, dtype)}
    x, o = V("x"), V("o")
    rank = len(a)
    d = p.int(-rank, rank - 1)
    pre = prefix(library)
    name = "axis" if library == "numpy" else "dim"
    op = p.choice(["concatenate", "dot", "cumsum", "clip", "mean", "argmax", "round", "sum",
                   "matmul", "std"])
    if op == "concatenate":
        result = tuple(2 * n if i == d % rank else n for i, n in enumerate(a))
        expr_of = lambda out: F(f"{pre}.{'concatenate' if library == 'numpy' else 'cat'}",  # noqa: E731
                                (Seq((x, x)),), kw(**{name: d, "out": out}))
    elif op in ("dot", "matmul"):
        inputs["y"] = Input(a[::-1], dtype)
        result = a[:1] + a[:1] if rank > 1 else ()
        if rank > 2:
            result = a[:-1] + a[::-1][:-2][::-1] if op == "dot" else a
        expr_of = lambda out: F(f"{pre}.{op}", (x, V("y")), kw(out=out))  # noqa: E731
    elif op == "cumsum":
        result = a
        expr_of = lambda out: F(f"{pre}.cumsum", (x,), kw(**{name: d, "out": out}))  # noqa: E731
    elif op == "clip":
        result = a
        clip = "np.clip" if library == "numpy" else "torch.clamp"
        expr_of = lambda out: F(clip, (x, L(0), L(1)), kw(out=out))  # noqa: E731
    elif op == "round":
        result = a
        expr_of = lambda out: F(f"{pre}.round", (x,), kw(out=out))  # noqa: E731
    else:
        result = tuple(n for i, n in enumerate(a) if i != d % rank)
        expr_of = lambda out: F(f"{pre}.{op}", (x,), kw(**{name: d, "out": out}))  # noqa: E731
    target = p.choice([result, result, shape(p, 0, 3), (0,), result[1:], result + (1,)])
    if op == "cumsum" and library == "numpy" and not target:
        target = (0,)  # NumPy 2.4 crashes (a segmentation fault) on cumsum into a 0-d out
    out_dtype = p.choice([dtype, dtype, "int64", "float64", "float32"])
    if op == "argmax":
        out_dtype = p.choice(["int64", "int64", "float32"])
    inputs["o"] = Input(target, out_dtype)
    return Case("out_functions", library, expr_of(o), inputs)


_GENERATOR = ("exponential", "poisson", "binomial", "permutation", "permuted", "lognormal",
              "gamma", "beta", "choice", "normal", "uniform", "integers", "laplace",
              "standard_exponential", "geometric")


def random_values(p: Pick) -> Case:
    """Random constructors whose arguments are arrays or sizes: a Generator's methods (their
    parameters broadcast with size=), permutations, and torch's samplers of a tensor."""
    library = p.choice(["numpy", "numpy", "torch"])
    sizes = shape(p, 0, 3)
    size: Any = maybe(p, sizes if boolean(p) or not sizes else sizes[0])
    if library == "numpy":
        op = p.choice(_GENERATOR + ("np.random.permutation", "np.random.choice"))
        if op.startswith("np.random."):
            args = (L(p.choice([4, 5])),)
            return Case("random_values", library, F(op, args, kw(size=size) if
                                                    op.endswith("choice") else ()), {})
        rng = F("np.random.default_rng", (L(0),))
        inputs: dict = {}
        param: Any = L(p.choice([0.5, 2.0]))
        if boolean(p):  # a parameter given as an array broadcasts with size=
            inputs["a"] = Input(shape(p, 1, 2, (1, 2, 3)), "float64", "unit")
            param = V("a")
        args = {"exponential": (param,), "poisson": (param,), "binomial": (L(5), param),
                "lognormal": (param,), "gamma": (param,), "beta": (param, L(1.0)),
                "normal": (param, L(1.0)), "uniform": (L(0.0), param), "laplace": (param,),
                "geometric": (param,), "integers": (L(0), L(5)), "choice": (L(5),),
                "permutation": (L(5),), "standard_exponential": ()}.get(op, ())
        if op == "permuted":
            inputs = {"x": Input(shape(p, 1, 3), "float32")}
            return Case("random_values", library,
                        M(rng, "permuted", (V("x"),), kw(axis=maybe(p, p.int(-1, 0)))), inputs)
        if op in ("permutation",):
            return Case("random_values", library, M(rng, op, args), inputs)
        return Case("random_values", library, M(rng, op, args, kw(size=size)), inputs)
    op = p.choice(["randperm", "bernoulli", "multinomial", "poisson", "normal", "randint_like",
                   "rand_like", "normal_", "uniform_", "exponential_"])
    if op == "randperm":
        return Case("random_values", library, F("torch.randperm", (L(p.int(0, 5)),)), {})
    inputs = {"x": Input(shape(p, 0 if op != "multinomial" else 1, 2), p.choice(FLOATS), "unit")}
    x = V("x")
    if op == "multinomial":
        count = p.int(1, 3)
        return Case("random_values", library,
                    F("torch.multinomial", (x, L(count)), kw(replacement=maybe(p, True))),
                    inputs)
    if op == "normal":
        other = V("x") if boolean(p) else L(1.0)
        return Case("random_values", library, F("torch.normal", (x, other)), inputs)
    if op == "randint_like":
        return Case("random_values", library, F("torch.randint_like", (x, L(5))), inputs)
    if op.endswith("_"):
        return Case("random_values", library, Then(M(x, op), x), inputs)
    return Case("random_values", library, F(f"torch.{op}", (x,)), inputs)


FAMILIES: dict[str, Callable[[Pick], Case]] = {
    "clamp": clamp, "einsum": einsum, "indexing": indexing, "repetition": repetition,
    "augmented": augmented, "ranges": ranges, "least_squares": least_squares,
    "elementwise": elementwise, "reductions": reductions, "out_functions": out_functions,
    "random_values": random_values,
}
