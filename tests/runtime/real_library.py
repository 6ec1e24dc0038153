"""Runs one engine step's op on the real NumPy or torch, for the engine tests to compare with."""

from __future__ import annotations

import operator

import numpy as np
import pytest


def class_names(exc: BaseException) -> set[str]:
    """The exception's class and its bases by name (NumPy's AxisError is also a ValueError)."""
    return {cls.__name__ for cls in type(exc).__mro__}


def call_real(op: str, args: tuple, kwargs: dict):
    """``np.add`` / ``torch.add`` by name, a method by name, or Python's operator protocol."""
    if op.startswith(("np.", "torch.")):
        target = np if op.startswith("np.") else pytest.importorskip("torch")
        for part in op.split(".")[1:]:
            target = getattr(target, part)
        return target(*args, **kwargs)
    obj, rest = args[0], args[1:]
    if op == "__setitem__":
        obj[rest[0]] = rest[1]
        return obj
    if op.startswith("__") and hasattr(operator, op):
        return getattr(operator, op)(*args)  # Python's own protocol: reflection, +=
    attr = getattr(obj, op)
    return attr(*rest, **kwargs) if callable(attr) else attr
