"""SC301-SC307: aliasing hazards (views, copies and in-place writes), with their proofs.

Bad examples mark every reported line with ``# error: SCxxx``. An example
that does not raise with the real library carries ``assert`` lines that
state the surprising outcome (the base unchanged, the snapshot moved, the
caller's array changed), so running it proves the hazard.
"""

from ..findings import Severity
from .base import Example, RuleSpec

WRITE_TO_COPY = RuleSpec(
    code="SC301",
    name="write-to-copy",
    severity=Severity.ERROR,
    summary="A write (setitem or an in-place method) into the result of advanced or boolean "
            "indexing that is not itself the assignment's target: a[mask][0] = 1, "
            "b[m][:, 0] = 1, x[[1, 3]].fill_(0), t.index_select(0, ids).zero_().",
    why="Advanced and boolean indexing return a new array. Only the outermost index of an "
        "assignment writes into the original (a[mask] = 1 calls a.__setitem__); a chained index "
        "first copies, then writes into the copy, which is dropped at once. The code runs and "
        "the original is unchanged.",
    bad=(Example("import numpy as np\n"
                 "a = np.zeros(5)\n"
                 "mask = a == 0\n"
                 "a[mask][0] = 1  # error: SC301\n"
                 "assert (a == 0).all()  # the write went into a temporary copy\n"),
         Example("import numpy as np\n"
                 "b = np.zeros((4, 3))\n"
                 "m = np.array([True, False, True, False])\n"
                 "b[m][:, 0] = 1  # error: SC301\n"
                 "assert b.sum() == 0\n"),
         Example("import torch\n"
                 "x = torch.zeros(5)\n"
                 "x[[1, 3]].fill_(7)  # error: SC301\n"
                 "assert (x == 0).all()\n", library="torch"),
         Example("import torch\n"
                 "table = torch.ones(4, 3)\n"
                 "table.index_select(0, torch.tensor([0, 2])).zero_()  # error: SC301\n"
                 "assert (table == 1).all()\n", library="torch")),
    good=(Example("import numpy as np\n"
                  "a = np.zeros(5)\n"
                  "mask = a == 0\n"
                  "a[mask] = 1\n"
                  "b = np.zeros((4, 3))\n"
                  "b[[0, 2], 0] = 1\n"
                  "picked = b[[1, 3]]\n"
                  "picked[0] = 5\n"
                  "v = a[1:3]\n"
                  "v[0] = 9\n"
                  "assert picked[0, 0] == 5 and a[1] == 9 and b[0, 0] == 1\n"),
          Example("import torch\n"
                  "x = torch.zeros(5)\n"
                  "x[[1, 3]] = 7\n"
                  "x[1:3].fill_(2)\n"
                  "table = torch.ones(4, 3)\n"
                  "table.index_fill_(0, torch.tensor([0, 2]), 0.0)\n"
                  "probs = table.gather(1, torch.zeros(4, 1, dtype=torch.long)).exp_()\n"
                  "assert x.tolist() == [0.0, 2.0, 2.0, 7.0, 0.0] and table.sum() == 6\n",
                  library="torch")),
    fix="Index once, so the assignment's own __setitem__ does the write: a[np.flatnonzero(mask)[0]] "
        "= 1, b[m, 0] = 1, x[[1, 3]] = 0; t.index_fill_(0, ids, 0) for a selection.",
)

WRITE_TO_BROADCAST_VIEW = RuleSpec(
    code="SC302",
    name="write-to-broadcast-view",
    severity=Severity.ERROR,
    summary="An in-place write into a view whose elements repeat (torch expand / broadcast_to, "
            "np.broadcast_arrays) or that NumPy marks read-only (np.broadcast_to, diagonal).",
    why="A broadcast view reaches one stored element at several indices: torch refuses in-place "
        "ops on it (\"more than one element of the written-to tensor refers to a single memory "
        "location\") and an indexed write silently changes every row; NumPy marks broadcast_to "
        "and diagonal results read-only (\"assignment destination is read-only\") and warns when "
        "a broadcast_arrays result is written.",
    bad=(Example("import numpy as np\n"
                 "m = np.zeros((3, 3))\n"
                 "d = m.diagonal()\n"
                 "d += 1  # error: SC302\n"),
         Example("import numpy as np\n"
                 "row = np.arange(3.0)\n"
                 "grid = np.broadcast_to(row, (4, 3))\n"
                 "grid[0, 0] = 5  # error: SC302\n"),
         Example("import torch\n"
                 "x = torch.zeros(3, 1)\n"
                 "e = x.expand(3, 4)\n"
                 "e.add_(1)  # error: SC302\n", library="torch"),
         Example("import torch\n"
                 "x = torch.zeros(1, 4)\n"
                 "e = x.expand(3, 4)\n"
                 "e[0, 0] = 1  # error: SC302\n"
                 "assert e[:, 0].tolist() == [1.0, 1.0, 1.0]  # every row changed\n",
                 library="torch"),
         Example("import numpy as np\n"
                 "a, b = np.broadcast_arrays(np.zeros(3), np.zeros((2, 3)))\n"
                 "a[0, 0] = 1  # error: SC302\n"
                 "assert a[1, 0] == 1  # the other row changed too\n")),
    good=(Example("import numpy as np\n"
                  "m = np.zeros((3, 3))\n"
                  "np.fill_diagonal(m, 1)\n"
                  "d = m.diagonal().copy()\n"
                  "d += 1\n"
                  "grid = np.broadcast_to(np.arange(3.0), (4, 3)).copy()\n"
                  "grid[0, 0] = 5\n"
                  "assert m[0, 0] == 1 and grid[1, 0] == 0\n"),
          Example("import torch\n"
                  "x = torch.zeros(3, 1)\n"
                  "e = x.expand(3, 4).clone()\n"
                  "e.add_(1)\n"
                  "d = torch.zeros(3, 3).diagonal()\n"
                  "d.add_(1)\n"
                  "assert e.sum() == 12\n", library="torch")),
    fix="Materialize the view first (.copy() / .clone() / .contiguous() after expand), or write "
        "into the array the view was taken from (np.fill_diagonal).",
)

OVERLAPPING_INPLACE = RuleSpec(
    code="SC303",
    name="overlapping-inplace",
    severity=Severity.ERROR,
    summary="An in-place torch op whose input is a different, overlapping view of the memory it "
            "writes: a[1:] = a[:-1], m += m.T, x.add_(x.t()), x.sub_(x[0]), "
            "a[:, 1:] = a[:, :-1], x -= x[:, :1].",
    why="The op would read elements it has already overwritten, so the result would depend on "
        "the order of the loop. When both views are dense torch refuses (\"unsupported "
        "operation: some elements of the input tensor and the written-to tensor refer to a "
        "single memory location\"); when they are not (a[:, 1:] = a[:, :-1]) it does not check, "
        "walks memory in order and silently reads what it has just written (x -= x[:, :1] "
        "subtracts the zeroed first column from the rest of its row). NumPy detects the "
        "overlap and copies the input first, so NumPy code is not reported. The very same view "
        "(x += x) is fine, and so is a setitem of a broadcast value (x[:] = x[0]), which torch "
        "copies through expand without reading anything it wrote first.",
    bad=(Example("import torch\n"
                 "a = torch.arange(5.0)\n"
                 "a[1:] = a[:-1]  # error: SC303\n", library="torch"),
         Example("import torch\n"
                 "m = torch.ones(3, 3)\n"
                 "m += m.T  # error: SC303\n", library="torch"),
         Example("import torch\n"
                 "x = torch.ones(3, 3)\n"
                 "x.add_(x.t())  # error: SC303\n", library="torch"),
         Example("import torch\n"
                 "a = torch.arange(200.0).reshape(2, 100)\n"
                 "a[:, 1:] = a[:, :-1]  # error: SC303\n"
                 "assert a[0, 1:].tolist() != torch.arange(99.0).tolist()  # not shifted\n",
                 library="torch"),
         Example("import torch\n"
                 "x = torch.arange(1.0, 13.0).reshape(4, 3)\n"
                 "x -= x[:, :1]  # error: SC303\n"
                 "assert x[0].tolist() == [0.0, 2.0, 3.0]  # the fixed twin gives [0.0, 1.0, 2.0]\n",
                 library="torch")),
    good=(Example("import torch\n"
                  "a = torch.arange(5.0)\n"
                  "a[1:] = a[:-1].clone()\n"
                  "m = torch.ones(3, 3)\n"
                  "m = m + m.T\n"
                  "m += m\n"
                  "b = torch.arange(2.0)\n"
                  "b[1:] = b[:-1]\n"
                  "c = torch.arange(200.0).reshape(2, 100)\n"
                  "c[:, :-1] = c[:, 1:]\n"
                  "x = torch.arange(1.0, 13.0).reshape(4, 3)\n"
                  "x -= x[:, :1].clone()\n"
                  "x[:] = x[0]\n"
                  "assert a.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0] and b.tolist() == [0.0, 0.0]\n"
                  "assert c[0, :-1].tolist() == torch.arange(1.0, 100.0).tolist()\n"
                  "assert x[3].tolist() == [0.0, 1.0, 2.0]\n",
                  library="torch"),
          Example("import numpy as np\n"
                  "a = np.arange(5.0)\n"
                  "a[1:] = a[:-1]\n"
                  "m = np.ones((3, 3))\n"
                  "m += m.T\n"
                  "assert a.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0]\n")),
    fix="Clone the input (a[1:] = a[:-1].clone()) or write out of place (m = m + m.T).",
)

STALE_ALIAS = RuleSpec(
    code="SC304",
    name="stale-alias",
    severity=Severity.WARNING,
    summary="A name bound to an alias or view of an array as if it were a copy (old = x, "
            "prev = w[:], np.asarray(x), np.array(x, copy=False), x.detach(), t.numpy(), "
            "copy.copy(t), rows = list(t), a, b = t.unbind(), best = model.state_dict() (with "
            "keep_vars too), g = p.grad); the array is then changed in place (by a "
            "write, optimizer.step(), model.load_state_dict(), zero_grad(set_to_none=False), "
            "clip_grad_norm_, np.copyto, np.fill_diagonal...) and the alias is read afterwards, "
            "seeing the new values.",
    why="Assignment never copies an array, and a full slice, np.asarray of an array of that "
        "dtype, detach(), .numpy(), torch.from_numpy and copy.copy of a tensor share memory; a "
        "state_dict holds the model's own tensors. The classic x_old = x convergence check "
        "compares x with itself once x is updated with -=, so the loop 'converges' at once or "
        "never; an early-stopping loop that keeps best = model.state_dict() restores the last "
        "weights, not the best.",
    bad=(Example("import numpy as np\n"
                 "x = np.ones(4)\n"
                 "for step in range(10):\n"
                 "    x_old = x  # error: SC304\n"
                 "    x -= 0.1 * x\n"
                 "    change = np.abs(x - x_old).max()\n"
                 "    assert change == 0.0  # always 'converged'\n"),
         Example("import numpy as np\n"
                 "w = np.zeros(3)\n"
                 "prev = w[:]  # error: SC304\n"
                 "w += 1\n"
                 "step = w - prev\n"
                 "assert (step == 0).all()  # the snapshot moved with w\n"),
         Example("import torch\n"
                 "w = torch.ones(3)\n"
                 "prev = w.detach()  # error: SC304\n"
                 "w.mul_(2)\n"
                 "unchanged = torch.equal(prev, w)\n"
                 "assert unchanged\n", library="torch"),
         Example("import torch\n"
                 "model = torch.nn.Linear(3, 1).to('cpu')\n"
                 "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                 "best = model.state_dict()  # error: SC304\n"
                 "model(torch.ones(2, 3)).sum().backward()\n"
                 "opt.step()\n"
                 "model.load_state_dict(best)\n"
                 "assert torch.equal(best['weight'], model.weight)  # the 'best' are the last\n",
                 library="torch")),
    good=(Example("import numpy as np\n"
                  "x = np.ones(4)\n"
                  "for step in range(10):\n"
                  "    x_old = x.copy()\n"
                  "    x -= 0.1 * x\n"
                  "    change = np.abs(x - x_old).max()\n"
                  "y = np.ones(3)\n"
                  "y_old = y\n"
                  "y = y * 0.5\n"
                  "v = x[0:2]\n"
                  "v[:] = 0\n"
                  "total = x.sum()\n"
                  "assert (y_old == 1).all() and change > 0 and x[0] == 0\n"),
          Example("import copy\n"
                  "import torch\n"
                  "model = torch.nn.Linear(3, 1).to('cpu')\n"
                  "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                  "best = copy.deepcopy(model.state_dict())\n"
                  "model(torch.ones(2, 3)).sum().backward()\n"
                  "opt.step()\n"
                  "model.load_state_dict(best)\n"
                  "assert torch.equal(best['weight'], model.weight)\n", library="torch")),
    fix="Take a real copy: x_old = x.copy() (NumPy) or x_old = x.clone() (torch).",
)

ARGUMENT_MUTATION = RuleSpec(
    code="SC305",
    name="argument-mutation",
    severity=Severity.WARNING,
    summary="A function changes, in place, an array its caller passed in, and the caller reads "
            "that array after the call. Reported once, at the call, naming the in-place line "
            "and the helpers the write goes through.",
    why="NumPy arrays and tensors are passed by reference: v /= v.sum() inside a function "
        "rescales the caller's array too, and so does a loss module whose forward edits its "
        "input (self.criterion(pred, target)), or a loop over the rows of the array. Functions "
        "named or documented as in-place (fill_*, update*, apply*, trailing underscore, an out= "
        "style parameter, running statistics, a docstring saying so) and attributes the "
        "caller's object owns are not reported. When the array is one the reading function "
        "made itself, the finding is at the call in that function, once.",
    bad=(Example("import numpy as np\n"
                 "\n"
                 "def normalize(v):\n"
                 "    v /= v.sum()\n"
                 "    return v\n"
                 "\n"
                 "counts = np.array([1.0, 3.0])\n"
                 "probs = normalize(counts)  # error: SC305\n"
                 "assert counts[0] == 0.25  # the caller's counts changed\n"),
         Example("import torch\n"
                 "\n"
                 "def clip(t):\n"
                 "    t.clamp_(0, 1)\n"
                 "    return t.mean()\n"
                 "\n"
                 "acts = torch.tensor([-1.0, 0.5, 2.0])\n"
                 "m = clip(acts)  # error: SC305\n"
                 "assert acts.tolist() == [0.0, 0.5, 1.0]\n", library="torch")),
    good=(Example("import numpy as np\n"
                  "\n"
                  "def normalize(v):\n"
                  "    v = v / v.sum()\n"
                  "    return v\n"
                  "\n"
                  "def fill_ones(out):\n"
                  "    out[:] = 1\n"
                  "\n"
                  "def decay(v, rate):\n"
                  "    \"\"\"Decay v in place; returns its new norm.\"\"\"\n"
                  "    v *= rate\n"
                  "    return v.sum()\n"
                  "\n"
                  "class Tracker:\n"
                  "    def __init__(self):\n"
                  "        self.scores = np.ones(2)\n"
                  "\n"
                  "    def step(self):\n"
                  "        norm = decay(self.scores, 0.5)\n"
                  "        return self.scores.max() / norm\n"
                  "\n"
                  "counts = np.array([1.0, 3.0])\n"
                  "probs = normalize(counts)\n"
                  "buf = np.zeros(2)\n"
                  "fill_ones(buf)\n"
                  "weights = np.ones(2)\n"
                  "norm = decay(weights, 0.5)\n"
                  "assert counts[0] == 1.0 and buf[0] == 1.0 and weights.sum() == norm\n"
                  "assert Tracker().step() == 0.5\n"),),
    fix="Work on a copy inside the function (v = v / v.sum()), or pass a copy at the call.",
)

LAYOUT_DEPENDENT_ALIAS = RuleSpec(
    code="SC306",
    name="layout-dependent-alias",
    severity=Severity.WARNING,
    summary="An in-place write through the result of reshape, ravel, torch flatten or "
            "astype(copy=False), which is a view for some memory layouts and a copy for others, "
            "when the original is used afterwards. (A torch .view() that certainly fails on "
            "its layout is SC308.)",
    why="reshape returns a view when the strides allow it and a copy otherwise, so whether the "
        "write reaches the original depends on how the caller's array was made (a transposed "
        "or sliced input silently loses the write).",
    bad=(Example("import numpy as np\n"
                 "\n"
                 "def zero_first(x):\n"
                 "    flat = x.reshape(-1)\n"
                 "    flat[0] = 0  # error: SC306\n"
                 "    return x\n"
                 "\n"
                 "assert zero_first(np.ones((2, 3)))[0, 0] == 0  # a view: the write lands\n"
                 "assert zero_first(np.ones((3, 2)).T)[0, 0] == 1  # a copy: the write is lost\n"),),
    good=(Example("import numpy as np\n"
                  "\n"
                  "def zero_first(x):\n"
                  "    flat = x.reshape(-1).copy()\n"
                  "    flat[0] = 0\n"
                  "    return flat\n"
                  "\n"
                  "a = np.zeros((2, 3))\n"
                  "flat = a.reshape(-1)\n"
                  "flat[0] = 1\n"
                  "assert a[0, 0] == 1 and zero_first(a)[0] == 0\n"),
          Example("import torch\n"
                  "x = torch.zeros(2, 3)\n"
                  "y = x.t().reshape(-1)\n"
                  "z = x.t().contiguous().view(-1)\n"
                  "assert y.shape == z.shape\n", library="torch")),
    fix="Write into the original explicitly (x.flat[0] = 0, x[...] = ...), or copy on purpose; "
        "in torch use .reshape() or .contiguous().view().",
)

AUTOGRAD_INPLACE = RuleSpec(
    code="SC307",
    name="autograd-inplace",
    severity=Severity.ERROR,
    summary="In-place on a leaf tensor that requires grad (requires_grad=True, nn.Parameter) "
            "outside torch.no_grad(); in-place on a tensor autograd saved for backward (the "
            "output of sigmoid, tanh, exp, relu, softmax, ...; an input of mul, div, pow, "
            "matmul, ... kept for another input's gradient) before .backward(); in-place on one "
            "of the views unbind, split, chunk or iteration return of a tensor autograd records.",
    why="autograd refuses to modify a leaf that requires grad in place (\"a leaf Variable that "
        "requires grad is being used in an in-place operation.\"). Ops whose gradient is "
        "computed from their output save that output, and x * w keeps w for x's gradient (and x "
        "for w's); changing a kept tensor in place, even under torch.no_grad(), makes backward() "
        "fail (\"one of the variables needed for gradient computation has been modified by an "
        "inplace operation\"). A write through .data is not seen by autograd. The pieces of "
        "q, k, v = qkv.chunk(3) share one backward, so torch refuses q *= scale on them.",
    bad=(Example("import torch\n"
                 "w = torch.zeros(3, requires_grad=True)\n"
                 "w += 1  # error: SC307\n", library="torch"),
         Example("import torch\n"
                 "w = torch.nn.Parameter(torch.ones(2, 2))\n"
                 "w[0, 0] = 0  # error: SC307\n", library="torch"),
         Example("import torch\n"
                 "x = torch.ones(3, requires_grad=True)\n"
                 "y = torch.sigmoid(x)\n"
                 "y.mul_(2)  # error: SC307\n"
                 "y.sum().backward()\n", library="torch"),
         Example("import torch\n"
                 "import torch.nn.functional as F\n"
                 "x = torch.randn(4, requires_grad=True)\n"
                 "h = F.relu(x)\n"
                 "h[0] = 0  # error: SC307\n"
                 "loss = (h * 3).sum()\n"
                 "loss.backward()\n", library="torch"),
         Example("import torch\n"
                 "x = torch.ones(3, requires_grad=True)\n"
                 "scale = torch.full((3,), 2.0)\n"
                 "y = x * scale\n"
                 "scale.add_(1)  # error: SC307\n"
                 "y.sum().backward()\n", library="torch"),
         Example("import torch\n"
                 "x = torch.ones(2, 6, requires_grad=True)\n"
                 "q, k = (x * 2).chunk(2, dim=1)\n"
                 "q *= 0.5  # error: SC307\n", library="torch")),
    good=(Example("import torch\n"
                  "w = torch.zeros(3, requires_grad=True)\n"
                  "with torch.no_grad():\n"
                  "    w += 1\n"
                  "x = torch.ones(3, requires_grad=True)\n"
                  "y = torch.sigmoid(x)\n"
                  "z = y * 2\n"
                  "z.sum().backward()\n"
                  "h = x * 2\n"
                  "h.add_(1)\n"
                  "h.sum().backward()\n"
                  "scale = torch.full((3,), 2.0)\n"
                  "z = x * scale.clone()\n"
                  "scale.add_(1)\n"
                  "z.sum().backward()\n"
                  "q, k = (x * 2).chunk(3)[:2]\n"
                  "q = q * 0.5\n"
                  "assert w[0] == 1\n", library="torch"),),
    fix="Update parameters inside torch.no_grad() (or through .data); write out of place "
        "(y = y * 2) on values autograd needs, or give the op a clone of the input you will "
        "change.",
)

ALIAS_RULES = {spec.code: spec for spec in (
    WRITE_TO_COPY, WRITE_TO_BROADCAST_VIEW, OVERLAPPING_INPLACE, STALE_ALIAS, ARGUMENT_MUTATION,
    LAYOUT_DEPENDENT_ALIAS, AUTOGRAD_INPLACE)}

RULES = tuple(ALIAS_RULES.values())


# --------------------------------------------------------------------------
# messages: the walk fires events, the rules word them


def write_to_broadcast_view_message(op: str, view: str, name: str, library: str,
                                    shape: str) -> str:
    """SC302: ``op`` writes a read-only view, or a broadcast view whose elements repeat."""
    if view == "readonly":
        return (f"{op} into a read-only view of {name!r} (diagonal or broadcast_to): numpy "
                "raises \"assignment destination is read-only\"; copy it first")
    effect = ("torch raises \"unsupported operation: more than one element of the written-to "
              "tensor refers to a single memory location\" (or, through an index, writes a "
              "whole row)" if library == "torch" else
              "numpy writes every element that shares the memory (and warns)")
    return (f"{op} into a broadcast view of {name!r} with shape {shape} in which elements "
            f"repeat: {effect}; materialize it with .clone()/.copy() first")


def leaf_inplace_message(op: str, through_view: bool, name: str) -> str:
    """SC307: an in-place write into a leaf tensor that requires grad."""
    return (f"in-place {op} on {'a view of ' if through_view else ''}leaf tensor {name!r}, which "
            "requires grad: torch raises \"a leaf Variable that requires grad is being used in an "
            "in-place operation.\"; wrap it in torch.no_grad() or write out of place")


def saved_output_inplace_message(op: str, backward_line: int) -> str:
    """SC307: an in-place write into an output autograd saved, read again by backward."""
    return (f"in-place write into the output of {op}(), which autograd saved for backward; "
            f".backward() at line {backward_line} raises \"one of the variables needed for "
            "gradient computation has been modified by an inplace operation\"; write out of place")


def multi_view_inplace_message(op: str, made_by: str, name: str) -> str:
    """SC307: an in-place write into one of several views unbind/split/chunk returned."""
    return (f"in-place {op} on an output of {made_by}() of {name!r}, one of several views of a "
            "tensor autograd records: torch raises \"... is a view and is "
            "being modified inplace. This view is the output of a function that returns multiple "
            "views\"; write out of place (q = q * s) or .clone() the piece")


def saved_input_inplace_message(op: str, name: str, backward_line: int) -> str:
    """SC307: an in-place write into an input autograd saved, read again by backward."""
    return (f"in-place write into {name!r}, which {op}() saved for backward as an input; "
            f".backward() at line {backward_line} raises \"one of the variables needed for "
            "gradient computation has been modified by an inplace operation\"; write out of place "
            "or .clone() it before the op")


def overlapping_inplace_message(written: str, name: str, read: str) -> str:
    """SC303: an in-place torch write reads a different view that overlaps it."""
    return (f"in-place write into {written} view of {name!r} reads an overlapping different view "
            f"{read} of the same memory: torch raises \"unsupported operation: some elements of "
            "the input tensor and the written-to tensor refer to a single memory location\"; "
            ".clone() the input")


def unchecked_overlap_message(written: str, name: str, read: str) -> str:
    """SC303: torch does not check this overlap, and its walk reads elements already written."""
    return (f"in-place write into {written} view of {name!r} reads an overlapping different view "
            f"{read} of the same memory: torch does not check this layout and walks memory in "
            "order, reading elements it has already overwritten (NumPy would copy the input "
            "first); .clone() the input")


def write_to_copy_message(op: str, copy: str, base: str) -> str:
    """SC301: a write into the result of advanced indexing, which is a temporary copy."""
    return (f"{op} into {copy}, which is a copy (advanced or boolean indexing), so {base} is not "
            f"changed; index once: {base}[...] = value")


def stale_alias_message(snapshot: str, name: str, write_line: int, reader: str,
                        read_line: int) -> str:
    """SC304: a binding that looks like a copy is an alias, and reads a later write."""
    return (f"{snapshot!r} binds an alias, not a copy, of {name!r}; it is modified in place at "
            f"line {write_line} and {reader!r} is read at line {read_line}, seeing the new values; "
            "take a copy (.copy() / .clone())")


def layout_dependent_write_message(writer: str, name: str, read_line: int) -> str:
    """SC306: a write through a result that views ``name`` only for some layouts."""
    return (f"{writer!r} may be a view or a copy of {name!r} depending on its memory layout "
            "(reshape/ravel/flatten/astype(copy=False)); this in-place write reaches "
            f"{name!r} (read at line {read_line}) only when it is a view; write into {name!r} "
            "explicitly or take a copy")


def argument_mutation_message(callee: str, chain: tuple[str, ...], reader: str,
                              inplace_line: int, read_line: int) -> str:
    """SC305, at the call: the callee (through the helpers in ``chain``) writes the array."""
    via = "".join(f" -> {name}()" for name in chain)
    return (f"{callee}(){via} modifies {reader!r} in place (line {inplace_line}) and {reader!r} "
            f"is read afterwards at line {read_line}; pass a copy, or copy inside {callee}(), "
            "if the original is still needed")
