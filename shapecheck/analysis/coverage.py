"""Shape coverage: how much the analyzer knew about the array-valued expressions of one file.

Like mypy's precision report, it shows where the analysis goes blind. An
expression counts when the interpreter computed its value as an
``AbstractArray``; it is *rank-known* when its number of dims is known, and
*fully known* when every dim is an int or a symbolic ``Dim`` expression
(``B``, ``4*C``, ``C//H``); one unknown dim leaves it only rank-known.

A value computed only from parameters nothing is known of is not counted:
the analyzer keeps it as an array of unknown rank for its aliasing facts, but
it may as well be an int, a str or a config object.

An expression read before the code said its array's rank (``identity = x`` above the
conv that takes x as (N, C, H, W)) holds that same array: it counts with what the code
said of it later in the same body.

Each source expression counts once per file, however often it was evaluated
(loop bodies walked to a fixed point, a function specialized at several call
sites, then analyzed on its own), with the best knowledge any of those
evaluations reached. Findings are checked at every evaluation, so an
expression that any evaluation knew is one whose shape a rule could check;
counting the worst evaluation would call a helper blind because its
standalone walk, with parameters nobody described, knows nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ..runtime.dims import UnknownDim
from .values import AbstractArray

RANK_UNKNOWN, RANK_KNOWN, FULLY_KNOWN = 0, 1, 2


@dataclass(frozen=True)
class FileCoverage:
    """Counts for one file (or a sum of files): array-valued expressions and how well their shapes are known."""

    arrays: int = 0
    rank_known: int = 0
    fully_known: int = 0

    def __add__(self, other: FileCoverage) -> FileCoverage:
        return FileCoverage(self.arrays + other.arrays, self.rank_known + other.rank_known,
                            self.fully_known + other.fully_known)

    def share(self, count: int) -> float | None:
        """``count`` as a fraction of the arrays, None when there are none."""
        return count / self.arrays if self.arrays else None

    def to_json(self) -> dict:
        return {"arrays": self.arrays, "rank_known": self.rank_known, "fully_known": self.fully_known}


def knowledge(value: AbstractArray) -> int:
    """RANK_UNKNOWN, RANK_KNOWN or FULLY_KNOWN for one array value."""
    if value.shape is None:
        return RANK_UNKNOWN
    if any(isinstance(d, UnknownDim) for d in value.shape):
        return RANK_KNOWN
    return FULLY_KNOWN


class CoverageRecorder:
    """The best knowledge reached for each expression node of one module.

    Nodes are the keys themselves (libcst nodes hash by identity), which keeps
    them alive, so one id can never stand for two nodes.
    """

    __slots__ = ("best", "pending", "refined", "foreign", "positions")

    def __init__(self) -> None:
        self.best: dict[Any, int] = {}
        self.pending: dict[Any, set[int]] = {}  # node -> storages it held at unknown rank
        self.refined: dict[int, int] = {}  # storage -> the knowledge the code later gave it
        # path -> (recorder, positions) for the expressions of other files the analysis ran
        self.foreign: dict[str, tuple[CoverageRecorder, Any]] = {}
        self.positions: Any = None  # the analyzed file's node positions, set by its analysis

    def attach(self, interpreter: Any) -> None:
        """Called once with the interpreter about to walk the module; a subclass that
        reports what the walk saw (analysis/reveal.py) keeps it."""

    def bind(self, target: Any, value: Any) -> None:
        """A name (or ``self.attr``) was bound to ``value``; coverage counts expressions only."""

    def record_other(self, node: Any, value: Any) -> None:
        """The interpreter computed a value that is no array (an int, a tuple, unknown) for
        ``node``; coverage counts arrays only."""

    def record(self, node: Any, value: AbstractArray) -> None:
        if value.maybe_not_array:
            # A parameter nothing is known of (or computed only from such): it may be an int,
            # a str or a config as well as an array, so it is not counted as an array.
            return
        level = knowledge(value)
        if level > self.best.get(node, -1):
            self.best[node] = level
        alias = value.alias
        if level == RANK_UNKNOWN and alias is not None and alias.view == "base" and \
                alias.storage is not None:
            self.pending.setdefault(node, set()).add(alias.storage.id)

    def refine(self, storage: int, value: AbstractArray) -> None:
        """The code said the rank of the array in ``storage`` (a layer took it, an unpack)."""
        self.refined[storage] = max(self.refined.get(storage, RANK_UNKNOWN), knowledge(value))

    def levels(self) -> dict[Any, int]:
        """Each node's best knowledge, an earlier read of a refined array included."""
        levels = dict(self.best)
        for node, storages in self.pending.items():
            later = max((self.refined.get(s, RANK_UNKNOWN) for s in storages), default=RANK_UNKNOWN)
            if later > levels[node]:
                levels[node] = later
        return levels

    def summary(self) -> FileCoverage:
        return summarize(self.levels().values())

    def of_file(self, path: str, positions: Any) -> CoverageRecorder:
        """The recorder of another file's expressions (a function of an imported file the
        analysis called with its own arguments); ``positions`` maps that file's nodes to
        their places in it."""
        found = self.foreign.get(path)
        if found is None:
            found = self.foreign[path] = (CoverageRecorder(), positions)
        return found[0]

    def by_place(self) -> dict[str, dict[tuple, int]]:
        """Each expression's best knowledge, keyed by file ("" for the analyzed one) and place
        in it, the other files' the analysis ran included: the form in which the analyses of
        several files are merged (lint/runner.py)."""
        places = {"": _placed(self.levels(), self.positions)}
        for path, (recorder, file_positions) in self.foreign.items():
            places[path] = _placed(recorder.levels(), file_positions)
        return places


def _placed(levels: dict[Any, int], positions: Any) -> dict[tuple, int]:
    placed: dict[tuple, int] = {}
    for node, level in levels.items():
        try:
            where = positions[node]
        except KeyError:
            continue
        key = (where.start.line, where.start.column, where.end.line, where.end.column)
        placed[key] = max(placed.get(key, RANK_UNKNOWN), level)
    return placed


def summarize(levels: Iterable[int]) -> FileCoverage:
    """The counts of expressions whose best knowledge is each of ``levels``."""
    levels = list(levels)
    return FileCoverage(arrays=len(levels),
                        rank_known=sum(1 for level in levels if level >= RANK_KNOWN),
                        fully_known=sum(1 for level in levels if level == FULLY_KNOWN))


__all__ = ["FULLY_KNOWN", "RANK_KNOWN", "RANK_UNKNOWN", "CoverageRecorder", "FileCoverage", "knowledge",
           "summarize"]
