"""SC104 legacy-pointwise-fallback: same number of elements, shapes that do not broadcast."""

from ..findings import Severity
from .base import Example, RuleSpec

LEGACY_POINTWISE_FALLBACK = RuleSpec(
    code="SC104",
    name="legacy-pointwise-fallback",
    severity=Severity.ERROR,
    summary="A torch pointwise op (add, sub, mul, div, pow, fmod, remainder, addcmul, addcdiv) "
            "on tensors with the same number of elements whose shapes do not broadcast.",
    why="Old PyTorch treated such operands as 1-D and only warned; code written against it "
        "relies on that. Today's PyTorch raises, and under the legacy dialect the result "
        "silently took the first operand's shape.",
    bad=(Example("import torch\n"
                 "a = torch.ones(4)\n"
                 "b = torch.ones(2, 2)\n"
                 "c = torch.add(a, b)  # error: SC104\n", library="torch"),),
    good=(Example("import torch\n"
                  "a = torch.ones(4)\n"
                  "b = torch.ones(2, 2)\n"
                  "c = torch.add(a.view(2, 2), b)\n", library="torch"),),
    fix="Reshape one operand to the other's shape explicitly (view, reshape).",
)

RULES = (LEGACY_POINTWISE_FALLBACK,)
