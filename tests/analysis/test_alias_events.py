"""Writes beyond explicit in-place ops, and conversions that keep their operand's memory.

Each snippet is linted and then run on the real library: the finding must
point at a harm that happens (a snapshot that changed), and its fixed twin
must lint clean and keep its values.
"""

from __future__ import annotations


import pytest

from alias_snippets import codes, run


RESTORE = """
import copy

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


torch.manual_seed(0)
model = Net()
best = model.state_dict()
before = model.fc.weight.detach().clone()
model.load_state_dict(Net().state_dict())
seen = best["fc.weight"]
"""


def test_load_state_dict_writes_into_a_state_dict_taken_before():
    torch = pytest.importorskip("torch")
    assert codes(RESTORE) == [(19, "SC304")]
    env = run(RESTORE)
    assert not torch.equal(env["seen"], env["before"])  # "best" now holds the loaded weights
    fixed = RESTORE.replace("best = model.state_dict()",
                            "best = copy.deepcopy(model.state_dict())")
    assert codes(fixed) == []
    assert torch.equal(run(fixed)["seen"], run(fixed)["before"])


def test_numpy_of_a_tensor_is_the_tensor_memory():
    pytest.importorskip("torch")
    code = """
    import torch

    w = torch.ones(3)
    prev = w.numpy()
    w.add_(1.0)
    change = (w.numpy() - prev).sum()
    """
    assert codes(code) == [(5, "SC304")]
    assert run(code)["change"] == 0.0  # the "previous" weights moved with w
    fixed = code.replace("prev = w.numpy()", "prev = w.numpy().copy()")
    assert codes(fixed) == []
    assert run(fixed)["change"] == 3.0


def test_copy_copy_shares_a_tensor_storage_but_copies_a_numpy_array():
    pytest.importorskip("torch")
    shared = """
    import copy

    import torch

    t = torch.zeros(3)
    kept = copy.copy(t)
    t[0] = 5.0
    seen = float(kept[0])
    """
    assert codes(shared) == [(7, "SC304")]
    assert run(shared)["seen"] == 5.0
    copied = shared.replace("import torch", "import numpy as np").replace(
        "torch.zeros(3)", "np.zeros(3)")
    assert codes(copied) == []
    assert run(copied)["seen"] == 0.0


def test_copy_copy_of_an_array_argument_does_not_write_the_caller_array():
    code = """
    import copy

    import numpy as np

    def centered(x):
        y = copy.copy(x)
        y -= y.mean()
        return y

    data = np.arange(4.0)
    out = centered(data)
    total = data.sum()
    """
    assert codes(code) == []
    assert run(code)["total"] == 6.0


@pytest.mark.parametrize("call", ["np.fill_diagonal(z, 1.0)", "np.put(z, [0], 1.0)",
                                  "np.place(z, z == 0, 1.0)", "np.putmask(z, z == 0, 1.0)",
                                  "np.copyto(z, 1.0)"])
def test_numpy_writing_functions_change_every_alias(call: str):
    code = f"""
    import numpy as np

    z = np.zeros((3, 3))
    keep = z
    {call}
    total = keep.sum()
    """
    assert codes(code) == [(5, "SC304")]
    assert run(code)["total"] > 0.0


@pytest.mark.parametrize("call", ["np.fill_diagonal(d[[0, 1]], 1.0)", "np.put(d[[0, 1]], [0], 1.0)",
                                  "np.place(d[[0, 1]], m > 0, 1.0)"])
def test_numpy_writing_functions_into_an_advanced_index_change_nothing(call: str):
    code = f"""
    import numpy as np

    d = np.zeros((4, 4))
    m = np.ones((2, 4))
    {call}
    total = d.sum()
    """
    assert codes(code) == [(6, "SC301")]
    assert run(code)["total"] == 0.0


def _shifted(cols: int, rows: int, k: int, right: bool, along_rows: bool) -> tuple:
    """A write and a read view k apart: along each row, or k rows apart with the first column
    left out (so that neither view is dense)."""
    if along_rows:
        write = (slice(k, None), slice(1, None)) if right else (slice(None, rows - k), slice(1, None))
        read = (slice(None, rows - k), slice(1, None)) if right else (slice(k, None), slice(1, None))
        return write, read
    write = (slice(None), slice(k, None) if right else slice(None, cols - k))
    read = (slice(None), slice(None, cols - k) if right else slice(k, None))
    return write, read


@pytest.mark.parametrize("along_rows", [False, True])
def test_an_unchecked_overlap_is_reported_only_where_real_torch_reads_what_it_wrote(along_rows):
    """torch walks a layout it cannot check in memory order; whether an element it reads was
    already written depends on the run it stores at once. The rule claims a wrong result only
    where every run width gives one, and real torch must agree on each such case."""
    torch = pytest.importorskip("torch")
    import numpy as np

    from shapecheck.runtime.layout import Layout, torch_overlap_status, torch_reads_overwritten

    claimed = 0
    for rows, cols, k in [(3, 5, 1), (3, 9, 1), (2, 17, 1), (3, 66, 1), (2, 100, 1), (2, 100, 3),
                          (4, 130, 8), (2, 200, 70), (7, 65, 2), (9, 3, 2)]:
        if along_rows and k >= rows:
            continue
        for right in (True, False):
            write, read = _shifted(cols, rows, k, right, along_rows)
            base = Layout.contiguous((rows, cols))
            w, r = base.index(write), base.index(read)
            if torch_overlap_status(w, r) != "too_hard":
                continue  # a single row is dense: torch checks it (and raises or not)
            for dtype in (np.float32, np.float64):
                data = np.random.default_rng(0).standard_normal((rows, cols)).astype(dtype)
                expected, tensor = data.copy(), torch.from_numpy(data.copy())
                expected[write] = expected[read]  # NumPy buffers the overlapping input
                tensor[write] = tensor[read]
                wrong = not np.allclose(tensor.numpy(), expected)
                if torch_reads_overwritten(w, r):
                    claimed += 1
                    assert wrong, (rows, cols, k, right, dtype)
    assert claimed >= 4  # the grid holds cases the rule does claim


ALL = (slice(None), slice(None))
# (shape, written index, read index, dtype): in-place ops whose input is a broadcast view of
# the written tensor.
BROADCAST_READS = [((4, 3), ALL, (slice(None), slice(0, 1)), "float32"),
                   ((4, 3), ALL, (slice(None), slice(1, 2)), "float64"),
                   ((4, 3), ALL, (slice(None), slice(2, 3)), "float32"),
                   ((2, 4, 3), ALL, (slice(None), slice(None), slice(0, 1)), "float64"),
                   ((100, 3), ALL, (slice(None), slice(0, 1)), "float32"),
                   ((4, 100), ALL, (slice(None), slice(0, 1)), "float32"),
                   ((3, 200), ALL, (slice(None), slice(0, 1)), "float64"),
                   ((3, 200), ALL, (slice(None), slice(0, 1)), "float32"),
                   ((5, 6), (slice(None), slice(None, None, 2)), (slice(0, 1), slice(None, None, 2)),
                    "float32"),
                   ((6, 40), ALL, (slice(2, 3), slice(None)), "float32"),
                   ((3, 4, 5), ALL, (slice(None), slice(0, 1), slice(None)), "float32"),
                   ((3, 4, 5), ALL, (slice(0, 1), slice(None), slice(0, 1)), "int64"),
                   ((8, 2), ALL, (slice(None), slice(1, 2)), "uint8"),
                   ((4, 5), (slice(None), slice(0, 2)), (slice(0, 1), slice(1, 3)), "float32"),
                   ((6, 70), (slice(None), slice(0, 64)), (slice(0, 1), slice(1, 65)), "float64"),
                   ((4, 5), (slice(1, None), slice(0, 3)), (slice(1, 2), slice(1, 4)), "int32")]


@pytest.mark.parametrize("op", ["sub", "add", "mul", "copy"])
def test_a_broadcast_overlap_is_claimed_only_where_real_torch_reads_what_it_wrote(op):
    """torch does not check a broadcast input taken from the written tensor (x -= x[:, :1]);
    its vectorized kernels load such an input once per inner loop, the scalar ones at every
    element. The rule claims a wrong result only where every CPU gives one: real torch must
    agree on each claim (the runs that come out right are the ones it leaves alone)."""
    torch = pytest.importorskip("torch")
    import numpy as np

    from shapecheck.runtime.dtypes import itemsize
    from shapecheck.runtime.layout import (
        Layout,
        torch_reads_overwritten,
        torch_overlap_status,
    )

    claimed = 0
    for shape, write, read, dtype in BROADCAST_READS:
        base = Layout.contiguous(shape)
        w, r = base.index(write), base.index(read)
        if torch_overlap_status(w, r) != "too_hard":
            continue  # dense views: torch checks them (and raises)
        if not torch_reads_overwritten(w, r, itemsize(dtype), copy=op == "copy"):
            continue
        claimed += 1
        data = np.random.default_rng(1).integers(1, 9, shape).astype(dtype)
        expected, tensor = data.copy(), torch.from_numpy(data.copy())
        if op == "copy":
            expected[write] = data[read]
            tensor[write] = tensor[read]
        else:
            ufunc = getattr(np, {"sub": "subtract", "add": "add", "mul": "multiply"}[op])
            expected[write] = ufunc(data[write], data[read])
            getattr(tensor[write], op + "_")(tensor[read])
        assert not np.array_equal(tensor.numpy(), expected), (shape, write, read, dtype, op)
    assert claimed >= (2 if op == "copy" else 6)


def test_subtracting_a_column_of_the_tensor_itself_is_reported_and_comes_out_wrong():
    torch = pytest.importorskip("torch")
    code = """
    import torch

    x = torch.arange(1.0, 13.0).reshape(4, 3)
    x -= x[:, :1]
    """
    assert codes(code) == [(5, "SC303")]
    fixed = code.replace("x[:, :1]", "x[:, :1].clone()")
    assert codes(fixed) == []
    assert not torch.equal(run(code)["x"], run(fixed)["x"])
    # The last column is read before anything writes it: that walk comes out right.
    last = code.replace("x[:, :1]", "x[:, -1:]")
    assert codes(last) == []
    assert torch.equal(run(last)["x"], run(fixed.replace(":1]", "-1:]"))["x"])


def test_setitem_of_a_broadcast_value_is_never_refused_but_copy_and_ops_are():
    # x[...] = v of another shape copies v expanded, which torch does not check; copy_ and
    # pointwise ops check the operands as given.
    torch = pytest.importorskip("torch")
    setup = "import torch\na = torch.arange(240.0).reshape(6, 40)\n"
    for statement, last_row in (("a[:, :] = a[2:3, :]", torch.arange(80.0, 120.0)),
                                ("a[:] = a[2]", torch.arange(80.0, 120.0)),
                                ("a[1:] = a[0, 0]", torch.zeros(40))):
        assert codes(setup + statement + "\n") == [], statement
        assert torch.equal(run(setup + statement + "\n")["a"][5], last_row)
    for statement in ("a.copy_(a[2:3])", "a -= a[2:3, :]", "a[1:] = a[:-1]"):
        assert codes(setup + statement + "\n") == [(3, "SC303")], statement
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            run(setup + statement + "\n")


@pytest.mark.parametrize(("conversion", "shared"), [
    ("np.asarray(a, dtype=np.float32)", True),
    ("np.asarray(a, dtype=np.float64)", False),
    ("np.asanyarray(a)", True),
    ("np.array(a)", False),
    ("torch.as_tensor(a)", True),
    ("torch.as_tensor(a, dtype=torch.float32)", True),
    ("torch.as_tensor(a, dtype=torch.float64)", False),
    ("torch.from_numpy(a)", True),
])
def test_a_conversion_keeps_the_memory_exactly_when_the_dtype_is_already_right(conversion, shared):
    pytest.importorskip("torch")
    code = f"""
    import numpy as np
    import torch

    a = np.zeros(3, dtype=np.float32)
    b = {conversion}
    a[0] = 5.0
    seen = float(b[0])
    """
    assert codes(code) == ([(6, "SC304")] if shared else [])
    assert run(code)["seen"] == (5.0 if shared else 0.0)


def test_the_rows_unbind_gives_are_views_of_the_tensor():
    pytest.importorskip("torch")
    code = """
    import torch

    t = torch.zeros(3, 2)
    first = t.unbind()[0]
    kept = first
    t.add_(1.0)
    seen = float(kept[0])
    """
    assert codes(code) == [(6, "SC304")]
    assert run(code)["seen"] == 1.0


def test_copy_copy_of_a_parameter_that_may_be_a_dict_is_a_new_container():
    code = """
    import copy

    def fix_paths(info):
        info["sources"] = [s.strip() for s in info["sources"]]

    def add_library(name, sources, build_info):
        build_info = copy.copy(build_info)
        build_info["sources"] = sources
        if "depends" not in build_info:
            build_info["depends"] = []
        fix_paths(build_info)
        return name, build_info
    """
    assert codes(code) == []
    info = {"language": "c"}
    env = run(code)
    env["add_library"]("m", ["a.c"], info)
    assert info == {"language": "c"}


@pytest.mark.parametrize(("snapshot", "fixed", "read"), [
    ("kept = model.state_dict(keep_vars=True)",
     "kept = {k: v.detach().clone() for k, v in model.state_dict(keep_vars=True).items()}",
     "kept['weight'][0]"),
    ("kept, _ = model.weight.detach().unbind(0)",
     "kept, _ = model.weight.detach().clone().unbind(0)", "kept"),
    ("kept = list(model.weight.detach())", "kept = list(model.weight.detach().clone())",
     "kept[0]"),
])
def test_rows_and_state_dicts_that_look_like_copies_move_with_the_weights(snapshot, fixed, read):
    # state_dict(keep_vars=True) holds the parameters themselves; unbind and list() give views.
    torch = pytest.importorskip("torch")
    code = f"""
    import torch
    from torch import nn

    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    start = model.weight.detach().clone()[0]
    {snapshot}
    model(torch.ones(4, 3)).sum().backward()
    opt.step()
    moved = not torch.equal({read}, start)
    """
    assert codes(code) == [(8, "SC304")]
    assert run(code)["moved"]
    fixed_code = code.replace(snapshot, fixed)
    assert codes(fixed_code) == []
    assert not run(fixed_code)["moved"]


def test_an_array_made_with_copy_false_is_the_array_itself():
    code = """
    import numpy as np

    x = np.ones(3)
    kept = np.array(x, copy=False)
    x += 1
    seen = kept[0]
    """
    assert codes(code) == [(5, "SC304")]
    assert run(code)["seen"] == 2.0
    fixed = code.replace("copy=False", "copy=True")
    assert codes(fixed) == []
    assert run(fixed)["seen"] == 1.0


def test_nn_init_fills_its_tensor_in_place_under_no_grad():
    # A snapshot of the weight moves with it; a leaf may be filled; a saved input may not.
    torch = pytest.importorskip("torch")
    code = """
    import torch
    from torch import nn

    emb = nn.Embedding(10, 4)
    kept = emb.weight.detach()
    nn.init.zeros_(emb.weight)
    total = float(kept.abs().sum())
    """
    assert codes(code) == [(6, "SC304")]
    assert run(code)["total"] == 0.0
    saved = """
    import torch
    from torch import nn

    x = torch.ones(3, requires_grad=True)
    scale = torch.full((3,), 2.0)
    y = x * scale
    nn.init.ones_(scale)
    y.sum().backward()
    """
    assert codes(saved) == [(8, "SC307")]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        run(saved)


def test_requires_grad_called_on_its_own_makes_the_tensor_a_leaf():
    torch = pytest.importorskip("torch")
    code = """
    import torch

    w = torch.zeros(3)
    w.requires_grad_()
    w.add_(1)
    """
    assert codes(code) == [(6, "SC307")]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        run(code)
    assert codes(code.replace("w.add_(1)", "with torch.no_grad():\n        w.add_(1)")) == []
