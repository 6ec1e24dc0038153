"""SC203 out-shape: an out= array that cannot hold the result."""

from ..findings import Severity
from .base import Example, RuleSpec

OUT_SHAPE = RuleSpec(
    code="SC203",
    name="out-shape",
    severity=Severity.ERROR,
    summary="A call with out= whose out array does not have the result's shape.",
    why="NumPy raises ValueError; PyTorch resizes a non-empty out tensor with a deprecation "
        "warning, which silently reallocates memory other code may still hold.",
    bad=(Example("import numpy as np\n"
                 "a = np.ones(3)\n"
                 "b = np.ones(3)\n"
                 "res = np.zeros(4)\n"
                 "np.add(a, b, out=res)  # error: SC203\n"),),
    good=(Example("import numpy as np\n"
                  "a = np.ones(3)\n"
                  "b = np.ones(3)\n"
                  "res = np.zeros(3)\n"
                  "np.add(a, b, out=res)\n"),),
    fix="Allocate out with the result's shape (np.empty_like of the broadcast).",
)

RULES = (OUT_SHAPE,)
