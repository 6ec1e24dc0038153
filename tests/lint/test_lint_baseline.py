"""Baselines: --write-baseline records today's findings; --baseline reports only new ones, wherever old ones move."""

from __future__ import annotations

import json

OLD = """\
import numpy as np


def center(x):
    a = np.zeros((5, 2))
    b = np.ones(3)
    return a + b
"""


def lint_json(shapecheck, *args):
    result = shapecheck("lint", "--no-cache", "--format", "json", *args)
    return result.code, [(f["line"], f["code"]) for f in json.loads(result.out or "[]")]


def test_written_baseline_silences_todays_findings_and_exits_0(project, shapecheck):
    (project / "m.py").write_text(OLD)
    written = shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "m.py")
    assert written.code == 0 and written.out == ""
    assert written.err.strip() == "shapecheck: wrote 1 finding to base.json"
    assert lint_json(shapecheck, "m.py") == (1, [(7, "SC101")])
    assert lint_json(shapecheck, "--baseline", "base.json", "m.py") == (0, [])


def test_moving_code_down_and_reformatting_it_keeps_the_old_finding_baselined(project, shapecheck):
    (project / "m.py").write_text(OLD)
    shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "m.py")
    moved = OLD.replace("import numpy as np\n", "import numpy as np\nimport os\n\nLIMIT = 3\n\n") \
               .replace("return a + b", "return a+b   # the sum")
    (project / "m.py").write_text(moved)
    assert lint_json(shapecheck, "m.py")[1] == [(11, "SC101")]
    assert lint_json(shapecheck, "--baseline", "base.json", "m.py") == (0, [])


def test_a_new_bug_of_the_same_rule_in_the_same_function_is_reported(project, shapecheck):
    (project / "m.py").write_text(OLD)
    shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "m.py")
    (project / "m.py").write_text(OLD.replace("    return a + b\n", "    c = a - b\n    return a + b\n"))
    assert lint_json(shapecheck, "--baseline", "base.json", "m.py") == (1, [(7, "SC101")])


def test_a_second_identical_statement_is_a_new_occurrence(project, shapecheck):
    (project / "m.py").write_text(OLD)
    shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "m.py")
    (project / "m.py").write_text(OLD.replace("    return a + b\n", "    a + b\n    return a + b\n"))
    code, found = lint_json(shapecheck, "--baseline", "base.json", "m.py")
    assert code == 1 and len(found) == 1  # one of the two identical statements is new


def test_the_same_statement_in_another_function_is_new(project, shapecheck):
    (project / "m.py").write_text(OLD)
    shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "m.py")
    (project / "m.py").write_text(OLD + "\n\n" + OLD.split("\n\n\n")[1].replace("def center", "def other"))
    assert lint_json(shapecheck, "--baseline", "base.json", "m.py") == (1, [(13, "SC101")])


def test_the_file_is_stable_json_with_paths_relative_to_itself(project, shapecheck):
    (project / "src").mkdir()
    (project / "src" / "m.py").write_text(OLD)
    (project / "b.py").write_text("import numpy as np\nnp.ones(2) + np.ones(3)\n")
    (project / "ci").mkdir()
    shapecheck("lint", "--no-cache", "--write-baseline", "ci/base.json", "src", "b.py")
    first = (project / "ci" / "base.json").read_text()
    document = json.loads(first)
    assert document["version"] == 1 and document["tool"] == "shapecheck"
    assert [(e["path"], e["code"], e["function"], e["statement"], e["occurrence"]) for e in document["findings"]] == [
        ("../b.py", "SC101", "", "np . ones ( 2 ) + np . ones ( 3 )", 0),
        ("../src/m.py", "SC101", "center", "return a + b", 0),
    ]
    assert all(len(e["fingerprint"]) == 32 for e in document["findings"])
    # Moving code does not change the file: no line numbers in it.
    (project / "src" / "m.py").write_text("\n\n" + OLD)
    shapecheck("lint", "--no-cache", "--write-baseline", "ci/base.json", "src", "b.py")
    assert (project / "ci" / "base.json").read_text() == first


def test_the_baseline_matches_from_another_directory(project, shapecheck, monkeypatch):
    (project / "pkg").mkdir()
    (project / "pkg" / "m.py").write_text(OLD)
    shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "pkg")
    monkeypatch.chdir(project / "pkg")
    assert lint_json(shapecheck, "--baseline", "../base.json", "m.py") == (0, [])


def test_sarif_partial_fingerprints_are_the_baselines(project, shapecheck):
    (project / "m.py").write_text(OLD)
    shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "m.py")
    sarif = json.loads(shapecheck("lint", "--no-cache", "--format", "sarif", "m.py").out)
    [result] = sarif["runs"][0]["results"]
    [entry] = json.loads((project / "base.json").read_text())["findings"]
    assert result["partialFingerprints"] == {"shapecheckFinding/v2": entry["fingerprint"]}


def test_text_output_says_how_many_findings_the_baseline_hid(project, shapecheck):
    (project / "m.py").write_text(OLD)
    shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "m.py")
    result = shapecheck("lint", "--no-cache", "--baseline", "base.json", "m.py")
    assert result.code == 0
    assert result.err.strip() == "shapecheck: 1 finding in the baseline base.json not shown"


def test_a_cell_inserted_above_keeps_a_notebook_finding_baselined(project, shapecheck, make_notebook):
    cells = [("code", "import numpy as np\n"), ("code", "a = np.zeros((5, 2))\nc = a + np.ones(3)\n")]
    (project / "nb.ipynb").write_text(make_notebook(*cells))
    shapecheck("lint", "--no-cache", "--write-baseline", "base.json", "nb.ipynb")
    (project / "nb.ipynb").write_text(make_notebook(cells[0], ("markdown", "# notes"), ("code", "k = 1\n"),
                                                    cells[1]))
    assert lint_json(shapecheck, "--baseline", "base.json", "nb.ipynb") == (0, [])


def test_a_missing_or_foreign_baseline_is_a_usage_error(project, shapecheck):
    (project / "m.py").write_text(OLD)
    missing = shapecheck("lint", "--baseline", "nope.json", "m.py")
    assert missing.code == 2 and missing.err.startswith("shapecheck: error: cannot read baseline nope.json")
    (project / "other.json").write_text('{"results": []}')
    foreign = shapecheck("lint", "--baseline", "other.json", "m.py")
    assert foreign.code == 2 and foreign.err.strip() == \
        "shapecheck: error: other.json is not a shapecheck baseline (version 1)"
