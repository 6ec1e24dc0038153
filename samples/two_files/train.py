"""A training step built from blocks.py: both bugs need shapes from the other file."""

import torch

from blocks import EMBED_DIM, NUM_PATCHES, FeedForward, add_positions, position_table


def buggy_step(images):
    ff = FeedForward(EMBED_DIM, 4 * EMBED_DIM)
    tokens = torch.randn(8, NUM_PATCHES, 48)  # projected to 48 features, the block wants 64
    return ff(tokens).mean()  # expect: SC106


def buggy_embed():
    tokens = torch.randn(8, NUM_PATCHES, EMBED_DIM)  # the class token was never prepended
    return add_positions(tokens, position_table())  # expect: SC101


def fixed_step(images):
    ff = FeedForward(EMBED_DIM, 4 * EMBED_DIM)
    tokens = torch.randn(8, NUM_PATCHES, EMBED_DIM)
    return ff(tokens).mean()


def fixed_embed():
    tokens = torch.randn(8, NUM_PATCHES, EMBED_DIM)
    cls = torch.zeros(8, 1, EMBED_DIM)
    return add_positions(torch.cat([cls, tokens], dim=1), position_table())
