"""SC004 reveal-shape: what the analyzer believes the argument of ``reveal_shape(x)`` is (mypy's reveal_type)."""

from ..findings import Severity
from .base import Example, RuleSpec

REVEAL_SHAPE = RuleSpec(
    code="SC004",
    name="reveal-shape",
    severity=Severity.INFO,
    summary="`reveal_shape(x)` in the code: a note at that call saying what the analyzer believes x "
            "is there, its shape with symbols (`(B, T, 4*C)`), dtype and library, and for an alias "
            "what it shares storage with. In a function that callers give arrays to, each caller's "
            "arguments add what x is with them. `from shapecheck import reveal_shape` makes the call "
            "run too: it prints the real shape to stderr and returns x.",
    why="It is not a bug: it is how to learn what the analysis knows, find where it goes blind, and "
        "report its mistakes with the exact belief it holds. Remove the call when done, as with mypy's "
        "reveal_type.",
    bad=(Example("import numpy as np\n"
                 "from shapecheck import reveal_shape\n"
                 "x = np.zeros((4, 3))\n"
                 "reveal_shape(x.T)  # error: SC004\n"),
         Example("import torch\n"
                 "from shapecheck import reveal_shape\n"
                 "x = torch.zeros(2, 8, 6)\n"
                 "head = x[:, :, :3]\n"
                 "reveal_shape(head)  # error: SC004\n", library="torch")),
    good=(Example("import numpy as np\n"
                  "x = np.zeros((4, 3))\n"
                  "y = x.T\n"),),
    fix="Delete the reveal_shape call (and its import) once you have read the note.",
)

RULES = (REVEAL_SHAPE,)
