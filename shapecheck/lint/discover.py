"""Turns command-line paths into the list of files to lint, honouring excludes and .gitignore."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .config import ConfigError, ConfigResolver

DEFAULT_EXCLUDES = frozenset({".git", ".venv", "venv", "build", "dist", "__pycache__", "node_modules", ".tox"})
SOURCE_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class IgnorePattern:
    """One gitignore-style line, compiled; ``base`` is the directory it is relative to."""

    base: str
    regex: re.Pattern
    negated: bool
    dir_only: bool


def compile_pattern(line: str, base: str) -> IgnorePattern | None:
    """A gitignore line as git reads it (blank lines and comments give None)."""
    line = line.rstrip("\n\r")
    if not line.strip() or line.startswith("#"):
        return None
    # Trailing spaces are ignored unless escaped with a backslash.
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    regex = _translate(line)
    if not anchored:
        regex = "(?:.*/)?" + regex
    return IgnorePattern(base, re.compile(regex + r"\Z", re.DOTALL), negated, dir_only)


def _translate(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i) and i + 2 == n and (i == 0 or glob[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[":
            end = glob.find("]", i + 2 if glob.startswith("[!", i) or glob.startswith("[^", i) else i + 1)
            if end < 0:
                out.append(re.escape("["))
                i += 1
                continue
            body = glob[i + 1:end]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        elif glob[i] == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def is_ignored(patterns: tuple[IgnorePattern, ...] | list[IgnorePattern], path: str, is_dir: bool) -> bool:
    """The last matching pattern decides, as in git; ``path`` is absolute and normalized."""
    ignored = False
    for pattern in patterns:
        if pattern.dir_only and not is_dir:
            continue
        if path == pattern.base or not path.startswith(pattern.base.rstrip("/") + "/"):
            continue
        rel = path[len(pattern.base.rstrip("/")) + 1:]
        if pattern.regex.match(rel):
            ignored = not pattern.negated
    return ignored


def _excluded_with_parents(patterns: tuple[IgnorePattern, ...], path: str, root: str) -> bool:
    """A named file is excluded when it, or a directory between it and the config root, is."""
    if is_ignored(patterns, path, False):
        return True
    parent = os.path.dirname(path)
    while parent.startswith(root.rstrip("/") + "/"):
        if is_ignored(patterns, parent, True):
            return True
        parent = os.path.dirname(parent)
    return False


@lru_cache(maxsize=256)
def _compiled_excludes(excludes: tuple[str, ...], base: str) -> tuple[IgnorePattern, ...]:
    return tuple(p for p in (compile_pattern(line, base) for line in excludes) if p is not None)


def read_gitignore(directory: str) -> list[IgnorePattern]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
    except OSError:
        return []
    return [p for p in (compile_pattern(line, directory) for line in lines) if p is not None]


def _gitignores_above(directory: str) -> list[IgnorePattern]:
    """The .gitignore files of the enclosing git work tree, outermost first, above ``directory``."""
    chain = []
    current = os.path.dirname(directory)
    while True:
        chain.append(current)
        if os.path.exists(os.path.join(current, ".git")):
            break
        parent = os.path.dirname(current)
        if parent == current:
            return []  # not inside a git work tree: only the walked tree's own .gitignore files count
        current = parent
    patterns: list[IgnorePattern] = []
    for folder in reversed(chain):
        patterns.extend(read_gitignore(folder))
    return patterns


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def discover(paths: list[Path], resolver: ConfigResolver) -> Discovery:
    """Files to lint under ``paths``; raises ConfigError for a path that does not exist.

    Files named explicitly are linted whatever their suffix, unless the
    config's exclude patterns match them (pre-commit passes every file by
    name, and users expect their excludes to hold there too).
    """
    found = Discovery()
    seen: set[str] = set()
    for given in paths:
        if not os.path.lexists(given):
            raise ConfigError(f"path does not exist: {given}")
        absolute = os.path.abspath(given)
        config = resolver.for_file(Path(absolute)) if not os.path.isdir(given) else resolver.for_directory(Path(absolute))
        excludes = _compiled_excludes(config.excludes, str(config.root.absolute()))
        if os.path.isdir(given):
            if is_ignored(excludes, absolute, True):
                continue
            gitignore = _gitignores_above(absolute) if config.respect_gitignore else []
            _walk(Path(given), absolute, gitignore, resolver, found, seen, ancestors=())
        else:
            if _excluded_with_parents(excludes, absolute, str(config.root.absolute())) or absolute in seen:
                continue
            seen.add(absolute)
            found.files.append(Path(given))
    return found


def _walk(shown: Path, absolute: str, inherited: list[IgnorePattern], resolver: ConfigResolver,
          found: Discovery, seen: set[str], ancestors: tuple[str, ...]) -> None:
    real = os.path.realpath(absolute)
    if real in ancestors:
        found.warnings.append(f"{shown}: symlink loop, skipped")
        return
    if real in seen:
        return  # the same directory reached twice through symlinks
    seen.add(real)
    config = resolver.for_directory(Path(absolute))
    patterns = inherited + read_gitignore(absolute) if config.respect_gitignore else inherited
    excludes = _compiled_excludes(config.excludes, str(config.root.absolute()))
    try:
        with os.scandir(absolute) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        found.warnings.append(f"{shown}: cannot read directory: {exc.strerror or exc}")
        return
    for entry in entries:
        child_abs = os.path.join(absolute, entry.name)
        try:
            is_dir = entry.is_dir()  # follows symlinks; a broken link is not a dir
        except OSError:
            is_dir = False
        if is_dir:
            if entry.name in DEFAULT_EXCLUDES or is_ignored(patterns, child_abs, True) \
                    or is_ignored(excludes, child_abs, True):
                continue
            _walk(shown / entry.name, child_abs, patterns, resolver, found, seen, ancestors + (real,))
        elif entry.name.endswith(SOURCE_SUFFIXES):
            if is_ignored(patterns, child_abs, False) or is_ignored(excludes, child_abs, False):
                continue
            key = os.path.realpath(child_abs)
            if key in seen:
                continue
            seen.add(key)
            found.files.append(shown / entry.name)
