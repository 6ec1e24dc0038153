"""SC202 inplace-dtype: an in-place op whose result dtype cannot be stored in the target."""

from ..findings import Severity
from .base import Example, RuleSpec

INPLACE_DTYPE = RuleSpec(
    code="SC202",
    name="inplace-dtype",
    severity=Severity.ERROR,
    summary="An in-place op on an integer (or bool) array whose result is a float (or complex): "
            "x += 0.5 with x from np.arange(3).",
    why="NumPy refuses under casting='same_kind' (UFuncTypeError); PyTorch raises "
        "\"result type Float can't be cast to the desired output type Long\".",
    bad=(Example("import numpy as np\n"
                 "x = np.arange(3)\n"
                 "x += 0.5  # error: SC202\n"),),
    good=(Example("import numpy as np\n"
                  "x = np.arange(3.0)\n"
                  "x += 0.5\n"),),
    fix="Create the target with a float dtype, or write out of place (x = x + 0.5).",
)

RULES = (INPLACE_DTYPE,)
