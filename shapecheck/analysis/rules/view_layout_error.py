"""SC308 view-layout-error: torch ``.view`` of a layout that cannot be viewed."""

from ..findings import Severity
from .base import Example, RuleSpec

VIEW_LAYOUT_ERROR = RuleSpec(
    code="SC308",
    name="view-layout-error",
    severity=Severity.ERROR,
    summary="torch .view() or .view_as() of a tensor whose memory layout cannot be regrouped "
            "into the new shape without copying: a transposed, permuted, expanded or stepped "
            "tensor (after .t(), .transpose(), .permute(), .expand(), x[:, ::2]).",
    why="Tensor.view never copies. It can only merge or split dims that are contiguous with "
        "each other in memory, so on such a layout torch raises \"view size is not compatible "
        "with input tensor's size and stride (at least one dimension spans across two "
        "contiguous subspaces). Use .reshape(...) instead.\" at this line. The layout, and "
        "so the error, is known from the ops that made the tensor.",
    bad=(Example("import torch\n"
                 "x = torch.zeros(3, 4)\n"
                 "y = x.t().view(-1)  # error: SC308\n", library="torch"),
         Example("import torch\n"
                 "x = torch.zeros(2, 3, 4)\n"
                 "y = x.permute(0, 2, 1).view(2, 12)  # error: SC308\n", library="torch")),
    good=(Example("import torch\n"
                  "x = torch.zeros(3, 4)\n"
                  "y = x.t().reshape(-1)\n"
                  "z = x.t().contiguous().view(-1)\n"
                  "w = x.t().view(4, 3)\n"
                  "assert y.shape == z.shape == (12,) and w.shape == (4, 3)\n", library="torch"),),
    fix="Use .reshape(...), which copies when it must, or .contiguous().view(...); or view "
        "before transposing.",
)

RULES = (VIEW_LAYOUT_ERROR,)
