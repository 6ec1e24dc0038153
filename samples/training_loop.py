"""A small regression model and its training loop, with the shape bugs people write."""

import torch
import torch.nn.functional as F
from torch import nn


class Regressor(nn.Module):
    def __init__(self, n_features: int = 16, hidden: int = 32):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_features, hidden),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(hidden, 1),
        )

    def forward(self, x):
        return self.body(x)


def train(steps: int = 100):
    model = Regressor()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    running = torch.zeros(1)
    for step in range(steps):
        x = torch.randn(64, 16)
        y = torch.randn(64)
        pred = model(x)
        loss = F.mse_loss(pred, y)  # expect: SC107
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        mae = (pred - y).abs().mean()  # expect: SC102
        running += loss.detach()
    return running


def evaluate(model: Regressor):
    x = torch.randn(128, 12)
    return model(x)  # expect: SC106


def accumulate_stats():
    total = torch.zeros(16)
    batch = torch.randn(64, 16)
    total.add_(batch)  # expect: SC201
    total.add_(batch.sum(dim=0))
    return total
