"""Correct idioms that must lint clean: explicit outer products, keepdims, matching losses."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def pairwise_distances(a, b):
    # shape: a (N, D)
    # shape: b (M, D)
    diff = a[:, None, :] - b[None, :, :]
    return np.sqrt((diff ** 2).sum(axis=-1))


def outer_table(n: int = 5):
    x = np.arange(n)
    return np.outer(x, x) + x[:, None] * x[None, :]


def normalize_rows(x):
    # shape: x (N, D)
    mean = x.mean(axis=1, keepdims=True)
    std = x.std(axis=1, keepdims=True)
    return (x - mean) / (std + 1e-8)


def normalize_columns(x):
    # shape: x (N, D)
    return (x - x.mean(axis=0)) / x.std(axis=0)


class Classifier(nn.Module):
    def __init__(self, n_in: int = 20, n_classes: int = 4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.net(x)


def step():
    model = Classifier()
    x = torch.randn(32, 20)
    labels = torch.randint(0, 4, (32,))
    logits = model(x)
    loss = F.cross_entropy(logits, labels)
    pred = torch.randn(32, 1)
    target = torch.randn(32, 1)
    mse = F.mse_loss(pred, target)
    col = torch.randn(32)
    bce = F.binary_cross_entropy_with_logits(pred.squeeze(1), col)
    return loss + mse + bce


def solve_vectors():
    a = np.eye(3) + np.zeros((4, 3, 3))
    b = np.ones((4, 3))
    return np.linalg.solve(a, b[..., None])[..., 0]


def inplace_ok():
    x = np.zeros((4, 3))
    x += np.arange(3.0)
    x[1:3] = np.ones(3)
    x[..., 0] = 2.0
    t = torch.zeros(4, 3)
    t.mul_(torch.ones(3))
    t.copy_(torch.ones(4, 3))
    return x, t
