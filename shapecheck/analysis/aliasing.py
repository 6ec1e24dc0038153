"""The alias graph: which storage every array name reaches, which ops destroy it, and the hazards.

PyTensor's vocabulary, applied to straight-line Python: every array value is
a :class:`Ref` to a :class:`Root` (one storage), either the root itself or a
view of it of some kind (plain, repeated-element, read-only, or
layout-dependent "maybe"); every in-place op (augmented assignment, ``*_``
methods, setitem, ``out=``, ``np.copyto``, ``fill``) is a destroyer of its
root, as in PyTensor's destroy_map. What is a view of what, and which calls
are in place, comes from the op table (``runtime/ops.py``); where views
overlap comes from ``runtime/layout.py``. The walk is its own small abstract
interpreter over names (bodies of loops run twice so loop-carried aliases
are seen; branches are joined), and it reports SC301-SC307.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

import libcst as cst
import numpy as np

from ..runtime import ops
from ..runtime.dialects import NUMPY, TORCH, TORCH_LEGACY, Dialect
from ..runtime.layout import Layout, overlap, torch_overlap_status
from .findings import Finding, Span
from .imports import canonical, dotted_name, import_bindings
from .interpret.context import expects_failure
from .positions import node_positions

# --------------------------------------------------------------------------
# values


@dataclass(frozen=True)
class Root:
    """One storage. ``param`` is the parameter index when the storage belongs to the caller."""

    id: int
    name: str
    library: str | None  # "numpy" | "torch" | None (a parameter of unknown type)
    is_array: bool  # certainly an ndarray / tensor
    param: int | None = None
    leaf_grad: bool = False  # a leaf that requires grad (requires_grad=True, nn.Parameter)
    saved_op: str | None = None  # the op that saved this output for backward (sigmoid, relu, ...)


@dataclass(frozen=True)
class Ref:
    """An array value: its root, how it reaches the root, and where in it (when concrete).

    kind: "base" (the root itself), "view", "repeated", "readonly", "maybe"
    (a view or a copy depending on layout). ``layout`` is the view's place in
    the root when every size is known. ``snapshot`` is the binding text when a
    name was bound to an alias as if it were a copy (``old = x``); ``version``
    is the root's write count at that moment.
    """

    root: Root
    kind: str
    shape: tuple | None  # ints or None per dim; None when the rank is unknown
    layout: Layout | None
    grad: bool = False
    deps: frozenset = frozenset()
    snapshot: str | None = None
    snapshot_node: Any = field(default=None, compare=False)
    version: int = 0
    binder: str | None = None  # the name this ref was bound to, for snapshots
    mask: bool = False  # a boolean array: indexing with it is always advanced
    repeats: bool = False  # this view, or one it was taken from, certainly repeats elements
    contiguous: bool = False  # certainly C-contiguous (a freshly made array), sizes known or not

    @property
    def library(self) -> str | None:
        return self.root.library

    @property
    def ndim(self) -> int | None:
        return None if self.shape is None else len(self.shape)



@dataclass(frozen=True)
class Lib:
    """A name for a numpy / torch module or function: ``numpy.linalg.solve``."""

    qualname: str


@dataclass(frozen=True)
class Const:
    """A Python constant, or a tuple / list of them (shapes, index lists)."""

    value: Any
    is_list: bool = False


@dataclass(frozen=True)
class Func:
    node: Any = field(compare=False)
    name: str


@dataclass(frozen=True)
class Write:
    """One destroyer of a root: where, through which name, over which region."""

    version: int
    writer: str | None
    layout: Layout | None
    node: Any = field(compare=False)


@dataclass
class State:
    """What one program point knows: bindings, write counts, and hazards waiting for a read."""

    env: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    writes: dict = field(default_factory=dict)  # root id -> tuple[Write, ...]
    modified_saved: dict = field(default_factory=dict)  # root id -> in-place node
    # root id -> (call node, in-place node in the callee, callee name, parameter name)
    pending_call: dict = field(default_factory=dict)
    pending_maybe: dict = field(default_factory=dict)  # root id -> (write node, writer, view)

    def copy(self) -> "State":
        return State(dict(self.env), dict(self.versions), dict(self.writes),
                     dict(self.modified_saved), dict(self.pending_call), dict(self.pending_maybe))


def _join(a: State, b: State) -> State:
    """Two paths meet: bindings both agree on survive; events from either path count."""
    env = {k: v for k, v in a.env.items() if k in b.env and b.env[k] == v}
    versions = {k: max(a.versions.get(k, 0), b.versions.get(k, 0)) for k in set(a.versions) | set(b.versions)}
    writes = dict(a.writes)
    for k, ws in b.writes.items():
        writes[k] = tuple(dict.fromkeys(writes.get(k, ()) + ws))
    return State(env, versions, writes, {**a.modified_saved, **b.modified_saved},
                 {**a.pending_call, **b.pending_call}, {**a.pending_maybe, **b.pending_maybe})


# --------------------------------------------------------------------------
# vocabulary

_TORCH_NOT_DATA_WRITES = frozenset({"requires_grad_", "share_memory_", "retain_grad_"})
_NUMPY_INPLACE_METHODS = frozenset({"fill", "sort", "put", "itemset", "partition", "resize",
                                    "setfield"})
_SNAPSHOT_CALLS = frozenset({"numpy.asarray", "numpy.asanyarray", "torch.as_tensor"})
_OUT_PARAM_NAMES = ("out", "dst", "dest", "buf", "buffer", "result", "res", "target", "output",
                    "acc", "accum")
_MUTATOR_PREFIXES = ("fill", "update", "set", "reset", "init", "zero", "clear", "apply", "write",
                     "copy", "store", "accumulate", "inplace", "in_place", "modify", "mutate",
                     "normalize_", "_fill", "_update", "_set", "_init", "_zero", "_apply",
                     "assign", "put", "scatter", "shuffle", "sort", "add_", "swap", "permute_",
                     "_inplace", "_apply")
_CREATORS = frozenset({"zeros", "ones", "empty", "full", "rand", "randn", "random", "arange", "eye",
                       "linspace", "array", "tensor", "zeros_like", "ones_like", "empty_like",
                       "full_like", "rand_like", "randn_like", "identity", "randint",
                       "standard_normal", "uniform", "normal"})
_ALLOCATORS = frozenset({"zeros", "empty", "full", "zeros_like", "empty_like",
                         "full_like"})
# Attributes of the numpy namespace that no ndarray has: a parameter used with one of them is
# an array-API namespace (``xp``), not an array.
_NAMESPACE_ONLY = frozenset(n for n in dir(np) if not n.startswith("_")) - frozenset(dir(np.ndarray))
_NO_GRAD = ("torch.no_grad", "torch.inference_mode")


class AliasAnalysis:
    """Walks one module's names, views and destroyers, and collects SC301-SC308."""

    def __init__(self, module: cst.Module, path: str, settings: Any = None):
        from .rules.aliasing import ALIAS_RULES
        from .rules.view_layout_error import VIEW_LAYOUT_ERROR

        self.module = module
        self.path = path
        self.specs = {**ALIAS_RULES, VIEW_LAYOUT_ERROR.code: VIEW_LAYOUT_ERROR}
        era = getattr(settings, "dialect", None)
        self.torch_checks_overlap = era != "torch-legacy"
        self.numpy_dialect = NUMPY
        self.torch_dialect = TORCH_LEGACY if era == "torch-legacy" else TORCH
        self._positions = None
        self.findings: dict[tuple, Finding] = {}
        self.state = State()
        self.globals: dict[str, Any] = {}
        self.ids = itertools.count(1)
        self.quiet = 0  # inside pytest.raises and the like: every failure is expected
        self.handled = 0  # inside a try whose handlers catch ValueError / RuntimeError
        self.no_grad = 0
        self.in_assert = False
        self.loop_depth = 0
        self.namespace_hits: set[int] = set()
        self.function_stack: list[dict] = []  # per function: param index -> in-place node
        self.summaries: dict[int, dict] = {}
        self.in_progress: set[int] = set()
        self.functions: list[Func] = []
        self.root_names: dict[int, str] = {}
        self.statement_calls: set[int] = set()  # calls whose result is thrown away
        self.workspaces: set[int] = set()  # roots allocated empty/zeros: buffers to be filled

    # ------------------------------------------------------------------ driver

    def run(self) -> list[Finding]:
        self.globals = _module_names(self.module)
        self.exec_block(self.module.body)
        self.globals.update((k, v) for k, v in self.state.env.items() if v is not None)
        for func in self.functions:
            self.summary(func)
        return list(self.findings.values())

    @property
    def positions(self):
        if self._positions is None:
            self._positions = node_positions(self.module)
        return self._positions

    def span(self, node: cst.CSTNode) -> Span:
        try:
            pos = self.positions[node]
        except KeyError:
            return Span(1, 1, 1, 1)
        return Span(pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1)

    def line(self, node: cst.CSTNode) -> int:
        return self.span(node).line

    def text(self, node: cst.CSTNode, limit: int = 40) -> str:
        try:
            text = " ".join(self.module.code_for_node(node).split())
        except Exception:
            return "?"
        return text if len(text) <= limit else text[:limit - 3] + "..."

    def report(self, code: str, node: cst.CSTNode, message: str,
               related: tuple[tuple[str, int], ...] = ()) -> None:
        if self.quiet or (self.handled and code in _RAISING_CODES):
            return
        spec = self.specs[code]
        span = self.span(node)
        key = (code, span.line, span.column)
        if key not in self.findings:
            self.findings[key] = Finding(path=self.path, span=span, code=code, name=spec.name,
                                         severity=spec.severity, message=message, related=related)

    # ------------------------------------------------------------------ roots and refs

    def new_root(self, name: str, library: str | None, *, is_array: bool = True,
                 param: int | None = None, leaf_grad: bool = False,
                 saved_op: str | None = None) -> Root:
        return Root(next(self.ids), name, library, is_array, param, leaf_grad, saved_op)

    def fresh(self, name: str, library: str | None, shape: tuple | None, *, grad: bool = False,
              deps: frozenset = frozenset(), leaf_grad: bool = False,
              saved_op: str | None = None) -> Ref:
        root = self.new_root(name, library, leaf_grad=leaf_grad, saved_op=saved_op)
        layout = Layout.contiguous(shape) if _concrete(shape) else None
        return Ref(root, "base", shape, layout, grad=grad or leaf_grad,
                   deps=deps | {root.id}, contiguous=True)

    def name_of(self, root: Root) -> str:
        """The name a storage was first bound to (or the op that made it)."""
        return self.root_names.get(root.id, root.name)

    def dialect(self, library: str | None) -> Dialect:
        return self.torch_dialect if library == "torch" else self.numpy_dialect

    # ------------------------------------------------------------------ events

    def destroy(self, target: Ref, node: cst.CSTNode, writer: str | None, *,
                reads: Iterable[Any] = (), op: str = "write") -> None:
        """``target`` is written in place at ``node`` (through the name ``writer``)."""
        root = target.root
        st = self.state
        version = st.versions.get(root.id, 0) + 1
        st.versions[root.id] = version
        st.writes[root.id] = st.writes.get(root.id, ()) + (Write(version, writer, target.layout, node),)
        if self.function_stack and root.param is not None and target.kind != "maybe":
            self.function_stack[-1].setdefault(root.param, node)
        self.check_write_target(target, node, op)
        for value in reads:
            if isinstance(value, Ref):
                self.check_overlap(target, value, node)
        if root.saved_op is not None:
            st.modified_saved[root.id] = (node, root.saved_op)
        if root.leaf_grad and not self.no_grad:
            self.report("SC307", node,
                        f"in-place {op} on {'a view of ' if target.kind != 'base' else ''}"
                        f"leaf tensor {self.name_of(root)!r}, which requires grad: torch raises "
                        "\"a leaf Variable that requires grad is being used in an in-place "
                        "operation.\"; wrap it in torch.no_grad() or write out of place")
        if target.kind == "maybe" and writer is not None:
            st.pending_maybe[root.id] = (node, writer, target)

    def check_write_target(self, target: Ref, node: cst.CSTNode, op: str) -> None:
        if target.kind == "readonly":
            self.report("SC302", node,
                        f"{op} into a read-only view of {self.name_of(target.root)!r} (diagonal or "
                        "broadcast_to): numpy raises \"assignment destination is read-only\"; "
                        "copy it first")
        elif target.kind == "repeated" and target.repeats:
            lib = "torch raises \"unsupported operation: more than one element of the written-to " \
                  "tensor refers to a single memory location\" (or, through an index, writes a " \
                  "whole row)" if target.library == "torch" else \
                  "numpy writes every element that shares the memory (and warns)"
            self.report("SC302", node,
                        f"{op} into a broadcast view of {self.name_of(target.root)!r} with shape "
                        f"{_fmt(target.shape)} in which elements repeat: {lib}; "
                        "materialize it with .clone()/.copy() first")

    def check_overlap(self, written: Ref, read: Ref, node: cst.CSTNode) -> None:
        """SC303: torch refuses an in-place op whose input partially overlaps its output."""
        if written.root.id != read.root.id or written.library != "torch" or \
                read.library != "torch" or not self.torch_checks_overlap:
            return
        if written.layout is None or read.layout is None:
            return
        status = torch_overlap_status(written.layout, read.layout)
        if status != "partial":
            return
        self.report("SC303", node,
                    f"in-place write into {_fmt(written.shape)} view of {self.name_of(written.root)!r} "
                    f"reads an overlapping different view {_fmt(read.shape)} of the same memory: "
                    "torch raises \"unsupported operation: some elements of the input tensor and "
                    "the written-to tensor refer to a single memory location\"; .clone() the input")

    def note_read(self, ref: Ref, name: str, node: cst.CSTNode) -> None:
        """A name bound to ``ref`` is read: stale snapshots, mutated arguments, lost writes."""
        st = self.state
        rid = ref.root.id
        if ref.snapshot is not None:
            later = [w for w in st.writes.get(rid, ()) if w.version > ref.version and
                     w.writer != ref.binder and _may_overlap(w.layout, ref.layout)]
            if later:
                w = later[-1]
                where = self.line(w.node)
                self.report("SC304", ref.snapshot_node,
                            f"{ref.snapshot!r} binds an alias, not a copy, of "
                            f"{self.name_of(ref.root)!r}; it is modified in place at line {where} and "
                            f"{name!r} is read at line {self.line(node)}, seeing the new values; "
                            "take a copy (.copy() / .clone())",
                            related=((self.path, where),))
        pending = st.pending_call.pop(rid, None)
        if pending is not None:
            call, inplace_node, callee, param = pending
            call_line, inplace_line = self.line(call), self.line(inplace_node)
            self.report("SC305", inplace_node,
                        f"{callee}() modifies its parameter {param!r} in place; the caller at "
                        f"line {call_line} reads that array afterwards (line {self.line(node)}) "
                        "and sees the change; copy inside, or document and return it",
                        related=((self.path, call_line),))
            self.report("SC305", call,
                        f"{callee}() modifies {name!r} in place (line {inplace_line}) and "
                        f"{name!r} is read afterwards at line {self.line(node)}; pass a copy "
                        "if the original is still needed",
                        related=((self.path, inplace_line),))
        maybe = st.pending_maybe.get(rid)
        # An assert that reads the base checks on purpose whether the write landed (a test of
        # view semantics); it is not code relying on it.
        if maybe is not None and maybe[1] != name and not self.in_assert:
            write_node, writer, target = maybe
            st.pending_maybe.pop(rid)
            self.report("SC306", write_node,
                        f"{writer!r} may be a view or a copy of {self.name_of(ref.root)!r} depending on "
                        "its memory layout (reshape/ravel/flatten/astype(copy=False)); this "
                        f"in-place write reaches {self.name_of(ref.root)!r} (read at line "
                        f"{self.line(node)}) only when it is a view; write into "
                        f"{self.name_of(ref.root)!r} explicitly or take a copy",
                        related=((self.path, self.line(node)),))

    # ------------------------------------------------------------------ statements

    def exec_block(self, body: Iterable[cst.CSTNode]) -> None:
        for stmt in body:
            self.exec_stmt(stmt)

    def exec_stmt(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.exec_small(small)
            return
        handler = getattr(self, "stmt_" + type(stmt).__name__, None)
        if handler is not None:
            handler(stmt)

    def exec_small(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Expr):
            if isinstance(node.value, cst.Call):
                self.statement_calls.add(id(node.value))
            self.eval(node.value)
        elif isinstance(node, cst.Assign):
            value = self.eval(node.value)
            for target in node.targets:
                self.assign(target.target, value, node.value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.eval(node.value), node.value)
        elif isinstance(node, cst.AugAssign):
            self.aug_assign(node)
        elif isinstance(node, cst.Return):
            self.eval(node.value)
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            for bound, qual in import_bindings(node):
                self.state.env[bound.split(".")[0] if qual is None else bound] = \
                    Lib(canonical(qual)) if qual else None
        elif isinstance(node, cst.Del):
            self.eval(None)
        elif isinstance(node, cst.Assert):
            self.in_assert = True
            try:
                self.eval(node.test)
                self.eval(node.msg)
            finally:
                self.in_assert = False
        elif isinstance(node, cst.Raise):
            self.eval(node.exc)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            for item in node.names:
                self.state.env.pop(item.name.value, None)

    def stmt_FunctionDef(self, node: cst.FunctionDef) -> None:
        func = Func(node, node.name.value)
        self.state.env[node.name.value] = func
        self.functions.append(func)

    def stmt_ClassDef(self, node: cst.ClassDef) -> None:
        self.state.env[node.name.value] = None
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                self.functions.append(Func(stmt, stmt.name.value))

    def stmt_If(self, node: cst.If) -> None:
        self.eval(node.test)
        before = self.state
        self.state = before.copy()
        self.exec_block(node.body.body)
        taken = self.state
        self.state = before.copy()
        if isinstance(node.orelse, cst.If):
            self.stmt_If(node.orelse)
        elif isinstance(node.orelse, cst.Else):
            self.exec_block(node.orelse.body.body)
        self.state = _join(taken, self.state)

    def stmt_For(self, node: cst.For) -> None:
        self.eval(node.iter)
        self.loop(lambda: self.assign(node.target, None, node.target), node.body.body)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body)

    def stmt_While(self, node: cst.While) -> None:
        self.loop(lambda: self.eval(node.test), node.body.body)
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body)

    def loop(self, enter, body) -> None:
        """Twice through the body: the second pass sees what the first left for the next iteration.

        Deeply nested loops run once per level past the third, so the walk stays linear.
        """
        before = self.state.copy()
        self.loop_depth += 1
        try:
            for _ in range(2 if self.loop_depth <= 3 else 1):
                enter()
                self.exec_block(body)
        finally:
            self.loop_depth -= 1
        after = self.state
        joined = _join(before, after)
        # A name first bound inside the loop is bound after it (zero iterations would leave it
        # unbound, a NameError on read), so it keeps the loop's binding.
        joined.env.update((k, v) for k, v in after.env.items() if k not in before.env)
        self.state = joined

    def stmt_Try(self, node: cst.CSTNode) -> None:
        # Failures the handlers catch are expected: no raising-hazard findings from the body.
        handles = any(_catches_library_errors(h) for h in node.handlers)
        self.handled += handles
        try:
            self.exec_block(node.body.body)
        finally:
            self.handled -= handles
        after_body = self.state
        for handler in node.handlers:
            self.state = after_body.copy()
            if handler.name is not None:
                self.assign(handler.name.name, None, handler)
            self.exec_block(handler.body.body)
            after_body = _join(after_body, self.state)
        self.state = after_body
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body)
        if node.finalbody is not None:
            self.exec_block(node.finalbody.body.body)

    stmt_TryStar = stmt_Try

    def stmt_With(self, node: cst.With) -> None:
        quiet = no_grad = 0
        for item in node.items:
            value = self.eval(item.item)
            name = _call_name(item.item)
            if expects_failure(item.item):
                quiet = 1  # one list of expected-failure contexts for every rule
            if isinstance(value, Lib) and value.qualname in _NO_GRAD or \
                    name is not None and name.endswith(("no_grad", "inference_mode")):
                no_grad = 1
            if item.asname is not None:
                self.assign(item.asname.name, None, item)
        self.quiet += quiet
        self.no_grad += no_grad
        try:
            self.exec_block(node.body.body)
        finally:
            self.quiet -= quiet
            self.no_grad -= no_grad

    # ------------------------------------------------------------------ bindings

    def assign(self, target: cst.BaseExpression, value: Any, source: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, Ref):
                value = self.bind(target, value, source)
            self.state.env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = value.value if isinstance(value, Const) and isinstance(value.value, tuple) \
                and len(value.value) == len(target.elements) else None
            for i, element in enumerate(target.elements):
                inner = element.value
                if isinstance(inner, cst.StarredElement):
                    inner = inner.value
                item = items[i] if items is not None else None
                if isinstance(value, _Pieces) and value.count == len(target.elements):
                    item = value.piece(i)
                self.assign(inner, item, source)
        elif isinstance(target, cst.Subscript):
            self.setitem(target, value, target)  # the write is reported at its target
        elif isinstance(target, cst.Attribute):
            self.eval(target.value)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, None, source)

    def bind(self, target: cst.Name, ref: Ref, source: cst.CSTNode) -> Ref:
        """A name is bound to an array; a copy-looking binding of an alias becomes a snapshot."""
        name = target.value
        if ref.kind == "base":
            self.root_names.setdefault(ref.root.id, name)
        how = _snapshot_binding(source, self.state.env)
        if how and ref.kind in ("base", "view") and ref.root.is_array:
            text = f"{name} = {self.text(source)}"
            return replace(ref, snapshot=text, snapshot_node=target,
                           version=self.state.versions.get(ref.root.id, 0), binder=name)
        return replace(ref, snapshot=None, snapshot_node=None, binder=name)

    def aug_assign(self, node: cst.AugAssign) -> None:
        rhs = self.eval(node.value)
        target = node.target
        if isinstance(target, cst.Name):
            current = self.lookup_name(target.value, target)
            if isinstance(current, Ref) and (current.root.is_array or current.kind != "base"):
                # A view of anything is an array, so += on it is in place.
                self.destroy(current, node, target.value, reads=(rhs,), op="augmented assignment")
                return
            if isinstance(current, Ref) and current.root.param is not None and self.function_stack:
                # A parameter of unknown type: in place only if the caller passes an array.
                self.function_stack[-1].setdefault(current.root.param, node)
            self.state.env[target.value] = None if not isinstance(current, Ref) else current
        elif isinstance(target, cst.Subscript):
            self.setitem(target, rhs, node, augmented=True)
        elif isinstance(target, cst.Attribute):
            self.eval(target.value)

    def setitem(self, target: cst.Subscript, value: Any, source: cst.CSTNode, *,
                augmented: bool = False) -> None:
        """``base[index] = value``: the view ``base[index]`` of base's root is written."""
        self.check_write_to_copy(target.value, source, "assignment")
        base = self.eval_target(target.value)
        index = self.index_key(target)
        if not isinstance(base, Ref):
            return
        view = self.subscript_ref(base, index) if index is not _UNKNOWN_INDEX else None
        if view is None or view.root.id != base.root.id:
            view = replace(base, layout=None, shape=None, kind=base.kind)
        self.destroy(view, source, _writer_name(target.value), reads=(value,),
                     op="augmented assignment" if augmented else "assignment")

    def eval_target(self, node: cst.BaseExpression) -> Any:
        """The array a write goes into; the target name itself is not a read."""
        if isinstance(node, cst.Name):
            return self.lookup_name(node.value, node, read=False)
        if isinstance(node, cst.Subscript):
            base = self.eval_target(node.value)
            if not isinstance(base, Ref):
                self.index_key(node)
                return None
            return self.subscript_ref(base, self.index_key(node))
        return self.eval(node)

    # ------------------------------------------------------------------ SC301

    def check_write_to_copy(self, base: cst.BaseExpression, node: cst.CSTNode, op: str) -> None:
        """The write goes into the result of advanced indexing: a copy, dropped at once."""
        expr = base
        while True:
            if isinstance(expr, cst.Subscript):
                if self.is_advanced(expr):
                    self.report("SC301", node,
                                f"{op} into {self.text(expr)}, which is a copy (advanced or "
                                f"boolean indexing), so {self.text(expr.value)} is not changed; "
                                f"index once: {self.text(expr.value)}[...] = value")
                    return
                expr = expr.value
            elif isinstance(expr, cst.Attribute) and ops.writes_reach_input(expr.attr.value):
                expr = expr.value
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
                    ops.writes_reach_input(expr.func.attr.value):
                expr = expr.func.value
            else:
                return

    def is_advanced(self, sub: cst.Subscript) -> bool:
        """Certainly advanced indexing on a certain array."""
        base = self.peek(sub.value)
        if not (isinstance(base, Ref) and base.root.is_array):
            return False
        for element in sub.slice:
            item = element.slice
            if not isinstance(item, cst.Index):
                continue
            value = item.value
            if isinstance(value, cst.List):
                return True
            peeked = self.peek(value)
            if isinstance(peeked, Ref) and peeked.root.is_array and (peeked.mask or peeked.ndim):
                return True
        return False

    def peek(self, node: cst.BaseExpression) -> Any:
        """A side-effect-free look at simple expressions (names, comparisons, views)."""
        if isinstance(node, cst.Name):
            return self.state.env.get(node.value, self.globals.get(node.value))
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            left, right = self.peek(node.left), self.peek(node.comparisons[0].comparator)
            for side in (left, right):
                if isinstance(side, Ref) and side.root.is_array:
                    return replace(self.fresh("mask", side.library, side.shape), mask=True)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self.peek(node.expression)
        if isinstance(node, cst.BinaryOperation) and isinstance(
                node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            left, right = self.peek(node.left), self.peek(node.right)
            for side in (left, right):
                if isinstance(side, Ref) and side.root.is_array and side.mask:
                    return side
        if isinstance(node, cst.Subscript):
            base = self.peek(node.value)
            if isinstance(base, Ref) and base.root.is_array:
                return replace(base, shape=None, layout=None)
        if isinstance(node, cst.Attribute) and node.attr.value in ("T", "mT"):
            return self.peek(node.value)
        return None

    # ------------------------------------------------------------------ expressions

    def lookup_name(self, name: str, node: cst.CSTNode, *, read: bool = True) -> Any:
        if name in self.state.env:
            value = self.state.env[name]
        else:
            value = self.globals.get(name)
        if read and isinstance(value, Ref):
            self.note_read(value, name, node)
        return value

    def eval(self, node: cst.BaseExpression | None) -> Any:
        if node is None:
            return None
        handler = getattr(self, "expr_" + type(node).__name__, None)
        if handler is not None:
            return handler(node)
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.eval(child)
            elif isinstance(child, (cst.Arg, cst.Element, cst.DictElement, cst.StarredElement,
                                    cst.FormattedStringExpression, cst.CompFor, cst.Index,
                                    cst.Slice, cst.SubscriptElement, cst.ComparisonTarget)):
                self.eval_children(child)
        return None

    def eval_children(self, node: cst.CSTNode) -> None:
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.eval(child)
            elif isinstance(child, cst.CSTNode):
                self.eval_children(child)

    def expr_Name(self, node: cst.Name) -> Any:
        if node.value in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[node.value])
        return self.lookup_name(node.value, node)

    def expr_Integer(self, node: cst.Integer) -> Any:
        try:
            return Const(int(node.value.replace("_", ""), 0))
        except ValueError:
            return None

    def expr_Float(self, node: cst.Float) -> Any:
        try:
            return Const(float(node.value.replace("_", "")))
        except ValueError:
            return None

    def expr_SimpleString(self, node: cst.SimpleString) -> Any:
        return Const(node.evaluated_value if hasattr(node, "evaluated_value") else None)

    def expr_Tuple(self, node: cst.Tuple) -> Any:
        return self.sequence(node.elements, False)

    def expr_List(self, node: cst.List) -> Any:
        return self.sequence(node.elements, True)

    def sequence(self, elements, is_list: bool) -> Any:
        values = []
        for element in elements:
            value = self.eval(element.value)
            values.append(value if not isinstance(element, cst.StarredElement) else None)
        if all(isinstance(v, Const) for v in values):
            return Const(tuple(v.value for v in values), is_list)
        return _Seq(tuple(values), is_list)

    def expr_Lambda(self, node: cst.Lambda) -> Any:
        return None

    def expr_ListComp(self, node: cst.CSTNode) -> Any:
        self.eval(node.for_in.iter)
        return None

    expr_SetComp = expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, node: cst.DictComp) -> Any:
        self.eval(node.for_in.iter)
        return None

    def expr_UnaryOperation(self, node: cst.UnaryOperation) -> Any:
        value = self.eval(node.expression)
        if isinstance(value, Const) and isinstance(value.value, int) and \
                isinstance(node.operator, cst.Minus):
            return Const(-value.value)
        if isinstance(value, Ref):
            return self.derived([value], value.shape, "negation")
        return None

    def expr_BinaryOperation(self, node: cst.BinaryOperation) -> Any:
        left, right = self.eval(node.left), self.eval(node.right)
        arrays = [v for v in (left, right) if isinstance(v, Ref) and v.root.is_array]
        if not arrays:
            return None
        return self.derived(arrays, _broadcast(left, right), "result")

    def expr_Comparison(self, node: cst.Comparison) -> Any:
        values = [self.eval(node.left)] + [self.eval(c.comparator) for c in node.comparisons]
        arrays = [v for v in values if isinstance(v, Ref) and v.root.is_array]
        if len(node.comparisons) == 1 and arrays and not isinstance(
                node.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
            ref = self.derived(arrays, _broadcast(values[0], values[1]), "mask")
            return replace(ref, grad=False, mask=True)
        return None

    def expr_BooleanOperation(self, node: cst.BooleanOperation) -> Any:
        self.eval(node.left)
        self.eval(node.right)
        return None

    def expr_IfExp(self, node: cst.IfExp) -> Any:
        self.eval(node.test)
        a, b = self.eval(node.body), self.eval(node.orelse)
        return a if a == b else None

    def expr_NamedExpr(self, node: cst.NamedExpr) -> Any:
        value = self.eval(node.value)
        self.assign(node.target, value, node.value)
        return value

    def derived(self, operands: list, shape: tuple | None, what: str) -> Ref:
        """A new array computed from arrays: a fresh root that depends on theirs."""
        library = next((o.library for o in operands if o.library), None)
        grad = any(o.grad for o in operands) and not self.no_grad
        deps = frozenset().union(*(o.deps for o in operands))
        return self.fresh(what, library, shape, grad=grad, deps=deps)

    def expr_Attribute(self, node: cst.Attribute) -> Any:
        name = node.attr.value
        if name in _METADATA and isinstance(node.value, cst.Name):
            self.lookup_name(node.value.value, node.value, read=False)
            return None
        base = self.eval(node.value)
        if isinstance(base, Lib):
            return Lib(canonical(f"{base.qualname}.{name}"))
        if isinstance(base, Ref) and base.root.param is not None and not base.root.is_array \
                and name in _NAMESPACE_ONLY:
            self.namespace_hits.add(base.root.param)
            return None
        if isinstance(base, Ref):
            if name in ("T", "mT"):
                return self.view_call(base, name, (), {}, node)
            if name == "data" and base.library == "torch":
                return replace(base, kind="view", grad=False,
                               root=replace(base.root, leaf_grad=False, saved_op=None))
            if name in ("real",):
                return self.view_call(base, name, (), {}, node)
            if name == "grad":
                return None
            return _Method(base, name)
        return None

    def expr_Subscript(self, node: cst.Subscript) -> Any:
        base = self.eval(node.value)
        key = self.index_key(node)
        if isinstance(base, _Pieces):
            if isinstance(key, int):
                return base.piece(key)
            return None
        if not isinstance(base, Ref) or key is _UNKNOWN_INDEX:
            if isinstance(base, Ref) and base.root.is_array:
                return None
            return None
        return self.subscript_ref(base, key)

    def index_key(self, node: cst.Subscript) -> Any:
        parts = []
        for element in node.slice:
            item = element.slice
            if isinstance(item, cst.Slice):
                bounds = [self.eval(x) if x is not None else Const(None)
                          for x in (item.lower, item.upper, item.step)]
                if all(isinstance(b, Const) and (b.value is None or isinstance(b.value, int))
                       for b in bounds):
                    parts.append(slice(*(b.value for b in bounds)))
                else:
                    parts.append(_UNKNOWN_INDEX)
            else:
                value = self.eval(item.value)
                if isinstance(value, Const) and (value.value is None or value.value is Ellipsis
                                                 or isinstance(value.value, int)):
                    parts.append(value.value)
                elif isinstance(value, Const) and value.is_list:
                    parts.append(ops.ArrayArg((len(value.value),), None))
                elif isinstance(value, Ref) and value.root.is_array and value.shape is not None:
                    parts.append(ops.ArrayArg(tuple(d if d is not None else 1 for d in value.shape),
                                              None))
                elif isinstance(item.value, cst.Ellipsis):
                    parts.append(Ellipsis)
                else:
                    parts.append(_UNKNOWN_INDEX)
        if any(p is _UNKNOWN_INDEX for p in parts):
            return _UNKNOWN_INDEX
        return parts[0] if len(parts) == 1 and not isinstance(parts[0], tuple) and \
            len(node.slice) == 1 else tuple(parts)

    def subscript_ref(self, base: Ref, key: Any) -> Ref | None:
        """``base[key]``: a view (with its layout when concrete) or a fresh copy."""
        if key is _UNKNOWN_INDEX:
            return None
        shape_arg = tuple(d if d is not None else 1 for d in base.shape) if base.shape else ()
        spec = ops.lookup("__getitem__", self.dialect(base.library))
        try:
            kind = ops.call_view_kind(spec, (ops.ArrayArg(shape_arg), key), {},
                                      self.dialect(base.library)) if base.shape is not None \
                else _basic_kind(key)
        except Exception:
            return None
        if kind == "none":
            if base.shape is None and not _is_advanced_key(key):
                return None  # a scalar or a view: cannot tell without the rank
            return self.derived([base], None, "copy")
        layout = base.layout.index(key) if base.layout is not None else None
        shape = layout.shape if layout is not None else _index_shape(base.shape, key)
        return self.compose(base, "view", shape, layout)

    def compose(self, base: Ref, kind: str, shape: tuple | None, layout: Layout | None) -> Ref:
        """A view of a view: read-only stays read-only, a maybe stays a maybe."""
        if base.kind == "readonly" and kind in ("view", "same"):
            kind = "readonly"
        elif base.kind == "maybe" and kind != "none":
            kind = "maybe"
        elif base.kind == "repeated" and kind == "view":
            kind = "repeated"
        elif kind == "same":
            kind = base.kind
        repeats = base.repeats or (kind == "repeated" and layout is not None and
                                   layout.has_repeated_elements())
        return Ref(base.root, kind, shape, layout, grad=base.grad, deps=base.deps,
                   repeats=repeats)

    # ------------------------------------------------------------------ calls

    def expr_Call(self, node: cst.Call) -> Any:
        func = self.eval(node.func)
        args, kwargs = [], {}
        for arg in node.args:
            value = self.eval(arg.value)
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            elif arg.star:
                args.append(None)
            else:
                args.append(value)
        out = kwargs.get("out")
        if isinstance(out, Ref) and isinstance(func, (Lib, _Method)):
            self.destroy(out, node, _writer_name(_kwarg_node(node, "out")), reads=args,
                         op="out= write")
        if isinstance(func, Lib):
            return self.library_call(node, func.qualname, args, kwargs)
        if isinstance(func, _Method):
            return self.method_call(node, func.base, func.name, args, kwargs)
        if isinstance(func, Func):
            return self.function_call(node, func, args, kwargs)
        return None

    def library_call(self, node: cst.Call, qualname: str, args: list, kwargs: dict) -> Any:
        library = qualname.split(".", 1)[0]
        short = qualname.rsplit(".", 1)[-1]
        first = args[0] if args else None
        grad = kwargs.get("requires_grad") == Const(True)
        if qualname == "numpy.copyto" and isinstance(first, Ref):
            self.check_write_to_copy(node.args[0].value, node, "np.copyto")
            self.destroy(first, node, _writer_name(node.args[0].value), reads=args[1:2],
                         op="np.copyto")
            return None
        if qualname == "torch.nn.Parameter" or qualname == "torch.nn.parameter.Parameter":
            shape = first.shape if isinstance(first, Ref) else None
            grad_off = kwargs.get("requires_grad") == Const(False) or \
                (len(args) > 1 and args[1] == Const(False))
            return self.fresh("parameter", "torch", shape, leaf_grad=not grad_off)
        if library == "torch" and _saves_output(short) and isinstance(first, Ref) \
                and not kwargs.get("inplace") == Const(True):
            return self.fresh(f"{short}(...)", "torch", first.shape, grad=first.grad and
                              not self.no_grad, deps=first.deps,
                              saved_op=short if first.grad and not self.no_grad else None)
        if short in _CREATORS and (qualname.count(".") == 1 or qualname.startswith(
                ("numpy.random.", "torch.random."))):
            return self.creation(qualname, short, library, args, kwargs, grad)
        if qualname in ("torch.from_numpy",) and isinstance(first, Ref):
            return self.compose(first, "view", first.shape, first.layout)
        if qualname in _SNAPSHOT_CALLS and isinstance(first, Ref):
            if "dtype" in kwargs or len(args) > 1:
                return self.compose(first, "maybe", first.shape, first.layout)
            return self.compose(first, "same", first.shape, first.layout)
        if qualname in ("numpy.copy", "numpy.array", "torch.clone") and isinstance(first, Ref):
            if qualname == "numpy.array" and kwargs.get("copy") == Const(False):
                return self.compose(first, "same", first.shape, first.layout)
            return self.derived([first], first.shape, "copy")
        if qualname in ("torch.autograd.grad", "torch.autograd.backward"):
            self.backward(node, first)
            return None
        op_name = ("np." + qualname[len("numpy."):]) if library == "numpy" else qualname
        dialect = self.dialect(library)
        spec = ops.lookup(op_name, dialect)
        if spec is not None and isinstance(first, Ref):
            if spec.inplace:
                self.destroy(first, node, _writer_name(node.args[0].value), reads=args[1:],
                             op=op_name)
                return None
            if spec.multi_output and spec.view_kind != "none":
                return _Pieces(self, [a for a in args if isinstance(a, Ref)] if
                               qualname.endswith(("broadcast_arrays", "broadcast_tensors")) else
                               [first], spec, args, kwargs, multi=qualname.endswith(
                                   ("broadcast_arrays", "broadcast_tensors")))
            return self.apply_spec(spec, first, args[1:], kwargs, node)
        arrays = [a for a in args if isinstance(a, Ref) and a.root.is_array]
        if arrays and spec is not None:
            return self.derived(arrays, None, short)
        if library == "numpy" and qualname.count(".") <= 2 and not qualname.startswith(
                ("numpy.random.", "numpy.testing.", "numpy.ma.")):
            # Most numpy functions return a new ndarray; its methods behave as an array's,
            # but it is not counted as an array where certainty matters (snapshots, callers).
            root = self.new_root(short, "numpy", is_array=False)
            return Ref(root, "base", None, None, deps=frozenset({root.id}), contiguous=False)
        return None

    def creation(self, qualname: str, short: str, library: str, args: list, kwargs: dict,
                 grad: bool) -> Ref:
        shape = _creation_shape(short, args, kwargs)
        if short.endswith("_like") and args and isinstance(args[0], Ref):
            shape = args[0].shape
        ref = self.fresh(short, library, shape, leaf_grad=grad and library == "torch")
        if short in _ALLOCATORS:
            self.workspaces.add(ref.root.id)
        return ref

    def apply_spec(self, spec: ops.OpSpec, base: Ref, rest: list, kwargs: dict,
                   node: cst.Call) -> Any:
        """An op-table call on ``base``: a view (of the op's kind) or a new array."""
        dialect = self.dialect(base.library)
        if not base.root.is_array and base.library is None and any(
                isinstance(r, Ref) for r in list(rest) + list(kwargs.values())):
            return None  # xp.reshape(x, shape): a namespace's function, not an array's method
        try:
            kind = ops.call_view_kind(spec, (ops.ArrayArg(_arg_shape(base.shape)),) + tuple(
                _plain(r) for r in rest), {k: _plain(v) for k, v in kwargs.items()}, dialect)
        except Exception:  # arguments the op table cannot read (strings, odd indices)
            return None
        shape = self.result_shape(spec, base, rest, kwargs)
        if kind == "none":
            return self.derived([base] + [r for r in rest if isinstance(r, Ref)], shape, spec.name)
        layout = None
        if shape is not None and base.layout is not None:
            layout = ops.output_layout(spec, (ops.ArrayArg(base.shape, layout=base.layout),) + tuple(
                _plain(r) for r in rest), {k: _plain(v) for k, v in kwargs.items()}, dialect, shape)
        if kind == "maybe" and base.layout is not None and base.library is not None:
            # The layout is known here, so whether this is a view is decided.
            if layout is None:
                return self.derived([base], shape, spec.name)
            kind = "view"
        elif kind == "maybe" and base.contiguous and base.kind == "base" and \
                spec.name not in ("astype",) and "order" not in kwargs:
            kind = "view"  # a C-contiguous array reshapes, ravels and flattens without copying
        if spec.name == "view" and base.library == "torch" and base.layout is not None and \
                shape is not None and _concrete(shape) and layout is None:
            return None  # torch raises: SC308 comes from the shape walk's op rule
        return self.compose(base, kind, shape, layout)

    def result_shape(self, spec: ops.OpSpec, base: Ref, rest: list, kwargs: dict) -> tuple | None:
        if base.shape is None or not _concrete(base.shape):
            return None
        plain = [_plain(r) for r in rest]
        if any(p is _UNPLAIN for p in plain):
            return None
        try:
            result = spec.rule(ops.ArrayArg(base.shape), *plain, dialect=self.dialect(base.library),
                               **{k: _plain(v) for k, v in kwargs.items()})
        except Exception:
            return None
        shape = result.shape
        return tuple(shape) if all(isinstance(d, int) for d in shape) else None

    def view_call(self, base: Ref, name: str, rest: tuple, kwargs: dict, node) -> Any:
        spec = ops.lookup(name, self.dialect(base.library))
        if spec is None:
            return None
        return self.apply_spec(spec, base, list(rest), kwargs, node)

    def method_call(self, node: cst.Call, base: Ref, name: str, args: list, kwargs: dict) -> Any:
        if not base.root.is_array and base.root.param is None and base.library is None:
            return None
        library = base.library
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else node.func
        if name == "backward":
            self.backward(node, base)
            return None
        if name == "requires_grad_":
            flag = args[0] if args else kwargs.get("requires_grad", Const(True))
            if flag == Const(True) and base.kind == "base":
                return replace(base, grad=True, root=replace(base.root, leaf_grad=True))
            return base
        if name in ("copy", "clone") or (name == "astype" and kwargs.get("copy") != Const(False)):
            return self.derived([base], base.shape, "copy")
        if name == "astype":
            return self.compose(base, "maybe", base.shape, None)
        inplace_torch = name.endswith("_") and not name.startswith("_") and \
            name not in _TORCH_NOT_DATA_WRITES and library in ("torch", None)
        inplace_numpy = name in _NUMPY_INPLACE_METHODS and library in ("numpy", None) and \
            not (name in ("sort", "partition", "put", "resize") and library is None)
        spec = self.method_spec(name, library)
        if inplace_torch or inplace_numpy or (spec is not None and spec.inplace):
            self.check_write_to_copy(receiver, node, f".{name}()")
            if not base.root.is_array and base.root.param is not None:
                if self.function_stack and (library is not None or inplace_torch):
                    self.function_stack[-1].setdefault(base.root.param, node)
                return None
            self.destroy(base, node, _writer_name(receiver), reads=args, op=f".{name}()")
            return base
        if library == "torch" and _saves_output(name):
            grad = base.grad and not self.no_grad
            return self.fresh(f"{name}(...)", "torch", base.shape, grad=grad, deps=base.deps,
                              saved_op=name if grad else None)
        if name == "view" and library == "numpy" and not args and not kwargs:
            return self.compose(base, "view", base.shape, base.layout)
        if name == "detach" and library == "torch":
            return Ref(replace(base.root, leaf_grad=False, saved_op=None), "view" if
                       base.kind == "base" else base.kind, base.shape, base.layout)
        if spec is not None:
            if spec.multi_output and spec.view_kind != "none":
                return _Pieces(self, [base], spec, [base] + args, kwargs)
            return self.apply_spec(spec, base, args, kwargs, node)
        if base.root.is_array and name in ("numpy", "cpu", "cuda", "to", "float", "double",
                                           "long", "int", "half", "bool", "type_as", "type"):
            return None  # may or may not copy; not tracked
        return None

    def method_spec(self, name: str, library: str | None) -> ops.OpSpec | None:
        """The op-table entry for a method; for an array of unknown library, only when numpy's
        and torch's entries agree on how the result aliases the input."""
        if library is not None:
            return ops.lookup(name, self.dialect(library))
        a, b = ops.lookup(name, NUMPY), ops.lookup(name, TORCH)
        if a is not None and b is not None and a.view_kind == b.view_kind and \
                a.inplace == b.inplace and not a.multi_output:
            return a
        return None

    def backward(self, node: cst.CSTNode, value: Any) -> None:
        if not isinstance(value, Ref):
            return
        for rid, (inplace_node, op) in list(self.state.modified_saved.items()):
            if rid in value.deps:
                self.report("SC307", inplace_node,
                            f"in-place write into the output of {op}(), which autograd saved for "
                            f"backward; .backward() at line {self.line(node)} raises \"one of the "
                            "variables needed for gradient computation has been modified by an "
                            "inplace operation\"; write out of place",
                            related=((self.path, self.line(node)),))

    def function_call(self, node: cst.Call, func: Func, args: list, kwargs: dict) -> Any:
        """A call to a function of this file: its in-place writes reach the caller's arrays.

        SC305 is kept for calls whose result is used, to functions that return something:
        a procedure called for its effect (``fill(buf)``) mutates by design.
        """
        summary = self.summary(func)
        discarded = id(node) in self.statement_calls
        params = _params(func.node)
        for index, inplace_node in summary.items():
            arg = args[index] if index < len(args) else kwargs.get(params[index]) \
                if index < len(params) else None
            if not isinstance(arg, Ref) or arg.kind == "maybe":
                continue
            if self.function_stack and arg.root.param is not None:
                # Passing our own parameter on: the callee's write reaches our caller.
                self.function_stack[-1].setdefault(arg.root.param, inplace_node)
            if not arg.root.is_array:
                continue
            st = self.state
            version = st.versions.get(arg.root.id, 0) + 1
            st.versions[arg.root.id] = version
            st.writes[arg.root.id] = st.writes.get(arg.root.id, ()) + (
                Write(version, f"{func.name}()", None, node),)
            if not _mutation_is_documented(func.node, params[index] if index < len(params) else "") \
                    and not discarded and arg.root.id not in self.workspaces and \
                    _returns_value(func.node):
                st.pending_call[arg.root.id] = (node, inplace_node, func.name,
                                                params[index] if index < len(params) else "?")
        return None

    def summary(self, func: Func) -> dict:
        """Which parameters (by position) the function writes in place, and where."""
        key = id(func.node)
        if key in self.summaries:
            return self.summaries[key]
        if key in self.in_progress:
            return {}
        self.in_progress.add(key)
        saved_state, saved_quiet, saved_no_grad = self.state, (self.quiet, self.handled), self.no_grad
        saved_assert = self.in_assert
        self.state = State(env={})
        self.quiet, self.handled, self.no_grad = 0, 0, int(_decorated_no_grad(func.node))
        self.in_assert = False  # the callee's body is not part of the caller's assert
        self.function_stack.append({})
        try:
            self.walk_function(func)
        finally:
            result = self.function_stack.pop()
            self.state, (self.quiet, self.handled), self.no_grad = saved_state, saved_quiet, saved_no_grad
            self.in_assert = saved_assert
            self.in_progress.discard(key)
        self.summaries[key] = result
        return result

    def walk_function(self, func: Func) -> None:
        """The body with parameters as the caller's roots. A parameter seen used as a module
        (``xp.arange``) is an array namespace, not an array: the body is walked again without it."""
        saved = (dict(self.findings), dict(self.function_stack[-1]))
        namespaces: set[int] = set()
        for _ in range(2):
            self.state = State(env={})
            self.namespace_hits = set()
            for index, param in enumerate(_param_nodes(func.node)):
                self.state.env[param.name.value] = None if index in namespaces \
                    else self.param_ref(param, index)
            self.exec_block(_body(func.node))
            if not self.namespace_hits - namespaces:
                return
            namespaces |= self.namespace_hits
            self.findings, self.function_stack[-1] = dict(saved[0]), dict(saved[1])

    def param_ref(self, param: cst.Param, index: int) -> Ref:
        annotation = dotted_name(param.annotation.annotation) if param.annotation else None
        library = None
        if annotation:
            resolved = self.resolve_dotted(annotation)
            if resolved in ("numpy.ndarray", "numpy.typing.NDArray", "torch.Tensor"):
                library = resolved.split(".")[0]
        root = self.new_root(param.name.value, library, is_array=library is not None,
                             param=index)
        return Ref(root, "base", None, None, deps=frozenset({root.id}))

    def resolve_dotted(self, name: str) -> str | None:
        head, _, rest = name.partition(".")
        value = self.globals.get(head, self.state.env.get(head))
        if isinstance(value, Lib):
            return canonical(f"{value.qualname}.{rest}" if rest else value.qualname)
        return None


# --------------------------------------------------------------------------
# small values used during the walk


@dataclass(frozen=True)
class _Method:
    base: Ref
    name: str


@dataclass(frozen=True)
class _Seq:
    items: tuple
    is_list: bool


class _Pieces:
    """The outputs of split / unbind / broadcast_arrays: each one views an input."""

    def __init__(self, analysis: AliasAnalysis, inputs: list, spec: ops.OpSpec, args: list,
                 kwargs: dict, multi: bool = False):
        self.analysis, self.inputs, self.spec, self.multi = analysis, inputs, spec, multi
        self.count = len(inputs) if multi else -1

    def piece(self, i: int) -> Ref | None:
        if self.multi:
            if not 0 <= i < len(self.inputs):
                return None
            source = self.inputs[i]
            kind = "repeated" if self.spec.repeats else "view"
            shapes = [s.shape for s in self.inputs]
            layout = None
            if all(_concrete(s) for s in shapes):
                try:
                    target = np.broadcast_shapes(*shapes)
                    layout = source.layout.expand(target) if source.layout is not None else None
                except ValueError:
                    layout = None
            return self.analysis.compose(source, kind, layout.shape if layout else None, layout)
        return self.analysis.compose(self.inputs[0], "view", None, None)


_UNKNOWN_INDEX = object()
_METADATA = frozenset({"shape", "dtype", "ndim", "size", "device", "itemsize", "nbytes", "flags",
                       "strides", "is_leaf", "requires_grad", "layout", "names"})
_UNPLAIN = object()


def _plain(value: Any) -> Any:
    """An abstract value as the op table's rules take it (ints, tuples, ArrayArg)."""
    if isinstance(value, Const):
        v = value.value
        return list(v) if value.is_list and isinstance(v, tuple) else v
    if isinstance(value, Ref):
        return ops.ArrayArg(_arg_shape(value.shape)) if value.shape is not None else _UNPLAIN
    return _UNPLAIN


def _arg_shape(shape: tuple | None) -> tuple:
    return tuple(d if d is not None else 1 for d in shape) if shape else ()


def _concrete(shape: tuple | None) -> bool:
    return shape is not None and all(isinstance(d, int) and not isinstance(d, bool) for d in shape)


def _fmt(shape: tuple | None) -> str:
    if shape is None:
        return "(?)"
    inner = ", ".join("?" if d is None else str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _may_overlap(a: Layout | None, b: Layout | None) -> bool:
    if a is None or b is None:
        return True
    return overlap(a, b) is not False


def _broadcast(left: Any, right: Any) -> tuple | None:
    shapes = []
    for v in (left, right):
        if isinstance(v, Ref):
            shapes.append(v.shape)
        elif not isinstance(v, Const):
            return None
    if len(shapes) == 1:
        return shapes[0]
    if not all(_concrete(sh) for sh in shapes):
        return None
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def _basic_kind(key: Any) -> str:
    parts = key if isinstance(key, tuple) else (key,)
    if _is_advanced_key(key):
        return "none"
    if all(isinstance(p, slice) or p is None or p is Ellipsis for p in parts):
        return "view"
    return "none"


def _is_advanced_key(key: Any) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return any(isinstance(p, (ops.ArrayArg, list)) for p in parts)


def _saves_output(name: str) -> bool:
    spec = ops.lookup(name, TORCH)
    return spec is not None and spec.saves_output


def _index_shape(shape: tuple | None, key: Any) -> tuple | None:
    if shape is None:
        return None
    parts = key if isinstance(key, tuple) else (key,)
    if Ellipsis in parts:
        return None
    out = []
    dims = list(shape)
    for part in parts:
        if part is None:
            out.append(1)
        elif isinstance(part, slice):
            if not dims:
                return None
            d = dims.pop(0)
            out.append(None if part != slice(None) else d)
        elif isinstance(part, int):
            if not dims:
                return None
            dims.pop(0)
        else:
            return None
    return tuple(out + dims)


def _creation_shape(short: str, args: list, kwargs: dict) -> tuple | None:
    """The shape a creation call makes, from literal sizes (None per unknown dim)."""
    def dims(value: Any) -> tuple | None:
        if isinstance(value, Const):
            v = value.value
            if isinstance(v, int) and not isinstance(v, bool):
                return (v,)
            if isinstance(v, tuple) and all(isinstance(d, int) for d in v):
                return v
            return None
        if isinstance(value, _Seq):
            return tuple(d.value if isinstance(d, Const) and isinstance(d.value, int) else None
                         for d in value.items)
        return None

    if short in ("array", "tensor"):
        return _literal_shape(args[0]) if args else None
    if short == "arange":
        consts = [a.value for a in args if isinstance(a, Const)]
        if len(consts) == len(args) and consts and len(consts) <= 3 and all(
                isinstance(c, (int, float)) and not isinstance(c, bool) for c in consts):
            try:
                return (len(np.arange(*consts)),)
            except (ValueError, ZeroDivisionError):
                return (None,)
        return (None,)
    if short == "linspace":
        num = args[2] if len(args) > 2 else kwargs.get("num", Const(50))
        return (num.value,) if isinstance(num, Const) and isinstance(num.value, int) else (None,)
    if short in ("eye", "identity"):
        n = args[0] if args else None
        m = args[1] if len(args) > 1 else n
        if isinstance(n, Const) and isinstance(m, Const) and isinstance(n.value, int) and \
                isinstance(m.value, int):
            return (n.value, m.value)
        return (None, None)
    if short in ("rand", "randn") and len(args) > 1:
        parts = [dims(a) for a in args]
        if all(p is not None and len(p) == 1 for p in parts):
            return tuple(p[0] for p in parts)
        return None
    if short in ("randint", "uniform", "normal"):
        size = kwargs.get("size")
        return dims(size) if size is not None else None
    size = args[0] if args else kwargs.get("size", kwargs.get("shape"))
    if short in ("random", "standard_normal") and size is None:
        return None
    if len(args) > 1 and short in ("zeros", "ones", "empty", "rand", "randn") and all(
            isinstance(a, Const) and isinstance(a.value, int) for a in args):
        return tuple(a.value for a in args)  # torch.zeros(2, 3)
    return dims(size)


def _literal_shape(value: Any) -> tuple | None:
    if isinstance(value, Const):
        try:
            return np.shape(value.value) if isinstance(value.value, tuple) else ()
        except ValueError:
            return None
    return None


def _call_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Call):
        return dotted_name(node.func)
    return dotted_name(node)


def _writer_name(node: cst.BaseExpression | None) -> str | None:
    """The name a write goes through: ``x`` for ``x[0] = 1`` or ``x.add_(1)``."""
    while node is not None:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None
    return None


def _kwarg_node(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _snapshot_binding(source: cst.CSTNode, env: dict) -> bool:
    """``old = x``, ``prev = w[:]``, ``np.asarray(x)``, ``x.view()``, ``x.detach()``: looks like a copy."""
    if isinstance(source, cst.Name):
        return True
    if isinstance(source, cst.Subscript):
        return all(isinstance(e.slice, cst.Slice) and e.slice.lower is None and
                   e.slice.upper is None and e.slice.step is None or
                   isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis)
                   for e in source.slice)
    if isinstance(source, cst.Attribute) and source.attr.value == "data":
        return True
    if isinstance(source, cst.Call):
        name = dotted_name(source.func)
        if isinstance(source.func, cst.Attribute) and source.func.attr.value in ("view", "detach") \
                and not source.args:
            return True
        if name is not None:
            head, _, rest = name.partition(".")
            lib = env.get(head)
            if isinstance(lib, Lib):
                qual = canonical(f"{lib.qualname}.{rest}" if rest else lib.qualname)
                return qual in _SNAPSHOT_CALLS and len(source.args) == 1
    return False


def _params(node: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in _param_nodes(node)]


def _param_nodes(node: cst.FunctionDef) -> list[cst.Param]:
    ps = node.params
    return list(ps.posonly_params) + list(ps.params)


def _body(node: cst.FunctionDef) -> list:
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [body]


def _decorated_no_grad(node: cst.FunctionDef) -> bool:
    for decorator in node.decorators:
        name = _call_name(decorator.decorator) or ""
        if name.endswith(("no_grad", "inference_mode")):
            return True
    return False


def _mutation_is_documented(node: cst.FunctionDef, param: str) -> bool:
    """In-place by contract: named so (``fill_x``, ``update``, ``add_``), an out-like parameter,
    or a docstring that says so."""
    name = node.name.value.lower()
    if name.endswith("_") and not name.endswith("__") or name.startswith(_MUTATOR_PREFIXES):
        return True
    p = param.lower()
    if p in _OUT_PARAM_NAMES or p.startswith(("out_", "buf")) or p.endswith(("_out", "_buf")):
        return True
    doc = node.get_docstring() if hasattr(node, "get_docstring") else None
    if doc and any(w in doc.lower() for w in ("in place", "in-place", "inplace", "modif",
                                              "overwrit", "mutat", "updat")):
        return True
    return False


def _statements(body: Iterable[cst.CSTNode], *, into_functions: bool) -> Iterable[cst.CSTNode]:
    """Every small statement under a body, walking compound statements but not expressions
    (libcst's visitors rebuild every node and cost as much as the whole analysis)."""
    stack = list(body)[::-1]
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
            continue
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and not into_functions:
            continue
        blocks = []
        for name in ("body", "orelse", "finalbody"):
            part = getattr(stmt, name, None)
            if isinstance(part, (cst.IndentedBlock, cst.Else, cst.Finally)):
                part = part.body
            if isinstance(part, cst.IndentedBlock):
                part = part.body
            if isinstance(part, cst.BaseCompoundStatement):
                blocks.append([part])
            elif isinstance(part, (list, tuple)):
                blocks.append(part)
            elif isinstance(part, cst.SimpleStatementSuite):
                yield from part.body
        for handler in getattr(stmt, "handlers", ()):
            blocks.append(handler.body.body if isinstance(handler.body, cst.IndentedBlock) else [])
        for block in reversed(blocks):
            stack.extend(reversed(list(block)))


_RAISING_CODES = frozenset({"SC302", "SC303", "SC306", "SC307", "SC308"})
_LIBRARY_ERRORS = frozenset({"Exception", "BaseException", "ValueError", "RuntimeError"})


def _catches_library_errors(handler: cst.ExceptHandler) -> bool:
    """The handler catches what numpy (ValueError) or torch (RuntimeError) raise here."""
    if handler.type is None:
        return True
    kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    for kind in kinds:
        expr = kind.value if isinstance(kind, cst.Element) else kind
        name = dotted_name(expr)
        if name is not None and name.rsplit(".", 1)[-1] in _LIBRARY_ERRORS:
            return True
    return False


def _returns_value(node: cst.FunctionDef) -> bool:
    """The function has a ``return <value>`` (or a yield) of its own."""
    for small in _statements(_body(node), into_functions=False):
        if isinstance(small, cst.Return) and small.value is not None and not (
                isinstance(small.value, cst.Name) and small.value.value == "None"):
            return True
        value = getattr(small, "value", None)
        if isinstance(value, cst.Yield):
            return True
    return False


def _module_names(module: cst.Module) -> dict[str, Any]:
    """Imports anywhere and top-level functions, known before the walk so calls resolve."""
    names: dict[str, Any] = {}
    for small in _statements(module.body, into_functions=True):
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            for bound, qual in import_bindings(small):
                if qual is not None:
                    names.setdefault(bound, Lib(canonical(qual)))
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            names[stmt.name.value] = Func(stmt, stmt.name.value)
    return names


def alias_findings(module: cst.Module, path: str, settings: Any = None) -> list[Finding]:
    """SC301-SC307 for one parsed module."""
    return AliasAnalysis(module, path, settings).run()


__all__ = ["AliasAnalysis", "Root", "Ref", "Write", "alias_findings"]
