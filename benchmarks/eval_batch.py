"""One million shape rows through ``shapecheck eval "x + y" --batch FILE`` end to end, against a Python loop over np.broadcast_shapes.

Run: python benchmarks/eval_batch.py [--rows N] [--seed S] [--formats npy,csv,jsonl]

The same seeded pairs (benchmarks/vectorized_broadcast.py's generator) are
written once per format; each --batch run is the whole command in this
process (reading and parsing the file, the verdicts, the summary with its
explained failures). The baseline is what a script without shapecheck does
with the same pairs already in memory as tuples: one np.broadcast_shapes
call per pair, in the same run. Before printing, the batch's JSON verdicts
on a sample of rows are compared with the loop's; a disagreement exits 1.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vectorized_broadcast import as_tuples, generate_pairs, loop_baseline

from shapecheck.calc.arguments import main as eval_main

SAMPLE = 2_000
"""Rows whose JSON verdicts are checked against the loop before timing is reported."""


def _cell(shape: tuple) -> str:
    return "x".join(map(str, shape)) if shape else "()"


def write_files(a: np.ndarray, b: np.ndarray, directory: Path, formats: list[str]) -> dict[str, Path]:
    files = {}
    if "npy" in formats:
        table = np.empty(len(a), dtype=[("x", np.int64, (a.shape[1],)), ("y", np.int64, (b.shape[1],))])
        table["x"], table["y"] = a, b
        files["npy"] = directory / "cases.npy"
        np.save(files["npy"], table)
    xs, ys = as_tuples(a), as_tuples(b)
    if "csv" in formats:
        files["csv"] = directory / "cases.csv"
        files["csv"].write_text("x,y\n" + "".join(f"{_cell(x)},{_cell(y)}\n" for x, y in zip(xs, ys)))
    if "jsonl" in formats:
        files["jsonl"] = directory / "cases.jsonl"
        files["jsonl"].write_text("".join(f'{{"x": {list(x)}, "y": {list(y)}}}\n'
                                          for x, y in zip(xs, ys)))
    return files


def run_batch(path: Path, *extra: str) -> tuple[float, int, str]:
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    code = eval_main(["x + y", "--batch", str(path), "-d", "numpy", *extra], stdout=out, stderr=err)
    elapsed = time.perf_counter() - start
    if code not in (0, 1):
        raise SystemExit(f"--batch {path.name} failed: {err.getvalue().strip()}")
    return elapsed, code, out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20170601)
    parser.add_argument("--formats", default="npy,csv,jsonl")
    args = parser.parse_args(argv)
    formats = args.formats.split(",")

    a, b = generate_pairs(args.rows, args.seed)
    pairs = list(zip(as_tuples(a), as_tuples(b)))
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(a, b, Path(tmp), formats)

        (Path(tmp) / "sample").mkdir()
        sample = write_files(a[:SAMPLE], b[:SAMPLE], Path(tmp) / "sample", ["npy"])["npy"]
        _, _, out = run_batch(sample, "-f", "json")
        expected = loop_baseline(pairs[:SAMPLE])
        for line, want in zip(out.splitlines(), expected):
            got = json.loads(line)["numpy"]
            if (want is None) == got["ok"] or (want is not None and tuple(got["shape"]) != want):
                print(f"DISAGREEMENT on row {json.loads(line)['row']}: loop {want}, batch {got}")
                return 1

        start = time.perf_counter()
        results = loop_baseline(pairs)
        loop_time = time.perf_counter() - start
        valid = sum(r is not None for r in results)

        print(f"rows: {args.rows:,} (seed {args.seed}, ndim 0-{a.shape[1]}, {valid / args.rows:.1%} "
              f"broadcast); JSON verdicts agree with the loop on the first {SAMPLE:,} rows")
        print(f"{'loop over np.broadcast_shapes':36s}: {loop_time:7.2f} s")
        for path in files.values():
            seconds, _, summary = run_batch(path)
            counted = next(line for line in summary.splitlines() if "valid" in line)
            if f"{valid:,} rows" not in counted:
                print(f"DISAGREEMENT: the summary says {counted.strip()!r}, the loop {valid:,}")
                return 1
            print(f"{'eval --batch ' + path.name + ' (end to end)':36s}: {seconds:7.2f} s"
                  f"   {loop_time / seconds:6.1f}x the loop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
