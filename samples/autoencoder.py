"""A convolutional autoencoder whose decoder was edited after the encoder.

The upsampling path halved the channels with a Conv2d, but the last
ConvTranspose2d still expects the encoder's 32.
"""

import torch
from torch import nn


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1),
        )
        self.decoder = nn.Sequential(
            nn.Upsample(scale_factor=2, mode="nearest"),
            nn.Conv2d(32, 16, 3, padding=1),
            nn.ReLU(),
            nn.ConvTranspose2d(32, 3, 2, stride=2),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))  # expect: SC113


def reconstruct():
    images = torch.randn(4, 3, 32, 32)
    return AutoEncoder()(images)


def upsample_back():
    # Nearest upsampling by 4 undoes the two stride-2 convolutions: 8 -> 32. No mistake here.
    codes = torch.randn(4, 32, 8, 8)
    return nn.Upsample(scale_factor=4)(codes)
