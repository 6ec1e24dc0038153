"""RNN, LSTM and GRU, and their cells: batch_first, bidirectional, num_layers, proj_size, h0/c0, unbatched input.

forward answers the flat outputs: (output, h_n) for RNN and GRU, (output,
h_n, c_n) for LSTM, whose real return nests them as (output, (h_n, c_n)).
"""

from __future__ import annotations

from ..dims import Dim, Shape, dims_equal, eq, mul
from ..verdicts import Result
from .base import (
    NOT_GIVEN,
    NotModelled,
    argument_error,
    dim_arg,
    flag,
    is_dim,
    known_int,
    layer_error,
    register,
)
from .basic import _new_tensor
from .packed import Packed, recurrent_packed


def _rnn_args(mode: str):
    def construct(args: dict) -> dict:
        if mode == "RNN" and args["nonlinearity"] not in ("tanh", "relu"):
            if not isinstance(args["nonlinearity"], str):
                raise NotModelled("a nonlinearity not known")
            raise argument_error(f"Unknown nonlinearity '{args['nonlinearity']}'. Select from 'tanh' or "
                                 "'relu'.")
        dropout = args["dropout"]
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            if not isinstance(dropout, (int, float)):
                raise NotModelled("a dropout not known")
            raise argument_error("dropout should be a number in range [0, 1] representing the "
                                 "probability of an element being zeroed")
        for name in ("bias", "batch_first"):
            if not isinstance(args[name], bool):
                raise NotModelled(f"{name} not known to be a bool")
        for name in ("input_size", "hidden_size", "num_layers", "proj_size"):
            if not is_dim(args.get(name, 0)):
                raise NotModelled(f"{name}={args[name]!r}")
        for name in ("input_size", "hidden_size", "num_layers"):
            value = known_int(args[name])
            if value is not None and value <= 0:
                raise argument_error(f"{name} must be greater than zero")
        proj = known_int(args.get("proj_size", 0))
        if proj is not None and proj < 0:
            raise argument_error("proj_size should be a positive integer or zero to disable projections")
        hidden = known_int(args["hidden_size"])
        if proj is not None and hidden is not None and proj >= hidden:
            raise argument_error("proj_size has to be smaller than hidden_size")
        flag(args["bidirectional"])
        return dict(args, proj_size=args.get("proj_size", 0))
    return construct


def _check_state(state: Shape, expected: tuple, label: str) -> None:
    if dims_equal(state, expected) is False:
        shown = "(" + ", ".join(map(str, expected)) + ("," if len(expected) == 1 else "") + ")"
        raise layer_error(f"Expected {label} size {shown}, got [{', '.join(map(str, state))}]",
                          "RuntimeError", state, kind="layer")


def _rnn_forward(mode: str):
    name = {"RNN": "RNN", "GRU": "GRU", "LSTM": "LSTM"}[mode]

    def forward(layer, x: Shape, hx=None) -> Result:
        if isinstance(x, Packed):
            return recurrent_packed(layer, x, hx)
        if len(x) not in (2, 3):
            tail = " tensor" if mode == "RNN" else ""
            raise layer_error(f"{name}: Expected input to be 2D or 3D, got {len(x)}D{tail} instead",
                              "ValueError", x)
        batched = len(x) == 3
        batch_first = layer["batch_first"]
        batch_dim = 0 if batch_first else 1
        xb = x if batched else x[:batch_dim] + (1,) + x[batch_dim:]
        states = ()
        if hx is not None:
            states = tuple(hx) if mode == "LSTM" else (hx,)
            if mode == "LSTM" and (len(states) != 2 or not all(isinstance(s, tuple) for s in states)):
                raise NotModelled("an LSTM state that is not a pair of shapes")
            want = 3 if batched else 2
            if any(len(s) != want for s in states):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                if mode == "LSTM":
                    got = ", ".join(f"{len(s)}-D" for s in states)
                    text = f"For {kind} input, hx and cx should also be {want}-D but got ({got}) tensors"
                else:
                    text = f"For {kind} input, hx should also be {want}-D but got {len(states[0])}-D tensor"
                raise layer_error(text, "RuntimeError", x)
            if not batched:
                states = tuple(s[:1] + (1,) + s[1:] for s in states)
        if known_int(layer["input_size"]) is not None and known_int(xb[-1]) is not None and \
                xb[-1] != layer["input_size"]:
            raise layer_error(f"input.size(-1) must be equal to input_size. Expected "
                              f"{layer['input_size']}, got {xb[-1]}", "RuntimeError", x, dim=-1)
        directions = 2 if flag(layer["bidirectional"]) else 1
        hidden, proj = layer["hidden_size"], layer["proj_size"]
        out: Dim = proj if known_int(proj) != 0 else hidden
        if known_int(proj) is None:
            raise NotModelled("a proj_size not known")
        batch = xb[0] if batch_first else xb[1]
        layers = mul(layer["num_layers"], directions)
        h_shape, c_shape = (layers, batch, out), (layers, batch, hidden)
        if states:
            _check_state(states[0], h_shape, "hidden[0]" if mode == "LSTM" else "hidden")
            if mode == "LSTM":
                _check_state(states[1], c_shape, "hidden[1]")
        output = xb[:2] + (mul(directions, out),)
        shapes = [output, h_shape] + ([c_shape] if mode == "LSTM" else [])
        if not batched:
            shapes = [output[:batch_dim] + output[batch_dim + 1:]] + [s[:1] + s[2:] for s in shapes[1:]]
        return Result(tuple(shapes))
    return forward


_SIGNATURE = [("input_size", NOT_GIVEN), ("hidden_size", NOT_GIVEN), ("num_layers", 1)]
_REST = [("bias", True), ("batch_first", False), ("dropout", 0.0), ("bidirectional", False)]
register("RNN", _SIGNATURE + [("nonlinearity", "tanh")] + _REST, _rnn_args("RNN"), _rnn_forward("RNN"))
register("GRU", _SIGNATURE + _REST, _rnn_args("GRU"), _rnn_forward("GRU"))
register("LSTM", _SIGNATURE + _REST + [("proj_size", 0)], _rnn_args("LSTM"), _rnn_forward("LSTM"))

__all__: list[str] = []


# --------------------------------------------------------------------------- the cells


def _cell_args(mode: str):
    def construct(args: dict) -> dict:
        for name in ("input_size", "hidden_size"):
            dim_arg(args[name])
        flag(args["bias"])
        gates = {"RNNCell": 1, "LSTMCell": 4, "GRUCell": 3}[mode]
        _new_tensor((mul(gates, args["hidden_size"]), args["input_size"]))
        return args
    return construct


def _cell_state(x: Shape, state: Shape, hidden, label: str) -> None:
    """ATen's check_rnn_cell_forward_hidden on the batched input and state."""
    if eq(x[0], state[0]) is False:
        raise layer_error(f"Input batch size {x[0]} doesn't match {label} batch size {state[0]}",
                          "RuntimeError", x, state, dim=0)
    if len(state) < 2:
        raise NotModelled("a 1-D state beside a batched input")
    if eq(state[1], hidden) is False:
        raise layer_error(f"{label} has inconsistent hidden_size: got {state[1]}, expected {hidden}",
                          "RuntimeError", x, state, dim=1)


def _cell_forward(mode: str):
    def forward(layer, x: Shape, hx=None) -> Result:
        x = tuple(x)
        if len(x) not in (1, 2):
            raise layer_error(f"{mode}: Expected input to be 1D or 2D, got {len(x)}D instead", "ValueError", x)
        states = ()
        if hx is not None:
            states = tuple(tuple(s) for s in hx) if mode == "LSTMCell" else (tuple(hx),)
            if mode == "LSTMCell" and len(states) != 2:
                raise NotModelled("an LSTMCell state that is not a pair")
            for index, state in enumerate(states):
                if len(state) not in (1, 2):
                    what = f"hx[{index}]" if mode == "LSTMCell" else "hidden"
                    raise layer_error(f"{mode}: Expected {what} to be 1D or 2D, got {len(state)}D instead",
                                      "ValueError", x, state)
        batched = len(x) == 2
        if not batched:
            x = (1,) + x
            states = tuple((1,) + s for s in states)
        if mode == "RNNCell" and layer["nonlinearity"] not in ("tanh", "relu"):
            if not isinstance(layer["nonlinearity"], str):
                raise NotModelled("a nonlinearity not known")
            raise layer_error(f"Unknown nonlinearity: {layer['nonlinearity']}", "RuntimeError", x)
        if eq(x[1], layer["input_size"]) is False:
            raise layer_error(f"input has inconsistent input_size: got {x[1]} expected {layer['input_size']}",
                              "RuntimeError", x, dim=1)
        hidden = layer["hidden_size"]
        for index, state in enumerate(states):
            _cell_state(x, state, hidden, f"hidden{index}")
        if not batched and any(len(s) > 2 for s in states):
            raise NotModelled("a 2-D state beside an unbatched input (it broadcasts into the output)")
        out = (x[0], hidden) if batched else (hidden,)
        return Result((out, out) if mode == "LSTMCell" else (out,))
    return forward


_CELL_SIGNATURE = [("input_size", NOT_GIVEN), ("hidden_size", NOT_GIVEN), ("bias", True)]
register("RNNCell", _CELL_SIGNATURE + [("nonlinearity", "tanh")], _cell_args("RNNCell"),
         _cell_forward("RNNCell"))
register("LSTMCell", _CELL_SIGNATURE, _cell_args("LSTMCell"), _cell_forward("LSTMCell"))
register("GRUCell", _CELL_SIGNATURE, _cell_args("GRUCell"), _cell_forward("GRUCell"))
