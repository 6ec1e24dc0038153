"""``lint --fix`` and ``--diff``: the certain fixes of a run's findings, applied to their files or shown as a diff.

A file is rewritten in its own encoding, byte order mark and line endings:
only the fixed nodes change (lint/fixes/transforms.py). Notebooks and source
read from stdin are not rewritten.
"""

from __future__ import annotations

import codecs
import difflib
import io
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ...analysis.findings import Finding, Fix
from .transforms import apply_to_source


@dataclass
class FileFix:
    path: str
    before: bytes
    after: bytes
    applied: list[Fix] = field(default_factory=list)

    def diff(self) -> str:
        """A unified diff of the change (``--- a/path`` / ``+++ b/path``, as git prints it)."""
        old = self.before.decode(_encoding(self.before), "replace").splitlines(keepends=True)
        new = self.after.decode(_encoding(self.after), "replace").splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, f"a/{self.path}", f"b/{self.path}")
        return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
                       for line in lines)


def _encoding(data: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return "utf-8"
    return encoding


def fixed_bytes(data: bytes, fixes: list[Fix]) -> tuple[bytes, list[Fix]]:
    """``data`` (a .py file's bytes) with ``fixes`` applied: (new bytes, the fixes that applied)."""
    encoding = _encoding(data)
    try:
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except (LookupError, UnicodeDecodeError):
        return data, []
    bom = encoding == "utf-8-sig"
    fixed, applied = apply_to_source(text, fixes)
    if not applied:
        return data, []
    out = fixed.encode(encoding)
    if bom and not out.startswith(codecs.BOM_UTF8):
        out = codecs.BOM_UTF8 + out
    return out, applied


def plan_fixes(findings: list[Finding]) -> list[FileFix]:
    """The changed files, in path order; a file that cannot be read or parsed is left out."""
    by_path: dict[str, list[Fix]] = defaultdict(list)
    for finding in findings:
        if finding.fix is not None and finding.cell is None and not finding.path.endswith(".ipynb"):
            by_path[finding.path].append(finding.fix)
    plans = []
    for path, fixes in sorted(by_path.items()):
        try:
            before = Path(path).read_bytes()
            after, applied = fixed_bytes(before, fixes)
        except Exception:  # a file that changed under us or no longer parses: not fixed
            continue
        if applied and after != before:
            plans.append(FileFix(path, before, after, applied))
    return plans


def write_fixes(plans: list[FileFix]) -> list[str]:
    """Writes each plan whose file is still as it was read; returns one error line per file not written."""
    errors = []
    for plan in plans:
        target = Path(plan.path)
        try:
            if target.read_bytes() != plan.before:
                errors.append(f"{plan.path} changed while it was being fixed; left as it is")
                continue
            target.write_bytes(plan.after)
        except OSError as exc:
            errors.append(f"cannot write {plan.path}: {exc.strerror or exc}")
    return errors


__all__ = ["FileFix", "fixed_bytes", "plan_fixes", "write_fixes"]
