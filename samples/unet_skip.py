"""A small U-Net whose decoder was written before the skip connection was added.

The decoder's first convolution still takes the 16 channels of the upsampled map,
but torch.cat with the encoder's skip gives it 32.
"""

import torch
from torch import nn


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(16, 1, 1)

    def forward(self, x):
        skip = self.enc1(x)
        bottom = self.enc2(self.pool(skip))
        up = torch.cat([self.up(bottom), skip], dim=1)
        return self.head(self.dec(up))  # expect: SC113


def segment():
    return UNet()(torch.randn(2, 3, 64, 64))


def upsample_only():
    # The transposed convolution alone doubles the size back: 32 -> 64. No mistake here.
    return nn.ConvTranspose2d(32, 16, 2, stride=2)(torch.randn(2, 32, 32, 32))
