"""SC109 reshape-size: reshape / view to a shape with a different number of elements."""

from ..findings import Severity
from .base import Example, RuleSpec

RESHAPE_SIZE = RuleSpec(
    code="SC109",
    name="reshape-size",
    severity=Severity.ERROR,
    summary="reshape, view or np.reshape to a shape whose element count differs from the "
            "array's (or where -1 cannot be inferred).",
    why="The library raises at this line.",
    bad=(Example("import numpy as np\n"
                 "x = np.zeros((4, 6))\n"
                 "y = x.reshape(5, 5)  # error: SC109\n"),),
    good=(Example("import numpy as np\n"
                  "x = np.zeros((4, 6))\n"
                  "y = x.reshape(8, -1)\n"
                  "assert y.shape == (8, 3)\n"),),
    fix="Use sizes whose product is the element count, or -1 for the one to infer.",
)

RULES = (RESHAPE_SIZE,)
