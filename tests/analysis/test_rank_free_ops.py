"""Ops whose result rank needs no input rank: ``x.flatten()`` is 1-D, ``x.sum()`` 0-d,
``torch.where(mask)[0]`` 1-D and ``x.topk(k)`` has k along its dim, whatever x is, so the code
after them is checked even when nobody describes x."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import analyze_source
from tests.analysis.test_shapes_from_code import analyzed

POSTPROCESS = """
    import torch
    from torch import Tensor

    def postprocess(logits: Tensor, ctrness: Tensor, k: int):
        scores = torch.sqrt(torch.sigmoid(logits) * torch.sigmoid(ctrness)).flatten()
        keep = scores > 0.05
        scores = scores[keep]
        idxs = torch.where(keep)[0]
        top, order = scores.topk(k)
        return idxs[order], top
"""


def test_a_detection_head_postprocess_is_known_from_flatten_on():
    shapes, findings = analyzed(POSTPROCESS)
    assert findings == []
    assert shapes["torch.sigmoid(logits) * torch.sigmoid(ctrness)"] == {"?"}  # rank unknown
    flat = "torch.sqrt(torch.sigmoid(logits) * torch.sigmoid(ctrness)).flatten()"
    assert shapes[flat] == {"(?,)"}
    assert shapes["scores > 0.05"] == {"(?,)"}
    assert shapes["torch.where(keep)[0]"] == {"(nnz(keep),)"}
    assert shapes["top"] == shapes["order"] == {"(k,)"}
    assert shapes["idxs[order]"] == {"(k,)"}


WRONG_RANK_READS = """
    import torch
    from torch import Tensor

    def loss(logits: Tensor, labels: Tensor):
        total = logits.sum()
        first = total[0]
        positive = torch.where(labels > 0)[0]
        return first, positive[:, 0]

    loss(torch.randn(2, 3), torch.tensor([1, 0, 2]))
"""


def test_indexing_past_the_rank_these_ops_give_is_an_error_torch_raises_too():
    findings = analyze_source(textwrap.dedent(WRONG_RANK_READS), "t.py")
    assert sorted((f.line, f.code) for f in findings if f.severity == "error") == [
        (7, "SC111"), (9, "SC111")]
    torch = pytest.importorskip("torch")
    logits, labels = torch.randn(2, 3), torch.tensor([1, 0, 2])
    with pytest.raises(IndexError):
        logits.sum()[0]
    with pytest.raises(IndexError):
        torch.where(labels > 0)[0][:, 0]


def test_an_op_whose_result_rank_follows_its_input_stays_unknown():
    shapes, findings = analyzed("""
        import torch
        from torch import Tensor

        def f(x: Tensor):
            a = x.sum(0)
            b = x.unsqueeze(0)
            c = x.mean(1)
            return a, b, c
    """)
    assert findings == []
    assert shapes["x.sum(0)"] == shapes["x.unsqueeze(0)"] == shapes["x.mean(1)"] == {"?"}


def test_a_function_form_with_one_operand_of_unknown_rank_is_probed_too():
    shapes, _ = analyzed("""
        import torch
        from torch import Tensor

        def f(boxes: Tensor, mask: Tensor):
            a = torch.flatten(boxes)
            b = torch.nonzero(mask)
            c = torch.mm(boxes, torch.zeros(4, 5))
            return a, b, c
    """)
    assert shapes["torch.flatten(boxes)"] == {"(?,)"}
    assert shapes["torch.nonzero(mask)"] == {"(nnz(mask), ?)"}
    assert shapes["torch.mm(boxes, torch.zeros(4, 5))"] == {"(?, 5)"}


def test_two_operands_of_unknown_rank_are_probed_at_every_pair_of_ranks():
    shapes, _ = analyzed("""
        import torch
        import torch.nn.functional as F
        from torch import Tensor

        def f(a: Tensor, b: Tensor):
            mm = torch.mm(a, b)
            dot = torch.dot(a, b)
            both = torch.matmul(a, b)
            summed = F.smooth_l1_loss(a, b, beta=1 / 9, reduction="sum")
            kept = F.l1_loss(a, b, reduction="none")
            return mm, dot, both, summed, kept
    """)
    assert shapes["torch.mm(a, b)"] == {"(?, ?)"}
    assert shapes["torch.dot(a, b)"] == {"()"}
    assert shapes["torch.matmul(a, b)"] == {"?"}  # 1-D @ 1-D is 0-d, 2-D @ 2-D is 2-D
    assert shapes['F.smooth_l1_loss(a, b, beta=1 / 9, reduction="sum")'] == {"()"}
    assert shapes['F.l1_loss(a, b, reduction="none")'] == {"?"}
    torch = pytest.importorskip("torch")
    assert torch.matmul(torch.ones(3), torch.ones(3)).ndim == 0
    assert torch.matmul(torch.ones(2, 3), torch.ones(3, 4)).ndim == 2


def test_a_join_with_one_item_of_unknown_rank_has_the_rank_of_the_known_items():
    shapes, _ = analyzed("""
        import torch
        from torch import Tensor

        def paste(box: Tensor):
            one = torch.ones(1, dtype=torch.int64)
            w = box[2] - box[0] + one
            return torch.max(torch.cat((w, one))), torch.stack([w, one])
    """)
    assert shapes["torch.cat((w, one))"] == {"(?,)"}
    assert shapes["torch.max(torch.cat((w, one)))"] == {"()"}
    assert shapes["torch.stack([w, one])"] == {"(2, 1)"}  # stack takes arrays of one shape
    torch = pytest.importorskip("torch")
    box = torch.tensor([1, 2, 4, 6])
    w = box[2] - box[0] + torch.ones(1, dtype=torch.int64)
    assert torch.stack([w, torch.ones(1, dtype=torch.int64)]).shape == (2, 1)


def test_a_functional_whose_arguments_say_the_rank_gives_it_for_an_input_nobody_describes():
    shapes, _ = analyzed("""
        import torch
        import torch.nn.functional as F

        def paste(mask: torch.Tensor, h: int, w: int):
            return F.interpolate(mask, size=(h, w), mode="bilinear", align_corners=False)
    """)
    # Two output sizes: the input is (N, C, H, W), as torch requires of every input it takes.
    assert shapes['F.interpolate(mask, size=(h, w), mode="bilinear", align_corners=False)'] == {
        "(?, ?, h, w)"}
    torch = pytest.importorskip("torch")
    for rank in (3, 5):
        with pytest.raises(ValueError, match="same number of spatial dimensions"):
            torch.nn.functional.interpolate(torch.zeros((1,) * rank), size=(2, 2))


BROADCAST_TO_A_SHAPE = """
import numpy as np

def transpose_of_broadcast(shape):
    vec = np.arange(shape[-1])
    arr = np.broadcast_to(vec, shape)
    return arr.mT
"""


def test_an_operand_that_may_be_no_array_is_not_probed_as_one():
    # numpy's own test: shape is a tuple, not an array of some rank, so arr is not 1-D.
    findings = analyze_source(textwrap.dedent(BROADCAST_TO_A_SHAPE), "t.py")
    assert [(f.line, f.code) for f in findings] == []
    namespace: dict = {}
    exec(compile(BROADCAST_TO_A_SHAPE, "t.py", "exec"), namespace)  # noqa: S102 (our snippet)
    assert namespace["transpose_of_broadcast"]((2, 3)).shape == (3, 2)
