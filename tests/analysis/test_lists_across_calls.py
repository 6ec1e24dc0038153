"""Lists a loop fills keep what their items are, lists of arrays included, and a list handed
to a function is what its body reads: a detector's anchors per image, each a list per feature
level, reach the loss with their shapes."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import analyze_source
from tests.analysis.test_shapes_from_code import analyzed

ANCHORS = """
    import torch

    def grid_anchors(sizes, base):
        anchors = []
        for h, w in sizes:
            shifts = torch.stack(torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij"))
            shifts = shifts.reshape(2, -1).t().repeat(1, 2)
            anchors.append((shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4))
        return anchors

    def anchors_per_image(num_images, sizes, base):
        per_level = grid_anchors(sizes, base)
        anchors = []
        for _ in range(num_images):
            anchors.append([a for a in per_level])
        return [torch.cat(a) for a in anchors]

    def decode(rel_codes, boxes):
        return torch.stack((boxes[..., 0] - rel_codes[..., 0], boxes[..., 1] - rel_codes[..., 1]), dim=-1)

    def loss(regression, anchors):
        stacked = torch.stack(anchors)
        return decode(regression, stacked)

    anchors = anchors_per_image(2, [(4, 5), (2, 3)], torch.zeros(3, 4))
    out = loss(torch.zeros(2, COUNT, 4), anchors)
"""


def test_anchors_built_in_loops_reach_the_loss_through_calls():
    # 4*5 + 2*3 positions, 3 anchors each: 78 per image.
    shapes, findings = analyzed(ANCHORS.replace("COUNT", "78"))
    assert findings == []
    assert shapes["torch.stack(anchors)"] == {"(2, 78, 4)"}
    assert "(2, 78, 2)" in shapes["decode(regression, stacked)"]
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(textwrap.dedent(ANCHORS.replace("COUNT", "78")), "t.py", "exec"), namespace)  # noqa: S102
    assert namespace["out"].shape == (2, 78, 2)
    assert [a.shape for a in namespace["anchors"]] == [torch.Size([78, 4])] * 2


def test_a_list_of_any_length_handed_to_a_function_is_what_its_body_reads():
    # The number of images is known only when the code runs: the list of anchors is a list
    # of any length of (78, 4) arrays, in the caller and in the callee alike.
    source = ANCHORS.replace("COUNT", "78").replace(
        "    anchors = anchors_per_image(2,", "    def run(n: int):\n        anchors = anchors_per_image(n,"
    ).replace("    out = loss(torch.zeros(2, 78, 4), anchors)",
              "        return loss(torch.zeros(n, 78, 4), anchors)")
    shapes, findings = analyzed(source)
    assert findings == []
    assert shapes["torch.stack(anchors)"] == {"(?, 78, 4)"}  # how many images: not counted
    assert shapes["decode(regression, stacked)"] - {"?"} == {"(?, 78, 2)"}


def test_regressions_for_another_anchor_count_are_an_error_torch_raises_too():
    source = textwrap.dedent(ANCHORS.replace("COUNT", "69"))
    findings = [(f.line, f.code) for f in analyze_source(source, "t.py") if f.severity == "error"]
    assert findings == [(27, "SC101")]
    pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="78"):
        exec(compile(source, "t.py", "exec"), {})  # noqa: S102 (our snippet)


def test_a_list_of_tuples_filled_in_a_loop_keeps_its_items():
    shapes, _ = analyzed("""
        import torch

        def f(n: int):
            pairs = []
            for i in range(n):
                pairs.append((torch.zeros(3), i))
            first, index = pairs[0]
            return first
    """)
    assert shapes["first"] == {"(3,)"}


def test_a_mismatch_inside_a_callee_given_a_list_is_found_at_the_call():
    source = textwrap.dedent("""
        import torch

        def total(parts):
            return torch.stack(parts).sum(0) + torch.ones(5)

        levels = []
        for size in (3, 3):
            levels.append(torch.zeros(size))
        out = total(levels)
    """)
    findings = [(f.line, f.code) for f in analyze_source(source, "t.py") if f.severity == "error"]
    assert findings == [(10, "SC101")]
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.stack([torch.zeros(3), torch.zeros(3)]).sum(0) + torch.ones(5)


TILES = """
    import torch

    def blend_v(a: torch.Tensor, b: torch.Tensor, extent: int) -> torch.Tensor:
        for y in range(extent):
            b[:, y] = a[:, -extent + y] * (1 - y / extent) + b[:, y] * (y / extent)
        return b

    def decode(latent: torch.Tensor, n: int, extent: int):
        rows = []
        for i in range(n):
            row = []
            for j in range(n):
                row.append(torch.cat([latent, latent], dim=1))
            rows.append(row)
        out = []
        for i, row in enumerate(rows):
            for j, tile in enumerate(row):
                if i > 0:
                    tile = blend_v(rows[i - 1][j], tile, extent)
                if j > 0:
                    tile = blend_v(row[j - 1], tile, extent)
                out.append(tile[:, :4])
        return torch.cat(out, dim=1)

    result = decode(torch.ones(2, 4), 2, 3)
"""


def test_the_items_of_a_list_of_lists_are_other_arrays_for_the_aliasing_rules():
    # Each tile is a new array: blending the one above into this one in place reads no array
    # the write changed (diffusers' tiled VAE decoders blend so).
    findings = analyze_source(textwrap.dedent(TILES), "t.py")
    assert [(f.line, f.code) for f in findings] == []
    shapes, _ = analyzed(TILES)
    assert "(2, 8)" in shapes["rows[i - 1][j]"]
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(textwrap.dedent(TILES), "t.py", "exec"), namespace)  # noqa: S102 (our snippet)
    assert namespace["result"].shape == (2, 16)
