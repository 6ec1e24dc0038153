"""What an op returns whatever the rank of one (or two) of its inputs.

``x.flatten()`` is 1-D, ``x.sum()`` is 0-d and ``x.nonzero()`` is 2-D for every x, and
``x.repeat(2, 3)`` is 2-D for every x it accepts. The rule of such an op says so itself: run
at every rank up to ``MAX_PROBE_RANK`` on an input of fresh sizes, it gives outputs of one
rank (or refuses the input). Two inputs are run at every pair of ranks. A dim that is the same in every run and owes nothing to the
input's sizes (the 3 of ``x.new_zeros(...)``-like sizes, a mask's count) is kept; a dim made
of the input's sizes is unknown.

A run that ends in anything but the library's own refusal, or that the rule answers with a
warning (an assumption about a size that may be 1), says nothing: the op's rank is then
left unknown.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .arguments import ArrayArg
from .dims import UNKNOWN, Dim, Sym
from .verdicts import Result, ShapeError

MAX_PROBE_RANK = 5

_MARK = "rank·"  # no identifier: the probe's sizes never read as a name the code gave


class _Refused:
    def __repr__(self) -> str:
        return "REFUSED"


REFUSED = _Refused()
"""The rule refused the input at every rank: with two candidate libraries, not this one's op."""


def _probe_shape(rank: int, which: int) -> tuple:
    return tuple(Sym.atom(f"{_MARK}{which}.{rank}.{axis}") for axis in range(rank))


def _mentions_probe(dim: Dim) -> bool:
    return isinstance(dim, Sym) and any(_MARK in atom for mono, _ in dim.terms for atom in mono)


def rank_free_result(rule: Callable[..., Result], probe_into: Callable[..., tuple],
                     inputs: list[tuple[str | None, str | None]]) -> Any:
    """The outputs ``rule`` gives whatever the ranks of the probed inputs (a Result), or None
    when they differ; Pieces when only their count follows the rank; REFUSED when no rank is
    taken. Every combination of ranks is run: up to 5 for one input, up to 4 each for two
    (``F.smooth_l1_loss(a, b, reduction="sum")`` is 0-d for all of them); more inputs are not
    probed.

    ``inputs`` are the (dtype, contents) of the inputs whose rank is unknown;
    ``probe_into(*arrays)`` returns ``(args, kwargs)`` for one call with the arrays in their
    slots, and ``rule`` is called as ``rule(*args, **kwargs)``.
    """
    if not inputs or len(inputs) > 2:
        return None
    top = MAX_PROBE_RANK if len(inputs) == 1 else MAX_PROBE_RANK - 1
    results = []
    for ranks in itertools.product(range(top + 1), repeat=len(inputs)):
        arrays = [ArrayArg(_probe_shape(rank, which), dtype, None, contents)
                  for which, (rank, (dtype, contents)) in enumerate(zip(ranks, inputs))]
        args, kwargs = probe_into(*arrays)
        try:
            result = rule(*args, **kwargs)
        except ShapeError:
            continue  # the library refuses these ranks: the code's inputs are not of them
        except Exception:
            return None
        if not isinstance(result, Result) or result.warnings:
            return None
        results.append(result)
    if not results:
        return REFUSED
    first = results[0]
    if any(len(r.outputs) != len(first.outputs) for r in results):
        return _pieces(results)
    if any(r.as_tuple != first.as_tuple or any(len(a) != len(b) for a, b in
                                               zip(r.outputs, first.outputs)) for r in results):
        return None
    outputs = tuple(_common([r.outputs[i] for r in results]) for i in range(len(first.outputs)))
    return Result(outputs, (), first.as_tuple)


@dataclass(frozen=True)
class Pieces:
    """A tuple of arrays of one shape, as many as the input has dims (``torch.where(mask)``,
    ``np.nonzero(x)``): its count is unknown, each piece's shape is not."""

    shape: tuple


def _pieces(results: list[Result]) -> Pieces | None:
    shapes = [shape for r in results for shape in r.outputs]
    if not shapes or any(not r.as_tuple and len(r.outputs) == 1 for r in results) or \
            len({len(shape) for shape in shapes}) != 1:
        return None
    return Pieces(_common(shapes))


def _common(shapes: list[tuple]) -> tuple:
    """The dims every shape has alike and that owe nothing to the probe's sizes."""
    first = shapes[0]
    return tuple(UNKNOWN if _mentions_probe(dim) or any(s[axis] != dim for s in shapes) else dim
                 for axis, dim in enumerate(first))


def place(args: tuple, kwargs: dict, slots: list, values: tuple) -> tuple[tuple, dict]:
    """``args`` and ``kwargs`` with each of ``values`` in its slot: a position, a keyword, or
    (position, index) for an item of a sequence argument (``torch.cat((w, one))``)."""
    args, kwargs = list(args), dict(kwargs)
    for slot, value in zip(slots, values):
        if isinstance(slot, tuple):
            at, index = slot
            items = list(args[at])
            items[index] = value
            args[at] = type(args[at])(items)
        elif isinstance(slot, int):
            args[slot] = value
        else:
            kwargs[slot] = value
    return tuple(args), kwargs


__all__ = ["MAX_PROBE_RANK", "REFUSED", "Pieces", "place", "rank_free_result"]
