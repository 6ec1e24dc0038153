"""Baseline files: ``--write-baseline FILE`` records today's findings, ``--baseline FILE`` reports only new ones.

A baseline is JSON, written with sorted keys and entries in a stable order
so that rewriting it after a change shows a small diff::

    {
      "version": 1,
      "tool": "shapecheck",
      "findings": [
        {"path": "src/model.py", "code": "SC101", "name": "broadcast-incompatible",
         "function": "Block.forward", "statement": "h = x + bias", "occurrence": 0,
         "fingerprint": "3f0c..."},
        ...
      ]
    }

``path`` is relative to the baseline file's directory (``/`` separators), so
the file works from any directory and on any machine. An entry matches a
finding of the same path whose fingerprint (lint/fingerprint.py: rule,
enclosing function, statement text, occurrence) is the same: moving code up
or down keeps it matched, and a new finding, even of the same rule in the
same function, has a fingerprint of its own. ``function``, ``statement`` and
``occurrence`` are there for people reading the file.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from .config import ConfigError
from .fingerprint import fingerprints
from .runner import LintReport

BASELINE_VERSION = 1


def _key_path(path: str, base: Path) -> str:
    """A finding's path as the baseline spells it: relative to the baseline's directory."""
    absolute = os.path.abspath(path)
    try:
        return Path(os.path.relpath(absolute, base)).as_posix()
    except ValueError:  # another drive (Windows): keep it absolute
        return Path(absolute).as_posix()


def baseline_document(report: LintReport, baseline_path: Path) -> dict:
    base = baseline_path.absolute().parent
    prints = fingerprints(report.findings, report.sources)
    entries = []
    for finding in report.findings:
        fp = prints[id(finding)]
        entries.append({"path": _key_path(finding.path, base), "code": finding.code, "name": finding.name,
                        "function": fp.function, "statement": fp.statement, "occurrence": fp.occurrence,
                        "fingerprint": fp.digest})
    entries.sort(key=lambda e: (e["path"], e["code"], e["function"], e["statement"], e["occurrence"]))
    return {"version": BASELINE_VERSION, "tool": "shapecheck", "findings": entries}


def write_baseline(report: LintReport, baseline_path: Path) -> int:
    """Writes the baseline of ``report``'s findings; returns how many entries it has."""
    document = baseline_document(report, baseline_path)
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    try:
        baseline_path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write baseline {baseline_path}: {exc.strerror or exc}") from None
    return len(document["findings"])


@dataclass(frozen=True)
class Baseline:
    base: Path
    keys: frozenset[tuple[str, str]]  # (path relative to base, fingerprint)

    @classmethod
    def read(cls, path: Path) -> "Baseline":
        """Raises ConfigError (one line, exit code 2) when the file is missing or not a baseline."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read baseline {path}: {exc.strerror or exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ConfigError(f"baseline {path} is not JSON: {exc}".splitlines()[0]) from None
        entries = data.get("findings") if isinstance(data, dict) else None
        if not isinstance(entries, list) or data.get("version") != BASELINE_VERSION or not all(
                isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("fingerprint"), str)
                for e in entries):
            raise ConfigError(f"{path} is not a shapecheck baseline (version {BASELINE_VERSION})")
        return cls(path.absolute().parent, frozenset((e["path"], e["fingerprint"]) for e in entries))

    def apply(self, report: LintReport) -> int:
        """Drops the findings the baseline holds from ``report``; returns how many it dropped."""
        prints = fingerprints(report.findings, report.sources)
        kept = [f for f in report.findings
                if (_key_path(f.path, self.base), prints[id(f)].digest) not in self.keys]
        dropped = len(report.findings) - len(kept)
        report.findings = kept
        return dropped


__all__ = ["Baseline", "BASELINE_VERSION", "baseline_document", "write_baseline"]
