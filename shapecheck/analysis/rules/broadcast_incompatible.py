"""SC101 broadcast-incompatible: a pointwise op whose operands can never broadcast."""

from ..findings import Severity
from .base import Example, RuleSpec

BROADCAST_INCOMPATIBLE = RuleSpec(
    code="SC101",
    name="broadcast-incompatible",
    severity=Severity.ERROR,
    summary="A pointwise operation (+, *, np.add, torch.where, ...) on operands whose shapes "
            "cannot broadcast: aligned from the right, some dimension differs and neither is 1.",
    why="NumPy raises ValueError and PyTorch raises RuntimeError at this line; the program "
        "cannot get past it with these shapes.",
    bad=(Example("import numpy as np\n"
                 "a = np.zeros((5, 2, 4, 1))\n"
                 "b = np.ones((3, 1, 1))\n"
                 "c = a + b  # error: SC101\n"),
         Example("import torch\n"
                 "def scores(q, k):\n"
                 "    return q * k\n"
                 "q = torch.randn(8, 16)\n"
                 "k = torch.randn(8, 32)\n"
                 "s = q * k  # error: SC101\n", library="torch")),
    good=(Example("import numpy as np\n"
                  "a = np.zeros((5, 2, 4, 1))\n"
                  "b = np.ones((2, 1, 1))\n"
                  "c = a + b\n"),),
    fix="Make the mismatched dimension equal, or 1 where the value should be repeated.",
)

RULES = (BROADCAST_INCOMPATIBLE,)
