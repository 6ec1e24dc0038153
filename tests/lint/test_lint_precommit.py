"""End to end: the README's pre-commit snippet, verbatim, runs this repository's hook and fails only on a bug."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import shapecheck
from shapecheck.analysis.api import analyze_source
from shapecheck.analysis.rules import all_rules

REPO_ROOT = Path(__file__).resolve().parents[2]
SYNTAX_BUG = "import numpy as np\n\nx = np.zeros((5, 2)\n"
CLEAN = "import numpy as np\n\nx = np.zeros((5, 2))\ny = x + np.ones(2)\n"


README_REPO_URL = "https://github.com/OWNER/shapecheck"


def readme_block(heading: str, language: str) -> str:
    """The first ```language block after ``heading`` in the README, as a user would copy it."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(heading):]
    match = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert match, f"no {language} block under {heading}"
    return match.group(1)


def test_the_readme_snippet_pins_the_tag_of_this_version():
    snippet = readme_block("### pre-commit", "yaml")
    assert re.search(r"^\s*rev: (\S+)", snippet, re.M).group(1) == f"v{shapecheck.__version__}"
    assert f"repo: {README_REPO_URL}" in snippet and "- id: shapecheck" in snippet


def buggy_source() -> str:
    """SC101's own bad example once the analyzer reports it; a syntax error (SC001) before that."""
    spec = all_rules().get("SC101")
    for example in spec.bad if spec else ():
        if any(f.code == "SC101" for f in analyze_source(example.code, "buggy.py")):
            return example.code
    return SYNTAX_BUG


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t"))
    return done.stdout.strip()


def snapshot_of_this_repository(target: Path) -> str:
    """A commit of the working tree as it is now (tracked and untracked, not ignored): what a user's rev would pin."""
    listed = git(REPO_ROOT, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    for name in filter(None, listed):
        source = REPO_ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "snapshot")
    return git(target, "rev-parse", "HEAD")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.skipif(not (REPO_ROOT / ".git").exists(), reason="needs this repository's git work tree")
def test_readme_pre_commit_snippet_fails_on_a_buggy_file_and_passes_on_a_clean_one(tmp_path):
    pytest.importorskip("pre_commit")
    hook_repo = tmp_path / "hook-repo"
    hook_repo.mkdir()
    snapshot_of_this_repository(hook_repo)
    # The release tag the snippet names, as the maintainers create it on the release commit.
    git(hook_repo, "tag", "-a", f"v{shapecheck.__version__}", "-m", f"shapecheck {shapecheck.__version__}")
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    # Verbatim but for the URL: the clone stands in for the published repository.
    snippet = readme_block("### pre-commit", "yaml").replace(README_REPO_URL, hook_repo.as_posix())
    (work / ".pre-commit-config.yaml").write_text(snippet)
    (work / "model.py").write_text(buggy_source())
    git(work, "add", "-A")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), NO_COLOR="1")

    def pre_commit_run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=work, env=env,
                              capture_output=True, text=True, timeout=1500)

    failing = pre_commit_run()
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "shapecheck" in failing.stdout and "Failed" in failing.stdout
    assert "model.py" in failing.stdout and ("SC101" in failing.stdout or "SC001" in failing.stdout)

    (work / "model.py").write_text(CLEAN)
    git(work, "add", "-A")
    passing = pre_commit_run()
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout


@pytest.mark.skipif(shutil.which("ruff") is None, reason="needs ruff")
def test_readme_ruff_setting_keeps_ruff_from_deleting_shapecheck_noqa(tmp_path):
    source = "import numpy as np\n\nx = np.zeros(3)  # noqa: SC101\n"
    (tmp_path / "a.py").write_text(source)

    def ruff_fix() -> subprocess.CompletedProcess:
        return subprocess.run(["ruff", "check", "--no-cache", "--select", "RUF100,RUF102", "--fix", "a.py"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    ruff_fix()
    assert "noqa: SC101" not in (tmp_path / "a.py").read_text()  # the problem the README warns about
    (tmp_path / "a.py").write_text(source)
    (tmp_path / "pyproject.toml").write_text(readme_block("If you use ruff", "toml"))
    done = ruff_fix()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "a.py").read_text() == source
