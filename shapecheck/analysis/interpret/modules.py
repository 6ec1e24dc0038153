"""Classes and torch.nn modules: instances, layers, losses, and solve's ambiguity."""

from __future__ import annotations

import libcst as cst

from ...runtime.dialects import NUMPY, NUMPY1, TORCH
from ...runtime.dims import dims_equal, eq, format_shape, is_one
from ...runtime.rules.broadcast import broadcast_shapes, broadcastable
from ...runtime.verdicts import ShapeError
from ..nn_layers import LOSS_LAYERS, apply_layer
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    ClassValue,
    ConstValue,
    FunctionValue,
    InstanceValue,
    LayerValue,
    Value,
)
from .names import MAX_CALL_DEPTH, MAX_SPECIALIZATIONS, PAIRWISE_LOSSES, SHAPE_PRESERVING
from .operands import array_arg


def _defined_in(func: FunctionValue, cls: ClassValue) -> bool:
    return func.owner is cls


class Modules:
    def loss(self, node, name: str, args: list, kwargs: dict, arg_nodes: list) -> Value:
        pred = args[0] if args else kwargs.get("input")
        target = args[1] if len(args) > 1 else kwargs.get("target")
        pred_node = arg_nodes[0] if arg_nodes else node
        target_node = arg_nodes[1] if len(arg_nodes) > 1 else node
        return self.check_loss(node, name, pred, target, pred_node, target_node, kwargs)

    def check_loss(self, node, name: str, pred: Value, target: Value, pred_node, target_node,
                   kwargs: dict) -> Value:
        origin = self.origin(node)
        reduction = kwargs.get("reduction")
        scalar = AbstractArray((), "float32", "torch", origin)
        if not (isinstance(pred, AbstractArray) and isinstance(target, AbstractArray)) or \
                pred.shape is None or target.shape is None:
            return scalar if reduction is None else AbstractArray(None, "float32", "torch", origin)
        a, b = pred.shape, target.shape
        operands = [(pred, pred_node), (target, target_node)]
        where = f" ({self.describe(operands)})"
        dialect = self.dialect_for("torch")
        if name in PAIRWISE_LOSSES:
            if dims_equal(a, b) is False:
                if name == "binary_cross_entropy_with_logits":
                    text = f"Target size (torch.Size({list(b)})) must be the same as input size (torch.Size({list(a)}))"
                elif name == "binary_cross_entropy":
                    text = (f"Using a target size (torch.Size({list(b)})) that is different to the input size "
                            f"(torch.Size({list(a)})) is deprecated. Please ensure they have the same size.")
                else:
                    text = (f"Using a target size (torch.Size({list(b)})) that is different to the input size "
                            f"(torch.Size({list(a)})). This will likely lead to incorrect results due to "
                            f"broadcasting. Please ensure they have the same size.")
                if broadcastable(a, b) is False and name not in (
                        "binary_cross_entropy_with_logits", "binary_cross_entropy"):
                    self.run_rule(lambda: broadcast_shapes(a, b, dialect=dialect), node, operands,
                                  f"F.{name}", dialect, None, op_name=name)
                else:
                    self.report("SC107", node,
                                f"F.{name} input {format_shape(a)} and target {format_shape(b)} differ"
                                f"{where}; torch: {text}")
            if isinstance(reduction, ConstValue) and reduction.value == "none":
                try:
                    return AbstractArray(broadcast_shapes(a, b, dialect=dialect).shape, "float32",
                                         "torch", origin)
                except ShapeError:
                    return AbstractArray(None, "float32", "torch", origin)
            return scalar
        # cross_entropy / nll_loss: class indices (N,) for input (N, C), or probabilities like input.
        if len(a) >= 2 and len(b) == len(a) - 1:
            expected = (a[0],) + tuple(a[2:])
            if dims_equal(expected, b) is False:
                if eq(a[0], b[0]) is False:
                    text = f"Expected input batch_size ({a[0]}) to match target batch_size ({b[0]})."
                else:
                    text = f"expected target size {format_shape(expected, 'torch')}, got {format_shape(b, 'torch')}"
                self.report("SC107", node, f"F.{name} input {format_shape(a)} needs class-index target "
                            f"{format_shape(expected)}, got {format_shape(b)}{where}; torch: {text}")
        elif len(a) >= 1 and len(b) == len(a):
            if target.dtype is not None and target.dtype.startswith(("int", "uint")) and len(a) == 2 \
                    and is_one(b[1]) is True:
                self.report("SC107", node, f"F.{name} input {format_shape(a)} with class-index target "
                            f"{format_shape(b)}: the target needs shape {format_shape(a[:1])}{where}; "
                            f"torch: 0D or 1D target tensor expected, multi-target not supported")
            elif dims_equal(a, b) is False and name == "cross_entropy" and not (
                    target.dtype or "").startswith(("int", "uint")):
                self.report("SC107", node, f"F.{name} input {format_shape(a)} and probability target "
                            f"{format_shape(b)} differ{where}")
        if isinstance(reduction, ConstValue) and reduction.value == "none" and len(a) >= 2:
            return AbstractArray((a[0],) + tuple(a[2:]), "float32", "torch", origin)
        return scalar

    def check_solve(self, node, qualname: str, args: list, arg_nodes: list) -> None:
        """SC110: the same solve(a, b) means different things in NumPy 2, NumPy 1 and torch."""
        if len(args) < 2 or not all(isinstance(v, AbstractArray) and v.shape is not None
                                    for v in args[:2]):
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

    def build_layer(self, kind: str, args: list, kwargs: dict) -> Value:
        if kind == "Sequential":
            return LayerValue(kind, layers=tuple(args))
        return LayerValue(kind, tuple(args), tuple(sorted(kwargs.items())))

    def call_layer(self, node, layer: LayerValue, args: list, kwargs: dict, arg_nodes: list) -> Value:
        if layer.kind in LOSS_LAYERS:
            name = LOSS_LAYERS[layer.kind]
            layer_kwargs = dict(layer.kwargs)
            if len(args) >= 2:
                return self.check_loss(node, name, args[0], args[1], arg_nodes[0], arg_nodes[1],
                                       layer_kwargs)
            return UNKNOWN_VALUE
        if layer.kind == "Sequential":
            value = args[0] if args else UNKNOWN_VALUE
            for child in layer.layers:
                value = self.call(node, child, [value], {}, arg_nodes[:1])
            return value
        if not args or not isinstance(args[0], AbstractArray):
            return UNKNOWN_VALUE
        x = args[0]
        origin = self.origin(node)
        verdict = apply_layer(layer, x, self.dialect_for("torch"), self.lookup)
        if isinstance(verdict, ShapeError):
            self.report_error(verdict, node, [(x, arg_nodes[0] if arg_nodes else node)],
                              f"nn.{layer.kind}", self.dialect_for("torch"), None)
            return AbstractArray(None, x.dtype, "torch", origin)
        shape, dtype = verdict
        return AbstractArray(shape, dtype if dtype is not None else x.dtype, "torch", origin,
                             tail=x.tail if shape is None and layer.kind in SHAPE_PRESERVING else ())

    def instantiate(self, cls: ClassValue, args: list, kwargs: dict,
                    node: cst.CSTNode | None = None) -> Value:
        instance = InstanceValue(cls)
        init = cls.members.get("__init__")
        if isinstance(init, FunctionValue) and len(self.active) < MAX_CALL_DEPTH and \
                id(init) not in self.active and self.specializations < MAX_SPECIALIZATIONS:
            self.specializations += 1
            if node is not None:
                self.standalone(init)
            self.capture.append({})
            try:
                self.analyze_function(init, [instance] + args, kwargs)
            finally:
                captured = self.capture.pop()
            if node is not None:
                self.emit_at_call(node, f"{cls.name}.__init__", captured)
        return instance

    def analyze_class(self, cls: ClassValue) -> None:
        """Each method once, with ``self`` carrying the attributes __init__ sets."""
        if id(cls) in self.analyzed:
            return
        self.analyzed.add(id(cls))
        prototype = InstanceValue(cls)
        methods = [v for k, v in cls.members.items() if isinstance(v, FunctionValue)
                   and v.node is not None and _defined_in(v, cls)]
        init = cls.members.get("__init__")
        ordered = ([init] if isinstance(init, FunctionValue) and init in methods else []) + \
            [m for m in methods if m is not init]
        for method in ordered:
            if id(method) in self.analyzed:
                continue
            static = any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
                         for d in method.node.decorators)
            self.function_summary(method, None if static else prototype)
