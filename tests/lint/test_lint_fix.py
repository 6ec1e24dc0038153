"""--fix and --diff: certain fixes only, formatting kept, idempotent, and the fixed code lints clean."""

from __future__ import annotations

import json

import pytest

from shapecheck.analysis.api import analyze_source
from shapecheck.lint.fixes import fixed_bytes

NORMALIZE = '''\
"""Feature scaling for the tabular pipeline."""
import numpy as np


def standardize(table):
    # Each row is one sample; centre every sample on its own mean.
    x = np.asarray(table, dtype=np.float64).reshape(4, 4)
    centered = x - x.mean(axis=1)   # per-sample centring
    return centered / (x.std(axis=1, keepdims=True) + 1e-8)
'''

SOLVER = '''\
import numpy as np


def relax(grid: np.ndarray, tol=1e-6):
    x = np.ones(4)
    for step in range(100):
        x_old = x
        x -= 0.1 * x
        if np.abs(x - x_old).max() < tol:
            break
    return x, step
'''

ATTENTION = '''\
import torch


def merge_heads(y: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(2, 4, 8, 16)           # (B, H, T, D)
    y = y.transpose(1, 2)                  # (B, T, H, D): no longer contiguous
    return y.view(2, 8, 64)
'''

SCATTER = '''\
import numpy as np

table = np.zeros((5, 4))
rows = np.array([0, 2, 4])
cols = [1, 3]
table[rows][:, cols] = 7.0  # update the selected block
flags = np.array([True, False, True, False, False])
table[flags][:, 0] = -1.0
'''


def lint(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in analyze_source(source, "m.py")]


def fix_file(project, shapecheck, name: str, source: str, *extra: str):
    path = project / name
    path.write_text(source)
    result = shapecheck("lint", "--no-cache", "--fix", *extra, name)
    return result, path.read_text()


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(old) == len(new), "a fix added or removed lines"
    return [(a, b) for a, b in zip(old, new) if a != b]


def run(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "<fixed>", "exec"), namespace)  # our own test files, never user input
    return namespace


def test_keepdims_fix_changes_only_the_reduction_and_centres_each_row(project, shapecheck):
    result, fixed = fix_file(project, shapecheck, "scale.py", NORMALIZE)
    assert result.code == 0 and "No problems found" in result.out
    assert result.err.strip() == "shapecheck: fixed 1 finding in 1 file"
    assert changed_lines(NORMALIZE, fixed) == [(
        "    centered = x - x.mean(axis=1)   # per-sample centring\n",
        "    centered = x - x.mean(axis=1, keepdims=True)   # per-sample centring\n")]
    out = run(fixed)["standardize"](list(range(16)))
    assert abs(out.mean(axis=1)).max() < 1e-9  # the real library agrees: every row is centred


def test_copy_fix_makes_the_snapshot_a_copy_so_the_loop_really_iterates(project, shapecheck):
    result, fixed = fix_file(project, shapecheck, "solver.py", SOLVER)
    assert result.code == 0
    assert changed_lines(SOLVER, fixed) == [("        x_old = x\n", "        x_old = x.copy()\n")]
    x, step = run(fixed)["relax"](None)
    assert step > 0  # before the fix the 'change' was always 0 and the loop stopped at once


def test_reshape_fix_replaces_view_of_a_transposed_tensor(project, shapecheck):
    torch = pytest.importorskip("torch")
    result, fixed = fix_file(project, shapecheck, "attn.py", ATTENTION)
    assert result.code == 0
    assert changed_lines(ATTENTION, fixed) == [("    return y.view(2, 8, 64)\n",
                                               "    return y.reshape(2, 8, 64)\n")]
    assert run(fixed)["merge_heads"](torch.zeros(1)).shape == (2, 8, 64)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        run(ATTENTION)["merge_heads"](torch.zeros(1))


def test_index_fix_folds_a_chained_write_into_one_index(project, shapecheck):
    result, fixed = fix_file(project, shapecheck, "scatter.py", SCATTER)
    assert result.code == 0
    assert changed_lines(SCATTER, fixed) == [
        ("table[rows][:, cols] = 7.0  # update the selected block\n",
         "table[np.ix_(rows, cols)] = 7.0  # update the selected block\n"),
        ("table[flags][:, 0] = -1.0\n", "table[flags, 0] = -1.0\n")]
    table = run(fixed)["table"]
    assert table[[0, 2, 4]][:, [1, 3]].tolist() == [[7.0, 7.0]] * 3 and table[[0, 2], 0].tolist() == [-1, -1]
    assert table.sum() == 7.0 * 6 - 2


def test_fixing_twice_changes_nothing_the_second_time(project, shapecheck):
    for name, source in (("a.py", NORMALIZE), ("b.py", SOLVER), ("c.py", SCATTER)):
        _, once = fix_file(project, shapecheck, name, source)
        second = shapecheck("lint", "--no-cache", "--fix", name)
        assert (project / name).read_text() == once and second.err == ""
    # The transforms themselves are idempotent too: the same fixes on fixed code do nothing.
    fixes = [f.fix for f in analyze_source(SCATTER, "m.py") if f.fix is not None]
    once, applied = fixed_bytes(SCATTER.encode(), fixes)
    assert len(applied) == 2 and fixed_bytes(once, fixes) == (once, [])


def test_diff_prints_a_unified_diff_writes_nothing_and_exits_1(project, shapecheck):
    (project / "scale.py").write_text(NORMALIZE)
    result = shapecheck("lint", "--no-cache", "--diff", "scale.py")
    assert result.code == 1 and (project / "scale.py").read_text() == NORMALIZE
    assert result.out.splitlines()[:2] == ["--- a/scale.py", "+++ b/scale.py"]
    assert "-    centered = x - x.mean(axis=1)   # per-sample centring" in result.out.splitlines()
    assert "+    centered = x - x.mean(axis=1, keepdims=True)   # per-sample centring" in result.out.splitlines()
    assert result.err.strip() == "shapecheck: would fix 1 finding in 1 file"
    (project / "scale.py").write_text(NORMALIZE.replace("x.mean(axis=1)", "x.mean(axis=1, keepdims=True)"))
    clean = shapecheck("lint", "--no-cache", "--diff", "scale.py")
    assert (clean.code, clean.out) == (0, "")


UNCERTAIN = '''\
import numpy as np
import torch


def mean(a, axis):
    return a.mean(axis)


x = np.arange(16.0).reshape(4, 4)
m = x.mean(axis=1)
y = x - m
z = x - mean(x, 1)
a = np.zeros(5)
mask = a == 0
a[mask][0] = 1
t = torch.zeros(5)
t[[1, 3]].fill_(7)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
best = model.state_dict()
model(torch.ones(2, 3)).sum().backward()
opt.step()
model.load_state_dict(best)
'''


def test_findings_whose_fix_is_not_certain_are_left_as_they_are(project, shapecheck):
    codes = sorted({code for _, code in lint(UNCERTAIN)})
    assert codes == ["SC103", "SC301", "SC304"]
    assert all(f.fix is None for f in analyze_source(UNCERTAIN, "m.py"))
    result, after = fix_file(project, shapecheck, "u.py", UNCERTAIN)
    assert after == UNCERTAIN and result.code == 1 and result.err == ""


def test_formatting_line_endings_and_byte_order_mark_are_kept(project, shapecheck):
    source = ("\ufeffimport numpy as np\r\n"
              "x = np.arange(16.0).reshape(4, 4)\r\n"
              "centered = x - x.mean(\r\n"
              "    axis=1,\r\n"
              ")\r\n"
              "w = np.ones(3)\r\n"
              "prev = (w\r\n"
              "        [:])\r\n"
              "w += 1\r\n"
              "step = w - prev  # trailing comment\r\n")
    path = project / "crlf.py"
    path.write_bytes(source.encode("utf-8"))
    result = shapecheck("lint", "--no-cache", "--fix", "crlf.py")
    assert result.code == 0, result.out
    assert path.read_bytes() == source.replace("    axis=1,\r\n)", "    axis=1,\r\n    keepdims=True,\r\n)") \
        .replace("        [:])\r\n", "        [:]).copy()\r\n").encode("utf-8")


def test_notebooks_and_suppressed_findings_are_not_rewritten(project, shapecheck, make_notebook):
    notebook = make_notebook(("code", "import numpy as np\nx = np.ones((4, 4))\nc = x - x.mean(axis=1)\n"))
    (project / "nb.ipynb").write_text(notebook)
    (project / "s.py").write_text(NORMALIZE.replace("# per-sample centring", "# noqa: SC103"))
    result = shapecheck("lint", "--no-cache", "--fix", "nb.ipynb", "s.py")
    assert (project / "nb.ipynb").read_text() == notebook
    assert (project / "s.py").read_text() == NORMALIZE.replace("# per-sample centring", "# noqa: SC103")
    assert result.code == 1 and [f["code"] for f in json.loads(
        shapecheck("lint", "--no-cache", "--format", "json", "nb.ipynb").out)] == ["SC103"]


def test_stdin_cannot_be_fixed(project, shapecheck):
    result = shapecheck("lint", "--fix", "-")
    assert result.code == 2 and result.err.strip() == \
        "shapecheck: error: --fix and --diff rewrite files: they cannot read stdin"
