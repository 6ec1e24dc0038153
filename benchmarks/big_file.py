"""Lints one generated big file against a bare libcst parse of it, at 10k, 50k and 100k lines.

Usage: python benchmarks/big_file.py [--lines 10000,50000,100000] [--keep DIR]

Each measurement runs in a fresh process, so imports, caches and the peak
resident memory of one never leak into another. For each size it prints the
time and the peak memory of the work itself (measured in the child after its
imports) for a bare ``libcst.parse_module`` and for a full lint of the same
file (serial, no cache), their ratios (targets: time <= 1.5x, memory <= 2x)
and the cost per line, whose steadiness across sizes shows linear growth.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HEADER = '''"""A generated model zoo: numpy preprocessing and torch modules."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

'''

# Each template is one realistic unit (a function or a class) with its own names and sizes.
TEMPLATES = [
    '''def normalize_{n}(batch, eps={eps}):
    """Zero mean, unit variance per feature."""
    x = np.asarray(batch, dtype=np.float32).reshape({b}, {c})
    mean = x.mean(axis=0, keepdims=True)
    std = x.std(axis=0, keepdims=True)
    out = (x - mean) / (std + eps)
    for i in range({b}):
        if out[i].max() > {limit}:
            out[i] = np.clip(out[i], -{limit}, {limit})
    return out

''',
    '''class Block{n}(nn.Module):
    def __init__(self, dim={c}, hidden={h}):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        residual = x
        x = self.norm(x)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return x + residual

''',
    '''def pairwise_{n}(points):
    a = np.random.rand({b}, {c})
    b = np.random.rand({h}, {c})
    diff = a[:, None, :] - b[None, :, :]
    dist = np.sqrt((diff ** 2).sum(axis=-1))
    best = dist.argmin(axis=1)
    total = 0.0
    for row in range({b}):
        total += dist[row, best[row]]
    return dist, total

''',
    '''def train_step_{n}(model, optimizer, data):
    inputs = torch.randn({b}, {c})
    targets = torch.randint(0, {k}, ({b},))
    logits = model(inputs)
    loss = F.cross_entropy(logits, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history = []
    while len(history) < {k}:
        history.append(loss.item())
    return history

''',
    '''def attention_{n}(q, k, v):
    q = torch.randn({b}, {h}, {c})
    k = torch.randn({b}, {h}, {c})
    v = torch.randn({b}, {h}, {c})
    scores = q @ k.transpose(-2, -1) / {c} ** 0.5
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out.reshape({b}, {h} * {c})

''',
    '''class Buffer{n}:
    """A ring buffer of observations."""

    def __init__(self, size={k}):
        self.data = np.zeros((size, {c}), dtype=np.float64)
        self.index = 0

    def push(self, row):
        self.data[self.index % len(self.data)] = row
        self.index += 1

    def stacked(self):
        parts = [self.data[i] for i in range(min(self.index, len(self.data)))]
        return np.stack(parts, axis=0) if parts else self.data[:0]

''',
    '''def mismatch_{n}():
    weights = np.ones(({c}, {h}))
    features = np.ones(({b}, {h}))
    return features @ weights

''',
    '''def guarded_{n}():
    a = np.ones(({b}, {c}))
    b = np.ones(({h},))
    try:
        return a + b
    except ValueError:
        return np.concatenate([a, np.ones(({b}, {h}))], axis=1)

''',
]


def generate(lines: int, seed: int = 12) -> str:
    """A module of about ``lines`` lines, varied names and sizes, the same for the same arguments."""
    rng = random.Random(seed)
    parts = [HEADER]
    count = HEADER.count("\n")
    n = 0
    while count < lines:
        template = TEMPLATES[n % len(TEMPLATES)] if n < len(TEMPLATES) else rng.choice(TEMPLATES)
        sizes = dict(n=n, b=rng.choice([4, 8, 16, 32]), c=rng.choice([3, 16, 64, 128]), h=rng.choice([2, 5, 12, 48]),
                     k=rng.choice([10, 100]), eps=rng.choice(["1e-5", "1e-8"]), limit=rng.choice([3, 5]))
        text = template.format(**sizes)
        parts.append(text)
        count += text.count("\n")
        n += 1
    return "".join(parts)


# The child programs: imports first, then the peak memory so far, then the work alone.
CHILD = '''
import json, resource, sys, time
{imports}
path = sys.argv[1]
text = open(path, encoding="utf-8").read()

def cpu():
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))

before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start, start_cpu = time.perf_counter(), cpu()
{work}
elapsed, elapsed_cpu = time.perf_counter() - start, cpu() - start_cpu
# The lint analyzes in a worker process forked from this one: the larger of the two peaks counts.
after = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({{"seconds": elapsed_cpu, "wall": elapsed, "peak_kib": after, "work_kib": after - before, "extra": extra}}))
'''

PARSE = CHILD.format(imports="import libcst", work="libcst.parse_module(text)\nextra = None")
# A tiny file analyzed first, in this process, so the lazily loaded parts of the analyzer are in place before
# the clock starts (the lint's worker is forked from this process and inherits them).
LINT = CHILD.format(
    imports="import libcst\nfrom pathlib import Path\n"
            "from shapecheck.analysis.api import analyze_source\n"
            "from shapecheck.lint.runner import LintOptions, run_lint\n"
            "analyze_source('import numpy as np\\nx = np.ones((2, 3)) + np.ones((4,))\\n', 'warm.py')",
    work="report = run_lint(LintOptions(paths=(Path(path),), jobs=1, use_cache=False))\n"
         "extra = sorted({f.code for f in report.findings})")


def measure(program: str, path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", program, str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"child failed (exit {done.returncode}): {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="10000,50000,100000", help="comma-separated sizes")
    parser.add_argument("--keep", type=Path, default=None, help="write the generated files here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.lines.split(",") if s.strip()]
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"{'lines':>7} | {'parse s':>8} {'lint s':>8} {'ratio':>6} | {'parse MiB':>9} {'lint MiB':>9} "
              f"{'ratio':>6} | {'lint us/line':>12} {'lint KiB/line':>13} | {'wall ratio':>10} | codes")
        for lines in sizes:
            path = folder / f"big_{lines}.py"
            path.write_text(generate(lines), encoding="utf-8")
            real_lines = path.read_bytes().count(b"\n")
            parse, lint = measure(PARSE, path), measure(LINT, path)
            print(f"{real_lines:7d} | {parse['seconds']:8.2f} {lint['seconds']:8.2f} "
                  f"{lint['seconds'] / parse['seconds']:6.2f} | {parse['work_kib'] / 1024:9.0f} "
                  f"{lint['work_kib'] / 1024:9.0f} {lint['work_kib'] / max(parse['work_kib'], 1):6.2f} | "
                  f"{lint['seconds'] / real_lines * 1e6:12.1f} {lint['work_kib'] / real_lines:13.2f} | "
                  f"{lint['wall'] / parse['wall']:10.2f} | {','.join(lint['extra'])}", flush=True)
    print("targets: lint time <= 1.5x bare parse, lint memory <= 2x bare parse, per-line cost flat across sizes")
    print(f"(seconds are CPU seconds of the work, which a busy machine disturbs less than wall time; "
          f"memory is the growth of the peak RSS during the work; {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
