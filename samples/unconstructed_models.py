"""Model files as they are written: classes that nothing in the file builds or calls.

``forward`` receives an input nobody describes; the first layer that consumes it
says its rank and width (a Conv2d with in_channels=3 takes (N, 3, H, W)), and
constructor parameters used as layer widths are sizes. Layers that disagree with
each other then fail for every input.
"""

import torch
from torch import Tensor, nn


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    """A residual block whose widths are its constructor's parameters: consistent."""

    def __init__(self, inplanes, planes):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)

    def forward(self, x: Tensor) -> Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + identity
        return self.relu(out)


class SmallCNN(nn.Module):
    """Two convolutions, the second norm sized for the first conv's width."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(32)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)

    def forward(self, images):
        x = torch.relu(self.bn1(self.conv1(images)))
        x = self.bn2(self.conv2(x))  # expect: SC113
        return x


class Classifier(nn.Module):
    """A pooled feature map flattened into a head sized for another width."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(x)))
        x = torch.flatten(x, 1)
        return self.fc(x)  # expect: SC106
