"""Definitions imported from other files of the project, run as if they were defined here.

An imported file is parsed once (analysis/project.py) and its module level
is run by an interpreter of its own that reports nothing: the file reports
its own findings when it is linted. Its functions and classes are then
ordinary values of the importing file, so calls into them specialize with
the caller's arguments like same-file calls. While a body from another file
runs, the walker's per-file state (tree, positions, path, shape comments)
is that file's: its lines are its own, and a finding there is reported in
the importing file only when it comes from this call's arguments (at the
call, naming the other file's line), never when the other file has it on
its own. A missing file, a library, a cycle or too deep a chain of imports
binds the unknown value, which never produces a finding.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from ..imports import dotted_name, import_bindings
from ..positions import NodePositions
from ..project import MAX_IMPORT_DEPTH, MAX_IMPORTED_MODULES, ImportResolver, Target, read_project_file
from ..values import UNKNOWN_VALUE, FunctionValue, ModuleRef, Value

_CONTEXT_FIELDS = ("module", "source", "path", "_positions", "trailing_shapes", "standalone_shapes",
                   "namespace_uses", "array_libraries", "default_library")


@dataclass(eq=False)
class ProjectModule:
    """``import mypkg.layers as L``: a file (or package) of the project; its names are attributes."""

    path: str
    names: dict = field(repr=False)
    submodules: dict = field(default_factory=dict, repr=False)

    def member(self, name: str) -> Value:
        if name in self.names:
            return self.names[name]
        return self.submodules.get(name, UNKNOWN_VALUE)


class ModuleContext:
    """The walker's per-file state, saved while a body of another file runs."""

    def __init__(self, interp: Any):
        self.save(interp)

    def save(self, interp: Any) -> None:
        for name in _CONTEXT_FIELDS:
            setattr(self, name, getattr(interp, name))

    def load(self, interp: Any) -> None:
        for name in _CONTEXT_FIELDS:
            setattr(interp, name, getattr(self, name))

    def positions(self) -> Any:
        if self._positions is None:
            self._positions = NodePositions(self.module)
        return self._positions


class ImportSession:
    """The project files one analysis loaded: each once, with the content digest the cache keys on."""

    def __init__(self, importer: str, lint_root: str | None):
        self.resolver = ImportResolver(importer, lint_root)
        self.loaded: dict[str, ProjectModule | None] = {}
        self.loading: list[str] = [self.resolver.importer]
        self.dependencies: dict[str, str] = {}  # path -> content digest
        self.contexts: dict[int, ModuleContext] = {}  # id(module scope) -> its file's state
        self.home: ModuleContext | None = None

    def owner_context(self, node: cst.CSTNode) -> ModuleContext | None:
        """The loaded file a node belongs to (slow: only asked when a finding names such a node)."""
        for context in self.contexts.values():
            if context is not self.home and node in context.positions():
                return context
        return None


def _module_scope(scope: Any) -> Any:
    while scope.parent is not None:
        scope = scope.parent
    return scope


class ProjectImports:
    session: ImportSession | None = None
    quiet = False  # the interpreter of an imported file: it reports nothing
    here: ModuleContext | None = None  # the file whose body runs now
    home: ModuleContext | None = None  # the analyzed file

    def start_imports(self, session: ImportSession) -> None:
        self.session = session
        self.home = self.here = ModuleContext(self)
        session.contexts[id(self.frame.scope)] = self.home
        if session.home is None:
            session.home = self.home
        self.foreign_reported: set[tuple] = set()

    # --- binding names -------------------------------------------------------------------

    def exec_import(self, node: cst.Import | cst.ImportFrom) -> None:
        project = self.project_bindings(node) if self.session is not None else {}
        for bound, qualname in import_bindings(node):
            if qualname is None:
                self.frame.scope.vars[bound] = project.get(bound, UNKNOWN_VALUE)
                continue
            self.frame.scope.vars[bound] = ModuleRef(qualname)
            library = qualname.split(".", 1)[0]
            if library in ("numpy", "torch"):
                self.array_libraries.add(library)
                if self.default_library is None:
                    self.default_library = library
        star = project.get("*")
        if isinstance(star, ProjectModule):
            for name, value in star.names.items():
                if not name.startswith("_"):
                    self.frame.scope.vars[name] = value

    def project_bindings(self, node: cst.Import | cst.ImportFrom) -> dict[str, Value]:
        out: dict[str, Value] = {}
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted_name(alias.name)
                if full is None:
                    continue
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    module = self.load_module(full, 0)
                    if module is not None:
                        out[alias.asname.name.value] = module
                    continue
                # ``import a.b.c`` binds ``a``, with ``b`` and ``b.c`` as its attributes.
                parts = full.split(".")
                top = parent = self.load_module(parts[0], 0)
                for depth in range(1, len(parts)):
                    if parent is None:
                        break
                    child = self.load_module(".".join(parts[:depth + 1]), 0)
                    if child is not None:
                        parent.submodules[parts[depth]] = child
                    parent = child
                if top is not None:
                    out[parts[0]] = top
            return out
        module_name = dotted_name(node.module) if node.module is not None else None
        level = len(node.relative)
        if module_name is None and node.module is not None:
            return out
        source = self.load_module(module_name, level)
        if isinstance(node.names, cst.ImportStar):
            if source is not None:
                out["*"] = source
            return out
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            name = alias.name.value
            bound = alias.asname.name.value if alias.asname is not None and \
                isinstance(alias.asname.name, cst.Name) else name
            if source is not None and name in source.names:
                out[bound] = source.names[name]
                continue
            submodule = self.load_module(f"{module_name}.{name}" if module_name else name, level)
            if submodule is not None:
                out[bound] = submodule
        return out

    def load_module(self, name: str | None, level: int) -> ProjectModule | None:
        session = self.session
        if name is None and not level:
            return None
        target = session.resolver.resolve(name, level, self.path)
        return self.load_target(target) if target is not None else None

    def load_target(self, target: Target) -> ProjectModule | None:
        session = self.session
        key = target.path or target.directory
        if key in session.loaded:
            return session.loaded[key]
        if key in session.loading or len(session.loading) > MAX_IMPORT_DEPTH or \
                len(session.loaded) >= MAX_IMPORTED_MODULES:
            return None  # a cycle, or too far: unknown (not remembered: a shorter path may load it)
        if not target.path:
            module = session.loaded[key] = ProjectModule(key, {})  # a namespace package
            return module
        parsed = read_project_file(target.path)
        session.loaded[key] = None
        if parsed is None:
            return None
        session.dependencies[parsed.path] = parsed.digest
        session.loading.append(key)
        try:
            interp = type(self)(parsed.module, parsed.source, parsed.path, self.settings)
            interp.quiet = True
            interp.start_imports(session)
            interp.exec_block(parsed.module.body)
        except Exception:
            return None  # an analyzer failure on the other file: its own lint reports it
        finally:
            session.loading.pop()
        module = session.loaded[key] = ProjectModule(parsed.path, interp.frame.scope.vars)
        return module

    def attribute(self, node: cst.CSTNode, base: Value, name: str) -> Value:
        if isinstance(base, ProjectModule):
            return base.member(name)
        return super().attribute(node, base, name)

    # --- running bodies of other files ------------------------------------------------

    def analyze_function(self, func: FunctionValue, args: list, kwargs: dict) -> Value:
        session = self.session
        target = session.contexts.get(id(_module_scope(func.scope))) if session is not None else None
        if target is None or target is self.here:
            return super().analyze_function(func, args, kwargs)
        previous = self.here
        previous.save(self)
        target.load(self)
        self.here = target
        coverage, self.coverage = self.coverage, None  # the other file's expressions are its own
        try:
            return super().analyze_function(func, args, kwargs)
        finally:
            self.coverage = coverage
            target.save(self)
            previous.load(self)
            self.here = previous

    def report(self, code: str, node: cst.CSTNode, message: str, exc_type: str | None = None,
               related: tuple = ()) -> None:
        if self.quiet:
            return
        if self.here is not self.home:
            if not self.capture:
                # The other file has this on its own and reports it when it is linted.
                span = self.span(node)
                self.foreign_reported.add((self.path, code, span.line, span.column))
                return
        elif self.session is not None and self.session.loaded and node not in self.positions:
            return  # a node of another file, met again here: not a place in this file
        relocated = getattr(self, "relocated", None)
        if relocated is not None:
            path, line = relocated
            message = message.replace(f"(line {line})", f"({self.display_path(path)}, line {line})", 1)
            related = tuple((path, n) if n == line else (p, n) for p, n in related)
        super().report(code, node, message, exc_type, related)

    def line(self, node: cst.CSTNode) -> int:
        line = super().line(node)
        if line or self.session is None or not self.session.loaded:
            return line
        context = self.session.owner_context(node)
        return context.positions()[node].start.line if context is not None else 0

    def emit_at_call(self, node: cst.CSTNode, where: str, captured: dict) -> None:
        """A finding the callee has with these arguments, from another file: at the call, naming
        that file's line; none the other file reports on its own."""
        own = {}
        for key, (finding, exc_type) in captured.items():
            if finding.path == self.path:
                own[key] = (finding, exc_type)
            elif (finding.path,) + key not in self.foreign_reported:
                self.report(finding.code, node, f"{finding.message} [in {where}, "
                                                f"{self.display_path(finding.path)} line "
                                                f"{finding.line}, with the arguments of this call]",
                            exc_type)
        if own:
            super().emit_at_call(node, where, own)

    def note_argument_read(self, alias: Any, name: str, node: cst.CSTNode) -> None:
        """SC305 names the line of the in-place write; in another file, with that file's name."""
        pending = self.pending_calls.get(alias.storage.id) if self.session is not None else None
        context = None
        if pending is not None and self.session.loaded:
            write = pending[1][0]
            if write not in self.positions:
                context = self.session.owner_context(write)
        if context is None:
            return super().note_argument_read(alias, name, node)
        self.relocated = (context.path, context.positions()[pending[1][0]].start.line)
        try:
            super().note_argument_read(alias, name, node)
        finally:
            self.relocated = None

    def display_path(self, path: str) -> str:
        """The other file, as seen from the analyzed one."""
        home = self.home.path if self.home is not None else self.path
        try:
            return os.path.relpath(path, os.path.dirname(os.path.abspath(home)))
        except ValueError:
            return path


__all__ = ["ImportSession", "ModuleContext", "ProjectImports", "ProjectModule"]
