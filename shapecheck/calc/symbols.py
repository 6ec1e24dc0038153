"""Finds whether a verdict on symbolic shapes holds for every size, by evaluating it on concrete ones.

The shape rules raise only when a failure is certain for every value of the
symbols; when success depends on the sizes they answer with the shape it
would have (old PyTorch's same-numel fallback, ``x + y`` with ``x=B`` and
``y=3``, which needs B to be 1 or 3). A calculator that printed that shape
plainly would claim more than it knows, so a successful symbolic verdict is
re-evaluated, with the same evaluator, under concrete sizes for its symbols;
if some of them fail, or give another shape, the verdict depends on them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Iterable

from shapecheck.runtime import dims
from shapecheck.runtime.dims import Dim, Shape, Sym

from .expression import CheckedExpression
from .outcome import DialectOutcome
from .shapes import ShapeBinding

SMALL_SIZES = (1, 2, 3, 4, 5)
"""Sizes every symbol is tried with; 1 matters most (it broadcasts), the rest tell sizes apart.
Symbols are sizes a user has in mind for real arrays, so 0 is not tried."""

MAX_TRIES = 24
"""Concrete evaluations per dialect, at most: each runs the interpreter and the engine."""

_GENERIC = (11, 13, 17, 19, 23, 29, 31, 37)
"""Distinct sizes no other size divides, for the symbols not being varied."""

Assignment = tuple[tuple[str, int], ...]
Evaluate = Callable[[CheckedExpression, dict[str, ShapeBinding], str, bool], DialectOutcome]


@dataclass(frozen=True)
class Dependence:
    """A symbolic verdict that holds for some sizes only: the symbols, and sizes tried either way."""

    symbols: tuple[str, ...]
    holds: tuple[Assignment, ...]
    fails: tuple[Assignment, ...]

    def describe(self) -> str:
        """``depends on B: holds for B=1, 3; fails for B=2, 4, 5`` (an example of each for several)."""
        names = ", ".join(self.symbols)
        if not self.holds:
            return f"depends on {names}: fails for every size tried ({_listed(self.fails)})"
        return f"depends on {names}: holds for {_listed(self.holds)}; fails for {_listed(self.fails)}"

    def as_json(self) -> dict:
        return {"symbols": list(self.symbols),
                "holds_for": [dict(a) for a in self.holds],
                "fails_for": [dict(a) for a in self.fails]}


def _listed(assignments: tuple[Assignment, ...], limit: int = 6) -> str:
    """One symbol: its values (``B=1, 3``); several: the first assignment and how many more."""
    if len(assignments[0]) == 1:
        name = assignments[0][0][0]
        values = ", ".join(str(a[0][1]) for a in assignments[:limit])
        return f"{name}={values}" + (", ..." if len(assignments) > limit else "")
    first = assignments[0]
    if len({value for _, value in first}) == 1:
        text = "=".join(name for name, _ in first) + f"={first[0][1]}"
    else:
        text = ", ".join(f"{name}={value}" for name, value in first)
    more = len(assignments) - 1
    return text + (f" and {more} more" if more else "")


def symbols_of(env: dict[str, ShapeBinding]) -> tuple[str, ...]:
    """The plain symbol names in the bindings, in order of first appearance."""
    names: dict[str, None] = {}
    for binding in env.values():
        for dim in binding.shape:
            if isinstance(dim, Sym):
                for monomial, _ in dim.terms:
                    for atom in monomial:
                        if atom.isidentifier():
                            names.setdefault(atom)
    return tuple(names)


def _value(dim: Dim, sizes: dict[str, int]) -> int | None:
    """A dim's value under ``sizes``; None when it is unknown or names an opaque atom."""
    value = dims.substitute(dim, sizes)
    return value if isinstance(value, int) else None


def substitute(shape: Shape, sizes: dict[str, int]) -> tuple[int | None, ...]:
    return tuple(_value(d, sizes) for d in shape)


def _matches(symbolic: Shape | None, concrete: Shape | None, sizes: dict[str, int]) -> bool:
    if symbolic is None or concrete is None:
        return symbolic is concrete
    expected = substitute(symbolic, sizes)
    return len(expected) == len(concrete) and all(
        e is None or e == c for e, c in zip(expected, concrete))


def assignments(symbols: tuple[str, ...], env: dict[str, ShapeBinding]) -> list[dict[str, int]]:
    """The sizes to try: all symbols alike at each candidate, then each one alone.

    Candidates are the small sizes, the concrete dims of the bindings and
    their exact ratios (so a same-numel coincidence such as 3*B == 12 is met).
    """
    concrete = sorted({d for b in env.values() for d in b.shape if isinstance(d, int) and d > 0})
    ratios = {a // b for a, b in itertools.permutations(concrete, 2) if a % b == 0}
    candidates = sorted(set(SMALL_SIZES) | set(concrete) | ratios)
    generic = dict(zip(symbols, _GENERIC))
    tries: list[dict[str, int]] = [dict(generic)] if len(symbols) > 1 else []
    tries += [{name: value for name in symbols} for value in candidates]
    if len(symbols) > 1:
        for name in symbols:
            tries += [dict(generic, **{name: value}) for value in candidates]
    unique: dict[Assignment, dict[str, int]] = {}
    for sizes in tries:
        unique.setdefault(tuple(sorted(sizes.items())), sizes)
    return list(unique.values())[:MAX_TRIES]


def find_dependence(checked: CheckedExpression, env: dict[str, ShapeBinding], outcome: DialectOutcome,
                    evaluate: Evaluate) -> Dependence | None:
    """None when the outcome is certain (or fails, which rules only say when certain)."""
    symbols = symbols_of(env)
    if not symbols or not outcome.ok:
        return None
    holds: list[Assignment] = []
    fails: list[Assignment] = []
    for sizes in assignments(symbols, env):
        concrete_env = {name: ShapeBinding(b.name, tuple(_value(d, sizes) if isinstance(d, Sym)
                                                         else d for d in b.shape), b.dtype)
                        for name, b in env.items()}
        if any(d is None for b in concrete_env.values() for d in b.shape):
            continue  # an opaque dim cannot be made concrete
        try:
            tried = evaluate(checked, concrete_env, outcome.dialect, False)
        except Exception:  # a probe that cannot run tells nothing; it must not cost the answer
            continue
        key = tuple((name, sizes[name]) for name in symbols)
        if tried.ok and _matches(outcome.shape, tried.shape, sizes):
            holds.append(key)
        else:
            fails.append(key)
    if not fails:
        return None
    return Dependence(symbols, tuple(holds), tuple(fails))


def dependences(checked: CheckedExpression, envs: Iterable[dict[str, ShapeBinding]],
                outcomes: Iterable[DialectOutcome], evaluate: Evaluate) -> dict[str, Dependence]:
    """Per dialect name, the dependence of its verdict; certain verdicts are left out."""
    found = {}
    for env, outcome in zip(envs, outcomes):
        dependence = find_dependence(checked, env, outcome, evaluate)
        if dependence is not None:
            found[outcome.dialect] = dependence
    return found
