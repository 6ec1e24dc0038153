"""Shapes the code states itself: unpacking names dims, and SC112 warns when an op needs two
dims the code named differently to be equal. Each bug is confirmed on real torch or numpy."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source


def findings(source: str):
    return analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings())


def codes(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in findings(source))


def test_attention_scores_without_the_transpose_need_t_equal_to_d():
    source = """
    import numpy as np

    def scores(q, k):
        B, T, D = q.shape
        assert k.shape == (B, T, D)
        return q @ k / np.sqrt(D)
    """
    found = findings(source)
    assert [(f.line, f.code) for f in found] == [(7, "SC112")]
    assert "T == D" in found[0].message or "D == T" in found[0].message
    assert "unpacked from q.shape at line 5" in found[0].message
    q = np.ones((2, 4, 8))
    with pytest.raises(ValueError):
        q @ q  # the sizes differ: numpy refuses
    assert (np.ones((2, 8, 8)) @ np.ones((2, 8, 8))).shape == (2, 8, 8)  # a square test passes


def test_the_transposed_twin_is_clean():
    assert codes("""
    import numpy as np

    def scores(q, k):
        B, T, D = q.shape
        assert k.shape == (B, T, D)
        return q @ k.swapaxes(-2, -1) / np.sqrt(D)
    """) == []


def test_a_mean_without_keepdims_is_reported_once_by_the_rule_that_names_the_cause():
    source = """
    import torch

    def center(x):
        B, T, C = x.shape
        return x - x.mean(1)
    """
    assert codes(source) == [(6, "SC103")]
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        x = torch.ones(2, 3, 4)
        x - x.mean(1)


def test_one_name_unpacked_from_two_arrays_is_the_same_dim_to_the_code():
    # diffusers' space-to-channel shortcut unpacks B, C, H, W from two arrays in turn.
    assert codes("""
    import torch

    def forward(conv, x):
        h = conv(x)
        B, C, H, W = h.shape
        h = h.reshape(B, 4 * C, H // 2, W // 2)
        B, C, H, W = x.shape
        shortcut = x.reshape(B, 4 * C, H // 2, W // 2)
        return h + shortcut
    """) == []


def test_unpacking_gives_the_rank_so_a_dim_past_it_is_an_error():
    source = """
    import torch

    def swap(x):
        B, T, C = x.shape
        return x.transpose(1, 3)
    """
    assert codes(source) == [(6, "SC111")]
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError):
        torch.ones(2, 3, 4).transpose(1, 3)


def test_placeholders_and_starred_unpacking_name_nothing():
    assert codes("""
    import torch

    def f(x, y):
        _, T, _ = x.shape
        *_, d = y.shape
        return x @ y
    """) == []


def test_jaxtyping_dims_are_named_by_the_annotation():
    source = """
    import torch
    from jaxtyping import Float
    from torch import Tensor

    def mix(a: Float[Tensor, "b t d"], w: Float[Tensor, "b t d"]):
        return a @ w
    """
    found = findings(source)
    assert [(f.line, f.code) for f in found] == [(7, "SC112")]
    assert "annotation" in found[0].message


def test_symbols_unpacked_in_a_function_stay_in_it():
    # The caller sees no symbols of the callee: what it returns from an unknown parameter is
    # unknown, so nothing is reported at the caller.
    assert codes("""
    import numpy as np

    def flat(x):
        B, T, C = x.shape
        return x.reshape(B * T, C)

    y = flat(np.ones((2, 3, 4)))
    z = y + np.ones(4)
    """) == []


def test_a_guard_that_raises_gives_the_rank_after_it():
    source = """
    import torch

    def f(x):
        if x.dim() != 3:
            raise ValueError("expected (B, T, C)")
        return x.transpose(1, 3)
    """
    assert codes(source) == [(7, "SC111")]
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError):
        torch.ones(2, 3, 4).transpose(1, 3)
    # Without the raise the test says nothing past the if.
    assert codes(source.replace('raise ValueError("expected (B, T, C)")', "x = x[None]")) == []


def test_a_dim_read_into_a_name_is_named_and_kept_by_the_array():
    source = """
    import numpy as np

    def f(x):
        d = x.shape[-1]
        assert x.ndim == 3
        B = x.shape[0]
        return x.sum(1) @ np.ones((B, 2))
    """
    found = findings(source)
    assert [(f.line, f.code) for f in found] == [(8, "SC112")]
    assert "needs B == d" in found[0].message or "needs d == B" in found[0].message
    with pytest.raises(ValueError):
        np.ones((2, 3, 4)).sum(1) @ np.ones((2, 2))


def test_dims_of_two_inputs_that_must_fit_are_the_callers_precondition():
    # torch's matmul decomposition keeps m1 (of tensor1) and m2 (of tensor2) apart on purpose
    # and lets bmm raise when they differ.
    assert codes("""
    import torch

    def mm(tensor1, tensor2):
        m1 = tensor1.size(-1)
        m2 = tensor2.size(-2)
        n = tensor1.size(-2)
        p = tensor2.size(-1)
        return tensor1.reshape(-1, n, m1).bmm(tensor2.reshape(-1, m2, p))
    """) == []



def test_math_scalars_keep_the_shape_and_attention_without_the_transpose_is_named():
    source = """
    import math

    import torch

    def attention(q, k, v):
        B, H, T, D = q.shape
        assert k.shape == (B, H, T, D) and v.shape == (B, H, T, D)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.softmax(dim=-1)
        return att @ v.transpose(-2, -1)
    """
    found = findings(source)
    assert [(f.line, f.code) for f in found] == [(11, "SC112")]
    assert "(B, H, T, T), (B, H, D, T)" in found[0].message
    torch = pytest.importorskip("torch")
    q = torch.ones(2, 3, 5, 4)
    att = (q @ q.transpose(-2, -1)).softmax(dim=-1)
    with pytest.raises(RuntimeError):
        att @ q.transpose(-2, -1)


def test_a_float_of_unknown_value_is_no_size():
    # arange(0, math.pi) has ceil(pi) == 4 elements: the float's value matters, so the length
    # is unknown (it used to be read as 1.0, one element).
    source = """
    import math
    import numpy as np

    a = np.arange(0, math.pi)
    b = a + np.ones(4)
    c = np.ones(3) * (2.0 / math.sqrt(7))
    d = c + np.ones(4)
    """
    assert codes(source) == [(8, "SC101")]
    assert (np.arange(0, math.pi) + np.ones(4)).shape == (4,)


# Found on transformers' models: each was a false alarm of an earlier version of these rules.

def test_a_size_computed_from_a_named_dim_is_not_said_to_differ_from_it():
    # edgetam: tokens_per_group = k_seq_len // repeat, then a view regrouping k_seq_len.
    assert codes("""
    import torch

    def group(k, repeat):
        batch_size, num_heads, k_seq_len, channels = k.shape
        tokens_per_group = k_seq_len // repeat
        return k.view(batch_size, num_heads, repeat, tokens_per_group, channels)
    """) == []


def test_a_view_whose_minus_one_absorbs_the_rest_needs_no_named_dims_equal():
    # edgetam: latents.expand(batch, -1, -1).view(-1, 1, channels) with latents (256, 64).
    assert codes("""
    import torch

    def windows(latents, hidden_states):
        assert latents.shape == (256, 64)
        batch_size, channels, height, width = hidden_states.shape
        return latents.unsqueeze(0).expand(batch_size, -1, -1).view(-1, 1, channels)
    """) == []


def test_a_branch_on_is_not_none_of_a_none_is_not_taken():
    # omdet_turbo: torch.cat([denoise, x]) under `if denoise is not None`, with denoise None.
    assert codes("""
    import torch

    def decode(x, denoise):
        if denoise is not None:
            x = torch.cat([denoise, x], 1)
        return x

    y = decode(torch.ones(2, 3), None)
    """) == []


def test_a_torch_function_of_a_parameter_gives_a_tensor():
    # pp_doclayout: torch.sigmoid(logits).transpose(1, 2) in a file that imports numpy too.
    assert codes("""
    import numpy as np
    import torch

    def votes(order_logits):
        scores = torch.sigmoid(order_logits)
        batch_size, length, _ = scores.shape
        return scores.transpose(1, 2)
    """) == []


def test_a_column_made_with_view_minus_one_one_is_an_outer_product_on_purpose():
    # cpmant: arange(n) <= arange(n).view(-1, 1), a causal mask.
    assert codes("""
    import torch

    def causal(n: int):
        return torch.arange(n) <= torch.arange(n).view(-1, 1)
    """) == []


def test_a_reshape_with_minus_one_needs_divisibility_not_equal_names():
    # diffusers sana_wm: features split in halves, regrouped by a 4x4 transform's size.
    assert codes("""
    import torch

    def transform(feats, matrix):
        batch, num_heads, seq_len, head_dim = feats.shape
        half_dim = head_dim // 2
        projected, rotated = feats.split(half_dim, dim=-1)
        matrix_dim = matrix.shape[-1]
        return projected.reshape(batch, num_heads, seq_len, -1, matrix_dim)
    """) == []


def test_distances_to_a_codebook_are_an_outer_sum_on_purpose():
    # emu3, janus, chameleon: |z|^2 (keepdim) + |e|^2 (reduced) - 2 z e^T, a VQ codebook.
    assert codes("""
    import torch
    from torch import nn

    def nearest(z):
        codebook = nn.Embedding(512, 64)
        z2 = torch.sum(z**2, dim=1, keepdim=True)
        e2 = torch.sum(codebook.weight**2, dim=1)
        return z2 + e2 - 2 * z @ codebook.weight.t()
    """) == []


def test_an_int_divided_by_a_zero_default_ends_the_path():
    # transformers edgetam_video: repeat_freqs_k defaults to 0 and every caller passes it;
    # run with the default, k_seq_len // 0 raises before the view is reached.
    assert codes("""
    import torch

    def rope(k, repeat_freqs_k: int = 0):
        batch_size, num_heads, k_seq_len, channels = k.shape
        tokens_per_group = k_seq_len // repeat_freqs_k
        return k.view(batch_size, num_heads, repeat_freqs_k, tokens_per_group, channels)
    """) == []


def test_a_size_that_may_be_zero_is_not_taken_for_a_positive_one():
    # transformers udop: extra_head is 2 or 0; the copy into the first rows fits when it is 0.
    assert codes("""
    import torch
    from torch import nn

    class Bias(nn.Module):
        def __init__(self, num_buckets, heads, prefix):
            super().__init__()
            extra_head = 2 if prefix else 0
            self.bias = nn.Embedding(num_buckets + extra_head, heads)

        def grow(self, num_buckets, heads):
            new_bias = nn.Embedding(num_buckets + 2, heads)
            new_bias.weight.data[:num_buckets] = self.bias.weight.data
            return new_bias
    """) == []


def test_config_fields_of_one_config_are_never_taken_for_unequal():
    # Two fields of a config may hold the same size: nothing is certain between them.
    assert codes("""
    import torch
    from torch import nn

    class Pooler(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.dense = nn.Linear(config.hidden_size, config.pooler_size)
            self.out = nn.Linear(config.hidden_size, config.num_labels)

        def forward(self, x):
            return self.out(torch.tanh(self.dense(x)))
    """) == []


def test_torch_einsum_takes_its_operands_as_one_list():
    # transformers cvt: torch.einsum("bhlk,bhtk->bhlt", [query, key]); numpy would stack it.
    assert codes("""
    import torch

    def scores(x, embed_dim, num_heads):
        batch_size, hidden_size, _ = x.shape
        q = x.view(batch_size, hidden_size, num_heads, embed_dim // num_heads).transpose(1, 2)
        k = x.view(batch_size, hidden_size, num_heads, embed_dim // num_heads).transpose(1, 2)
        return torch.einsum("bhlk,bhtk->bhlt", [q, k])
    """) == []
    assert codes("""
    import torch

    q = torch.ones(2, 3, 5, 8)
    k = torch.ones(2, 3, 7, 4)
    s = torch.einsum("bhlk,bhtk->bhlt", [q, k])
    """) == [(6, "SC106")]


def test_new_full_with_a_tuple_of_unknown_sizes_keeps_their_number():
    # transformers longformer: inputs_embeds.new_full((batch_size, padding_len), ...) is 2-D.
    assert codes("""
    import torch

    def pad_ids(inputs_embeds, batch_size, padding_len, pad):
        ids = inputs_embeds.new_full((batch_size, padding_len), pad, dtype=torch.long)
        return torch.cumsum(ids, dim=1)
    """) == []


def test_three_scipy_shapes_the_analyzer_must_not_invent():
    # scipy stats: np.array(parameters.table) of a test's parameter set is a table, not an int;
    # optimize shgo: self.f_maps = [] in __init__ is filled by other methods before sorting;
    # stats censored data: predicates and all() answer booleans, and an inferred dtype is no
    # ground for an error.
    assert codes("""
    import numpy as np

    def test(parameters):
        table = np.array(parameters.table)
        return table[0].sum(), table[:, 0].sum()

    class Pool:
        def __init__(self):
            self.f_maps = []

        def sort(self):
            self.f_maps = np.array(self.f_maps)
            return np.argsort(self.f_maps)[0]

    def masks(interval):
        if interval is None:
            interval = np.empty((0, 2))
        uncensored = interval[:, 0] == interval[:, 1]
        return np.isfinite(interval).all(axis=1) & ~uncensored
    """) == []


PINNED = """
    import torch
    import torch.nn.functional as F
    from torch import nn


    class Attention(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.qkv = nn.Linear(dim, dim * 3)

        def forward(self, x):
            B, N, C = x.shape
            return self.qkv(x).reshape(B, N, 3, C).sum(2)


    class Norm(nn.LayerNorm):
        def forward(self, x):
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.norm = NORM
            self.attn = Attention(dim)

        def forward(self, x):
            return x + self.attn(self.norm(x))
"""


@pytest.mark.parametrize("norm, expected", [
    ("nn.LayerNorm(dim)", []), ("Norm(dim)", []),
    ("nn.LayerNorm(dim * 2)", [(29, "SC106")]), ("Norm(dim * 2)", [(29, "SC106")]),
])
def test_a_width_a_layer_reads_is_that_width_for_the_layers_after_it(norm, expected):
    # The block's input is (B, N, C) from the attention's unpack; the norm (a layer, or F.layer_norm
    # in a subclass's forward) says C is its width, so an attention built for another width fails
    # for every input: timm's Block with norm1 sized 2 * dim.
    source = textwrap.dedent(PINNED).replace("NORM", norm)
    assert codes(source) == expected
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(source, namespace)  # the test's own constant snippet
    block = namespace["Block"](8)
    ran = []
    for width in (8, 16):
        try:
            ran.append(tuple(block(torch.zeros(2, 5, width)).shape))
        except RuntimeError:
            pass
    assert ran == ([] if expected else [(2, 5, 8)])


FILLED = """
    import torch
    import torch.nn.functional as F
    from torch import nn


    class Norm(nn.LayerNorm):
        def forward(self, x):
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


    def run(n):
        x = torch.zeros(2, 5, n)
        x = FIRST(x)
        return nn.LayerNorm(SECOND)(x)
"""


@pytest.mark.parametrize("first, second, expected", [
    ("nn.LayerNorm(16)", "16", []), ("Norm(16)", "16", []), ("nn.Linear(16, 4)", "4", []),
    ("nn.LayerNorm(16)", "32", [(15, "SC113")]), ("Norm(16)", "32", [(15, "SC113")]),
    ("nn.Linear(16, 4)", "8", [(15, "SC113")]),
])
def test_a_width_nobody_knew_is_the_one_the_layer_read(first, second, expected):
    # x's last dim is a value the code does not say; the first layer only runs when it is the
    # layer's width, so a second layer sized otherwise fails for every n.
    source = textwrap.dedent(FILLED).replace("FIRST", first).replace("SECOND", second)
    assert codes(source) == expected
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(source, namespace)  # the test's own constant snippet
    ran = []
    for n in (4, 8, 16, 32):
        try:
            ran.append(tuple(namespace["run"](n).shape))
        except RuntimeError:
            pass
    assert ran == ([] if expected else [(2, 5, 16 if "LayerNorm" in first or "Norm" in first else 4)])


def test_a_width_read_through_a_view_is_not_filled_into_another_shape():
    # The layer read y's last dim; x, a different shape over the same memory, keeps its own.
    assert codes("""
        import torch
        from torch import nn

        def run(n):
            x = torch.zeros(2, 5 * n)
            y = x.view(2, 5, n)
            y = nn.LayerNorm(16)(y)
            return nn.LayerNorm(80)(x)
    """) == []


DENSE_BLOCK = """
import torch
from torch import nn, Tensor


class Layer(nn.Module):
    def __init__(self, c: int, g: int):
        super().__init__()
        self.norm = nn.BatchNorm2d(c)
        self.conv = nn.Conv2d(c, g, 3, padding=1)

    def forward(self, feats: list[Tensor]) -> Tensor:
        return self.conv(self.norm(torch.cat(feats, 1)))


class Block(nn.ModuleDict):
    def __init__(self, num_layers: int, c: int, g: int):
        super().__init__()
        for i in range(num_layers):
            self.add_module("layer%d" % (i + 1), Layer(c + i * g, g))

    def forward(self, x: Tensor) -> Tensor:
        feats = [x]
        for name, layer in self.items():
            feats.append(layer(feats))
        return torch.cat(feats, 1)


def build(n: int, c: int, g: int):
    return Block(n, c, g)(torch.zeros(2, c, 8, 8))
"""


def test_a_loop_index_in_a_width_may_be_zero_so_a_dense_block_is_no_error():
    # DenseNet's layer i takes c + i * g channels: c for the first one, which is what the
    # block's input has. The index is no width: it is 0 on the first pass.
    assert codes(DENSE_BLOCK) == []
    pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(DENSE_BLOCK, "t.py", "exec"), namespace)  # noqa: S102 (our snippet)
    assert namespace["build"](3, 4, 2).shape == (2, 10, 8, 8)


def test_a_tuple_of_numbers_annotated_gives_its_items_to_the_code():
    from tests.analysis.test_shapes_from_code import analyzed

    shapes, found = analyzed("""
        import torch

        def rel_pos(q: torch.Tensor, q_thw: tuple[int, int, int], ratio: tuple[float, float]):
            t, h, w = q_thw
            B, H, N, C = q.shape
            r = q[:, :, 1:].reshape(B, H, t, h, w, C)
            dist = torch.arange(h)[:, None] * max(ratio[0], 1.0)
            return r, dist
    """)
    assert found == []
    assert shapes["q[:, :, 1:].reshape(B, H, t, h, w, C)"] == {
        "(B, H, q_thw[0], q_thw[1], q_thw[2], C)"}
    assert shapes["torch.arange(h)[:, None] * max(ratio[0], 1.0)"] == {"(q_thw[1], 1)"}
