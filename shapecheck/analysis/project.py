"""Which file of the user's project an import statement names, and each file parsed once.

Resolution follows Python's own rules as far as they can be read from the
disk without running anything: a relative import is taken from the
importing file's package; an absolute one from the importing file's
directory, from the directory above the top of its package (the nearest
ancestor without ``__init__.py``), and from the lint root. Standard-library
names and anything under site-packages are libraries, never project files.
"""

from __future__ import annotations

import ast
import builtins
import gc
import hashlib
import io
import os
import sys
import tokenize
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
    from libcst._position import CodeRange

    from .positions import NodePositions

MAX_IMPORT_DEPTH = 3
"""Imported files past the importer, not counting a package's ``__init__``: A imports B
imports C imports D imports E, and E's own imports are unknown. (timm's model files reach
nn.Conv2d through timm.layers' create_conv2d, create_conv2d_pad and get_padding_value.)"""

MAX_IMPORTED_MODULES = 40
"""Project files loaded for one analyzed file (a file counts once, whichever of its names
each import needs); past it, the imports of imported files are unknown. The files the
analyzed file's own imports name are always loaded."""

MAX_IMPORTED_BYTES = 1_000_000
"""A bigger imported file is unknown (generated code, tables). Below it, only the statements an
import names are parsed, so a big file costs what its imported definitions cost."""

MAX_IMPORTED_LINES = 300
"""Lines of an imported file parsed for one import statement."""

MAX_DEPENDENCY_LINES = 40
"""The largest statement followed because an imported definition reads a name it binds."""

_PARSED_CAPACITY = 128
_LIBRARY_DIRS = frozenset({"site-packages", "dist-packages"})
_STDLIB = frozenset(sys.stdlib_module_names)
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class ParsedFile:
    """The top-level statements of a project file that an importer needs, parsed."""

    path: str
    digest: str  # of the whole file's content
    source: str  # the whole file
    module: cst.Module  # of the statements kept, in order
    positions: "StatementPositions"
    key: tuple  # (digest, statements kept, names needed): two imports needing the same share the values
    needed: frozenset[str] | None = None
    """The names the kept statements must bind (those asked for and those they read); None:
    all. An import statement kept for one of its names loads only the needed ones: a
    package's ``__init__`` re-exporting thirteen classes in one statement asks its module
    for the one its importer reads, not for all thirteen and what each reads."""


_LRU = OrderedDict


def _remember(cache: OrderedDict, key, value):
    cache[key] = value
    if len(cache) > _PARSED_CAPACITY:
        cache.popitem(last=False)
    return value


_outlines: OrderedDict = _LRU()  # content digest -> (text, per statement: lines, binds, reads, class bases, is an import) or None
_statements: OrderedDict = _LRU()  # (digest, statement index) -> (libcst module of it, first line)
_STATEMENTS_CAPACITY = 8192


def content_digest(data: bytes) -> str:
    """What an importer's cached findings remember of each file it imported."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return content_digest(handle.read())
    except OSError:
        return None


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Names a top-level statement binds (through if/try/with/for blocks, not inside defs)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".", 1)[0] for a in stmt.names}
    names: set[str] = set()
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        return names
    for field_name in ("body", "orelse", "finalbody", "handlers"):
        for child in getattr(stmt, field_name, ()):
            if isinstance(child, ast.ExceptHandler):
                for inner in child.body:
                    names |= _bound_names(inner)
            elif isinstance(child, ast.stmt):
                names |= _bound_names(child)
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
        names.update(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
                     and isinstance(n.ctx, ast.Store))
    return names


def _outline(data: bytes, digest: str):
    """Text, and per top-level statement its lines, the names it binds and those it reads.

    Python's own parser (parsing only, nothing runs) is an order of magnitude
    faster than libcst: it decides what to keep, libcst parses only that.
    """
    if digest in _outlines:
        _outlines.move_to_end(digest)
        return _outlines[digest]
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except Exception:  # undecodable or unparsable: the import is unknown, the importer goes on
        return _remember(_outlines, digest, None)
    statements = []
    for stmt in tree.body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        reads = frozenset(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name))
        bases = frozenset(n.id for base in stmt.bases for n in ast.walk(base)
                          if isinstance(n, ast.Name)) if isinstance(stmt, ast.ClassDef) else frozenset()
        statements.append((first, stmt.end_lineno or stmt.lineno, frozenset(_bound_names(stmt)), reads,
                           bases, isinstance(stmt, (ast.Import, ast.ImportFrom))))
    return _remember(_outlines, digest, (text, tuple(statements)))


def _kept(statements: tuple, names: frozenset[str] | None) -> tuple[tuple[int, ...], frozenset[str] | None]:
    """The statements binding ``names``, and the small ones they read, transitively (all when
    None); and the names they were kept for.

    Bounded: what a definition reads is followed only through statements of a few lines
    (imports, constants, small helpers) and up to a budget of lines; a name left out
    is unknown, which never produces a finding. Without the bound, each import parsed
    about the whole of the imported file, and the lint cost doubled. A kept class's base
    classes are followed whatever their size (within the budget): without its base, a
    class has no __init__ or forward (torchvision's Conv2dNormActivation is its base's).
    """
    if names is None:
        return tuple(range(len(statements))), None
    kept: set[int] = set()
    budget = MAX_IMPORTED_LINES
    wanted, limit = set(names), MAX_IMPORTED_LINES
    bases_wanted: set[str] = set()
    while True:
        reads_of_added: set[str] = set()
        added = False
        for index, (first, last, binds, reads, bases, is_import) in enumerate(statements):
            size = last - first + 1
            if index in kept or not binds & (wanted | bases_wanted):
                continue
            if is_import:
                # An import binds names and runs nothing here: ``import torch.nn as nn`` must
                # not lose to the budget the classes that read it have spent.
                kept.add(index)
                added = True
                reads_of_added |= reads
                continue
            allowed = MAX_IMPORTED_LINES if binds & bases_wanted else limit
            if size > allowed or size > budget:
                continue
            kept.add(index)
            added = True
            budget -= size
            reads_of_added |= reads
            bases_wanted |= bases
        if not added:
            break
        wanted |= reads_of_added
        limit = MAX_DEPENDENCY_LINES
    # Names read but bound by no statement of the file come from its star imports
    # (timm's create_act.py has nn and its activations from ``from .activations import *``).
    bound = set().union(*(statement[2] for statement in statements))
    if wanted - bound - _BUILTINS:
        kept.update(index for index, statement in enumerate(statements) if "*" in statement[2])
    return tuple(sorted(kept)), frozenset(wanted)


class StatementPositions:
    """Positions of nodes of statements parsed one by one, as lines of the whole file."""

    def __init__(self, parts: list[tuple[cst.Module, int]]):
        self.parts = parts  # (the statement as a module, its first line in the file)
        self._owner: dict[int, int] | None = None
        self._positions: dict[int, NodePositions] = {}

    def _locate(self, node: object) -> tuple[NodePositions, int] | None:
        import libcst as cst

        from .positions import NodePositions

        if self._owner is None:
            self._owner = {}
            for index, (module, _) in enumerate(self.parts):
                for child in _walk(module):
                    self._owner[id(child)] = index
        index = self._owner.get(id(node)) if isinstance(node, cst.CSTNode) else None
        if index is None:
            return None
        if index not in self._positions:
            self._positions[index] = NodePositions(self.parts[index][0])
        return self._positions[index], self.parts[index][1] - 1

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        from libcst._position import CodePosition, CodeRange

        found = self._locate(node)
        if found is None:
            raise KeyError(node)
        positions, offset = found
        where = positions[node]
        return CodeRange(CodePosition(where.start.line + offset, where.start.column),
                         CodePosition(where.end.line + offset, where.end.column))

    def __contains__(self, node: object) -> bool:
        return self._locate(node) is not None


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _parse_statement(digest: str, index: int, text: str, first: int, last: int):
    key = (digest, index)
    if key in _statements:
        _statements.move_to_end(key)
        return _statements[key]
    import libcst as cst

    snippet = "\n".join(text.split("\n")[first - 1:last]) + "\n"
    enabled = gc.isenabled()
    gc.disable()  # a parser's acyclic tree only sets the collector off (see analysis/api.py)
    try:
        parsed = cst.parse_module(snippet), first
    except Exception:
        parsed = None
    finally:
        if enabled:
            gc.enable()
    _statements[key] = parsed
    if len(_statements) > _STATEMENTS_CAPACITY:
        _statements.popitem(last=False)
    return parsed


def read_project_file(path: str, names: frozenset[str] | None = None) -> ParsedFile | None:
    """The file's top-level statements defining ``names`` and what they read (None: all).

    Each statement is parsed on its own, once per process: the many files importing
    one module parse only what they use of it, and only once.
    """
    import libcst as cst  # not loaded by a warm cached lint, which only hashes files

    data = _small_file(path)
    if data is None:
        return None
    digest = content_digest(data)
    outline = _outline(data, digest)
    if outline is None:
        return None
    text, statements = outline
    kept, needed = _kept(statements, names)
    parts = []
    for index in kept:
        first, last = statements[index][:2]
        parsed = _parse_statement(digest, index, text, first, last)
        if parsed is None:
            return None
        parts.append(parsed)
    body = tuple(stmt for module, _ in parts for stmt in module.body)
    return ParsedFile(path, digest, text, cst.Module(body=body), StatementPositions(parts),
                      (digest, kept, needed), needed)


def _small_file(path: str) -> bytes | None:
    """The bytes of a file small enough to import from; None when too big or unreadable."""
    try:
        if os.path.getsize(path) > MAX_IMPORTED_BYTES:
            return None
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def file_binds(path: str, name: str) -> bool:
    """Whether a top-level statement of the file at ``path`` binds ``name``.

    ``from pkg import name`` gives the package's own binding when its ``__init__``
    makes one (``from .conv import conv`` rebinds the submodule's name to the
    function), and the submodule only otherwise.
    """
    data = _small_file(path)
    if data is None:
        return False
    outline = _outline(data, content_digest(data))
    return outline is not None and any(name in statement[2] for statement in outline[1])


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
           "file_binds",
           "content_digest", "file_digest", "read_project_file"]
