"""Lints the ``models/`` folders of real model code: findings, shape coverage and speed per package.

Usage::

    python benchmarks/real_models.py --corpus DIR [--download] [--packages torchvision,timm]
                                     [--jobs N] [--show-findings] [--json FILE]

The corpus is the wheels of torchvision, timm, diffusers and transformers
unzipped, one folder per package: ``DIR/src/<package>/<package>/models``.
``--download`` builds it when a package's folder is missing, with the
package registry's ordinary client::

    pip download --no-deps --dest DIR/wheels torchvision timm diffusers transformers

and unzips each wheel into ``DIR/src/<package>/`` (a wheel is a zip of the
installed tree; nothing is installed or imported). None of that code is
ours, so it is the honest test of precision: every error there is a false
alarm until shown otherwise, and ``--show-findings`` lists each finding to
be read and judged.

For each package it prints the lines and files linted, the findings by
severity and by code, the shape coverage (the share of array-valued
expressions whose rank is known and whose shape is fully known, as
``shapecheck lint --coverage`` counts them), the lint's wall time, its CPU
time (this process and its workers; steadier than wall time on a shared
machine) and both per 1,000 lines; the ratio of CPU time per line between
packages shows whether the cost grows faster than the code. The lint is
cold (no cache), with the default rules and coverage recording on (one dict
store per array expression). transformers is about a million lines: expect
several minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path

PACKAGES = ("torchvision", "timm", "diffusers", "transformers")


def models_folder(corpus: Path, package: str) -> Path:
    return corpus / "src" / package / package / "models"


def download(corpus: Path, packages: list[str]) -> None:
    """The wheels from the package registry, unzipped into ``corpus/src/<package>/``."""
    wheels = corpus / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                    "--dest", str(wheels), *packages], check=True)
    for package in packages:
        found = sorted(wheels.glob(f"{package}-*.whl"))
        if not found:
            raise SystemExit(f"real_models: pip downloaded no wheel for {package}")
        target = corpus / "src" / package
        target.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(found[-1]) as wheel:
            wheel.extractall(target)


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)  # pool workers, once they are joined
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def measure(folder: Path, jobs: int | None) -> dict:
    """One cold lint of ``folder`` with coverage: counts, findings and times."""
    from shapecheck.lint.config import ConfigResolver
    from shapecheck.lint.coverage import total_of
    from shapecheck.lint.discover import discover
    from shapecheck.lint.runner import LintOptions, known_codes, run_lint

    files = discover([folder], ConfigResolver(known_codes())).files
    lines = sum(file.read_bytes().count(b"\n") for file in files)
    wall, cpu = time.perf_counter(), cpu_seconds()
    report = run_lint(LintOptions(paths=(folder,), jobs=jobs, use_cache=False, coverage=True))
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    total = total_of(report)
    return {
        "lines": lines,
        "files": report.files_checked,
        "severity": dict(Counter(f.severity.value for f in report.findings)),
        "codes": dict(sorted(Counter(f.code for f in report.findings).items())),
        "coverage": total.to_json(),
        "rank_known": total.share(total.rank_known),
        "fully_known": total.share(total.fully_known),
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "wall_seconds_per_kline": wall / max(lines / 1000, 1e-9),
        "cpu_seconds_per_kline": cpu / max(lines / 1000, 1e-9),
        "findings": [f"{f.path}:{f.span.line}:{f.span.column}: {f.code} [{f.severity.value}] {f.message}"
                     for f in report.findings],
    }


def share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def print_table(results: dict[str, dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table("package", "lines", "files", "errors", "warnings", "info", "by code", "arrays",
                  "rank known", "fully known", "wall s", "cpu s", "wall s / 1k lines", "cpu s / 1k lines",
                  box=None,
                  pad_edge=False)
    for package, r in results.items():
        severity = r["severity"]
        table.add_row(package, f"{r['lines']:,}", str(r["files"]), str(severity.get("error", 0)),
                      str(severity.get("warning", 0)), str(severity.get("info", 0)),
                      " ".join(f"{code}:{n}" for code, n in r["codes"].items()) or "-",
                      f"{r['coverage']['arrays']:,}", share(r["rank_known"]), share(r["fully_known"]),
                      f"{r['wall_seconds']:.1f}", f"{r['cpu_seconds']:.1f}",
                      f"{r['wall_seconds_per_kline']:.3f}", f"{r['cpu_seconds_per_kline']:.3f}")
    Console(width=250, highlight=False).print(table)
    if len(results) > 1:
        base_name, base = next(iter(results.items()))
        for package, r in list(results.items())[1:]:
            ratio = r["cpu_seconds_per_kline"] / base["cpu_seconds_per_kline"]
            print(f"cpu time per line, {package} / {base_name}: {ratio:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True,
                        help="folder holding src/<package>/<package>/models (made by --download)")
    parser.add_argument("--download", action="store_true",
                        help="pip download and unzip the packages whose folder is missing")
    parser.add_argument("--packages", default=",".join(PACKAGES), help="comma list, in this order")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--show-findings", action="store_true", help="list every finding, to be judged")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    packages = [p.strip() for p in args.packages.split(",") if p.strip()]
    unknown = [p for p in packages if p not in PACKAGES]
    if unknown:
        parser.error(f"unknown package(s) {', '.join(unknown)}; choose from {', '.join(PACKAGES)}")
    missing = [p for p in packages if not models_folder(args.corpus, p).is_dir()]
    if missing and args.download:
        download(args.corpus, missing)
        missing = [p for p in packages if not models_folder(args.corpus, p).is_dir()]
    if missing:
        parser.error(f"no models folder for {', '.join(missing)} under {args.corpus}/src "
                     "(use --download to fetch the wheels)")
    results = {}
    for package in packages:
        print(f"linting {models_folder(args.corpus, package)} ...", file=sys.stderr, flush=True)
        results[package] = measure(models_folder(args.corpus, package), args.jobs)
        if args.show_findings:
            print(f"\n{package}: {len(results[package]['findings'])} findings")
            for line in results[package]["findings"]:
                print(f"  {line}")
    print()
    print_table(results)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
