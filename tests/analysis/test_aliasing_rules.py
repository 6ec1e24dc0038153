"""The aliasing rules across loops and functions, their precision cases, and their runtime truth."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source
from shapecheck.runtime import ops
from alias_snippets import run

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def findings(code: str, dialect: str | None = None):
    return analyze_source(textwrap.dedent(code), "t.py", AnalysisSettings(dialect=dialect))


def codes(code: str, dialect: str | None = None) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in findings(code, dialect) if f.code.startswith("SC3"))


# ---------------------------------------------------------------------- SC303 vs real torch

OVERLAP_CASES = [
    ("a = torch.arange(5.0)", "a[1:] = a[:-1]", True),
    ("a = torch.arange(2.0)", "a[1:] = a[:-1]", False),  # one element each: no overlap
    ("m = torch.ones(3, 40)", "m[:, 1:] = m[:, :-1]", False),  # not dense: torch does not check
    ("m = torch.ones(3, 4)", "m[1:] = m[:-1]", True),
    ("m = torch.ones(3, 3)", "m += m.T", True),
    ("m = torch.ones(3, 3)", "m += m", False),  # the very same view
    ("m = torch.ones(3, 3)", "m.add_(m[0])", True),
    ("m = torch.ones(3, 3)", "m[0] = m[1]", False),
    ("m = torch.ones(4, 3)", "m[0:2] = m[1:3]", True),
    ("m = torch.ones(4, 3)", "m[::2] = m[1::2]", False),
    ("m = torch.ones(3, 3)", "m.mul_(m.t())", True),
    ("a = torch.arange(5.0)", "a[:3] = a[2:]", True),
    ("m = torch.ones(3, 3)", "m.T[0] = m[0]", False),
    ("m = torch.ones(2, 3, 4)", "m[0] += m[1]", False),
    ("m = torch.ones(4, 4)", "m[:2, :2] = m[2:, 2:]", False),
    ("m = torch.ones(4, 4)", "m[1:3].sub_(m[0:2])", True),
    ("a = torch.arange(6.0)", "a[:4].view(2, 2).add_(a[2:].view(2, 2))", True),
]


@pytest.mark.parametrize("setup,statement,raises", OVERLAP_CASES,
                         ids=[s for _, s, _ in OVERLAP_CASES])
def test_overlap_is_reported_exactly_when_torch_refuses(setup, statement, raises):
    pytest.importorskip("torch")
    code = f"import torch\n{setup}\n{statement}\n"
    assert codes(code) == ([(3, "SC303")] if raises else [])
    try:
        run(code)
        raised = False
    except RuntimeError as exc:
        assert "refer to a single memory location" in str(exc)
        raised = True
    assert raised == raises


def test_an_unchecked_overlap_of_short_rows_is_reported_and_smears_the_rows():
    # Rows shorter than any vector pair are copied element by element, each reading what the
    # step before wrote; torch checks nothing there, so the result is silently wrong.
    torch = pytest.importorskip("torch")
    code = "import torch\nm = torch.arange(12.0).reshape(3, 4)\nm[:, 1:] = m[:, :-1]\n"
    assert codes(code) == [(3, "SC303")]
    fixed = code.replace("m[:, :-1]\n", "m[:, :-1].clone()\n")
    assert codes(fixed) == []
    assert run(code)["m"][0].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert run(fixed)["m"][0].tolist() == [0.0, 0.0, 1.0, 2.0]


def test_overlap_in_numpy_is_not_reported_because_numpy_copies_the_input():
    code = "import numpy as np\na = np.arange(5.0)\na[1:] = a[:-1]\nm = np.ones((3, 3))\nm += m.T\n"
    assert codes(code) == []
    env = run(code)
    assert env["a"].tolist() == [0.0, 0.0, 1.0, 2.0, 3.0]
    assert (env["m"] == 2).all()


def test_overlap_is_not_reported_in_the_torch_legacy_dialect():
    assert codes("import torch\na = torch.arange(5.0)\na[1:] = a[:-1]\n", "torch-legacy") == []


def test_overlap_inside_a_function_is_reported():
    code = """
    import torch
    def shift():
        buf = torch.zeros(6)
        buf[1:] = buf[:-1]
        return buf
    """
    assert codes(code) == [(5, "SC303")]


# ---------------------------------------------------------------------- SC304 through loops

def test_snapshot_rebound_at_the_end_of_a_loop_is_stale_in_the_next_iteration():
    code = """
    import numpy as np
    x = np.ones(3)
    x_old = x.copy()
    iterations = 0
    while True:
        iterations += 1
        x -= 0.5 * x
        if np.abs(x - x_old).max() < 1e-3:
            break
        x_old = x
    """
    assert codes(code) == [(11, "SC304")]
    # The check compares x with itself from the second iteration on: it stops at once.
    assert run(code)["iterations"] == 2


def test_copy_ends_aliasing_and_rebinding_is_not_in_place():
    code = """
    import numpy as np
    x = np.ones(3)
    snap = x.copy()
    x += 1
    same = x
    x = x + 1
    print(snap, same)
    """
    assert codes(code) == []
    env = run(code)
    assert env["snap"].tolist() == [1.0, 1.0, 1.0] and env["same"].tolist() == [2.0, 2.0, 2.0]


def test_writing_through_a_view_on_purpose_is_not_a_finding():
    code = """
    import numpy as np
    x = np.zeros((3, 4))
    v = x[0]
    v[:] = 1
    row = x[1]
    x[1] += 2
    print(x.sum(), row.sum())
    """
    assert codes(code) == []
    assert run(code)["x"][0].tolist() == [1.0] * 4


def test_snapshot_of_a_region_the_write_misses_is_not_stale():
    code = """
    import numpy as np
    w = np.zeros((2, 3))
    head = w[:]
    w += 1
    print(head)
    """
    # A full-slice snapshot of all of w: stale.
    assert codes(code) == [(4, "SC304")]


def test_stale_alias_inside_a_function_with_its_own_import():
    code = """
    def solve(n):
        import numpy as np
        x = np.ones(n)
        for _ in range(5):
            prev = x
            x /= 2
        return x - prev
    """
    assert codes(code) == [(6, "SC304")]


def test_a_try_block_keeps_silent_hazards_and_drops_the_failures_it_catches():
    code = """
    import numpy as np
    x = np.ones(3)
    try:
        old = x
        x += 1
        print(old)
        x.diagonal()[0] = 1
    except ValueError:
        pass
    """
    assert codes(code) == [(5, "SC304")]


def test_messages_name_the_arrays_the_lines_and_the_library_text():
    stale = findings("import numpy as np\nx = np.ones(3)\nold = x\nx += 1\nprint(old)\n")
    assert [(f.line, f.column, f.code) for f in stale] == [(3, 1, "SC304")]
    assert "'old = x'" in stale[0].message and "line 4" in stale[0].message \
        and "line 5" in stale[0].message
    assert stale[0].related == (("t.py", 4),)
    overlap = findings("import torch\na = torch.arange(5.0)\na[1:] = a[:-1]\n")
    assert "(4,) view of 'a'" in overlap[0].message
    assert "refer to a single memory location" in overlap[0].message


def test_snapshot_read_before_the_write_is_fine():
    code = """
    import numpy as np
    x = np.ones(3)
    old = x
    total = old.sum()
    x *= 2
    """
    assert codes(code) == []


# ---------------------------------------------------------------------- SC305 across functions

def test_argument_mutation_is_reported_through_an_intermediate_function():
    code = """
    import numpy as np

    def scale(v):
        v *= 2

    def prepare(a):
        scale(a)
        return a.sum()

    data = np.ones(3)
    total = prepare(data)
    print(data)
    """
    found = findings(code)
    assert sorted((f.line, f.code) for f in found) == [(12, "SC305")]
    at_call = found[0]
    assert at_call.related == (("t.py", 5),)
    assert run(code)["data"].tolist() == [2.0, 2.0, 2.0]


def test_argument_mutation_needs_a_read_after_the_call():
    code = """
    import numpy as np

    def scale(v):
        v *= 2
        return v

    data = np.ones(3)
    data = scale(data)
    print(data)
    """
    assert codes(code) == []


@pytest.mark.parametrize("header", ["def fill_zeros(v):", "def scale_(v):", "def scale(out):",
                                    'def scale(v):\n        """Scale v in place."""'])
def test_functions_that_say_they_mutate_are_not_reported(header):
    code = f"""
    import numpy as np

    {header}
        v[:] = 0

    data = np.ones(3)
    fill = {header.split()[1].split("(")[0]}(data)
    print(data)
    """
    assert codes(code) == []


@pytest.mark.parametrize("callee,call", [
    ("def work(v):\n        v[0] = 5\n", "work(data)"),  # a procedure: mutating is its job
    ("def work(v):\n        v[0] = 5\n        return v.sum()\n", "work(data)"),  # result unused
])
def test_procedures_and_calls_made_for_their_effect_are_not_reported(callee, call):
    code = f"""
    import numpy as np

    {callee}
    data = np.ones(3)
    {call}
    print(data)
    """
    assert codes(code) == []


def test_a_buffer_allocated_to_be_filled_is_not_reported():
    code = """
    import numpy as np

    def arnoldi(a, basis):
        basis[:, 0] = a[:, 0]
        return basis[:, 0].sum()

    basis = np.zeros((3, 2))
    h = arnoldi(np.eye(3), basis)
    print(basis)
    """
    assert codes(code) == []


def test_an_array_namespace_parameter_is_not_an_array():
    code = """
    def test_nan(xp):
        x = xp.reshape(xp.arange(15.0), (3, 5))
        x[1, 2] = xp.nan
        return xp.sum(x)
    """
    assert codes(code) == []


def test_a_copy_inside_the_callee_protects_the_caller():
    code = """
    import numpy as np

    def centered(v):
        v = v.copy()
        v -= v.mean()
        return v

    data = np.arange(3.0)
    c = centered(data)
    print(data)
    """
    assert codes(code) == []
    assert run(code)["data"].tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------------- SC301, SC302, SC306

def test_write_to_copy_is_not_reported_when_the_base_is_not_known_to_be_an_array():
    # a could be a DataFrame or a custom container: not certain.
    assert codes("def f(a):\n    a[[1, 2]][0] = 1\n") == []


def test_expand_with_unknown_sizes_is_not_reported():
    assert codes("import torch\ndef f(x):\n    x.expand(3, 4).add_(1)\n") == []


def test_write_through_a_reshape_of_a_fresh_array_is_a_certain_view():
    code = "import numpy as np\na = np.zeros(6)\nm = a.reshape(2, 3)\nm[0, 0] = 1\nprint(a)\n"
    assert codes(code) == []
    assert run(code)["a"][0] == 1


def test_layout_dependent_write_needs_the_base_read_afterwards():
    code = "def f(x):\n    flat = x.reshape(-1)\n    flat[0] = 0\n    return flat\n"
    assert codes(code) == []


def test_view_of_a_contiguous_tensor_is_fine_and_of_a_transposed_one_is_not():
    pytest.importorskip("torch")
    code = "import torch\nx = torch.zeros(2, 3)\na = x.view(-1)\nb = x.t().view(-1)\n"
    assert codes(code) == [(4, "SC308")]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        run(code)


def test_readonly_writes_inside_pytest_raises_or_try_are_expected():
    code = """
    import numpy as np
    import pytest
    d = np.zeros((3, 3)).diagonal()
    with pytest.raises(ValueError):
        d[0] = 1
    try:
        d += 1
    except ValueError:
        pass
    """
    assert codes(code) == []
    run(code)


# ---------------------------------------------------------------------- SC307

def test_leaf_updates_under_no_grad_or_through_data_are_fine():
    pytest.importorskip("torch")
    code = """
    import torch
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        w -= 0.1
    w.data.mul_(2)

    @torch.no_grad()
    def step(p):
        p.add_(1)

    step(w)
    """
    assert codes(code) == []
    assert run(code)["w"].tolist() == pytest.approx([2.8, 2.8, 2.8])


SAVES_OUTPUT = sorted(spec.name for spec in ops.all_specs()
                      if spec.saves_output and "." not in spec.name)
KEEPS_INPUT = ["elu", "hardtanh", "relu6", "gelu", "silu"]


@pytest.mark.parametrize("op", SAVES_OUTPUT + KEEPS_INPUT)
def test_saved_output_rule_matches_what_torch_saves(op):
    pytest.importorskip("torch")
    call = f"F.{op}(x, 0)" if "softmax" in op else f"F.{op}(x)" if op in KEEPS_INPUT \
        else f"torch.{op}(x)"
    code = (f"import torch\nimport torch.nn.functional as F\nx = torch.rand(4, requires_grad=True)\n"
            f"y = {call}\ny.mul_(2)\ny.sum().backward()\n")
    saves = op in SAVES_OUTPUT
    assert codes(code) == ([(5, "SC307")] if saves else [])
    if saves:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            run(code)
    else:
        run(code)


def test_saved_output_modified_but_not_used_by_the_loss_is_fine():
    pytest.importorskip("torch")
    code = """
    import torch
    x = torch.ones(3, requires_grad=True)
    y = torch.sigmoid(x)
    y.mul_(2)
    z = (x * 3).sum()
    z.backward()
    """
    assert codes(code) == []
    run(code)


def test_saved_output_without_grad_is_fine():
    pytest.importorskip("torch")
    code = "import torch\nx = torch.ones(3)\ny = torch.exp(x)\ny += 1\ny.sum()\n"
    assert codes(code) == []


def test_requires_grad_flag_set_later_makes_a_leaf():
    pytest.importorskip("torch")
    code = "import torch\nw = torch.zeros(3).requires_grad_()\nw.add_(1)\n"
    assert codes(code) == [(3, "SC307")]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        run(code)


# ---------------------------------------------------------------------- samples

def load_sample(name: str):
    """Import one of our own sample programs to run its functions."""
    spec = importlib.util.spec_from_file_location(f"sample_{name}", SAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.pop(spec.name, None)
    spec.loader.exec_module(module)
    return module


def test_samples_cover_every_aliasing_rule():
    text = "".join(p.read_text() for p in SAMPLES.glob("aliasing_*.py"))
    for code in ("SC301", "SC302", "SC303", "SC304", "SC305", "SC306", "SC307"):
        assert f"# expect: {code}" in text, code


def test_numpy_sample_hazards_happen_for_real():
    sample = load_sample("aliasing_numpy")
    calls = []

    def grad(x):
        calls.append(1)
        return 2 * x
    # x_old is x: the convergence check passes after one step; the fixed version keeps going.
    sample.gradient_descent(grad, [1.0, 2.0])
    assert len(calls) == 1
    calls.clear()
    sample.gradient_descent_fixed(grad, [1.0, 2.0])
    assert len(calls) > 1
    with pytest.raises(ValueError, match="read-only"):
        sample.regularize()
    with pytest.raises(ValueError, match="read-only"):
        sample.tile_pattern()
    import numpy as np
    images = np.arange(12.0).reshape(3, 2, 2)
    assert sample.center_rows(images.copy()).sum() == pytest.approx(0.0)  # a view: centered
    transposed = np.arange(12.0).reshape(3, 2, 2).transpose(0, 2, 1)
    before = transposed.copy()
    assert (sample.center_rows(transposed) == before).all()  # a copy: the write is lost
    assert sample.snapshot_weights()[0] == 0.0  # the "previous" weights moved too


def test_torch_sample_hazards_happen_for_real():
    pytest.importorskip("torch")
    sample = load_sample("aliasing_torch")
    for name in ("train_step", "relu_then_mask", "rolling_history", "symmetrize", "add_bias",
                 "flatten_transposed"):
        with pytest.raises(RuntimeError):
            getattr(sample, name)(*((1.0,) if name == "rolling_history" else ()))
    for name in ("train_step_fixed", "rolling_history_fixed", "flatten_transposed_fixed"):
        getattr(sample, name)(*((1.0,) if name == "rolling_history_fixed" else ()))
