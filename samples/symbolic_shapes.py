"""Model code whose shapes live in parameters, unpacking and guards, not in literals.

Nothing here is called with concrete inputs: each bug is visible from the
function body alone, through the dims the code itself names.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.size()
        head_size = C // self.n_head
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, head_size).transpose(1, 2)
        k = k.view(B, T, self.n_head, head_size).transpose(1, 2)
        v = v.view(B, T, self.n_head, head_size).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = F.softmax(att, dim=-1)
        y = att @ v.transpose(-2, -1)  # expect: SC112
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


def layer_norm_stats(x):
    B, T, C = x.shape
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-5)


def center_tokens(x):
    B, T, C = x.shape
    return x - x.mean(1)  # expect: SC103


def to_channels_first(images):
    if images.dim() != 3:
        raise ValueError("expected (H, W, C) images")
    return images.permute(0, 3, 1, 2)  # expect: SC111


def position_table(n: int, d: int):
    angles = torch.zeros(n, d // 2)
    table = torch.zeros(n, d)
    table[:, 0::2] = torch.sin(angles)
    padding = torch.zeros(1, d + 1)
    return torch.cat([table, padding], dim=0)  # expect: SC108


def pool_heads(h):
    *batch, heads, dim = h.shape
    weights = torch.ones(heads, dim)
    return (h * weights).sum(-1)
