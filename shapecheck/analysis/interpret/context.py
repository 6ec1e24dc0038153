"""The walker's state and reporting: positions, findings, expected failures, dialects."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Iterable

import libcst as cst

from ...runtime.dialects import NUMPY, NUMPY1, TORCH, TORCH_LEGACY, Dialect
from ...runtime.verdicts import Result, ShapeError
from ..annotations import shape_comments
from ..findings import Finding, Span
from ..positions import node_positions
from ..rules import all_rules
from ..values import AbstractArray, ClassValue, FunctionValue, Origin, Value
from .env import Frame, Scope


@dataclass(frozen=True)
class Step:
    """One op the evaluator applied: for the calculator's step-by-step explanation."""

    text: str
    op: str
    operand_shapes: tuple
    outcome: Result | ShapeError
    warnings: tuple = ()


class _Suppress:
    def __init__(self, interp: Any):
        self.interp = interp

    def __enter__(self):
        self.interp.suppress += 1

    def __exit__(self, *exc):
        self.interp.suppress -= 1
        return False


# Context managers that say the block is expected to raise or warn: no finding inside, for
# every rule (catch_warnings counts when it records what it catches).
RAISES_CONTEXTS = frozenset({"raises", "assert_raises", "assertRaises", "assert_raises_regex",
                             "assertRaisesRegex", "raises_regex", "assertRaisesRegexp", "warns",
                             "assert_warns", "assertWarns", "assertWarnsRegex", "deprecated_call"})


def expects_failure(item: cst.BaseExpression) -> bool:
    """``with pytest.raises(...)``, ``self.assertWarns(...)``, ``warnings.catch_warnings(record=True)``."""
    if not isinstance(item, cst.Call):
        return False
    name = callee_name(item.func)
    if name in RAISES_CONTEXTS:
        return True
    return name == "catch_warnings" and any(
        arg.keyword is not None and arg.keyword.value == "record" for arg in item.args)


_EXCEPTION_PARENTS = {
    "AxisError": ("ValueError", "IndexError"), "UFuncTypeError": ("TypeError",),
    "LinAlgError": ("ValueError",), "IndexError": ("LookupError",),
}


def disables_grad(item: cst.BaseExpression) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()`` (as a context or a decorator)."""
    func = item.func if isinstance(item, cst.Call) else item
    return callee_name(func) in ("no_grad", "inference_mode")


def checks_values(func: cst.BaseExpression) -> bool:
    """``np.testing.assert_array_equal``, ``self.assertEqual``, ``torch.testing.assert_close``:
    a call that tests its arguments, as an assert statement does."""
    name = callee_name(func)
    return name is not None and name.startswith("assert")


def callee_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _catches(caught: set, exc_type: str) -> bool:
    names = {exc_type, "Exception", "BaseException"}
    names.update(_EXCEPTION_PARENTS.get(exc_type, ()))
    return bool(caught & names) or exc_type == "Exception" and bool(caught)


class Context:
    def __init__(self, module: cst.Module, source: str, path: str, settings: Any,
                 force_dialect: Dialect | None = None):
        self.module = module
        self._positions = None
        self.source = source
        self.path = path
        self.settings = settings
        era = getattr(settings, "dialect", None)
        self.torch_dialect = TORCH_LEGACY if era == "torch-legacy" else TORCH
        self.numpy_dialect = NUMPY1 if era == "numpy-1" else NUMPY
        self.force_dialect = force_dialect
        self.rules = all_rules()
        self.findings: dict[tuple, Finding] = {}
        self.suppress = 0
        self.flow: str | None = None
        self.frame = Frame(Scope(None, "module"))
        self.deferred: deque = deque()
        self.analyzed: set[int] = set()
        self.summaries: dict[tuple, Value] = {}
        self.summary_selves: dict[int, Any] = {}  # method -> the instance its summary ran with
        # Per summary key: the parameters whose rank the callee's body said (adopt_refinements).
        self.refined_by: dict[tuple, dict] = {}
        self.dict_exits: dict[tuple, dict] = {}  # specialization -> its dict parameters at the end
        self.last_dict_exits: dict = {}
        self.last_refinements: dict = {}
        self.refined_storages: set[int] = set()  # unknown parameters whose rank code said
        self.last_roots: dict = {}  # parameter -> the storage of unknown rank it was bound to
        self.last_kept_shape: Any = None  # the parameter whose shape the returned array has
        self.kept_shape: dict[tuple, Any] = {}  # per summary key: that parameter
        # Parameter (its node's id) -> what every returning path of its body said it is, when
        # nothing else describes it: the second walk of the body starts from that.
        self.param_seeds: dict[int, Any] = {}
        self.active: list[int] = []
        self.depth_base = 0  # calls under way before the walk that the depth limit counts from
        self.specializations = 0
        # Module-level code (a table of configs built by calls) runs each function with
        # this many argument sets at most; the summary answers the rest.
        self.module_level = False
        self.module_level_runs: dict[int, int] = {}
        self.unrolled = 0  # loop bodies walked once per item (containers.py)
        self.trace: list[Step] | None = None
        self.out_call = False
        self.out_result: Result | None = None
        self.capture: list[dict] = []
        self.inplace_call = False
        self.default_library: str | None = None
        self.array_libraries: set[str] = set()  # numpy / torch, as the file imports them
        self.caught: list[set] = []
        # Nodes that made new memory, and how often the memory of one was made anew while a
        # name still held the last (effects.fresh_storage_id).
        self.made_at: set[int] = set()
        self.storage_generations: dict[int, int] = {}
        # Functions handed to assert_raises / pytest.raises (node ids): written to fail.
        self.expected_to_fail: set[int] = set()
        self.trailing_shapes, self.standalone_shapes = (
            shape_comments(source) if "shape:" in source else ({}, {}))
        self.hints = dict(getattr(settings, "shape_hints", ()) or ())
        self.storage_names: dict[int, str] = {}  # storage id -> the first name bound to it
        self.grad_storages: set[int] = set()  # leaves that require grad
        # saved-for-backward storage -> (write, op, the storage of the op's result)
        self.saved_writes: dict[int, tuple] = {}
        self.saved_inputs: dict[int, tuple] = {}  # storage -> (op, its result's storage)
        self.versions: dict[int, int] = {}  # storage id -> how many writes it has seen
        self.storage_nodes: dict[int, Any] = {}  # storage id -> the node that made it
        # (storage id, version) -> the name of the values it then held (effects.contents_of)
        self.contents_names: dict[tuple, str] = {}
        self.contents_bases: dict[str, int] = {}  # a name given to contents -> how many have it
        self.writes: dict[int, tuple] = {}  # storage id -> (version, writer, layout, node), ...
        # storage id -> (write, writer name): written through a maybe-view, base not yet read
        self.maybe_writes: dict[int, tuple] = {}
        # storage id -> (call, in-place node, callee, parameter): written by a callee, unread
        self.pending_calls: dict[int, tuple] = {}
        # Per function being analyzed: the storages its arguments reach (the caller's memory),
        # and those its ``self`` reaches (the attributes a method's object owns).
        self.caller_storages: list[tuple[frozenset, frozenset]] = []
        # parameter storage -> (first write in place, the callees it went through)
        self.param_writes: dict[int, tuple] = {}
        self.statement_calls: set[int] = set()  # calls whose result is thrown away
        self.workspaces: set[int] = set()  # storages made by allocators: buffers to be filled
        self.namespace_uses: frozenset | None = None  # names used as an array namespace
        self.unknown_params: set[int] = set()  # storages of parameters made arrays for aliasing
        self.in_assert = False  # reads inside an assert test what a write did, on purpose
        self.metadata_read = False
        self.copies: set[int] = set()  # subscripts that certainly copy (advanced indexing)
        self.on_its_own = False  # analyzing a function with no caller (its summary)
        self.named_symbols: dict[str, Any] = {}  # symbol -> where the code named it (SC112)
        self.parameter_storages: dict[int, Any] = {}  # nn.Module instance -> its parameters
        self.parameter_owners: dict[int, Any] = {}  # parameters' storage -> the module
        self.refined_holders: dict[tuple, list] = {}  # (function, text) -> refined nodes
        self.sized_params: set[int] = set()  # parameters (node ids) the code uses as sizes
        self.param_flows: dict[int, set[int]] = {}  # parameter -> caller parameters passed to it
        self.no_grad = 0  # inside torch.no_grad() / inference_mode, or a function decorated so
        self.building = 0  # inside an nn.Module's __init__: the modules it builds are its children

    def run(self) -> list[Finding]:
        self.module_level = True
        try:
            self.exec_block(self.module.body)
        finally:
            self.module_level = False
        self.flow = None
        while self.deferred:
            kind, item = self.deferred.popleft()
            self.unrolled = 0  # each function and class has the whole budget of unrolled loops
            if kind == "class":
                self.analyze_class(item)
            elif id(item) not in self.analyzed:
                self.function_summary(item)
                self.default_call(item)
        return list(self.findings.values())

    @property
    def call_depth(self) -> int:
        """Calls under way, counted from where the walk under way started counting them."""
        return len(self.active) - self.depth_base

    @property
    def positions(self):
        """Node positions, computed on first need: most files never report anything."""
        if self._positions is None:
            self._positions = node_positions(self.module)
        return self._positions

    def origin(self, node: cst.CSTNode) -> Origin:
        return Origin(0, "", node)

    def origin_line(self, origin: Origin | None) -> int | None:
        if origin is None:
            return None
        if origin.line:
            return origin.line
        return self.line(origin.node) if origin.node is not None else None

    def span(self, node: cst.CSTNode) -> Span:
        try:
            pos = self.positions[node]
        except KeyError:
            return Span(1, 1, 1, 1)
        return Span(pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1)

    def line(self, node: cst.CSTNode) -> int:
        try:
            return self.positions[node].start.line
        except KeyError:
            return 0

    def text(self, node: cst.CSTNode, limit: int = 40) -> str:
        try:
            text = self.module.code_for_node(node).strip()
        except Exception:
            return "?"
        text = " ".join(text.split())
        return text if len(text) <= limit else text[:limit - 3] + "..."

    def report(self, code: str, node: cst.CSTNode, message: str, exc_type: str | None = None,
               related: tuple = (), own: bool = False, fix: Any = None) -> None:
        """``own``: the finding is the analyzed function's alone, whatever its arguments (it
        reads an array it made itself): kept at its own line even inside a specialization,
        where other findings wait to be reported at the call that gave the arguments.
        ``fix``: a certain rewrite (findings.Fix, made by analysis/fixes.py)."""
        if self.suppress:
            return
        if exc_type is not None and any(_catches(c, exc_type) for c in self.caught):
            return  # the code handles this very exception: it expects the failure
        spec = self.rules.get(code)
        if spec is None:
            return
        span = self.span(node)
        key = (code, span.line, span.column)
        # SC112 is the weakest word on an op: any other finding there names the cause.
        if code != "SC112":
            (self.capture[-1] if self.capture and not own else self.findings).pop(
                ("SC112", span.line, span.column), None)
        if self.capture and not own:
            sink = self.capture[-1]
            if key not in sink:
                sink[key] = (Finding(path=self.path, span=span, code=code, name=spec.name,
                                     severity=spec.severity, message=message,
                                     related=related, fix=fix), exc_type)
        elif key not in self.findings:
            self.findings[key] = Finding(path=self.path, span=span, code=code, name=spec.name,
                                         severity=spec.severity, message=message,
                                         related=related, fix=fix)

    def reported_at(self, node: cst.CSTNode) -> bool:
        """Some finding is already reported at this node's position."""
        span = self.span(node)
        keys = self.capture[-1] if self.capture else self.findings
        return any(key[1:] == (span.line, span.column) for key in keys)

    def emit_at_call(self, node: cst.CSTNode, where: str, captured: dict) -> None:
        """Findings a callee has only with this call's arguments are reported at the call."""
        for key, (finding, exc_type) in captured.items():
            if key in self.findings:
                continue
            self.report(finding.code, node, f"{finding.message} [in {where}, line "
                                            f"{finding.line}, with the arguments of this call]",
                        exc_type)

    def standalone(self, func: FunctionValue) -> None:
        """Analyze a callee on its own first, so its own findings stay at their own lines."""
        saved = self.capture, self.suppress
        self.capture, self.suppress = [], 0
        try:
            owner = func.owner
            if isinstance(owner, ClassValue):
                if id(owner) not in self.analyzed:
                    self.analyze_class(owner)
            elif id(func) not in self.analyzed:
                self.function_summary(func)
        finally:
            self.capture, self.suppress = saved

    def dialect_for(self, library: str) -> Dialect:
        if self.force_dialect is not None:
            return self.force_dialect
        return self.torch_dialect if library == "torch" else self.numpy_dialect

    @staticmethod
    def library_of(values: Iterable[Value], default: str = "numpy") -> str:
        libraries = {v.library for v in values if isinstance(v, AbstractArray)}
        if "torch" in libraries:
            return "torch"
        if "numpy" in libraries:
            return "numpy"
        return default

    def suppressed(self) -> "_Suppress":
        return _Suppress(self)
