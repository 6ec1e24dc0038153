"""Pre-broadcasting PyTorch code: lint with dialect = "torch-legacy"."""

import torch


def combine():
    a = torch.ones(4, 1)
    b = torch.ones(1, 4)
    return a + b  # expect: SC105
