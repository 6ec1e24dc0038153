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
