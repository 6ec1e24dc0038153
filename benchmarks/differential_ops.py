"""Per-family agreement of the calculator with real NumPy and torch over random expressions.

Run: python benchmarks/differential_ops.py [--cases N | --total T] [--seed S] [--family NAME ...]
       [--show K]

Draws N cases per family (or T cases shared out among the families; the families are
tests/runtime/differential_cases.py's, _families.py's and _more.py's), runs each on
the real library and through ``shapecheck eval``'s evaluation, and prints per
family: how many cases had an array result, the share the calculator
answered (anything but "unsupported"), and the share of answered cases whose
verdict (shape and dtype, or error against no error) agrees. --show prints
the first K unanswered or disagreeing cases of each family.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Benchmarks run from a checkout, where shapecheck may not be installed.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

from differential import tally
from differential_families import FAMILIES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="cases per family")
    parser.add_argument("--total", type=int, default=None,
                        help="cases in all, shared out evenly among the families")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--family", nargs="*", choices=sorted(FAMILIES), default=None)
    parser.add_argument("--show", type=int, default=0, help="examples of misses per family")
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)  # tiny tensors: threads only add latency
    except ImportError:
        sys.exit("torch is not installed: the harness compares with both libraries")
    start = time.perf_counter()
    families = args.family or list(FAMILIES)
    per_family = -(-args.total // len(families)) if args.total else args.cases
    results = tally(per_family, args.seed, families, args.show)
    total: Counter = Counter()
    print(f"{'family':16} {'cases':>6} {'answered':>9} {'agree':>8}  disagree unanswered")
    for name, (counts, shown) in results.items():
        total.update(counts)
        print(_row(name, counts))
        for outcome, case, real, ours in shown:
            print(f"    {outcome:10} [{case.library}] {case.text}  "
                  f"{ {k: (v.shape, v.dtype) for k, v in case.inputs.items()} }")
            print(f"               real: {real.describe()}\n               ours: {ours.describe()}")
    print(_row("all", total))
    print(f"{sum(total.values())} cases in {time.perf_counter() - start:.1f} s")
    return 0


def _row(name: str, counts: Counter) -> str:
    cases = sum(counts.values()) - counts["skip"]
    answered = counts["agree"] + counts["disagree"]
    share = answered / cases if cases else 0.0
    agree = counts["agree"] / answered if answered else 0.0
    return (f"{name:16} {cases:6d} {share:9.1%} {agree:8.1%}  {counts['disagree']:8d} "
            f"{counts['unanswered']:10d}")


if __name__ == "__main__":
    raise SystemExit(main())
