"""pack_padded_sequence, pad_packed_sequence, and a PackedSequence through RNN, LSTM and GRU.

A PackedSequence is its ``data`` (every time step of every sequence, one row
each: (sum(lengths), *features)) and its ``batch_sizes`` (one per time step:
as many as the longest length). Its shape facts are the data's shape, the
number of sequences and the number of steps. The lengths are values: a list
of ints gives all of them; a tensor of lengths gives only how many there are,
and the total and the longest stay unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..dims import UNKNOWN, Dim, Shape, eq, mul
from ..verdicts import Result
from .base import NotModelled, flag, is_dim, known_int, layer_error


@dataclass(frozen=True)
class Packed:
    """A PackedSequence's shapes: ``data``, the number of sequences (``batch_sizes[0]``) and
    the number of time steps (``len(batch_sizes)``); ``unsorted`` when it keeps the order it
    sorted the sequences into (``enforce_sorted=False``)."""

    data: Shape
    batch: Dim
    steps: Dim
    unsorted: bool = False

    @property
    def batch_sizes(self) -> Shape:
        return (self.steps,)


def pack_padded_sequence(input: Shape, lengths=None, *, lengths_shape: Shape | None = None,
                         batch_first: bool = False, enforce_sorted: bool = True) -> Packed | None:
    """``pack_padded_sequence(input, lengths)`` with ``lengths`` a list of ints, or a tensor of
    ``lengths_shape`` whose values are not known; None when not modelled."""
    try:
        return _pack(input, lengths, lengths_shape, batch_first, enforce_sorted)
    except NotModelled:
        return None


def _pack(input: Shape, lengths, lengths_shape: Shape | None, batch_first, enforce_sorted) -> Packed:
    """ATen's checks of _pack_padded_sequence, in ATen's order (after the sort and index_select
    Python does without enforce_sorted)."""
    x = tuple(input)
    batch_first, enforce_sorted = flag(batch_first), flag(enforce_sorted)
    if (lengths is None) == (lengths_shape is None):
        raise NotModelled("lengths as a list or as a tensor's shape, one of them")
    if lengths is not None:
        lengths = tuple(lengths)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in lengths):
            raise NotModelled("lengths that are not all known ints")
        count: Dim = len(lengths)
        lengths_rank = 1
    else:
        lengths_shape = tuple(lengths_shape)
        lengths_rank = len(lengths_shape)
        count = lengths_shape[0] if lengths_rank == 1 else None
    empty = any(known_int(d) == 0 for d in x)
    if not enforce_sorted and (len(x) < 2 or lengths_rank != 1 or empty):
        raise NotModelled("index_select's own refusals before packing")
    batch_dim, time_dim = (0, 1) if batch_first else (1, 0)
    if not x:
        raise NotModelled("a 0-d input")
    if empty:
        raise layer_error("Cannot pack empty tensors.", "RuntimeError", x)
    out_of_range = layer_error("Dimension out of range (expected to be in range of [-1, 0], but "
                               "got 1)", "IndexError", x)
    if batch_first and len(x) < 2:
        raise out_of_range  # the input's transpose(0, 1)
    if lengths_rank != 1:
        raise layer_error(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                          f"{lengths_rank}D cpu Long tensor", "RuntimeError", x)
    if len(x) < 2:
        raise out_of_range  # input.size(1)
    batch = x[batch_dim]
    if not enforce_sorted and known_int(count) is not None and known_int(batch) is not None:
        if count > batch:
            raise NotModelled("more lengths than sequences (index_select's message names values)")
        batch = count  # index_select keeps the sequences the sorted lengths name
    if eq(count, batch) is False:
        raise layer_error(f"Expected `len(lengths)` to be equal to batch_size, but got {count} "
                          f"(batch_size={batch})", "RuntimeError", x)
    if eq(count, batch) is not True:
        raise NotModelled("a count of lengths that may differ from the batch")
    rest = x[2:]
    if lengths is None:
        return Packed((UNKNOWN,) + rest, batch, UNKNOWN, not enforce_sorted)
    ordered = sorted(lengths, reverse=True) if not enforce_sorted else list(lengths)
    if ordered and ordered[-1] <= 0:
        raise layer_error("Length of all samples has to be greater than 0, but found an element in "
                          "'lengths' that is <= 0", "RuntimeError", x)
    if any(a < b for a, b in zip(ordered, ordered[1:])):
        raise layer_error("`lengths` array must be sorted in decreasing order when `enforce_sorted` "
                          "is True. You can pass `enforce_sorted=False` to pack_padded_sequence "
                          "and/or pack_sequence to sidestep this requirement if you do not need "
                          "ONNX exportability.", "RuntimeError", x)
    steps = max(lengths)
    if known_int(x[time_dim]) is None or steps > x[time_dim]:
        raise NotModelled("a length past the padded time dim, or a time dim not known")
    return Packed((sum(lengths),) + rest, batch, steps, not enforce_sorted)


def pad_packed_sequence(packed: Packed, batch_first: bool = False, padding_value=0.0,
                        total_length=None) -> Result | None:
    """``pad_packed_sequence(packed)``: (padded, lengths), the padded data (T, B, *) or
    (B, T, *) with T the longest length, or total_length when given (at least that); None
    when not modelled."""
    try:
        return _pad(packed, batch_first, total_length)
    except NotModelled:
        return None


def _pad(packed: Packed, batch_first, total_length) -> Result:
    batch_first = flag(batch_first)
    steps = packed.steps
    if total_length is not None:
        if not is_dim(total_length):
            raise NotModelled("a total_length that is no size")
        longest = known_int(steps)
        if longest is not None and known_int(total_length) is not None and total_length < longest:
            raise layer_error(f"Expected total_length to be at least the length of the longest "
                              f"sequence in input, but got total_length={total_length} and max "
                              f"sequence length being {longest}", "ValueError", packed.data)
        if longest is None and known_int(total_length) is None:
            raise NotModelled("a total_length that may be shorter than the longest sequence")
        steps = total_length
    rest = tuple(packed.data[1:])
    padded = (packed.batch, steps) + rest if batch_first else (steps, packed.batch) + rest
    return Result((padded, (packed.batch,)))


def recurrent_packed(layer, packed: Packed, hx=None) -> Result:
    """RNN, GRU or LSTM on a PackedSequence: (output, h_n) or (output, h_n, c_n), output a
    Packed of the same steps. RNN and GRU check the data and the state as for a padded input
    (check_forward_args); LSTM leaves them to ATen, whose messages name its internals, so an
    LSTM input or state of another size answers unknown."""
    mode = layer.kind
    data = tuple(packed.data)
    directions = 2 if flag(layer["bidirectional"]) else 1
    hidden, proj = layer["hidden_size"], layer["proj_size"] if mode == "LSTM" else 0
    if known_int(proj) is None:
        raise NotModelled("a proj_size not known")
    out = proj if proj else hidden
    layers = mul(layer["num_layers"], directions)
    h_shape, c_shape = (layers, packed.batch, out), (layers, packed.batch, hidden)
    if mode == "LSTM":
        if len(data) != 2 or eq(data[1], layer["input_size"]) is not True:
            raise NotModelled("an LSTM's packed input of another size (ATen's own message)")
        if hx is not None:
            states = tuple(tuple(s) for s in hx)
            if len(states) != 2 or not all(eq(a, b) is True for s, want in zip(states, (h_shape, c_shape))
                                           for a, b in zip(s, want)) or \
                    any(len(s) != 3 for s in states):
                raise NotModelled("an LSTM state of another shape (ATen's own message)")
    else:
        if len(data) != 2:
            raise layer_error(f"input must have 2 dimensions, got {len(data)}", "RuntimeError", data)
        if eq(data[1], layer["input_size"]) is False:
            raise layer_error(f"input.size(-1) must be equal to input_size. Expected "
                              f"{layer['input_size']}, got {data[1]}", "RuntimeError", data, dim=-1)
        if hx is not None:
            state = tuple(hx)
            if packed.unsorted and len(state) == 3 and eq(state[1], packed.batch) is not True:
                # The state is first permuted (index_select of the sorted order along dim 1):
                # a wider one is cut to the batch, a narrower one is an index error.
                raise NotModelled("an unsorted batch's state of another batch size")
            if len(state) != 3 or any(eq(a, b) is False for a, b in zip(state, h_shape)):
                shown = "(" + ", ".join(map(str, h_shape)) + ")"
                raise layer_error(f"Expected hidden size {shown}, got [{', '.join(map(str, state))}]",
                                  "RuntimeError", state)
            if any(eq(a, b) is not True for a, b in zip(state, h_shape)):
                raise NotModelled("a state that may differ from the expected size")
    output = Packed((data[0], mul(directions, out)), packed.batch, packed.steps, packed.unsorted)
    return Result((output, h_shape) + ((c_shape,) if mode == "LSTM" else ()))


__all__ = ["Packed", "pack_padded_sequence", "pad_packed_sequence", "recurrent_packed"]
