"""The walk's alias facts agree with the real libraries: what is a view, of which memory, at which strides.

For each expression the analyzer's verdict (same storage as the base or a
new one; the view's offset, shape and strides when sizes are known; read-only
and repeated elements) is compared with what real NumPy / torch do.
"""

from __future__ import annotations

import libcst as cst
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck.analysis.interpret import Interpreter
from shapecheck.analysis.values import AbstractArray

NUMPY_EXPRESSIONS = [
    "a[1]", "a[1:3]", "a[:, 2]", "a[::2, 1:5:2]", "a[None, 1]", "a[..., 0]", "a[-1]", "a[::-1]",
    "a[1:3].T", "a[:, None, :]", "a.T", "a.transpose()", "np.transpose(a)", "a.swapaxes(0, 1)",
    "a.reshape(24)", "a.reshape(2, 12)", "a.ravel()", "np.ravel(a)", "a.T.reshape(24)",
    "a.T.ravel()", "a.diagonal()", "np.diagonal(a, 1)", "np.broadcast_to(a[0], (3, 6))",
    "np.expand_dims(a, 0)", "a.view()", "a.real", "np.asarray(a)", "a[[0, 2]]", "a[a > 0]",
    "a[:, [1]]", "a[1, 2]", "a.copy()", "np.copy(a)", "np.array(a)", "a + 1", "a.flatten()",
    "a.astype(np.float32)", "a.squeeze()",
]

TORCH_EXPRESSIONS = [
    "x[1]", "x[1:3]", "x[:, 2]", "x[::2, 1:5:2]", "x[None, 1]", "x.t()", "x.T",
    "x.transpose(0, 1)", "x.permute(1, 0)", "x.view(24)", "x.view(2, 12)", "x.reshape(24)",
    "x.t().reshape(24)", "x.flatten()", "x.t().flatten()", "x.unsqueeze(0)", "x.diagonal()",
    "x.narrow(0, 1, 2)", "x.select(0, 1)", "x[0:1].expand(3, 6)", "x.detach()", "x.clone()",
    "x[[0, 2]]", "x[x > 0]", "x * 2", "x.t().contiguous()", "x.contiguous()",
]


def analyze(source: str) -> dict:
    """The module-level alias facts after the walk: name -> values.Alias (None if unknown)."""
    walker = Interpreter(cst.parse_module(source), source, "t.py", None)
    walker.run()
    return {name: value.alias for name, value in walker.frame.scope.vars.items()
            if isinstance(value, AbstractArray)}


def known(alias) -> bool:
    """The walk knows which storage the value is in."""
    return alias is not None and alias.storage is not None


def run(source: str) -> dict:
    """Run one of this file's own snippets (never user input) and return its names."""
    env: dict = {}
    exec(compile(source, "<snippet>", "exec"), env)
    return env


def numpy_layout(base: np.ndarray, view: np.ndarray) -> tuple[int, tuple, tuple]:
    item = base.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return offset, view.shape, strides_that_matter(view.shape, tuple(s // item for s in view.strides))


def strides_that_matter(shape: tuple, strides: tuple) -> tuple:
    """A size-1 dim's stride never moves anywhere; the libraries pick different values for it."""
    return tuple(s if n != 1 else None for n, s in zip(shape, strides))


@pytest.mark.parametrize("expr", NUMPY_EXPRESSIONS)
def test_numpy_view_verdicts_match_real_numpy(expr):
    source = f"import numpy as np\na = np.arange(24.0).reshape(4, 6)\nb = {expr}\n"
    env = analyze(source)
    a, b = env["a"], env["b"]
    real = run(source)
    shares = np.shares_memory(real["a"], real["b"])
    if not known(b):
        pytest.fail(f"{expr}: the analyzer lost track of the result")
    assert (b.storage.id == a.storage.id) == shares, expr
    if b.storage.id == a.storage.id:
        assert b.view != "maybe", f"{expr}: the layout is known, so view-or-copy is decided"
        assert (b.view == "readonly") == (not real["b"].flags.writeable), expr
        if b.layout is not None:
            offset, shape, strides = numpy_layout(real["a"], real["b"])
            assert (b.layout.offset, b.layout.shape,
                    strides_that_matter(b.layout.shape, b.layout.strides)) == (offset, shape, strides)


@pytest.mark.parametrize("expr", TORCH_EXPRESSIONS)
def test_torch_view_verdicts_match_real_torch(expr):
    pytest.importorskip("torch")
    source = f"import torch\nx = torch.arange(24.0).view(4, 6)\ny = {expr}\n"
    env = analyze(source)
    x, y = env["x"], env["y"]
    real = run(source)
    rx, ry = real["x"], real["y"]
    shares = ry.untyped_storage().data_ptr() == rx.untyped_storage().data_ptr()
    assert known(y), expr
    assert (y.storage.id == x.storage.id) == shares, expr
    if y.storage.id == x.storage.id and y.layout is not None:
        assert (y.layout.offset, y.layout.shape,
                strides_that_matter(y.layout.shape, y.layout.strides)) == (
            ry.storage_offset(), tuple(ry.shape), strides_that_matter(tuple(ry.shape), ry.stride())), expr
        assert y.repeats == (0 in ry.stride() and ry.numel() > 1), expr


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-7, 7) | st.none(), st.integers(-7, 7) | st.none(),
                          st.sampled_from([None, 1, 2, 3, -1, -2])), min_size=1, max_size=2),
       st.booleans())
def test_slice_chains_have_numpys_offsets_and_strides(slices, transpose):
    parts = ", ".join(f"{'' if lo is None else lo}:{'' if hi is None else hi}"
                      f"{'' if step is None else f':{step}'}" for lo, hi, step in slices)
    expr = f"a[{parts}]" + (".T" if transpose else "")
    source = f"import numpy as np\na = np.arange(42.0).reshape(6, 7)\nb = {expr}\n"
    b = analyze(source)["b"]
    real = run(source)
    assert known(b) and b.layout is not None, expr
    offset, shape, strides = numpy_layout(real["a"], real["b"])
    assert b.layout.shape == shape, expr
    if real["b"].size:
        assert (b.layout.offset, strides_that_matter(b.layout.shape, b.layout.strides)) == (
            offset, strides), expr
