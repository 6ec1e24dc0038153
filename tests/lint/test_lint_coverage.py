"""`shapecheck lint --coverage`: per-file and total shape coverage in every format, equal in pool and serial runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.analysis.coverage import FileCoverage
from shapecheck.lint import runner
from shapecheck.lint.runner import LintOptions, run_lint

# Five array expressions, all fully known, and one broadcast error (a finding, so exit code 1).
KNOWN = "import numpy as np\na = np.zeros((3, 4))\nb = np.ones(4)\nc = a + b\n"
BROKEN = "import numpy as np\nx = np.zeros((3, 4)) + np.ones(5)\n"
# x, x * 2 and y are tensors of unknown rank; np.zeros((3, 4)) is known.
PARAMETER = ("import numpy as np\nimport torch\n\ndef scale(x: torch.Tensor):\n    y = x * 2\n"
             "    return y\n\na = np.zeros((3, 4))\n")


def table_rows(out: str) -> dict[str, list[str]]:
    """The coverage table's rows: first cell -> the other cells."""
    table = out[out.index("Shape coverage"):]
    rows = {}
    for line in table.splitlines()[1:]:
        cells = line.split()
        if cells and cells[0] not in ("file",) and not set(line.strip()) <= {"─"}:
            if cells[0] == "total":
                rows["total"] = cells[3:]
            else:
                rows[cells[0]] = cells[1:]
    return rows


def test_text_prints_the_findings_then_a_row_per_file_and_the_total(project, shapecheck):
    (project / "known.py").write_text(KNOWN)
    (project / "param.py").write_text(PARAMETER)
    (project / "broken.py").write_text(BROKEN)
    run = shapecheck("lint", "--no-cache", "--coverage", ".")
    assert run.code == 1
    assert run.out.index("SC101") < run.out.index("Shape coverage")
    rows = table_rows(run.out)
    assert rows["known.py"] == ["5", "5", "100.0%", "5", "100.0%"]
    assert rows["param.py"] == ["4", "1", "25.0%", "1", "25.0%"]
    # The failed broadcast leaves x + ... an array of unknown shape.
    assert rows["broken.py"] == ["3", "2", "66.7%", "2", "66.7%"]
    assert rows["total"] == ["12", "8", "66.7%", "8", "66.7%"]
    assert "(3 files)" in run.out


def test_without_the_option_there_is_no_report(project, shapecheck):
    (project / "known.py").write_text(KNOWN)
    run = shapecheck("lint", "--no-cache", ".")
    assert run.code == 0 and "Shape coverage" not in run.out
    assert shapecheck("lint", "--no-cache", "--format", "json", ".").json() == []


def test_a_clean_run_says_so_before_the_table_and_exits_zero(project, shapecheck):
    (project / "known.py").write_text(KNOWN)
    run = shapecheck("lint", "--no-cache", "--coverage", "known.py")
    assert run.code == 0
    assert run.out.startswith("No problems found (1 file checked).\n\nShape coverage\n")
    assert run.out.endswith("100.0%\n")
    assert table_rows(run.out)["known.py"] == ["5", "5", "100.0%", "5", "100.0%"]


def test_json_is_one_object_with_the_findings_and_per_file_and_total_counts(project, shapecheck):
    (project / "known.py").write_text(KNOWN)
    (project / "param.py").write_text(PARAMETER)
    (project / "broken.py").write_text(BROKEN)
    data = shapecheck("lint", "--no-cache", "--coverage", "--format", "json", ".").json()
    assert [f["code"] for f in data["findings"]] == ["SC101"]
    assert data["coverage"]["files"] == [
        {"path": "broken.py", "arrays": 3, "rank_known": 2, "fully_known": 2},
        {"path": "known.py", "arrays": 5, "rank_known": 5, "fully_known": 5},
        {"path": "param.py", "arrays": 4, "rank_known": 1, "fully_known": 1},
    ]
    assert data["coverage"]["total"] == {"arrays": 12, "rank_known": 8, "fully_known": 8, "files": 3}


def test_json_statistics_and_sarif_carry_the_counts_in_their_own_document(project, shapecheck):
    (project / "broken.py").write_text(BROKEN)
    stats = shapecheck("lint", "--no-cache", "--coverage", "--statistics", "--format", "json", ".").json()
    assert stats["statistics"] == [{"code": "SC101", "name": "broadcast-incompatible", "count": 1}]
    assert stats["coverage"]["total"]["arrays"] == 3
    sarif = shapecheck("lint", "--no-cache", "--coverage", "--format", "sarif", ".").json()
    [run] = sarif["runs"]
    assert len(run["results"]) == 1
    assert run["properties"]["shapeCoverage"]["files"] == [
        {"path": "broken.py", "arrays": 3, "rank_known": 2, "fully_known": 2}]


def test_coverage_reads_no_cache_entry_but_leaves_one_for_the_next_run(project):
    (project / "known.py").write_text(KNOWN)
    run_lint(LintOptions(paths=(Path("."),)))  # a normal run fills the cache
    measured = run_lint(LintOptions(paths=(Path("."),), coverage=True))
    assert measured.cache_hits == 0
    assert measured.coverage == {"known.py": FileCoverage(5, 5, 5)}
    (project / "param.py").write_text(PARAMETER)
    run_lint(LintOptions(paths=(Path("param.py"),), coverage=True))
    assert run_lint(LintOptions(paths=(Path("."),))).cache_hits == 2


def test_a_notebook_and_stdin_are_measured_too(project, shapecheck, make_notebook, monkeypatch):
    import io
    import sys

    (project / "nb.ipynb").write_text(make_notebook(("code", "import numpy as np\na = np.zeros(3)"),
                                                    ("markdown", "# text"), ("code", "b = a + 1")))
    data = shapecheck("lint", "--no-cache", "--coverage", "--format", "json", "nb.ipynb").json()
    assert data["coverage"]["files"] == [{"path": "nb.ipynb", "arrays": 3, "rank_known": 3, "fully_known": 3}]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(KNOWN.encode())))
    data = shapecheck("lint", "--coverage", "--format", "json", "-").json()
    assert data["coverage"]["total"] == {"arrays": 5, "rank_known": 5, "fully_known": 5, "files": 1}


@pytest.fixture
def zoo(tmp_path) -> Path:
    """Twelve files of several kinds: more than the runner runs serially."""
    samples = Path(__file__).resolve().parents[2] / "samples"
    for sample in sorted(samples.rglob("*.py")):
        (tmp_path / sample.name).write_bytes(sample.read_bytes())
    for n, text in enumerate((KNOWN, BROKEN, PARAMETER)):
        (tmp_path / f"small_{n}.py").write_text(text)
    return tmp_path


def test_the_process_pool_and_a_serial_run_give_the_same_counts(zoo, monkeypatch):
    serial = run_lint(LintOptions(paths=(zoo,), jobs=1, use_cache=False, coverage=True))
    monkeypatch.setattr(runner, "SERIAL_MAX_FILES", 0)
    monkeypatch.setattr(runner, "SERIAL_MAX_BYTES", 0)
    pooled = run_lint(LintOptions(paths=(zoo,), jobs=2, use_cache=False, coverage=True))
    assert len(serial.coverage) == len(list(zoo.glob("*.py")))
    assert pooled.coverage == serial.coverage
    assert pooled.findings == serial.findings
    assert serial.coverage[str(zoo / "small_0.py")] == FileCoverage(5, 5, 5)


# A box coder's helper nobody in its own file calls: its parameters say no rank, so it is blind
# when linted alone; the detection head that calls it with (5, 4) boxes knows all of it.
CODER = """import torch
from torch import Tensor


def decode(rel_codes: Tensor, boxes: Tensor) -> Tensor:
    ctr_x = 0.5 * (boxes[..., 0] + boxes[..., 2])
    ctr_y = 0.5 * (boxes[..., 1] + boxes[..., 3])
    return torch.stack((ctr_x - rel_codes[..., 0], ctr_y - rel_codes[..., 1]), dim=-1)
"""
HEAD = """import torch

from coder import decode

pred = decode(torch.zeros(5, 4), torch.zeros(5, 4))
"""


def test_a_helper_counts_what_the_analysis_of_a_file_calling_it_knew(project):
    (project / "coder.py").write_text(CODER)
    (project / "head.py").write_text(HEAD)
    alone = run_lint(LintOptions(paths=(Path("coder.py"),), use_cache=False, coverage=True))
    both = run_lint(LintOptions(paths=(Path("."),), use_cache=False, coverage=True))
    assert alone.coverage["coder.py"].rank_known == 0
    helper = both.coverage["coder.py"]
    assert helper.arrays == alone.coverage["coder.py"].arrays
    assert helper.rank_known == helper.fully_known == helper.arrays
    # The calling file's own counts are its own expressions only.
    assert both.coverage["head.py"] == FileCoverage(3, 3, 3)  # two zeros and pred
