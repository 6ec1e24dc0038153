"""SC105 backcompat-broadcast-change: broadcastable, same numel, a different result shape."""

from ..findings import Severity
from .base import Example, RuleSpec

BACKCOMPAT_BROADCAST_CHANGE = RuleSpec(
    code="SC105",
    name="backcompat-broadcast-change",
    severity=Severity.INFO,
    summary="Under the torch-legacy dialect: operands with the same number of elements that "
            "broadcast to a shape different from the first operand's (what the 1-D fallback gave).",
    why="Code from before broadcasting got an elementwise result shaped like the first "
        "operand; with broadcasting the same line gives a bigger result. Reported only with "
        "dialect = \"torch-legacy\", like torch's backcompat warning.",
    bad=(Example("import torch\n"
                 "a = torch.ones(4, 1)\n"
                 "b = torch.ones(1, 4)\n"
                 "c = a + b  # error: SC105\n"
                 "assert c.shape == (4, 4)  # the pre-broadcasting fallback gave (4, 1)\n",
                 library="torch"),),
    good=(Example("import torch\n"
                  "a = torch.ones(4, 1)\n"
                  "b = torch.ones(1, 4)\n"
                  "c = a + b.view(4, 1)\n"
                  "assert c.shape == (4, 1)\n", library="torch"),),
    fix="Make the intended shape explicit: reshape one operand, or write the outer product.",
)

RULES = (BACKCOMPAT_BROADCAST_CHANGE,)
