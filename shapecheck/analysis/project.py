"""Which file of the user's project an import statement names, and each file parsed once.

Resolution follows Python's own rules as far as they can be read from the
disk without running anything: a relative import is taken from the
importing file's package; an absolute one from the importing file's
directory, from the directory above the top of its package (the nearest
ancestor without ``__init__.py``), and from the lint root. Standard-library
names and anything under site-packages are libraries, never project files.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import tokenize
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

MAX_IMPORT_DEPTH = 3
"""A imports B imports C imports D: D's own imports are unknown."""

MAX_IMPORTED_MODULES = 24
"""Project files loaded for one analyzed file; the rest of its imports are unknown."""

MAX_IMPORTED_BYTES = 200_000
"""A bigger imported file is unknown: its module level alone would cost more than the importer."""

_PARSED_CAPACITY = 128
_LIBRARY_DIRS = frozenset({"site-packages", "dist-packages"})
_STDLIB = frozenset(sys.stdlib_module_names)


@dataclass(frozen=True)
class ParsedFile:
    path: str
    digest: str
    source: str
    module: cst.Module


_parsed: OrderedDict[str, tuple[str, cst.Module] | None] = OrderedDict()


def content_digest(data: bytes) -> str:
    """What an importer's cached findings remember of each file it imported."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return content_digest(handle.read())
    except OSError:
        return None


def _parse(data: bytes, digest: str) -> tuple[str, cst.Module] | None:
    """The file's text and tree, from a per-process cache keyed by content (least recently used first out)."""
    import libcst as cst  # not loaded by a warm cached lint, which only hashes files

    if digest in _parsed:
        _parsed.move_to_end(digest)
        return _parsed[digest]
    result = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        source = data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
        result = source, cst.parse_module(source)
    except Exception:  # undecodable or unparsable: the import is unknown, the importer goes on
        result = None
    _parsed[digest] = result
    if len(_parsed) > _PARSED_CAPACITY:
        _parsed.popitem(last=False)
    return result


def read_project_file(path: str) -> ParsedFile | None:
    try:
        if os.path.getsize(path) > MAX_IMPORTED_BYTES:
            return None
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    digest = content_digest(data)
    parsed = _parse(data, digest)
    if parsed is None:
        return None
    return ParsedFile(path, digest, parsed[0], parsed[1])


def _is_package(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "__init__.py"))


def package_top_parent(directory: str) -> str:
    """The directory above the outermost package holding ``directory`` (itself when not a package)."""
    while _is_package(directory):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


@dataclass(frozen=True)
class Target:
    """A module of the project: a ``.py`` file, or a package directory (its ``__init__.py`` if any)."""

    path: str  # the file to load, or "" for a namespace package
    directory: str  # for submodules: the package's directory, or "" for a plain module


def _in_library(path: str) -> bool:
    return bool(_LIBRARY_DIRS.intersection(path.split(os.sep)))


def _target_in(base: str, parts: list[str]) -> Target | None:
    here = os.path.join(base, *parts) if parts else base
    if parts and os.path.isfile(here + ".py"):
        return Target(here + ".py", "")
    if os.path.isdir(here):
        init = os.path.join(here, "__init__.py")
        if os.path.isfile(init):
            return Target(init, here)
        if parts:
            return Target("", here)  # a namespace package: only its submodules are known
    return None


@dataclass
class ImportResolver:
    """Where the imports of one file point; ``roots`` bound what counts as the project."""

    importer: str
    lint_root: str | None = None
    roots: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.importer = os.path.abspath(self.importer)
        here = os.path.dirname(self.importer)
        roots = [here, package_top_parent(here)]
        if self.lint_root:
            roots.append(os.path.abspath(self.lint_root))
        self.roots = tuple(dict.fromkeys(roots))

    def within_roots(self, path: str) -> bool:
        return not _in_library(path) and any(
            path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)

    def resolve(self, module: str | None, level: int, importer: str | None = None) -> Target | None:
        """``from ..a.b import ...`` is ("a.b", 2); ``import a.b`` is ("a.b", 0)."""
        parts = module.split(".") if module else []
        importer = os.path.abspath(importer or self.importer)
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                if not _is_package(base):
                    return None  # beyond the top of the package: Python refuses it too
                base = os.path.dirname(base)
            if not _is_package(base):
                return None
            target = _target_in(base, parts)
            return target if target is not None and self.within_roots(target.path or target.directory) \
                else None
        if not parts or parts[0] in _STDLIB:
            return None
        here = os.path.dirname(importer)
        searched = [here, package_top_parent(here)]
        if self.lint_root:
            searched.append(os.path.abspath(self.lint_root))
        for root in dict.fromkeys(searched):
            target = _target_in(root, parts)
            if target is not None:
                return target if self.within_roots(target.path or target.directory) else None
        return None


__all__ = ["MAX_IMPORT_DEPTH", "MAX_IMPORTED_MODULES", "ImportResolver", "ParsedFile", "Target",
           "content_digest", "file_digest", "read_project_file"]
