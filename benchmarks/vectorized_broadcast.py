"""Throughput of runtime.vectorized against a Python loop over np.broadcast_shapes on the same shape pairs.

Run: python benchmarks/vectorized_broadcast.py [--pairs N] [--seed S] [--repeat R]

Both sides get the same seeded pairs, on the same machine, in the same run;
each side is timed R times and the best run is kept (the usual timeit rule:
slower runs measure interference, not the code). The loop gets its natural
input, a list of tuple pairs. The vectorized side is timed three ways: from
ready ShapeBatches, from the generator's (N, 5) int64 arrays (validation and
narrowing included), and from the same tuples the loop gets (conversion
included). It computes more than the loop (in-place, fallback and backcompat
verdicts besides the broadcast), which only makes its ratios conservative.
Before printing, the verdicts of both sides are compared pair by pair; a
disagreement exits with status 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

# Benchmarks run from a checkout, where shapecheck may not be installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shapecheck.runtime.vectorized import MISSING, ShapeBatch, broadcast_verdicts

MAX_NDIM = 5
# Realistic sizes: many 1s (kept axes, unsqueezed dims), small and power-of-two dims, some 0.
SIZES = np.array([0, 1, 1, 1, 2, 3, 4, 7, 8, 16, 32, 64, 128, 512])
# Scalars are rare and 2-4 dims common (batch, channels, spatial).
NDIM_WEIGHTS = [0.05, 0.15, 0.25, 0.25, 0.2, 0.1]


def generate_pairs(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two right-aligned (count, MAX_NDIM) int64 arrays, ndim 0..5, where about half the pairs broadcast."""
    rng = np.random.default_rng(seed)
    a = SIZES[rng.integers(0, len(SIZES), (count, MAX_NDIM))]
    # Per column b copies a's dim, uses 1 or draws its own: tuned so ~half of all pairs broadcast.
    choice = rng.random((count, MAX_NDIM))
    own = SIZES[rng.integers(0, len(SIZES), (count, MAX_NDIM))]
    b = np.where(choice < 0.3, a, np.where(choice < 0.4, 1, own))
    cols = np.arange(MAX_NDIM)
    ndims = np.arange(MAX_NDIM + 1)
    ndim_a = rng.choice(ndims, count, p=NDIM_WEIGHTS)
    ndim_b = rng.choice(ndims, count, p=NDIM_WEIGHTS)
    a = np.where(cols[None, :] >= MAX_NDIM - ndim_a[:, None], a, MISSING).astype(np.int64)
    b = np.where(cols[None, :] >= MAX_NDIM - ndim_b[:, None], b, MISSING).astype(np.int64)
    return a, b


def as_tuples(batch: np.ndarray) -> list[tuple[int, ...]]:
    return [tuple(d for d in row if d != MISSING) for row in batch.tolist()]


def loop_baseline(pairs: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> list:
    """What code without vectorization does: one np.broadcast_shapes call per pair."""
    out = []
    append = out.append
    broadcast_shapes = np.broadcast_shapes
    for a, b in pairs:
        try:
            append(broadcast_shapes(a, b))
        except ValueError:
            append(None)
    return out


def best_of(repeat: int, run):
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - start)
    return best, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20170601)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    a_dims, b_dims = generate_pairs(args.pairs, args.seed)
    a_shapes, b_shapes = as_tuples(a_dims), as_tuples(b_dims)
    pairs = list(zip(a_shapes, b_shapes))
    a_batch, b_batch = ShapeBatch(a_dims), ShapeBatch(b_dims)

    loop_time, loop_results = best_of(args.repeat, lambda: loop_baseline(pairs))
    vec_time, verdicts = best_of(args.repeat, lambda: broadcast_verdicts(a_batch, b_batch, "numpy"))
    from_arrays_time, _ = best_of(args.repeat, lambda: broadcast_verdicts(
        ShapeBatch(a_dims), ShapeBatch(b_dims), "numpy"))
    from_tuples_time, _ = best_of(args.repeat, lambda: broadcast_verdicts(
        ShapeBatch.from_shapes(a_shapes, MAX_NDIM), ShapeBatch.from_shapes(b_shapes, MAX_NDIM),
        "numpy"))

    # Same verdicts, pair by pair: broadcastable or not, and the result shape.
    loop_ok = np.array([r is not None for r in loop_results])
    vec_results = verdicts.result.to_shapes()
    disagree = [i for i, (r, ok, v) in enumerate(zip(loop_results, verdicts.broadcastable.tolist(),
                                                     vec_results))
                if (r is not None) != ok or (ok and r != v)]
    if disagree:
        i = disagree[0]
        print(f"DISAGREEMENT on {len(disagree)} pairs, first {pairs[i]}: loop {loop_results[i]}, "
              f"vectorized {vec_results[i] if verdicts.broadcastable[i] else None}")
        return 1

    n = args.pairs
    print(f"pairs: {n:,} (seed {args.seed}, ndim 0-{MAX_NDIM}), "
          f"broadcastable: {loop_ok.mean():.1%}, best of {args.repeat} runs each")
    print(f"verdicts agree on all {n:,} pairs (broadcastable mask and result shapes)")
    rows = [
        ("loop over np.broadcast_shapes", loop_time),
        ("vectorized, ShapeBatch in", vec_time),
        ("vectorized, int64 arrays in", from_arrays_time),
        ("vectorized, tuples in", from_tuples_time),
    ]
    for name, seconds in rows:
        ratio = "" if seconds is loop_time else f"  {loop_time / seconds:7.1f}x the loop"
        print(f"{name:30s}: {seconds:7.3f} s {n / seconds:14,.0f} pairs/s{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
