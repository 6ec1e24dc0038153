"""Imports of the project's own files: shapes cross the file boundary, findings stay in place.

Each test writes a small project and lints it through the real command line.
"""

from __future__ import annotations

import textwrap

import pytest

from shapecheck.analysis.interpret import imported
from shapecheck.lint import runner


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def findings(shapecheck, *args: str) -> list[tuple[str, int, str]]:
    run = shapecheck("lint", "--no-cache", "--format", "json", *args)
    assert run.code in (0, 1), run.err
    return sorted((f["path"].replace("\\", "/"), f["line"], f["code"]) for f in run.json())


def messages(shapecheck, *args: str) -> dict[tuple[str, int], str]:
    run = shapecheck("lint", "--no-cache", "--format", "json", *args)
    return {(f["path"].replace("\\", "/"), f["line"]): f["message"] for f in run.json()}


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/ops.py": """
        import numpy as np


        def combine(a, b):
            return a + b


        def project(a, b):
            return a @ b


        def twice(a, b):
            return project(a, b)
        """,
}


def test_a_broadcast_bug_in_a_relatively_imported_helper_is_reported_at_the_call(project, shapecheck):
    write(project, PACKAGE | {"pkg/main.py": """
        import numpy as np
        from .ops import combine

        x = np.zeros((3, 4))
        ok = combine(x, np.zeros(4))
        bad = combine(x, np.zeros(5))
        """})
    assert findings(shapecheck, ".") == [("pkg/main.py", 6, "SC101")]
    message = messages(shapecheck, ".")[("pkg/main.py", 6)]
    assert "(3, 4) with (5,)" in message and "in combine, ops.py line 5" in message


def test_an_absolute_import_of_a_sibling_script_is_followed(project, shapecheck):
    write(project, {
        "utils.py": """
            import numpy as np


            def pad(x, n):
                return np.concatenate([x, np.zeros((n, 3))])
            """,
        "train.py": """
            import numpy as np
            from utils import pad

            good = pad(np.ones((4, 3)), 2)
            bad = pad(np.ones((4, 5)), 2)
            """})
    assert findings(shapecheck, "train.py") == [("train.py", 5, "SC108")]


def test_a_module_imported_under_a_name_and_a_helper_two_files_deep(project, shapecheck):
    write(project, PACKAGE | {
        "pkg/middle.py": """
            from .ops import twice


            def run(a, b):
                return twice(a, b)
            """,
        "main.py": """
            import numpy as np
            import pkg.ops as ops
            from pkg.middle import run

            a = ops.project(np.ones((2, 3)), np.ones((4, 5)))
            b = run(np.ones((2, 3)), np.ones((3, 5))) + np.ones((2, 5))
            c = run(np.ones((2, 3)), np.ones((4, 5)))
            """})
    assert findings(shapecheck, "main.py") == [("main.py", 5, "SC106"), ("main.py", 7, "SC106")]


def test_an_imported_module_class_gets_the_callers_shape_in_its_forward(project, shapecheck):
    pytest.importorskip("torch")
    write(project, {
        "layers.py": """
            import torch
            from torch import nn


            class Head(nn.Module):
                def __init__(self, dim, classes):
                    super().__init__()
                    self.fc = nn.Linear(dim, classes)

                def forward(self, x):
                    return self.fc(x)
            """,
        "model.py": """
            import torch
            from layers import Head

            head = Head(64, 10)
            logits = head(torch.zeros(8, 64))
            wrong = head(torch.zeros(8, 32))
            """})
    assert findings(shapecheck, "model.py") == [("model.py", 6, "SC106")]
    assert "in forward, layers.py line 11" in messages(shapecheck, "model.py")[("model.py", 6)]


def test_a_constant_from_a_config_module_gives_the_shape(project, shapecheck):
    pytest.importorskip("torch")
    write(project, {
        "config.py": """
            N_EMBD = 64
            PATCH_GRID = (7, 7)
            """,
        "model.py": """
            import torch
            from config import N_EMBD, PATCH_GRID

            tokens = torch.zeros(2, PATCH_GRID[0] * PATCH_GRID[1], N_EMBD)
            table = torch.zeros(1, 50, N_EMBD)
            x = tokens + table
            """})
    assert findings(shapecheck, "model.py") == [("model.py", 6, "SC101")]


def test_an_argument_written_in_place_through_imported_helpers_is_reported_at_the_call(
        project, shapecheck):
    write(project, {
        "prep.py": """
            import numpy as np


            def normalize(x):
                x -= x.mean()
                return x.std()


            def standardize(x):
                return normalize(x)
            """,
        "main.py": """
            import numpy as np
            from prep import standardize

            data = np.ones((4, 3))
            spread = standardize(data)
            print(data)
            """})
    assert findings(shapecheck, ".") == [("main.py", 5, "SC305")]
    message = messages(shapecheck, ".")[("main.py", 5)]
    assert message.startswith("standardize() -> normalize() modifies 'data' in place (prep.py, line 5)")


def test_a_bug_the_imported_file_has_on_its_own_is_reported_there_only(project, shapecheck):
    write(project, {
        "helper.py": """
            import numpy as np


            def broken(x):
                return np.zeros(3) + np.zeros(4)
            """,
        "main.py": """
            import numpy as np
            from helper import broken

            y = broken(np.ones(2))
            """})
    assert findings(shapecheck, ".") == [("helper.py", 5, "SC101")]


def test_missing_modules_libraries_and_cycles_are_unknown_without_error(project, shapecheck):
    write(project, {
        "pkg/__init__.py": "",
        "pkg/a.py": """
            import numpy as np
            from .b import from_b
            from .nowhere import ghost
            from json import dumps
            import os.path


            def from_a(x):
                return from_b(x) + ghost(x) + dumps(x)
            """,
        "pkg/broken.py": "def half(:\n",
        "pkg/b.py": """
            import numpy as np
            from .a import from_a
            from .broken import half


            def from_b(x):
                return from_a(x) + np.zeros(5) + half(x)
            """,
        "main.py": """
            import numpy as np
            from pkg.a import from_a
            from pkg.b import from_b
            from . import sibling

            y = from_a(np.ones(3)) + from_b(np.ones(3))
            """})
    run = shapecheck("lint", "--no-cache", "--format", "json", ".")
    assert run.err == "" and "Traceback" not in run.out
    assert [(f["path"], f["code"]) for f in run.json()] == [("pkg/broken.py", "SC001")]


def test_the_cache_is_stale_when_an_imported_file_changes(project, shapecheck):
    buggy = """
        import numpy as np


        def combine(a, b):
            return a + b
        """
    write(project, {"helpers.py": buggy, "main.py": """
        import numpy as np
        from helpers import combine

        z = combine(np.zeros((3, 4)), np.zeros(5))
        """})

    def main_codes():
        run = shapecheck("lint", "--format", "json", "main.py")
        return [(f["line"], f["code"]) for f in run.json()]

    assert main_codes() == [(4, "SC101")]
    write(project, {"helpers.py": buggy.replace("a + b", "a.sum() + b")})
    assert main_codes() == []
    write(project, {"helpers.py": buggy})
    assert main_codes() == [(4, "SC101")]
    assert runner.run_lint(runner.LintOptions(paths=(project / "main.py",))).cache_hits == 1


def test_worker_processes_follow_imports_as_a_single_process_does(project, shapecheck, monkeypatch):
    write(project, PACKAGE | {f"pkg/user{i}.py": f"""
        import numpy as np
        from .ops import combine

        bad = combine(np.zeros((3, 4)), np.zeros({i + 5}))
        """ for i in range(4)})
    serial = findings(shapecheck, "--jobs", "1", ".")
    monkeypatch.setattr(runner, "SERIAL_MAX_FILES", 0)
    monkeypatch.setattr(runner, "SERIAL_MAX_BYTES", 0)
    assert findings(shapecheck, "--jobs", "2", ".") == serial
    assert serial == [(f"pkg/user{i}.py", 4, "SC101") for i in range(4)]


def _over_budget_project() -> dict[str, str]:
    """Six helpers, each importing four leaves (30 modules, over the per-file budget of 24),
    then a constant that decides a finding: a file importing them all may not load the last."""
    files = {"pkg/__init__.py": "", "pkg/conf.py": "WIDTH = 4\n"}
    for h in range(6):
        for leaf in range(4):
            files[f"pkg/leaf{h}{leaf}.py"] = f"def g{h}{leaf}(x):\n    return x\n"
        imports = "".join(f"from .leaf{h}{leaf} import g{h}{leaf}\n" for leaf in range(4))
        calls = "".join(f"g{h}{leaf}(" for leaf in range(4)) + "x" + ")" * 4
        files[f"pkg/helper{h}.py"] = f"{imports}\n\ndef f{h}(x):\n    return {calls}\n"
    helpers = "".join(f"from .helper{h} import f{h}\n" for h in range(6))
    files["pkg/warm.py"] = helpers
    files["pkg/wide.py"] = helpers + (
        "from .conf import WIDTH\nimport numpy as np\n\n"
        "z = f0(np.zeros((3, WIDTH))) + np.zeros(5)\n")
    return files


def test_a_files_findings_do_not_depend_on_the_files_analyzed_before_it_in_the_process(
        project, shapecheck):
    write(project, _over_budget_project())
    alone = findings(shapecheck, "pkg/wide.py")
    # The helpers this process has now run are reused, and must count as running them would.
    after_others = [f for f in findings(shapecheck, "pkg/warm.py", "pkg/wide.py")
                    if f[0] == "pkg/wide.py"]
    assert after_others == alone


def test_the_cache_knows_every_file_a_reused_import_read(project, shapecheck, monkeypatch):
    leaf = "def widen(x):\n    return x\n"
    write(project, {
        "leaf.py": leaf,
        "helper.py": "from leaf import widen\n\n\ndef grow(x):\n    return widen(x)\n",
        "a_first.py": "from leaf import widen\nfrom helper import grow\n",
        "b_second.py": """
            import numpy as np
            from helper import grow

            z = grow(np.zeros((3, 4))) + np.zeros(5)
            """})

    def second_codes():
        run = shapecheck("lint", "--format", "json", "a_first.py", "b_second.py")
        return [(f["path"], f["line"], f["code"]) for f in run.json()]

    # b_second.py reuses helper.py as a_first.py's analysis left it, leaf.py already loaded.
    assert second_codes() == [("b_second.py", 4, "SC101")]
    monkeypatch.setattr(imported, "_LOADED", type(imported._LOADED)())  # a new process
    write(project, {"leaf.py": leaf.replace("return x", "return x.sum()")})
    assert second_codes() == []


def test_an_imported_config_default_that_is_no_size_never_becomes_a_dim(project, shapecheck):
    write(project, {
        "conf.py": """
            class MixerConfig:
                head_dim = "auto"  # replaced by the real size when the config is built
            """,
        "mixer.py": """
            import torch
            from conf import MixerConfig


            class Mixer(torch.nn.Module):
                def __init__(self, config: MixerConfig):
                    super().__init__()
                    self.head_dim = config.head_dim

                def forward(self, dt, cached: bool):
                    if cached:
                        dt = torch.zeros(3, len(dt)).expand(-1, self.head_dim)
                    else:
                        dt = torch.zeros(3, 4)
                    return dt
            """})
    assert findings(shapecheck, ".") == []


def test_a_definition_of_a_big_file_is_read_alone(project, shapecheck):
    # timm's vision_transformer.py is 234 kB, and pit.py imports its Block: only the
    # statements an import names are parsed, so the file's size is no reason to refuse it.
    filler = "".join(f"\n\ndef helper_{i}(a, b):\n    return a + b  # {'x' * 60}\n"
                     for i in range(2500))
    write(project, {
        "pkg/__init__.py": "",
        "pkg/big.py": "import numpy as np\n" + filler + """

def combine(a, b):
    return a @ b
""",
        "pkg/main.py": """
            import numpy as np
            from .big import combine

            bad = combine(np.zeros((3, 4)), np.zeros((5, 2)))
            """})
    assert (project / "pkg/big.py").stat().st_size > 250_000
    assert findings(shapecheck, "pkg/main.py") == [("pkg/main.py", 4, "SC106")]
