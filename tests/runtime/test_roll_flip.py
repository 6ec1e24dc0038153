"""roll and the flips keep the shape; their dims are checked as the real libraries check them."""

from __future__ import annotations

import numpy as np
import pytest

from shapecheck.runtime import ops as rt_ops
from shapecheck.runtime.arguments import ArrayArg
from shapecheck.runtime.dialects import NUMPY, TORCH
from shapecheck.runtime.verdicts import ShapeError
from tests.runtime.real_library import call_real, class_names

CASES = [
    ("torch.roll", (2, 3), (1,)), ("torch.roll", (2, 3), ((1, 2),)), ("torch.roll", (2, 3), (1, 2)),
    ("torch.roll", (2, 3), ((1, 2), (0,))), ("torch.roll", (2, 3), ((1, 2), (0, -1))),
    ("torch.roll", (2, 3), (1, -3)), ("torch.flip", (2, 3), ((2,),)), ("torch.flip", (2, 3), ((0, 0),)),
    ("torch.flip", (2, 3, 4), ((0, -1),)), ("torch.fliplr", (3,), ()), ("torch.fliplr", (3, 2), ()),
    ("torch.flipud", (), ()), ("torch.flipud", (4,), ()),
    ("np.roll", (2, 3), (1, 2)), ("np.roll", (2, 3), (1,)), ("np.roll", (2, 3), ((1, 2), (0, 1))),
    ("np.flip", (2, 3), (2,)), ("np.flip", (2, 3), ((0, 0),)), ("np.flip", (2, 3), ()),
    ("np.fliplr", (3,), ()), ("np.flipud", (), ()), ("np.flipud", (2, 5), ()),
]


@pytest.mark.parametrize("op, shape, args", CASES)
def test_the_rule_agrees_with_the_library(op, shape, args):
    dialect = NUMPY if op.startswith("np.") else TORCH
    if dialect is TORCH:
        torch = pytest.importorskip("torch")
        x = torch.zeros(shape)
    else:
        x = np.zeros(shape)
    spec = rt_ops.lookup(op, dialect)
    assert spec.keeps_shape
    try:
        real = call_real(op, (x,) + args, {})
    except Exception as exc:  # the library refuses: so must the rule, with its exception class
        with pytest.raises(ShapeError) as refused:
            spec.rule(ArrayArg(shape, "float32"), *args, dialect=dialect)
        assert refused.value.exc_type in class_names(exc)
        return
    assert spec.rule(ArrayArg(shape, "float32"), *args, dialect=dialect).outputs == (tuple(real.shape),)
