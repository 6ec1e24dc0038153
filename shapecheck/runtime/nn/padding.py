"""F.pad in every mode, and the padding layers (ZeroPad, ConstantPad, ReflectionPad,
ReplicationPad, CircularPad 1-3d) that call it.

Amounts come in (left, right) pairs from the last dim backwards. Constant
padding takes any number of pairs and crops with negative amounts; the other
modes pad the last 1, 2 or 3 dims of a batched or unbatched input, and each
has its own limit (reflect: less than the size; circular: at most the size); they crop
with negative amounts too, though reflect and replicate not to nothing.
"""

from __future__ import annotations

from ..dims import Shape, Sym, UnknownDim, add, lt
from ..verdicts import Result
from .base import (
    FUNCTIONAL,
    NOT_GIVEN,
    NotModelled,
    known_int,
    layer_error,
    less,
    register,
    torch_size,
)

_MODES = ("constant", "reflect", "replicate", "circular")


def _constant(x: Shape, amounts: tuple) -> Result:
    out = list(x)
    for i in range(len(amounts) // 2):
        left, right = amounts[2 * i], amounts[2 * i + 1]
        size = out[-1 - i]
        # A symbolic amount is a size (swin's padding to a multiple of the window): no crop.
        # An amount nobody knows pads (or crops) its dim to a size nobody knows.
        crop = sum(min(p, 0) for p in (left, right) if isinstance(p, int))
        cropped = lt(add(size, crop), 0)
        if cropped is True:
            raise layer_error("narrow(): length must be non-negative.", "RuntimeError", x)
        if cropped is None:
            raise NotModelled("a crop that may leave a negative size")
        out[-1 - i] = add(size, add(left, right))
    return Result.of(tuple(out))


def pad(x: Shape, pad, mode="constant", value=None) -> Result:
    """F.pad(x, pad, mode, value), with ATen's checks in ATen's order."""
    x = tuple(x)
    if not isinstance(pad, (tuple, list)) or not all(
            known_int(p) is not None or isinstance(p, (Sym, UnknownDim)) for p in pad):
        raise NotModelled("padding amounts this rule does not read")
    if mode != "constant" and any(isinstance(p, (Sym, UnknownDim)) for p in pad):
        raise NotModelled("a symbolic amount of a mode that checks it against the size")
    if not isinstance(mode, str):
        raise NotModelled("a padding mode not known")
    if mode not in _MODES:
        raise layer_error(f"Unrecognised padding mode {mode}", "NotImplementedError", x)
    amounts = tuple(pad)
    if len(amounts) % 2:
        raise layer_error("Padding length must be divisible by 2", "RuntimeError", x)
    if len(amounts) > 2 * len(x):
        raise layer_error(f"Padding length should be less than or equal to two times the input "
                          f"dimension but got padding length {len(amounts)} and input of dimension "
                          f"{len(x)}", "RuntimeError", x)
    if mode == "constant":
        return _constant(x, amounts)
    if value is not None:
        if not isinstance(value, (int, float)):
            raise NotModelled("a fill value not known")
        if value != 0:
            raise layer_error(f'Padding mode "{mode}" doesn\'t take in value argument', "RuntimeError", x)
    n = len(amounts) // 2
    if n not in (1, 2, 3) or len(x) not in (n + 1, n + 2):
        raise layer_error(
            f"Padding size {len(amounts)} is not supported for {len(x)}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)", "NotImplementedError", x)
    pairs = [(amounts[2 * i], amounts[2 * i + 1]) for i in range(n)]  # last dim first
    if mode in ("reflect", "replicate"):
        must_fill = x[1:] if len(x) == n + 2 else x
        empty = [known_int(d) == 0 for d in must_fill]
        if any(empty):
            raise layer_error(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch "
                              f"size and other non-zero dimensions for input, but got: {torch_size(x)}",
                              "RuntimeError", x)
    # A symbolic size may break these limits; only a certain break is an error.
    for i, (left, right) in enumerate(pairs):
        axis = len(x) - 1 - i
        size = x[axis]
        if mode == "reflect":
            fits = [less(p, size) for p in (left, right)]
            if False in fits:
                raise layer_error(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                                  f"corresponding input dimension, but got: padding ({left}, {right}) "
                                  f"at dimension {axis} of input {torch_size(x)}", "RuntimeError", x)
        elif mode == "circular":
            fits = [less(size, p) for p in (left, right)]
            if True in fits:
                raise layer_error("Padding value causes wrapping around more than once.",
                                  "RuntimeError", x)
    out = list(x)
    for i, (left, right) in enumerate(pairs):
        out[-1 - i] = add(out[-1 - i], left + right)
    if any(p < 0 for p in amounts):
        _check_crop(x, pairs, out, mode)
    return Result.of(tuple(out))


def _check_crop(x: Shape, pairs: list, out: list, mode: str) -> None:
    """Negative amounts crop. Reflect and replicate refuse to crop 1-d padding to nothing, and
    2-d or 3-d padding only when every padded dim goes; circular padding may crop to nothing.
    Crops past that (negative sizes, or circular crops deeper than the dim) are left unknown."""
    padded = [out[-1 - i] for i in range(len(pairs))]
    sizes = [x[-1 - i] for i in range(len(pairs))]
    if not all(isinstance(d, int) for d in padded + sizes):
        raise NotModelled("a crop of sizes nobody knows")
    kept = [size + min(left, 0) + min(right, 0) for (left, right), size in zip(pairs, sizes)]
    if any(d < 0 for d in padded) or (mode == "circular" and any(
            d < 0 or max(left, right) > d for (left, right), d in zip(pairs, kept))):
        # Past the dim, or circular padding wrapping the cropped dim more than once.
        raise NotModelled("a crop past the dim (each kernel words it its own way)")
    if mode != "circular" and all(d < 1 for d in padded):
        raise layer_error(f"input (W: {sizes[0]}) is too small. Calculated output W: "
                          f"{padded[0]}", "RuntimeError", x)


# --------------------------------------------------------------------------- the nn classes


def _amounts(n: int):
    def construct(args: dict) -> dict:
        value = args["padding"]
        if isinstance(value, (tuple, list)):
            if not all(known_int(v) is not None for v in value):
                raise NotModelled("padding amounts not known")
            return dict(args, padding=tuple(value))
        if known_int(value) is None:
            raise NotModelled("padding not known")
        return dict(args, padding=(value,) * (2 * n))
    return construct


def _pad_forward(mode: str, n: int):
    def forward(layer, x: Shape) -> Result:
        if mode == "circular" and len(x) not in (n + 1, n + 2):
            raise layer_error(f"expected {n + 1}D or {n + 2}D input (got {len(x)}D input)",
                              "ValueError", x)
        return pad(x, layer["padding"], mode, layer["value"] if mode == "constant" else None)
    return forward


for _n in (1, 2, 3):
    for _prefix, _mode in (("Reflection", "reflect"), ("Replication", "replicate"),
                           ("Circular", "circular"), ("Zero", "constant")):
        register(f"{_prefix}Pad{_n}d", [("padding", NOT_GIVEN)],
                 lambda a, n=_n: dict(_amounts(n)(a), value=0.0), _pad_forward(_mode, _n))
    register(f"ConstantPad{_n}d", [("padding", NOT_GIVEN), ("value", NOT_GIVEN)], _amounts(_n),
             _pad_forward("constant", _n))

FUNCTIONAL["pad"] = pad

__all__ = ["pad"]
