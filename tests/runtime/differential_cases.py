"""Random expressions over the op families users call, judged against real NumPy and torch.

A case is a small expression tree (names, literals, calls, methods, indexing,
attributes, binary operators). It is rendered once as text for the
calculator (``shapecheck eval`` evaluates that text with the analyzer's
interpreter and the op table) and walked once over the real library's
objects: no text is ever handed to Python's eval. The verdicts compared are
the result's shape and dtype, or error against no error.

Cases are drawn through a ``Pick`` (integers, choices, booleans), so the same
families feed hypothesis in the tests and a seeded ``random.Random`` in the
benchmark that runs a hundred thousand of them.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

# --------------------------------------------------------------------------- drawing


class Pick(Protocol):
    def int(self, lo: int, hi: int) -> int: ...
    def choice(self, options: Sequence[Any]) -> Any: ...


class RandomPick:
    """A Pick over ``random.Random``: the benchmark's source of cases."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options: Sequence[Any]) -> Any:
        return options[self.rng.randrange(len(options))]


class DrawPick:
    """A Pick over hypothesis' ``draw``: the tests' source of cases (and their shrinking)."""

    def __init__(self, draw: Callable):
        from hypothesis import strategies as st

        self.draw, self.st = draw, st

    def int(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def choice(self, options: Sequence[Any]) -> Any:
        return options[self.draw(self.st.integers(0, len(options) - 1))]


def boolean(p: Pick) -> bool:
    return bool(p.int(0, 1))


# --------------------------------------------------------------------------- expressions

@dataclass(frozen=True)
class V:
    """An input array, by name."""
    name: str


@dataclass(frozen=True)
class L:
    """A literal: int, float, bool, None, str, or a tuple of them."""
    value: Any


@dataclass(frozen=True)
class P:
    """A library attribute that is no call: ``torch.float64``."""
    path: str


@dataclass(frozen=True)
class Seq:
    """A list display: ``[x, y]``."""
    items: tuple


@dataclass(frozen=True)
class F:
    """A library function: ``torch.max(x, 1)``; path's first part is np, torch or F."""
    path: str
    args: tuple = ()
    kwargs: tuple = ()  # (name, node) pairs


@dataclass(frozen=True)
class M:
    """A method call: ``x.max(1)``."""
    obj: Any
    name: str
    args: tuple = ()
    kwargs: tuple = ()


@dataclass(frozen=True)
class A:
    """An attribute: ``.values``."""
    obj: Any
    name: str


@dataclass(frozen=True)
class I:
    """Indexing with one key node: ``r[0]``, ``x[x > 0]``."""
    obj: Any
    key: Any


@dataclass(frozen=True)
class Steps:
    """A key that steps along one dim: ``[:, ::2]`` for dim 1, step 2."""
    dim: int
    step: int

    @property
    def key(self) -> tuple:
        return (slice(None),) * self.dim + (slice(None, None, self.step),)


@dataclass(frozen=True)
class B:
    """A binary operator: ``x + 2.5``, ``x > 0``."""
    op: str
    left: Any
    right: Any


@dataclass(frozen=True)
class Aug:
    """An augmented assignment to an input: ``x @= y``."""
    op: str
    name: str
    value: Any


@dataclass(frozen=True)
class Then:
    """A statement, then the expression whose value is the case's: ``x += 1; x``."""
    first: Any
    then: Any


BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "//": operator.floordiv, "**": operator.pow, "%": operator.mod, ">": operator.gt,
          "<": operator.lt, "==": operator.eq, "&": operator.and_, "|": operator.or_,
          "@": operator.matmul}


def literal(value: Any) -> str:
    """A literal as source: slices as ``a:b:c`` inside an index, Ellipsis as ``...``."""
    if value is Ellipsis:
        return "..."
    if isinstance(value, slice):
        parts = ["" if v is None else literal(v) for v in (value.start, value.stop, value.step)]
        return ":".join(parts[:2]) + (f":{parts[2]}" if value.step is not None else "")
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        body = ", ".join(literal(v) for v in value)
        return f"({body},)" if len(value) == 1 else f"({body})"
    return repr(value)


def render_key(value: Any) -> str:
    """An index key as it is written between brackets: ``0, ::2, None``."""
    if isinstance(value, tuple):
        body = ", ".join(literal(v) for v in value)
        return body + "," if len(value) == 1 else body if value else "()"
    return literal(value)


def render(node: Any) -> str:
    if isinstance(node, V):
        return node.name
    if isinstance(node, L):
        return literal(node.value)
    if isinstance(node, P):
        return node.path
    if isinstance(node, Seq):
        return "[" + ", ".join(render(n) for n in node.items) + "]"
    if isinstance(node, (F, M)):
        parts = [render(a) for a in node.args] + [f"{k}={render(v)}" for k, v in node.kwargs]
        head = node.path if isinstance(node, F) else f"{render(node.obj)}.{node.name}"
        return f"{head}({', '.join(parts)})"
    if isinstance(node, A):
        return f"{render(node.obj)}.{node.name}"
    if isinstance(node, Steps):
        return ", ".join([":"] * node.dim + [f"::{node.step}"])
    if isinstance(node, I):
        key = render_key(node.key.value) if isinstance(node.key, L) else render(node.key)
        return f"{render(node.obj)}[{key}]"
    if isinstance(node, Aug):
        return f"{node.name} {node.op}= {render(node.value)}"
    if isinstance(node, Then):
        return f"{render(node.first)}; {render(node.then)}"
    if isinstance(node, B):
        return f"({render(node.left)} {node.op} {render(node.right)})"
    raise TypeError(node)


def run(node: Any, modules: dict[str, Any], arrays: dict[str, Any]) -> Any:
    """Walk the tree over the real library's objects."""
    if isinstance(node, V):
        return arrays[node.name]
    if isinstance(node, L):
        return node.value
    if isinstance(node, Seq):
        return [run(n, modules, arrays) for n in node.items]
    if isinstance(node, (F, P)):
        target = modules[node.path.split(".")[0]]
        for part in node.path.split(".")[1:]:
            target = getattr(target, part)
        if isinstance(node, P):
            return target
        return target(*(run(a, modules, arrays) for a in node.args),
                      **{k: run(v, modules, arrays) for k, v in node.kwargs})
    if isinstance(node, M):
        method = getattr(run(node.obj, modules, arrays), node.name)
        return method(*(run(a, modules, arrays) for a in node.args),
                      **{k: run(v, modules, arrays) for k, v in node.kwargs})
    if isinstance(node, A):
        return getattr(run(node.obj, modules, arrays), node.name)
    if isinstance(node, I):
        return run(node.obj, modules, arrays)[run(node.key, modules, arrays)]
    if isinstance(node, Steps):
        return node.key
    if isinstance(node, B):
        return BINARY[node.op](run(node.left, modules, arrays), run(node.right, modules, arrays))
    if isinstance(node, Aug):
        op = getattr(operator, "i" + BINARY[node.op].__name__.strip("_"))
        arrays[node.name] = op(arrays[node.name], run(node.value, modules, arrays))
        return arrays[node.name]
    if isinstance(node, Then):
        run(node.first, modules, arrays)
        return run(node.then, modules, arrays)
    raise TypeError(node)


@dataclass(frozen=True)
class Input:
    shape: tuple[int, ...]
    dtype: str
    kind: str = "random"  # "random" values, "index" (zeros: always in range), "mask"


@dataclass(frozen=True)
class Case:
    family: str
    library: str  # "numpy" | "torch"
    expr: Any
    inputs: dict = field(hash=False)  # name -> Input

    @property
    def text(self) -> str:
        return render(self.expr)


# --------------------------------------------------------------------------- shapes and dtypes

FLOATS = ("float32", "float64")
ALL_DTYPES = ("bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64")


def shape(p: Pick, lo: int = 0, hi: int = 3, dims: Sequence[int] = (1, 2, 3, 4, 2, 3)) -> tuple:
    return tuple(p.choice(dims) for _ in range(p.int(lo, hi)))


def axis(p: Pick, rank: int) -> int:
    """A valid axis most of the time, one out of range now and then."""
    if rank == 0 or p.int(0, 9) == 0:
        return p.choice([rank, -rank - 1, 0])
    return p.int(-rank, rank - 1)


def prefix(library: str) -> str:
    return "np" if library == "numpy" else "torch"


def kw(**pairs: Any) -> tuple:
    return tuple((k, v if isinstance(v, (V, L, P, Seq, F, M, A, I, B, Steps)) else L(v))
                 for k, v in pairs.items() if v is not _OMIT)


_OMIT = object()


def maybe(p: Pick, value: Any) -> Any:
    return value if boolean(p) else _OMIT


def lits(*values: Any) -> tuple:
    return tuple(L(v) for v in values)


def one_input(p: Pick, library: str, lo: int = 0, hi: int = 3, dtypes=FLOATS) -> dict:
    return {"x": Input(shape(p, lo, hi), p.choice(dtypes))}


# --------------------------------------------------------------------------- families

def multi_output(p: Pick) -> Case:
    """Ops returning several results, read by index, attribute or (here) the first of them."""
    library = p.choice(["numpy", "torch", "torch"])
    inputs = one_input(p, library, 0, 3)
    rank = len(inputs["x"].shape)
    x, d = V("x"), axis(p, rank)
    if library == "numpy":
        kind = p.choice(["svd", "qr", "eigh", "slogdet", "unique"])
        if kind == "unique":
            flags = kw(return_index=maybe(p, True), return_inverse=maybe(p, True),
                       return_counts=maybe(p, True), axis=maybe(p, d))
            expr = F("np.unique", (x,), flags)
            return Case("multi_output", library, I(expr, L(p.int(0, len(flags)))), inputs)
        if kind in ("svd", "qr", "eigh", "slogdet"):
            n = p.choice([2, 3])
            inputs = {"x": Input(shape(p, 0, 1) + (n, p.choice([n, n, 2, 3])), p.choice(FLOATS))}
            extra = kw(full_matrices=maybe(p, boolean(p))) if kind == "svd" else ()
            count = {"svd": 3, "qr": 2, "eigh": 2, "slogdet": 2}[kind]
            expr = F(f"np.linalg.{kind}", (x,), extra)
            if boolean(p):
                names = {"svd": "U S Vh", "qr": "Q R", "eigh": "eigenvalues eigenvectors",
                         "slogdet": "sign logabsdet"}[kind].split()
                return Case("multi_output", library, A(expr, p.choice(names)), inputs)
            return Case("multi_output", library, I(expr, L(p.int(0, count - 1))), inputs)
    kind = p.choice(["max", "min", "sort", "topk", "kthvalue", "mode", "median", "linalg",
                     "unique", "aminmax", "cummax"])
    size = inputs["x"].shape[d] if -rank <= d < rank else 1
    args: tuple = (x, L(d)) if boolean(p) else (x,)
    kwargs: tuple = () if len(args) == 2 else kw(dim=d)
    count, names = 2, ("values", "indices")
    if kind in ("max", "min", "median", "mode"):
        kwargs += kw(keepdim=maybe(p, boolean(p)))
    elif kind == "sort":
        kwargs += kw(descending=maybe(p, boolean(p)))
    elif kind in ("topk", "kthvalue"):
        k = p.int(1, max(size, 1) + (p.int(0, 9) == 0))
        args = (x, L(k)) + args[1:]
        kwargs += kw(keepdim=maybe(p, boolean(p))) if kind == "kthvalue" else \
            kw(largest=maybe(p, boolean(p)))
    elif kind == "aminmax":
        args, names = (x,), ("min", "max")
        kwargs = kw(dim=maybe(p, d), keepdim=maybe(p, boolean(p)))
    elif kind == "cummax":
        kind = p.choice(["cummax", "cummin"])
    elif kind == "unique":
        flags = kw(return_inverse=maybe(p, True), return_counts=maybe(p, True), dim=maybe(p, d))
        expr = F("torch.unique", (x,), flags)
        return Case("multi_output", library, I(expr, L(p.int(0, len(flags)))), inputs)
    elif kind == "linalg":
        n = p.choice([2, 3])
        inputs = {"x": Input(shape(p, 0, 1) + (n, p.choice([n, n, 2, 3])), p.choice(FLOATS))}
        op, names = p.choice([("svd", ("U", "S", "Vh")), ("qr", ("Q", "R")),
                              ("eigh", ("eigenvalues", "eigenvectors")),
                              ("slogdet", ("sign", "logabsdet")),
                              ("inv_ex", ("inverse", "info")), ("lu_factor", ("LU", "pivots"))])
        expr = F(f"torch.linalg.{op}", (x,))
        return Case("multi_output", library, _read(p, expr, names), inputs)
    expr = F(f"torch.{kind}", args, kwargs) if boolean(p) else M(x, kind, args[1:], kwargs)
    return Case("multi_output", library, _read(p, expr, names), inputs)


def _read(p: Pick, expr: Any, names: Sequence[str]) -> Any:
    how = p.int(0, 2)
    if how == 0:
        return A(expr, p.choice(list(names)))
    return I(expr, L(p.int(0, len(names) - 1) if how == 1 else p.choice([0, 1, -1])))


def binary_minmax(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    a = shape(p, 0, 3)
    b = a[p.int(0, len(a)):] if boolean(p) else shape(p, 0, 3)
    dtypes = ("float32", "float64", "int64", "int32")
    inputs = {"x": Input(a, p.choice(dtypes)), "y": Input(b, p.choice(dtypes))}
    if library == "numpy":
        op = p.choice(["maximum", "minimum", "fmax", "fmin"])
    else:
        op = p.choice(["max", "min", "maximum", "minimum", "fmax", "fmin"])
    expr = F(f"{prefix(library)}.{op}", (V("x"), V("y"))) if boolean(p) \
        else M(V("x"), op, (V("y"),))
    if library == "numpy" and isinstance(expr, M):
        expr = F(f"np.{op}", (V("x"), V("y")))
    return Case("binary_minmax", library, expr, inputs)


def argreduce(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS + ("int64",))
    rank = len(inputs["x"].shape)
    x, op = V("x"), p.choice(["argmax", "argmin"])
    name = "axis" if library == "numpy" else "dim"
    keep = "keepdims" if library == "numpy" else "keepdim"
    kwargs = kw(**{name: maybe(p, axis(p, rank)), keep: maybe(p, boolean(p))})
    expr = F(f"{prefix(library)}.{op}", (x,), kwargs) if boolean(p) else M(x, op, (), kwargs)
    return Case("argreduce", library, expr, inputs)


def logsumexp(p: Pick) -> Case:
    inputs = one_input(p, "torch", 0, 3)
    rank = len(inputs["x"].shape)
    dim = axis(p, rank) if boolean(p) else tuple({axis(p, rank) for _ in range(p.int(1, 2))})
    args = (V("x"), L(dim)) + ((L(boolean(p)),) if boolean(p) else ())
    expr = F("torch.logsumexp", args) if boolean(p) else M(V("x"), "logsumexp", args[1:])
    return Case("logsumexp", "torch", expr, inputs)


def cumulative(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS + ("int32", "int64", "bool"))
    rank = len(inputs["x"].shape)
    x = V("x")
    if library == "numpy":
        op = p.choice(["cumsum", "cumprod", "cumulative_sum", "cumulative_prod"])
        kwargs = kw(axis=maybe(p, axis(p, rank)), dtype=maybe(p, p.choice(["float32", "int64"])))
        if op.startswith("cumulative"):
            return Case("cumulative", library, F(f"np.{op}", (x,), kwargs), inputs)
        expr = F(f"np.{op}", (x,), kwargs) if boolean(p) else M(x, op, (), kwargs)
        return Case("cumulative", library, expr, inputs)
    op = p.choice(["cumsum", "cumprod", "logcumsumexp"])
    kwargs = kw(dim=axis(p, rank))
    if op != "logcumsumexp":
        kwargs += kw(dtype=maybe(p, P(f"torch.{p.choice(['float64', 'int64'])}")))
    expr = F(f"torch.{op}", (x,), kwargs) if boolean(p) else M(x, op, (), kwargs)
    return Case("cumulative", library, expr, inputs)


def sorting(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS + ("int64",))
    rank = len(inputs["x"].shape)
    x, d = V("x"), axis(p, rank)
    if library == "numpy":
        op = p.choice(["sort", "argsort"])
        kwargs = kw(axis=maybe(p, p.choice([d, d, None])))
        expr = F(f"np.{op}", (x,), kwargs) if boolean(p) else M(x, op, (), kwargs)
        if isinstance(expr, M) and op == "sort":  # ndarray.sort sorts in place and returns None
            expr = F("np.sort", (x,), kwargs)
        return Case("sorting", library, expr, inputs)
    op = p.choice(["sort", "argsort", "msort"])
    if op == "msort":
        return Case("sorting", library, M(x, "argsort", (), kw(dim=d, descending=True)), inputs)
    kwargs = kw(dim=maybe(p, d), descending=maybe(p, boolean(p)), stable=maybe(p, True))
    expr = F(f"torch.{op}", (x,), kwargs) if boolean(p) else M(x, op, (), kwargs)
    if op == "sort":
        expr = _read(p, expr, ("values", "indices"))
    return Case("sorting", library, expr, inputs)


def splits(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 1, 3, FLOATS)
    s = inputs["x"].shape
    rank = len(s)
    x, d = V("x"), axis(p, rank)
    size = s[d] if -rank <= d < rank else 2
    sections: Any = p.choice([1, 2, 3, size, max(size // 2, 1)])
    if boolean(p):
        cuts = sorted({p.int(0, size + 1) for _ in range(p.int(1, 2))})
        sections = cuts
    pick = L(p.choice([0, 1, -1, p.int(0, 4)]))
    if library == "numpy":
        op = p.choice(["split", "array_split", "hsplit", "vsplit", "dsplit"])
        arg = L(sections)
        if op in ("split", "array_split"):
            expr = F(f"np.{op}", (x, arg), kw(axis=maybe(p, d)))
        else:
            expr = F(f"np.{op}", (x, arg))
        return Case("splits", library, I(expr, pick), inputs)
    op = p.choice(["split", "tensor_split", "chunk", "hsplit", "vsplit", "dsplit", "unbind"])
    if op == "split":
        arg = L(p.choice([1, 2, 3, size]) if boolean(p) else
                _parts(p, size))
        expr = F("torch.split", (x, arg), kw(dim=maybe(p, d))) if boolean(p) \
            else M(x, "split", (arg,), kw(dim=maybe(p, d)))
    elif op == "tensor_split":
        arg = L(sections if isinstance(sections, int) else tuple(sections))
        expr = F("torch.tensor_split", (x, arg), kw(dim=maybe(p, d)))
    elif op == "chunk":
        arg = L(p.int(1, 4))
        expr = F("torch.chunk", (x, arg), kw(dim=maybe(p, d))) if boolean(p) \
            else M(x, "chunk", (arg,), kw(dim=maybe(p, d)))
    elif op == "unbind":
        expr = F("torch.unbind", (x,), kw(dim=maybe(p, d))) if boolean(p) \
            else M(x, "unbind", (), kw(dim=maybe(p, d)))
    else:
        arg = L(sections if isinstance(sections, int) else tuple(sections))
        expr = F(f"torch.{op}", (x, arg))
    return Case("splits", library, I(expr, pick), inputs)


def _parts(p: Pick, size: int) -> tuple:
    parts, left = [], size
    while left > 0 and len(parts) < 3:
        take = p.int(1, left)
        parts.append(take)
        left -= take
    if p.int(0, 5) == 0:
        parts.append(1)  # sums past the size: an error
    return tuple(parts) or (1,)


def stacking(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    a = shape(p, 0, 3)
    b = list(a)
    if b and boolean(p):
        b[p.int(0, len(b) - 1)] = p.choice([1, 2, 3])
    if p.int(0, 5) == 0:
        b = list(shape(p, 0, 3))
    dtypes = ("float32", "float64", "int64")
    inputs = {"x": Input(a, p.choice(dtypes)), "y": Input(tuple(b), p.choice(dtypes))}
    op = p.choice(["hstack", "vstack", "dstack", "column_stack", "stack", "concatenate"])
    pair = Seq((V("x"), V("y")))
    if op in ("stack", "concatenate"):
        name = "axis" if library == "numpy" else "dim"
        if library == "torch" and op == "concatenate":
            op = p.choice(["cat", "concatenate"])
        d = axis(p, len(a) + (op == "stack"))
        return Case("stacking", library, F(f"{prefix(library)}.{op}", (pair,),
                                           kw(**{name: maybe(p, d)})), inputs)
    return Case("stacking", library, F(f"{prefix(library)}.{op}", (pair,)), inputs)


def products(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    dtypes = ("float32", "float64")
    op = p.choice(["kron", "outer", "inner", "tensordot", "trace", "matrix_power",
                   "multi_dot", "vecdot"])
    a = shape(p, 0, 3)
    b = a if boolean(p) else shape(p, 0, 3)
    x, y = V("x"), V("y")
    inputs = {"x": Input(a, p.choice(dtypes)), "y": Input(b, p.choice(dtypes))}
    pre = prefix(library)
    if op == "kron" or op == "outer" or op == "inner":
        if op == "outer" and boolean(p):
            inputs = {"x": Input(shape(p, 1, 1), inputs["x"].dtype),
                      "y": Input(shape(p, 0, 1), inputs["y"].dtype)}
        return Case("products", library, F(f"{pre}.{op}", (x, y)), inputs)
    if op == "tensordot":
        k = p.int(0, 2)
        name = "axes" if library == "numpy" else "dims"
        if boolean(p) and a and b:
            k = [[p.int(-len(a), len(a) - 1)], [p.int(-len(b), len(b) - 1)]]
        return Case("products", library, F(f"{pre}.tensordot", (x, y), kw(**{name: k})), inputs)
    if op == "trace":
        inputs = {"x": Input(shape(p, 1, 2), p.choice(dtypes + ("int64",)))}
        if library == "numpy":
            expr = F("np.trace", (x,), kw(offset=maybe(p, p.int(-2, 2))))
        else:
            expr = F("torch.trace", (x,)) if boolean(p) else M(x, "trace")
        return Case("products", library, expr, inputs)
    if op == "matrix_power":
        n = p.choice([2, 3])
        inputs = {"x": Input(shape(p, 0, 1) + (n, p.choice([n, n, 2])), p.choice(dtypes))}
        power = L(p.int(-1, 3))
        return Case("products", library, F(f"{pre}.linalg.matrix_power", (x, power)), inputs)
    if op == "multi_dot":
        n = p.choice([2, 3])
        z = V("z")
        inputs = {"x": Input(shape(p, 1, 2, (n, 2, 3)), p.choice(dtypes)),
                  "y": Input((n, p.choice([n, 2])), inputs["x"].dtype),
                  "z": Input(shape(p, 1, 2, (n, 2, 3)), inputs["x"].dtype)}
        return Case("products", library, F(f"{pre}.linalg.multi_dot", (Seq((x, y, z)),)), inputs)
    name = "axis" if library == "numpy" else "dim"
    expr = F(f"{pre}.linalg.vecdot" if library == "torch" else "np.vecdot", (x, y),
             kw(**{name: maybe(p, axis(p, max(len(a), 1)))}))
    return Case("products", library, expr, inputs)


def norms(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS)
    rank = len(inputs["x"].shape)
    x = V("x")
    dims: Any = _OMIT
    if boolean(p) and rank:
        dims = axis(p, rank) if boolean(p) else \
            tuple(dict.fromkeys([axis(p, rank), axis(p, rank)]))
    order = maybe(p, p.choice([1, 2, None, -1, "fro"]))
    if library == "numpy":
        expr = F("np.linalg.norm", (x,), kw(ord=order, axis=dims, keepdims=maybe(p, boolean(p))))
        return Case("norms", library, expr, inputs)
    op = p.choice(["torch.linalg.norm", "torch.linalg.vector_norm", "torch.norm", "method",
                   "torch.linalg.matrix_norm"])
    keep = maybe(p, boolean(p))
    if op == "torch.linalg.vector_norm":
        order = maybe(p, p.choice([1, 2, 0, 3]))
    if op == "torch.linalg.matrix_norm":
        return Case("norms", library, F(op, (x,), kw(ord=maybe(p, p.choice(["fro", "nuc", 1])),
                                                  keepdim=keep)), inputs)
    if op in ("torch.norm", "method"):
        order = maybe(p, p.choice([1, 2, "fro"]))
        kwargs = kw(p=order, dim=dims, keepdim=keep)
        expr = F(op, (x,), kwargs) if op != "method" else M(x, "norm", (), kwargs)
        return Case("norms", library, expr, inputs)
    return Case("norms", library, F(op, (x,), kw(ord=order, dim=dims, keepdim=keep)), inputs)


def scatter_gather(p: Pick) -> Case:
    library = p.choice(["numpy", "torch", "torch"])
    s = shape(p, 1, 3)
    rank = len(s)
    d = axis(p, rank)
    idx = tuple(p.choice([1, n, n, 2]) for n in s)
    if p.int(0, 5) == 0:
        idx = shape(p, 1, 3)
    x, i = V("x"), V("i")
    inputs = {"x": Input(s, p.choice(FLOATS)), "i": Input(idx, "int64", "index")}
    if library == "numpy":
        op = p.choice(["take_along_axis", "take", "put_along_axis"])
        if op == "take_along_axis":
            return Case("scatter_gather", library, F("np.take_along_axis", (x, i), kw(axis=d)),
                        inputs)
        if op == "take":
            return Case("scatter_gather", library, F("np.take", (x, i), kw(axis=maybe(p, d))),
                        inputs)
        # put_along_axis writes into x and returns None: the case's value is x after it
        inputs["s"] = Input(p.choice([idx, idx[1:], (1,), shape(p, 0, 3)]), inputs["x"].dtype)
        put = F("np.put_along_axis", (x, i, V("s")), kw(axis=p.choice([d, d, None])))
        return Case("scatter_gather", library, Then(put, x), inputs)
    op = p.choice(["gather", "scatter", "scatter_add", "index_add", "take_along_dim",
                   "index_select", "index_fill", "index_copy", "scatter_reduce"])
    src = V("s")
    if op in ("index_add", "index_select", "index_fill", "index_copy"):
        size = s[d] if -rank <= d < rank else 1
        inputs["i"] = Input((p.choice([1, 2, size]),), "int64", "index")
        picked = list(s)
        if -rank <= d < rank:
            picked[d] = inputs["i"].shape[0]
        inputs["s"] = Input(tuple(picked) if boolean(p) else shape(p, 1, 3), inputs["x"].dtype)
        args = {"index_add": (L(d), i, src), "index_select": (L(d), i),
                "index_fill": (L(d), i, L(0.0)), "index_copy": (L(d), i, src)}[op]
        expr = M(x, op, args) if boolean(p) or op == "index_fill" else F(f"torch.{op}", (x,) + args)
        return Case("scatter_gather", library, expr, inputs)
    if op == "take_along_dim":
        return Case("scatter_gather", library,
                    F("torch.take_along_dim", (x, i), kw(dim=maybe(p, d))), inputs)
    if op == "gather":
        expr = F("torch.gather", (x, L(d), i)) if boolean(p) else M(x, "gather", (L(d), i))
        return Case("scatter_gather", library, expr, inputs)
    inputs["s"] = Input(idx if boolean(p) else shape(p, 1, 3), inputs["x"].dtype)
    args = (L(d), i, src)
    if op == "scatter_reduce":
        return Case("scatter_gather", library,
                    M(x, "scatter_reduce", args, kw(reduce=p.choice(["sum", "amax", "mean"]))),
                    inputs)
    expr = F(f"torch.{op}", (x,) + args) if boolean(p) else M(x, op, args)
    return Case("scatter_gather", library, expr, inputs)


def data_dependent(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS)
    x = V("x")
    mask = B(">", x, L(0.5))
    pre = prefix(library)
    op = p.choice(["nonzero", "where", "mask", "masked_select", "argwhere", "flatnonzero",
                   "nonzero_tuple", "count"])
    if op == "nonzero":
        expr = F(f"{pre}.nonzero", (mask,))
        expr = I(expr, L(0)) if library == "numpy" and boolean(p) else expr
        if library == "numpy":
            expr = I(F("np.nonzero", (mask,)), L(p.choice([0, -1])))
    elif op == "where":
        expr = I(F(f"{pre}.where", (mask,)), L(p.choice([0, -1])))
    elif op == "mask":
        expr = I(x, mask)
    elif op == "masked_select" and library == "torch":
        expr = F("torch.masked_select", (x, mask)) if boolean(p) else M(x, "masked_select", (mask,))
    elif op == "argwhere":
        expr = F(f"{pre}.argwhere", (mask,))
    elif op == "flatnonzero" and library == "numpy":
        expr = F("np.flatnonzero", (mask,))
    elif op == "nonzero_tuple" and library == "torch":
        expr = I(F("torch.nonzero", (mask,), kw(as_tuple=True)), L(0))
    else:
        expr = F(f"{pre}.count_nonzero", (mask,))
    return Case("data_dependent", library, expr, inputs)


def meshgrid(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = {"x": Input(shape(p, 1, 1), p.choice(FLOATS)), "y": Input(shape(p, 0, 1), "float32")}
    if p.int(0, 5) == 0:
        inputs["y"] = Input(shape(p, 2, 2), "float32")
    kwargs = kw(indexing=maybe(p, p.choice(["xy", "ij"])))
    if library == "numpy":
        kwargs += kw(sparse=maybe(p, boolean(p)))
    expr = F(f"{prefix(library)}.meshgrid", (V("x"), V("y")), kwargs)
    return Case("meshgrid", library, I(expr, L(p.choice([0, 1]))), inputs)


def triangles(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS + ("int64",))
    x, op = V("x"), p.choice(["tril", "triu"])
    k = p.int(-2, 2)
    if p.int(0, 3) == 0:
        n = L(p.int(0, 4))
        if library == "numpy":
            args = (n, L(k)) + ((L(p.int(1, 4)),) if boolean(p) else ())
            return Case("triangles", library, I(F(f"np.{op}_indices", args), L(p.choice([0, 1]))),
                        {})
        return Case("triangles", library,
                    F(f"torch.{op}_indices", (n, L(p.int(0, 4)), L(k))), {})
    name = "k" if library == "numpy" else "diagonal"
    kwargs = kw(**{name: maybe(p, k)})
    expr = F(f"{prefix(library)}.{op}", (x,), kwargs)
    if library == "torch" and boolean(p):
        expr = M(x, op, (), kwargs)
    return Case("triangles", library, expr, inputs)


def creation(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    inputs = one_input(p, library, 0, 3, FLOATS + ("int64", "int32"))
    x, pre = V("x"), prefix(library)
    sizes = shape(p, 0, 3)
    op = p.choice(["zeros_like", "ones_like", "empty_like", "full_like", "full", "eye",
                   "identity", "new", "zeros", "ones"])
    if op in ("zeros_like", "ones_like", "empty_like", "full_like"):
        extra = (L(p.choice([1, 2.5])),) if op == "full_like" else ()
        return Case("creation", library, F(f"{pre}.{op}", (x,) + extra), inputs)
    if op == "full":
        value = p.choice([0, 1.5, True])
        return Case("creation", library, F(f"{pre}.full", (L(sizes), L(value))), inputs)
    if op in ("zeros", "ones"):
        return Case("creation", library, F(f"{pre}.{op}", (L(sizes),)), inputs)
    if op in ("eye", "identity"):
        n = L(p.int(0, 4))
        if library == "torch" or op == "eye":
            args = (n, L(p.int(0, 4))) if boolean(p) else (n,)
            return Case("creation", library, F(f"{pre}.eye", args), inputs)
        return Case("creation", library, F("np.identity", (n,)), inputs)
    if library == "numpy":
        return Case("creation", library, F("np.full_like", (x, L(3))), inputs)
    method = p.choice(["new_zeros", "new_ones", "new_empty", "new_full"])
    args = (L(sizes),) + ((L(p.choice([1, 2.5])),) if method == "new_full" else ())
    return Case("creation", library, M(x, method, args), inputs)


def promotion(p: Pick) -> Case:
    library = p.choice(["numpy", "torch"])
    a = shape(p, 0, 2)
    dtypes = ALL_DTYPES
    inputs = {"x": Input(a, p.choice(dtypes)), "y": Input(a[p.int(0, len(a)):], p.choice(dtypes))}
    op = p.choice(["+", "-", "*", "/", "//", "**", ">", "==", "&"])
    other = V("y") if boolean(p) else L(p.choice([2, 2.5, True, -1, 0.5]))
    if boolean(p):
        return Case("promotion", library, B(op, V("x"), other), inputs)
    fn = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide",
          "**": "pow", ">": "greater", "==": "equal", "&": "bitwise_and"}[op]
    if library == "numpy" and fn == "pow":
        fn = "power"
    if library == "torch" and fn in ("greater", "equal"):
        fn = {"greater": "gt", "equal": "eq"}[fn]
    if library == "torch" and fn == "divide" and boolean(p):  # rounds to the operands' type
        return Case("promotion", library, F("torch.div", (V("x"), other),
                                            kw(rounding_mode=p.choice(["floor", "trunc"]))),
                    inputs)
    return Case("promotion", library, F(f"{prefix(library)}.{fn}", (V("x"), other)), inputs)


FAMILIES: dict[str, Callable[[Pick], Case]] = {
    "multi_output": multi_output, "binary_minmax": binary_minmax, "argreduce": argreduce,
    "logsumexp": logsumexp, "cumulative": cumulative, "sorting": sorting, "splits": splits,
    "stacking": stacking, "products": products, "norms": norms,
    "scatter_gather": scatter_gather, "data_dependent": data_dependent, "meshgrid": meshgrid,
    "triangles": triangles, "creation": creation, "promotion": promotion,
}
