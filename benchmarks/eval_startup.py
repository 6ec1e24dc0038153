"""Times ``shapecheck eval "x+y"`` against ``python -c "import torch"`` in one run and prints the ratio.

Usage: python benchmarks/eval_startup.py [--runs N]

Each command runs N times, interleaved so load on the machine affects both
alike; the medians are compared. The target is a ratio of at least 4.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

EXPRESSION = ["x+y", "-s", "x=3,1", "-s", "y=4"]
EVAL = [sys.executable, "-m", "shapecheck", "eval", *EXPRESSION]
TORCH = [sys.executable, "-c", "import torch"]


def wall_time(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[1:])} failed (exit {done.returncode}): "
                 f"{done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    wall_time(EVAL)  # warm the file cache and the bytecode cache for both
    wall_time(TORCH)
    eval_times, torch_times = [], []
    for _ in range(runs):
        eval_times.append(wall_time(EVAL))
        torch_times.append(wall_time(TORCH))
    eval_median = statistics.median(eval_times)
    torch_median = statistics.median(torch_times)
    print(f"shapecheck eval \"x+y\" -s x=3,1 -s y=4 : median {eval_median * 1000:7.0f} ms "
          f"over {runs} runs")
    print(f"python -c \"import torch\"               : median {torch_median * 1000:7.0f} ms "
          f"over {runs} runs")
    print(f"ratio (torch / eval): {torch_median / eval_median:.1f}x  (target: at least 4x)")


if __name__ == "__main__":
    main()
