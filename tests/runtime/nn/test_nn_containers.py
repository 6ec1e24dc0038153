"""Containers in model code: Sequential built from a list (append, extend, +=, a
comprehension, a loop over a config), from an OrderedDict, grown with add_module; ModuleList
and ModuleDict indexed, iterated and zipped; ``model.fc.in_features``. Each model is linted
with a width that disagrees and with one that agrees, and built and run on real torch: the
finding is there exactly when torch raises."""

from __future__ import annotations

import pytest

from shapecheck.analysis.api import analyze_source

HEADER = "from collections import OrderedDict\n\nimport torch\nfrom torch import nn\n\n\n"

# (name, model source with {W} for the width under test, the width torch accepts, one it
# refuses, the input shape, the line of the finding counted from the class line as 1)
CASES = [
    ("append then star", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        layers.append(nn.Conv2d(3, 16, 3))
        layers.append(nn.ReLU())
        layers.append(nn.Conv2d({W}, 8, 3))
        self.features = nn.Sequential(*layers)

    def forward(self, x):
        return self.features(x)
''', 16, 32, (2, 3, 12, 12), 11),
    ("loop over a config with +=", '''class Net(nn.Module):
    def __init__(self, widths=(8, "M", 16, "M", 32)):
        super().__init__()
        layers = []
        c = 3
        for v in widths:
            if v == "M":
                layers += [nn.MaxPool2d(2)]
            else:
                layers += [nn.Conv2d(c, v, 3, padding=1), nn.BatchNorm2d(v), nn.ReLU()]
                c = v
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear({W}, 10)

    def forward(self, x):
        x = torch.flatten(self.pool(self.features(x)), 1)
        return self.fc(x)
''', 32, 16, (2, 3, 16, 16), 18),
    ("extend", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        layers = [nn.Conv2d(3, 16, 3)]
        layers.extend([nn.ReLU(), nn.Conv2d(16, 32, 3)])
        layers.append(nn.BatchNorm2d({W}))
        self.features = nn.Sequential(*layers)

    def forward(self, x):
        return self.features(x)
''', 32, 16, (2, 3, 12, 12), 10),
    ("comprehension over a range", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(*[nn.Linear(64, 64) for _ in range(3)])
        self.head = nn.Linear({W}, 10)

    def forward(self, x):
        return self.head(self.blocks(x))
''', 64, 32, (2, 64), 8),
    ("OrderedDict and a child by name", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("conv1", nn.Conv2d(3, 16, 3)),
            ("relu1", nn.ReLU()),
        ]))
        self.fc = nn.Linear(self.features.conv1.out_channels * {W}, 10)

    def forward(self, x):
        x = self.features(x).mean((2, 3))
        return self.fc(x)
''', 1, 2, (2, 3, 12, 12), 12),
    ("add_module", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(OrderedDict([("conv0", nn.Conv2d(3, 8, 3))]))
        for i, width in enumerate((16, 24)):
            self.features.add_module("conv%d" % (i + 1), nn.Conv2d(8 + 8 * i, width, 3))
        self.features.add_module("norm", nn.BatchNorm2d({W}))

    def forward(self, x):
        return self.features(x)
''', 24, 16, (2, 3, 16, 16), 10),
    ("ModuleList filled in a loop, iterated", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(3):
            self.layers.append(nn.Linear(16, 16))
        self.out = nn.Linear({W}, 2)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.out(x)
''', 16, 8, (2, 16), 12),
    ("ModuleList indexed", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 16), nn.Linear({W}, 4)])

    def forward(self, x):
        x = self.layers[0](x)
        return self.layers[-1](x)
''', 16, 32, (2, 8), 8),
    ("ModuleLists zipped", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(16, 16, 3, padding=1) for _ in range(2)])
        self.norms = nn.ModuleList([nn.BatchNorm2d({W}) for _ in range(2)])

    def forward(self, x):
        for conv, norm in zip(self.convs, self.norms):
            x = norm(conv(x))
        return x
''', 16, 32, (2, 16, 8, 8), 9),
    ("ModuleDict by key", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 32)
        self.heads = nn.ModuleDict({"cls": nn.Linear({W}, 10), "box": nn.Linear(32, 4)})

    def forward(self, x):
        h = self.body(x)
        return self.heads["cls"](h), self.heads["box"](h)
''', 32, 64, (2, 3), 9),
    ("in_features of a layer", '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(512, 1000)
        self.fc2 = nn.Linear(self.fc.out_features * {W}, 10)

    def forward(self, x):
        return self.fc2(self.fc(x))
''', 1, 2, (2, 512), 8),
    ("subclasses of Sequential", '''class ConvBN(nn.Sequential):
    def __init__(self, cin, cout, norm_layer=nn.BatchNorm2d):
        layers = [nn.Conv2d(cin, cout, 3, padding=1)]
        if norm_layer is not None:
            layers.append(norm_layer(cout))
        super().__init__(*layers)
        self.out_channels = cout


class Transition(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__()
        self.norm = nn.BatchNorm2d(cin)
        self.conv = nn.Conv2d(cin, cout, 1)


class Pair(nn.Sequential):
    pass


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = ConvBN(3, 16)
        self.t = Transition(16, 8)
        self.b = Pair(nn.Conv2d({W}, 4, 1), nn.ReLU())

    def forward(self, x):
        return self.b(self.t(self.a(x)))
''', 8, 16, (2, 3, 8, 8), 29),
    ("any number of blocks that keep the width", '''class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.fc(self.norm(x))


class Net(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(64) for _ in range(depth)])
        self.head = nn.Linear({W}, 10)

    def forward(self, x):
        return self.head(self.blocks(torch.zeros(2, 64)))


def net():
    return Net(4)
''', 64, 32, None, 18),
]


def _finding_lines(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(source, "model.py")
                  if f.severity.value in ("error", "warning"))


def _raises_on_torch(source: str, shape) -> bool:
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(source, "<model>", "exec"), namespace)  # the test's own constant models
    model = namespace["net"]() if "net" in namespace else namespace["Net"]()
    try:
        with torch.no_grad():
            model.eval()(torch.randn(*shape) if shape else None)
    except (RuntimeError, ValueError):
        return True
    return False


@pytest.mark.parametrize("name,model,good,bad,shape,line", CASES, ids=[c[0] for c in CASES])
def test_a_width_that_disagrees_inside_a_container_is_found_and_raises_on_torch(
        name, model, good, bad, shape, line):
    offset = HEADER.count("\n")
    fixed, broken = (HEADER + model.replace("{W}", str(w)) for w in (good, bad))
    assert _finding_lines(fixed) == []
    found = _finding_lines(broken)
    assert [at for at, _ in found] == [offset + line], found
    assert not _raises_on_torch(fixed, shape)
    assert _raises_on_torch(broken, shape)


def test_blocks_that_change_the_width_any_number_of_times_leave_it_unknown():
    source = HEADER + '''class Net(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.blocks = nn.Sequential(*[nn.Linear(64, 64 * 2) for _ in range(depth)])
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.blocks(torch.zeros(2, 64)))


def net():
    return Net(0)
'''
    # depth 0 runs; any other depth fails at the second block: nothing is certain.
    assert _finding_lines(source) == []
    assert not _raises_on_torch(source, None)


def test_a_loop_that_may_break_runs_to_a_fixed_point():
    source = HEADER + '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        layers = [nn.Linear(8, 8)]
        for width in (16, 32):
            if width > 16:
                break
            layers.append(nn.Linear(8, width))
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.features(x))
'''
    assert _finding_lines(source) == []
    assert not _raises_on_torch(source, (2, 8))
