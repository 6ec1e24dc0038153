"""SC103 reduced-axis-misaligned: a reduction without keepdims broadcast back against its input."""

from ..findings import Severity
from .base import Example, RuleSpec

REDUCED_AXIS_MISALIGNED = RuleSpec(
    code="SC103",
    name="reduced-axis-misaligned",
    severity=Severity.WARNING,
    summary="An array reduced over a non-leading axis without keepdims is combined with an "
            "array of the original shape: x - x.mean(axis=1). For an array of unknown rank "
            "(a function's parameter) any axis >= 1 is reported: it is never the leading one.",
    why="Broadcasting aligns shapes from the right, so the reduced array's axes line up with "
        "the wrong axes of the original. With square shapes it runs and subtracts each column's "
        "statistic from each row; with other shapes it raises.",
    bad=(Example("import numpy as np\n"
                 "x = np.arange(16.0).reshape(4, 4)\n"
                 "centered = x - x.mean(axis=1)  # error: SC103\n"
                 "assert not np.allclose(centered.mean(axis=1), 0)  # rows are not centered\n"),
         Example("import numpy as np\n"
                 "def center_rows(X):\n"
                 "    X = np.asarray(X, dtype=float)\n"
                 "    X -= X.mean(axis=1)  # error: SC103\n"
                 "    return X\n"
                 "rows = center_rows(np.arange(16.0).reshape(4, 4))\n"
                 "assert not np.allclose(rows.mean(axis=1), 0)  # for any rank of X\n")),
    good=(Example("import numpy as np\n"
                  "x = np.arange(16.0).reshape(4, 4)\n"
                  "centered = x - x.mean(axis=1, keepdims=True)\n"
                  "assert np.allclose(centered.mean(axis=1), 0)\n"),
          Example("import numpy as np\n"
                  "x = np.arange(12.0).reshape(3, 4)\n"
                  "centered = x - x.mean(axis=0)\n"),
          Example("import numpy as np\n"
                  "def center_columns(X):\n"
                  "    X = np.asarray(X, dtype=float)\n"
                  "    return X - X.mean(axis=0), X / X.sum(axis=1, keepdims=True)\n")),
    fix="Reduce with keepdims=True (keepdim=True in torch) so the axis stays in place.",
)

RULES = (REDUCED_AXIS_MISALIGNED,)
