"""Scaled dot-product attention written by hand."""

import math

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, d_model: int = 64, n_heads: int = 8):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = k.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        v = v.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        att = att.softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.out(y)


def scores_without_transpose():
    q = torch.randn(4, 10, 16)
    k = torch.randn(4, 12, 16)
    return q @ k  # expect: SC106


def mask_from_flat():
    flat = torch.ones(36)
    grid = torch.zeros(6, 6)
    return torch.mul(flat, grid)  # expect: SC104


def positional(T: int = 10, d: int = 64):
    x = torch.randn(2, T, d)
    pos = torch.randn(T + 1, d)
    return x + pos  # expect: SC101


model = SelfAttention()
result = model(torch.randn(2, 10, 64))
