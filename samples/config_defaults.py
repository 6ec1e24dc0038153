"""Sizes that live in a script's options and in a model's config object.

Run without flags, a script uses its options' defaults; a dataclass config built
with no arguments uses its fields' defaults; a config nothing describes has fields
that are sizes. Each bug below fails on that configuration.
"""

import argparse
from dataclasses import dataclass

import torch
from torch import nn

parser = argparse.ArgumentParser(description="an MLP on flattened 28x28 images")
parser.add_argument("--hidden-size", type=int, default=256)
parser.add_argument("--num-classes", type=int, default=10)
parser.add_argument("--batch", dest="batch_size", type=int, default=32)


@dataclass
class BlockConfig:
    n_embd: int = 384
    n_head: int = 6


class Block(nn.Module):
    def __init__(self, config: BlockConfig):
        super().__init__()
        self.ln = nn.LayerNorm(config.n_embd)
        self.fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x):
        return x + self.proj(torch.relu(self.fc(self.ln(x))))


class Head(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fc = nn.Linear(config.n_embd, 512)
        self.out = nn.Linear(256, config.vocab_size)

    def forward(self, x):
        return self.out(torch.tanh(self.fc(x)))  # expect: SC106


def main():
    args = parser.parse_args()
    model = nn.Sequential(nn.Linear(784, args.hidden_size), nn.ReLU(),
                          nn.Linear(512, args.num_classes))
    images = torch.randn(args.batch_size, 784)
    block = Block(BlockConfig())
    tokens = block(torch.randn(args.batch_size, 16, 384))
    return model(images), tokens  # expect: SC106


if __name__ == "__main__":
    main()
