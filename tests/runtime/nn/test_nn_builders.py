"""Model builders as torchvision writes them: ``def resnet18(*, weights=None, **kwargs)``
checks its weights with a classmethod, may rewrite kwargs, and builds the model with
``Net(block, layers, **kwargs)`` from a helper. The builder called with no arguments runs
the model with its defaults; the findings are confirmed on real torch."""

from __future__ import annotations

import pytest

from shapecheck.analysis.api import analyze_source

MODEL = '''import torch
from torch import nn


class Weights:
    @classmethod
    def verify(cls, obj):
        if obj is not None:
            if type(obj) is str:
                obj = cls.lookup(obj)
        return obj


def _overwrite_named_param(kwargs, param, new_value):
    kwargs[param] = new_value


class Block(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self.conv = nn.Conv2d(inplanes, planes, 3, padding=1, bias=False)
        self.bn = norm_layer(planes)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class Net(nn.Module):
    def __init__(self, block, layers, num_classes=1000, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 8
        self.stem = nn.Conv2d(3, self.inplanes, 3, padding=1)
        self.layer1 = self._make_layer(block, 16, layers[0])
        self.layer2 = self._make_layer(block, 32, layers[1])
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear({WIDTH} * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks):
        layers = [block(self.inplanes, planes, norm_layer=self._norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, norm_layer=self._norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def _net(block, layers, weights, **kwargs):
    if weights is not None:
        _overwrite_named_param(kwargs, "num_classes", 10)
    return Net(block, layers, **kwargs)


def net(*, weights=None, **kwargs):
    weights = Weights.verify(weights)
    return _net(Block, [2, 2], weights, **kwargs)
'''


@pytest.mark.parametrize("width,raises", [(32, False), (64, True)])
def test_a_builder_called_without_arguments_builds_its_model_with_the_defaults(width, raises):
    source = MODEL.replace("{WIDTH}", str(width))
    findings = [(f.line, f.code) for f in analyze_source(source, "model.py")]
    builder_call = source.splitlines().index("    return _net(Block, [2, 2], weights, **kwargs)") + 1
    assert findings == ([(builder_call, "SC106")] if raises else [])
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(source, "<model>", "exec"), namespace)  # the test's own constant model
    model = namespace["net"]().eval()
    try:
        model(torch.randn(2, 3, 8, 8))
        raised = False
    except RuntimeError:
        raised = True
    assert raised == raises


def test_keywords_an_unknown_dict_may_hold_leave_the_parameters_unknown():
    # With weights required there is no call without arguments, and the caller's **kwargs
    # may hold another norm_layer: one that doubles the last width makes the head fit.
    source = MODEL.replace("{WIDTH}", "64").replace(
        "def net(*, weights=None, **kwargs):", "def net(weights, **kwargs):")
    assert [(f.line, f.code) for f in analyze_source(source, "model.py")] == []
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(source, "<model>", "exec"), namespace)  # the test's own constant model
    made = []

    def norm_layer(width):  # the last block's norm doubles the width
        made.append(width)
        return torch.nn.Conv2d(width, 2 * width, 1) if len(made) == 4 else torch.nn.BatchNorm2d(width)

    model = namespace["net"](None, norm_layer=norm_layer)
    assert model.eval()(torch.randn(2, 3, 8, 8)).shape == (2, 1000)
