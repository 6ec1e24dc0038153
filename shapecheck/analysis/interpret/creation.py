"""Arrays made by creation functions (zeros, arange, array literals, random): the runtime's
creation rule (runtime/creation.py) on the call's arguments."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...runtime import creation as rt_creation
from ...runtime.verdicts import ShapeError
from ..values import (
    UNKNOWN_VALUE,
    AbstractArray,
    ConstValue,
    DtypeValue,
    FloatValue,
    ModuleRef,
    TupleValue,
    Value,
    vague,
)
from .context import Step
from .operands import FAIL, array_arg, dtype_from, to_arg


def _creation_arg(value: Value, library: str, shaped: bool = False) -> Any:
    """An argument as the creation rule reads it: arrays are ARRAY (with their shapes when
    ``shaped``: a sampler's parameters broadcast), dtypes their names."""
    if vague(value) or value is UNKNOWN_VALUE:
        # A value nobody knows (``embed_dims[-1]`` of a parameter): an int where a size goes,
        # or the library's TypeError; data of unknown shape elsewhere.
        return rt_creation.ANYTHING
    if isinstance(value, AbstractArray):
        return array_arg(value) if shaped and value.shape is not None else rt_creation.ARRAY
    if isinstance(value, FloatValue):
        return rt_creation.UNREADABLE  # arange(0, math.pi): its length needs the value
    if isinstance(value, (DtypeValue, ModuleRef)):
        return dtype_from(value, library) or rt_creation.UNREADABLE
    if isinstance(value, TupleValue) and not any(
            isinstance(v, AbstractArray) and not vague(v) for v in value.items):
        items = [_creation_arg(v, library) for v in value.items]
        return list(items) if value.is_list else tuple(items)
    converted = to_arg(value)
    return rt_creation.UNREADABLE if converted is FAIL else converted


class Creation:
    def create(self, node, library: str, name: str, args: list, kwargs: dict,
               generator: bool = False) -> Value | None:
        """Arrays made by creation functions: shape from size arguments or literal nesting."""
        shaped = generator or name.startswith("random.")
        keywords = {k: _creation_arg(v, library, shaped) for k, v in kwargs.items()}
        unknown_dtype = library == "torch" and \
            keywords.get("dtype") in (rt_creation.ANYTHING, rt_creation.UNREADABLE)
        if unknown_dtype:
            # torch.zeros(dim, dtype=dtype) or torch.tensor(0., dtype=dtype) with a dtype nobody
            # knows: torch's dtypes are all scalar, so the shape does not depend on it. Not in
            # NumPy, whose object and structured dtypes change what the array holds (the shape
            # of np.array(data, dtype) too) and how an assignment into it reads.
            del keywords["dtype"]
        try:
            created = rt_creation.creation(
                library, name, tuple(_creation_arg(a, library, shaped) for a in args),
                keywords, generator=generator)
        except ShapeError as err:  # a zero step, a negative count: the library refuses it
            label = f"{'np' if library == 'numpy' else 'torch'}.{name}"
            if self.trace is not None:
                self.trace.append(Step(self.text(node, 80), label, (), err))
            self.report_error(err, node, [], label, self.dialect_for(library), None)
            return AbstractArray(None, None, library, self.origin(node))
        if created is None:
            return None
        if unknown_dtype and created is not rt_creation.SCALAR:
            created = replace(created, dtype=None)
        if created is rt_creation.SCALAR:
            return UNKNOWN_VALUE
        origin = self.origin(node)
        grad = kwargs.get("requires_grad") == ConstValue(True)
        if created.like is not None:
            source = args[created.like] if args else kwargs.get("input", kwargs.get("a"))
            if not isinstance(source, AbstractArray):
                # torch.as_tensor(scales) of a list nobody describes: an array, of unknown shape.
                return AbstractArray(None, None if unknown_dtype else created.dtype, library,
                                     origin, requires_grad=grad) if source is UNKNOWN_VALUE else None
            dtype = None if unknown_dtype else created.dtype or source.dtype
            if name.endswith("_like"):
                return AbstractArray(source.shape, dtype, library, origin,
                                     tail=source.tail, requires_grad=grad)
            return replace(source, library=library, origin=origin,
                           dtype=dtype, alias=None, requires_grad=grad)
        return AbstractArray(created.shape, created.dtype, library, origin, requires_grad=grad)
