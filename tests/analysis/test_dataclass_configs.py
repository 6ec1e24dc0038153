"""Dataclass configs: the ``__init__`` @dataclass generates binds each field to the argument
given for it, or to its default; bases' fields come first; a class's own __init__ is kept;
__post_init__ runs; ``dataclasses.replace`` builds a new instance. Each snippet's verdict is
confirmed by running it on real torch."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

from shapecheck.analysis.api import analyze_source


def findings(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in analyze_source(textwrap.dedent(source), "cfg.py")
                  if f.code != "SC004")


def notes(source: str) -> list[str]:
    return [f.message for f in analyze_source(textwrap.dedent(source), "cfg.py") if f.code == "SC004"]


def raises_on_torch(source: str) -> str | None:
    """Run the snippet on real torch: None when it runs, else the error's class."""
    pytest.importorskip("torch")
    module = types.ModuleType("cfg_snippet")
    sys.modules["cfg_snippet"] = module  # dataclasses look their module up
    try:
        exec(textwrap.dedent(source), module.__dict__)  # the test's own constant snippets
    except (RuntimeError, ValueError, TypeError) as exc:
        return type(exc).__name__
    finally:
        del sys.modules["cfg_snippet"]
    return None


FIELDS = """
    from dataclasses import dataclass, field
    from typing import ClassVar, Tuple
    import torch
    from torch import nn

    @dataclass
    class Cfg:
        depths: Tuple[int, ...]
        channels: Tuple[int, ...] = (32, 64)
        width: int = field(default=16)
        scale: ClassVar[int] = 2

    cfg = Cfg((1, 2), {CHANNELS})
    stem = nn.Conv2d(3, cfg.channels[0], 3)
    stage = nn.Conv2d({STAGE_IN}, cfg.channels[1], 3)
    y = stage(stem(torch.randn(2, 3, 32, 32)))
    """


@pytest.mark.parametrize("channels,stage_in,bad", [
    ("(8, 16)", "cfg.channels[0]", False),
    ("(8, 16)", "cfg.width", True),          # 16 channels in, the stem gives 8
    ("channels=(16, 4)", "cfg.width", False),  # the keyword binds the same field
    ("width=8", "cfg.channels[0]", False),   # channels keeps its default (32, 64)
    ("width=8", "cfg.width", True),          # 8 against the default's 32
])
def test_positional_keyword_and_default_fields(channels, stage_in, bad):
    source = FIELDS.replace("{CHANNELS}", channels).replace("{STAGE_IN}", stage_in)
    expected = [(17, "SC113")] if bad else []
    assert findings(source) == expected
    assert (raises_on_torch(source) == "RuntimeError") is bad


INHERITED = """
    from dataclasses import dataclass, replace, InitVar, field
    import torch
    from torch import nn

    @dataclass
    class Base:
        dim: int
        heads: int = 4

    @dataclass
    class Wide(Base):
        mlp_ratio: int = 4
        heads: int = 8
        hidden: int = field(init=False)
        factor: InitVar[int] = 1

        def __post_init__(self, factor):
            self.hidden = self.dim * self.mlp_ratio * factor

    cfg = Wide(64, 2, 3)
    assert (cfg.dim, cfg.heads, cfg.mlp_ratio) == (64, 2, 3)
    fc1 = nn.Linear(cfg.dim, cfg.hidden)
    fc2 = nn.Linear({FC2_IN}, cfg.dim)
    y = fc2(fc1(torch.randn(5, 64)))
    """


@pytest.mark.parametrize("fc2_in,bad", [
    ("192", False),                       # 64 * 3 * 1
    ("256", True),                        # as if mlp_ratio had kept its default
    ("replace(cfg, factor=2).hidden // 2", False),  # replace runs __post_init__ again
])
def test_base_fields_first_and_post_init(fc2_in, bad):
    source = INHERITED.replace("{FC2_IN}", fc2_in)
    assert findings(source) == ([(25, "SC106")] if bad else [])
    assert (raises_on_torch(source) == "RuntimeError") is bad


def test_a_class_defining_its_own_init_keeps_it():
    source = """
        from dataclasses import dataclass
        import torch

        @dataclass
        class Cfg:
            dim: int = 4

            def __init__(self, size):
                self.dim = size * 2

        reveal_shape(torch.zeros(Cfg(3).dim))
        """
    assert notes("from shapecheck import reveal_shape\n" + textwrap.dedent(source)) == \
        ["torch.zeros(Cfg(3).dim): (6,) float32 torch"]


def test_fields_nobody_knows_are_unknown_not_their_defaults():
    """A method runs for every instance, options nobody knows may hold any field, and
    too many arguments are Python's TypeError: no width is assumed from any of them
    (``torch.zeros(n)`` of an unknown n is of unknown rank: n may be a tuple)."""
    source = """
        from dataclasses import dataclass, field
        from shapecheck import reveal_shape
        import torch

        @dataclass
        class Cfg:
            dim: int = 4
            sizes: list = field(default_factory=list)
            heads: int = 2

            def zeros(self):
                reveal_shape(torch.zeros(self.dim))

        def build(options: dict):
            reveal_shape(torch.zeros(Cfg(**options).dim))

        reveal_shape(torch.zeros(Cfg(1, [], 3, 4).dim))
        reveal_shape(torch.zeros(Cfg().dim))
        reveal_shape(torch.zeros(Cfg(2, img_size=options_only()).dim))
        """
    assert notes(source) == [
        "torch.zeros(self.dim): rank unknown float32 torch",
        "torch.zeros(Cfg(**options).dim): rank unknown float32 torch",
        "torch.zeros(Cfg(1, [], 3, 4).dim): rank unknown float32 torch",
        "torch.zeros(Cfg().dim): (4,) float32 torch",
        # a keyword no field has (one a caller's options may hold) binds nothing
        "torch.zeros(Cfg(2, img_size=options_only()).dim): (2,) float32 torch",
    ]


def test_keyword_only_fields_take_no_position():
    source = """
        from dataclasses import dataclass, field, KW_ONLY
        from shapecheck import reveal_shape
        import torch

        @dataclass
        class Cfg:
            dim: int
            _: KW_ONLY
            heads: int = 2
            drop: float = field(default=0.0, kw_only=False)

        cfg = Cfg(8, 0.5, heads=4)
        reveal_shape(torch.zeros(cfg.dim, cfg.heads))
        """
    assert notes(source) == ["torch.zeros(cfg.dim, cfg.heads): (8, 4) float32 torch"]



INIT_FALSE = """
    from dataclasses import dataclass
    import torch

    class Base:
        def __init__(self, size):
            self.dim = size * 2

    @dataclass(init=False)
    class Cfg(Base):
        dim: int = 3

    shape = torch.zeros(Cfg(5).dim).shape
    """


def test_a_dataclass_with_init_false_keeps_the_init_it_inherits():
    namespace: dict = {}
    exec(textwrap.dedent(INIT_FALSE), namespace)  # the test's own constant snippet
    assert tuple(namespace["shape"]) == (10,)
    source = "from shapecheck import reveal_shape\n" + textwrap.dedent(INIT_FALSE) + \
        "reveal_shape(torch.zeros(Cfg(5).dim))\n"
    assert notes(source) == ["torch.zeros(Cfg(5).dim): (10,) float32 torch"]
