"""SC110 solve-ambiguity: linalg.solve whose b is a vector stack in one library, matrices in another."""

from ..findings import Severity
from .base import Example, RuleSpec

SOLVE_AMBIGUITY = RuleSpec(
    code="SC110",
    name="solve-ambiguity",
    severity=Severity.WARNING,
    summary="linalg.solve(a, b) with stacked a and b.ndim == a.ndim - 1: NumPy 1 and "
            "torch.linalg.solve read b as a stack of vectors, NumPy 2 as one matrix.",
    why="The same call gives different shapes (or raises) depending on the library and its "
        "version; code ported between them silently changes meaning.",
    bad=(Example("import numpy as np\n"
                 "a = np.eye(3) + np.zeros((3, 3, 3))\n"
                 "b = np.ones((3, 3))\n"
                 "x = np.linalg.solve(a, b)  # error: SC110\n"
                 "assert x.shape == (3, 3, 3)  # NumPy 1 and torch.linalg.solve give (3, 3)\n"),),
    good=(Example("import numpy as np\n"
                  "a = np.eye(3) + np.zeros((3, 3, 3))\n"
                  "b = np.ones((3, 3))\n"
                  "x = np.linalg.solve(a, b[..., None])[..., 0]\n"
                  "assert x.shape == (3, 3)\n"),),
    fix="Say which you mean: b[..., None] and [..., 0] for a stack of vectors.",
)

RULES = (SOLVE_AMBIGUITY,)
