"""The shared harness of the torch.nn conformance tests: run torch, run the rules, compare.

A verdict is ("ok", output shapes, warnings), (exception class, message), or
("unknown",) when the rules do not model the case. Unknown is allowed (never
a false error) but counted, so the agreement per family is visible with -s.
"""

from __future__ import annotations

import os
import re
import warnings

import pytest
from hypothesis import HealthCheck, settings

from shapecheck.runtime.nn import build
from shapecheck.runtime.verdicts import ShapeError

torch = pytest.importorskip("torch")
nn = torch.nn

# SHAPECHECK_SLOW=1 multiplies every family's examples for a bigger run.
SCALE = 10 if os.environ.get("SHAPECHECK_SLOW") else 1


def hypothesis_settings(examples: int) -> settings:
    return settings(max_examples=examples * SCALE, deadline=None, database=None, derandomize=True,
                    print_blob=False, suppress_health_check=list(HealthCheck))


CASES: dict[str, list[int]] = {}
"""family -> [cases compared, of which the rules answered unknown]."""


def real_verdict(fn, keep_warning=lambda text: False):
    """What torch does: ("ok", shapes, warnings kept) or (exception class, message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn()
        except Exception as exc:  # the verdict under test is the exception itself
            return (type(exc).__name__, str(exc))
    outs = out if isinstance(out, tuple) else (out,)
    kept = tuple(sorted(str(w.message) for w in caught if keep_warning(str(w.message))))
    return ("ok", tuple(None if o is None else tuple(o.shape) for o in outs), kept)


def rule_verdict(fn):
    """What the rules say, in the same form; ("unknown",) for None."""
    try:
        result = fn()
    except ShapeError as exc:
        return (exc.exc_type, exc.message)
    if result is None:
        return ("unknown",)
    return ("ok", tuple(None if s is None else tuple(s) for s in result.outputs),
            tuple(sorted(w.message for w in result.warnings)))


def _set_order_free(verdict):
    """torch prints Python sets ({'same', 'valid'}), whose order its .pyc fixed: compare as sets."""
    if len(verdict) != 2 or not isinstance(verdict[1], str):
        return verdict
    return (verdict[0], re.sub(r"\{([^{}]*)\}",
                               lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}",
                               verdict[1]))


def agree(family: str, ours, theirs, context) -> None:
    counts = CASES.setdefault(family, [0, 0])
    counts[0] += 1
    if ours == ("unknown",):
        counts[1] += 1
        return
    ours, theirs = _set_order_free(ours), _set_order_free(theirs)
    assert ours == theirs, f"{context}: rules {ours!r} != torch {theirs!r}"


def zeros(shape, dtype=None):
    return torch.zeros(tuple(shape), dtype=dtype or torch.float32)


def construct(family: str, kind: str, args: tuple, kwargs: dict, context: str):
    """nn.<kind>(...) built by torch and by the rules; (module, layer), or (None, None) when
    either refused (the refusals are compared then, as the verdict)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            module = getattr(nn, kind)(*args, **kwargs)
            built = ("ok",)
        except Exception as exc:  # a constructor refusal is the verdict
            built = (type(exc).__name__, str(exc))
    try:
        layer = build(kind, args, kwargs)
        ours = ("ok",) if layer is not None else ("unknown",)
    except ShapeError as exc:
        ours, layer = (exc.exc_type, exc.message), None
    if built != ("ok",) or ours != ("ok",):
        agree(family, ours, built, context + " (construction)")
        return None, None
    return module, layer


def check_layer(family: str, kind: str, args: tuple, kwargs: dict, *inputs, dtypes=None,
                keep_warning=lambda text: False, train: bool = True, forward_kwargs=None) -> None:
    """Build nn.<kind> both ways, then call it on zero tensors of the given shapes."""
    context = f"nn.{kind}(*{args!r}, **{kwargs!r}) on {inputs!r}"
    module, layer = construct(family, kind, args, kwargs, context)
    if module is None:
        return
    module.train(train)
    dtypes = dtypes or (None,) * len(inputs)
    tensors = [zeros(s, d) for s, d in zip(inputs, dtypes)]
    with torch.no_grad():
        theirs = real_verdict(lambda: module(*tensors), keep_warning)
    agree(family, rule_verdict(lambda: layer.forward(*inputs, **(forward_kwargs or {}))), theirs,
          context)


def report(title: str) -> None:
    line = {family: f"{n - unknown}/{n} decided" for family, (n, unknown) in sorted(CASES.items())}
    print(f"\n{title} conformance cases per family (all decided ones agree):", line)


def check_functional(family: str, name: str, tensors: tuple, args: tuple = (), kwargs=None, *,
                     dtypes=None, keep_warning=lambda text: False, tensor_kwargs=()) -> None:
    """F.<name>(*tensors, *args, **kwargs) on zero tensors vs the rule on their shapes; the
    keyword arguments named in tensor_kwargs are shapes too."""
    from shapecheck.runtime.nn import functional

    kwargs = kwargs or {}
    dtypes = dtypes or (None,) * len(tensors)
    real = [zeros(s, d) for s, d in zip(tensors, dtypes)]
    real_kwargs = {k: zeros(v) if k in tensor_kwargs else v for k, v in kwargs.items()}
    fn = getattr(torch.nn.functional, name)
    with torch.no_grad():
        theirs = real_verdict(lambda: fn(*real, *args, **real_kwargs), keep_warning)
    ours = rule_verdict(lambda: functional(name, *tensors, *args, **kwargs))
    agree(family, ours, theirs, f"F.{name}(*{tensors!r}, *{args!r}, **{kwargs!r})")
