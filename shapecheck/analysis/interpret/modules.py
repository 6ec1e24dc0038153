"""Classes and torch.nn modules: instances, layers, losses, and solve's ambiguity."""

from __future__ import annotations

import libcst as cst

from ...runtime.dialects import NUMPY, NUMPY1, TORCH
from ...runtime.dims import UNKNOWN as DIM_UNKNOWN
from ...runtime.dims import format_shape, substitute
from ...runtime.nn import FUNCTIONAL as NN_FUNCTIONAL
from ...runtime.nn import LAYERS as NN_LAYERS
from ...runtime.nn import LOSSES, with_unknowns_left_out
from ...runtime.nn import build as build_layer
from ...runtime.nn import functional as nn_functional
from ...runtime.nn import functional_keeps_shape as nn_functional_keeps_shape
from ...runtime.nn import keeps_shape as layer_keeps_shape
from ...runtime.nn import loss as nn_loss
from ...runtime.nn.base import parameter_shape
from ...runtime.nn.loss import CLASS_LOSSES
from ...runtime.nn.sizes import (
    FUNCTIONAL_BATCHED_RANK,
    SIZE_ARGUMENTS,
    STORED_SHAPES,
    batched_input,
    bound_arguments,
    stored_as_given,
    stored_size,
    trailing_features,
    weight_channels,
)
from ...runtime.rank_free import rank_free_result
from ...runtime.verdicts import Result, ShapeError
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    Alias,
    ClassValue,
    ConstValue,
    FloatValue,
    FunctionValue,
    InstanceValue,
    IntValue,
    LayerValue,
    PackedValue,
    Storage,
    TupleValue,
    Value,
    shape_root,
)
from .env import LAYER_ATTR

LAYER_BUFFERS = frozenset({"running_mean", "running_var"})
"""Tensors a layer keeps that are no Parameters (a norm's running statistics)."""
from .names import MAX_CALL_DEPTH, MAX_SPECIALIZATIONS, method_kind
from .operands import FAIL, array_arg
from .records import GeneratedInit
from .recurrent import RECURRENT, state_shapes


def _runtime_arg(value: Value):
    """A constructor argument as the runtime's nn rules take it: int/Dim, constant, tuple, or UNKNOWN."""
    if isinstance(value, IntValue):
        return value.value
    if isinstance(value, ConstValue):
        return value.value
    if isinstance(value, TupleValue):
        return tuple(_runtime_arg(item) for item in value.items)
    return DIM_UNKNOWN


# Layers whose forward reads more than one input (masks, states, indices, offsets); the
# runtime's rule takes them all.
SEVERAL_INPUTS = frozenset({
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
    "TransformerEncoder", "TransformerDecoder", "Transformer", "RNNCell", "LSTMCell", "GRUCell",
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "EmbeddingBag",
})


def _layer_input(value: Value):
    """An input or keyword of a layer call as its forward rule takes it; FAIL when unknown."""
    if isinstance(value, AbstractArray):
        return tuple(value.shape) if value.shape is not None else FAIL
    if isinstance(value, TupleValue):
        items = tuple(_layer_input(v) for v in value.items)
        return FAIL if FAIL in items else items
    if isinstance(value, (IntValue, ConstValue)):
        return value.value
    return FAIL


def _from_runtime(value) -> Value:
    """A layer's normalized constructor argument as the analyzer's value (``in_features``,
    ``normalized_shape``, ``kernel_size``...); unknown for what the runtime does not know."""
    if isinstance(value, bool) or value is None or isinstance(value, (float, str)):
        return ConstValue(value)
    if isinstance(value, tuple):
        return TupleValue(tuple(_from_runtime(item) for item in value))
    if value is DIM_UNKNOWN:
        return IntValue(DIM_UNKNOWN)
    try:
        return IntValue(value)  # an int or a symbolic Dim
    except TypeError:
        return UNKNOWN_VALUE


def _defined_in(func: FunctionValue, cls: ClassValue) -> bool:
    return func.owner is cls


def _functional_arg(value: Value):
    """An F.<name> argument as the runtime's functional rules take it; FAIL when unknown."""
    if isinstance(value, AbstractArray):
        return tuple(value.shape) if value.shape is not None else FAIL
    if isinstance(value, (IntValue, ConstValue)):
        return value.value
    if isinstance(value, TupleValue):
        items = tuple(_functional_arg(item) for item in value.items)
        return FAIL if FAIL in items else items
    return FAIL


# Functional ops whose rule takes None for a train/eval flag the code does not know:
# name -> (keyword, position).
_MODE_ARGUMENTS = {"batch_norm": ("training", 5)}


class Modules:
    def runtime_arg(self, value: Value):
        """A constructor argument as the runtime's nn rules take it."""
        return _runtime_arg(value)

    def functional(self, node, name: str, args: list, kwargs: dict, arg_nodes: list) -> Value:
        """``F.conv2d(x, w, stride=2)``, ``F.linear``, ``F.max_pool2d``...: the runtime's nn
        functional rule, with torch's own error (SC113) when the call certainly fails."""
        origin = self.origin(node)
        if name in FUNCTIONAL_BATCHED_RANK and args and args[0] is UNKNOWN_VALUE:
            # F.conv2d(pad_same(x, ...), w): whatever the helper gave, the call returns only
            # when it is a tensor (the batched input, below).
            args = [AbstractArray(None, None, "torch", origin), *args[1:]]
        arrays = [v for v in args if isinstance(v, AbstractArray)]
        if not arrays:
            return UNKNOWN_VALUE
        x = arrays[0]
        converted = [_functional_arg(v) for v in args]
        options = {k: _functional_arg(v) for k, v in kwargs.items() if k != "inplace"}
        mode = _MODE_ARGUMENTS.get(name)
        if mode is not None:
            # F.batch_norm(x, ..., self.training): a module's mode is not tracked; the rule
            # takes None for "either mode" and decides what holds in both.
            keyword, position = mode
            if keyword in kwargs and kwargs[keyword] is not None and options[keyword] is FAIL:
                options[keyword] = None
            elif len(converted) > position and converted[position] is FAIL:
                converted[position] = None
        if name == "embedding":
            options["dtype"] = x.dtype
        if x.shape is None and args[0] is x and name in FUNCTIONAL_BATCHED_RANK and arg_nodes:
            # F.conv2d(x, w) with x of unknown rank: x is the batched input, as for nn.Conv2d.
            x = self.assume_functional_input(name, x, arg_nodes[0], converted, options)
            args = [x, *args[1:]]
            converted[0] = x.shape
        converted, options = with_unknowns_left_out(name, converted, options, FAIL)
        if x.shape is None and args[0] is x and not nn_functional_keeps_shape(name) and \
                FAIL not in converted[1:] and FAIL not in options.values():
            # F.interpolate(x, size=(h, w)) is 4-D whatever x is: the rule at every rank.
            probed = rank_free_result(
                lambda shape, *rest, **given: nn_functional(name, shape.shape, *rest, **given),
                lambda probe: ((probe, *converted[1:]), options), [(x.dtype, None)])
            if isinstance(probed, Result) and len(probed.outputs) == 1:
                return AbstractArray(probed.outputs[0], x.dtype if name != "embedding" else None,
                                     "torch", origin)
        if FAIL in converted or FAIL in options.values():
            if name in FUNCTIONAL_BATCHED_RANK and args[0] is x and x.shape is not None and \
                    len(x.shape) == FUNCTIONAL_BATCHED_RANK[name]:
                # A weight or a size nobody knows: the batch and, for a pool, the channels stay.
                kept = 1 if name.startswith("conv") else 2
                return AbstractArray(tuple(x.shape[:kept]) + (DIM_UNKNOWN,) * (len(x.shape) - kept),
                                     x.dtype, "torch", origin)
            if nn_functional_keeps_shape(name) and args[0] is x:
                # F.layer_norm(x, self.normalized_shape, ...) with a width unknown: x's shape.
                return AbstractArray(x.shape, x.dtype, "torch", origin, tail=x.tail,
                                     shape_of=shape_root(x))
            return AbstractArray(None, x.dtype if name != "embedding" else None, "torch", origin)
        if args[0] is x and isinstance(converted[0], tuple):
            x, pins = self.functional_widths(name, x, converted, options)
            if x.shape is not None and len(x.shape) == len(converted[0]):
                converted[0] = x.shape
            if pins:
                converted[0] = tuple(substitute(d, pins) for d in converted[0])
        operands = list(zip(args, arg_nodes))
        try:
            result = nn_functional(name, *converted, **options)
        except ShapeError as err:
            if err.kind != "dtype":
                self.report_error(err, node, [o for o in operands
                                              if isinstance(o[0], AbstractArray)],
                                  f"F.{name}", self.dialect_for("torch"), None)
            return AbstractArray(None, None, "torch", origin)
        except Exception:  # arguments the rule does not take: unknown, not a finding
            return AbstractArray(None, None, "torch", origin)
        if result is None or len(result.outputs) != 1:
            return AbstractArray(None, None, "torch", origin) if result is None else UNKNOWN_VALUE
        self.report_implicit_dim(node, result, f"F.{name}", x)
        dtype = "float32" if name == "embedding" else x.dtype
        return AbstractArray(result.shape, dtype, "torch", origin)

    def assume_functional_input(self, name: str, x: AbstractArray, holder, converted: list,
                                options: dict) -> AbstractArray:
        """``F.conv2d(x, w, b, stride, padding, dilation, groups)``: x is (N, C, H, W), its C
        the weight's input channels when the groups are known."""
        feature = None
        weight = converted[1] if len(converted) > 1 else options.get("weight")
        if name.startswith("conv") and isinstance(weight, tuple) and \
                len(weight) == FUNCTIONAL_BATCHED_RANK[name]:
            groups = converted[6] if len(converted) > 6 else options.get("groups", 1)
            feature = weight_channels(name, weight, groups)
        return self.assume_input(x, holder, FUNCTIONAL_BATCHED_RANK[name],
                                 1 if feature is not None else None,
                                 DIM_UNKNOWN if feature is None else feature)

    def report_implicit_dim(self, node, result, label: str, x: AbstractArray) -> None:
        """SC114: a softmax without dim, which torch warns of (and which for a 3-D input
        normalizes over dim 0)."""
        for warning in result.warnings:
            if warning.kind == "implicit-dim":
                rank = len(x.shape) if x.shape is not None and not x.assumed_rank else None
                chosen = "dim 0 for a 0-, 1- or 3-D input and dim 1 otherwise" if rank is None \
                    else f"dim {0 if rank in (0, 1, 3) else 1} for this {rank}-D input"
                self.report("SC114", node, f"{label} without dim: torch picks {chosen}; "
                            f"torch: {warning.message}")

    def layer_parameter(self, node, layer: LayerValue, name: str) -> Value:
        """``emb.weight``: the layer's Parameter, a leaf that requires grad, one storage per
        layer and name however often it is read; ``bn.running_mean``: a buffer, which does
        not require grad."""
        buffer = name in LAYER_BUFFERS
        try:
            built = build_layer(layer.kind, tuple(_runtime_arg(a) for a in layer.args),
                                {k: _runtime_arg(v) for k, v in layer.kwargs})
        except Exception:
            built = None  # torch refuses the constructor, or it is not modelled
        shape = parameter_shape(built, name) if built is not None else None
        if shape is None:
            return UNKNOWN_VALUE
        key = (id(layer), name)
        storage = self.parameter_storages.get(key)
        if storage is None:
            storage = Storage(hash(key), f"{self.text(node, 40)}", leaf_grad=not buffer)
            self.parameter_storages[key] = storage
            if not buffer:
                self.grad_storages.add(storage.id)
        return AbstractArray(tuple(shape), "float32", "torch", self.origin(node),
                             requires_grad=not buffer,
                             alias=Alias(storage, "base", deps=frozenset({storage.id})))

    def layer_attribute(self, node, layer: LayerValue, name: str) -> Value:
        """``self.fc.in_features``, ``conv.out_channels``, a norm's eps, ``self.normalized_shape``
        in a LayerNorm's subclass: the layer's parameters and buffers, and the constructor
        arguments torch keeps under their names, as given (or their defaults); a stored
        shape as torch normalizes it (a LayerNorm's int width is a 1-tuple)."""
        if name in ("weight", "bias") or name in LAYER_BUFFERS:
            return self.layer_parameter(node, layer, name)
        if name in STORED_SHAPES.get(layer.kind, ()):
            try:
                built = build_layer(layer.kind, tuple(_runtime_arg(a) for a in layer.args),
                                    {k: _runtime_arg(v) for k, v in layer.kwargs})
            except Exception:
                built = None  # torch refuses the constructor, or it is not modelled
            return UNKNOWN_VALUE if built is None else _from_runtime(built[name])
        given = stored_as_given(layer.kind, name)
        if not (given or stored_size(layer.kind, name)):
            return UNKNOWN_VALUE
        bound = dict(bound_arguments(layer.kind, list(layer.args), dict(layer.kwargs)))
        if name in bound:
            value = bound[name]
            return value if isinstance(value, IntValue) or given and isinstance(
                value, (ConstValue, FloatValue)) else UNKNOWN_VALUE
        default = dict(NN_LAYERS[layer.kind].signature).get(name)
        if given and isinstance(default, float):
            return ConstValue(default)
        return IntValue(default) if isinstance(default, int) and not isinstance(default, bool) \
            else UNKNOWN_VALUE

    def has_functional(self, name: str) -> bool:
        return name in NN_FUNCTIONAL

    def loss(self, node, name: str, args: list, kwargs: dict, arg_nodes: list) -> Value:
        pred = args[0] if args else kwargs.get("input")
        target = args[1] if len(args) > 1 else kwargs.get("target")
        pred_node = arg_nodes[0] if arg_nodes else node
        target_node = arg_nodes[1] if len(arg_nodes) > 1 else node
        return self.check_loss(node, name, pred, target, pred_node, target_node, kwargs)

    def check_loss(self, node, name: str, pred: Value, target: Value, pred_node, target_node,
                   kwargs: dict) -> Value:
        """SC107 (and torch's broadcast error) from the runtime's loss rule."""
        origin = self.origin(node)
        reduction = kwargs.get("reduction")
        scalar = AbstractArray((), "float32", "torch", origin)
        # Every loss reduced by its mean or sum is 0-d, whatever its operands.
        reduced = reduction is None or isinstance(reduction, ConstValue) and \
            reduction.value in ("mean", "sum", "batchmean")
        unknown = scalar if reduced else AbstractArray(None, "float32", "torch", origin)
        if not (isinstance(pred, AbstractArray) and isinstance(target, AbstractArray)) or \
                pred.shape is None or target.shape is None or pred.assumed_rank or \
                target.assumed_rank:
            return unknown
        a, b = tuple(pred.shape), tuple(target.shape)
        operands = [(pred, pred_node), (target, target_node)]
        where = f" ({self.describe(operands)})"
        dialect = self.dialect_for("torch")
        mode = "mean" if reduction is None else (
            reduction.value if isinstance(reduction, ConstValue) else None)
        try:
            result = nn_loss(name, a, b, target_dtype=target.dtype, reduction=mode)
        except ShapeError as err:
            if err.kind == "broadcast":
                self.report_error(err, node, operands, f"F.{name}", dialect, None)
            elif err.kind == "loss" and name in CLASS_LOSSES and len(a) >= 2:
                self.report("SC107", node, f"F.{name} input {format_shape(a)} needs class-index "
                            f"target {format_shape(a[:1] + a[2:])}, got {format_shape(b)}{where}; "
                            f"torch: {err.message}")
            elif err.kind == "loss":
                self.report("SC107", node, f"F.{name} input {format_shape(a)} and target "
                            f"{format_shape(b)} differ{where}; torch: {err.message}")
            # A "dtype" refusal rests on dtype inference, which is not certain enough to report.
            return unknown
        except Exception:
            return unknown
        if result is None:
            return unknown
        for warning in result.warnings:
            if warning.kind in ("loss-broadcast", "silent-broadcast"):
                said = "torch: " if warning.kind == "loss-broadcast" else ""
                self.report("SC107", node, f"F.{name} input {format_shape(a)} and target "
                            f"{format_shape(b)} differ{where}; {said}{warning.message}")
        return AbstractArray(result.shape, "float32", "torch", origin)

    def check_solve(self, node, qualname: str, args: list, arg_nodes: list) -> None:
        """SC110: the same solve(a, b) means different things in NumPy 2, NumPy 1 and torch."""
        if len(args) < 2 or not all(isinstance(v, AbstractArray) and v.shape is not None
                                    and not v.assumed_rank for v in args[:2]):
            return
        a, b = args[0], args[1]
        outcomes = {}
        names = {"numpy": "np.linalg.solve", "numpy-1": "np.linalg.solve",
                 "torch": "torch.linalg.solve"}
        for dialect in (NUMPY, NUMPY1, TORCH):
            spec = self.lookup(names[dialect.name], dialect)
            if spec is None:
                return
            try:
                res = spec.rule(array_arg(a), array_arg(b), dialect=dialect)
                outcomes[dialect.name] = format_shape(res.shape)
            except ShapeError:
                outcomes[dialect.name] = "an error"
            except Exception:
                return
        own = "torch" if qualname.startswith("torch") else (
            "numpy-1" if self.numpy_dialect.legacy else "numpy")
        if outcomes[own] == "an error" or len(set(outcomes.values())) == 1:
            return
        listed = ", ".join(f"{k}: {v}" for k, v in outcomes.items())
        self.report("SC110", node,
                    f"solve(a {format_shape(a.shape)}, b {format_shape(b.shape)}) depends on the "
                    f"library: b is read as a stack of vectors by some and of matrices by others "
                    f"({listed}); make b's role explicit with b[..., None] and [..., 0]")

    def layer_value(self, kind: str, args: list, kwargs: dict) -> Value:
        """``nn.<kind>(...)`` as written; the runtime builds it when it is called."""
        for name, value in bound_arguments(kind, args, kwargs):
            if name in SIZE_ARGUMENTS:
                self.mark_sized(value)
        return LayerValue(kind, tuple(args), tuple(sorted(kwargs.items())))

    def call_layer(self, node, layer: LayerValue, args: list, kwargs: dict, arg_nodes: list) -> Value:
        if layer.kind in LOSSES:
            if len(args) >= 2:
                return self.check_loss(node, LOSSES[layer.kind], args[0], args[1], arg_nodes[0],
                                       arg_nodes[1], dict(layer.kwargs))
            return UNKNOWN_VALUE
        if layer.kind == "Sequential":
            return self.call_sequential(node, layer, args, arg_nodes)
        if layer.kind in RECURRENT and args and isinstance(args[0], PackedValue) and not kwargs:
            return self.call_packed_recurrent(node, layer, args, arg_nodes)
        if layer.kind in SEVERAL_INPUTS:
            if not args or not isinstance(args[0], AbstractArray):
                return UNKNOWN_VALUE
            return self.call_layer_with_inputs(node, layer, args, kwargs, arg_nodes)
        if len(args) == 1 and args[0] is UNKNOWN_VALUE and layer.kind not in ("RNN", "GRU", "LSTM"):
            # What an unknown module or function returned: torch's layer raises on anything
            # but a tensor (an RNN also takes a PackedSequence), so it is one, of unknown shape,
            # and the layer's output is what the layer says of it (a Linear's last dim).
            args = [AbstractArray(None, None, "torch", self.origin(arg_nodes[0] if arg_nodes else node))]
        if not args or not isinstance(args[0], AbstractArray):
            return UNKNOWN_VALUE
        if layer.kind in SEVERAL_INPUTS:
            return self.call_layer_with_inputs(node, layer, args, kwargs, arg_nodes)
        x = args[0]
        origin = self.origin(node)
        # An embedding looks rows up in its float weight: the output is float, whatever the ids.
        dtype = "float32" if layer.kind in ("Embedding", "EmbeddingBag") else x.dtype
        keeps = layer_keeps_shape(layer.kind)
        unknown = AbstractArray(None, dtype, "torch", origin, tail=x.tail if keeps else (),
                                shape_of=shape_root(x) if keeps else None)
        arrays = args[:2] if layer.kind == "Bilinear" else args[:1]
        options = {}
        if layer.kind in ("RNN", "GRU", "LSTM") and len(args) == 2:
            options["hx"] = state_shapes(args[1], pair=layer.kind == "LSTM")
            if options["hx"] is None:
                return UNKNOWN_VALUE
        elif len(arrays) != len(args):
            return unknown
        try:
            built = build_layer(layer.kind, tuple(_runtime_arg(a) for a in layer.args),
                                {k: _runtime_arg(v) for k, v in layer.kwargs})
        except Exception:
            built = None  # torch refuses the constructor (not a layer input), or it is not modelled
        if built is None or kwargs or not all(isinstance(v, AbstractArray) for v in arrays):
            return unknown
        expected = batched_input(built)
        if x.shape is None and expected is not None and len(arrays) == 1 and not options:
            x = self.assume_batched(x, arg_nodes[0] if arg_nodes else node, expected, built)
            arrays = [x]
        shapes = [v.shape for v in arrays]
        trailing = None
        if any(s is None for s in shapes):
            trailing = trailing_features(built)
            if trailing is None or len(arrays) != 1 or options:
                return unknown
            # Any rank, the trailing dims the layer reads: (*, in_features) for a Linear. The
            # input's known trailing dims are checked; else the layer says what they are.
            if len(x.tail) < len(trailing):
                x = self.refine_tail(x, x.tail if x.tail else trailing)
            shapes = [(DIM_UNKNOWN,) + tuple(x.tail[-len(trailing):])] if x.tail else []
            if not shapes:
                return unknown
        if layer.kind == "Embedding":
            options["dtype"] = x.dtype
        elif layer.kind.startswith(("BatchNorm", "InstanceNorm")):
            options["training"] = None  # the module's mode is not tracked
        if trailing is None and len(arrays) == 1 and not options.get("hx"):
            x, pins = self.input_widths(x, built, expected)
            shapes = [x.shape]
            if pins:
                shapes = [tuple(substitute(d, pins) for d in shapes[0])]
        try:
            result = built.forward(*shapes, **options)
        except ShapeError as err:
            if err.kind != "dtype":  # resting on dtype inference: not certain enough to report
                self.report_error(err, node, [(x, arg_nodes[0] if arg_nodes else node)],
                                  f"nn.{layer.kind}", self.dialect_for("torch"), None)
            return AbstractArray(None, x.dtype, "torch", origin)
        except Exception:
            return unknown  # a rule that cannot handle these arguments: unknown, not a finding
        if result is None:
            return unknown
        self.report_implicit_dim(node, result, f"nn.{layer.kind}()", x)
        if layer.kind in RECURRENT and trailing is None:
            return self.recurrent_result(layer.kind, result.outputs, dtype, origin)
        if len(result.outputs) != 1:
            return UNKNOWN_VALUE  # (values, indices) and the like: errors checked, the tuple not modelled
        if trailing is not None:
            # The leading dims pass through unknown; what follows them is the layer's.
            if not result.shape or result.shape[0] is not DIM_UNKNOWN:
                return AbstractArray(None, dtype, "torch", origin)
            return AbstractArray(None, dtype, "torch", origin, tail=tuple(result.shape[1:]),
                                 shape_of=shape_root(x) if keeps else None)
        return AbstractArray(result.shape, dtype, "torch", origin)

    def input_widths(self, x: AbstractArray, built, expected) -> tuple[AbstractArray, dict]:
        """The widths the layer just read from its input, as what it needs them to be: a
        Linear's or LayerNorm's trailing dims, the channels of a batched convolution. Returns
        x with the widths nobody knew filled in, and the named sizes pinned to them."""
        shape = x.shape
        trailing = trailing_features(built)
        if trailing is not None and len(shape) >= len(trailing):
            start, wanted = len(shape) - len(trailing), tuple(trailing)
        elif expected is not None and expected.feature_dim is not None and len(shape) == expected.rank:
            try:
                start, wanted = expected.feature_dim % len(shape), (built[expected.feature_argument],)
            except (KeyError, TypeError):
                return x, {}
        else:
            return x, {}
        return self.read_widths(x, shape, start, wanted)

    def functional_widths(self, name: str, x: AbstractArray, converted: list,
                          options: dict) -> tuple[AbstractArray, dict]:
        """``F.layer_norm(x, (C,))``, ``F.linear(x, w)``: the trailing widths they read, as
        ``input_widths`` does for the layers."""
        shape = converted[0]
        second = converted[1] if len(converted) > 1 else options.get(
            "normalized_shape" if name in ("layer_norm", "rms_norm") else "weight")
        if not isinstance(second, tuple) or not second:
            return x, {}
        if name in ("layer_norm", "rms_norm"):
            wanted = second
        elif name == "linear" and len(second) == 2:
            wanted = second[1:]
        else:
            return x, {}
        if len(shape) < len(wanted) or x.shape is None or len(x.shape) != len(shape):
            return x, {}
        return self.read_widths(x, shape, len(shape) - len(wanted), wanted)

    def call_layer_with_inputs(self, node, layer: LayerValue, args: list, kwargs: dict,
                               arg_nodes: list) -> Value:
        """``attn(q, k, v, key_padding_mask=m)``, ``cell(x, (h, c))``, ``unpool(x, idx)``: every
        input and keyword handed to the runtime's forward rule; unknown unless all are known."""
        inputs = [_layer_input(v) for v in args]
        options = {k: _layer_input(v) for k, v in kwargs.items()}
        if FAIL in inputs or FAIL in options.values():
            return UNKNOWN_VALUE
        try:
            built = build_layer(layer.kind, tuple(_runtime_arg(a) for a in layer.args),
                                {k: _runtime_arg(v) for k, v in layer.kwargs})
        except Exception:
            built = None
        if built is None:
            return UNKNOWN_VALUE
        x = args[0]
        try:
            result = built.forward(*inputs, **options)
        except ShapeError as err:
            if err.kind != "dtype":
                operands = [(v, n) for v, n in zip(args, arg_nodes) if isinstance(v, AbstractArray)]
                self.report_error(err, node, operands, f"nn.{layer.kind}",
                                  self.dialect_for("torch"), None)
            return UNKNOWN_VALUE
        except Exception:
            return UNKNOWN_VALUE  # arguments the rule does not take: unknown, not a finding
        if result is None:
            return UNKNOWN_VALUE
        dtype = "float32" if layer.kind == "EmbeddingBag" else x.dtype
        origin = self.origin(node)
        outputs = tuple(ConstValue(None) if shape is None else
                        AbstractArray(tuple(shape), dtype, "torch", origin)
                        for shape in result.outputs)
        return outputs[0] if len(outputs) == 1 else TupleValue(outputs)

    def instantiate(self, cls: ClassValue, args: list, kwargs: dict,
                    node: cst.CSTNode | None = None) -> Value:
        instance = InstanceValue(cls)
        init = cls.members.get("__init__")
        if isinstance(init, GeneratedInit):
            self.dataclass_init(instance, init, args, kwargs)
            return instance
        if cls.layer_kind is not None and not isinstance(init, FunctionValue):
            # ``class LayerNorm2d(nn.LayerNorm)`` with torch's own __init__.
            instance.attrs[LAYER_ATTR] = self.layer_value(cls.layer_kind, args, kwargs)
        if isinstance(init, FunctionValue) and self.call_depth < MAX_CALL_DEPTH and \
                id(init) not in self.active and self.specializations < MAX_SPECIALIZATIONS:
            self.specializations += 1
            if node is not None:
                self.standalone(init)
            self.capture.append({})
            saved_base = self.depth_base
            if cls.is_nn_module:
                self.depth_base = len(self.active)
            try:
                self.analyze_function(init, [instance] + args, kwargs, by_call=True)
            finally:
                captured = self.capture.pop()
                self.depth_base = saved_base
            if node is not None:
                self.emit_at_call(node, f"{cls.name}.__init__", captured)
            if node is not None and cls.is_nn_module and not self.building:
                # A module another module's __init__ builds is its child: the parent's forward
                # runs it on what it is given (a forward of its own for each of DenseNet's 58
                # layers and 116 norms spent the whole budget before the model's forward ran).
                self.forward_of_built(cls, instance, node)
        elif init is None and cls.container is not None:
            self.container_init(instance, args, kwargs)  # nn.Sequential's own __init__...
        return instance

    def forward_of_built(self, cls: ClassValue, instance: InstanceValue, node: cst.CSTNode) -> None:
        """A module built with this call's arguments (``ResNet(BasicBlock, [2, 2, 2, 2])`` in a
        builder function) runs its forward once on an input nobody describes, as an unbuilt
        class does with its constructor's parameters as symbols: layers that disagree for
        these arguments fail for every input, and are reported at the call."""
        forward = cls.members.get("forward")
        inherited = cls.sequential and not isinstance(forward, FunctionValue)
        if not inherited and (not isinstance(forward, FunctionValue) or forward.node is None or
                              id(forward) in self.active) or \
                self.call_depth >= MAX_CALL_DEPTH or self.specializations >= MAX_SPECIALIZATIONS:
            return
        self.specializations += 1
        self.capture.append({})
        # The forward goes as deep as an unbuilt class's own forward does, however deep the
        # builder that built it (timm's builders call a helper that calls
        # build_model_with_cfg: three calls the forward would otherwise lose).
        saved_base, self.depth_base = self.depth_base, len(self.active)
        try:
            if inherited:
                # nn.Sequential's own forward(input): the children in the order they were added.
                self.call_sequential(node, self.children_of(instance),
                                     [AbstractArray(None, None, "torch", self.origin(node))],
                                     [cst.Name("input")])
            else:
                self.analyze_function(forward, [instance], {}, by_call=False)
        finally:
            captured = self.capture.pop()
            self.depth_base = saved_base
        self.emit_at_call(node, f"{cls.name}.forward", captured)

    def analyze_class(self, cls: ClassValue) -> None:
        """Each method once, with ``self`` carrying the attributes __init__ sets."""
        if id(cls) in self.analyzed:
            return
        self.analyzed.add(id(cls))
        prototype = InstanceValue(cls)
        generated = cls.members.get("__init__")
        if isinstance(generated, GeneratedInit):
            # A dataclass's methods run for every instance: its fields are whatever a caller
            # gave, not their defaults.
            prototype.attrs.update((f.name, UNKNOWN_VALUE) for f in generated.fields
                                   if f.stored and f.init)
        methods = [v for k, v in cls.members.items() if isinstance(v, FunctionValue)
                   and v.node is not None and _defined_in(v, cls)]
        init = cls.members.get("__init__")
        ordered = ([init] if isinstance(init, FunctionValue) and init in methods else []) + \
            [m for m in methods if m is not init]
        for method in ordered:
            if id(method) in self.analyzed:
                continue
            kind = method_kind(method.node)
            # A classmethod's cls is the class: cls(...) builds an instance, not a forward.
            self.function_summary(method, None if kind == "static" else
                                  cls if kind == "class" else prototype)
