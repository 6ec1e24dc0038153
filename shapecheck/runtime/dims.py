"""The dimension algebra: a dim is an int, a symbolic polynomial, or unknown.

Comparisons are three-valued (True / False / None for "cannot tell") so one
rule implementation serves concrete shapes (the engine) and symbolic ones
(the analyzer). Symbols stand for sizes, so they are assumed non-negative
integers; nothing else is assumed (a symbol may be 0 or 1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Union

Maybe = Union[bool, None]
"""Three-valued truth: True, False, or None when it depends on unknown sizes."""

# A monomial is a sorted tuple of atom names (with repetition for powers);
# the empty tuple is the constant monomial.
Monomial = tuple[str, ...]


@dataclass(frozen=True)
class Sym:
    """A polynomial with integer coefficients over named size atoms.

    Atoms are plain names (``B``) or opaque names for expressions that do
    not simplify (``C//H``). The terms are kept canonical (sorted, no zero
    coefficients), so structural equality is algebraic equality.
    """

    terms: tuple[tuple[Monomial, int], ...]

    @staticmethod
    def atom(name: str) -> "Dim":
        return Sym((((name,), 1),))

    @staticmethod
    def from_terms(terms: dict[Monomial, int]) -> "Dim":
        kept = tuple(sorted((m, c) for m, c in terms.items() if c != 0))
        if not kept:
            return 0
        if len(kept) == 1 and kept[0][0] == ():
            return kept[0][1]
        return Sym(kept)

    def as_terms(self) -> dict[Monomial, int]:
        return dict(self.terms)

    def constant(self) -> int:
        return dict(self.terms).get((), 0)

    def __str__(self) -> str:
        parts = []
        for mono, coeff in sorted(self.terms, key=lambda t: (-len(t[0]), t[0])):
            # Only a lone atom with coefficient +1 prints bare: anywhere else an
            # opaque atom such as "(B - 3)//2" would read with the wrong precedence.
            body = "*".join(a if (len(mono) == 1 and coeff == 1) else _atom_str(a) for a in mono)
            if not body:
                text = str(abs(coeff))
            elif abs(coeff) == 1:
                text = body
            else:
                text = f"{abs(coeff)}*{body}"
            sign = "-" if coeff < 0 else "+"
            parts.append((sign, text))
        out = ("-" if parts[0][0] == "-" else "") + parts[0][1]
        for sign, text in parts[1:]:
            out += f" {sign} {text}"
        return out

    __repr__ = __str__


def _atom_str(name: str) -> str:
    """An atom as a factor: opaque names (not plain identifiers) get parentheses."""
    return name if name.isidentifier() else f"({name})"


class UnknownDim:
    """A size nothing is known about. Every comparison with it is None."""

    _instance: "UnknownDim | None" = None

    def __new__(cls) -> "UnknownDim":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "?"

    __str__ = __repr__

    def __reduce__(self):
        return (UnknownDim, ())


UNKNOWN = UnknownDim()

Dim = Union[int, Sym, UnknownDim]
Shape = tuple  # tuple[Dim, ...]


def sym(name: str) -> Dim:
    """A fresh symbolic dim named ``name``."""
    return Sym.atom(name)


def atoms(d: Dim) -> frozenset[str]:
    """The plain symbol names a dim is made of (opaque atoms such as ``C//H`` are left out)."""
    if not isinstance(d, Sym):
        return frozenset()
    return frozenset(a for mono, _ in d.terms for a in mono if a.isidentifier())


def substitute(d: Dim, sizes: dict[str, int]) -> Dim:
    """``d`` with the named symbols replaced by sizes; other atoms stay symbolic."""
    if not isinstance(d, Sym):
        return d
    total: Dim = 0
    for mono, coeff in d.terms:
        term: Dim = coeff
        for atom in mono:
            term = mul(term, sizes[atom] if atom in sizes else Sym.atom(atom))
        total = add(total, term)
    return total


def is_known(d: Dim) -> bool:
    return not isinstance(d, UnknownDim)


def is_concrete(d: Dim) -> bool:
    return isinstance(d, int)


def shape_is_concrete(shape: Iterable[Dim]) -> bool:
    return all(isinstance(d, int) for d in shape)


def _terms(d: Dim) -> dict[Monomial, int]:
    if isinstance(d, int):
        return {(): d} if d else {}
    assert isinstance(d, Sym)
    return d.as_terms()


def add(a: Dim, b: Dim) -> Dim:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if not is_known(a) or not is_known(b):
        return UNKNOWN
    terms = _terms(a)
    for m, c in _terms(b).items():
        terms[m] = terms.get(m, 0) + c
    return Sym.from_terms(terms)


def neg(a: Dim) -> Dim:
    return mul(a, -1)


def sub(a: Dim, b: Dim) -> Dim:
    return add(a, neg(b))


def mul(a: Dim, b: Dim) -> Dim:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 0 or b == 0:
        return 0
    if not is_known(a) or not is_known(b):
        return UNKNOWN
    terms: dict[Monomial, int] = {}
    for ma, ca in _terms(a).items():
        for mb, cb in _terms(b).items():
            m = tuple(sorted(ma + mb))
            terms[m] = terms.get(m, 0) + ca * cb
    return Sym.from_terms(terms)


def product(dims: Iterable[Dim]) -> Dim:
    out: Dim = 1
    for d in dims:
        out = mul(out, d)
    return out


def floordiv(a: Dim, b: Dim) -> Dim:
    """``a // b``. Exact when every coefficient divides; otherwise an opaque atom."""
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            return UNKNOWN
        return a // b
    if not is_known(a) or not is_known(b) or b == 0:
        return UNKNOWN
    if isinstance(b, int):
        terms = _terms(a)
        if all(c % b == 0 for c in terms.values()):
            return Sym.from_terms({m: c // b for m, c in terms.items()})
        # Parenthesized like the Sym // Sym case: "B - 3//2" would read as B - (3//2).
        return Sym.atom(f"{_paren(a)}//{b}")
    quotient = exact_div(a, b)
    if quotient is not None:
        return quotient
    return Sym.atom(f"{_paren(a)}//{_paren(b)}")


def mod(a: Dim, b: Dim) -> Dim:
    """``a % b`` for a positive int b: a size in [0, b). Exact when every term but the constant
    is a multiple of b (``(7*k + 3) % 7`` is 3); otherwise an opaque atom (swin's padding to a
    multiple of the window, ``(7 - W % 7) % 7``)."""
    if isinstance(a, int) and isinstance(b, int):
        return a % b if b else UNKNOWN
    if not is_known(a) or not isinstance(b, int) or b <= 0:
        return UNKNOWN
    terms = _terms(a)
    if all(c % b == 0 for m, c in terms.items() if m):
        return terms.get((), 0) % b
    return Sym.atom(f"{_paren(a)} % {b}")


def _paren(d: Dim) -> str:
    text = str(d)
    return f"({text})" if any(ch in text for ch in " */%") or text.startswith("-") else text


def exact_div(a: Dim, b: Dim) -> Dim | None:
    """``a / b`` when b divides a as polynomials (monomial divisor), else None."""
    if isinstance(a, int) and isinstance(b, int):
        if b != 0 and a % b == 0:
            return a // b
        return None
    if not is_known(a) or not is_known(b):
        return None
    bt = _terms(b)
    if len(bt) != 1:
        if a == b:
            return 1
        return None
    (bm, bc), = bt.items()
    out: dict[Monomial, int] = {}
    for m, c in _terms(a).items():
        rest = list(m)
        for atom in bm:
            if atom not in rest:
                return None
            rest.remove(atom)
        if c % bc:
            return None
        out[tuple(rest)] = c // bc
    return Sym.from_terms(out)


def eq(a: Dim, b: Dim) -> Maybe:
    """Are two dims equal? None when it depends on unknown sizes."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if not is_known(a) or not is_known(b):
        return None
    diff = sub(a, b)
    if diff == 0:
        return True
    if isinstance(diff, int):
        return False
    return None


def is_one(d: Dim) -> Maybe:
    return eq(d, 1)


def is_zero(d: Dim) -> Maybe:
    return eq(d, 0)


def dims_equal(a: Shape, b: Shape) -> Maybe:
    """Three-valued shape equality."""
    if len(a) != len(b):
        return False
    verdict: Maybe = True
    for x, y in zip(a, b):
        e = eq(x, y)
        if e is False:
            return False
        if e is None:
            verdict = None
    return verdict


def both(a: Maybe, b: Maybe) -> Maybe:
    """Three-valued AND."""
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def either(a: Maybe, b: Maybe) -> Maybe:
    """Three-valued OR."""
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def not_(a: Maybe) -> Maybe:
    return None if a is None else not a


def le(a: Dim, b: Dim) -> Maybe:
    """Three-valued ``a <= b`` for sizes (symbols are non-negative)."""
    if isinstance(a, int) and isinstance(b, int):
        return a <= b
    if not is_known(a) or not is_known(b):
        return None
    diff = sub(b, a)
    if isinstance(diff, int):
        return diff >= 0
    coeffs = [c for _, c in diff.terms]
    const = diff.constant()
    if all(c >= 0 for c in coeffs):
        return True
    if all(c <= 0 for c in coeffs) and const < 0:
        return False
    return None


def lt(a: Dim, b: Dim) -> Maybe:
    r = le(b, a)
    return None if r is None else not r


def compare(op: str, a: Dim, b: Dim) -> Maybe:
    """Three-valued ``a <op> b`` for Python ints (``op`` one of eq, ne, lt, le, gt, ge).

    Unlike ``le`` it assumes nothing of the symbols' signs (an int the code compares may be a
    parameter like ``dim=-1`` or an offset), so an order is decided only when ``a - b`` is a
    constant: ``n + 1 > n`` always, ``n > 0`` never.
    """
    if op in ("eq", "ne"):
        same = eq(a, b)
        return same if op == "eq" or same is None else not same
    if not is_known(a) or not is_known(b):
        return None
    diff = sub(a, b)
    if not isinstance(diff, int):
        return None
    return {"lt": diff < 0, "le": diff <= 0, "gt": diff > 0, "ge": diff >= 0}[op]


def numel(shape: Shape) -> Dim:
    return product(shape)


def normalize_axis(axis: int, ndim: int) -> int | None:
    """Python-style negative axis to a non-negative one; None if out of range."""
    if -ndim <= axis < ndim:
        return axis % ndim if ndim else 0
    return None


def fits(shape: Shape, concrete: Iterable[int], sizes: dict[str, int] | None = None) -> bool:
    """Could ``shape`` be the concrete shape? Ints must equal; an unknown dim fits any size; a
    symbol fits one size wherever it appears (``sizes`` collects what each symbol took, so
    several shapes can be checked against one run)."""
    concrete = tuple(concrete)
    if len(shape) != len(concrete):
        return False
    sizes = {} if sizes is None else sizes
    for d, n in zip(shape, concrete):
        if isinstance(d, int):
            if d != n:
                return False
            continue
        if not isinstance(d, Sym):
            continue
        if len(d.terms) == 1 and d.terms[0][1] == 1 and len(d.terms[0][0]) == 1:
            atom = d.terms[0][0][0]
            if sizes.setdefault(atom, n) != n:
                return False
            continue
        value = substitute(d, sizes)
        if isinstance(value, int) and value != n:
            return False
    return True


def format_dim(d: Dim) -> str:
    return str(d)


def format_shape(shape: Shape, style: str = "python") -> str:
    """``(5, 2)`` in python style, ``(5,2)`` in numpy's error style, ``[5, 2]`` in torch style."""
    body = [format_dim(d) for d in shape]
    if style == "numpy":
        if len(body) == 1:
            return f"({body[0]},)"
        return "(" + ",".join(body) + ")"
    if style == "torch":
        return "[" + ", ".join(body) + "]"
    if len(body) == 1:
        return f"({body[0]},)"
    return "(" + ", ".join(body) + ")"


def parse_dim(text: str) -> Dim:
    """A dim from user text: ``5``, ``B``, ``?``. Raises ValueError on bad input."""
    text = text.strip()
    if text in ("?", "_"):
        return UNKNOWN
    # ASCII digits only: str.isdigit also accepts "²" (which int() refuses) and
    # other scripts' digits, and lstrip("-") let "--3" through to int()'s own error.
    if re.fullmatch(r"-?[0-9]+", text):
        value = int(text)
        if value < 0:
            raise ValueError(f"negative dimension {value}")
        return value
    if text.isidentifier():
        return sym(text)
    raise ValueError(f"not a dimension: {text!r}")


__all__ = [
    "Dim", "Shape", "Sym", "UnknownDim", "UNKNOWN", "Maybe", "sym", "is_known",
    "is_concrete", "shape_is_concrete", "add", "sub", "neg", "mul", "product",
    "floordiv", "mod", "exact_div", "eq", "is_one", "is_zero", "dims_equal", "both",
    "either", "not_", "le", "lt", "compare", "numel", "normalize_axis", "format_dim",
    "format_shape", "parse_dim", "atoms", "substitute", "fits",
]
