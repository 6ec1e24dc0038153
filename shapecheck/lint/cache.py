"""A persistent cache of each file's analysis, keyed by its content, shapecheck's version and the settings.

A file's findings also depend on the project files it imports (their functions
are analyzed with its arguments): each entry remembers their content digests,
and an entry whose imported files changed since is not read.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .. import __version__
from ..analysis.findings import Facts, Finding, Fix, Severity, Span
from ..analysis.project import file_digest

# Bump when the cached layout changes; the version alone covers analyzer changes in releases.
CACHE_FORMAT = "4"


def _build_stamp() -> str:
    """The version plus a digest of the installed package's files, so a changed analyzer never reads stale entries."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(digest_size=8)
    for file in sorted(package.rglob("*.py")):
        try:
            stat = file.stat()
        except OSError:
            continue
        digest.update(f"{file.relative_to(package)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return f"{__version__}+{digest.hexdigest()}"


_STAMP: str | None = None


def build_stamp() -> str:
    global _STAMP
    if _STAMP is None:
        _STAMP = _build_stamp()
    return _STAMP


def cache_key(data: bytes, kind: str, fingerprint: str) -> str:
    """``kind`` is "python" or "notebook"; ``fingerprint`` the settings the analysis depends on."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(f"{CACHE_FORMAT}\0{build_stamp()}\0{kind}\0{fingerprint}\0".encode())
    digest.update(data)
    return digest.hexdigest()


def finding_to_record(finding: Finding) -> list:
    s = finding.span
    return [s.line, s.column, s.end_line, s.end_column, finding.code, finding.name,
            finding.severity.value, finding.message, finding.cell, [list(r) for r in finding.related],
            list(finding.details), finding.facts.to_json() if finding.facts is not None else None,
            finding.fix.to_json() if finding.fix is not None else None]


def finding_from_record(record: list, path: str) -> Finding:
    line, column, end_line, end_column, code, name, severity, message, cell, related, details, facts, fix = record
    return Finding(path=path, span=Span(line, column, end_line, end_column), code=code, name=name,
                   severity=Severity(severity), message=message, cell=cell,
                   related=tuple((str(p), int(n)) for p, n in related), details=tuple(details),
                   facts=Facts.from_json(facts) if facts is not None else None,
                   fix=Fix.from_json(fix) if fix is not None else None)


class Cache:
    """One JSON file per key under ``<dir>/<version>/``; writes are atomic renames, so workers never clash."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory) / __version__
        self._ready = False
        # Set by the first get() when the directory cannot be written: the run
        # goes on without the cache and the user sees this once.
        self.warning: str | None = None
        self._probed = False
        self._digests: dict[str, str | None] = {}  # imported files, hashed once per run

    def _digest(self, path: str) -> str | None:
        if path not in self._digests:
            self._digests[path] = file_digest(path)
        return self._digests[path]

    def _file(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _probe(self) -> None:
        self._probed = True
        try:
            self._prepare(self.directory)
            fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".probe-")
            os.close(fd)
            os.unlink(temp)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            self.warning = f"cache directory {self.directory.parent} is not writable ({reason}); running without the cache"

    def get(self, key: str, path: str) -> list[Finding] | None:
        if not self._probed:
            self._probe()
        if self.warning is not None:
            return None
        try:
            with open(self._file(key), encoding="utf-8") as handle:
                entry = json.load(handle)
            imported = entry["imports"]
            if any(self._digest(str(file)) != digest for file, digest in imported.items()):
                return None  # an imported file changed: the findings may have too
            return [finding_from_record(r, path) for r in entry["findings"]]
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None  # missing or damaged entries are simply recomputed

    def put(self, key: str, findings: list[Finding], imported: dict[str, str] | None = None) -> None:
        """``imported``: path -> content digest of each project file the analysis read."""
        if self.warning is not None:
            return
        target = self._file(key)
        try:
            self._prepare(target.parent)
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"imports": imported or {},
                           "findings": [finding_to_record(f) for f in findings]}, handle)
            os.replace(temp, target)
        except OSError:
            pass  # a read-only or full disk must not fail the lint; the run just stays cold

    def _prepare(self, folder: Path) -> None:
        if not self._ready:
            root = self.directory.parent
            root.mkdir(parents=True, exist_ok=True)
            # Keep the cache out of git and out of backups, as ruff and pytest do.
            for name, text in ((".gitignore", "*\n"),
                               ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n")):
                if not (root / name).exists():
                    (root / name).write_text(text)
            self._ready = True
        folder.mkdir(parents=True, exist_ok=True)
