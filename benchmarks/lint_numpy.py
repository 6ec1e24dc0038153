"""Lints the installed numpy package's source cold and warm, against a bare libcst parse of the same files.

Prints lines/s, cold lint time / single-process bare parse time (target <= 1.5
on 2 cores) and cold/warm (target >= 20). Ratios, not timed assertions: run it
by hand, e.g. ``python benchmarks/lint_numpy.py --jobs 2``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libcst

from shapecheck.lint.config import ConfigResolver
from shapecheck.lint.discover import discover
from shapecheck.lint.runner import decode_python, known_codes


def numpy_source() -> Path:
    import numpy

    return Path(numpy.__file__).parent


def bare_parse(files: list[Path]) -> tuple[float, float]:
    """Read, decode and libcst.parse_module every file in this one process: (wall, cpu) seconds."""
    start, start_cpu = time.perf_counter(), time.process_time()
    for file in files:
        try:
            libcst.parse_module(decode_python(file.read_bytes()))
        except Exception:
            pass  # a file libcst rejects costs what it costs; the linter pays the same
    return time.perf_counter() - start, time.process_time() - start_cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def lint(target: Path, cache_dir: Path, jobs: int | None) -> tuple[float, float]:
    """One `shapecheck lint` process (with its workers): (wall, cpu) seconds."""
    command = [sys.executable, "-m", "shapecheck", "lint", str(target), "--format", "concise",
               "--exit-zero", "--cache-dir", str(cache_dir)]
    if jobs:
        command += ["--jobs", str(jobs)]
    start, start_cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - start_cpu
    if done.returncode != 0:
        sys.exit(f"lint failed ({done.returncode}): {done.stderr.strip()[:500]}")
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--target", type=Path, default=None, help="a directory other than numpy's")
    args = parser.parse_args()
    target = args.target or numpy_source()
    files = [f for f in discover([target], ConfigResolver(known_codes())).files if f.suffix == ".py"]
    lines = sum(f.read_bytes().count(b"\n") for f in files)
    print(f"target: {target} ({len(files)} files, {lines} lines, {os.cpu_count()} cores, jobs={args.jobs or 'all'})")
    with tempfile.TemporaryDirectory() as cache:
        parse_time, parse_cpu = bare_parse(files)
        cold, cold_cpu = lint(target, Path(cache), args.jobs)
        warm, warm_cpu = lint(target, Path(cache), args.jobs)
    print(f"bare libcst parse (1 process): {parse_time:7.2f} s wall {parse_cpu:7.2f} s cpu  {lines / parse_time:9.0f} lines/s")
    print(f"lint cold:                     {cold:7.2f} s wall {cold_cpu:7.2f} s cpu  {lines / cold:9.0f} lines/s")
    print(f"lint warm:                     {warm:7.2f} s wall {warm_cpu:7.2f} s cpu  {lines / warm:9.0f} lines/s")
    print(f"cold / bare parse (wall): {cold / parse_time:.2f}  (target <= 1.5 on 2 cores)")
    print(f"cold / warm (wall):       {cold / warm:.1f}  (target >= 20)")
    # On a busy machine wall time measures the neighbours; CPU time is what the lint itself costs.
    print(f"cpu: cold / bare parse {cold_cpu / parse_cpu:.2f}, cold / warm {cold_cpu / max(warm_cpu, 1e-9):.1f}")

if __name__ == "__main__":
    main()
