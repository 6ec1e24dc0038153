"""A pre-norm transformer block fed a padding mask in the wrong layout.

The data loader builds the mask time-major, (T, B), as older sequence code did;
nn.MultiheadAttention with batch_first=True wants key_padding_mask as (B, T).
"""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d_model=64, n_heads=4):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))

    def forward(self, x, padding):
        h = self.ln1(x)
        h, _ = self.attn(h, h, h, key_padding_mask=padding)
        x = x + h
        return x + self.mlp(self.ln2(x))


def padding_mask(lengths, steps):
    """True where a sequence has ended, time-major: (steps, batch)."""
    return torch.arange(steps)[:, None] >= lengths[None, :]


def encode():
    tokens = torch.randn(8, 20, 64)
    lengths = torch.randint(1, 21, (8,))
    return Block()(tokens, padding_mask(lengths, 20))  # expect: SC113


def encode_fixed():
    tokens = torch.randn(8, 20, 64)
    lengths = torch.randint(1, 21, (8,))
    return Block()(tokens, padding_mask(lengths, 20).T)
