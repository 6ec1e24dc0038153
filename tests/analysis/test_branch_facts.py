"""Which branch runs: tests the known values decide (comparisons of ints and dims, ``and``/
``or``/``not``, ``is None``, ``in``, flags kept in locals and on ``self``) take one path, and
the other path's errors are no findings. Each snippet also runs on real torch: the pruned
path's error is real, and the program as written runs."""

from __future__ import annotations

import textwrap
import warnings

import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source
from shapecheck.analysis.interpret.conditions import compare, identity, membership
from shapecheck.analysis.values import (
    UNKNOWN_BOOL,
    UNKNOWN_VALUE,
    AbstractArray,
    ConstValue,
    IntValue,
    KnownTruth,
    LayerValue,
    TupleValue,
    truth,
)
from shapecheck.runtime.dims import add, sym
from shapecheck.runtime.dims import compare as compare_dims


def codes(source: str) -> list[tuple[int, str]]:
    found = analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings())
    return sorted((f.line, f.code) for f in found)


def run(source: str) -> BaseException | None:
    """Execute one of our own snippets (never user input) and return what it raised."""
    pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(textwrap.dedent(source), "<snippet>", "exec"), {})
        except BaseException as exc:  # noqa: BLE001 - the snippet's failure is the evidence
            return exc
    return None


RESIDUAL = """
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, stride: int) -> None:
        super().__init__()
        if stride not in [1, 2]:
            raise ValueError(stride)
        self.use_residual = (stride == 1) and (in_channels == out_channels)
        self.conv = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = x
        x = self.conv(x)
        return residual + x if self.use_residual else x


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = Block(16, 32, 1)

    def forward(self, x):
        return self.block(x)


y = Net()(torch.zeros(2, 16, 8, 8))
"""


def test_a_residual_a_stored_flag_rules_out_is_no_finding():
    # mobilevit: use_residual = (stride == 1) and (in_channels == out_channels), 16 vs 32.
    assert codes(RESIDUAL) == []
    assert run(RESIDUAL) is None
    assert run("import torch\ntorch.zeros(2, 16, 8, 8) + torch.zeros(2, 32, 8, 8)") is not None


def test_a_residual_a_stored_flag_allows_is_still_checked():
    source = RESIDUAL.replace("residual + x if", "residual[:, :8] + x if").replace(
        "Block(16, 32, 1)", "Block(32, 32, 1)").replace("zeros(2, 16,", "zeros(2, 32,")
    # Once, where the model's forward runs the block: a module built in another module's
    # __init__ runs in that module's forward, not once more on its own.
    assert codes(source) == [(26, "SC101")]
    assert isinstance(run(source), RuntimeError)


FLAGS = """
import torch


def pick(n: int, use_norm: bool):
    x = torch.ones(3, 4)
    same = n == n + 0
    wide = not use_norm and n + 1 <= n
    if wide:
        x = x[:, :, 0]
    elif same and n - 1 < n < n + 1:
        x = x[0]
    while wide:
        x = x[:, :, :, 0]
    return x + torch.ones(5)


y = pick(7, True)
"""


def test_comparisons_of_int_symbols_and_three_valued_logic_decide_the_branch():
    # With n an int nobody knows, `n + 1 <= n` is false and `n - 1 < n < n + 1` true;
    # `not use_norm` is a bool nobody knows, and `and` with a false comparison is false. So
    # x is surely x[0], of shape (4,), and only the last line fails.
    assert codes(FLAGS) == [(15, "SC101")]
    exc = run(FLAGS)
    assert isinstance(exc, RuntimeError) and exc.__traceback__.tb_next.tb_next.tb_lineno == 15


def test_a_condition_its_right_side_decides_is_decided_whatever_the_left_side_is():
    # timm: `if self.training and self.drop_rate > 0.` with the rate left at 0.
    source = """
    import torch
    from torch import nn

    class Head(nn.Module):
        def __init__(self, drop_rate: float = 0.0):
            super().__init__()
            self.drop_rate = drop_rate

        def forward(self, x):
            if self.training and self.drop_rate > 0.:
                x = x[:, :, 0]
            return x

    y = Head()(torch.ones(2, 3))
    """
    assert codes(source) == []
    assert run(source) is None


def test_an_order_of_a_parameter_is_not_decided_by_sizes_being_non_negative():
    # dim=-1 is a common int parameter: `dim < 0` may hold, so its branch is checked.
    source = """
    import torch

    def last(dim: int):
        x = torch.zeros(3)
        if dim < 0:
            return x[:, 0]
        return x
    """
    assert codes(source) == [(7, "SC111")]
    assert run("import torch\ntorch.zeros(3)[:, 0]") is not None


def test_is_none_of_a_layer_and_membership_of_a_str_decide_the_branch():
    source = """
    import torch
    from torch import nn

    class Head(nn.Module):
        def __init__(self, mode: str = "linear"):
            super().__init__()
            self.norm = nn.LayerNorm(4)
            self.mode = mode

        def forward(self, x):
            if self.norm is None:
                x = x[:, :, :, 0]
            if self.mode in ("conv", "none"):
                x = x[:, :, :, 0]
            return self.norm(x)

    y = Head()(torch.ones(2, 4))
    """
    assert codes(source) == []
    assert run(source) is None


def test_an_undecided_test_keeps_both_paths():
    source = """
    import torch

    def f(x, flag):
        y = torch.zeros(3)
        return y[:, 0] if flag else y
    """
    assert codes(source) == [(6, "SC111")]


def test_the_dim_algebra_orders_ints_only_by_a_constant_difference():
    n = sym("n")
    assert compare_dims("gt", add(n, 1), n) is True
    assert compare_dims("le", add(n, 1), n) is False
    assert compare_dims("gt", n, 0) is None  # n may be a negative int
    assert compare_dims("eq", 16, 32) is False
    assert compare_dims("ne", n, add(n, 2)) is True
    assert compare_dims("eq", n, sym("m")) is None


def test_condition_values_are_bools_only_when_python_gives_bools():
    n = IntValue(sym("n"))
    assert compare("eq", IntValue(16), IntValue(32)) == ConstValue(False)
    assert compare("eq", n, IntValue(3)) is UNKNOWN_BOOL
    assert compare("eq", ConstValue("a"), ConstValue("a")) == ConstValue(True)
    assert compare("eq", UNKNOWN_VALUE, IntValue(3)) is UNKNOWN_VALUE  # may be an array
    assert compare("lt", ConstValue("a"), IntValue(1)) is UNKNOWN_VALUE  # raises TypeError
    assert identity(LayerValue("Linear"), ConstValue(None), True) == ConstValue(True)
    assert identity(ConstValue(None), ConstValue(None), False) == ConstValue(True)
    # a config field read as an int symbol may be None
    assert identity(n, ConstValue(None), False) is UNKNOWN_BOOL
    array = AbstractArray((3,), "float32", "torch")
    assert identity(array, ConstValue(None), False) == ConstValue(False)
    assert membership(IntValue(1), TupleValue((IntValue(1), IntValue(2)), True), True) == \
        ConstValue(False)
    assert membership(n, TupleValue((IntValue(1), IntValue(2))), False) is UNKNOWN_BOOL


def test_a_value_nobody_knows_keeps_a_truth_its_condition_decided():
    assert truth(KnownTruth(False)) is False
    assert truth(UNKNOWN_BOOL) is None
    assert truth(TupleValue(())) is False and truth(TupleValue((), True)) is None  # lists grow
    assert truth(ConstValue(None)) is False and truth(IntValue(sym("n"))) is None


POSITIONS = """
import torch
from torch import nn


class Positions(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, 8))

    def forward(self, coords, input_shape=None):
        coords = coords.clone()
        if input_shape is not None:
            coords[:, :, :, 0] = coords[:, :, :, 0] / input_shape[1]
        return coords @ self.weight


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.positions = Positions()

    def grid(self):
        g = torch.ones((4, 4))
        return self.positions(torch.stack([g, g], dim=-1))


def scale(coords, input_shape=None):
    if input_shape is not None:
        coords = coords[:, :, :, 0] / input_shape[1]
    return coords


out = Model().grid()
scaled = scale(torch.ones(4, 4, 2))
"""


def test_a_parameter_the_call_leaves_out_has_its_default_none():
    # sam3_tracker: self.shared_image_embedding(coords) runs forward with input_shape None.
    assert codes(POSITIONS) == []
    assert run(POSITIONS) is None
    assert run("import torch\ntorch.ones(4, 4, 2)[:, :, :, 0]") is not None


def test_a_parameter_a_call_gives_keeps_its_branch():
    source = POSITIONS.replace("scale(torch.ones(4, 4, 2))", "scale(torch.ones(4, 4, 2), (4, 4))")
    assert codes(source) == [(35, "SC111")]
    assert isinstance(run(source), IndexError)


def test_without_a_caller_a_none_default_keeps_both_branches():
    source = """
    import torch

    def scale(coords, input_shape=None):
        y = torch.zeros(3)
        if input_shape is not None:
            return y[:, 0]
        return y
    """
    assert codes(source) == [(7, "SC111")]


def test_a_decorator_may_fill_a_left_out_parameter():
    # A decorator that fills keywords from a config: the body may see another value.
    source = """
    import functools
    import torch

    def with_shape(f):
        @functools.wraps(f)
        def wrapper(coords, input_shape=None):
            return f(coords, input_shape=(4, 4) if input_shape is None else input_shape)
        return wrapper

    @with_shape
    def scale(coords, input_shape=None):
        if input_shape is not None:
            coords = coords[:, :, :, 0] / input_shape[1]
        return coords

    scaled = scale(torch.ones(4, 4, 2))
    """
    assert codes(source) == [(17, "SC111")]
    assert isinstance(run(source), IndexError)


def test_a_caller_forwarding_its_own_optional_parameter_keeps_the_callee_branch():
    # perceiver: a classification decoder built with output_index_dims=1 forwards
    # subsampled_points to the basic decoder, whose `is not None` branch indexes a 0-d
    # tensor. The signature takes the points, and given any, the call fails: a finding.
    source = """
    import torch

    class Basic:
        def __init__(self, dims):
            self.dims = dims

        def query(self, x, points=None):
            if points is not None:
                return torch.tensor(self.dims)[None, :]
            return x

    class Classifier:
        def __init__(self):
            self.basic = Basic(1)

        def query(self, x, points=None):
            return self.basic.query(x, points=points)

    q = Classifier().query(torch.ones(2), points=torch.arange(3))
    """
    assert codes(source) == [(18, "SC111")]
    assert isinstance(run(source), IndexError)


def test_past_the_specialization_budget_a_method_of_another_instance_is_unknown():
    # diffusers hunyuan_video: the encoder built with out_channels=16 is a different instance
    # from the one its class was summarized with (the constructor's defaults, 3): once the
    # budget is spent, the summary's 6 channels are not this encoder's 32.
    calls = "\n".join(f"spent_{i} = widen(torch.zeros({i + 1}))" for i in range(310))
    source = f"""
import torch
from torch import nn


def widen(x):
    return x


{calls}


class Encoder(nn.Module):
    def __init__(self, out_channels: int = 3, double_z: bool = True):
        super().__init__()
        channels = 2 * out_channels if double_z else out_channels
        self.conv = nn.Conv2d(4, channels, 1)

    def forward(self, x):
        return self.conv(x)


class Autoencoder(nn.Module):
    def __init__(self, latent_channels: int = 16):
        super().__init__()
        self.encoder = Encoder(out_channels=latent_channels)
        self.quant_conv = nn.Conv2d(2 * latent_channels, 2 * latent_channels, 1)

    def forward(self, x):
        return self.quant_conv(self.encoder(x))


y = Autoencoder()(torch.zeros(1, 4, 8, 8))
"""
    assert codes(source) == []
    assert run(source) is None


def test_a_classmethod_builds_its_class_and_a_staticmethod_takes_no_self():
    # diffusers controlnet_xs: cls(base_channels=...) in a classmethod builds the block; with
    # cls taken for an instance it ran forward with the constructor's keywords instead.
    source = """
    import torch
    from torch import nn

    class Mid(nn.Module):
        def __init__(self, channels: int):
            super().__init__()
            self.proj = nn.Conv2d(channels, channels, 1)

        @classmethod
        def build(cls, channels):
            return cls(channels=channels)

        @staticmethod
        def first_column(x):
            return x[:, 0]

        def forward(self, base, ctrl=None, apply_control=True):
            if apply_control:
                ctrl = torch.cat([ctrl, self.proj(base)], dim=1)
            return ctrl

        def column(self):
            return self.first_column(torch.zeros(3))

    mid = Mid.build(4)
    """
    assert codes(source) == [(24, "SC111")]  # the static helper, called with a 1-d array
    assert run(source) is None
    assert isinstance(run(source + "mid.column()\n"), IndexError)


def test_a_rank_one_branch_says_is_not_the_parameter_s_rank():
    # diffusers vidtok: a norm taking 5-d, 4-d or 3-d input by x.dim() said 5 dims (its
    # first branch's permute) to every caller, and a 2-d block's conv then failed.
    source = """
    import torch
    from torch import nn

    class ChannelNorm(nn.Module):
        def __init__(self, dim: int):
            super().__init__()
            self.norm = nn.LayerNorm(dim)

        def forward(self, x):
            if x.dim() == 5:
                x = x.permute(0, 2, 3, 4, 1)
                x = self.norm(x)
                x = x.permute(0, 4, 1, 2, 3)
            else:
                x = x.permute(0, 2, 3, 1)
                x = self.norm(x)
                x = x.permute(0, 3, 1, 2)
            return x

    class Block(nn.Module):
        def __init__(self, channels: int, btype: str = "3d"):
            super().__init__()
            self.norm = ChannelNorm(channels)
            if btype == "2d":
                self.conv = nn.Conv2d(channels, channels, 3, padding=1)
                self.shortcut = nn.Conv2d(channels, channels, 1)
            else:
                self.conv = nn.Conv3d(channels, channels, 3, padding=1)
                self.shortcut = nn.Conv3d(channels, channels, 1)

        def forward(self, x):
            hidden_states = x
            hidden_states = self.norm(hidden_states)
            hidden_states = self.conv(hidden_states)
            return self.shortcut(x) + hidden_states

    y = Block(8, btype="2d")(torch.ones(1, 8, 4, 4))
    """
    assert codes(source) == []
    assert run(source) is None


def test_a_rank_taken_from_an_index_is_no_ground_for_an_error_inside_a_sequential():
    # diffusers allegro: a static helper indexes hidden_states[:, :, 0:1] (taken as 3-d), and
    # a Sequential of GroupNorm and Conv3d then got the norm's output as a known 3-d array.
    source = """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, dim: int):
            super().__init__()
            self.conv = nn.Sequential(nn.GroupNorm(4, dim), nn.SiLU(), nn.Conv3d(dim, dim, 1))

        @staticmethod
        def pad_time(hidden_states: torch.Tensor) -> torch.Tensor:
            return torch.cat((hidden_states[:, :, 0:1], hidden_states), dim=2)

        def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
            return self.conv(self.pad_time(hidden_states))

    y = Block(8)(torch.ones(1, 8, 3, 4, 4))
    """
    assert codes(source) == []
    assert run(source) is None


WINDOW = """
import numpy as np


def get_window(window, n):
    if not isinstance(window, str | tuple):
        return np.kaiser(n, float(window))
    name = window if isinstance(window, str) else window[0]
    if name.endswith("_symmetric"):
        name = name[:-10]
    return np.hanning(n)


def check(window, n):
    if isinstance(window, str) or type(window) is tuple:
        win = get_window(window, n)
    else:
        win = np.asarray(window)
    return win


w = check(np.ones(20), 20) + np.ones(20)
"""


def test_type_of_an_array_and_a_union_of_classes_decide_the_branch():
    # scipy's check_COLA and get_window: an array given as the window is neither a str nor a
    # tuple, so the branch that indexes window[0] as a name never runs for it.
    assert codes(WINDOW) == []
    assert run(WINDOW) is None
    assert codes(WINDOW.replace("np.ones(20), 20)", "'hann_symmetric', 20)")) == []
