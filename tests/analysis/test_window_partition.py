"""Swin-style window attention: padding to a multiple of the window (sizes mod the window),
slicing the padding off again (bounds that are sizes within the axis), and a window size kept
on the module that read-only helpers take. Each shape is checked against torch."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.runtime.dims import Sym, mod, sym
from tests.analysis.test_shapes_from_code import analyzed

WINDOWS = """
    import torch
    import torch.nn.functional as F
    from torch import nn


    def partition(x, window_size: list[int]):
        B, H, W, C = x.shape
        pad_r = (window_size[1] - W % window_size[1]) % window_size[1]
        pad_b = (window_size[0] - H % window_size[0]) % window_size[0]
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, pad_H, pad_W, _ = x.shape
        windows = x.view(B, pad_H // window_size[0], window_size[0], pad_W // window_size[1],
                         window_size[1], C)
        return windows, x[:, :H, :W, :]


    class Windows(nn.Module):
        def __init__(self, window_size: list[int]):
            super().__init__()
            self.window_size = window_size

        def forward(self, x):
            first, _ = partition(x, self.window_size)
            windows, cropped = partition(x, self.window_size)
            return windows, cropped


    def run(n: int):
        return Windows([7, 7])(torch.zeros(2, n, 10, 96))


    windows, cropped = Windows([7, 7])(torch.zeros(2, 9, 10, 96))
"""


def test_padding_to_the_window_and_cropping_it_off_keep_every_dim():
    shapes, findings = analyzed(WINDOWS)
    assert findings == []
    assert "(2, 2, 7, 2, 7, 96)" in shapes["windows"]
    assert "(2, 9, 10, 96)" in shapes["cropped"]
    # With a height only the caller knows, the padded height is n plus n's padding:
    assert "(2, (-(n % 7) + 7) % 7 + n, 14, 96)" in shapes["F.pad(x, (0, 0, 0, pad_r, 0, pad_b))"]
    assert "(2, n, 10, 96)" in shapes["x[:, :H, :W, :]"]
    pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(textwrap.dedent(WINDOWS), "t.py", "exec"), namespace)  # noqa: S102 (our snippet)
    assert namespace["windows"].shape == (2, 2, 7, 2, 7, 96)
    assert namespace["cropped"].shape == (2, 9, 10, 96)
    assert namespace["run"](12)[1].shape == (2, 12, 10, 96)


def test_a_slice_bound_that_may_pass_the_end_of_a_known_axis_stays_unknown():
    shapes, _ = analyzed("""
        import torch

        def head(n: int):
            return torch.zeros(5, 3)[:n], torch.zeros(n + 2, 3)[:n]
    """)
    assert shapes["torch.zeros(5, 3)[:n]"] == {"(?, 3)"}  # min(n, 5)
    assert shapes["torch.zeros(n + 2, 3)[:n]"] == {"(n, 3)"}


def test_a_size_mod_an_int_is_exact_for_multiples_and_a_size_below_it_otherwise():
    k = sym("k")
    assert mod(Sym.from_terms({("k",): 7, (): 3}), 7) == 3
    assert mod(10, 7) == 3
    assert isinstance(mod(k, 7), Sym) and str(mod(k, 7)) == "k % 7"
