"""``--check-torch``: replays the interpreter's op calls on real torch tensors and compares verdicts.

The interpreter decides which ops run on which operands; this only performs
each recorded call with torch (imported here, only when asked), as one
program: a named input is one tensor, and an operand that an earlier call
made is that call's real output (a view keeps its strides), so a layout
reaches the call that depends on it.
"""

from __future__ import annotations

import math
from typing import Any

from shapecheck.runtime import ops
from shapecheck.runtime.dialects import Dialect
from shapecheck.runtime.dims import fits, shape_is_concrete
from shapecheck.runtime.verdicts import ShapeError

from .outcome import Confirmation

TORCH_NUMEL_LIMIT = 10**6
"""Larger operands are not allocated; the check is skipped for them."""


class _Skip(Exception):
    pass


def _tensor(torch: Any, arg: ops.ArrayArg) -> Any:
    if not shape_is_concrete(arg.shape):
        raise _Skip("symbolic shapes")
    if math.prod(arg.shape) > TORCH_NUMEL_LIMIT:
        raise _Skip("arrays too large to allocate")
    dtype = getattr(torch, arg.dtype or "float32", None)
    if dtype is None:
        raise _Skip(f"dtype {arg.dtype}")
    generator = torch.Generator().manual_seed(0)
    if dtype == torch.bool:
        return torch.randint(0, 2, arg.shape, generator=generator).bool()
    if not (dtype.is_floating_point or dtype.is_complex):
        return torch.randint(0, 5, arg.shape, generator=generator).to(dtype)
    # Random values keep linalg ops away from singular matrices (values are not the point).
    return torch.randn(arg.shape, generator=generator).to(dtype)


def _convert(torch: Any, value: Any, source: tuple | None = None,
             made: dict | None = None) -> Any:
    """An argument as torch takes it; an array operand is the tensor its source made, when the
    recording knows it (``made`` holds inputs by name and call outputs by index)."""
    if isinstance(value, ops.ArrayArg):
        if source is not None and made is not None and source in made:
            return made[source]
        tensor = _tensor(torch, value)
        if source is not None and made is not None and source[0] == "input":
            made[source] = tensor
        return tensor
    if isinstance(value, tuple):
        return tuple(_convert(torch, v) for v in value)
    if isinstance(value, list):
        return [_convert(torch, v) for v in value]
    return value


def _arguments(torch: Any, call: Any, made: dict) -> tuple[tuple, dict]:
    """The call's arguments on torch; top-level arrays come from their recorded sources."""
    position = iter(range(len(call.args) + len(call.kwargs)))

    def top(value: Any) -> Any:
        if isinstance(value, ops.ArrayArg):
            return _convert(torch, value, call.sources.get(next(position)), made)
        return _convert(torch, value)

    return tuple(top(a) for a in call.args), {k: top(v) for k, v in call.kwargs.items()}


def _call(torch: Any, name: str, args: tuple, kwargs: dict) -> Any:
    if name.startswith("torch."):
        target: Any = torch
        for part in name.split(".")[1:]:
            target = getattr(target, part)
        return target(*args, **kwargs)
    if name == "__setitem__":
        tensor, key, value = args
        tensor[key] = value
        return tensor
    attribute = getattr(args[0], name)
    return attribute(*args[1:], **kwargs) if callable(attribute) else attribute


def _layer(torch: Any, binding: Any) -> Any:
    """The real ``torch.nn`` module a --layer names, built from its literal arguments."""
    try:
        return getattr(torch.nn, binding.kind)(*binding.args, **dict(binding.kwargs))
    except Exception as exc:  # a constructor the runtime accepted and torch does not
        raise _Skip(f"torch refuses {binding.text}: {str(exc).splitlines()[0]}") from None


def _shape_of(torch: Any, value: Any) -> tuple | None:
    if isinstance(value, torch.Tensor):
        return tuple(value.shape)
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], torch.Tensor):
        return tuple(value[0].shape)
    return None


def confirm_on_torch(trace: list, calls: list, dialect: Dialect,
                     created: set[int] = frozenset()) -> Confirmation:
    """Run each recorded call on torch; "confirmed" when shapes and error messages agree.
    A created array (trace index in ``created``) is made fresh, as a named input is."""
    if dialect.name != "torch":
        return Confirmation("torch", "skipped", f"{dialect.name} is not today's torch")
    try:
        import torch
    except ImportError:
        return Confirmation("torch", "skipped", "torch is not installed")
    import warnings

    recorded = {call.trace_index: (number, call) for number, call in enumerate(calls)}
    made: dict = {}  # ("input", name) or ("call", k) -> the tensor it is
    sizes: dict[str, int] = {}  # what each size the values decide came to on torch
    for index, step in enumerate(trace):
        if index in created:
            continue
        if index not in recorded:
            return Confirmation("torch", "skipped", f"no op call recorded for {step.text}")
        number, call = recorded[index]
        try:
            args, kwargs = _arguments(torch, call, made)
            module = _layer(torch, call.layer) if call.layer is not None else None
        except _Skip as why:
            return Confirmation("torch", "skipped", str(why))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if module is not None:
                    value = module(*args)
                else:
                    value = _call(torch, call.name, args, kwargs)
        except Exception as exc:  # torch's own refusal, whatever its class
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if isinstance(step.outcome, ShapeError):
                ours = step.outcome.message.strip().splitlines()
                if ours and message.strip() == ours[0].strip():  # torch's first line
                    return Confirmation("torch", "confirmed", "same error")
                return Confirmation("torch", "disagrees", f"{step.text}: torch said {message!r}")
            if not all(shape_is_concrete(s) for s in step.operand_shapes):
                # The values decide the sizes: these values made torch refuse, others may not.
                return Confirmation("torch", "values-decide", f"{step.text}: {message}")
            return Confirmation("torch", "disagrees", f"{step.text}: torch raised {message!r}")
        made[("call", number)] = value
        if isinstance(step.outcome, ShapeError):
            return Confirmation("torch", "disagrees",
                                f"{step.text}: torch gave {_shape_of(torch, value)}, no error")
        expected = tuple(step.outcome.shape) if step.outcome.outputs else None
        got = _shape_of(torch, value)
        # A size the values decide (nnz(m)) is what torch made of it, the same at every use.
        if expected is not None and (got is None or not fits(expected, got, sizes)):
            return Confirmation("torch", "disagrees", f"{step.text}: torch gave {got}")
    return Confirmation("torch", "confirmed")
