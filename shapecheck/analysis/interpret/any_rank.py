"""Calls on arrays whose rank nobody knows: the rank the op gives for every input it takes.

``x.flatten()`` is 1-D, ``x.sum()`` 0-d, ``torch.where(mask)`` a tuple of 1-D pieces and
``torch.cat((w, one))`` has the rank of ``one``, whatever x, mask and w are. The runtime asks
the op's own rule at every rank (runtime/rank_free.py); this mixin finds the operands of
unknown rank in a call, converts the others, and turns the answer into a value.
"""

from __future__ import annotations

from ...runtime.arguments import ArrayArg
from ...runtime.dialects import Dialect
from ...runtime.optable import result_dtypes, returns_tuple
from ...runtime.rank_free import REFUSED, Pieces, place, rank_free_result
from ...runtime.verdicts import Result
from ..values import AbstractArray, Iterable, TupleValue, Value
from .list_reads import once_per_process
from .names import UNMODELED_KWARGS
from .opcalls import with_dtypes
from .operands import FAIL, to_arg

_PROBED: dict = {}
"""Probe answers per process: one op called alike (``x.sum()``, ``np.asarray(a).ravel()``) is
probed once, not at every call (numpy's own sources are full of them)."""


def _key(name: str, dialect: Dialect, args: tuple, kwargs: dict, slots: list,
         inputs: list) -> tuple | None:
    """A hashable key for a probe, or None when an argument has none."""
    key = (name, dialect.name, _frozen(args), _frozen(sorted(kwargs.items())), tuple(slots),
           tuple(inputs))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _frozen(value):
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    return value


class AnyRank:
    def rank_free(self, names: list[str], dialects: list[Dialect], args: tuple, kwargs: dict,
                  slots: list, arrays: list[AbstractArray]) -> Result | None:
        """The op's result whatever the ranks of ``arrays`` (in ``slots`` of the call, whose
        other arguments are converted): ``x.flatten()`` is 1-D, ``x.sum()`` 0-d. With a
        library that is a guess, every candidate's rule must agree. None when they say
        nothing."""
        found = set()
        for name, dialect in zip(names, dialects):
            spec = self.lookup(name, dialect)
            if spec is None:
                return None
            inputs = [(a.dtype, self.contents_of(a) if spec.sized_by_values else None)
                      for a in arrays]

            def probe(spec=spec, dialect=dialect, inputs=inputs):
                return rank_free_result(lambda *a, **k: spec.rule(*a, dialect=dialect, **k),
                                        lambda *probes: place(args, kwargs, slots, probes),
                                        inputs)

            key = None if spec.sized_by_values else _key(name, dialect, args, kwargs, slots,
                                                         inputs)
            found.add(probe() if key is None else once_per_process(_PROBED, key, probe, 16384))
        found.discard(REFUSED)  # a library whose op takes no such call is not the array's
        return found.pop() if len(found) == 1 else None

    def method_of_any_rank(self, node, array: AbstractArray, name: str, libraries: tuple,
                           args: tuple, kwargs: dict, dtype: str | None) -> Value | None:
        """``x.flatten()``, ``x.sum()``, ``x.nonzero()`` of an x whose rank nobody knows:
        the rank the op gives for every input it accepts."""
        if FAIL in args or FAIL in kwargs.values():
            return None
        dialects = [self.dialect_for(lib) for lib in libraries]
        result = self.rank_free([name] * len(dialects), dialects, (None,) + args, kwargs, [0],
                                [array])
        if result is None:
            return None
        return self.probed_value(node, result, self.lookup(name, dialects[0]), dialects[0],
                                 (ArrayArg((), array.dtype),) + args, kwargs, array, dtype,
                                 array.library)

    def probed_value(self, node, result: Result | Pieces, spec, dialect: Dialect, args: tuple,
                     kwargs: dict, array: AbstractArray, dtype: str | None,
                     library: str) -> Value:
        """The value of a call whose rank-free result ``result`` came from probing ``array``;
        ``args`` and ``kwargs`` hold a 0-d stand-in for it, for the op's dtype rule."""
        dtypes = result_dtypes(spec, args, kwargs, dialect)
        if isinstance(result, Pieces):
            piece = AbstractArray(result.shape, dtype, library, self.origin(node))
            return Iterable(with_dtypes(piece, dtypes))
        out = self.array_result(result, array, node, dtype=dtype, library=library)
        if returns_tuple(spec, result) and isinstance(out, AbstractArray):
            out = TupleValue((out,))
        return with_dtypes(out, dtypes)

    def function_of_any_rank(self, node, spec_name: str, dialect: Dialect, args: list,
                             kwargs: dict, arrays: list, dtype: str | None,
                             library: str) -> Value | None:
        """``torch.flatten(x)``, ``torch.nonzero(mask)``, ``F.l1_loss(a, b, reduction="sum")``
        of arrays whose rank nobody knows (one, or two), the other operands known: the rank the
        op gives for every input it accepts."""
        unknown = [v for v in arrays if v.shape is None]
        if len(unknown) > 2 or set(kwargs) & UNMODELED_KWARGS or \
                any(v.maybe_not_array for v in unknown):
            # np.broadcast_to(vec, shape) of a parameter nothing describes: shape may be a
            # tuple as well as an array, and a tuple is no array of any rank.
            return None
        spec = self.lookup(spec_name, dialect)
        joined = spec.takes_sequence and args and isinstance(args[0], TupleValue)
        slots = [i for i, v in enumerate(args) if any(v is u for u in unknown)] + \
            [k for k, v in kwargs.items() if any(v is u for u in unknown)] + \
            ([(0, j) for j, v in enumerate(args[0].items) if any(v is u for u in unknown)]
             if joined else [])
        if len(slots) != len(unknown):
            return None  # one array in two places
        placed = [args[s[0]].items[s[1]] if isinstance(s, tuple) else
                  args[s] if isinstance(s, int) else kwargs[s] for s in slots]
        conv_args = tuple(None if i in slots else to_arg(v, spec.takes_sequence)
                          for i, v in enumerate(args))
        if joined:  # torch.cat((w, one)): the known items as they are, the others probed
            items = [None if (0, j) in slots else to_arg(v) for j, v in enumerate(args[0].items)]
            conv_args = ((items if args[0].is_list else tuple(items)),) + conv_args[1:]
        conv_kwargs = {k: None if k in slots else to_arg(v) for k, v in kwargs.items()}
        if FAIL in conv_args or FAIL in conv_kwargs.values() or \
                joined and FAIL in conv_args[0]:
            return None
        result = self.rank_free([spec_name], [dialect], conv_args, conv_kwargs, slots, placed)
        if result is None:
            return None
        stand_ins = [ArrayArg((), a.dtype) for a in placed]
        probe_args, probe_kwargs = place(conv_args, conv_kwargs, slots, stand_ins)
        return self.probed_value(node, result, spec, dialect, probe_args, probe_kwargs,
                                 placed[0], dtype, library)
