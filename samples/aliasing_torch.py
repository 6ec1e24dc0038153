"""A tiny torch training script with autograd and view hazards."""

import torch
import torch.nn.functional as F


def train_step(lr=0.01):
    w = torch.randn(3, 2, requires_grad=True)
    x = torch.randn(8, 3)
    hidden = torch.sigmoid(x @ w)
    hidden *= 2  # expect: SC307
    loss = hidden.sum()
    loss.backward()
    w -= lr * w.grad  # expect: SC307
    return w


def train_step_fixed(lr=0.01):
    w = torch.randn(3, 2, requires_grad=True)
    x = torch.randn(8, 3)
    hidden = torch.sigmoid(x @ w) * 2
    loss = hidden.sum()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    return w


def relu_then_mask():
    x = torch.randn(16, requires_grad=True)
    act = F.relu(x)
    act[:4] = 0  # expect: SC307
    act.mean().backward()
    return x.grad


def rolling_history(value):
    history = torch.zeros(8)
    history[1:] = history[:-1]  # expect: SC303
    history[0] = value
    return history


def rolling_history_fixed(value):
    history = torch.zeros(8)
    history[1:] = history[:-1].clone()
    history[0] = value
    return history


def symmetrize():
    m = torch.randn(4, 4)
    m += m.T  # expect: SC303
    return m


def add_bias():
    bias = torch.zeros(1, 16)
    batch_bias = bias.expand(32, 16)
    batch_bias.add_(0.5)  # expect: SC302
    return batch_bias


def flatten_transposed():
    feats = torch.randn(4, 6)
    return feats.t().view(-1)  # expect: SC308


def flatten_transposed_fixed():
    feats = torch.randn(4, 6)
    return feats.t().reshape(-1)


def drop_low_scores():
    scores = torch.rand(10)
    keep = scores > 0.5
    scores[keep].zero_()  # expect: SC301
    scores[~keep] = 0
    return scores


def momentum_update(param, grad, velocity, beta=0.9):
    velocity.mul_(beta).add_(grad)
    with torch.no_grad():
        param.sub_(velocity)
