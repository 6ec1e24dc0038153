"""SC102 implicit-outer-product: (n, 1) op (n,) silently becomes (n, n)."""

from ..findings import Severity
from .base import Example, RuleSpec

IMPLICIT_OUTER_PRODUCT = RuleSpec(
    code="SC102",
    name="implicit-outer-product",
    severity=Severity.WARNING,
    summary="A pointwise operation where both operands are stretched and a size of one operand "
            "lines up with a size-1 axis of the other: (n, 1) - (n,) gives (n, n).",
    why="The code runs, but computes all pairs instead of matching elements: a column of "
        "predictions minus a vector of targets is an n-by-n matrix, and its mean is not the "
        "error. Outer products asked for explicitly (a[:, None] * b[None, :], np.outer, "
        "unsqueeze) are not reported.",
    bad=(Example("import numpy as np\n"
                 "pred = np.arange(4.0).reshape(4, 1)\n"
                 "target = np.arange(4.0)\n"
                 "err = pred - target  # error: SC102\n"
                 "assert err.shape == (4, 4)  # not (4,): every pair was subtracted\n"),),
    good=(Example("import numpy as np\n"
                  "pred = np.arange(4.0).reshape(4, 1)\n"
                  "target = np.arange(4.0)\n"
                  "err = pred[:, 0] - target\n"
                  "assert err.shape == (4,)\n"),
          Example("import numpy as np\n"
                  "a = np.arange(3.0)\n"
                  "b = np.arange(3.0)\n"
                  "table = a[:, None] * b[None, :]\n"
                  "assert table.shape == (3, 3)\n")),
    fix="Make both operands the same shape (squeeze the column or reshape the vector), or "
        "write the new axis explicitly when an outer product is meant.",
)

RULES = (IMPLICIT_OUTER_PRODUCT,)
