"""SC201 inplace-resize: an in-place op whose result does not fit the target's shape."""

from ..findings import Severity
from .base import Example, RuleSpec

INPLACE_RESIZE = RuleSpec(
    code="SC201",
    name="inplace-resize",
    severity=Severity.ERROR,
    summary="x += y, x.add_(y) (every in-place *_ method), x[...] = y, x[2:5] = y, x.copy_(y), "
            "np.copyto(x, y) where the result would need a bigger or different shape than x.",
    why="An in-place operation cannot change its target's shape: the broadcast of the operands "
        "must equal the target's shape. NumPy raises ValueError and PyTorch RuntimeError.",
    bad=(Example("import numpy as np\n"
                 "x = np.zeros(3)\n"
                 "x += np.ones((2, 3))  # error: SC201\n"),
         Example("import torch\n"
                 "x = torch.zeros(3)\n"
                 "x.add_(torch.ones(2, 3))  # error: SC201\n", library="torch"),
         Example("import numpy as np\n"
                 "x = np.zeros(10)\n"
                 "x[2:5] = np.ones(4)  # error: SC201\n")),
    good=(Example("import numpy as np\n"
                  "x = np.zeros((2, 3))\n"
                  "x += np.ones(3)\n"
                  "x[0, 1:3] = np.ones(2)\n"),),
    fix="Write out of place (x = x + y) or give the target the broadcast shape.",
)

RULES = (INPLACE_RESIZE,)
