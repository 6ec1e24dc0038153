"""Model pieces that train.py imports: the shapes they need are set by their caller."""

import torch
from torch import nn

EMBED_DIM = 64
NUM_PATCHES = 16


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


def add_positions(tokens, table):
    """Learned position embeddings, one row per token."""
    return tokens + table


def position_table():
    return torch.zeros(1, NUM_PATCHES + 1, EMBED_DIM)  # one row for the class token
