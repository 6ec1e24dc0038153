"""The verdicts compared by the differential harness: the real library's and the calculator's.

``real_verdict`` runs a case on real NumPy or torch; ``calculator_verdict``
evaluates the same text the way ``shapecheck eval`` does (the analyzer's
interpreter over the op table, under the case's library as dialect);
``compare`` says whether the calculator answered and whether it agreed.
"""

from __future__ import annotations

import random
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
from differential_cases import Case, Input, RandomPick, run
from differential_families import FAMILIES

RESULT = "r"


@dataclass(frozen=True)
class Verdict:
    kind: str  # "ok", "error", "other" (the result is no array), "unsupported", "crash"
    shape: tuple | None = None  # ints, and "?" for a dim the calculator leaves symbolic
    dtype: str | None = None
    detail: str = ""

    def describe(self) -> str:
        if self.kind == "ok":
            return f"{self.shape} {self.dtype or '?'}"
        return f"{self.kind}: {self.detail}"[:160]


def _numpy_array(spec: Input, rng: np.random.Generator) -> np.ndarray:
    if spec.kind == "index":
        return np.zeros(spec.shape, dtype=spec.dtype)  # index 0 is in range along any dim
    if spec.kind == "unit":
        return rng.random(spec.shape).astype(spec.dtype)  # probabilities, rates: in [0, 1)
    if spec.dtype == "bool":
        return np.ones(spec.shape, dtype=bool)  # True: no integer division by zero
    if spec.dtype.startswith(("int", "uint")):
        # 1 to 4: no integer division by zero, no negative integer power (value errors)
        return rng.integers(1, 5, spec.shape).astype(spec.dtype)
    return rng.standard_normal(spec.shape).astype(spec.dtype)


def real_verdict(case: Case, seed: int = 0) -> Verdict:
    rng = np.random.default_rng(seed)
    arrays = {name: np.array(_numpy_array(spec, rng)) for name, spec in case.inputs.items()}
    if case.library == "torch":
        import torch
        import torch.nn.functional

        modules: dict[str, Any] = {"torch": torch, "F": torch.nn.functional}
        # clone: storage torch owns, which out= may resize (from_numpy's may not be)
        arrays = {name: torch.from_numpy(a).clone() for name, a in arrays.items()}
    else:
        modules = {"np": np}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = run(case.expr, modules, arrays)
    except Exception as exc:  # the library refuses the call: that is the verdict
        return Verdict("error", detail=f"{type(exc).__name__}: {exc}".splitlines()[0])
    if isinstance(value, (np.ndarray, np.generic)):
        return Verdict("ok", tuple(int(d) for d in np.shape(value)), np.asarray(value).dtype.name)
    if case.library == "torch":
        import torch

        if isinstance(value, torch.Tensor):
            return Verdict("ok", tuple(value.shape), str(value.dtype).removeprefix("torch."))
    return Verdict("other", detail=type(value).__name__)


def calculator_verdict(case: Case) -> Verdict:
    from shapecheck.calc.checker import check_expression
    from shapecheck.calc.errors import UsageError
    from shapecheck.calc.evaluation import evaluate_dialect
    from shapecheck.calc.expression import ExpressionError
    from shapecheck.calc.shapes import ShapeBinding

    env = {name: ShapeBinding(name, spec.shape, spec.dtype) for name, spec in case.inputs.items()}
    try:
        head, _, last = case.text.rpartition("; ")  # statements, then the case's value
        text = f"{head}; {RESULT} = {last}" if head else f"{RESULT} = {last}"
        checked = check_expression(text, set(env))
        outcome = evaluate_dialect(checked, env, case.library)
    except (UsageError, ExpressionError) as exc:
        return Verdict("unsupported", detail=str(exc))
    except Exception as exc:  # a crash is never an answer
        return Verdict("crash", detail=f"{type(exc).__name__}: {exc}")
    for step in outcome.steps:
        if step.error is not None:
            return Verdict("error", detail=f"{step.error.exc_type}: {step.error.message}")
    bound = dict(outcome.bindings).get(RESULT)
    if bound is None:
        return Verdict("unsupported", detail="no array result")
    dims = tuple(d if isinstance(d, int) else "?" for d in bound.shape)
    return Verdict("ok", dims, bound.dtype)


def compare(real: Verdict, ours: Verdict) -> str:
    """"skip" (the real result is no array), "unanswered", "agree" or "disagree"."""
    if real.kind == "other":
        return "skip"
    if ours.kind in ("unsupported", "crash"):
        return "unanswered"
    if real.kind == "error" or ours.kind == "error":
        return "agree" if real.kind == ours.kind else "disagree"
    if len(real.shape) != len(ours.shape) or any(
            o != "?" and o != r for r, o in zip(real.shape, ours.shape)):
        return "disagree"
    if ours.dtype is not None and ours.dtype != real.dtype:
        return "disagree"
    return "agree"


def judge(case: Case) -> tuple[str, Verdict, Verdict]:
    real, ours = real_verdict(case), calculator_verdict(case)
    return compare(real, ours), real, ours


def tally(count: int, seed: int, families: list[str] | None = None,
          examples: int = 0) -> dict[str, tuple[Counter, list]]:
    """``count`` cases per family, drawn from a seeded Random: counts per outcome, and the first
    ``examples`` unanswered or disagreeing cases of each family."""
    out: dict[str, tuple[Counter, list]] = {}
    for name in families or list(FAMILIES):
        pick = RandomPick(random.Random(f"{seed}:{name}"))
        counts: Counter = Counter()
        shown: list = []
        for _ in range(count):
            case = FAMILIES[name](pick)
            outcome, real, ours = judge(case)
            counts[outcome] += 1
            if outcome in ("disagree", "unanswered") and len(shown) < examples:
                shown.append((outcome, case, real, ours))
        out[name] = (counts, shown)
    return out
