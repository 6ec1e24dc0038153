"""Runs the analyzer over many files: cache first, then a process pool, then selection and suppressions."""

from __future__ import annotations

import io
import os
import sys
import tokenize
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..analysis.findings import Finding, Span
from ..analysis.rules import INTERNAL_ERROR, UNREADABLE_FILE, RuleSpec, all_rules
from .cache import Cache, cache_key
from .config import ConfigResolver, LintConfig, Overrides
from .discover import discover
from .notebooks import NotebookError, NotebookProgram, build_program, read_cells
from .suppress import split_suppressed, unused_suppression_findings

if TYPE_CHECKING:
    from ..analysis.coverage import CoverageRecorder, FileCoverage

# Below this much work a pool costs more to start than it saves.
SERIAL_MAX_FILES = 8
SERIAL_MAX_BYTES = 256 * 1024


@dataclass(frozen=True)
class LintOptions:
    """What the user asked for; ``paths`` empty means the current directory."""

    paths: tuple[Path, ...] = ()
    stdin_filename: str | None = None
    read_stdin: bool = False
    config: Path | None = None
    overrides: Overrides = field(default_factory=Overrides)
    jobs: int | None = None
    use_cache: bool = True
    coverage: bool = False  # measure shape coverage (lint/coverage.py); cached entries lack it, so not read
    # Called as progress(files done, files in all, the file just linted), e.g. by lint/progress.py.
    progress: Callable[[int, int, str], None] | None = field(default=None, compare=False)


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    # Source text for code frames, keyed by cell number (None for a .py file); only when there is something to show.
    sources: dict[int | None, str] = field(default_factory=dict)
    coverage: FileCoverage | None = None
    # With --coverage: each expression's best knowledge by file and place, this file's and
    # those of the files its analysis ran functions of (analysis/coverage.py, by_place).
    coverage_places: dict[str, dict[tuple, int]] | None = None


@dataclass
class LintReport:
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    warnings: list[str] = field(default_factory=list)
    sources: dict[tuple[str, int | None], str] = field(default_factory=dict)
    cache_hits: int = 0
    coverage: dict[str, FileCoverage] = field(default_factory=dict)  # path -> counts, with --coverage
    # real path -> place -> best knowledge, over every analysis that ran the file's code
    coverage_places: dict[str, dict[tuple, int]] = field(default_factory=dict)

    def add(self, result: FileResult) -> None:
        if result.coverage is not None:
            self.coverage[result.path] = result.coverage
        for path, places in (result.coverage_places or {}).items():
            merged = self.coverage_places.setdefault(os.path.realpath(path), {})
            for place, level in places.items():
                if level > merged.get(place, -1):
                    merged[place] = level
        self.findings.extend(result.findings)
        self.suppressed.extend(result.suppressed)
        for cell, text in result.sources.items():
            self.sources[(result.path, cell)] = text

    def merge_coverage(self) -> None:
        """Each file's counts with what the analyses of the other files linted knew of its
        expressions: a helper that only other files call (box coders, losses) is checked, and
        counted, with their arrays."""
        if not self.coverage_places:
            return
        from ..analysis.coverage import summarize

        for path in self.coverage:
            places = self.coverage_places.get(os.path.realpath(path))
            if places is not None:
                self.coverage[path] = summarize(places.values())
        self.coverage_places.clear()


@dataclass(frozen=True)
class FileJob:
    path: str
    data: bytes
    kind: str  # "python" | "notebook"
    config: LintConfig
    key: str | None
    cache_dir: str | None
    coverage: bool = False


def finding_for(spec: RuleSpec, path: str, span: Span, message: str) -> Finding:
    return Finding(path=path, span=span, code=spec.code, name=spec.name, severity=spec.severity, message=message)


def kind_of(path: str) -> str:
    return "notebook" if path.endswith(".ipynb") else "python"


class Unreadable(Exception):
    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


def decode_python(data: bytes) -> str:
    """Source text as Python would decode it (PEP 263 cookie, BOM); raises Unreadable."""
    if b"\0" in data:
        raise Unreadable("cannot read: binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "encoding problem" in str(exc) or "unknown encoding" in str(exc):
            raise Unreadable(f"cannot read: {exc}") from None
        encoding = "utf-8"  # undecodable first lines: let the decoder below say where
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise Unreadable(f"cannot decode as {encoding}: invalid byte 0x{data[exc.start]:02x}", line) from None
    except LookupError:
        raise Unreadable(f"cannot read: unknown encoding {encoding!r}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def analyze_bytes(path: str, data: bytes, kind: str, config: LintConfig,
                  coverage: CoverageRecorder | None = None,
                  imported: dict[str, str] | None = None) -> tuple[list[Finding], str, NotebookProgram | None]:
    """Raw findings (before selection and suppression), the analyzed text and, for notebooks, the program.

    ``imported`` receives the project files the analysis followed imports into (path -> digest).
    """
    from ..analysis.api import (
        analyze_source,  # libcst and the interpreter load only when a file needs analysis
    )

    settings = replace(config.settings, project_root=str(config.root))

    try:
        if kind == "notebook":
            if b"\0" in data:
                raise Unreadable("cannot read: binary file (contains NUL bytes)")
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise Unreadable(f"cannot decode as utf-8: invalid byte 0x{data[exc.start]:02x}",
                                 data[: exc.start].count(b"\n") + 1) from None
            try:
                program = build_program(read_cells(text))
            except NotebookError as exc:
                raise Unreadable(str(exc)) from None
            findings = analyze_source(program.source, path, settings, coverage, imported)
            return [program.map_finding(f) for f in findings], program.source, program
        text = decode_python(data)
    except Unreadable as exc:
        span = Span(exc.line, 1, exc.line, 1)
        return [finding_for(UNREADABLE_FILE, path, span, str(exc))], "", None
    return analyze_source(text, path, settings, coverage, imported), text, None


def finish(path: str, findings: list[Finding], text: str, program: NotebookProgram | None,
           config: LintConfig) -> FileResult:
    """Selection and suppressions applied; sources kept for the findings' code frames."""
    selected = [f for f in findings if config.is_enabled(f.code, Path(path))]
    if program is not None:
        index_of = {cell.number: i for i, cell in enumerate(program.cells)}

        def line_of(finding: Finding) -> int:
            if finding.cell not in index_of:
                return finding.span.line
            return program.starts[index_of[finding.cell]] + finding.span.line - 1

        reported, suppressed = split_suppressed(selected, text, line_of)
    else:
        reported, suppressed = split_suppressed(selected, text)
    result = FileResult(path, reported, suppressed)
    if reported or suppressed:
        if program is not None:
            shown = {f.cell for f in reported + suppressed}
            result.sources = {c.number: c.source for c in program.cells if c.number in shown}
        else:
            result.sources = {None: text}
    return result


def lint_job(job: FileJob) -> FileResult:
    """One file, start to end; never raises (a bug here becomes SC099 for that file)."""
    try:
        recorder = None
        if job.coverage:
            from ..analysis.coverage import CoverageRecorder
            recorder = CoverageRecorder()
        imported: dict[str, str] = {}
        findings, text, program = analyze_bytes(job.path, job.data, job.kind, job.config, recorder,
                                                 imported)
        findings += unused_suppression_findings(findings, text, job.path, program)
        if job.key is not None and job.cache_dir is not None:
            Cache(Path(job.cache_dir)).put(job.key, findings, imported)
        result = finish(job.path, findings, text, program, job.config)
        if recorder is not None:
            result.coverage = recorder.summary()
            places = recorder.by_place()
            places[job.path] = places.pop("")
            result.coverage_places = places
        return result
    except Exception as exc:  # the run must go on whatever one file does
        return internal_error(job.path, f"{type(exc).__name__}: {exc}")


def lint_chunk(jobs: list[FileJob]) -> list[FileResult]:
    return [lint_job(job) for job in jobs]


def internal_error(path: str, detail: str) -> FileResult:
    message = f"internal error: {detail}".splitlines()[0]
    return FileResult(path, [finding_for(INTERNAL_ERROR, path, Span(1, 1, 1, 1), message)])


def _init_worker() -> None:
    """Rules are built once per worker, not once per file (and the analyzer is imported once)."""
    all_rules()
    from ..analysis import api  # noqa: F401



def known_codes() -> frozenset[str]:
    return frozenset(all_rules())


def run_lint(options: LintOptions) -> LintReport:
    """Lints everything ``options`` names; raises ConfigError for usage, config and input errors."""
    resolver = ConfigResolver(known_codes(), options.overrides, options.config)
    report = LintReport()
    if options.read_stdin:
        display = options.stdin_filename or "-"
        config = resolver.for_file(Path(display))
        data = sys.stdin.buffer.read()
        job = FileJob(display, data, kind_of(display), config, None, None, options.coverage)
        report.add(list(run_isolated([job]))[0])
        report.files_checked = 1
        report.warnings = resolver.warnings
        _sort(report)
        return report

    discovery = discover(list(options.paths) or [Path(".")], resolver)
    report.warnings.extend(discovery.warnings)
    for unreadable, reason in discovery.unreadable:
        path = str(unreadable)
        report.add(FileResult(path, [finding_for(UNREADABLE_FILE, path, Span(1, 1, 1, 1), reason)]))
    pending: list[FileJob] = []
    caches: dict[Path, Cache] = {}
    for file in discovery.files:
        path = str(file)
        config = resolver.for_file(file)
        try:
            with open(file, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            report.add(FileResult(path, [finding_for(UNREADABLE_FILE, path, Span(1, 1, 1, 1),
                                                     f"cannot read: {reason}")]))
            continue
        except Exception as exc:  # e.g. a path the OS cannot even represent
            report.add(FileResult(path, [finding_for(UNREADABLE_FILE, path, Span(1, 1, 1, 1),
                                                     f"cannot read: {exc}".splitlines()[0])]))
            continue
        kind = kind_of(path)
        key = cache_dir = None
        if options.use_cache:
            cache_path = config.effective_cache_dir()
            cache = caches.setdefault(cache_path, Cache(cache_path))
            key = cache_key(data, kind, config.fingerprint())
            cached = cache.get(key, path) if not options.coverage else None
            if cached is not None:
                report.cache_hits += 1
                report.add(_finish_cached(path, data, kind, cached, config))
                continue
            cache_dir = str(cache_path)
        pending.append(FileJob(path, data, kind, config, key, cache_dir, options.coverage))
    done, total = len(discovery.files) - len(pending), len(discovery.files)
    for result in _run_jobs(pending, options.jobs):
        report.add(result)
        done += 1
        if options.progress is not None:
            options.progress(done, total, result.path)
    report.files_checked = len(discovery.files) + len(discovery.unreadable)
    report.warnings.extend(resolver.warnings)
    report.warnings.extend(cache.warning for cache in caches.values() if cache.warning)
    report.merge_coverage()
    _sort(report)
    return report


def _finish_cached(path: str, data: bytes, kind: str, findings: list[Finding], config: LintConfig) -> FileResult:
    """A cache hit still needs the text when there are findings (suppressions, code frames)."""
    if not findings:
        return FileResult(path)
    try:
        if kind == "notebook":
            program = build_program(read_cells(data.decode("utf-8-sig")))
            return finish(path, findings, program.source, program, config)
        return finish(path, findings, decode_python(data), None, config)
    except (Unreadable, NotebookError, UnicodeDecodeError):
        return finish(path, findings, "", None, config)


def _run_jobs(jobs: list[FileJob], max_jobs: int | None) -> Iterator[FileResult]:
    """Results as they arrive (so progress can be shown)."""
    if not jobs:
        return
    workers = max_jobs if max_jobs and max_jobs > 0 else (os.cpu_count() or 1)
    total = sum(len(j.data) for j in jobs)
    if workers <= 1 or len(jobs) <= SERIAL_MAX_FILES or total <= SERIAL_MAX_BYTES:
        yield from run_isolated(jobs)
        return
    workers = min(workers, len(jobs))
    # Biggest files first, dealt round-robin, so no worker is left with the long tail.
    ordered = sorted(jobs, key=lambda j: len(j.data), reverse=True)
    chunk_count = workers * 4
    chunks = [ordered[i::chunk_count] for i in range(chunk_count)]
    chunks = [c for c in chunks if c]
    suspects: list[FileJob] = []
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker) as pool:
        futures = [(chunk, pool.submit(lint_chunk, chunk)) for chunk in chunks]
        for chunk, future in futures:
            try:
                yield from future.result()
            except BrokenProcessPool:
                suspects.extend(chunk)  # a dead worker breaks every unfinished chunk, not only its own
    yield from run_isolated(suspects)


def run_isolated(jobs: list[FileJob]) -> Iterator[FileResult]:
    """The jobs in order in one worker process, so that a crash (a segfault in native code) loses one file only.

    With a single worker the files run in submission order, so the first
    unfinished one when the worker dies is the one it died on. That file is
    tried once more alone before it is blamed; the rest go on in a fresh
    worker. The analyzer is imported here first, so a forked worker starts
    with it loaded and the common case costs one fork.
    """
    if not jobs:
        return
    _init_worker()
    remaining = list(jobs)
    while remaining:
        finished = 0
        for result in _run_until_crash(remaining):
            finished += 1
            yield result
        if finished == len(remaining):
            return
        culprit = remaining[finished]
        alone = list(_run_until_crash([culprit]))
        yield from alone or [internal_error(culprit.path, "the analyzer process crashed on this file")]
        remaining = remaining[finished + 1:]


def _run_until_crash(jobs: list[FileJob]) -> Iterator[FileResult]:
    """Results of ``jobs`` in order, up to the first one whose worker died."""
    with ProcessPoolExecutor(max_workers=1, initializer=_init_worker) as pool:
        futures = [pool.submit(lint_job, job) for job in jobs]
        for future in futures:
            try:
                result = future.result()
            except BrokenProcessPool:
                return
            yield result


def _sort(report: LintReport) -> None:
    report.findings.sort(key=Finding.sort_key)
    report.suppressed.sort(key=Finding.sort_key)
