"""User functions: specialization at call sites, summaries, parameters."""

from __future__ import annotations

import re
from dataclasses import replace

import libcst as cst
import numpy as np

from ...runtime.dims import Sym, substitute, sym
from ...runtime.members import TENSOR_MEMBERS
from ..annotations import array_from_annotation, scalar_tuple
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    Alias,
    ClassValue,
    ConstValue,
    DictValue,
    FloatValue,
    FunctionValue,
    InstanceValue,
    IntValue,
    ModuleRef,
    Origin,
    PartialDict,
    Storage,
    TupleValue,
    Value,
    join_values,
    shape_root,
)
from .context import callee_name, disables_grad
from .dicts import edited_in_place
from .effects import storage_paths
from .env import (
    Frame,
    PartialValue,
    Scope,
    is_informative,
    join_refinements,
    sharing_key,
    specialization_key,
)
from .names import (
    MAX_CALL_DEPTH,
    MAX_MODULE_LEVEL_RUNS,
    MAX_SPECIALIZATIONS,
    MORE_KEYWORDS,
)


def _may_fall_through(node: cst.FunctionDef) -> bool:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
    if not body:
        return True
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine) and any(
            isinstance(s, (cst.Return, cst.Raise)) for s in last.body):
        return False
    return True


# Attributes of the numpy namespace that no ndarray has: a parameter used with one of them is
# an array-API namespace (``xp``), not an array.
_NAMESPACE_ONLY = frozenset(n for n in dir(np) if not n.startswith("_")) - frozenset(dir(np.ndarray))


_ATTRIBUTE_USE = re.compile(r"\b([A-Za-z_]\w*)[ \t]*\.[ \t]*([A-Za-z_]\w*)")


def namespace_names(source: str, tensors: bool = False) -> frozenset[str]:
    """Names the file uses as ``name.attr`` with an attribute only the numpy namespace has
    (and, in a file that uses torch, no tensor has: ``pred.pow(2)`` is a tensor's method).

    Read from the text once per file: a libcst visitor per function cost a third of the
    analysis of a big file. A parameter of one of these names is taken for an array
    namespace everywhere in the file, which can only make fewer findings.
    """
    return frozenset(m.group(1) for m in _ATTRIBUTE_USE.finditer(source)
                     if m.group(2) in _NAMESPACE_ONLY and not (
                         tensors and m.group(2) in TENSOR_MEMBERS))


_ARRAY_WORDS = re.compile(r"tensor|ndarray|array|any|like", re.IGNORECASE)


def _may_hold_array(annotation: str) -> bool:
    """An annotation that may stand for an array: one naming none of the words array types
    are named with (``float``, ``list[Config]``, ``Optional[int]``) says the value is none."""
    return _ARRAY_WORDS.search(annotation) is not None


def _is_float(annotation: cst.BaseExpression) -> bool:
    return isinstance(annotation, cst.Name) and annotation.value == "float"


# Decorators that hand the call's arguments to the body as given. Any other may fill a
# parameter the call left out (from a config, or from a renamed keyword).
_PASSES_ARGUMENTS = frozenset({"staticmethod", "classmethod", "no_grad", "inference_mode",
                               "enable_grad", "cache", "lru_cache"})


def _joined_exits(exits: list[dict]) -> dict:
    """Parameter -> the dict it holds on every way out of the body (joined), for those that
    hold one on each."""
    if not exits:
        return {}
    out = {}
    for name, value in exits[0].items():
        for other in exits[1:]:
            value = join_values(value, other.get(name, UNKNOWN_VALUE))
        if isinstance(value, (DictValue, PartialDict)):
            out[name] = value
    return out


def _defaults_reach_body(node: cst.FunctionDef) -> bool:
    """A parameter a call leaves out has its default in the body: no decorator between."""
    return all(callee_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
               in _PASSES_ARGUMENTS for d in node.decorators)


_CALLEE_DIM = re.compile(r"^[\w.#]+\.shape\[\d+\]$")


def _param_roots(node: cst.FunctionDef, scope: Scope) -> dict:
    """Parameter index (or keyword-only name) -> the storage of unknown rank whose shape its
    value has as bound: its own, or the caller's array a shape-keeping op passed on."""
    params = node.params
    roots: dict = {}
    for i, param in enumerate((*params.posonly_params, *params.params)):
        roots[i] = shape_root(scope.vars.get(param.name.value))
    for param in params.kwonly_params:
        roots[param.name.value] = shape_root(scope.vars.get(param.name.value))
    return {where: root for where, root in roots.items() if root is not None}


def _param_refinements(roots: dict, frame: Frame, falls_through: bool) -> dict:
    """Parameter index (or keyword-only name) -> the refined value of that parameter, for
    the parameters whose rank the body said on every path that returns."""
    exits = frame.exit_refinements + ([frame.refinements] if falls_through else [])
    agreed = join_refinements({}, exits)
    return {where: agreed[root] for where, root in roots.items() if root in agreed}


def _param_at(node: cst.FunctionDef, where: int | str) -> cst.Param:
    """The parameter at a positional index, or the keyword-only one of that name."""
    params = node.params
    if isinstance(where, int):
        return (*params.posonly_params, *params.params)[where]
    return next(p for p in params.kwonly_params if p.name.value == where)


def _without_shape_links(value: Value) -> Value:
    if isinstance(value, AbstractArray) and value.shape_of is not None:
        return replace(value, shape_of=None)
    if isinstance(value, TupleValue) and any(isinstance(item, AbstractArray) and
                                             item.shape_of is not None for item in value.items):
        return replace(value, items=tuple(_without_shape_links(item) for item in value.items))
    return value


def _kept_shape(node: cst.FunctionDef, roots: dict, out: Value):
    """The parameter (index or keyword-only name) nothing described whose shape the returned
    array has, known or not; None when it has no such parameter's."""
    root = shape_root(out)
    if root is None:
        return None
    for where, bound in roots.items():
        if bound == root == id(_param_at(node, where)):
            return where
    return None


def _atom_names(dim) -> set[str]:
    """Every atom of a dim, ``x.shape[0]`` included (runtime.dims.atoms keeps identifiers)."""
    if not isinstance(dim, Sym):
        return set()
    return {atom for mono, _ in dim.terms for atom in mono}


def _renamed(value: Value, renames: dict) -> Value:
    """``value`` with the callee's names of its parameters' dims replaced by the caller's."""
    if isinstance(value, TupleValue):
        return replace(value, items=tuple(_renamed(v, renames) for v in value.items))
    if isinstance(value, AbstractArray) and (value.shape or value.tail):
        return replace(value,
                       shape=None if value.shape is None else
                       tuple(substitute(d, renames) for d in value.shape),
                       tail=tuple(substitute(d, renames) for d in value.tail))
    return value


def _holds_array(value: Value) -> bool:
    if isinstance(value, AbstractArray):
        return True
    if isinstance(value, TupleValue):
        return any(_holds_array(v) for v in value.items)
    return not isinstance(value, (IntValue, ConstValue, ClassValue, ModuleRef, PartialValue))


def _is_none(default) -> bool:
    return isinstance(default, cst.Name) and default.value == "None"


def _constant_tuple(value: Value) -> bool:
    """A tuple or list of known ints, floats, bools, strings and classes (nested ones too): a
    default such as ``depths=(3, 3, 9, 3)``, ``cfg=[64, "M", 128]`` or ``kinds=(Conv, Attn)``."""
    return isinstance(value, TupleValue) and all(
        isinstance(item, IntValue) and isinstance(item.value, int) or
        isinstance(item, ConstValue) and isinstance(item.value, (bool, str, int, float)) or
        isinstance(item, (ClassValue, ModuleRef)) or _constant_tuple(item) for item in value.items)


class Functions:
    def call_function(self, func: FunctionValue, args: list, kwargs: dict,
                      node: cst.CSTNode | None = None) -> Value:
        self.note_param_flow(func, args, kwargs)
        if id(func) in self.active or self.call_depth >= MAX_CALL_DEPTH:
            return UNKNOWN_VALUE
        informative = any(is_informative(a) for a in args if not isinstance(a, InstanceValue)) or \
            any(is_informative(v) for v in kwargs.values())
        if not informative or self.specializations >= MAX_SPECIALIZATIONS:
            if func.owner is not None and args and isinstance(args[0], InstanceValue):
                self.standalone(func)
                result = self.specialize(func, args, kwargs, node)
            else:
                result = self.function_summary(func)
                key = (id(func), "summary")
                result = self.adopt_kept_shape(self.kept_shape.get(key), args, kwargs, result,
                                               node)
                return self.adopt_refinements(self.refined_by.get(key, {}), args, kwargs,
                                              node, result)
        else:
            self.standalone(func)
            result = self.specialize(func, args, kwargs, node)
        key = self.specialization_key_of(func, args, kwargs)
        result = self.adopt_kept_shape(self.kept_shape.get(key), args, kwargs, result, node)
        return self.adopt_refinements(self.refined_by.get(key, {}), args, kwargs, node, result)

    def adopt_kept_shape(self, where, args: list, kwargs: dict, result: Value,
                         node: cst.CSTNode | None) -> Value:
        """The callee returns an array of its parameter's shape (a norm's forward, a dropout
        that may return its input): the caller's result has its argument's shape, known or not,
        and a rank said of one later is said of the other."""
        if where is None:
            return result
        if isinstance(where, int):
            # (A summary's parameter the call gives by keyword, or leaves to its default.)
            arg = args[where] if where < len(args) else None
        else:
            arg = kwargs.get(where)
        root = shape_root(arg)
        if root is None:
            return result
        if isinstance(result, AbstractArray) and result.shape is None:
            return replace(result, shape_of=root)
        if result is UNKNOWN_VALUE and node is not None:
            # The callee's own walk left it unknown, computed from a parameter it knew nothing
            # of: a new array made from the argument, an array only as much as that one is.
            made = None
            if arg.alias is not None and arg.alias.storage is not None:
                made = Alias(Storage(id(node), self.text(node, 30),
                                     is_array=arg.alias.storage.is_array),
                             "base", deps=arg.alias.deps)
            return AbstractArray(None, None, arg.library, self.origin(node), tail=arg.tail,
                                 alias=made, shape_of=root)
        return result

    def adopt_refinements(self, refined: dict, args: list, kwargs: dict, node,
                          result: Value) -> Value:
        """The callee's first layer (or index) said what rank its parameter has, which the
        caller's argument of unknown rank must have too: ``self.block(x)`` with the block's
        conv taking (N, C, H, W) makes the caller's x (N, C, H, W) from here on, its dims
        named after the caller's x, and the callee's result is in those names."""
        if not refined or not isinstance(node, cst.Call):
            return result
        explicit = [a.value for a in node.args if not a.star and a.keyword is None]
        offset = len(args) - len(explicit)
        renames: dict = {}
        for where, value in refined.items():
            if isinstance(where, int):
                current = args[where] if where < len(args) else None
                holder = explicit[where - offset] if 0 <= where - offset < len(explicit) else None
            else:
                current = kwargs.get(where)
                holder = next((a.value for a in node.args if a.keyword is not None
                               and a.keyword.value == where), None)
            if shape_root(current) is None or holder is None:
                continue
            text = self.refined_text(holder)
            for i, dim in enumerate(value.shape):
                for atom in _atom_names(dim):
                    if _CALLEE_DIM.match(atom):
                        renames[atom] = sym(f"{text}[{i}]")
            dims = tuple(substitute(d, renames) for d in value.shape)
            if isinstance(result, AbstractArray) and result.shape is None and \
                    result.shape_of is not None and result.shape_of == shape_root(current):
                result = result.with_shape(dims)
            self.refine_array(current, holder, dims, library=value.library,
                              assumed=value.assumed_rank)
        if not renames:
            return result
        return _renamed(result, renames)

    def specialization_key_of(self, func: FunctionValue, args: list, kwargs: dict) -> tuple:
        return (id(func), tuple(specialization_key(a) for a in args),
                tuple(sorted((k, specialization_key(v)) for k, v in kwargs.items())),
                self.no_grad > 0, sharing_key(list(args) + list(kwargs.values())))

    def specialize(self, func: FunctionValue, args: list, kwargs: dict, node) -> Value:
        """The callee analyzed with this call's arguments (cached per argument shapes)."""
        # Grad mode is dynamic: the callee runs under the caller's no_grad.
        key = self.specialization_key_of(func, args, kwargs)
        values = list(args) + [kwargs[k] for k in sorted(kwargs)]
        if key not in self.summaries:
            # A call the module's code makes with no array (a config's strings and numbers):
            # timm's ``default_cfgs = {name: _cfg(hf_hub_id=...), ...}``, a hundred configs,
            # would spend the budget before any model. A script's calls on arrays run all.
            direct = self.module_level and not self.active and \
                not any(_holds_array(v) for v in values)
            runs = self.module_level_runs.get(id(func), 0)
            if direct and runs >= MAX_MODULE_LEVEL_RUNS:
                return self.function_summary(func)
            if direct:
                self.module_level_runs[id(func)] = runs + 1
            if self.specializations >= MAX_SPECIALIZATIONS:
                summarized = self.summary_selves.get(id(func))
                if isinstance(summarized, InstanceValue) and args and args[0] is not summarized:
                    # The summary ran on the class's own instance, built with the
                    # constructor's defaults; this one may be built otherwise.
                    return UNKNOWN_VALUE
                return self.function_summary(func)
            self.specializations += 1
            self.capture.append({})
            reachable = storage_paths(values)
            seen = {sid: len(self.writes.get(sid, ())) for sid in reachable.values()}
            try:
                result = self.analyze_function(func, args, kwargs, by_call=True)
                self.refined_by[key] = self.last_refinements
                self.kept_shape[key] = self.last_kept_shape
                self.dict_exits[key] = self.last_dict_exits
            finally:
                captured = self.capture.pop()
            # The writes into the caller's arrays (arguments, their attributes) are effects
            # of every such call: a cached call replays them onto its own arguments.
            replay = tuple((path, self.writes[sid][seen[sid]:]) for path, sid in reachable.items()
                           if len(self.writes.get(sid, ())) > seen[sid])
            self.summaries[key] = (result, captured, replay)
        else:
            self.replay_writes(values, self.summaries[key][2])
        result, captured, _ = self.summaries[key]
        self.write_back_dicts(func, node, self.dict_exits.get(key))
        if node is not None and captured:
            self.emit_at_call(node, func.name, captured)
        return result

    def write_back_dicts(self, func: FunctionValue, node, exits: dict | None) -> None:
        """``_ovewrite_named_param(kwargs, "num_classes", n)``: a dict handed to a function that
        only edits it in place holds afterwards what the callee's parameter held at its end."""
        if not exits or not isinstance(node, cst.Call) or func.owner is not None:
            return
        params = [*func.node.params.posonly_params, *func.node.params.params]
        names = [a.value.value for a in node.args if isinstance(a.value, cst.Name)]
        for arg, param in zip(node.args, params):
            if arg.star or arg.keyword is not None:
                return
            value = exits.get(param.name.value)
            if value is not None and isinstance(arg.value, cst.Name) and \
                    names.count(arg.value.value) == 1:
                self.assign(arg.value, value, node)

    def default_call(self, func: FunctionValue) -> None:
        """``f()`` of a module-level function whose parameters all have defaults, some None (a
        model builder: ``def resnet18(*, weights=None, progress=True, **kwargs)``): the body
        once more as that call runs it, with the None defaults None (its summary takes them
        for unknown, as a caller may give anything). What fails then fails for ``f()``."""
        node = func.node
        params = node.params
        named = [*params.posonly_params, *params.params, *params.kwonly_params]
        if func.owner is not None or not named or any(p.default is None for p in named) or \
                not any(_is_none(p.default) for p in named) or id(func) in self.active or \
                self.specializations >= MAX_SPECIALIZATIONS or node.asynchronous is not None:
            return
        self.specializations += 1
        self.analyze_function(func, [], {}, by_call=True)

    def function_summary(self, func: FunctionValue, self_value: Value | None = None) -> Value:
        """The function analyzed once from its annotations and defaults; findings reported."""
        key = (id(func), "summary")
        if key in self.summaries:
            return self.summaries[key]
        if id(func) in self.active:
            return UNKNOWN_VALUE
        self.analyzed.add(id(func))
        self.summaries[key] = UNKNOWN_VALUE
        self.summary_selves[id(func)] = self_value
        args = [self_value] if self_value is not None else []
        saved_no_grad, self.no_grad = self.no_grad, 0  # analyzed once, on its own
        saved_own, self.on_its_own = self.on_its_own, True
        # assert_raises(AttributeError, rs): rs is written to fail, as a raises block is.
        expected = id(func.node) in self.expected_to_fail
        self.suppress += expected
        try:
            sized = self.sized_count(func)
            result = self.analyze_function(func, args, {}, by_call=False)
            if self.sized_count(func) > sized:
                # The body used parameters nothing was known of as sizes (a layer's width):
                # once more with those as ints, so the layers it builds have symbolic sizes.
                result = self.analyze_function(func, args, {}, by_call=False)
            self.refined_by[key] = self.last_refinements
            self.kept_shape[key] = self.last_kept_shape
        finally:
            self.suppress -= expected
            self.no_grad = saved_no_grad
            self.on_its_own = saved_own
        self.summaries[key] = result
        return result

    def analyze_function(self, func: FunctionValue, args: list, kwargs: dict,
                         by_call: bool) -> Value:
        """The body run with these arguments. ``by_call`` when a call gave them: a parameter
        it left out then certainly has its default; without a call (a summary, a built
        module's forward on an input nobody describes) another caller may give anything.

        A parameter nothing described whose rank every returning path of the body said (``B,
        T, C = x.shape``; a conv, or a callee that unpacks, taking x) has that rank from the
        first line: the body runs once more from there, as the walk that learned it had read
        x as of unknown rank before (``x + self.attn(self.norm(x))``). Its dims are the ones
        this walk found, with these arguments (another instance's conv has other channels).
        """
        result = self.walk_function(func, args, kwargs, by_call)
        seeds = self.own_param_ranks(func.node)
        if not seeds or self.specializations >= MAX_SPECIALIZATIONS:
            return result
        said = self.last_refinements
        saved, self.param_seeds = self.param_seeds, {**self.param_seeds, **seeds}
        try:
            result = self.walk_function(func, args, kwargs, by_call)
        finally:
            self.param_seeds = saved
        # What the first walk learned of them is still what a caller's argument must be.
        self.last_refinements = {**said, **self.last_refinements}
        return result

    def own_param_ranks(self, node: cst.FunctionDef) -> dict:
        """Parameter (its node's id) -> its refined value, for the parameters bound to an array
        of their own (nothing described them) whose rank the last walk's body said."""
        seeds = {}
        for where, refined in self.last_refinements.items():
            param = _param_at(node, where)
            # A rank taken from how the body indexes it is a guess: not spread to the reads
            # before the index.
            if self.last_roots.get(where) == id(param) and refined.shape is not None and \
                    not refined.assumed_rank:
                seeds[id(param)] = refined
        return seeds

    def walk_function(self, func: FunctionValue, args: list, kwargs: dict,
                      by_call: bool) -> Value:
        node: cst.FunctionDef = func.node
        scope = Scope(func.scope, "function")
        saved_frame, saved_flow = self.frame, self.flow
        self.frame = Frame(scope, function=func)
        self.flow = None
        self.active.append(id(func))
        no_grad = any(disables_grad(d.decorator) for d in node.decorators)
        self.no_grad += no_grad
        building = func.name == "__init__" and isinstance(func.owner, ClassValue) and \
            func.owner.is_nn_module
        self.building += building
        # The callee's body is not part of the caller's assert.
        saved_assert, self.in_assert = self.in_assert, False
        # A callee's argument writes wait for reads in the body that made the call: a pass over
        # this body (standalone, then specialized) starts with none left by an earlier pass.
        saved_calls, self.pending_calls = self.pending_calls, {}
        self.caller_storages.append((frozenset(), frozenset()))
        try:
            self.bind_params(node, scope, args, kwargs, func, by_call)
            roots = _param_roots(node, scope)
            self.frame.dict_params = frozenset(
                p.name.value for p in (*node.params.posonly_params, *node.params.params)
                if isinstance(scope.vars.get(p.name.value), (DictValue, PartialDict)) and
                edited_in_place(node, p.name.value, self.hands_on_in_place(func.scope)))
            owner = scope.vars.get("self") if isinstance(func.owner, ClassValue) else None
            self.caller_storages[-1] = (
                frozenset(storage_paths(list(scope.vars.values())).values()),
                frozenset(storage_paths([owner]).values()) if owner is not None else frozenset())
            if isinstance(node.body, cst.IndentedBlock):
                self.exec_block(node.body.body)
            else:
                self.exec_block([node.body])
            frame, ended = self.frame, self.flow  # the body's own flow: did every path return?
        finally:
            self.caller_storages.pop()
            self.pending_calls = saved_calls
            self.no_grad -= no_grad
            self.building -= building
            self.in_assert = saved_assert
            self.active.pop()
            self.frame, self.flow = saved_frame, saved_flow
        exits = frame.dict_exits + ([{n: scope.vars.get(n) for n in frame.dict_params}]
                                    if ended is None and frame.dict_params else [])
        self.last_dict_exits = _joined_exits(exits)
        if frame.is_generator or node.asynchronous is not None:
            return UNKNOWN_VALUE
        returns = frame.returns if frame.returns else [ConstValue(None)]
        if ended is None and frame.returns and _may_fall_through(node):
            returns = returns + [ConstValue(None)]
        out = returns[0]
        for value in returns[1:]:
            out = join_values(out, value)
        self.last_refinements = _param_refinements(roots, frame, ended is None)
        self.last_roots = roots
        self.last_kept_shape = _kept_shape(node, roots, out)
        # Which of this body's arrays the result had the shape of means nothing to a caller
        # (it has its own ids): the kept shape above says it in the caller's terms.
        out = _without_shape_links(out)
        params = node.params
        own = {id(p) for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        if isinstance(out, AbstractArray) and out.alias is not None and \
                out.alias.deps & self.unknown_params & own - self.refined_storages:
            # Computed from its own parameter nothing was known of (and no layer or index said
            # its rank); a caller's array is the caller's to judge.
            return UNKNOWN_VALUE
        if isinstance(out, AbstractArray) and node.returns is not None and out.shape is None:
            declared = self.annotation_value(node.returns.annotation, node)
            if isinstance(declared, AbstractArray):
                out = declared
        return out

    def hands_on_in_place(self, scope: Scope, depth: int = 0):
        """Whether ``g(d)`` only reads or edits d in place, for a function g of the code
        (``_filter_kwargs(kwargs, names)``): its positional parameter does so in its body."""
        def hands_on(name: str, index: int) -> bool:
            callee = scope.lookup(name) if depth < 2 else None
            if not isinstance(callee, FunctionValue) or not isinstance(callee.node, cst.FunctionDef):
                return False
            params = callee.node.params
            positional = (*params.posonly_params, *params.params)
            return index < len(positional) and edited_in_place(
                callee.node, positional[index].name.value,
                self.hands_on_in_place(callee.scope, depth + 1))
        return hands_on

    def sized_count(self, func: FunctionValue) -> int:
        params = func.node.params
        return sum(1 for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                   if id(p) in self.sized_params)

    def unknown_param_of(self, value: Value) -> int | None:
        """The parameter (its node's id) that ``value`` is, passed on unchanged, when nothing
        is known of it."""
        if isinstance(value, AbstractArray) and value.shape is None and not value.tail and \
                value.alias is not None and value.alias.view == "base" and \
                value.alias.storage is not None and value.alias.storage.param is not None and \
                value.alias.storage.id in self.unknown_params:
            return value.alias.storage.id
        return None

    def mark_sized(self, value: Value) -> None:
        """The code uses ``value`` as a size (a layer's width, a range's bound): when it is a
        parameter nothing was known of, that parameter is an int, and so are the callers'
        parameters passed to it."""
        pending = [self.unknown_param_of(value)]
        while pending:
            param = pending.pop()
            if param is None or param in self.sized_params:
                continue
            self.sized_params.add(param)
            pending.extend(self.param_flows.get(param, ()))

    def note_param_flow(self, func: FunctionValue, args: list, kwargs: dict) -> None:
        """Which of the caller's unknown parameters this call passes to which of ``func``'s."""
        if not self.unknown_params or not isinstance(func.node, cst.FunctionDef):
            return
        params = func.node.params
        positional = list(params.posonly_params) + list(params.params)
        by_name = {p.name.value: p for p in (*positional, *params.kwonly_params)}
        pairs = list(zip(positional, args)) + [(by_name[k], v) for k, v in kwargs.items()
                                               if k in by_name]
        for param, value in pairs:
            caller = self.unknown_param_of(value)
            if caller is None:
                continue
            self.param_flows.setdefault(id(param), set()).add(caller)
            if id(param) in self.sized_params:
                self.mark_sized(value)

    def bind_params(self, node: cst.FunctionDef, scope: Scope, args: list, kwargs: dict,
                    func: FunctionValue, by_call: bool) -> None:
        kwargs = dict(kwargs)
        more = kwargs.pop(MORE_KEYWORDS, None) is not None
        self.note_param_flow(func, args, kwargs)
        params = node.params
        positional = list(params.posonly_params) + list(params.params)
        if more:  # **extra of unknown keys: any parameter the call does not name is given
            kwargs.update({p.name.value: UNKNOWN_VALUE for p in (*positional[len(args):],
                                                                 *params.kwonly_params)
                           if p.name.value not in kwargs})
        saved = self.frame.scope
        self.frame.scope = func.scope  # defaults and annotations see the defining scope
        try:
            for i, param in enumerate(positional):
                name = param.name.value
                if i < len(args):
                    value = args[i]
                    if not is_informative(value):
                        value = self.param_value(param, func, given=True) \
                            if value is not None else UNKNOWN_VALUE
                elif name in kwargs:
                    value = kwargs[name] if is_informative(kwargs[name]) else \
                        self.param_value(param, func, given=True)
                elif by_call and param.default is None:
                    # A call that leaves out a parameter with no default raises TypeError:
                    # nothing is known of it (super().__init__() for a base that takes config
                    # is no config built from the annotation).
                    value = UNKNOWN_VALUE
                else:
                    value = self.param_value(param, func, by_call=by_call)
                if not is_informative(args[i]) if i < len(args) else name not in kwargs or \
                        not is_informative(kwargs[name]):
                    value = self.caller_owned(value, param, i, func)
                scope.vars[name] = value
            for param in params.kwonly_params:
                name = param.name.value
                value = kwargs.get(name)
                if value is None and by_call and param.default is None:
                    scope.vars[name] = UNKNOWN_VALUE  # left out, with no default: TypeError
                    continue
                scope.vars[name] = value if value is not None and is_informative(value) else \
                    self.param_value(param, func, given=value is not None, by_call=by_call)
            # **kwargs holds the keywords the call gave beyond the named parameters (none,
            # analyzed on its own: a builder's **kwargs run the callee's defaults). *args holds
            # the positional extras when no array is among them (a builder's [4, 8, 4]); with
            # arrays it stays unknown: each call of a wrapper like mlarr(*args) would make its
            # array in the same storage, and one call's writes would pass for another's.
            # A call that gave none has an empty *args (LevitDistilled(**cfg) hands it on to
            # super().__init__(*args, **kwargs)).
            if isinstance(params.star_arg, cst.Param):
                extra = tuple(args[len(positional):])
                known = extra and not any(_holds_array(v) for v in extra) or by_call and not extra
                scope.vars[params.star_arg.name.value] = TupleValue(extra) if known \
                    else UNKNOWN_VALUE
            if isinstance(params.star_kwarg, cst.Param):
                named = {p.name.value for p in (*positional, *params.kwonly_params)}
                # On its own, a builder's **kwargs is empty only as in a call with no
                # arguments, which a parameter with no default rules out (net(weights,
                # **kwargs)): then the caller's keywords may be any. (A method's **kwargs stays
                # empty: forward(self, x, **kwargs) hands them on to layers.)
                required = not by_call and func.owner is None and any(
                    p.default is None and p.name.value not in kwargs
                    for p in (*positional[len(args):], *params.kwonly_params))
                scope.vars[params.star_kwarg.name.value] = UNKNOWN_VALUE if more or required \
                    else DictValue(tuple((k, v) for k, v in kwargs.items() if k not in named))
        finally:
            self.frame.scope = saved
        given = {p.name.value for p in positional[:len(args)]} | set(kwargs)
        self.frame.none_defaults = frozenset(
            p.name.value for p in (*positional, *params.kwonly_params)
            if p.name.value not in given and isinstance(p.default, cst.Name)
            and p.default.value == "None" and scope.vars.get(p.name.value) is UNKNOWN_VALUE)

    def caller_owned(self, value: Value, param: cst.Param, index: int,
                     func: FunctionValue) -> Value:
        """A parameter the caller did not describe, as an array in the caller's memory.

        Only the alias facts are new: an unknown parameter becomes an array of unknown rank
        and dtype, which no shape rule reads (to_arg fails on it, and it is not informative
        for specialization), so writes and reads through it reach the aliasing rules (SC305,
        SC306) while every shape verdict stays the unknown value's. What the function returns
        from such a parameter is unknown again (``analyze_function``).
        """
        if index == 0 and func.owner is not None:
            return value  # self
        storage = Storage(id(param), param.name.value, param=index)
        if value is UNKNOWN_VALUE:
            if param.default is not None:
                return value
            if param.annotation is not None and not _may_hold_array(
                    self.module.code_for_node(param.annotation.annotation)):
                # layer_scale: float, block_setting: list[Config]: the code says it is no array.
                return FloatValue() if _is_float(param.annotation.annotation) else value
            if id(param) in self.sized_params:
                return IntValue(sym(param.name.value))  # used as a size: an int nobody names
            if id(param) in self.param_seeds:
                return self.seeded(param, storage)
            if self.namespace_uses is None:
                self.namespace_uses = namespace_names(self.source,
                                                      "torch" in self.array_libraries)
            if param.name.value in self.namespace_uses:
                return value  # xp.arange(...): an array namespace, not an array
            storage = replace(storage, is_array=False)
            self.unknown_params.add(storage.id)
            library = next(iter(self.array_libraries)) if len(self.array_libraries) == 1 else (
                self.default_library if self.default_library in ("numpy", "torch") else "numpy")
            return AbstractArray(None, None, library,
                                 alias=Alias(storage, "base", deps=frozenset({storage.id})))
        if isinstance(value, AbstractArray) and value.alias is None:
            if value.shape is None and id(param) in self.param_seeds:
                return self.seeded(param, storage)  # x: torch.Tensor, unpacked B, N, C
            return replace(value, alias=Alias(storage, "base", deps=frozenset({storage.id})))
        return value

    def seeded(self, param: cst.Param, storage: Storage) -> AbstractArray:
        """The parameter as its body says it is on every returning path: its rank, its dims
        symbols nobody named unless the body named them. An unpack says nothing of its
        library (nor that it is no list of lists), a layer does."""
        ranked = self.param_seeds[id(param)]
        said = ranked.alias.storage if ranked.alias is not None else None
        if said is not None and not said.is_array:
            storage = replace(storage, is_array=False)
            self.unknown_params.add(storage.id)
        self.refined_storages.add(storage.id)
        return replace(ranked, shape_of=None, alias=Alias(storage, "base",
                                                          deps=frozenset({storage.id})))

    def param_value(self, param: cst.Param, func: FunctionValue, given: bool = False,
                    by_call: bool = False) -> Value:
        """What the parameter is when the call says nothing of it: its annotation, the config's
        shape hints, or (when the call did not give it at all) its default."""
        value = self.declared_param_value(param, func, given, by_call)
        if value is UNKNOWN_VALUE and param.name.value in self.hints:
            return self.hint_value(param.name.value)  # shape_hints from the config
        return value

    def declared_param_value(self, param: cst.Param, func: FunctionValue,
                             given: bool = False, by_call: bool = False) -> Value:
        if by_call and not given and param.default is not None and \
                _defaults_reach_body(func.node):
            with self.suppressed():
                default = self.eval(param.default)
            if isinstance(default, ConstValue):
                # A call that leaves out ``input_shape=None`` runs with None, whatever the
                # annotation allows: the branches for another value cannot run.
                return default
        if param.annotation is not None:
            value = self.annotation_value(param.annotation.annotation, param)
            if value is not None:
                return value
            with self.suppressed():
                declared = self.eval(param.annotation.annotation)
            if isinstance(declared, ClassValue) and func.owner is not declared:
                return self.instantiate(declared, [], {})
            ann = param.annotation.annotation
            if isinstance(ann, cst.Name) and ann.value == "int" and (param.default is None or given):
                return IntValue(sym(param.name.value))
            numbers = scalar_tuple(ann, param.name.value)
            if numbers is not None and (param.default is None or given):
                return numbers  # q_thw: tuple[int, int, int]
        if param.default is not None and not given:
            # A value the caller gave, though unknown, is not the default.
            with self.suppressed():
                default = self.eval(param.default)
            if isinstance(default, IntValue):
                if self.on_its_own and isinstance(default.value, int) and default.value < 0:
                    # No caller, and a default no size can have: a "not given" sentinel
                    # (-1) that callers replace, so the parameter is a size the code names.
                    return IntValue(sym(param.name.value))
                return default
            if isinstance(default, (ModuleRef, PartialValue, ClassValue, FunctionValue)) or \
                    isinstance(default, ConstValue) and isinstance(default.value, (bool, str, float)) \
                    or _constant_tuple(default):
                # act_layer=nn.ReLU, norm_layer=partial(nn.LayerNorm, eps=1e-6), bias=True,
                # mode="nearest", attn_layer=Attention (a class of the code), width_mult=1.0,
                # dims=(96, 192, 384, 768): a caller that gives no other value runs the
                # default, as one with no caller does.
                return default
        return UNKNOWN_VALUE

    def annotation_value(self, annotation: cst.BaseExpression, where: cst.CSTNode) -> Value | None:
        what = where.name.value if isinstance(where, cst.Param) else self.text(where, 20)
        with self.suppressed():
            value = array_from_annotation(annotation, self.eval, 0, what)
        if value is not None:
            value = replace(value, origin=Origin(0, what, where))
            self.name_annotation_dims(value, what, where)
        return value
