"""The runner: persistent cache keyed by content and settings, process pool equal to serial, per-file isolation."""

from __future__ import annotations

from pathlib import Path

from shapecheck.analysis.findings import Finding, Severity, Span
from shapecheck.lint import runner
from shapecheck.lint.cache import Cache, cache_key
from shapecheck.lint.config import Overrides
from shapecheck.lint.runner import LintOptions, run_lint

SYNTAX_BUG = "x = (1,\n"


def lint(paths=(), **kwargs):
    return run_lint(LintOptions(paths=tuple(Path(p) for p in paths), **kwargs))


def test_second_run_reads_the_cache_and_reports_the_same_findings(project):
    (project / "bad.py").write_text(SYNTAX_BUG)
    (project / "ok.py").write_text("y = 2\n")
    cold = lint()
    assert cold.cache_hits == 0
    warm = lint()
    assert warm.cache_hits == 2
    assert warm.findings == cold.findings
    assert (project / ".shapecheck_cache" / "CACHEDIR.TAG").exists()
    assert (project / ".shapecheck_cache" / ".gitignore").read_text() == "*\n"


def test_changed_content_or_analysis_settings_miss_the_cache(project):
    (project / "a.py").write_text("y = 2\n")
    lint()
    (project / "a.py").write_text(SYNTAX_BUG)
    changed = lint()
    assert changed.cache_hits == 0 and [f.code for f in changed.findings] == ["SC001"]
    assert lint(overrides=Overrides(dialect="torch")).cache_hits == 0
    assert lint(overrides=Overrides(dialect="torch")).cache_hits == 1


def test_selection_and_suppressions_apply_after_the_cache(project):
    (project / "a.py").write_text(SYNTAX_BUG)
    lint()
    ignored = lint(overrides=Overrides(ignore=("SC001",)))
    assert ignored.cache_hits == 1 and ignored.findings == []


def test_no_cache_neither_reads_nor_writes(project):
    (project / "a.py").write_text("y = 2\n")
    report = lint(use_cache=False)
    assert report.cache_hits == 0 and not (project / ".shapecheck_cache").exists()


def test_cache_dir_from_config_is_used(project):
    (project / "pyproject.toml").write_text('[tool.shapecheck]\ncache-dir = "elsewhere"\n')
    (project / "a.py").write_text("y = 2\n")
    lint()
    assert (project / "elsewhere" / "CACHEDIR.TAG").exists()
    assert not (project / ".shapecheck_cache").exists()


def test_damaged_cache_entry_is_recomputed(project):
    cache = Cache(project / "c")
    key = cache_key(b"data", "python", "fp")
    finding = Finding("p.py", Span(1, 2, 3, 4), "SC101", "n", Severity.WARNING, "m", cell=2,
                      related=(("q.py", 7),))
    cache.put(key, [finding])
    assert cache.get(key, "p.py") == [finding]
    next((project / "c").rglob(f"{key}.json")).write_text("{broken")
    assert cache.get(key, "p.py") is None


def test_cache_key_depends_on_content_kind_and_settings():
    base = cache_key(b"x = 1\n", "python", "a")
    assert base == cache_key(b"x = 1\n", "python", "a")
    assert len({base, cache_key(b"x = 2\n", "python", "a"), cache_key(b"x = 1\n", "notebook", "a"),
                cache_key(b"x = 1\n", "python", "b")}) == 4


def test_process_pool_gives_the_same_report_as_a_serial_run(project, monkeypatch):
    for i in range(12):
        (project / f"m{i:02}.py").write_text(SYNTAX_BUG if i % 3 == 0 else f"v{i} = {i}\n")
    (project / "blob.py").write_bytes(b"\x00\xff")
    serial = lint(jobs=1, use_cache=False)
    monkeypatch.setattr(runner, "SERIAL_MAX_FILES", 0)
    monkeypatch.setattr(runner, "SERIAL_MAX_BYTES", 0)
    pooled = lint(jobs=2, use_cache=False)
    assert pooled.findings == serial.findings
    assert [f.path for f in pooled.findings] == ["blob.py", "m00.py", "m03.py", "m06.py", "m09.py"]


def test_a_crash_in_one_file_becomes_sc099_and_the_run_goes_on(project, monkeypatch):
    (project / "a.py").write_text("x = 1\n")
    (project / "b.py").write_text(SYNTAX_BUG)
    real = runner.analyze_bytes

    def explode_on_a(path, data, kind, config, coverage=None, imported=None):
        if path == "a.py":
            raise RuntimeError("boom")
        return real(path, data, kind, config, coverage, imported)

    monkeypatch.setattr(runner, "analyze_bytes", explode_on_a)
    report = lint(use_cache=False)
    assert [(f.path, f.code) for f in report.findings] == [("a.py", "SC099"), ("b.py", "SC001")]
    assert "boom" in report.findings[0].message


def test_undecodable_file_is_sc002_at_the_line_of_the_bad_byte(project):
    (project / "latin.py").write_bytes(b"a = 1\nb = 2\ns = '\xe9'\n")
    report = lint(use_cache=False)
    [finding] = report.findings
    assert (finding.code, finding.line) == ("SC002", 3)
    assert "0xe9" in finding.message


def test_encoding_cookie_is_honoured(project):
    (project / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\ns = '\xe9'\n")
    assert lint(use_cache=False).findings == []
