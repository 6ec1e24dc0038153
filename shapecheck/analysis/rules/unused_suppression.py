"""SC003 unused-suppression: a suppression comment that silences nothing (ruff's RUF100 for shapecheck)."""

from ..findings import Severity
from .base import Example, RuleSpec

UNUSED_SUPPRESSION = RuleSpec(
    code="SC003",
    name="unused-suppression",
    severity=Severity.WARNING,
    summary="A `# shapecheck: ignore[...]`, `# shapecheck: ignore-file[...]` or `# noqa: SC...` comment "
            "(or one of its codes) that suppresses no finding. Off by default: enable it with "
            "`extend-select = [\"SC003\"]` or `--extend-select SC003` (ALL and prefixes do not include it). "
            "Codes of other tools in a shared `# noqa` are left alone, and a file that did not parse or "
            "could not be analyzed is not judged.",
    why="A suppression outlives the bug it was written for: once the code is fixed it silences nothing, "
        "and later hides a new bug of the same kind on that statement. Removing stale ones keeps every "
        "remaining suppression meaningful.",
    bad=(Example("import numpy as np\n"
                 "a = np.zeros((5, 2))\n"
                 "b = np.ones(2)\n"
                 "c = a + b  # noqa: SC101  # error: SC003\n", runs=False),
         Example("import numpy as np\n"
                 "a = np.zeros((5, 2))\n"
                 "b = np.ones(3)\n"
                 "c = a + b  # shapecheck: ignore[SC101, SC201]  # error: SC003\n", runs=False),
         Example("import numpy as np\n"
                 "a = np.zeros((5, 2))\n"
                 "c = a * 2  # shapecheck: ignore  # error: SC003\n", runs=False)),
    good=(Example("import numpy as np\n"
                  "a = np.zeros((5, 2))\n"
                  "b = np.ones(3)\n"
                  "c = a + b  # noqa: SC101\n", runs=False),
          Example("import numpy as np\n"
                  "a = np.zeros((5, 2))\n"
                  "c = a * 2  # noqa: E501\n", runs=False)),
    fix="Delete the comment, or the codes in it that no longer match a finding.",
)

OFF_BY_DEFAULT = frozenset({UNUSED_SUPPRESSION.code})

RULES = (UNUSED_SUPPRESSION,)
