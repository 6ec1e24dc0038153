"""Shapes the code states without a literal: dict literals passed as ``**dd``, layer defaults,
slices with bounds nobody knows, and ranks taken from how the code indexes an array."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.coverage import CoverageRecorder
from shapecheck.runtime.dims import format_shape


class _Shapes(CoverageRecorder):
    __slots__ = ("shapes",)

    def __init__(self) -> None:
        super().__init__()
        self.shapes: dict = {}

    def record(self, node, value) -> None:
        super().record(node, value)
        if not value.maybe_not_array:
            self.shapes.setdefault(node, set()).add(
                "?" if value.shape is None else format_shape(value.shape))


def analyzed(source: str) -> tuple[dict[str, set[str]], list[tuple[int, str]]]:
    """Each array expression's text with the shapes it was seen with, and the findings."""
    recorder = _Shapes()
    findings = analyze_source(textwrap.dedent(source), "t.py", coverage=recorder)
    module = cst.parse_module("")
    shapes: dict[str, set[str]] = {}
    for node, seen in recorder.shapes.items():
        shapes.setdefault(module.code_for_node(node), set()).update(seen)
    return shapes, [(f.line, f.code) for f in findings]


CONV_BLOCK = """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, in_chs, out_chs, norm_chs, act_layer=nn.ReLU, device=None):
            super().__init__()
            dd = {"device": device, "dtype": None}
            self.conv = nn.Conv2d(in_chs, out_chs, 3, 1, 1, bias=False, **dd)
            self.bn = nn.BatchNorm2d(norm_chs, **dd)
            self.act = act_layer(inplace=True)

        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    block = Block(3, 8, NORM)
    y = block(torch.zeros(2, 3, 16, 16))
"""


def test_a_splat_of_a_dict_literal_passes_its_keys_and_a_default_layer_runs():
    shapes, found = analyzed(CONV_BLOCK.replace("NORM", "8"))
    assert shapes["self.act(self.bn(self.conv(x)))"] >= {"(2, 8, 16, 16)"}
    assert shapes["block(torch.zeros(2, 3, 16, 16))"] == {"(2, 8, 16, 16)"}
    assert found == []


def test_a_norm_sized_for_another_width_is_found_through_the_splat():
    torch = pytest.importorskip("torch")
    _, found = analyzed(CONV_BLOCK.replace("NORM", "16"))
    # At the construction that builds the mismatch, and again where the block is called.
    assert found == [(16, "SC113"), (17, "SC113")]
    block = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, 1, 1, **{"device": None}),
                                torch.nn.BatchNorm2d(16, **{"device": None}))
    with pytest.raises(RuntimeError):
        block(torch.zeros(2, 3, 16, 16))


def test_a_dict_literal_reads_its_items_until_something_may_change_it():
    _, found = analyzed("""
        import numpy as np

        sizes = {"rows": 3, "cols": 4}
        a = np.zeros(sizes["rows"]) + np.zeros(sizes.get("cols"))
        b = np.zeros(dict(n=5)["n"]) + np.zeros(sizes.get("depth", 2))
        sizes["rows"] = 4
        c = np.zeros(sizes["rows"]) + np.zeros(4)
    """)
    assert found == [(5, "SC101"), (6, "SC101")]


def test_a_slice_keeps_its_axis_whatever_its_bounds():
    shapes, found = analyzed("""
        import numpy as np

        def f(n, k):
            x = np.zeros((4, 5, 6))
            a = x[:n]
            b = x[n:, ::k, 1]
            return a + np.zeros(5)
    """)
    assert shapes["x[:n]"] == {"(?, 5, 6)"}
    assert shapes["x[n:, ::k, 1]"] == {"(?, ?)"}
    assert found == [(8, "SC101")]
    with pytest.raises(ValueError):
        np = pytest.importorskip("numpy")
        np.zeros((4, 5, 6))[:2] + np.zeros(5)


def test_an_index_gives_an_array_of_unknown_rank_its_rank_and_no_error_rests_on_it():
    shapes, found = analyzed("""
        import numpy as np
        import torch
        from torch import Tensor

        def encode(proposals: Tensor) -> Tensor:
            x1 = proposals[:, 0].unsqueeze(1)
            x2 = proposals[:, 2].unsqueeze(1)
            widths = torch.cat((x2 - x1, x2 - x1), dim=1)
            moved = widths.transpose(2, 3)
            if proposals.dim() == 3:
                bad = np.zeros(3) + np.zeros(4)
            return widths
    """)
    assert shapes["proposals[:, 0].unsqueeze(1)"] == {"(proposals.shape[0], 1)"}
    assert shapes["torch.cat((x2 - x1, x2 - x1), dim=1)"] == {"(proposals.shape[0], 2)"}
    # transpose(2, 3) would be out of range for the assumed 2 dims; the real rank may be 4.
    # The branch on dim() is walked: the rank is assumed, not known.
    assert found == [(12, "SC101")]


def test_an_unpack_states_the_rank_an_index_had_assumed():
    shapes, found = analyzed("""
        def f(x):
            first = x[:, 0]
            B, T, C = x.shape
            return x.sum(-1)
    """)
    assert shapes["x.sum(-1)"] == {"(B, T)"}
    assert found == []


def test_a_leading_dim_of_an_array_of_unknown_rank_is_an_int():
    shapes, _ = analyzed("""
        import torch

        def f(x: torch.Tensor):
            num_masks = x.shape[0]
            return torch.arange(num_masks)
    """)
    assert shapes["torch.arange(num_masks)"] == {"(num_masks,)"}


def test_a_partial_as_a_layer_default_builds_the_layer_it_names():
    torch = pytest.importorskip("torch")
    source = """
        from functools import partial
        import torch
        from torch import nn

        class Block(nn.Module):
            def __init__(self, dim, norm_layer=partial(nn.LayerNorm, eps=1e-6)):
                super().__init__()
                self.norm = norm_layer(dim)

            def forward(self, x):
                return self.norm(x)

        y = Block(WIDTH)(torch.zeros(2, 5, 6))
    """
    shapes, found = analyzed(source.replace("WIDTH", "6"))
    assert shapes["Block(6)(torch.zeros(2, 5, 6))"] == {"(2, 5, 6)"}
    assert found == []
    _, found = analyzed(source.replace("WIDTH", "8"))
    assert found == [(14, "SC113")]
    norm = torch.nn.LayerNorm(8, eps=1e-6)
    with pytest.raises(RuntimeError):
        norm(torch.zeros(2, 5, 6))


def test_a_copy_of_a_parameter_nothing_is_known_of_is_not_counted_as_an_array():
    shapes, _ = analyzed("""
        from copy import deepcopy

        def prune(parent_module):
            new_module = deepcopy(parent_module)
            return new_module
    """)
    assert "new_module" not in shapes and "deepcopy(parent_module)" not in shapes


NET = """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, 3, 1, 1)

        def forward(self, x):
            return self.conv(x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.b1 = Block(3, 16)
            self.b2 = Block(WIDTH, 32)
            self.fc = nn.Linear(32, 10)

        def forward(self, images):
            y = self.b1(images)
            z = self.b2(y)
            return self.fc(z.mean((2, 3)))
"""


def test_a_callee_whose_layer_says_its_input_rank_gives_the_caller_that_rank():
    shapes, found = analyzed(NET.replace("WIDTH", "16"))
    assert shapes["self.b1(images)"] == {"(images.shape[0], 16, images.shape[2], images.shape[3])"}
    assert shapes["self.fc(z.mean((2, 3)))"] == {"(images.shape[0], 10)"}
    assert found == []


def test_consecutive_blocks_that_disagree_on_channels_are_found_with_no_call_in_the_file():
    torch = pytest.importorskip("torch")
    _, found = analyzed(NET.replace("WIDTH", "8"))
    assert [line for line, _ in found] == [22]
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, 1, 1), torch.nn.Conv2d(8, 32, 3, 1, 1))
    with pytest.raises(RuntimeError):
        net(torch.zeros(2, 3, 8, 8))


def test_a_helper_that_indexes_its_argument_gives_the_caller_the_assumed_rank():
    shapes, found = analyzed("""
        def first_column(boxes):
            return boxes[:, 0]

        def widths(proposals):
            left = first_column(proposals)
            return left.transpose(1, 2)
    """)
    assert shapes["first_column(proposals)"] == {"(proposals.shape[0],)"}
    assert found == []  # the rank is assumed: transpose(1, 2) is no certain error


def test_a_list_filled_in_a_loop_or_a_comprehension_stacks_to_any_count():
    torch = pytest.importorskip("torch")
    shapes, found = analyzed("""
        import torch

        def collect(n):
            outs = []
            for i in range(n):
                outs.append(torch.zeros(3, 4))
            stacked = torch.stack(outs)
            joined = torch.cat([torch.zeros(3, 4) for _ in range(n)], dim=1)
            return stacked + joined[:, :4], outs[-1] + torch.zeros(5)
    """)
    assert shapes["torch.stack(outs)"] == {"(?, 3, 4)"}
    assert shapes["torch.cat([torch.zeros(3, 4) for _ in range(n)], dim=1)"] == {"(3, ?)"}
    assert found == [(10, "SC101")]  # each item is (3, 4), whatever the count
    with pytest.raises(RuntimeError):
        torch.zeros(3, 4) + torch.zeros(5)


def test_keywords_forward_what_the_call_gave_and_a_builder_runs_the_defaults():
    shapes, found = analyzed("""
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self, layers, num_classes=1000, width=64):
                super().__init__()
                self.conv = nn.Conv2d(3, width, 3)
                self.fc = nn.Linear(width, num_classes)

            def forward(self, x):
                return self.fc(self.conv(x).mean((2, 3)))

        def _net(layers, **kwargs):
            return Net(layers, **kwargs)

        def net18(**kwargs):
            return _net([2, 2], **kwargs)

        def wide(**kwargs):
            return _net(width=128, **kwargs)

        small = net18(num_classes=10)(torch.zeros(2, 3, 8, 8))
        large = wide(layers=[3, 3], num_classes=5)(torch.zeros(2, 3, 8, 8))
    """)
    assert shapes["net18(num_classes=10)(torch.zeros(2, 3, 8, 8))"] == {"(2, 10)"}
    assert shapes["wide(layers=[3, 3], num_classes=5)(torch.zeros(2, 3, 8, 8))"] == {"(2, 5)"}
    assert found == []


def test_a_value_the_caller_gave_is_not_the_default_even_when_nothing_is_known_of_it():
    _, found = analyzed("""
        import numpy as np

        def f(x, flip: bool = False):
            if flip:
                x = x.T
            return x + np.zeros(3)

        def unknown_flag(flag):
            return f(np.zeros((4, 3)).T, flag)

        def default_flag():
            return f(np.zeros((4, 3)).T)
    """)
    assert found == [(13, "SC101")]  # only where the default runs: (3, 4) + (3,)


def test_an_assignment_of_more_dims_than_its_slot_is_an_error_only_when_they_are_not_all_one():
    np = pytest.importorskip("numpy")
    _, found = analyzed("""
        import numpy as np

        def f(b):
            buf = np.zeros((1, 3, 4))
            buf[0] = np.zeros((b, 3, 4))
            buf[0] = np.zeros((2, 3, 4))
    """)
    assert found == [(7, "SC201")]
    buf = np.zeros((1, 3, 4))
    buf[0] = np.zeros((1, 3, 4))  # b == 1 runs: a leading 1 is dropped
    with pytest.raises(ValueError):
        buf[0] = np.zeros((2, 3, 4))


def _line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(source).splitlines(), 1) if text in line)


def test_a_product_with_a_known_matrix_says_the_trailing_dims_of_both_sides():
    """``x @ w`` with w (16, 8): x ends in 16 whatever its rank, and the product in 8."""
    torch = pytest.importorskip("torch")
    source = """
    import torch


    def head(x):
        w = torch.randn(16, 8)
        h = x @ w
        v = torch.randn(WIDTH, 4)
        return h @ v
    """
    assert analyzed(source.replace("WIDTH", "8"))[1] == []
    bad = source.replace("WIDTH", "9")
    assert analyzed(bad)[1] == [(_line_of(bad, "return h @ v"), "SC106")]
    namespace: dict = {}
    exec(compile(textwrap.dedent(bad), "snippet.py", "exec"), namespace)
    for rank in (1, 2, 3):  # every rank of x fails the same way
        with pytest.raises(RuntimeError):
            namespace["head"](torch.randn(*(2,) * (rank - 1), 16))


def test_operator_functions_are_the_operators():
    torch = pytest.importorskip("torch")
    source = """
    import math
    import operator

    import torch

    x = torch.zeros(2, 64)
    y = operator.mul(x, 1.0 / math.sqrt(16))
    z = operator.add(y, torch.zeros(3))
    """
    assert analyzed(source)[1] == [(_line_of(source, "z = operator.add("), "SC101")]
    with pytest.raises(RuntimeError):
        import operator
        operator.add(torch.zeros(2, 64), torch.zeros(3))


def test_a_reduction_of_a_parameter_over_a_later_axis_broadcast_back_is_misaligned_at_any_rank():
    _, findings = analyzed("""
        import numpy as np
        import torch

        def rows(x):
            return x / x.sum(1)

        def reversed_operands(x):
            return x.mean(axis=2) - x

        def in_place(X):
            X -= X.std(axis=1)
            return X

        def annotated(t: torch.Tensor):
            return t - t.mean(dim=1)

        def fine(X, t: torch.Tensor):
            a = X - X.mean(axis=0)                # the leading axis: aligned at every rank
            b = X - X.mean(axis=1, keepdims=True)
            c = X - X.mean(axis=-1)               # a 1-D X gives a scalar: fine
            d = t / t.norm(2)                     # torch's norm takes p first: a scalar
            m = X.mean(axis=1)
            X = X[:, :2]
            e = X - m                             # another array than the one reduced
            return a, b, c, d, e
    """)
    assert findings == [(6, "SC103"), (9, "SC103"), (12, "SC103"), (16, "SC103")]


def test_a_module_that_is_one_of_several_gives_what_they_all_agree_on():
    shapes, findings = analyzed("""
        import torch
        from torch import nn

        class Attention(nn.Module):
            def __init__(self, dim, qk_norm, gated, norm_layer=nn.LayerNorm):
                super().__init__()
                self.qkv = nn.Linear(dim, dim * 3)
                self.q_norm = norm_layer(dim // 8) if qk_norm else nn.Identity()
                self.gate = nn.Linear(dim, 4) if gated else nn.Identity()
                self.wrong = nn.LayerNorm(dim + 1) if gated else nn.Identity()

            def forward(self, x):
                B, N, C = x.shape
                q = self.qkv(x).reshape(B, N, 3, 8, C // 8).permute(2, 0, 3, 1, 4)[0]
                kept = self.q_norm(q)
                either = self.gate(x)
                maybe_wrong = self.wrong(x)
                return kept, either, maybe_wrong
    """)
    assert shapes["kept"] == {"(B, 8, N, dim//8)"}  # qkv says C is dim
    assert shapes["either"] == {"(B, N, ?)"}  # (B, N, 4) or (B, N, C): the last dim unknown
    assert findings == []  # the LayerNorm of another width runs only if gated: not certain


BUILDER_WITH_EDITED_KEYWORDS = """
    from functools import partial
    from torch import nn
    from weights_api import verify

    def _ovewrite_named_param(kwargs, param, new_value):
        if param in kwargs:
            if kwargs[param] != new_value:
                raise ValueError("conflict")
        else:
            kwargs[param] = new_value

    class Net(nn.Module):
        def __init__(self, c, num_classes=1000, norm_layer=None):
            super().__init__()
            if norm_layer is None:
                norm_layer = partial(nn.LayerNorm, eps=1e-6)
            self.norm = norm_layer(c)
            self.fc = nn.Linear(WIDTH, num_classes)

        def forward(self, x):
            return self.fc(self.norm(x))

    def _net(c, weights, **kwargs):
        if weights is not None:
            _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        return Net(c, **kwargs)

    def net_small(*, weights=None, **kwargs):
        weights = verify(weights)
        return _net(8, weights, **kwargs)
"""


@pytest.mark.parametrize("width, expected", [("c", []), ("c * 2", [(31, "SC106")])])
def test_keywords_a_helper_may_add_leave_the_others_as_the_builder_gave_them(width, expected):
    # The helper edits kwargs in place on one path: afterwards it may hold num_classes, and
    # holds nothing else, so norm_layer keeps its default and the layers keep their widths.
    _, findings = analyzed(BUILDER_WITH_EDITED_KEYWORDS.replace("WIDTH", width))
    assert findings == expected


def test_a_dict_handed_to_a_function_that_rebinds_or_passes_it_on_is_unknown_after():
    _, findings = analyzed("""
        import torch
        from helpers import fill

        def passes_on(kwargs):
            fill(kwargs)

        def rebinds(kwargs):
            kwargs = dict(kwargs)
            kwargs["n"] = 3

        def f():
            a = {"n": 4}
            passes_on(a)
            b = {"n": 4}
            rebinds(b)
            return torch.zeros(a["n"]) + torch.zeros(5), torch.zeros(b["n"]) + torch.zeros(4)
    """)
    # Neither callee only edits its parameter in place: what a and b hold after is unknown
    # (taken from the callee, a would hold 4 and b 3, both wrong).
    assert findings == []


def test_where_of_a_value_of_unknown_dtype_is_of_unknown_dtype_not_the_conditions_bool():
    # A bool result would make v a mask, and a mask of rank 4 fills all four dims of a.
    _, findings = analyzed("""
        import torch

        def gather(a, grid, flag):
            N, C, iH, iW = a.shape
            _, oH, oW, two = grid.shape
            index_dtype = torch.int32 if flag else torch.int64
            xs = grid[..., 0]
            v = torch.where(xs > 0, xs.to(dtype=index_dtype), 0).view(N, 1, oH, oW)
            N_idx = torch.arange(N).view(N, 1, 1, 1)
            C_idx = torch.arange(C).view(1, C, 1, 1)
            return a[N_idx, C_idx, v, v]
    """)
    assert findings == []


def test_a_parameter_a_call_leaves_out_with_no_default_is_unknown_not_built_from_its_annotation():
    # super().__init__() without the config Base requires raises TypeError; the Config() its
    # annotation would build is no value the call passed, and its width no certain error.
    _, findings = analyzed("""
        from dataclasses import dataclass

        import torch
        from torch import nn

        @dataclass
        class Config:
            width: int = 768

        class Base(nn.Module):
            def __init__(self, config: Config):
                super().__init__()
                self.width = config.width

        class Layer(Base):
            def __init__(self, config: Config):
                super().__init__()
                self.fc = nn.Linear(512, 512)

            def forward(self, x):
                return self.fc(x.reshape(-1, self.width))
    """)
    assert findings == []


def test_dims_named_in_two_functions_are_not_said_to_differ_but_one_unpack_says_so():
    _, findings = analyzed("""
        import torch

        def positions(x):
            token_size = x.size(1)
            return torch.arange(token_size).float()

        def rotate(x, pos):
            B, H, N, D = x.size()
            return x * pos.view(1, 1, -1, 1)

        def attend(hidden, q):
            hidden = hidden.reshape(hidden.shape[0], -1, 64)  # the token count unknown
            q = q.reshape(q.shape[0], 8, -1, 8)
            return rotate(q, positions(hidden))

        def mixed_up(x):
            B, T, C = x.shape
            return x + torch.ones(B, C)
    """)
    assert findings == [(19, "SC112")]


def test_a_loop_that_only_reads_data_items_runs_to_its_fixed_point_not_item_by_item():
    # Each dtype on its own would reach the complex-only branch the test guards with
    # np.issubdtype; a range() count and modules are still walked in turn.
    shapes, findings = analyzed("""
        import numpy as np

        for t in np.float32, np.complex64:
            A = np.ones((2, 2)).astype(t)
            if np.issubdtype(A.dtype, np.complexfloating):
                A += 10j * np.ones((2, 2))

        x = np.ones((3, 4))
        for _ in range(3):
            x = np.concatenate([x, x])
        grown = x * 1.0
    """)
    assert findings == []
    assert shapes["x * 1.0"] == {"(24, 4)"}


def test_an_attention_mask_or_a_norm_weight_nobody_knows_leaves_the_output_shape():
    shapes, findings = analyzed("""
        import torch
        import torch.nn.functional as F

        def f(mask, w):
            q = torch.zeros(4, 16, 8)
            k = torch.zeros(4, 16, 6)
            a = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
            b = F.layer_norm(q, (8,), w)
            c = F.scaled_dot_product_attention(q, k, k, attn_mask=mask)
            return a, b, c
    """)
    assert shapes["F.scaled_dot_product_attention(q, q, q, attn_mask=mask)"] == {"(4, 16, 8)"}
    assert shapes["F.layer_norm(q, (8,), w)"] == {"(4, 16, 8)"}
    assert findings == [(10, "SC113")]  # q's 8 features against k's 6: whatever the mask


def test_a_builder_merging_its_defaults_with_dict_builds_the_model_it_names():
    # timm's builders: dict(model_args, **kwargs), the caller's keywords over the defaults.
    source = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self, width, num_classes=10):
                super().__init__()
                self.conv = nn.Conv2d(3, width, 3)
                self.fc = nn.Linear(FC_IN, num_classes)

            def forward(self, x):
                return self.fc(self.conv(x).mean((2, 3)))

        def _create(variant, **kwargs):
            return Net(**kwargs)

        def net8(**kwargs):
            model_args = dict(width=8, num_classes=5)
            return _create("net8", **dict(model_args, **kwargs))
    """
    assert analyzed(source.replace("FC_IN", "width"))[1] == []
    assert analyzed(source.replace("FC_IN", "16"))[1] == [(19, "SC106")]


TIMM_BUILDER = """
    def _filter_kwargs(kwargs, names):
        if not kwargs or not names:
            return
        for n in names:
            kwargs.pop(n, None)

    def _update_default_model_kwargs(cfg, kwargs, kwargs_filter):
        names = ("num_classes", "in_chans")
        if cfg.get("fixed_input_size", False):
            names += ("img_size",)
        for n in names:
            if n == "img_size":
                size = cfg.get("input_size", None)
                if size is not None:
                    kwargs.setdefault(n, size[-2:])
            else:
                value = cfg.get(n, None)
                if value is not None:
                    kwargs.setdefault(n, cfg[n])
        _filter_kwargs(kwargs, names=kwargs_filter)

    def build_model_with_cfg(model_cls, cfg, kwargs_filter=None, **kwargs):
        _update_default_model_kwargs(cfg, kwargs, kwargs_filter)
        if kwargs.pop("features_only", False):
            return None
        return model_cls(**kwargs)
"""
"""timm's build_model_with_cfg, cut to what makes it hard: the pretrained config (unknown)
may set num_classes and in_chans, and img_size on one path only."""


BUILDER_WITH_CONFIG = """
    import collections.abc
    from itertools import repeat

    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self, layers, num_classes=10, in_chans=3):
            super().__init__()
            self.conv = nn.Conv2d(in_chans, layers[0], 3)
            self.fc = nn.Linear(FC_IN, num_classes)

        def forward(self, x):
            return self.fc(self.conv(x).mean((2, 3)))


    def net8(cfg):
        return build_model_with_cfg(Net, cfg, layers=(8,))
"""
BUILDER_WITH_CONFIG = textwrap.dedent(BUILDER_WITH_CONFIG) + textwrap.dedent(TIMM_BUILDER)


def test_a_model_built_through_a_config_helper_that_fills_kwargs_by_key_is_checked():
    # timm's build_model_with_cfg: the pretrained config (unknown here) may set num_classes
    # and in_chans, and img_size on one path only; the model is still built with layers=(8,).
    assert analyzed(BUILDER_WITH_CONFIG.replace("FC_IN", "layers[0]"))[1] == []
    call = BUILDER_WITH_CONFIG.splitlines().index(
        "    return build_model_with_cfg(Net, cfg, layers=(8,))") + 1
    assert analyzed(BUILDER_WITH_CONFIG.replace("FC_IN", "16"))[1] == [(call, "SC106")]


def test_a_module_class_is_no_iterable_an_enum_may_be():
    shapes, findings = analyzed("""
        import collections.abc
        import enum
        from itertools import repeat

        import torch
        from torch import nn

        def to_ntuple(n):
            def parse(x):
                if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
                    return tuple(x)
                return tuple(repeat(x, n))
            return parse

        class Block(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.conv = nn.Conv2d(width, width, 3, padding=1)

            def forward(self, x):
                return self.conv(x)

        class Color(enum.Enum):
            RED = 1

        blocks = to_ntuple(2)(Block)
        first = blocks[0](4)(torch.zeros(1, 4, 8, 8))
        colors = to_ntuple(2)(Color)
        second = colors[1](4)(torch.zeros(1, 4, 8, 8))
    """)
    assert shapes["blocks[0](4)(torch.zeros(1, 4, 8, 8))"] == {"(1, 4, 8, 8)"}
    assert "colors[1](4)(torch.zeros(1, 4, 8, 8))" not in shapes
    assert findings == []
