"""SC107 loss-target-shape: a loss whose input and target shapes differ."""

from ..findings import Severity
from .base import Example, RuleSpec

LOSS_TARGET_SHAPE = RuleSpec(
    code="SC107",
    name="loss-target-shape",
    severity=Severity.WARNING,
    summary="A torch.nn.functional loss (or nn loss module) called with input and target of "
            "different shapes: mse_loss((N, 1), (N,)), cross_entropy with a (N, 1) target.",
    why="Pairwise losses broadcast input against target, so (N, 1) against (N,) averages an "
        "N-by-N matrix of all pairs: training runs and learns the wrong thing (torch only "
        "warns). BCE and cross-entropy raise. cross_entropy(logits (N, C), target (N,)) is the "
        "correct form and is not reported.",
    bad=(Example("import torch\n"
                 "import torch.nn.functional as F\n"
                 "pred = torch.arange(4.0).reshape(4, 1)\n"
                 "target = torch.arange(4.0)\n"
                 "loss = F.mse_loss(pred, target)  # error: SC107\n"
                 "assert loss.item() > 0  # the prediction equals the target, yet the loss is not 0\n",
                 library="torch"),),
    good=(Example("import torch\n"
                  "import torch.nn.functional as F\n"
                  "pred = torch.arange(4.0).reshape(4, 1)\n"
                  "target = torch.arange(4.0)\n"
                  "loss = F.mse_loss(pred.squeeze(1), target)\n"
                  "assert loss.item() == 0\n", library="torch"),
          Example("import torch\n"
                  "import torch.nn.functional as F\n"
                  "logits = torch.randn(8, 5)\n"
                  "labels = torch.randint(0, 5, (8,))\n"
                  "loss = F.cross_entropy(logits, labels)\n", library="torch")),
    fix="Give input and target the same shape (squeeze the trailing 1), or class indices of "
        "shape (N,) for cross_entropy.",
)

RULES = (LOSS_TARGET_SHAPE,)
