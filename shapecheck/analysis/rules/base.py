"""What every rule carries: its code, name, default severity, docs and proof.

As in Fixit, a rule cannot exist without examples: ``bad`` snippets mark
the line that must be reported with a trailing ``# error: SCxxx`` comment
(the marker names the expected code), ``good`` snippets must lint clean.
Tests are generated from these lists and ``shapecheck rule SCxxx`` renders
the same text, so docs and tests cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import Severity


@dataclass(frozen=True)
class Example:
    """A snippet for a rule's docs and generated tests.

    ``library`` is "numpy" or "torch": the library the runtime proof needs.
    ``runs`` says whether the snippet can be executed as-is to prove the
    behaviour with the real library (self-contained, small shapes).
    """

    code: str
    library: str = "numpy"
    runs: bool = True


@dataclass(frozen=True)
class RuleSpec:
    code: str
    name: str
    severity: Severity
    summary: str
    why: str
    bad: tuple[Example, ...] = field(default=())
    good: tuple[Example, ...] = field(default=())
    fix: str = ""

    def markdown(self) -> str:
        """The rule's docs in ruff's sections: what, why, example, use instead."""
        parts = [f"# {self.code} {self.name}", "", f"Default severity: {self.severity.value}", "",
                 "## What it does", "", self.summary, "", "## Why is this bad?", "", self.why]
        for ex in self.bad:
            parts += ["", "## Example", "", "```python", ex.code.rstrip(), "```"]
        if self.fix:
            parts += ["", self.fix]
        for ex in self.good:
            parts += ["", "## Use instead", "", "```python", ex.code.rstrip(), "```"]
        return "\n".join(parts) + "\n"
