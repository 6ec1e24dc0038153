"""Shape coverage counts each array-valued expression once, with the best knowledge any evaluation reached."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.coverage import (
    FULLY_KNOWN,
    RANK_KNOWN,
    RANK_UNKNOWN,
    CoverageRecorder,
    FileCoverage,
    knowledge,
)
from shapecheck.analysis.values import AbstractArray
from shapecheck.runtime.dims import UNKNOWN, mul, sym

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def measured(source: str) -> tuple[FileCoverage, dict[str, int]]:
    """The file's counts and, for reading failures, each counted expression's text and level."""
    recorder = CoverageRecorder()
    source = textwrap.dedent(source)
    analyze_source(source, "t.py", coverage=recorder)
    module = cst.parse_module("")
    levels: dict[str, int] = {}
    for node, level in recorder.levels().items():
        text = module.code_for_node(node)
        levels[text] = max(level, levels.get(text, -1))
    return recorder.summary(), levels


def array(shape) -> AbstractArray:
    return AbstractArray(shape=shape, dtype=None, library="numpy")


@pytest.mark.parametrize("shape, level", [
    (None, RANK_UNKNOWN),
    ((3, UNKNOWN), RANK_KNOWN),
    ((sym("B"), mul(4, sym("C"))), FULLY_KNOWN),
    ((2, 3), FULLY_KNOWN),
    ((), FULLY_KNOWN),
])
def test_symbolic_dims_count_as_known_and_one_unknown_dim_leaves_only_the_rank(shape, level):
    assert knowledge(array(shape)) == level


def test_every_array_expression_of_a_program_with_literal_shapes_is_fully_known():
    counts, levels = measured("""
        import numpy as np

        a = np.zeros((3, 4))
        b = np.ones(4)
        c = a + b
    """)
    assert set(levels) == {"np.zeros((3, 4))", "np.ones(4)", "a", "b", "a + b"}
    assert counts == FileCoverage(arrays=5, rank_known=5, fully_known=5)


def test_a_parameter_nothing_is_known_of_is_not_counted_as_an_array():
    # x may be an int or a str as well as an array: neither it nor x * 2 counts.
    counts, levels = measured("""
        import numpy as np

        def scale(x):
            y = x * 2
            return y

        a = np.zeros((3, 4))
    """)
    assert levels == {"np.zeros((3, 4))": FULLY_KNOWN}
    assert counts == FileCoverage(arrays=1, rank_known=1, fully_known=1)


def test_a_parameter_used_as_an_array_counts_and_unpacking_its_shape_gives_the_rank():
    counts, levels = measured("""
        import torch

        def scale(x: torch.Tensor):
            y = x * 2
            B, T = y.shape
            return y
    """)
    # x * 2 is the array y that the unpacking below says is (B, T); x itself stays unknown.
    assert levels["x * 2"] == FULLY_KNOWN
    assert levels["y"] == FULLY_KNOWN
    assert levels["x"] == RANK_UNKNOWN


def test_a_dim_nobody_knows_is_rank_known_and_a_declared_int_dim_is_fully_known():
    counts, levels = measured("""
        import numpy as np

        def rows(n: int):
            return np.zeros((n, 4))

        v = np.ones(len(open("data.txt").read()))
        k = len(open("data.txt").read())
        w = np.ones(k)
    """)
    # An int nobody knows is an unknown dim; bound to a name, the code names it: a symbol.
    assert levels == {"np.zeros((n, 4))": FULLY_KNOWN,
                      'np.ones(len(open("data.txt").read()))': RANK_KNOWN,
                      "np.ones(k)": FULLY_KNOWN}
    assert counts == FileCoverage(arrays=3, rank_known=3, fully_known=2)


def test_a_loop_body_walked_to_a_fixed_point_counts_each_expression_once():
    counts, levels = measured("""
        import numpy as np

        a = np.zeros((3, 4))
        for i in range(10):
            a = a + 1
    """)
    assert set(levels) == {"np.zeros((3, 4))", "a", "a + 1"}
    assert counts == FileCoverage(arrays=3, rank_known=3, fully_known=3)


def test_a_function_called_with_two_shapes_counts_once_with_its_best_knowledge():
    # The body is walked three times: at each call, then on its own with x unknown.
    counts, levels = measured("""
        import numpy as np

        def double(x):
            return x * 2

        double(np.zeros(3))
        double(np.zeros((2, 2)))
    """)
    assert levels["x"] == levels["x * 2"] == FULLY_KNOWN
    assert counts == FileCoverage(arrays=6, rank_known=6, fully_known=6)


def test_a_file_that_does_not_parse_has_no_array_expressions():
    recorder = CoverageRecorder()
    [finding] = analyze_source("x = (\n", "t.py", coverage=recorder)
    assert finding.code == "SC001"
    assert recorder.summary() == FileCoverage()


def test_counts_add_up_across_files_and_a_share_of_nothing_is_none():
    total = FileCoverage(4, 3, 1) + FileCoverage(2, 2, 2)
    assert total == FileCoverage(6, 5, 3)
    assert FileCoverage().share(0) is None


@pytest.mark.parametrize("sample", sorted(SAMPLES.rglob("*.py")), ids=lambda p: p.name)
def test_recording_coverage_changes_no_finding(sample):
    source = sample.read_text()
    recorder = CoverageRecorder()
    assert analyze_source(source, str(sample), coverage=recorder) == analyze_source(source, str(sample))
    assert recorder.summary().arrays > 0


def test_a_read_above_the_layer_that_says_the_rank_counts_with_that_rank():
    counts, levels = measured("""
        from torch import nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, padding=1)

            def forward(self, x):
                identity = x
                out = self.conv(x)
                return out + identity.mean(1, keepdim=True)
    """)
    assert levels["identity"] == levels["self.conv(x)"] == FULLY_KNOWN
    assert counts.rank_known == counts.arrays


def test_a_conversion_of_a_list_nobody_describes_is_an_array_and_arange_is_one_dim():
    _, levels = measured("""
        import torch

        def anchors(scales: list[int], window: list[int]):
            s = torch.as_tensor(scales, dtype=torch.float32)
            coords = torch.arange(window[0])
            return s, coords
        """)
    assert levels["torch.as_tensor(scales, dtype=torch.float32)"] == RANK_UNKNOWN
    assert levels["torch.arange(window[0])"] == RANK_KNOWN


def test_expressions_a_builder_in_another_file_runs_count_with_what_that_run_knew(tmp_path):
    # timm's builders build a model file's classes in _builder.py's build_model_with_cfg and
    # run the model's forward there: the model file's expressions were evaluated with the
    # builder's widths but not counted, and the heads of most timm models read as blind.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "builder.py").write_text(textwrap.dedent("""
        def build_model_with_cfg(model_cls, **kwargs):
            return model_cls(**kwargs)
    """))
    model = textwrap.dedent("""
        import torch
        from torch import nn
        from .builder import build_model_with_cfg

        def make_stem(kind, width):
            return nn.Conv2d(3, width, 3) if kind == "conv" else nn.Identity()

        class Net(nn.Module):
            def __init__(self, kind, width=8):
                super().__init__()
                self.stem = make_stem(kind, width)

            def forward_head(self, x):
                return x.mean((2, 3))

            def forward(self, x):
                return self.forward_head(self.stem(x))

        def net_small(**kwargs):
            return build_model_with_cfg(Net, kind="conv", width=4, **kwargs)
    """)
    path = tmp_path / "pkg" / "model.py"
    path.write_text(model)
    recorder = CoverageRecorder()
    analyze_source(model, str(path), coverage=recorder)
    module = cst.parse_module("")
    levels = {module.code_for_node(node): level for node, level in recorder.levels().items()}
    # Net's own walk cannot tell its stem (a conv or nothing); the builder's run can.
    assert levels["x.mean((2, 3))"] == FULLY_KNOWN
