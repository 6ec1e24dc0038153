"""What the server shows for one document, without the protocol: the same findings as lint, hovers, hints, edits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from shapecheck.analysis.api import analyze_source
from shapecheck.server.documents import DocumentAnalyzer, fix_edit, hover_text, inlay_hints

REPO = Path(__file__).resolve().parents[2]

SOURCE = """\
import numpy as np

x = np.ones((4, 4))
view = x[1:]
total = x.sum(1)  # noqa: SC103
centered = x - x.mean(axis=1)
"""


def analyzed(tmp_path, source=SOURCE, name="m.py"):
    path = tmp_path / name
    path.write_text(source)
    return DocumentAnalyzer(use_cache=False).analyze(str(path), source, 1)


def test_findings_are_lints_after_config_selection_and_suppressions(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.shapecheck]\nignore = ["SC1"]\n')
    analysis = analyzed(tmp_path, SOURCE + "y = np.ones(2) + np.ones(3)\nw = np.ones(3)\nold = w\nw += 1\nz = old + 1\n")
    assert [(f.line, f.code) for f in analysis.findings] == [(9, "SC304")]
    assert analysis.error is None


def test_hover_names_the_innermost_array_expression(tmp_path):
    analysis = analyzed(tmp_path)
    text, (start, end) = hover_text(analysis, (3, 7))  # the `x` in `view = x[1:]`
    assert (text, start, end) == ("`x`: (4, 4) float64 numpy, from line 3", (3, 7), (3, 8))
    text, (start, end) = hover_text(analysis, (3, 8))  # the bracket: the subscript
    assert (text, start, end) == ("`x[1:]`: (3, 4) float64 numpy, a view of x", (3, 7), (3, 12))
    assert hover_text(analysis, (0, 3)) is None  # `import numpy`: no array


def test_inlay_hints_follow_the_bindings_of_arrays(tmp_path):
    analysis = analyzed(tmp_path)
    assert [(h.position, h.label) for h in inlay_hints(analysis)] == [
        ((2, 1), ": (4, 4)"), ((3, 4), ": (3, 4)"), ((4, 5), ": (4,)"), ((5, 8), ": (4, 4)")]
    assert [h.position for h in inlay_hints(analysis, 3, 3)] == [(3, 4)]
    assert inlay_hints(analysis)[1].tooltip == "view: (3, 4) float64 numpy, a view of x"


def test_a_fix_is_one_small_edit_on_the_analyzed_text(tmp_path):
    analysis = analyzed(tmp_path)
    [finding] = [f for f in analysis.findings if f.fix is not None]
    start, end, new_text = fix_edit(analysis, finding.fix)
    assert (start, end, new_text) == ((5, 28), (5, 28), ", keepdims=True")
    lines = SOURCE.split("\n")
    lines[5] = lines[5][:28] + new_text + lines[5][28:]
    assert analyze_source("\n".join(lines), "m.py") == []


def test_a_broken_configuration_analyzes_with_the_defaults_and_says_why(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.shapecheck]\ndialect = "fortran"\n')
    analysis = analyzed(tmp_path, "import numpy as np\ny = np.ones(2) + np.ones(3)\n")
    assert [f.code for f in analysis.findings] == ["SC101"]
    assert "fortran" in analysis.error


def test_text_that_is_no_python_is_a_finding_not_an_exception(tmp_path):
    assert [f.code for f in analyzed(tmp_path, "x = (1,\n").findings] == ["SC001"]
    assert [f.code for f in analyzed(tmp_path, "x = 1\n\0").findings] == ["SC002"]
    assert analyzed(tmp_path, "x = (1,\n").recorder is None


def test_without_pygls_the_server_command_says_what_to_install():
    blocked = ("import sys; sys.modules['pygls'] = None; "
               "from shapecheck.cli import main; sys.exit(main(['server']))")
    result = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, cwd=REPO,
                            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == \
        "shapecheck: error: the language server needs pygls: pip install 'shapecheck[server]'"
