"""Notebooks: code cells as one program, IPython syntax masked in place, findings and suppressions per cell."""

from __future__ import annotations

import pytest

from shapecheck.analysis.findings import Finding, Severity, Span
from shapecheck.lint.notebooks import Cell, NotebookError, build_program, mask_magics, read_cells

IPYTHON_LINES = (
    "%matplotlib inline\n"
    "!pip install numpy\n"
    "files = !ls\n"
    "np.sum?\n"
    "?np.mean\n"
    "if True:\n"
    "    %time f(x)\n"
    "x = 1\n"
)


def test_magics_are_masked_without_moving_any_other_line():
    masked = mask_magics(IPYTHON_LINES)
    assert masked.split("\n")[7] == "x = 1"
    assert len(masked.split("\n")) == len(IPYTHON_LINES.split("\n"))
    compile(masked, "<cell>", "exec")  # only parsing: the masked cell is valid Python
    assert masked.split("\n")[2] == "files = ..."
    assert masked.split("\n")[6] == "    pass"


def test_non_python_cell_magic_blanks_the_cell_but_python_cell_magic_keeps_the_body():
    assert mask_magics("%%bash\necho $((1 +\n").strip() == ""
    assert mask_magics("%%time\ny = (1,\n").split("\n") == ["", "y = (1,", ""]


def test_questions_inside_code_are_not_mistaken_for_help():
    source = "s = 'what?'\n# why?\n"
    assert mask_magics(source) == source


def test_cells_are_numbered_among_all_cells_and_program_lines_map_back(make_notebook):
    text = make_notebook(("markdown", "# title"), ("code", "a = 1\nb = 2"), ("markdown", "x"), ("code", "c = 3\n"))
    cells = read_cells(text)
    assert [(c.number, c.source) for c in cells] == [(2, "a = 1\nb = 2"), (4, "c = 3\n")]
    program = build_program(cells)
    assert program.source == "a = 1\nb = 2\nc = 3\n"
    mapped = program.map_finding(Finding("nb.ipynb", Span(3, 1, 3, 2), "SC101", "r", Severity.ERROR, "m"))
    assert (mapped.cell, mapped.span.line) == (4, 1)


def test_invalid_notebook_json_raises_notebook_error():
    with pytest.raises(NotebookError):
        read_cells("{not json")
    with pytest.raises(NotebookError):
        read_cells('{"cells": 3}')


def test_syntax_error_in_a_cell_points_to_the_cell_line_and_column(project, shapecheck, make_notebook):
    (project / "nb.ipynb").write_text(make_notebook(
        ("code", "import numpy as np\n%matplotlib inline"),
        ("markdown", "some text"),
        ("code", "!echo hi\nx = np.zeros(3)\ny = [1,\n"),
    ))
    run = shapecheck("lint", "--no-cache", "--format", "json")
    assert run.code == 1
    [item] = run.json()
    assert (item["code"], item["cell"], item["line"], item["column"]) == ("SC001", 3, 3, 5)
    concise = shapecheck("lint", "--no-cache", "--format", "concise")
    assert concise.out.startswith("nb.ipynb:cell 3:3:5: SC001 ")
    text = shapecheck("lint", "--no-cache")
    assert "nb.ipynb:cell 3:3:5: SC001" in text.out
    assert "y = [1," in text.out  # the code frame shows the cell's own text


def test_notebook_full_of_ipython_syntax_lints_clean(project, shapecheck, make_notebook):
    (project / "nb.ipynb").write_text(make_notebook(("code", IPYTHON_LINES), ("code", "%%bash\nls -la ((\n")))
    run = shapecheck("lint", "--no-cache", "--format", "json")
    assert run.json() == [] and run.code == 0


def test_suppressions_work_inside_cells(project, shapecheck, make_notebook):
    (project / "nb.ipynb").write_text(make_notebook(
        ("code", "a = 1"), ("code", "y = [1,  # shapecheck: ignore[SC001]\n")))
    run = shapecheck("lint", "--no-cache", "--format", "json", "--show-suppressed")
    assert [(f["cell"], f["suppressed"]) for f in run.json()] == [(2, True)]
    assert run.code == 0


def test_broken_notebook_is_sc002_and_the_run_goes_on(project, shapecheck):
    (project / "broken.ipynb").write_text("{not json")
    (project / "bad.py").write_text("x = (1,\n")
    run = shapecheck("lint", "--no-cache", "--format", "json")
    assert [(f["path"], f["code"]) for f in run.json()] == [("bad.py", "SC001"), ("broken.ipynb", "SC002")]


def test_cells_that_only_exist_in_masked_form_keep_their_numbering():
    program = build_program((Cell(1, "%%bash\nls"), Cell(5, "z = 1")))
    assert program.starts == (1, 3)
    assert program.locate(3) == (1, 1)


def test_cross_references_count_lines_in_cells_like_the_finding_itself(project, shapecheck, make_notebook):
    (project / "nb.ipynb").write_text(make_notebook(
        ("code", "import numpy as np\na = np.zeros((5, 2))\n"),
        ("markdown", "the other operand"),
        ("code", "b = np.ones(3)\n\nc = a + b\n")))
    [item] = shapecheck("lint", "--no-cache", "--format", "json").json()
    assert (item["cell"], item["line"]) == (3, 3)
    assert "(a from line 2 of cell 1, b from line 1)" in item["message"]
    assert [(o["expr"], o["line"], o["cell"]) for o in item["facts"]["operands"]] == [("a", 2, 1), ("b", 1, 3)]
    text = shapecheck("lint", "--no-cache").out
    assert "operands: a from line 2 of cell 1, b from line 1\n" in text


def test_program_lines_in_messages_and_details_map_to_cells():
    program = build_program((Cell(1, "x = 1\ny = 2\n"), Cell(4, "z = 3\n")))
    finding = Finding("nb.ipynb", Span(3, 1, 3, 2), "SC305", "r", Severity.WARNING,
                      "f() modifies 'x' in place (line 1) and 'x' is read afterwards at line 3",
                      details=("the caller at line 2",))
    mapped = program.map_finding(finding)
    assert mapped.message == "f() modifies 'x' in place (line 1 of cell 1) and 'x' is read afterwards at line 1"
    assert mapped.details == ("the caller at line 2 of cell 1",)
