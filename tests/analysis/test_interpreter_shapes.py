"""The interpreter infers shapes from the sources the issue lists and reports only certain errors."""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.api import AnalysisSettings, analyze_source
from shapecheck.analysis.interpret import Step, evaluate_snippet
from shapecheck.analysis.values import AbstractArray
from shapecheck.runtime.dims import sym
from shapecheck.runtime.verdicts import Result, ShapeError


def codes(source: str, dialect: str | None = None) -> list[tuple[int, str]]:
    found = analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings(dialect=dialect))
    return sorted((f.line, f.code) for f in found)


CASES = {
    "a str given as a size never becomes a dim, so branches that disagree still join": (
        """
        import torch
        def f(flag: bool, items: list):
            size = "auto"
            if flag:
                y = torch.zeros(3, len(items)).expand(-1, size)
            else:
                y = torch.zeros(3, 4)
            return y + 1
        """, []),
    "from-import of numpy functions has array semantics": (
        """
        from numpy import zeros, ones
        a = zeros((3,))
        b = ones(4)
        c = a + b
        """, [(5, "SC101")]),
    "x[None] inserts an axis as x[None, ...] does": (
        """
        import torch
        x = torch.zeros(4, 5)
        a = x[None] + torch.zeros(2, 4, 5)
        b = x[None] + torch.zeros(3)
        """, [(5, "SC101")]),
    "torch's x @= w rebinds x to the product; NumPy's writes it into x, which must fit": (
        """
        import numpy as np
        import torch
        x = torch.zeros(5, 3)
        x @= torch.zeros(3, 4)
        y = x + torch.zeros(5, 3)
        a = np.zeros((5, 3))
        a @= np.zeros((3, 4))
        b = np.zeros((5, 3))
        b @= np.zeros((3, 3))
        c = b + np.zeros((5, 3))
        """, [(6, "SC101"), (8, "SC201")]),
    "a parenthesized tuple index is the tuple's items; a literal index past the dim is an error": (
        """
        import numpy as np
        x = np.zeros((4, 5))
        a = x[(0, None)] + np.zeros((2, 4))
        b = x[[0, 9]]
        c = x[:, [True, False, True, False, True]] + np.zeros((4, 2))
        """, [(4, "SC101"), (5, "SC111"), (6, "SC101")]),
    "a name that only looks like numpy has no array semantics": (
        """
        import mylib as np
        a = np.zeros((3,))
        c = a + np.ones(4)
        """, []),
    "a rebound alias loses array semantics": (
        """
        import numpy as np
        np = object()
        c = np.zeros(3) + np.ones(4)
        """, []),
    "jaxtyping symbols give errors that hold for every size": (
        """
        import numpy as np
        from jaxtyping import Float
        def f(a: Float[np.ndarray, "n 3"], b: Float[np.ndarray, "n 4"]):
            return a + b
        """, [(5, "SC101")]),
    "jaxtyping symbols that may be equal are no error, only the named-dims warning": (
        """
        import torch
        from jaxtyping import Float
        from torch import Tensor
        def f(x: Float[Tensor, "b t c"], y: Float[Tensor, "b t d"]):
            return x + y
        """, [(6, "SC112")]),
    "variadic jaxtyping dims keep the known trailing dim for nn.Linear": (
        """
        import torch
        from torch import nn
        from jaxtyping import Float
        layer = nn.Linear(32, 10)
        def f(x: Float[torch.Tensor, "*batch 64"]):
            return layer(x)
        """, [(7, "SC106")]),
    "unpacking x.shape gives symbols that flow into creation calls": (
        """
        import torch
        from jaxtyping import Float
        def f(x: Float[torch.Tensor, "b t c"]):
            B, T, C = x.shape
            ok = x + torch.zeros(B, T, C)
            bad = x.view(B, T, C) @ torch.zeros(C + 1, 2)
            return ok, bad
        """, [(7, "SC106")]),
    "assert on shape teaches the shape": (
        """
        import numpy as np
        def f(x, B: int):
            assert x.shape == (B, 3)
            return x + np.ones(4)
        """, [(5, "SC101")]),
    "assert on ndim teaches the rank": (
        """
        import numpy as np
        def f(x):
            assert x.ndim == 2
            return x @ np.ones((2, 2, 2, 2)) + x[0, 0, 0]
        """, [(5, "SC111")]),
    "shape comments declare shapes": (
        """
        import numpy as np
        def f(x, y):
            # shape: x (N, 3)
            y = np.ones(5)  # shape: y (N, 5)
            return x + y
        """, [(6, "SC101")]),
    "unannotated parameters are unknown and give no findings": (
        """
        import numpy as np
        def f(x, y):
            return x + y + np.ones(3)
        """, []),
    "int parameter defaults give sizes": (
        """
        import numpy as np
        def f(n=4):
            return np.zeros(n) + np.ones(5)
        """, [(4, "SC101")]),
    "if/else join keeps dims both branches agree on": (
        """
        import numpy as np
        def f(flag):
            if flag:
                x = np.zeros((3, 4))
            else:
                x = np.ones((3, 4))
            return x + np.ones(5)
        """, [(8, "SC101")]),
    "if/else join makes differing dims unknown": (
        """
        import numpy as np
        def f(flag):
            if flag:
                x = np.zeros((3, 4))
            else:
                x = np.ones((3, 5))
            return x + np.ones(6)
        """, []),
    "a branch that returns does not join": (
        """
        import numpy as np
        def f(flag):
            x = np.zeros(3)
            if flag:
                x = np.zeros(7)
                return x
            return x + np.ones(4)
        """, [(8, "SC101")]),
    "loop-carried shape that is stable is kept": (
        """
        import numpy as np
        h = np.zeros(4)
        for step in range(10):
            h = h * 0.5 + 1
        y = h + np.ones(5)
        """, [(6, "SC101")]),
    "loop-carried shape that grows is widened": (
        """
        import numpy as np
        x = np.zeros(1)
        while x.size < 100:
            x = np.concatenate([x, x])
        y = x + np.ones(5)
        """, []),
    "local function summaries flow return shapes to callers": (
        """
        import numpy as np
        def make(n):
            return np.zeros((n, 3))
        a = make(4)
        b = a + np.ones(4)
        """, [(6, "SC101")]),
    "an error inside a callee caused by the call's arguments is reported at the call": (
        """
        import numpy as np
        def center(x):
            return x - x.mean(axis=0)[:3]
        y = center(np.zeros((5, 4)))
        """, [(5, "SC101")]),
    "methods see attributes set in __init__ and nn layers": (
        """
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 4)
                self.w = torch.zeros(4, 2)
            def forward(self, x):
                h = self.fc(x)
                return h @ self.w
        net = Net()
        out = net(torch.randn(3, 8))
        bad = out + torch.zeros(5)
        bad2 = net(torch.randn(3, 9))
        """, [(14, "SC101"), (15, "SC106")]),
    "conv and embedding layers compute output shapes": (
        """
        import torch
        from torch import nn
        conv = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        emb = nn.Embedding(100, 16)
        y = conv(torch.randn(2, 3, 32, 32)) + torch.zeros(2, 8, 32, 31)
        z = emb(torch.randint(0, 100, (4, 7))) @ torch.zeros(15, 2)
        w = conv(torch.randn(2, 4, 32, 32))
        """, [(6, "SC101"), (7, "SC106"), (8, "SC113")]),
    "explicit outer products and np.outer are not findings": (
        """
        import numpy as np
        a = np.arange(5.0)
        b = np.arange(5.0)
        t = a[:, None] * b[None, :]
        u = np.expand_dims(a, 1) - b
        v = np.outer(a, b)
        """, []),
    "cross_entropy with class indices is silent": (
        """
        import torch
        import torch.nn.functional as F
        logits = torch.randn(8, 3)
        target = torch.randint(0, 3, (8,))
        loss = F.cross_entropy(logits, target)
        """, []),
    "code expected to raise is not reported": (
        """
        import numpy as np
        import pytest
        a = np.zeros(3)
        with pytest.raises(ValueError):
            a + np.ones(4)
        try:
            a + np.ones(5)
        except ValueError:
            pass
        """, []),
    "short-circuited conditions do not evaluate the right side": (
        """
        import numpy as np
        x = np.zeros(3)
        if x.ndim >= 2 and x.shape[-2] == 1:
            y = x[0, 0]
        """, []),
    "odd constructs never crash the analyzer": (
        """
        import numpy as np
        import torch
        async def g(*args, **kw):
            async with kw as k:
                await k
            yield args
        @property
        def h(self, /, a, *, b=lambda q: q):
            global z
            z = [i for i in range(3) if (j := i)]
            match a:
                case [1, *rest]:
                    return {k: v for k, v in kw}
                case _:
                    pass
            del z
        x = np.zeros((2, 3))
        x[..., None, 1:2:1, np.newaxis] += 1
        f"{x!r:>10}"
        a, *b = x
        x.shape = (3, 2)
        x.T.T.T @ np.ones(3)
        torch.zeros(*x.shape)[0] + np.random.default_rng().normal(size=(2,))
        print(*x, sep="")
        """, []),
}


@pytest.mark.parametrize("name", list(CASES))
def test_interpreter_case(name):
    source, expected = CASES[name]
    assert codes(source) == expected


def test_messages_name_both_shapes_the_dim_origins_and_library_text():
    (finding,) = analyze_source("import numpy as np\na = np.zeros((5, 2, 4, 1))\n"
                                "b = np.ones((3, 1, 1))\nc = a + b\n", "m.py")
    assert finding.message == (
        "cannot broadcast (5, 2, 4, 1) with (3, 1, 1): dim -3 is 2 vs 3 (a from line 2, b from "
        "line 3); numpy: operands could not be broadcast together with shapes (5,2,4,1) (3,1,1)")
    assert (finding.span.line, finding.span.column, finding.span.end_column) == (4, 5, 10)


def test_backcompat_change_is_reported_only_under_torch_legacy():
    source = "import torch\na = torch.ones(4, 1)\nb = torch.ones(1, 4)\nc = a + b\n"
    assert codes(source) == []
    assert codes(source, "torch-legacy") == [(4, "SC105")]


def test_symbolic_messages_keep_symbol_names():
    source = ("import numpy as np\nfrom jaxtyping import Float\n"
              "def f(a: Float[np.ndarray, 'n 3'], b: Float[np.ndarray, 'n 4']):\n    return a + b\n")
    (finding,) = analyze_source(source, "s.py")
    assert "(n, 3)" in finding.message and "(n, 4)" in finding.message
    assert "a from line 3" in finding.message


def test_evaluate_snippet_steps_through_each_op():
    env = {"x": AbstractArray((5, 1, 4, 1), "float64", "numpy"),
           "y": AbstractArray((3, 1, 1), "float64", "numpy")}
    steps = evaluate_snippet("z = x + y\nw = z.sum(axis=0)\n", env, "numpy")
    assert all(isinstance(s, Step) for s in steps)
    assert [s.text for s in steps] == ["x + y", "z.sum(axis=0)"]
    assert isinstance(steps[0].outcome, Result) and steps[0].outcome.shape == (5, 3, 4, 1)
    assert steps[1].outcome.shape == (3, 4, 1)


def test_evaluate_snippet_reports_the_library_error_for_the_dialect():
    env = {"a": AbstractArray((sym("B"), 3), "float32", "torch"),
           "b": AbstractArray((4,), "float32", "torch")}
    (step,) = evaluate_snippet("a * b", env, "torch")
    assert isinstance(step.outcome, ShapeError)
    assert step.outcome.message.startswith("The size of tensor a (3) must match the size of tensor b (4)")
    (numpy_step,) = evaluate_snippet("a * b", env, "numpy")
    assert "operands could not be broadcast together with shapes (B,3) (4,)" in numpy_step.outcome.message


def test_config_shape_hints_give_unannotated_parameters_a_shape():
    source = "import numpy as np\ndef f(x):\n    return x + np.ones(5)\n"
    assert codes(source) == []
    hinted = analyze_source(source, "h.py", AnalysisSettings(shape_hints=(("x", "B,3"),)))
    assert [(f.line, f.code) for f in hinted] == [(3, "SC101")]


SYMBOLIC = {
    "SC102": "d = pred - y",
    "SC103": "d = x - x.mean(dim=1)",
    "SC106": "d = x @ w",
    "SC107": "d = F.mse_loss(pred, y)",
    "SC108": "d = torch.cat([x, pred], dim=0)",
    "SC201": "x += torch.zeros(4)",
    "SC111": "d = x[:, 3]",
}


@pytest.mark.parametrize("code", sorted(SYMBOLIC))
def test_rules_fire_on_symbolic_shapes_when_certain_for_all_sizes(code):
    source = textwrap.dedent(f"""
        import torch
        import torch.nn.functional as F
        from jaxtyping import Float
        from torch import Tensor
        def f(x: Float[Tensor, "n 3"], w: Float[Tensor, "4 m"], pred: Float[Tensor, "n 1"],
              y: Float[Tensor, "n"]):
            {SYMBOLIC[code]}
        """)
    assert codes(source) == [(8, code)]


def test_masked_arrays_and_matrices_have_no_ndarray_semantics():
    source = textwrap.dedent("""
        import numpy as np
        m = np.ma.array(np.zeros(3))
        a = m + np.ones(4)
        q = np.matrix(np.zeros((2, 3)))
        b = q * np.ones((2, 3))
        """)
    assert codes(source) == []


def test_np_matmul_is_not_mistaken_for_np_matrix():
    source = "import numpy as np\nc = np.matmul(np.ones((2, 3)), np.ones((4, 5)))\n"
    assert codes(source) == [(2, "SC106")]


def test_python_types_as_dtypes_are_64_bit_in_torch_too():
    torch = pytest.importorskip("torch")
    source = """
        import torch
        x = torch.zeros(3, dtype=float)
        i = torch.zeros(3, dtype=torch.int)
        i += x
        """
    with pytest.raises(RuntimeError) as raised:
        i = torch.zeros(3, dtype=torch.int)
        i += torch.zeros(3, dtype=float)
    found = analyze_source(textwrap.dedent(source), "t.py", AnalysisSettings())
    assert [(f.line, f.code) for f in found] == [(5, "SC202")]
    assert "Double" in str(raised.value) and "Double" in found[0].message
