"""SC111 index-out-of-range: a constant index or axis past a known dimension."""

from ..findings import Severity
from .base import Example, RuleSpec

INDEX_OUT_OF_RANGE = RuleSpec(
    code="SC111",
    name="index-out-of-range",
    severity=Severity.ERROR,
    summary="An integer index past the size of a known dimension (x[3] of a (3, 4) array), too "
            "many indices for the rank, an axis past the rank, or x.shape[k] past the rank.",
    why="The library raises IndexError (or AxisError) at this line.",
    bad=(Example("import numpy as np\n"
                 "x = np.zeros((3, 4))\n"
                 "row = x[3]  # error: SC111\n"),),
    good=(Example("import numpy as np\n"
                  "x = np.zeros((3, 4))\n"
                  "row = x[-1]\n"
                  "assert row.shape == (4,)\n"),),
    fix="Index within the dimension (the last row is x[-1] or x[2]).",
)

RULES = (INDEX_OUT_OF_RANGE,)
