"""RNN, LSTM and GRU calls and their outputs, and PackedSequences (pack_padded_sequence,
pad_packed_sequence, ``.data``), through runtime/nn's rules."""

from __future__ import annotations

from ...runtime.nn import build as build_layer
from ...runtime.nn.packed import Packed, pack_padded_sequence, pad_packed_sequence
from ...runtime.verdicts import ShapeError
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    ConstValue,
    IntValue,
    LayerValue,
    PackedValue,
    TupleValue,
    Value,
)

RECURRENT = frozenset({"RNN", "GRU", "LSTM"})

PACKING = frozenset({"torch.nn.utils.rnn.pack_padded_sequence",
                     "torch.nn.utils.rnn.pad_packed_sequence"})


def _flag(value: Value, default: bool):
    if value is None:
        return default
    if isinstance(value, ConstValue) and isinstance(value.value, bool):
        return value.value
    return None


def state_shapes(value: Value, pair: bool):
    """h0 (or LSTM's (h0, c0)) as shapes; None when any is unknown."""
    items = value.items if pair and isinstance(value, TupleValue) else (value,)
    if len(items) != (2 if pair else 1) or not all(
            isinstance(v, AbstractArray) and v.shape is not None for v in items):
        return None
    shapes = tuple(tuple(v.shape) for v in items)
    return shapes if pair else shapes[0]


class Recurrent:
    def recurrent_result(self, kind: str, outputs: tuple, dtype, origin) -> Value:
        """(output, h_n) for RNN and GRU, (output, (h_n, c_n)) for LSTM, as torch returns them;
        an output that is a Packed is a PackedValue."""
        def one(shape):
            if isinstance(shape, Packed):
                return PackedValue(AbstractArray(tuple(shape.data), dtype, "torch", origin),
                                   shape.batch, shape.steps, shape.unsorted)
            return AbstractArray(tuple(shape), dtype, "torch", origin)
        values = [one(shape) for shape in outputs]
        if kind == "LSTM":
            return TupleValue((values[0], TupleValue((values[1], values[2]))))
        return TupleValue(tuple(values))

    def call_packed_recurrent(self, node, layer: LayerValue, args: list, arg_nodes: list) -> Value:
        """``lstm(packed)``, ``gru(packed, h0)``: the runtime's rule on the packed shapes."""
        packed = args[0]
        hx = None
        if len(args) == 2:
            hx = state_shapes(args[1], pair=layer.kind == "LSTM")
            if hx is None:
                return UNKNOWN_VALUE
        if packed.data.shape is None:
            return UNKNOWN_VALUE
        try:
            built = build_layer(layer.kind, tuple(self.runtime_arg(a) for a in layer.args),
                                {k: self.runtime_arg(v) for k, v in layer.kwargs})
        except Exception:
            built = None
        if built is None:
            return UNKNOWN_VALUE
        shapes = Packed(tuple(packed.data.shape), packed.batch, packed.steps, packed.unsorted)
        try:
            result = built.forward(shapes, hx=hx)
        except ShapeError as err:
            operands = [(packed.data, arg_nodes[0] if arg_nodes else node)]
            self.report_error(err, node, operands, f"nn.{layer.kind}", self.dialect_for("torch"), None)
            return UNKNOWN_VALUE
        except Exception:
            return UNKNOWN_VALUE
        if result is None:
            return UNKNOWN_VALUE
        return self.recurrent_result(layer.kind, result.outputs, packed.data.dtype, self.origin(node))

    def packing(self, node, qualname: str, args: list, kwargs: dict, arg_nodes: list) -> Value:
        """pack_padded_sequence(x, lengths, batch_first=, enforce_sorted=) and
        pad_packed_sequence(packed, batch_first=, total_length=)."""
        origin = self.origin(node)
        if qualname.endswith("pack_padded_sequence"):
            names = ("input", "lengths", "batch_first", "enforce_sorted")
            given = dict(zip(names, args)) | kwargs
            x, lengths = given.get("input"), given.get("lengths")
            flags = (_flag(given.get("batch_first"), False), _flag(given.get("enforce_sorted"), True))
            if not isinstance(x, AbstractArray) or x.shape is None or None in flags:
                return UNKNOWN_VALUE
            if isinstance(lengths, AbstractArray) and lengths.shape is not None:
                length_args = {"lengths_shape": tuple(lengths.shape)}
            elif isinstance(lengths, TupleValue) and all(
                    isinstance(v, IntValue) and isinstance(v.value, int) for v in lengths.items):
                length_args = {"lengths": [v.value for v in lengths.items]}
            else:
                return UNKNOWN_VALUE
            try:
                packed = pack_padded_sequence(tuple(x.shape), batch_first=flags[0],
                                              enforce_sorted=flags[1], **length_args)
            except ShapeError as err:
                self.report_error(err, node, [(x, arg_nodes[0] if arg_nodes else node)],
                                  "pack_padded_sequence", self.dialect_for("torch"), None)
                return UNKNOWN_VALUE
            if packed is None:
                return UNKNOWN_VALUE
            return PackedValue(AbstractArray(tuple(packed.data), x.dtype, "torch", origin),
                               packed.batch, packed.steps, packed.unsorted)
        names = ("sequence", "batch_first", "padding_value", "total_length")
        given = dict(zip(names, args)) | kwargs
        packed = given.get("sequence")
        first = _flag(given.get("batch_first"), False)
        total = given.get("total_length")
        if total is not None and not isinstance(total, (IntValue, ConstValue)):
            return UNKNOWN_VALUE
        total = None if total is None or isinstance(total, ConstValue) and total.value is None \
            else total.value
        if not isinstance(packed, PackedValue) or packed.data.shape is None or first is None:
            return UNKNOWN_VALUE
        shapes = Packed(tuple(packed.data.shape), packed.batch, packed.steps, packed.unsorted)
        try:
            result = pad_packed_sequence(shapes, batch_first=first, total_length=total)
        except ShapeError as err:
            self.report_error(err, node, [(packed.data, arg_nodes[0] if arg_nodes else node)],
                              "pad_packed_sequence", self.dialect_for("torch"), None)
            return UNKNOWN_VALUE
        if result is None:
            return UNKNOWN_VALUE
        padded, lengths = result.outputs
        return TupleValue((AbstractArray(tuple(padded), packed.data.dtype, "torch", origin),
                           AbstractArray(tuple(lengths), "int64", "torch", origin)))

    def packed_attribute(self, packed: PackedValue, name: str) -> Value:
        """``packed.data``; ``packed.batch_sizes`` (one per time step, int64)."""
        if name == "data":
            return packed.data
        if name == "batch_sizes":
            return AbstractArray((packed.steps,), "int64", "torch", packed.data.origin)
        return UNKNOWN_VALUE


__all__ = ["PACKING", "RECURRENT", "Recurrent", "state_shapes"]
