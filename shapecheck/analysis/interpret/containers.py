"""Containers and the loops that fill them: lists, dicts, torch.nn's Sequential, ModuleList
and ModuleDict, and the loops over a known number of items, which run once per item.

Model code builds its layers in loops: ``for v in cfg: layers += [nn.Conv2d(c, v, 3)];
c = v``, then ``nn.Sequential(*layers)``. What the Sequential computes depends on every
item, in order, so a loop over items the analysis knows (a list literal, ``range(4)``, a
zip of them) is walked once per item, as Python runs it, and a list it fills with modules
keeps each one. A loop over anything else runs to a fixed point (statements.py), where a
list it fills holds "any number of" its items.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ...runtime.dims import UNKNOWN
from ..reveal import REVEAL_NAME
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    Alternatives,
    BoundMethod,
    ClassValue,
    ConstValue,
    DictValue,
    FunctionValue,
    InstanceValue,
    IntValue,
    Iterable,
    LayerValue,
    ModuleRef,
    PartialDict,
    TupleValue,
    Value,
    is_module,
    join_values,
)
from .env import DictView, PartialValue
from .list_reads import once_per_process, only_reads
from .names import LIST_MUTATORS, NON_MUTATING_BUILTINS

UNROLL_ITEMS = 64
"""A loop over more items than this runs to a fixed point."""

UNROLL_BUDGET = 2000
"""Loop bodies the analysis of one function or class (with the calls it makes) may walk item by
item; past it, loops run to a fixed point."""


_BUILDERS = frozenset({"append", "extend", "insert", "add_module", "register_module",
                       "register_buffer", "register_parameter", "setattr", "update", "setdefault",
                       "pop"})


class _BuildsFinder(cst.CSTVisitor):
    """Whether a loop body fills a container or registers modules: ``layers.append(...)``,
    ``layers += [...]``, ``setattr(self, ...)``, ``self.blocks[name] = ...``, a dict's
    ``setdefault(name, ...)`` or ``pop(name)`` by the loop's keys."""

    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else \
            func.value if isinstance(func, cst.Name) else None
        self.found = self.found or name in _BUILDERS

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found = self.found or isinstance(node.operator, cst.AddAssign) and \
            isinstance(node.value, (cst.List, cst.ListComp, cst.Tuple))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.found = self.found or isinstance(node.target, cst.Subscript)


_BUILDS: dict[cst.CSTNode, bool] = {}


def _builds(body: cst.CSTNode) -> bool:
    def read() -> bool:
        finder = _BuildsFinder()
        body.visit(finder)
        return finder.found
    return once_per_process(_BUILDS, body, read)


def _holds_module(value: Value) -> bool:
    if isinstance(value, TupleValue):
        return any(_holds_module(item) for item in value.items)
    return is_module(value) or isinstance(value, (Alternatives, ClassValue, PartialValue))


def _name_of(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def _callee_def(func: Value) -> tuple | None:
    """(def, its parameters' offset, owner class, closure scope) of a function of the code a
    call reaches: a function, a bound method, a module's forward."""
    if isinstance(func, BoundMethod):
        func, offset = func.function, 1
    elif isinstance(func, InstanceValue):
        func = func.cls.members.get("forward" if func.cls.is_nn_module else "__call__")
        offset = 1
    else:
        offset = 0
    if not isinstance(func, FunctionValue) or not isinstance(func.node, cst.FunctionDef):
        return None
    return func.node, offset, func.owner, func.scope


_READS: dict[tuple, bool] = {}  # (def, offset, position or name, depth) -> the answer


def _reads_parameter(callee: tuple, at: int | str, depth: int = 0) -> bool:
    """The callee's parameter at position ``at`` (or named ``at``) only reads the list it is
    given (list_reads.py); methods it hands the list to on ``self`` and functions of its
    scope are read in turn, two calls deep. Read once per process: the answer is the code's."""
    return once_per_process(_READS, (callee[0], callee[1], at, depth),
                            lambda: _reads_parameter_uncached(callee, at, depth), 65536)


def _reads_parameter_uncached(callee: tuple, at: int | str, depth: int) -> bool:
    node, offset, owner, scope = callee
    params = node.params
    positional = (*params.posonly_params, *params.params)
    if isinstance(at, int):
        if at + offset >= len(positional):
            return False
        name = positional[at + offset].name.value
    elif any(p.name.value == at for p in (*positional, *params.kwonly_params)):
        name = at
    else:
        return False

    def callee_reads(call: cst.Call, position: int | str) -> bool:
        if depth >= 2:
            return False
        func = call.func
        target = None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and positional \
                and func.value.value == positional[0].name.value and isinstance(owner, ClassValue):
            method = owner.members.get(func.attr.value)  # self.bottleneck_fn(prev_features)
            target = _callee_def(BoundMethod(method, None)) if isinstance(method, FunctionValue) else None
        elif isinstance(func, cst.Name) and scope is not None:
            target = _callee_def(scope.lookup(func.value))
        return target is not None and _reads_parameter(target, position, depth + 1)

    return only_reads(node, name, callee_reads)


def _breaks(statements) -> bool:
    """A ``break`` of this loop (not of a loop nested in it) among the statements."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            if any(isinstance(small, cst.Break) for small in statement.body):
                return True
        elif isinstance(statement, cst.If):
            branch = statement
            while isinstance(branch, cst.If):
                if _breaks(branch.body.body):
                    return True
                branch = branch.orelse
            if isinstance(branch, cst.Else) and _breaks(branch.body.body):
                return True
        elif isinstance(statement, (cst.Try, cst.With)):
            blocks = [statement.body.body]
            if isinstance(statement, cst.Try):
                blocks += [h.body.body for h in statement.handlers]
                blocks += [b.body.body for b in (statement.orelse, statement.finalbody) if b]
            if any(_breaks(block) for block in blocks):
                return True
        elif isinstance(statement, cst.Match) and any(_breaks(case.body.body)
                                                      for case in statement.cases):
            return True
    return False


def _is_module(value: Value) -> bool:
    return isinstance(value, LayerValue) or isinstance(value, InstanceValue) and value.cls.is_nn_module


def _kept_in_loops(value: Value) -> bool:
    """An item a list filled in a loop keeps as what all its items are: an array, a module,
    a list of them (anchors per image, each a list per level) or a tuple of them and ints."""
    if isinstance(value, AbstractArray) or _is_module(value):
        return True
    if isinstance(value, Iterable):
        return _kept_in_loops(value.element)
    if isinstance(value, TupleValue) and value.items:
        return all(_kept_in_loops(item) or isinstance(item, IntValue) for item in value.items) \
            and any(not isinstance(item, IntValue) for item in value.items)
    return False


def _unaliased(value: Value) -> Value:
    """``value`` with the arrays in it holding no alias facts."""
    if isinstance(value, AbstractArray):
        return replace(value, alias=None)
    if isinstance(value, Iterable):
        return Iterable(_unaliased(value.element))
    if isinstance(value, TupleValue):
        return TupleValue(tuple(_unaliased(item) for item in value.items), value.is_list)
    return value


_CONTAINER_INIT = " container __init__ ran"
"""The attribute an instance of a class derived from nn.Sequential, ModuleList or ModuleDict
gets when its base __init__ ran (not an identifier: no code can set it)."""

_FILLERS = frozenset({"append", "extend", "add_module", "register_module"})

# Methods of a module that leave its children as they are.
_MODULE_READERS = frozenset({
    "forward", "parameters", "named_parameters", "buffers", "named_buffers", "children",
    "named_children", "modules", "named_modules", "state_dict", "load_state_dict", "train",
    "eval", "to", "cuda", "cpu", "float", "half", "double", "bfloat16", "type", "apply",
    "zero_grad", "requires_grad_", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "extra_repr", "get_submodule", "get_parameter",
    "items", "values", "keys", "get", "index", "count", "__len__", "__iter__", "__getitem__",
    "__contains__"})


def _is_sequential(value: Value) -> bool:
    return isinstance(value, LayerValue) and value.kind == "Sequential"


def _has_children(value: Value, method: str) -> bool:
    """A Sequential, or an instance of a class derived from one, whose ``method`` comes from
    torch: it may change the children (the class's own methods are analyzed)."""
    return _is_sequential(value) or isinstance(value, InstanceValue) and \
        value.cls.container is not None and method not in value.cls.members


def _module_pairs(value: Value) -> tuple | None:
    """``OrderedDict([("conv", m), ...])``'s or a dict literal's (name, module) pairs."""
    if isinstance(value, DictValue):
        return value.items
    return None


class Containers:
    # ------------------------------------------------------------------ iteration

    def element_of(self, value: Value) -> Value:
        """One item of an iteration, when the items are not told apart: what they share."""
        if isinstance(value, Iterable):
            return value.element
        items = self.items_of(value)
        if items is not None:
            if not items:
                return UNKNOWN_VALUE
            out = items[0]
            for item in items[1:]:
                out = join_values(out, item)
            return out
        if isinstance(value, AbstractArray):
            return self.row_of(value)
        return UNKNOWN_VALUE

    def items_of(self, value: Value) -> tuple | None:
        """The items an iteration of ``value`` yields, in order, when all are known: a tuple or
        list, a Sequential's children, a dict's keys, ``range(3)``, a zip of such."""
        if isinstance(value, TupleValue):
            return value.items
        if isinstance(value, Iterable):
            return value.items
        if isinstance(value, LayerValue) and value.kind == "Sequential":
            return value.layers
        if isinstance(value, InstanceValue) and value.cls.container in ("Sequential", "ModuleList") \
                and "__iter__" not in value.cls.members:
            pairs = self.child_pairs(value)  # for block in self: its children
            return tuple(v for _, v in pairs) if pairs is not None else None
        if isinstance(value, DictValue):
            return tuple(ConstValue(key) for key, _ in value.items)
        return None

    def iteration_builtin(self, name: str, args: list, kwargs: dict) -> Value | None:
        """``range``, ``zip``, ``enumerate``, ``reversed``, ``list``, ``tuple`` over known items
        keep them; None for any other call (calls.py answers it)."""
        if kwargs and name != "zip":
            return None
        if name == "range" and 1 <= len(args) <= 3 and all(
                isinstance(a, IntValue) and isinstance(a.value, int) for a in args):
            numbers = range(*(a.value for a in args)) if args[-1].value != 0 or len(args) < 3 else None
            if numbers is not None and len(numbers) <= UNROLL_ITEMS:
                return Iterable(IntValue(UNKNOWN), tuple(IntValue(i) for i in numbers))
            return None
        if not args:
            return None
        each = [self.items_of(a) for a in args]
        if any(items is None for items in each):
            return None
        if name == "zip" and not kwargs:
            rows = tuple(TupleValue(tuple(row)) for row in zip(*each))
            return Iterable(TupleValue(tuple(self.element_of(a) for a in args)), rows)
        if name == "enumerate" and len(args) == 1:
            rows = tuple(TupleValue((IntValue(i), item)) for i, item in enumerate(each[0]))
            return Iterable(TupleValue((IntValue(UNKNOWN), self.element_of(args[0]))), rows)
        if name == "reversed" and len(args) == 1:
            return Iterable(self.element_of(args[0]), tuple(reversed(each[0])))
        if name in ("list", "tuple") and len(args) == 1 and isinstance(args[0], Iterable):
            return TupleValue(each[0], name == "list")
        return None

    def may_unroll(self, count: int) -> bool:
        """Whether ``count`` items may be walked one by one (and the budget spent on them)."""
        if count > UNROLL_ITEMS or self.unrolled + count > UNROLL_BUDGET:
            return False
        self.unrolled += count
        return True

    def repeated_items(self, item: Value, times: Value) -> Value:
        """``itertools.repeat(x, 2)``: x, twice."""
        if isinstance(times, IntValue) and isinstance(times.value, int) and \
                0 <= times.value <= UNROLL_ITEMS:
            return Iterable(item, (item,) * times.value)
        return Iterable(item)

    def unrolled_for(self, node: cst.For, iterated: Value) -> bool:
        """Walk the loop once per item when the items are known (see the module's docstring);
        False when it must run to a fixed point instead."""
        items = self.items_of(iterated)
        if items is None or node.asynchronous is not None or _breaks(node.body.body):
            return False
        if items and not all(isinstance(item, IntValue) for item in items) and \
                not any(_holds_module(item) for item in items) and not _builds(node.body):
            # Data a loop only reads (shapes, dtypes, indices a test runs through): which item
            # a branch or an except in the body was written for is not followed, so each item
            # on its own could make a finding of a path it never takes. Its fixed point. (A
            # count, range(3), and modules or a container the body fills are walked in turn.)
            return False
        if not self.may_unroll(len(items)):
            return False  # (no items: the body never runs, the else does)
        for item in items:
            self.flow = None
            self.assign(node.target, item, node.iter)
            self.exec_block(node.body.body)
            if self.flow in ("return", "raise"):
                return True  # every path of this item left the function
        self.flow = None
        if node.orelse is not None:
            self.exec_block(node.orelse.body.body)
        return True

    # ------------------------------------------------------------------ lists that change

    def forget_mutated_lists(self, node: cst.Call, func: Value, args: list,
                             kwargs: dict) -> None:
        """Lists are mutable: after ``rows.append(r)`` (or handing ``rows`` to a function
        that may fill it) the items seen at ``rows = []`` are no longer its items. An append
        or extend the analysis follows updates them instead (``filled``); so does a
        Sequential's ``add_module``, and any other method that may change one forgets it."""
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method in _FILLERS and not kwargs and self.filled(node.func.value, method, args):
                return
            holder = node.func.value
            if method in LIST_MUTATORS or method not in _MODULE_READERS and \
                    isinstance(holder, (cst.Name, cst.Attribute)) and \
                    _has_children(self.held(holder), method):
                self.forget_list(holder)
        if isinstance(func, ModuleRef) and (func.library in ("numpy", "torch")
                                            or func.qualname in NON_MUTATING_BUILTINS):
            return
        if _name_of(node.func) == REVEAL_NAME:
            return  # reveal_shape(xs) only says what xs holds
        callee = _callee_def(func)
        position = 0
        for arg in node.args:
            at = arg.keyword.value if arg.keyword is not None else position
            position += arg.keyword is None and not arg.star
            if arg.star:  # f(*xs) and f(**kw) hand over copies
                continue
            if callee is not None and isinstance(arg.value, (cst.Name, cst.Attribute)) and \
                    _reads_parameter(callee, at):
                continue  # ``layer(features)``, ``attention(x, self.window_size)``: read only
            self.forget_list(arg.value, handed=True)

    def filled(self, holder: cst.BaseExpression, method: str, args: list) -> bool:
        """``layers.append(m)`` / ``layers.extend([a, b])`` on a list whose items are known,
        ``seq.add_module("norm5", m)`` on a Sequential: the items are kept, in order, outside
        a loop that runs to a fixed point (there a list holds any number of its items).
        ``outs.append(y)``: ``outs`` holds any number of arrays (or modules) like its items
        and y. False when ``holder`` is no container the analysis follows."""
        if not isinstance(holder, (cst.Name, cst.Attribute)) or \
                len(args) != (2 if method in ("add_module", "register_module") else 1):
            return False
        value = self.held(holder)
        item = args[-1]
        if isinstance(value, InstanceValue) and value.cls.container is not None:
            if method == "extend":
                return False
            name = args[0].value if method != "append" and isinstance(args[0], ConstValue) and \
                isinstance(args[0].value, str) else f" child {len(value.attrs)}"
            value.attrs[name] = item
            return True
        if isinstance(value, InstanceValue) and value.cls.is_nn_module and \
                method in ("add_module", "register_module"):
            # self.add_module("norm1", norm) is self.norm1 = norm
            if not (isinstance(args[0], ConstValue) and isinstance(args[0].value, str)):
                return False
            value.attrs[args[0].value] = item
            return True
        if _is_sequential(value):
            if method == "extend" or self.frame.loops or value.repeated is not None:
                return False
            name = args[0].value if method != "append" and isinstance(args[0], ConstValue) and \
                isinstance(args[0].value, str) else ""
            self.assign(holder, LayerValue("Sequential", layers=value.layers + (item,),
                                           names=value.names + (name,)), holder)
            return True
        if method not in ("append", "extend"):
            return False
        added = (item,) if method == "append" else self.items_of(item)
        if added is None:
            return False
        if isinstance(value, TupleValue) and value.is_list and not self.frame.loops:
            self.assign(holder, TupleValue(value.items + tuple(added), True), holder)
            return True
        if method != "append" or not _kept_in_loops(item):
            return False
        if isinstance(value, Iterable):
            items = [value.element]
        elif isinstance(value, TupleValue) and value.is_list:
            items = list(value.items)
        else:
            return False
        joined = item
        for other in items:
            joined = join_values(joined, other)
        if not _kept_in_loops(joined):
            self.assign(holder, UNKNOWN_VALUE, holder)
        elif isinstance(joined, AbstractArray) or _is_module(joined):
            self.assign(holder, Iterable(joined), holder)
        else:
            # A list (or tuple) per pass: its arrays are other arrays each pass, so they keep
            # their shapes but no storage (one for all would pass for the same array).
            self.assign(holder, Iterable(_unaliased(joined)), holder)
        return True

    def held(self, holder: cst.BaseExpression) -> Value:
        """What a name or ``self.attr`` holds, as bound: an attribute's empty list too (a read
        elsewhere takes it for one filled by another method)."""
        with self.suppressed():
            if isinstance(holder, cst.Attribute):
                owner = self.eval(holder.value)
                if isinstance(owner, InstanceValue) and holder.attr.value in owner.attrs:
                    return owner.attrs[holder.attr.value]
            return self.eval(holder)

    def forget_list(self, holder: cst.BaseExpression, handed: bool = False) -> None:
        """Rebind a name or attribute that holds a list to unknown: its contents changed.
        ``handed``: it was passed to a function that may change it (a module handed to a
        function, ``_log_api_usage_once(self)``, keeps its children: functions read modules,
        a module's own methods change them)."""
        if not isinstance(holder, (cst.Name, cst.Attribute)):
            return
        with self.suppressed():
            value = self.eval(holder)
        if isinstance(value, InstanceValue) and value.cls.container is not None and not handed:
            value.attrs.pop(_CONTAINER_INIT, None)  # its children are no longer known
            return
        if isinstance(value, (TupleValue, Iterable)) and getattr(value, "is_list", True) or \
                isinstance(value, (DictValue, PartialDict)) or \
                isinstance(value, LayerValue) and value.kind == "Sequential":
            self.assign(holder, UNKNOWN_VALUE, holder)

    def dict_view(self, view, args: list) -> Value:
        """``d.items()``, ``d.values()``, ``d.keys()`` of a dict of known keys, in order."""
        pairs = view.items.items
        if args:
            return UNKNOWN_VALUE
        if view.name == "keys":
            items = tuple(ConstValue(key) for key, _ in pairs)
        elif view.name == "values":
            items = tuple(value for _, value in pairs)
        else:
            items = tuple(TupleValue((ConstValue(key), value)) for key, value in pairs)
        return Iterable(self.element_of(TupleValue(items)), items)

    # ------------------------------------------------------------------ torch.nn containers

    def container_module(self, kind: str, args: list, kwargs: dict) -> Value | None:
        """``nn.Sequential(a, b)``, ``nn.Sequential(OrderedDict(...))``, ``nn.ModuleList(ms)``,
        ``nn.ModuleDict(d)``: the container with its children in order; None for another
        class. A ModuleList is its list, a ModuleDict its dict: they are only indexed and
        iterated, never called."""
        if kind == "Sequential":
            if kwargs:
                return UNKNOWN_VALUE
            pairs = _module_pairs(args[0]) if len(args) == 1 else None
            if pairs is not None:
                return LayerValue(kind, layers=tuple(v for _, v in pairs),
                                  names=tuple(k for k, _ in pairs))
            return LayerValue(kind, layers=tuple(args), names=("",) * len(args))
        if kind == "ModuleList" and not kwargs:
            if not args:
                return TupleValue((), True)
            items = self.items_of(args[0]) if len(args) == 1 else None
            if items is not None:
                return TupleValue(tuple(items), True)
            return args[0] if len(args) == 1 and isinstance(args[0], Iterable) else UNKNOWN_VALUE
        if kind == "ModuleDict" and not kwargs:
            if not args:
                return DictValue(())
            return args[0] if len(args) == 1 and isinstance(args[0], DictValue) else UNKNOWN_VALUE
        return None

    def repeated_sequential(self, args: list, arg_nodes, element: Value) -> Value:
        """``nn.Sequential(stem, *[Block(d) for _ in range(depth)])``: its children, then any
        number of the module the list repeats (only after the last child)."""
        stars = [a for a in arg_nodes if a.star == "*"]
        if len(stars) != 1 or arg_nodes[-1] is not stars[0] or not _is_module(element):
            return UNKNOWN_VALUE
        return LayerValue("Sequential", layers=tuple(args), names=("",) * len(args),
                          repeated=element)

    def call_sequential(self, node: cst.Call, seq: LayerValue, args: list, arg_nodes: list) -> Value:
        """Each child on what the one before it returned. Any number of a repeated module
        follows: it is run once and twice without reporting (none at all is possible), and
        what the runs agree on with its input is its output (a block that keeps its input's
        shape keeps it for any depth)."""
        value = args[0] if len(args) == 1 else UNKNOWN_VALUE
        for child in seq.layers:
            value = self.call(node, child, [value], {}, arg_nodes[:1])
        if seq.repeated is None:
            return value
        runs = [value]
        with self.suppressed():
            for _ in range(2):
                runs.append(self.call(node, seq.repeated, [runs[-1]], {}, arg_nodes[:1]))
        out = runs[0]
        for other in runs[1:]:
            out = join_values(out, other)
        if isinstance(out, AbstractArray) and isinstance(value, AbstractArray):
            return self.fresh(replace(out, origin=self.origin(node)), node, "result",
                              operands=(value,))
        return out

    def container_init(self, instance: InstanceValue, args: list, kwargs: dict) -> Value:
        """``super().__init__(*layers)`` in a class derived from nn.Sequential (or
        ``super().__init__(modules)`` from ModuleList / ModuleDict): the modules are its first
        children, named "0", "1"... (or by their keys) as torch names them."""
        instance.attrs[_CONTAINER_INIT] = ConstValue(True)
        kind = instance.cls.container
        if kind != "Sequential" and not args and not kwargs:
            return ConstValue(None)
        made = self.container_module(kind, args, kwargs)
        if _is_sequential(made):
            pairs = zip(made.names, made.layers)
        elif isinstance(made, TupleValue):
            pairs = (("", item) for item in made.items)
        elif isinstance(made, DictValue):
            pairs = made.items
        else:
            instance.attrs["0"] = UNKNOWN_VALUE  # children not known: the instance's run is not
            return ConstValue(None)
        for index, (name, child) in enumerate(pairs):
            instance.attrs[name or str(index)] = child
        return ConstValue(None)

    def child_pairs(self, instance: InstanceValue) -> tuple | None:
        """(name, module) of a container subclass's children, in the order they were set (those
        ``super().__init__`` took, then each ``self.name = module`` or ``add_module``); None when
        they are not known: its base __init__ was not seen, or a value that may be a module is
        unknown."""
        if _CONTAINER_INIT not in instance.attrs:
            return None
        pairs = []
        for name, value in instance.attrs.items():
            if _is_module(value):
                pairs.append((name, value))
            elif value is UNKNOWN_VALUE or isinstance(value, AbstractArray) and value.maybe_not_array:
                return None  # a parameter nothing is known of may be a module
        return tuple(pairs)

    def children_of(self, instance: InstanceValue) -> LayerValue:
        """An nn.Sequential subclass's children as a Sequential (an unknown child when they are
        not known)."""
        pairs = self.child_pairs(instance)
        if pairs is None:
            return LayerValue("Sequential", layers=(UNKNOWN_VALUE,), names=("",))
        return LayerValue("Sequential", layers=tuple(v for _, v in pairs),
                          names=tuple(k for k, _ in pairs))

    def container_view(self, instance: InstanceValue, name: str) -> Value | None:
        """``self.items()`` of a ModuleDict subclass (``self.values()``, ``self.keys()``): the
        children; None for another class or name."""
        if instance.cls.container != "ModuleDict" or name not in ("items", "values", "keys") or \
                name in instance.cls.members:
            return None
        pairs = self.child_pairs(instance)
        return DictView(DictValue(pairs), name) if pairs is not None else UNKNOWN_VALUE

    def ordered_dict(self, args: list, kwargs: dict) -> Value:
        """``OrderedDict([("conv", conv), ("relu", relu)])`` as a dict of known string keys."""
        if not args:
            return DictValue(tuple(kwargs.items()))
        if len(args) != 1 or kwargs:
            return UNKNOWN_VALUE
        if isinstance(args[0], DictValue):
            return args[0]
        items = self.items_of(args[0])
        pairs = []
        for item in items or ():
            if not (isinstance(item, TupleValue) and len(item.items) == 2 and
                    isinstance(item.items[0], ConstValue) and isinstance(item.items[0].value, str)):
                return UNKNOWN_VALUE
            pairs.append((item.items[0].value, item.items[1]))
        return DictValue(tuple(pairs)) if items is not None else UNKNOWN_VALUE

    def sequential_child(self, seq: LayerValue, name: str) -> Value:
        """``self.features.conv1`` of a Sequential built from an OrderedDict."""
        for key, child in zip(seq.names, seq.layers):
            if key == name:
                return child
        return UNKNOWN_VALUE

    def sequential_index(self, node: cst.Subscript, seq: LayerValue) -> Value:
        """``seq[0]``, ``seq[-1]``: a child; ``seq[1:]``: a Sequential of those children."""
        listed = TupleValue(seq.layers, True)
        picked = self.tuple_index(node, listed)
        if isinstance(picked, TupleValue) and len(node.slice) == 1 and \
                isinstance(node.slice[0].slice, cst.Slice):
            return LayerValue("Sequential", layers=picked.items)
        return picked


__all__ = ["UNROLL_BUDGET", "UNROLL_ITEMS", "Containers"]
