"""Lists are mutable: a list literal's items stop counting once the list may have changed.

These are the patterns that gave false errors on scipy's source: rows appended
in a loop and then turned into an array, a shape list edited by index, a list
filled by a helper function.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from shapecheck.analysis.api import analyze_source


def codes(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(textwrap.dedent(source), "t.py"))


MUTATED = {
    "rows appended in a loop": """
        import numpy as np
        rows = []
        for i in range(4):
            rows.append((i, i + 1))
        z = np.array(rows, dtype=float)
        first, second = z[:, 0], z[:, 1]
        """,
    "arrays appended then stacked and swapped": """
        import numpy as np
        c = []
        for k in range(3):
            c.append(np.zeros(5))
        c = np.asarray(c)
        d = c.swapaxes(0, 1)
        """,
    "a shape list edited by index": """
        import numpy as np
        x_flat = np.zeros(1024)
        for a in range(3):
            newshape = [1] * 3
            newshape[a] = -1
            x = x_flat.reshape(newshape)
        """,
    "an attribute list appended to": """
        import numpy as np
        class Pool:
            def __init__(self):
                self.found = []
            def add(self, v):
                self.found.append(v)
            def run(self):
                self.found.append(np.zeros(2))
                self.found = np.array(self.found)
                return self.found[0]
        """,
    "a list filled by a helper": """
        import numpy as np
        def fill(out):
            out.extend([1.0, 2.0])
        values = []
        fill(values)
        first = np.array(values)[0]
        """,
    "a list grown by a helper through another name": """
        import numpy as np
        def grow(out):
            target = out
            target.append(3.0)
        values = [1.0, 2.0]
        grow(values)
        total = np.array(values) + np.ones(3)
        """,
    "a list shortened by a helper's del": """
        import numpy as np
        def drop_first(out):
            del out[0]
        values = [1.0, 2.0, 3.0]
        drop_first(values)
        total = np.array(values) + np.ones(2)
        """,
    "a list grown by a method the method it was handed to calls": """
        import numpy as np
        class Filler:
            def run(self, out):
                self.grow(out)
            def grow(self, out):
                out += [3.0]
        values = [1.0, 2.0]
        Filler().run(values)
        total = np.array(values) + np.ones(3)
        """,
    "a list extended with +=": """
        import numpy as np
        values = []
        values += [3.0]
        first = np.array(values)[0]
        """,
}


@pytest.mark.parametrize("name", MUTATED)
def test_a_mutated_list_gives_no_false_error(name):
    source = textwrap.dedent(MUTATED[name])
    exec(compile(source, "t.py", "exec"), {"np": np})  # the code is correct: it runs
    assert codes(source) == []


def test_an_unmutated_list_literal_still_gives_its_shape():
    source = """
        import numpy as np
        rows = [[1, 2], [3, 4], [5, 6]]
        z = np.array(rows)
        bad = z + np.ones(4)
        """
    assert codes(source) == [(5, "SC101")]


def test_reading_a_list_through_numpy_keeps_its_shape():
    source = """
        import numpy as np
        rows = [[1, 2], [3, 4], [5, 6]]
        n = len(rows)
        z = np.asarray(rows)
        bad = z + np.ones(4)
        """
    assert codes(source) == [(6, "SC101")]


def test_a_split_into_an_unknown_number_of_pieces_indexes_a_piece_not_a_row():
    # The width is a symbol, so chunk's piece count is unknown: pieces[0] is one piece of
    # rank 4, which BatchNorm2d takes (read as a row it would be 3-D, a false error).
    source = """
        import torch
        from torch import nn

        def f(x):
            B, C, H, W = x.shape
            pieces = x.chunk(4, dim=1)
            first = pieces[0]
            for piece in pieces:
                first = first + piece
            return nn.BatchNorm2d(8)(first)
        """
    assert codes(source) == []
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(textwrap.dedent(source), namespace)  # the test's own constant snippet
    assert namespace["f"](torch.zeros(2, 32, 3, 3)).shape == (2, 8, 3, 3)


DENSE_BLOCK = """
    import torch
    from torch import nn


    class DenseLayer(nn.Module):
        def __init__(self, in_chs, growth):
            super().__init__()
            self.conv = nn.Conv2d(in_chs, growth, 3, padding=1)

        def concat(self, xs):
            return torch.cat(xs, 1)

        def forward(self, x):
            if isinstance(x, torch.Tensor):
                prev = [x]
            else:
                prev = x
            return self.conv(self.concat(prev))


    class DenseBlock(nn.ModuleDict):
        def __init__(self, layers, in_chs, growth):
            super().__init__()
            for i in range(layers):
                self.add_module(f"layer{i + 1}", DenseLayer(in_chs + WIDTH * growth, growth))

        def forward(self, x):
            features = [x]
            for name, layer in self.items():
                features.append(layer(features))
            return torch.cat(features, 1)


    out = DenseBlock(3, 16, 8)(torch.zeros(2, 16, 5, 5))
    reveal_shape(out)
    """


@pytest.mark.parametrize("width, expected", [("i", []), ("(i + 1)", [(35, "SC113")])])
def test_a_list_handed_to_layers_that_only_read_it_keeps_its_items(width, expected):
    # DenseNet's block hands its growing list of features to each layer, which concatenates
    # them: the list keeps its items, so each layer's input width is known, and a layer
    # sized for one feature map more is torch's error.
    source = textwrap.dedent(DENSE_BLOCK).replace("WIDTH", width)
    findings = analyze_source(source, "t.py")
    assert sorted((f.line, f.code) for f in findings if f.code != "SC004") == expected
    revealed = [f.message for f in findings if f.code == "SC004"]
    torch = pytest.importorskip("torch")
    namespace: dict = {"reveal_shape": lambda x: None}
    if expected:
        with pytest.raises(RuntimeError, match="channels"):
            exec(source, namespace)  # the test's own constant snippet
        return
    exec(source, namespace)
    assert tuple(namespace["out"].shape) == (2, 40, 5, 5)
    assert revealed and "(2, 40, 5, 5)" in revealed[0]
