"""Turns command-line paths into the list of files to lint, honouring excludes and .gitignore."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pathspec

from .config import ConfigError, ConfigResolver

DEFAULT_EXCLUDES = frozenset({".git", ".venv", "venv", "build", "dist", "__pycache__", "node_modules", ".tox"})
SOURCE_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class IgnoreFile:
    """The patterns of one .gitignore (or of the config's excludes), relative to ``base``, an absolute directory."""

    base: str
    spec: pathspec.GitIgnoreSpec

    @classmethod
    def from_lines(cls, lines: Iterable[str], base: str) -> IgnoreFile:
        return cls(base.rstrip("/") or "/", pathspec.GitIgnoreSpec.from_lines(lines))

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """True when a pattern ignores ``path``, False when a negation re-includes it, None when none match."""
        prefix = self.base.rstrip("/") + "/"
        if not path.startswith(prefix):
            return None
        relative = path[len(prefix):] + ("/" if is_dir else "")
        return self.spec.check_file(relative).include


def is_ignored(rules: Sequence[IgnoreFile], path: str, is_dir: bool) -> bool:
    """As git decides: the deepest .gitignore with a matching pattern wins, and in it the last such pattern."""
    for rule in reversed(rules):
        verdict = rule.verdict(path, is_dir)
        if verdict is not None:
            return verdict
    return False


def _excluded_with_parents(rules: Sequence[IgnoreFile], path: str, root: str) -> bool:
    """A named file is excluded when it, or a directory between it and the config root, is."""
    if is_ignored(rules, path, False):
        return True
    parent = os.path.dirname(path)
    while parent.startswith(root.rstrip("/") + "/"):
        if is_ignored(rules, parent, True):
            return True
        parent = os.path.dirname(parent)
    return False


@lru_cache(maxsize=256)
def _compiled_excludes(excludes: tuple[str, ...], base: str) -> tuple[IgnoreFile, ...]:
    return (IgnoreFile.from_lines(excludes, base),)


def read_gitignore(directory: str) -> list[IgnoreFile]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    return [IgnoreFile.from_lines(lines, directory)]


def _gitignores_above(directory: str) -> list[IgnoreFile]:
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
    rules: list[IgnoreFile] = []
    for folder in reversed(chain):
        rules.extend(read_gitignore(folder))
    return rules


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Paths that could not be read (a directory without permission, say), each with the reason: SC002 each.
    unreadable: list[tuple[Path, str]] = field(default_factory=list)


def discover(paths: list[Path], resolver: ConfigResolver) -> Discovery:
    """Files to lint under ``paths``; raises ConfigError for a path that does not exist.

    Files named explicitly are linted whatever their suffix, unless the
    config's exclude patterns match them (pre-commit passes every file by
    name, and users expect their excludes to hold there too). A path that
    exists but cannot be read is listed in ``unreadable``, and the rest goes on.
    """
    found = Discovery()
    seen: set[str] = set()
    for given in paths:
        if not os.path.lexists(given):
            reason = _stat_failure(given)
            if reason is None:
                raise ConfigError(f"path does not exist: {given}")
            found.unreadable.append((Path(given), reason))
            continue
        absolute = os.path.abspath(given)
        try:
            if os.path.isdir(given):
                _walk_root(Path(given), absolute, resolver, found, seen)
                continue
            config = resolver.for_file(Path(absolute))
        except OSError as exc:  # a config file above it cannot be examined
            found.unreadable.append((Path(given), f"cannot read: {exc.strerror or exc}"))
            continue
        excludes = _compiled_excludes(config.excludes, str(config.root.absolute()))
        if _excluded_with_parents(excludes, absolute, str(config.root.absolute())) or absolute in seen:
            continue
        seen.add(absolute)
        found.files.append(Path(given))
    return found


def _stat_failure(path: Path) -> str | None:
    """Why ``path`` cannot be examined when that is not simply its absence (a parent without permission)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    return None


def _walk_root(shown: Path, absolute: str, resolver: ConfigResolver, found: Discovery, seen: set[str]) -> None:
    config = resolver.for_directory(Path(absolute))
    excludes = _compiled_excludes(config.excludes, str(config.root.absolute()))
    if is_ignored(excludes, absolute, True):
        return
    gitignore = _gitignores_above(absolute) if config.respect_gitignore else []
    if is_ignored(gitignore, absolute, True):
        # Named explicitly though a .gitignore above ignores it (a package inside an ignored
        # virtualenv, say): linted as a named file would be; its own .gitignore files still apply.
        gitignore = []
    _walk(shown, absolute, gitignore, resolver, found, seen, ancestors=())


def _walk(shown: Path, absolute: str, inherited: list[IgnoreFile], resolver: ConfigResolver,
          found: Discovery, seen: set[str], ancestors: tuple[str, ...]) -> None:
    real = os.path.realpath(absolute)
    if real in ancestors:
        found.warnings.append(f"{shown}: symlink loop, skipped")
        return
    if real in seen:
        return  # the same directory reached twice through symlinks
    seen.add(real)
    try:
        with os.scandir(absolute) as it:
            entries = sorted(it, key=lambda e: e.name)
        config = resolver.for_directory(Path(absolute))  # reads this directory's pyproject.toml, if any
    except OSError as exc:
        found.unreadable.append((shown, f"cannot read directory: {exc.strerror or exc}"))
        return
    patterns = inherited + read_gitignore(absolute) if config.respect_gitignore else inherited
    excludes = _compiled_excludes(config.excludes, str(config.root.absolute()))
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
