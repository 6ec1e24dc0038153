"""SC106 matmul-mismatch: contracted dimensions that differ (@, matmul, mm, bmm, einsum, nn.Linear)."""

from ..findings import Severity
from .base import Example, RuleSpec

MATMUL_MISMATCH = RuleSpec(
    code="SC106",
    name="matmul-mismatch",
    severity=Severity.ERROR,
    summary="A matrix product whose inner dimensions differ, or whose batch dimensions do not "
            "broadcast: @, matmul, mm, bmm, mv, dot, einsum, addmm, linalg.solve, an nn.Linear "
            "or nn.Conv layer given the wrong number of features or channels.",
    why="The library raises at this line (ValueError in NumPy, RuntimeError in PyTorch).",
    bad=(Example("import numpy as np\n"
                 "a = np.ones((3, 4))\n"
                 "b = np.ones((5, 2))\n"
                 "c = a @ b  # error: SC106\n"),
         Example("import torch\n"
                 "from torch import nn\n"
                 "layer = nn.Linear(5, 2)\n"
                 "x = torch.randn(8, 4)\n"
                 "y = layer(x)  # error: SC106\n", library="torch")),
    good=(Example("import numpy as np\n"
                  "a = np.ones((3, 4))\n"
                  "b = np.ones((4, 2))\n"
                  "c = a @ b\n"
                  "assert c.shape == (3, 2)\n"),),
    fix="Transpose the operand whose dimensions are swapped, or fix the layer's in_features.",
)

RULES = (MATMUL_MISMATCH,)
