"""SC113 layer-input-mismatch: an nn layer (or its functional twin) given an input it refuses."""

from ..findings import Severity
from .base import Example, RuleSpec

LAYER_INPUT_MISMATCH = RuleSpec(
    code="SC113",
    name="layer-input-mismatch",
    severity=Severity.ERROR,
    summary="A torch.nn layer called on an input whose rank or size it cannot take: a "
            "BatchNorm1d(64) fed 32 features, a LayerNorm whose normalized_shape is not the "
            "input's trailing dims, a GroupNorm whose groups do not divide the channels, a pool "
            "whose window is larger than the padded input, a Conv2d fed a 2-D tensor.",
    why="torch raises at the first forward pass, often deep inside a model and after data "
        "loading. The verdict comes from the runtime's rule for that layer, checked against "
        "real torch, and is reported only when it holds for every value of the unknown sizes. "
        "A Linear's in_features and a convolution's in_channels stay with SC106 "
        "(matmul-mismatch), since torch reports them from its matmul; loss targets stay with "
        "SC107.",
    bad=(Example("import torch\n"
                 "from torch import nn\n"
                 "norm = nn.BatchNorm1d(64)\n"
                 "x = torch.randn(8, 32)\n"
                 "y = norm(x)  # error: SC113\n", library="torch"),
         Example("import torch\n"
                 "from torch import nn\n"
                 "norm = nn.LayerNorm(16)\n"
                 "x = torch.randn(4, 16, 10)\n"
                 "y = norm(x)  # error: SC113\n", library="torch"),
         Example("import torch\n"
                 "from torch import nn\n"
                 "pool = nn.MaxPool2d(4)\n"
                 "x = torch.randn(1, 3, 2, 2)\n"
                 "y = pool(x)  # error: SC113\n", library="torch")),
    good=(Example("import torch\n"
                  "from torch import nn\n"
                  "norm = nn.BatchNorm1d(32)\n"
                  "x = torch.randn(8, 32)\n"
                  "y = norm(x)\n", library="torch"),
          Example("import torch\n"
                  "from torch import nn\n"
                  "norm = nn.LayerNorm(10)\n"
                  "x = torch.randn(4, 16, 10)\n"
                  "y = norm(x)\n", library="torch")),
    fix="Size the layer for the input it gets (num_features is dim 1; normalized_shape is the "
        "trailing dims), or reshape/permute the input to the layout the layer expects.",
)

RULES = (LAYER_INPUT_MISMATCH,)
