"""The rule catalog: every rule's spec, by code.

Each rule family is a module here that defines its RuleSpec objects; the
catalog collects them. Codes are stable once released.
"""

from __future__ import annotations

import functools

from ..findings import Severity
from .base import Example, RuleSpec

SYNTAX_ERROR = RuleSpec(
    code="SC001",
    name="syntax-error",
    severity=Severity.ERROR,
    summary="The file could not be parsed as Python; it is reported and the run goes on.",
    why="A file that does not parse cannot be analyzed, and would fail at import.",
    bad=(Example("x = (1,\n", runs=False),),
    good=(Example("x = (1,)\n", runs=False),),
)

UNREADABLE_FILE = RuleSpec(
    code="SC002",
    name="unreadable-file",
    severity=Severity.ERROR,
    summary="The file could not be read or decoded (binary, bad encoding, permissions).",
    why="shapecheck cannot analyze what it cannot read; the rest of the run goes on.",
)

INTERNAL_ERROR = RuleSpec(
    code="SC099",
    name="internal-error",
    severity=Severity.ERROR,
    summary="The analyzer itself failed on this file; the file is skipped and the run goes on.",
    why="This is a bug in shapecheck. Please report it with the file that triggers it.",
)

_META_RULES = (SYNTAX_ERROR, UNREADABLE_FILE, INTERNAL_ERROR)


def all_rules() -> dict[str, RuleSpec]:
    """Every rule by code, meta rules included, in code order."""
    return dict(_all_rules())


@functools.cache
def _all_rules() -> dict[str, RuleSpec]:
    # Scanning the package and importing its modules costs more than a small file's analysis:
    # once per process is enough, since the specs are frozen.
    specs: list[RuleSpec] = list(_META_RULES)
    for module in _rule_modules():
        specs.extend(getattr(module, "RULES", ()))
    return {s.code: s for s in sorted(specs, key=lambda s: s.code)}


def _rule_modules() -> list:
    """The rule family modules; each defines RULES, a tuple of RuleSpec."""
    import importlib
    import pkgutil

    modules = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name in ("base",):
            continue
        modules.append(importlib.import_module(f"{__name__}.{info.name}"))
    return modules


__all__ = ["Example", "RuleSpec", "all_rules", "SYNTAX_ERROR", "UNREADABLE_FILE", "INTERNAL_ERROR"]
