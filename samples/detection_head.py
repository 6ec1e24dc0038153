"""An anchor-based detection head whose box branch was sized for 5 numbers per anchor.

The regression conv predicts 5 values per anchor (a leftover objectness score), the
view reads 4 per anchor: 45 channels do not split into fours, for any image.
"""

import torch
from torch import nn


class DetectionHead(nn.Module):
    def __init__(self, in_channels=64, num_anchors=9, num_classes=20):
        super().__init__()
        self.num_anchors = num_anchors
        self.num_classes = num_classes
        self.conv = nn.Sequential(nn.Conv2d(in_channels, in_channels, 3, padding=1), nn.ReLU())
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, 3, padding=1)
        self.bbox_pred = nn.Conv2d(in_channels, num_anchors * 5, 3, padding=1)

    def forward(self, features):
        x = self.conv(features)
        n, _, h, w = x.shape
        logits = self.cls_logits(x).view(n, self.num_anchors, self.num_classes, h, w)
        boxes = self.bbox_pred(x).view(n, -1, 4, h, w)  # expect: SC109
        return logits, boxes


def detect():
    return DetectionHead()(torch.randn(2, 64, 16, 16))


def classify_only():
    head = DetectionHead()
    x = head.conv(torch.randn(2, 64, 16, 16))
    return head.cls_logits(x).view(2, 9, 20, 16, 16)  # the class branch is right
