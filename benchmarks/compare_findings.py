"""Diffs the findings of two commits: samples/, every rule example, and any extra directories.

Usage: ``python benchmarks/compare_findings.py A B [DIR ...] [--jobs N]``. Each commit
is exported with ``git archive`` into a temporary directory and runs ``shapecheck lint
-f json`` from there (its own code on the same inputs: samples/ and the rule
examples are taken from each commit, the extra directories are shared). It prints
the (path, line, code) triples found only at A ("lost") or only at B ("new"), the
findings whose message changed, and the counts per code. The exit status is 1
when a finding was lost, so a migration step can be gated on it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_WRITE_EXAMPLES = """
import sys
from pathlib import Path
from shapecheck.analysis.rules import all_rules

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for spec in all_rules().values():
    for kind in ("bad", "good"):
        for i, example in enumerate(getattr(spec, kind)):
            (out / f"{spec.code}_{kind}_{i}.py").write_text(example.code)
"""


def export(commit: str, into: Path) -> Path:
    """The tree of ``commit`` (a hash, a branch, or WORKTREE for uncommitted files)."""
    into.mkdir(parents=True)
    if commit == "WORKTREE":
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                               check=True, capture_output=True).stdout.split(b"\0")
        for name in filter(None, files):
            source = REPO / os.fsdecode(name)
            if source.is_file():
                target = into / os.fsdecode(name)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(source.read_bytes())
        return into
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=REPO, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def lint(tree: Path, extra: list[Path], jobs: int) -> tuple[dict[tuple, dict], float]:
    """Findings of the code in ``tree`` on its samples, its rule examples and ``extra``, and
    the wall time the lint runs took."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    examples = tree / "_rule_examples"
    subprocess.run([sys.executable, "-c", _WRITE_EXAMPLES, str(examples)], cwd=tree, env=env,
                   check=True)
    findings: dict[tuple, dict] = {}
    targets = [("samples", tree / "samples"), ("examples", examples)]
    targets += [(str(p), p) for p in extra]
    spent = 0.0
    for label, path in targets:
        if not path.exists():
            continue
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "shapecheck", "lint", "-f", "json", "--no-cache",
                              "-j", str(jobs), str(path)], cwd=tree, env=env,
                             capture_output=True, text=True)
        spent += time.perf_counter() - start
        try:
            items = json.loads(run.stdout or "[]")
        except json.JSONDecodeError:
            sys.exit(f"lint of {path} at {tree} failed: {run.stderr.strip()[-400:]}")
        for item in items:
            rel = os.path.relpath(item["path"], path) if os.path.isabs(item["path"]) else \
                os.path.relpath(os.path.join(tree, item["path"]), path)
            key = (f"{label}/{rel}", item["line"], item["code"])
            findings.setdefault(key, item)
    return findings, spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the earlier commit (or WORKTREE)")
    parser.add_argument("b", help="the later commit (or WORKTREE)")
    parser.add_argument("dirs", nargs="*", type=Path, help="more directories to lint")
    parser.add_argument("--jobs", "-j", type=int, default=1)
    args = parser.parse_args()
    extra = [p.resolve() for p in args.dirs]
    with tempfile.TemporaryDirectory(prefix="compare-findings-") as tmp:
        before, time_a = lint(export(args.a, Path(tmp) / "a"), extra, args.jobs)
        after, time_b = lint(export(args.b, Path(tmp) / "b"), extra, args.jobs)
    lost = sorted(set(before) - set(after))
    new = sorted(set(after) - set(before))
    changed = sorted(k for k in set(before) & set(after)
                     if before[k]["message"] != after[k]["message"])
    for title, keys, source in (("lost", lost, before), ("new", new, after)):
        print(f"{title}: {len(keys)}")
        for key in keys:
            print(f"  {key[0]}:{key[1]} {key[2]}  {source[key]['message'][:140]}")
    print(f"message changed: {len(changed)}")
    for key in changed:
        print(f"  {key[0]}:{key[1]} {key[2]}\n    - {before[key]['message'][:160]}"
              f"\n    + {after[key]['message'][:160]}")
    codes = sorted({k[2] for k in before} | {k[2] for k in after})
    print(f"total: {len(before)} -> {len(after)}")
    print(f"lint wall time: {time_a:.1f}s -> {time_b:.1f}s (ratio {time_b / max(time_a, 1e-9):.2f}; "
          "same machine, same run)")
    for code in codes:
        a = Counter(k[2] for k in before)[code]
        b = Counter(k[2] for k in after)[code]
        print(f"  {code}: {a} -> {b}" + ("" if a == b else "  *"))
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
