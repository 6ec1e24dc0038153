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
import re
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from ..imports import dotted_name, import_bindings
from ..positions import NodePositions
from ..project import (
    MAX_IMPORT_DEPTH,
    MAX_IMPORTED_MODULES,
    ImportResolver,
    Target,
    file_binds,
    read_project_file,
)
from ..values import UNKNOWN_VALUE, FunctionValue, InstanceValue, ModuleRef, Value

_CONTEXT_FIELDS = ("module", "source", "path", "_positions", "trailing_shapes", "standalone_shapes",
                   "namespace_uses", "array_libraries", "default_library")


_LOADED: OrderedDict = OrderedDict()
"""Imported modules already run, per process: the many files importing one module share its
values (its module level runs once). Importers only read those values and analyze calls into
them, which keeps its state in each importer's own interpreter. Only a module whose run did
not depend on its importer is kept here (see SharedModule), so a file's findings are the
same whichever files the process analyzed before it."""

_LOADED_CAPACITY = 256

_SUMMARIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Functions of imported files analyzed on their own: (result, parameter writes, findings the
file has on its own), shared by every importer in the process."""

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class SharedModule:
    """An imported module as its run left it (None when the run failed), with what the run
    loaded or found loaded, transitively, in ``closure``: reusing the module brings all of
    them into the importer's session (its budget, its contexts, the digests its cache keys
    on), as running the module again would."""

    module: "ProjectModule | None"
    contexts: dict  # id(module scope) -> ModuleContext, of the module and of its closure
    dependencies: dict  # path -> content digest, of the module and of its closure
    closure: dict = field(default_factory=dict)  # key -> SharedModule
    depth: int = 0  # how deep in the import chain it ran
    depth_cut: bool = False  # an import it reached was past the depth limit

    def fits(self, session: "ImportSession", key: Any) -> bool:
        """Running the module again in ``session`` would end as its shared run did: no file
        it loads is on the session's import chain (a cycle there), none was cut short in
        the session, and the session's budget holds all of them."""
        keys = self.closure.keys() | {key}
        if any(path in self.dependencies for path in session.loading):
            return False
        if not keys.isdisjoint(session.cut_short):
            return False
        return len(session.dependencies.keys() | self.dependencies.keys()) <= MAX_IMPORTED_MODULES


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


def _depth(loading: list[str]) -> int:
    """How many imported files deep the chain is (``loading[0]`` is the analyzed file): a
    package's ``__init__`` that re-exports its modules' names (``from .conv import
    create_conv2d``) is a hop of the name, not a file of code."""
    return sum(1 for path in loading[1:] if os.path.basename(path) != "__init__.py")


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
        self.loaded: dict[Any, ProjectModule | None] = {}  # (digest, statements kept) or a directory
        self.loading: list[str] = [self.resolver.importer]
        self.dependencies: dict[str, str] = {}  # path -> content digest
        self.contexts: dict[int, ModuleContext] = {}  # id(module scope) -> its file's state
        self.home: ModuleContext | None = None
        self.records: dict[Any, SharedModule] = {}  # key -> the module with its closure
        self.touched: list[set] = []  # per run under way: the keys its imports reached
        # Imports refused for a cycle or the budget, or reaching a module whose own were: what
        # depends on them depends on this session's history, so it is never shared.
        self.refusals = 0
        self.cut_short: set = set()  # keys of the modules whose run met a refusal
        # Imports past the depth limit depend only on how deep the chain was: a module they
        # left incomplete is complete when an import nearer the analyzed file runs it again.
        self.depth_refusals = 0
        self.depth_cut: set = set()  # keys of the modules whose run met the depth limit
        self.loaded_depth: dict[Any, int] = {}  # key -> how deep the import chain ran it

    def reached(self, key: Any) -> Any:
        """An import reached the module under ``key``: the runs under way depend on it."""
        if self.touched:
            self.touched[-1].add(key)
        if key in self.cut_short:
            self.refusals += 1
        if key in self.depth_cut:
            self.depth_refusals += 1
        return self.loaded[key]

    def rerun_nearer(self, key: Any, depth: int) -> bool:
        """Whether the module under ``key``, loaded already, runs again for an import ``depth``
        files deep: its run was cut short, and this import is nearer the analyzed file."""
        return key in self.loaded and (key in self.cut_short or key in self.depth_cut) and \
            depth < self.loaded_depth.get(key, depth)

    def adopt(self, key: Any, record: SharedModule) -> None:
        """Bring in a module run by an earlier analysis, with everything its run loaded."""
        for part_key, part in ((key, record), *record.closure.items()):
            if part_key not in self.loaded:
                self.loaded[part_key] = part.module
                self.records[part_key] = part
                self.loaded_depth[part_key] = part.depth
                if part.depth_cut:
                    self.depth_cut.add(part_key)
        self.contexts.update(record.contexts)
        self.dependencies.update(record.dependencies)

    def record(self, key: Any, module: "ProjectModule | None", contexts: dict,
               dependencies: dict, touched: set, depth: int = 0,
               depth_cut: bool = False) -> SharedModule:
        """What the run of ``key`` loaded and found loaded, for reuse as one piece."""
        closure: dict = {}
        for part_key in touched - {key}:
            part = self.records.get(part_key)
            if part is not None:
                closure[part_key] = part
                closure.update(part.closure)
        closure.pop(key, None)
        for part in closure.values():
            contexts = {**part.contexts, **contexts}
            dependencies = {**part.dependencies, **dependencies}
        self.records[key] = SharedModule(module, contexts, dependencies, closure, depth, depth_cut)
        return self.records[key]

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
    needed: frozenset[str] | None = None  # what an imported file's importers read of it; None: all
    here: ModuleContext | None = None  # the file whose body runs now
    home_coverage = None  # the analyzed file's coverage recorder, when one was asked for
    home: ModuleContext | None = None  # the analyzed file

    def __init__(self) -> None:
        self.foreign_reported: set[tuple] = set()  # (path, code, line, column) of other files
        self.callees: list[FunctionValue | None] = []  # the specializations under way, innermost last

    def start_imports(self, session: ImportSession) -> None:
        self.session = session
        self.home = self.here = ModuleContext(self)
        session.contexts[id(self.frame.scope)] = self.home
        if session.home is None:
            session.home = self.home

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
                    bound = alias.asname.name.value
                    if not self.reads(bound):
                        continue
                    module = self.load_module(full, 0, self.attributes_used(bound))
                    if module is not None:
                        out[bound] = module
                    continue
                # ``import a.b.c`` binds ``a``, with ``b`` and ``b.c`` as its attributes; only the
                # last is loaded (the packages' own names are rarely what such code reads).
                parts = full.split(".")
                leaf = self.load_module(full, 0, self.attributes_used(full))
                if leaf is None:
                    continue
                for depth in range(len(parts) - 1, 0, -1):
                    leaf = ProjectModule(".".join(parts[:depth]), {}, {parts[depth]: leaf})
                out[parts[0]] = leaf
            return out
        module_name = dotted_name(node.module) if node.module is not None else None
        level = len(node.relative)
        if module_name is None and node.module is not None:
            return out
        if isinstance(node.names, cst.ImportStar):
            # In the analyzed file, for the names its text mentions; in an imported file, for
            # those its importers need (kept only when no other statement binds one of them:
            # a package's ``__init__`` of star imports would load every module of the package).
            source = self.load_module(module_name, level, self.identifiers() if not self.quiet
                                      else self.needed)
            if source is not None:
                out["*"] = source
            return out
        wanted: dict[str, str] = {}  # name in the module -> name bound here
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            name = alias.name.value
            bound = alias.asname.name.value if alias.asname is not None and \
                isinstance(alias.asname.name, cst.Name) else name
            if not self.reads(bound):
                continue  # bound to the unknown value, never read by what imports this file
            # A submodule first: ``from . import layers`` need not run the package's __init__,
            # unless the __init__ binds the name itself (``from .conv import conv``).
            qualified = f"{module_name}.{name}" if module_name else name
            if self.is_module_file(qualified, level) and not self.package_binds(module_name, level,
                                                                                name):
                submodule = self.load_module(qualified, level, self.attributes_used(bound))
                if submodule is not None:
                    out[bound] = submodule
                continue
            wanted[name] = bound
        if wanted:
            source = self.load_module(module_name, level, frozenset(wanted))
            if source is not None:
                for name, bound in wanted.items():
                    if name in source.names:
                        out[bound] = source.names[name]
        return out

    def reads(self, bound: str) -> bool:
        """This file's importers need the name an import statement binds."""
        return self.needed is None or bound in self.needed

    def attributes_used(self, prefix: str) -> frozenset[str]:
        """What this file reads of ``prefix.``: the names an imported module must define."""
        pattern = re.compile(r"\b" + r"\s*\.\s*".join(map(re.escape, prefix.split("."))) +
                             r"\s*\.\s*([A-Za-z_]\w*)")
        return frozenset(pattern.findall(self.source))

    def identifiers(self) -> frozenset[str]:
        """Every name this file's text mentions: what a star import can provide that it reads."""
        return frozenset(_IDENTIFIER.findall(self.source))

    def package_binds(self, name: str | None, level: int, member: str) -> bool:
        """The package ``name``'s ``__init__`` binds ``member`` itself."""
        if name is None and not level:
            return False
        target = self.session.resolver.resolve(name, level, self.path)
        return target is not None and bool(target.path) and file_binds(target.path, member)

    def is_module_file(self, name: str, level: int) -> bool:
        target = self.session.resolver.resolve(name, level, self.path)
        return target is not None and not target.directory

    def load_module(self, name: str | None, level: int,
                    names: frozenset[str] | None) -> ProjectModule | None:
        """The module's definitions of ``names`` (and what they need); None: all of them."""
        if name is None and not level:
            return None
        target = self.session.resolver.resolve(name, level, self.path)
        return self.load_target(target, names) if target is not None else None

    def load_target(self, target: Target, names: frozenset[str] | None) -> ProjectModule | None:
        session = self.session
        if not target.path:
            if target.directory not in session.loaded:
                module = session.loaded[target.directory] = ProjectModule(target.directory, {})
                session.records[target.directory] = SharedModule(module, {}, {})
            return session.reached(target.directory)
        if _depth(session.loading) > MAX_IMPORT_DEPTH:
            session.depth_refusals += 1
            return None  # too far: unknown
        # The files the analyzed file's own import statements name are always read; what
        # they import in turn (at their module level, in a function's body, or as a
        # package's __init__ re-exporting) shares the budget. (timm's resnet.py imports 34
        # names of timm.layers before its own _builder: their imports took the whole budget.
        # Reading every file a package re-exports the analyzed file's names from, too,
        # doubled the lint time of transformers, whose files import dozens of names from
        # its utils package.)
        own = _depth(session.loading) == 0 and self.here is session.home
        if target.path in session.loading or target.path not in session.dependencies and \
                not own and len(session.dependencies) >= MAX_IMPORTED_MODULES:
            session.refusals += 1
            return None  # a cycle, or over the budget: unknown
        if names is not None and not names:
            return ProjectModule(target.path, {})  # nothing of it is read here
        parsed = read_project_file(target.path, names)
        if parsed is None:
            return None
        key = parsed.key
        depth = _depth(session.loading)
        if key in session.loaded and not session.rerun_nearer(key, depth):
            return session.reached(key)
        # (timm.layers' __init__ reaches create_conv2d.py first through conv_bn_act.py, one
        # file deeper than the analyzed file's own import of it: run there, its conv2d_same
        # lost get_padding_value to the depth limit, and create_conv2d built no conv.)
        session.loaded_depth[key] = depth
        session.cut_short.discard(key)
        session.depth_cut.discard(key)
        shared_key = (key, depth, session.resolver.lint_root,
                      repr(getattr(self.settings, "dialect", None)),
                      repr(getattr(self.settings, "shape_hints", None)))
        shared = _LOADED.get(shared_key)
        if shared is not None and shared.fits(session, key):
            _LOADED.move_to_end(shared_key)
            session.adopt(key, shared)
            return session.reached(key)
        session.loaded[key] = None
        refusals_before, depth_refusals_before = session.refusals, session.depth_refusals
        contexts_before, dependencies_before = set(session.contexts), set(session.dependencies)
        session.dependencies[parsed.path] = parsed.digest
        session.loading.append(target.path)
        session.touched.append(set())
        module = None
        try:
            interp = type(self)(parsed.module, parsed.source, parsed.path, self.settings)
            interp._positions = parsed.positions
            interp.quiet = True
            interp.needed = parsed.needed
            interp.start_imports(session)
            interp.exec_block(parsed.module.body)
            module = session.loaded[key] = ProjectModule(parsed.path, interp.frame.scope.vars)
        except Exception:
            session.refusals += 1  # an analyzer failure on the other file: its own lint reports it
        finally:
            session.loading.pop()
            touched = session.touched.pop()
        depth_cut = session.depth_refusals != depth_refusals_before
        if depth_cut:
            session.depth_cut.add(key)
        record = session.record(
            key, module, {k: v for k, v in session.contexts.items() if k not in contexts_before},
            {k: v for k, v in session.dependencies.items() if k not in dependencies_before}, touched,
            depth, depth_cut)
        if session.refusals != refusals_before:
            session.cut_short.add(key)
        else:
            _LOADED[shared_key] = record
            if len(_LOADED) > _LOADED_CAPACITY:
                _LOADED.popitem(last=False)
        return session.reached(key)

    def attribute(self, node: cst.CSTNode, base: Value, name: str) -> Value:
        if isinstance(base, ProjectModule):
            return base.member(name)
        return super().attribute(node, base, name)

    # --- running bodies of other files ------------------------------------------------

    def analyze_function(self, func: FunctionValue, args: list, kwargs: dict,
                         by_call: bool) -> Value:
        session = self.session
        target = session.contexts.get(id(_module_scope(func.scope))) if session is not None else None
        if target is None or target is self.here:
            return super().analyze_function(func, args, kwargs, by_call)
        previous = self.here
        previous.save(self)
        target.load(self)
        self.here = target
        # The other file's expressions are counted as that file's (a lint of both merges them,
        # lint/runner.py); the analyzed file's, reached back through it (a builder in
        # _builder.py building this file's model and running its forward), as any other
        # evaluation of them.
        coverage = self.coverage
        self.coverage = self.home_coverage if target is session.home else (
            self.home_coverage.of_file(target.path, target.positions())
            if self.home_coverage is not None else None)
        try:
            return super().analyze_function(func, args, kwargs, by_call)
        finally:
            self.coverage = coverage
            target.save(self)
            previous.load(self)
            self.here = previous

    def report(self, code: str, node: cst.CSTNode, message: str, exc_type: str | None = None,
               related: tuple = (), own: bool = False, fix: Any = None) -> None:
        if self.quiet:
            return
        if self.here is not self.home:
            own = False  # another file's line: reported at the call into it, if at all
            fix = None  # its span is in the other file
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
        super().report(code, node, message, exc_type, related, own, fix)

    def line(self, node: cst.CSTNode) -> int:
        line = super().line(node)
        if line or self.session is None or not self.session.loaded:
            return line
        context = self.session.owner_context(node)
        return context.positions()[node].start.line if context is not None else 0

    def is_foreign(self, func: FunctionValue) -> bool:
        session = self.session
        if session is None:
            return False
        context = session.contexts.get(id(_module_scope(func.scope)))
        return context is not None and context is not self.home

    def call_function(self, func: FunctionValue, args: list, kwargs: dict,
                      node: cst.CSTNode | None = None) -> Value:
        # An imported file's module level only defines what its importers use: a call there
        # (a decorator factory, a registry) is not analyzed.
        return UNKNOWN_VALUE if self.quiet else super().call_function(func, args, kwargs, node)

    def function_summary(self, func: FunctionValue, self_value: Value | None = None) -> Value:
        """A function of another file analyzed on its own is the same for every importer:
        analyzed once per process, its result and the parameters it writes are reused."""
        if self_value is not None or func.owner is not None or not self.is_foreign(func):
            return super().function_summary(func, self_value)
        key = (id(func), "summary")
        if key in self.summaries:
            return self.summaries[key]
        shared = _SUMMARIES.get(func)
        if shared is not None:
            result, writes, reported = shared
            self.analyzed.add(id(func))
            self.summaries[key] = result
            self.param_writes.update(writes)
            self.foreign_reported |= reported
            return result
        writes_before, reported_before = dict(self.param_writes), set(self.foreign_reported)
        result = super().function_summary(func, self_value)
        if id(func) not in self.active:
            _SUMMARIES[func] = (result, {k: v for k, v in self.param_writes.items()
                                         if writes_before.get(k) is not v},
                                self.foreign_reported - reported_before)
        return result

    def standalone(self, func: FunctionValue) -> None:
        """A method of a class from another file is analyzed on its own (all the class's
        methods) only when a call into it has a finding to weigh: most never have one, and
        that analysis would be repeated by every file importing the class."""
        if func.owner is not None and self.is_foreign(func):
            return
        super().standalone(func)

    def specialize(self, func: FunctionValue, args: list, kwargs: dict, node) -> Value:
        self.callees.append(func)
        try:
            return super().specialize(func, args, kwargs, node)
        finally:
            self.callees.pop()

    def instantiate(self, cls: Any, args: list, kwargs: dict, node: cst.CSTNode | None = None) -> Value:
        if self.quiet:
            return InstanceValue(cls)
        init = cls.members.get("__init__")
        self.callees.append(init if isinstance(init, FunctionValue) else None)
        try:
            return super().instantiate(cls, args, kwargs, node)
        finally:
            self.callees.pop()

    def emit_at_call(self, node: cst.CSTNode, where: str, captured: dict) -> None:
        """A finding the callee has with these arguments, from another file: at the call, naming
        that file's line; none the other file reports on its own."""
        own = {}
        callee = self.callees[-1] if self.callees else None
        if callee is not None and callee.owner is not None and self.is_foreign(callee) and \
                any(finding.path != self.path for finding, _ in captured.values()):
            super().standalone(callee)  # what the class reports on its own (see standalone)
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


__all__ = ["ImportSession", "ModuleContext", "ProjectImports", "ProjectModule", "SharedModule"]
