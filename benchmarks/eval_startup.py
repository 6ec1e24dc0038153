"""Times ``shapecheck eval "x+y"`` against ``python -c "import torch"`` in one run and prints the ratio.

Usage: python benchmarks/eval_startup.py [--runs N] [--imports]

Each command runs N times, interleaved so load on the machine affects both
alike; the medians are compared. The target is a ratio of at least 4.

A third command, ``python -c "import libcst, numpy"``, is timed alongside:
the interpreter walks libcst trees and the engine confirms on NumPy, so its
ratio is the best an eval answer can reach without changing those.

Two clocks are reported: wall time (what a user waits) and CPU time (user +
system of the child process), which a busy shared machine disturbs far less.
Bytecode caching is switched on for the children even when the calling
environment sets PYTHONDONTWRITEBYTECODE: an installed package has its
bytecode compiled, and recompiling shapecheck on every run would measure the
compiler, not the start-up.

``--imports`` adds a ``python -X importtime`` breakdown of the eval command:
the self time of each module, the smallest over N runs, summed per
third-party package and per shapecheck module, largest first.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

EXPRESSION = ["x+y", "-s", "x=3,1", "-s", "y=4"]
EVAL = [sys.executable, "-m", "shapecheck", "eval", *EXPRESSION]
TORCH = [sys.executable, "-c", "import torch"]
FLOOR = [sys.executable, "-c", "import libcst, numpy"]
"""What any answer must load: libcst for the interpreter's tree, NumPy for the engine's confirmation."""
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)")


def child_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed_run(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stderr) of one run; exits on failure."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env=env)
    stderr = child.stderr.read() if child.stderr else ""
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        sys.exit(f"{' '.join(command[1:])} failed (exit {child.returncode}): {last}")
    return elapsed, usage.ru_utime + usage.ru_stime, stderr


def import_breakdown(runs: int, env: dict[str, str]) -> list[tuple[str, float]]:
    """Seconds of import self time per group (third-party package, shapecheck module)."""
    best: dict[str, int] = {}
    for _ in range(runs):
        _, _, stderr = timed_run([EVAL[0], "-X", "importtime", *EVAL[1:]], env)
        for match in _IMPORT_LINE.finditer(stderr):
            name, self_us = match.group(3), int(match.group(1))
            best[name] = min(best.get(name, self_us), self_us)
    groups: dict[str, int] = {}
    for name, self_us in best.items():
        group = name if name.startswith("shapecheck.") else name.split(".")[0]
        groups[group] = groups.get(group, 0) + self_us
    return sorted(((g, us / 1e6) for g, us in groups.items()), key=lambda item: -item[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--imports", action="store_true",
                        help="also print a -X importtime breakdown of the eval command")
    options = parser.parse_args()
    runs = options.runs
    env = child_environment()
    timed_run(EVAL, env)  # warm the file cache and the bytecode cache for both
    timed_run(TORCH, env)
    timed_run(FLOOR, env)
    eval_times, torch_times, floor_times = [], [], []
    for _ in range(runs):
        eval_times.append(timed_run(EVAL, env)[:2])
        torch_times.append(timed_run(TORCH, env)[:2])
        floor_times.append(timed_run(FLOOR, env)[:2])
    for clock, index in (("wall", 0), ("CPU", 1)):
        eval_median = statistics.median(t[index] for t in eval_times)
        torch_median = statistics.median(t[index] for t in torch_times)
        floor_median = statistics.median(t[index] for t in floor_times)
        print(f"{clock} (median of {runs} runs):")
        print(f"  shapecheck eval \"x+y\" -s x=3,1 -s y=4   {eval_median * 1000:7.0f} ms")
        print(f"  python -c \"import torch\"                 {torch_median * 1000:7.0f} ms")
        print(f"  python -c \"import libcst, numpy\"         {floor_median * 1000:7.0f} ms")
        print(f"  ratio (torch / eval): {torch_median / eval_median:.2f}x  (target: at least 4x; "
              f"torch / libcst+numpy: {torch_median / floor_median:.2f}x)")
    if options.imports:
        breakdown = import_breakdown(runs, env)
        total = sum(seconds for _, seconds in breakdown)
        print(f"imports of the eval command (self time, best of {runs}; "
              f"{total * 1000:.0f} ms in all):")
        for group, seconds in breakdown[:20]:
            print(f"  {seconds * 1000:7.1f} ms  {group}")


if __name__ == "__main__":
    main()
