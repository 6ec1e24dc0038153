"""Classification and segmentation losses, right and wrong."""

import torch
import torch.nn.functional as F
from torch import nn


def classification_loss(batch_size: int = 32, n_classes: int = 10):
    logits = torch.randn(batch_size, n_classes)
    labels = torch.randint(0, n_classes, (batch_size,))
    good = F.cross_entropy(logits, labels)
    column = labels.unsqueeze(1)
    bad = F.cross_entropy(logits, column)  # expect: SC107
    return good + bad


def binary_loss():
    scores = torch.randn(16, 1)
    targets = torch.randint(0, 2, (16,)).float()
    criterion = nn.BCEWithLogitsLoss()
    return criterion(scores, targets)  # expect: SC107


def batch_mismatch():
    logits = torch.randn(8, 5)
    labels = torch.randint(0, 5, (6,))
    return F.nll_loss(F.log_softmax(logits, dim=1), labels)  # expect: SC107
