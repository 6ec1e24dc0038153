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
