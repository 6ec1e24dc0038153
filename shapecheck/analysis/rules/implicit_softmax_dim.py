"""SC114 implicit-softmax-dim: softmax, log_softmax or softmin without ``dim``."""

from ..findings import Severity
from .base import Example, RuleSpec

IMPLICIT_SOFTMAX_DIM = RuleSpec(
    code="SC114",
    name="implicit-softmax-dim",
    severity=Severity.WARNING,
    summary="F.softmax / log_softmax / softmin (or nn.Softmax, LogSoftmax, Softmin) called "
            "without dim: torch picks dim 0 for a 0-, 1- or 3-D input and dim 1 otherwise, and "
            "warns that the implicit choice is deprecated.",
    why="For a (batch, seq, classes) input the implicit dim is 0: each class score is "
        "normalized across the batch, not over the classes. Training runs, and the "
        "probabilities of one sample no longer sum to one.",
    bad=(Example("import torch\n"
                 "import torch.nn.functional as F\n"
                 "logits = torch.randn(2, 3, 5)\n"
                 "probs = F.softmax(logits)  # error: SC114\n"
                 "assert not torch.allclose(probs.sum(-1), torch.ones(2, 3))\n",
                 library="torch"),),
    good=(Example("import torch\n"
                  "import torch.nn.functional as F\n"
                  "logits = torch.randn(2, 3, 5)\n"
                  "probs = F.softmax(logits, dim=-1)\n"
                  "assert torch.allclose(probs.sum(-1), torch.ones(2, 3))\n",
                  library="torch"),),
    fix="Name the dim the scores are over: dim=-1 for the last (classes) dim.",
)

RULES = (IMPLICIT_SOFTMAX_DIM,)
