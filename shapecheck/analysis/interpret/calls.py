"""Calls: library functions and array methods (builtins.py has Python's builtins, inplace.py
the in-place ops)."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst
import numpy as np

from ...runtime.creation import CREATORS
from ...runtime.dialects import Dialect
from ...runtime.dims import UNKNOWN, eq, normalize_axis, numel
from ...runtime.dtypes import SPELLINGS, TORCH_CONVERSION_METHODS
from ...runtime.nn import FUNCTIONAL_LOSSES
from ...runtime.nn import LAYERS as NN_LAYERS
from ...runtime.nn.sizes import bound_arguments
from ...runtime.optable import result_dtypes, returns_tuple
from ...runtime.rules.reductions import AXIS_FIRST_REDUCTIONS, REDUCE_OPS
from ...runtime.rules.reductions import reduce as reduce_rule
from ..imports import canonical
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    Alternatives,
    BoundMethod,
    ClassValue,
    ConstValue,
    DictValue,
    FunctionValue,
    GeneratorValue,
    InstanceValue,
    IntValue,
    Iterable,
    LayerValue,
    ModuleRef,
    PartialDict,
    Reduction,
    TupleValue,
    Value,
    join_values,
    shape_root,
    shape_value,
)
from .builtins import math_result, str_method
from .context import RAISES_CONTEXTS, callee_name, checks_values
from .env import (
    LAYER_ATTR,
    ArgParserMethod,
    ArgParserValue,
    ArrayMethod,
    ContainerInit,
    DictGet,
    DictView,
    GeneratorMethod,
    LayerSuperMethod,
    ModuleMethod,
    OptimizerMethod,
    PartialValue,
    StrMethod,
)
from .names import (
    CONVERSIONS,
    MORE_KEYWORDS,
    NOT_NDARRAY_FUNCS,
    NOT_NDARRAY_MODULES,
    SOLVES,
    STATE_REGISTRARS,
    UNMODELED_KWARGS,
)
from .opcalls import with_dtypes
from .operands import FAIL, array_arg, dtype_from, to_arg
from .recurrent import PACKING


def _sizes_of(sizes: TupleValue) -> tuple:
    """``(batch_size, 4)`` as sizes, the ones nobody knows unknown."""
    return tuple(item.value if isinstance(item, IntValue) else UNKNOWN for item in sizes.items)


# ndarray's methods and attributes: a method outside them says the array is a tensor.
_NDARRAY_MEMBERS = frozenset(dir(np.ndarray))


def _assumed(value: Value) -> bool:
    if isinstance(value, AbstractArray):
        return value.assumed_rank
    if isinstance(value, TupleValue):
        return any(_assumed(item) for item in value.items)
    if isinstance(value, Iterable):
        return _assumed(value.element)
    return False


def _marked_assumed(value: Value) -> Value:
    if isinstance(value, AbstractArray) and value.shape is not None and not value.assumed_rank:
        return replace(value, assumed_rank=True)
    if isinstance(value, TupleValue):
        return replace(value, items=tuple(_marked_assumed(item) for item in value.items))
    return value


def _any_pieces(result, out: Value) -> Value:
    """A split whose number of pieces is unknown (``x.chunk(k, 1)`` of a symbolic width) is
    any number of arrays like its one output: ``pieces[0]`` is one, not a row of it."""
    if isinstance(out, AbstractArray) and result is not None and any(
            w.kind == "piece-count-unknown" for w in result.warnings):
        return Iterable(out)
    return out



# Calls that read their argument's sizes, not its elements.
_SIZE_READERS = frozenset({"builtins.len", "numpy.shape", "numpy.ndim", "numpy.size"})

class Calls:
    def expr_Call(self, node: cst.Call) -> Value:
        func = self.eval(node.func)
        args: list[Value] = []
        kwargs: dict[str, Value] = {}
        arg_nodes: list[cst.CSTNode] = []
        starred = splatted = False
        repeated = None
        # assert_array_equal(e, ...) reads e to test what a write did, as an assert does.
        saved_assert, self.in_assert = self.in_assert, self.in_assert or checks_values(node.func)
        sizes_only = isinstance(func, ModuleRef) and func.qualname in _SIZE_READERS
        for arg in node.args:
            value = self.eval_size_read(arg.value) if sizes_only and not arg.star \
                else self.eval(arg.value)
            if arg.star == "*":
                items = self.items_of(value)
                if items is not None:
                    args.extend(items)
                    arg_nodes.extend([arg.value] * len(items))
                else:
                    starred = True
                    repeated = value.element if isinstance(value, Iterable) else None
            elif arg.star == "**":
                if isinstance(value, DictValue):
                    kwargs.update(value.items)  # dd = {"device": ..., "dtype": ...}: known keys
                elif isinstance(value, PartialDict):
                    # A key some paths put in: its parameter has its default or that value.
                    kwargs.update(value.items)
                    kwargs.update((key, UNKNOWN_VALUE) for key, _ in value.maybe)
                else:
                    splatted = True
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
                arg_nodes.append(arg.value)
        self.in_assert = saved_assert
        edited = self.dict_edit(node, args, kwargs)
        if edited is not None:
            return edited
        self.forget_mutated_lists(node, func, args, kwargs)
        self.register_module_state(node, args)
        if splatted and not starred and isinstance(func, ModuleRef):
            made = self.made_with_unknown_keywords(node, func, args, kwargs)
            if made is not None:
                return made
        if starred and not splatted and repeated is not None and not kwargs and \
                isinstance(func, ModuleRef) and canonical(func.qualname) == "torch.nn.Sequential":
            return self.repeated_sequential(args, node.args, repeated)
        if splatted and not starred and isinstance(func, (FunctionValue, BoundMethod, ClassValue)):
            # f(a, b, **unknown): a and b as given, every other parameter given and unknown.
            return self.call(node, func, args, {**kwargs, MORE_KEYWORDS: UNKNOWN_VALUE}, arg_nodes)
        if starred or splatted:
            if isinstance(func, (FunctionValue, BoundMethod)):
                return UNKNOWN_VALUE
            return self.unknown_result(func, args)
        return self.call(node, func, args, kwargs, arg_nodes)

    def eval_size_read(self, node: cst.BaseExpression) -> Value:
        """``x`` of ``len(x)``, ``np.shape(x)``, ``x.shape``: its sizes are read, no element of
        it (a write through another name since then is not seen here)."""
        if not isinstance(node, cst.Name):
            return self.eval(node)
        self.metadata_read = True
        try:
            return self.eval(node)
        finally:
            self.metadata_read = False

    def made_with_unknown_keywords(self, node: cst.Call, func: ModuleRef, args: list,
                                   kwargs: dict) -> Value | None:
        """``nn.Linear(dim, 3 * dim, **factory_kwargs)``, ``torch.empty(n, d, **dd)``: the
        splat may hold any keyword, so a layer's keywords not written out are unknown (its
        widths stay what the call says), and a creation's shape is its positional sizes
        (keywords that change it, like size=, cannot join positional sizes) with its dtype
        unknown. None for other calls."""
        qualname = canonical(func.qualname)
        library, _, name = qualname.partition(".")
        if qualname.startswith("torch.nn.") and name[3:] in NN_LAYERS:
            kind = name[3:]
            given = {key for key, _ in bound_arguments(kind, args, kwargs)}
            unknown = {key: UNKNOWN_VALUE for key, _ in NN_LAYERS[kind].signature
                       if key not in given and key != "*"}
            return self.layer_value(kind, args, {**kwargs, **unknown})
        if library in ("numpy", "torch") and name in CREATORS and args and not kwargs:
            made = self.create(node, library, name, args, {})
            if isinstance(made, AbstractArray) and made.shape is not None:
                return replace(made, dtype=None)
        return None

    def register_module_state(self, node: cst.Call, args: list) -> None:
        """``self.register_buffer("bias", t)`` / ``register_parameter`` make ``self.bias`` that tensor."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in STATE_REGISTRARS
                and len(args) >= 2 and isinstance(args[0], ConstValue) and isinstance(args[0].value, str)):
            return
        with self.suppressed():
            owner = self.eval(func.value)
        if isinstance(owner, InstanceValue) and owner.cls.is_nn_module:
            owner.attrs[args[0].value] = args[1]

    def op_on_any_count(self, node, library: str, name: str, args: list, kwargs: dict,
                        arg_nodes: list) -> Value:
        """``torch.stack(outs)`` with outs any number of arrays like one: the op is run on
        one and on two of them, and the dims that differ are unknown (the stacked or joined
        axis). Neither run reports: an error may hold for one count and not another."""
        element = args[0].element
        answers = []
        for count in (1, 2):
            listed = TupleValue((element,) * count, True)
            with self.suppressed():
                answers.append(self.library_op(node, library, name, [listed, *args[1:]], kwargs,
                                               arg_nodes))
        one, two = answers
        if not (isinstance(one, AbstractArray) and isinstance(two, AbstractArray)) or \
                one.shape is None or two.shape is None or len(one.shape) != len(two.shape):
            return AbstractArray(None, None, element.library, self.origin(node))
        shape = tuple(a if eq(a, b) is True else UNKNOWN for a, b in zip(one.shape, two.shape))
        return self.fresh(replace(two, shape=shape), node, "result", operands=(element,))

    def unknown_result(self, func: Value, args: list) -> Value:
        if isinstance(func, ContainerInit):
            func.instance.attrs["0"] = UNKNOWN_VALUE  # children not known: nor is its output
        if isinstance(func, ArrayMethod):
            return AbstractArray(None, None, func.array.library)
        return UNKNOWN_VALUE

    def note_expected_failures(self, node: cst.Call, args: list) -> None:
        """``assert_raises(AttributeError, rs)``, ``pytest.raises(ValueError, f, x)``: the
        function handed over runs inside the expectation, so its body is expected to fail."""
        if callee_name(node.func) in RAISES_CONTEXTS:
            for value in args[1:]:
                if isinstance(value, FunctionValue) and value.node is not None:
                    self.expected_to_fail.add(id(value.node))

    def call(self, node: cst.Call, func: Value, args: list, kwargs: dict, arg_nodes: list) -> Value:
        self.note_expected_failures(node, args)
        value = self.dispatch_call(node, func, args, kwargs, arg_nodes)
        value = self.track_call(node, func, args, kwargs, value)
        if isinstance(func, (FunctionValue, BoundMethod, InstanceValue)):
            self.track_argument_writes(node, func, args, kwargs)
        if isinstance(func, (FunctionValue, BoundMethod, InstanceValue, LayerValue)):
            # A user function's result is described by the call that produced it.
            if isinstance(value, AbstractArray):
                value = replace(value, origin=self.origin(node))
        if any(_assumed(v) for v in (*args, *kwargs.values())) or \
                isinstance(func, ArrayMethod) and func.array.assumed_rank:
            # Computed from a rank taken from an index: so is the result, whatever made it (each
            # layer of a Sequential too).
            value = _marked_assumed(value)
        return value

    def dispatch_call(self, node: cst.Call, func: Value, args: list, kwargs: dict,
                      arg_nodes: list) -> Value:
        if isinstance(func, ModuleRef):
            if func.qualname.startswith("builtins."):
                return self.call_builtin(node, func.qualname[9:], args, kwargs)
            return self.call_library(node, canonical(func.qualname), args, kwargs, arg_nodes)
        if isinstance(func, ArrayMethod):
            return self.call_method(node, func.array, func.name, args, kwargs, arg_nodes)
        if isinstance(func, FunctionValue):
            return self.call_function(func, args, kwargs, node)
        if isinstance(func, BoundMethod):
            return self.call_function(func.function, [func.self_value] + args, kwargs, node)
        if isinstance(func, ClassValue):
            return self.instantiate(func, args, kwargs, node)
        if isinstance(func, InstanceValue):
            forward = func.cls.members.get("forward" if func.cls.is_nn_module else "__call__")
            if forward is None:
                forward = func.cls.members.get("__call__")
            if isinstance(forward, FunctionValue):
                return self.call_function(forward, [func] + args, kwargs, node)
            if func.cls.sequential and len(args) == 1 and not kwargs:
                return self.call_sequential(node, self.children_of(func), args, arg_nodes)
            layer = func.attrs.get(LAYER_ATTR)
            if isinstance(layer, LayerValue):  # a torch layer's subclass that keeps its forward
                return self.call_layer(node, layer, args, kwargs, arg_nodes)
            return UNKNOWN_VALUE
        if isinstance(func, LayerSuperMethod):
            return self.call_layer_super(node, func, args, kwargs, arg_nodes)
        if isinstance(func, Alternatives):
            return self.call_alternatives(node, func, args, kwargs, arg_nodes)
        if isinstance(func, StrMethod):
            return str_method(func, args, kwargs)
        if isinstance(func, LayerValue):
            return self.call_layer(node, func, args, kwargs, arg_nodes)
        if isinstance(func, GeneratorMethod):
            return self.create(node, "numpy", "random." + func.name, args, kwargs, generator=True)
        if isinstance(func, ModuleMethod):
            return self.parameters_of(node, func.instance, func.name)
        if isinstance(func, OptimizerMethod):
            self.optimizer_call(node, func.optimizer, func.name)
            return UNKNOWN_VALUE
        if isinstance(func, ArgParserMethod):
            return func.call(args, kwargs)
        if isinstance(func, PartialValue):
            return self.dispatch_call(node, func.func, [*func.args, *args],
                                      {**dict(func.kwargs), **kwargs},
                                      [node] * len(func.args) + list(arg_nodes))
        if isinstance(func, ContainerInit):
            return self.container_init(func.instance, args, kwargs)
        if isinstance(func, DictView) and not kwargs:
            return self.dict_view(func, args)
        if isinstance(func, DictGet) and args and isinstance(args[0], ConstValue) and \
                isinstance(args[0].value, str) and len(args) <= 2 and not kwargs:
            found = func.items.get(args[0].value)
            if found is not None:
                return found
            return args[1] if len(args) == 2 else ConstValue(None)
        return UNKNOWN_VALUE

    def call_alternatives(self, node: cst.Call, func: Alternatives, args: list, kwargs: dict,
                          arg_nodes: list) -> Value:
        """A module that is one of several: each called, what they all give kept. No finding:
        only one of them runs, and which one is not known."""
        result: Value | None = None
        with self.suppressed():
            for item in func.items:
                value = self.dispatch_call(node, item, args, kwargs, arg_nodes)
                result = value if result is None else join_values(result, value)
        return UNKNOWN_VALUE if result is None else result

    def call_library(self, node: cst.Call, qualname: str, args: list, kwargs: dict,
                     arg_nodes: list) -> Value:
        library, _, name = qualname.partition(".")
        if library == "math":
            return math_result(name, args)
        if library == "operator":
            return self.operator_call(node, name, args, kwargs, arg_nodes)
        if library == "argparse":
            return ArgParserValue() if name == "ArgumentParser" else UNKNOWN_VALUE
        if qualname in PACKING:
            return self.packing(node, qualname, args, kwargs, arg_nodes)
        if qualname == "itertools.repeat" and len(args) == 2 and not kwargs:
            return self.repeated_items(args[0], args[1])
        if qualname == "typing.cast" and len(args) == 2 and not kwargs:
            return args[1]  # cast(int, v) is v
        if qualname == "collections.OrderedDict":
            return self.ordered_dict(args, kwargs)
        if library == "functools":
            if name == "partial" and args and args[0] is not UNKNOWN_VALUE:
                return PartialValue(args[0], tuple(args[1:]), tuple(kwargs.items()))
            return UNKNOWN_VALUE
        if qualname == "dataclasses.replace":
            return self.dataclass_replace(args, kwargs)
        if qualname == "copy.deepcopy" and args:
            return self.deep_copy(node, args[0])
        if qualname == "copy.copy" and args:
            return self.shallow_copy(node, args[0])
        if qualname.startswith("torch.optim.") and name.rsplit(".", 1)[-1][:1].isupper():
            return self.optimizer(args, kwargs)
        if qualname.startswith("torch.nn.init.") and qualname.endswith("_") and arg_nodes:
            return self.init_fill(node, name.rsplit(".", 1)[-1], args, arg_nodes)
        if library not in ("numpy", "torch") or qualname.startswith(NOT_NDARRAY_MODULES) or \
                qualname in NOT_NDARRAY_FUNCS:
            return UNKNOWN_VALUE  # masked arrays, matrices, records: other semantics
        if qualname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            # A leaf tensor on the same data; its shape is the data's.
            data = args[0] if args else kwargs.get("data")
            if isinstance(data, AbstractArray):
                return replace(data, library="torch", origin=self.origin(node), requires_grad=True)
            return AbstractArray(None, None, "torch", self.origin(node), requires_grad=True)
        if qualname.startswith("torch.nn.") and not qualname.startswith("torch.nn.functional."):
            kind = name[3:]
            container = self.container_module(kind, args, kwargs)
            if container is not None:
                return container
            if kind in NN_LAYERS:
                return self.layer_value(kind, args, kwargs)
            return UNKNOWN_VALUE
        if qualname == "numpy.random.default_rng" or qualname == "numpy.random.RandomState":
            return GeneratorValue()
        if name in SPELLINGS and not args:
            return UNKNOWN_VALUE
        if name in ("ndim", "shape", "size") and library == "numpy" and len(args) == 1 and not kwargs:
            source = args[0]
            shape = source.shape if isinstance(source, AbstractArray) else (
                () if isinstance(source, IntValue) or isinstance(source, ConstValue) and isinstance(
                    source.value, (int, float, bool)) else None)
            if shape is None:
                return UNKNOWN_VALUE if name == "shape" else IntValue(UNKNOWN)
            if name == "ndim":
                return IntValue(len(shape))
            return shape_value(shape) if name == "shape" else IntValue(numel(shape))
        created = self.create(node, library, name, args, kwargs)
        if created is not None:
            return created
        short = name.rsplit(".", 1)[-1]
        if qualname.startswith("torch.nn.functional.") and short in FUNCTIONAL_LOSSES:
            return self.loss(node, short, args, kwargs, arg_nodes)
        if qualname.startswith("torch.nn.functional.") and self.has_functional(short):
            return self.functional(node, short, args, kwargs, arg_nodes)
        if qualname in SOLVES:
            self.check_solve(node, qualname, args, arg_nodes)
        return self.library_op(node, library, name, args, kwargs, arg_nodes)

    def library_op(self, node, library: str, name: str, args: list, kwargs: dict,
                   arg_nodes: list) -> Value:
        if args and isinstance(args[0], Iterable) and isinstance(args[0].element, AbstractArray):
            return self.op_on_any_count(node, library, name, args, kwargs, arg_nodes)
        arrays = [v for v in list(args) + list(kwargs.values()) if isinstance(v, AbstractArray)]
        if not arrays:
            for v in args:
                if isinstance(v, TupleValue):
                    arrays.extend(i for i in v.items if isinstance(i, AbstractArray))
        if not arrays:
            return self.sized_op(node, library, name, args, kwargs)
        lib = library if library == "torch" else self.library_of(arrays, library)
        dialect = self.dialect_for(lib)
        prefix = "np." if library == "numpy" else "torch."
        candidates = [prefix + name]
        if name.startswith("nn.functional."):
            candidates = ["F." + name[len("nn.functional."):], "torch." + name]
        spec_name = next((c for c in candidates if self.lookup(c, dialect) is not None), None)
        short = name.rsplit(".", 1)[-1]
        operands = [(v, n) for v, n in zip(args, arg_nodes)]
        for value, value_node in zip(args, arg_nodes):
            if isinstance(value, TupleValue):  # cat([a, b]), stack((a, b))
                nodes = [el.value for el in value_node.elements] if isinstance(
                    value_node, (cst.List, cst.Tuple)) and len(value_node.elements) == len(
                    value.items) else [value_node] * len(value.items)
                operands.extend((i, n) for i, n in zip(value.items, nodes)
                                if isinstance(i, AbstractArray))
        origin_array = arrays[0]
        dtype = origin_array.dtype if short not in ("argmax", "argmin") else "int64"
        shape_keeping = any(self.keeps_shape(c) for c in candidates)

        def unchecked() -> AbstractArray:
            """The rule cannot run: an op that keeps its input's shape still keeps it."""
            if shape_keeping and args and isinstance(args[0], AbstractArray):
                return args[0].derived(args[0].shape, self.origin(node), library=lib,
                                       dtype=dtype, reduced=args[0].reduced,
                                       explicit_axis=args[0].explicit_axis, tail=args[0].tail,
                                       shape_of=shape_root(args[0]))
            return AbstractArray(None, None, lib, self.origin(node))

        if spec_name is None:
            return unchecked()
        if any(v.shape is None for v in arrays):
            probed = None if shape_keeping else self.function_of_any_rank(
                node, spec_name, dialect, args, kwargs, arrays, dtype, lib)
            return unchecked() if probed is None else probed
        if set(kwargs) & UNMODELED_KWARGS or short in ("matmul", "matvec", "vecmat") \
                and ("axes" in kwargs or "axis" in kwargs):
            return AbstractArray(None, None, lib, self.origin(node))
        spec = self.lookup(spec_name, dialect)
        contents = self.contents_of if spec.sized_by_values else None
        conv_args = tuple(to_arg(v, spec.takes_sequence, contents) for v in args)
        conv_kwargs = {k: to_arg(v, contents=contents) for k, v in kwargs.items()}
        if any(a is FAIL for a in conv_args) or any(a is FAIL for a in conv_kwargs.values()):
            return unchecked()  # F.dropout(x, p, training=not self.eval_mode)
        label = f"{'np' if library == 'numpy' else 'torch'}.{name}"
        out_value = kwargs.get("out")
        if isinstance(out_value, AbstractArray):
            out_node = next((a.value for a in getattr(node, "args", ()) if a.keyword is not None
                             and a.keyword.value == "out"), node)
            operands.append((out_value, out_node))
        if isinstance(out_value, AbstractArray) and "out" in conv_kwargs:
            result = self.apply_with_out(spec_name, dialect, conv_args, conv_kwargs, node,
                                         operands, label)
        else:
            result = self.apply(spec_name, dialect, conv_args, conv_kwargs, node, operands, label)
        if spec.broadcasts and len(args) >= 2 and all(
                isinstance(a, AbstractArray) for a in args[:2]) and result is not None:
            self.check_implicit_outer(node, args[0], args[1], arg_nodes[0], arg_nodes[1], result)
            self.check_reduced_axis(node, args[0], args[1], arg_nodes[0], arg_nodes[1])
        out = self.array_result(result, origin_array, node, dtype=dtype, library=lib,
                                explicit_axis=spec.adds_axis)
        if returns_tuple(spec, result) and isinstance(out, AbstractArray):
            out = TupleValue((out,))
        out = with_dtypes(out, result_dtypes(spec, conv_args, conv_kwargs, dialect))
        if shape_keeping and isinstance(out, AbstractArray) and args and args[0] is origin_array:
            out = replace(out, reduced=origin_array.reduced,
                          explicit_axis=origin_array.explicit_axis)
        return _any_pieces(result, self.with_reduction(out, short, origin_array, args[1:], kwargs))

    def sized_op(self, node, library: str, name: str, args: list, kwargs: dict) -> Value:
        """An op that makes arrays from sizes alone (``np.tril_indices(n, k)``)."""
        dialect = self.dialect_for(library)
        spec_name = ("np." if library == "numpy" else "torch.") + name
        spec = self.lookup(spec_name, dialect)
        conv_args = tuple(to_arg(v) for v in args)
        conv_kwargs = {k: to_arg(v) for k, v in kwargs.items()}
        if spec is None or not spec.from_sizes or FAIL in conv_args or \
                FAIL in conv_kwargs.values():
            return UNKNOWN_VALUE
        result = self.apply(spec_name, dialect, conv_args, conv_kwargs, node, [], spec_name)
        out = self.array_result(result, AbstractArray(None, None, library, self.origin(node)),
                                node, library=library)
        if returns_tuple(spec, result) and isinstance(out, AbstractArray):
            out = TupleValue((out,))
        return with_dtypes(out, result_dtypes(spec, conv_args, conv_kwargs, dialect))

    def with_reduction(self, out: Value, name: str, source: AbstractArray, rest: list,
                       kwargs: dict) -> Value:
        """Mark a reduction over one axis without keepdims (SC103's provenance)."""
        if name not in REDUCE_OPS or source.shape is not None and len(source.shape) < 2:
            return out
        axis = kwargs.get("axis", kwargs.get("dim", rest[0] if rest else None))
        # torch's second positional is keepdim; numpy's is dtype.
        positional_keep = rest[1] if len(rest) > 1 and source.library == "torch" else None
        keep = kwargs.get("keepdims", kwargs.get("keepdim", positional_keep))
        if isinstance(keep, ConstValue) and keep.value is True:
            if isinstance(out, AbstractArray):
                return replace(out, explicit_axis=True)
            return out
        if not (isinstance(axis, IntValue) and isinstance(axis.value, int)) or keep not in (
                None, ConstValue(False)):
            return out
        if source.shape is None:
            # Rank unknown: axis k >= 1 is never the leading axis, whatever the rank. Only
            # reductions whose first argument is the axis in NumPy and torch alike (torch's
            # norm takes p first) and that return one array in both (not torch's max).
            if axis.value < 1 or name not in AXIS_FIRST_REDUCTIONS or \
                    not isinstance(out, AbstractArray):
                return out
            return replace(out, reduced=Reduction(None, axis.value, source))
        normalized = normalize_axis(axis.value, len(source.shape))
        if normalized is None:
            return out
        mark = Reduction(tuple(source.shape), normalized)
        if isinstance(out, AbstractArray) and out.shape is not None:
            return replace(out, reduced=mark)
        if isinstance(out, TupleValue) and out.items and isinstance(out.items[0], AbstractArray):
            return TupleValue((replace(out.items[0], reduced=mark),) + out.items[1:], out.is_list)
        return out

    def call_method(self, node: cst.Call, array: AbstractArray, name: str, args: list,
                    kwargs: dict, arg_nodes: list) -> Value:
        origin = self.origin(node)
        if name == "size" and array.library == "torch":
            if array.shape is None:
                if args and isinstance(args[0], IntValue) and isinstance(args[0].value, int) \
                        and array.tail and -len(array.tail) <= args[0].value < 0:
                    return IntValue(array.tail[args[0].value])
                return IntValue(UNKNOWN) if args else UNKNOWN_VALUE
            if not args:
                return shape_value(array.shape)
            if isinstance(args[0], IntValue) and isinstance(args[0].value, int):
                axis = normalize_axis(args[0].value, len(array.shape))
                return IntValue(array.shape[axis]) if axis is not None else IntValue(UNKNOWN)
            return IntValue(UNKNOWN)
        if name in ("dim", "ndimension"):
            return IntValue(len(array.shape)) if array.shape is not None and \
                not array.assumed_rank else IntValue(UNKNOWN)
        if name in ("numel", "nelement"):
            return IntValue(numel(array.shape)) if array.shape is not None else IntValue(UNKNOWN)
        if name in ("item", "tolist", "data_ptr", "is_contiguous"):
            return UNKNOWN_VALUE
        spec = self.reshaping_spec(array, name)
        if spec is not None:  # x.unsqueeze_(2), a.resize(s); of a guess, maybe img.resize(s)
            return UNKNOWN_VALUE if self.library_unsure(array) and spec.library == "numpy" \
                else self.reshape_in_place(node, array, spec, args, kwargs, arg_nodes)
        if name in ("copy_",):
            if args:
                self.inplace_op(node, array, node.func.value, "copy_", [(args[0], arg_nodes[0])],
                                "copy_")
            return array
        if name.endswith("_") and not name.startswith("_"):
            others = list(zip(args, arg_nodes))
            self.inplace_op(node, array, node.func.value, name, others, name, kwargs)
            return array
        dtype = array.dtype
        if name == "numpy":
            return replace(array, library="numpy", origin=origin, alias=None)
        if name in ("astype", "type") and (args or "dtype" in kwargs) or \
                name == "view" and array.library == "numpy":
            target = args[0] if args else kwargs.get("dtype")
            dtype = dtype_from(target, array.library)
            if dtype is None or name == "view" and dtype != array.dtype:
                # Structured, string or unknown dtypes; a numpy view may change the itemsize.
                return AbstractArray(None, None, array.library, origin)
            return replace(array, dtype=dtype, origin=origin, alias=None, explicit_axis=False,
                           reduced=None)
        if name == "to" and args:
            if isinstance(args[0], AbstractArray):
                dtype = args[0].dtype
            elif dtype_from(args[0], array.library) is not None:
                dtype = dtype_from(args[0], array.library)
            elif not (isinstance(args[0], ConstValue) and isinstance(args[0].value, str)):
                dtype = None  # a device, or something else: the dtype may change
            return replace(array, dtype=dtype, origin=origin, alias=None)
        if "dtype" in kwargs:
            dtype = dtype_from(kwargs["dtype"], array.library)
        if name in TORCH_CONVERSION_METHODS and array.library == "torch" and not args:
            dtype = TORCH_CONVERSION_METHODS[name]
        if name in ("argmax", "argmin"):
            dtype = "int64"
        if name.startswith("__"):
            return UNKNOWN_VALUE  # explicit dunder calls: rare, and not worth the guesswork
        result = self.method_op(node, array, name, args, kwargs, dtype=dtype, arg_nodes=arg_nodes)
        if isinstance(result, AbstractArray) and (name in ("unsqueeze", "expand_dims") or name in (
                "view", "reshape") and args in ([IntValue(-1), IntValue(1)],
                                               [IntValue(1), IntValue(-1)])):
            result = replace(result, explicit_axis=True)  # x.view(-1, 1): a column on purpose
        return self.with_reduction(result, name, array, args, kwargs)

    def method_op(self, node, array: AbstractArray, name: str | None, args: list, kwargs: dict, *,
                  dtype: str | None = None, keep_provenance: bool = False,
                  arg_nodes: list | None = None) -> Value:
        origin = self.origin(node)
        if name is None:
            return AbstractArray(None, dtype, array.library, origin)
        conv_args = tuple(self.to_arg(v, name) for v in args)
        conv_kwargs = {k: self.to_arg(v, name) for k, v in kwargs.items()}
        libraries = (array.library,)
        if self.library_unsure(array):
            settled = self.settle_library(node, array, name, conv_args, conv_kwargs)
            if settled is None:
                return AbstractArray(None, dtype, array.library, origin)
            array = settled
            libraries = self.libraries_with(name) or libraries
        if array.shape is None and name == "permute" and isinstance(node, cst.Call) and \
                isinstance(node.func, cst.Attribute):
            order = self.shape_from_arguments(name, conv_args, self.dialect_for("torch"))
            if order is not None:
                array = self.refine_rank(array, node.func.value, len(order))
        dialect = self.dialect_for(array.library)
        if array.shape is None or any(a is FAIL for a in conv_args) or any(
                a is FAIL for a in conv_kwargs.values()) or self.lookup(name, dialect) is None:
            if self.keeps_shape(name) or keep_provenance or name in CONVERSIONS:
                return replace(array, origin=origin, dtype=dtype, alias=None,
                               shape_of=shape_root(array))
            if array.shape is not None and name in REDUCE_OPS and self.lookup(name, dialect) is None:
                reduced = self.fallback_reduce(node, array, name, args, kwargs, dialect, dtype)
                if reduced is not None:
                    return reduced
            if self.lookup(name, dialect) is None and not self.is_array_op(name):
                return UNKNOWN_VALUE
            # A size nobody knows is an unknown dim; a tuple of sizes keeps its length.
            sized = tuple(_sizes_of(value) if a is FAIL and isinstance(value, TupleValue) else
                          UNKNOWN if a is FAIL and len(conv_args) > 1 else a
                          for a, value in zip(conv_args, args))
            shapes = {None if FAIL in sized else self.shape_from_arguments(
                name, sized, self.dialect_for(lib)) for lib in libraries}
            shape = shapes.pop() if len(shapes) == 1 else None
            if shape is None and array.shape is None:
                probed = self.method_of_any_rank(node, array, name, libraries, conv_args,
                                                 conv_kwargs, dtype)
                if probed is not None:
                    return probed
            return AbstractArray(shape, dtype, array.library, origin)
        func_node = getattr(node, "func", node)
        operands = [(array, func_node.value if isinstance(func_node, cst.Attribute) else node)]
        operands += list(zip(args, arg_nodes or [node] * len(args)))
        self_arg = array_arg(array, self.contents_of if self.sized_by_values(name) else None)
        result = self.apply(name, dialect, (self_arg,) + conv_args, conv_kwargs, node,
                            operands, f".{name}()")
        out = self.array_result(result, array, node, dtype=dtype)
        spec = self.lookup(name, dialect)
        if returns_tuple(spec, result) and isinstance(out, AbstractArray):
            out = TupleValue((out,))
        out = with_dtypes(out, result_dtypes(spec, (array_arg(array),) + conv_args, conv_kwargs,
                                             dialect))
        if (keep_provenance or self.keeps_shape(name)) and isinstance(out, AbstractArray):
            out = replace(out, reduced=array.reduced, explicit_axis=array.explicit_axis)
        return _any_pieces(result, out)

    def library_unsure(self, array: AbstractArray) -> bool:
        """The array's library is a guess: a parameter nothing is known of (or computed only
        from such), which may be a numpy array or a tensor alike. A file that imports torch
        and not numpy works with tensors; a numpy-only file is often a helper that takes
        either, so there the library stays a guess."""
        return array.maybe_not_array and not (
            self.array_libraries == {"torch"} and array.library == "torch")

    def libraries_with(self, name: str) -> tuple[str, ...]:
        return tuple(lib for lib in ("numpy", "torch")
                     if self.lookup(name, self.dialect_for(lib)) is not None)

    def settle_library(self, node, array: AbstractArray, name: str, args: tuple,
                       kwargs: dict) -> AbstractArray | None:
        """A method on an array whose library is a guess. When one library has the method, the
        code says which library it is. When both do, the verdict counts only if it is the
        same in both (an error then fails either way); None when the two disagree."""
        libraries = self.libraries_with(name)
        if libraries == ("torch",) and name not in _NDARRAY_MEMBERS:
            return replace(array, library="torch")  # permute, unsqueeze, masked_fill, ...
        if array.shape is None:
            return array
        if len(libraries) < 2 or FAIL in args or FAIL in kwargs.values():
            return None  # one library's verdict, and the other's is not known
        verdicts = []
        for lib in libraries:
            with self.suppressed():
                result = self.apply(name, self.dialect_for(lib), (array_arg(array),) + args,
                                    kwargs, node, [], f".{name}()")
            verdicts.append(None if result is None else result.outputs)
        return array if verdicts[0] == verdicts[1] else None

    def fallback_reduce(self, node, array: AbstractArray, name: str, args: list, kwargs: dict,
                        dialect: Dialect, dtype: str | None) -> Value | None:
        """Reductions the op table lacks (ndarray.max, Tensor.argmax, ...) go to the reduce rule."""
        torch = array.library == "torch"
        # torch takes NumPy's spellings too (t.max(axis=0, keepdims=True)).
        axis = kwargs.get("dim", kwargs.get("axis")) if torch else kwargs.get("axis")
        axis = args[0] if axis is None and args else axis
        keep = kwargs.get("keepdim", kwargs.get("keepdims")) if torch else kwargs.get("keepdims")
        keep = args[1] if keep is None and len(args) > 1 and torch else keep
        if axis is None:
            axis_arg = None
        else:
            axis_arg = to_arg(axis)
            if axis_arg is FAIL or isinstance(axis, AbstractArray):
                return None
        if keep is None:
            keep_arg = False
        elif isinstance(keep, ConstValue) and isinstance(keep.value, bool):
            keep_arg = keep.value
        else:
            return None
        result = self.run_rule(
            lambda: reduce_rule(tuple(array.shape), axis_arg, keep_arg, op=name,
                                        dialect=dialect),
            node, [(array, node.func.value if isinstance(node, cst.Call) and isinstance(
                node.func, cst.Attribute) else node)], f".{name}()", dialect, None, op_name=name)
        out = self.array_result(result, array, node, dtype=dtype)
        if isinstance(out, TupleValue) and len(out.items) == 2:
            values, indices = out.items
            out = TupleValue((values, replace(indices, dtype="int64")))
        return out


