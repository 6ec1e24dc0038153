"""`shapecheck shapes FILE[:FUNCTION]`: each array-valued name after each assignment, with symbols."""

from __future__ import annotations

MODEL = """\
import torch


class Attention:
    def forward(self, x):
        B, T, C = x.shape
        qkv = x.reshape(B, T, 2, C // 2)
        q = qkv[:, :, 0]
        n = 4
        return q


def main():
    x = torch.ones(2, 5, 8)
    y = x.T
    return Attention().forward(x)
"""


def test_lists_each_array_binding_under_its_function_in_source_order(project, shapecheck):
    (project / "m.py").write_text(MODEL)
    result = shapecheck("shapes", "m.py")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "m.py"
    assert lines[1] == "  Attention.forward"
    assert lines[2].split() == ["7", "qkv:", "(B,", "T,", "2,", "C//2),", "dtype", "unknown", "(from", "a",
                                "parameter", "nothing", "else", "describes)"]
    assert lines[3].strip() == "with a caller's arguments: (2, 5, 2, 4) float32 torch, a view of x"
    assert lines[4].split()[:5] == ["8", "q:", "(B,", "T,", "C//2),"]
    assert lines[5].strip() == "with a caller's arguments: (2, 5, 4) float32 torch, a view of x"
    assert lines[6] == "  main"
    assert lines[7].split() == ["14", "x:", "(2,", "5,", "8)", "float32", "torch"]
    assert lines[8].split() == ["15", "y:", "(8,", "5,", "2)", "torch,", "dtype", "unknown,", "a", "view", "of", "x"]
    assert "n:" not in result.out  # an int is no array


def test_a_function_narrows_the_listing_and_a_method_matches_by_its_short_name(project, shapecheck):
    (project / "m.py").write_text(MODEL)
    short, qualified = shapecheck("shapes", "m.py:forward"), shapecheck("shapes", "m.py:Attention.forward")
    assert short.out == qualified.out
    assert "main" not in short.out and "qkv:" in short.out


def test_json_rows_carry_the_shape_as_data(project, shapecheck):
    (project / "m.py").write_text(MODEL)
    rows = shapecheck("shapes", "--format", "json", "m.py:main").json()
    assert [(r["line"], r["name"], r["shape"], r["dtype"], r["library"], r["function"]) for r in rows] == [
        (14, "x", [2, 5, 8], "float32", "torch", "main"),
        (15, "y", [8, 5, 2], None, "torch", "main"),
    ]


def test_an_unknown_function_is_a_usage_error_with_a_suggestion(project, shapecheck):
    (project / "m.py").write_text(MODEL)
    result = shapecheck("shapes", "m.py:forwad")
    assert result.code == 2 and result.out == ""
    assert result.err.strip() == "shapecheck: error: no function 'forwad' in m.py (did you mean Attention.forward?)"


def test_a_file_that_does_not_parse_says_why_and_exits_1(project, shapecheck):
    (project / "bad.py").write_text("x = (1,\n")
    result = shapecheck("shapes", "bad.py")
    assert result.code == 1 and result.out == ""
    assert result.err.startswith("bad.py:1:") and "SC001" in result.err


def test_a_missing_file_is_a_usage_error(project, shapecheck):
    result = shapecheck("shapes", "nope.py")
    assert result.code == 2 and "cannot read nope.py" in result.err


def test_notebook_lines_name_their_cell(project, shapecheck, make_notebook):
    (project / "nb.ipynb").write_text(make_notebook(("code", "import numpy as np\n"), ("markdown", "# x"),
                                                    ("code", "a = np.ones((2, 3))\nb = a.sum(0)\n")))
    rows = shapecheck("shapes", "--format", "json", "nb.ipynb").json()
    assert [(r["cell"], r["line"], r["name"], r["shape"]) for r in rows] == [(3, 1, "a", [2, 3]), (3, 2, "b", [3])]
    assert "cell 3:2  b: (3,) float64 numpy" in shapecheck("shapes", "nb.ipynb").out


def test_the_config_shape_hints_are_used_as_lint_uses_them(project, shapecheck):
    (project / "pyproject.toml").write_text('[tool.shapecheck.shapes]\nx = "B, T, C"\n')
    (project / "m.py").write_text("import torch\ny = x.sum(-1)\n")
    assert shapecheck("shapes", "m.py").out.splitlines()[2].split()[:4] == ["2", "y:", "(B,", "T)"]
