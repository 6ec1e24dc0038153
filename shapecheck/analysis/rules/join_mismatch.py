"""SC108 join-mismatch: concatenate / cat / stack of arrays whose other dimensions differ."""

from ..findings import Severity
from .base import Example, RuleSpec

JOIN_MISMATCH = RuleSpec(
    code="SC108",
    name="join-mismatch",
    severity=Severity.ERROR,
    summary="np.concatenate, np.stack, torch.cat, torch.stack (and hstack/vstack) of arrays "
            "that differ in a dimension other than the joined one, or in rank.",
    why="The library raises at this line.",
    bad=(Example("import numpy as np\n"
                 "a = np.zeros((2, 3))\n"
                 "b = np.zeros((2, 4))\n"
                 "c = np.concatenate([a, b])  # error: SC108\n"),),
    good=(Example("import numpy as np\n"
                  "a = np.zeros((2, 3))\n"
                  "b = np.zeros((2, 4))\n"
                  "c = np.concatenate([a, b], axis=1)\n"
                  "assert c.shape == (2, 7)\n"),),
    fix="Join along the axis where the sizes differ, or make the other dimensions equal.",
)

RULES = (JOIN_MISMATCH,)
