"""Reads [tool.shapecheck] from the nearest pyproject.toml and decides which rules apply to a file."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from ..analysis.rules.unused_suppression import OFF_BY_DEFAULT

if TYPE_CHECKING:
    from ..analysis.api import AnalysisSettings

DIALECTS = ("numpy", "numpy-1", "torch", "torch-legacy")
DEFAULT_CACHE_DIR = ".shapecheck_cache"


class ConfigError(Exception):
    """A configuration or usage problem; its text is one line for the user (exit code 2)."""


@dataclass(frozen=True)
class LintConfig:
    """The effective settings for the files under one config root.

    ``select``/``ignore`` hold codes or code prefixes ("SC1", "SC101", "ALL").
    ``per_file_ignores`` pairs a glob (relative to ``root``) with codes.
    """

    root: Path
    source: Path | None = None
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    dialect: str | None = None
    shape_hints: tuple[tuple[str, str], ...] = ()
    cache_dir: Path | None = None
    respect_gitignore: bool = True

    @property
    def settings(self) -> "AnalysisSettings":
        from ..analysis.api import (
            AnalysisSettings,  # imports libcst; a warm cached run never needs it
        )

        return AnalysisSettings(dialect=self.dialect, shape_hints=self.shape_hints)

    @property
    def excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude

    def effective_cache_dir(self) -> Path:
        return self.cache_dir if self.cache_dir is not None else self.root / DEFAULT_CACHE_DIR

    def is_enabled(self, code: str, path: Path | None = None) -> bool:
        """Whether a finding with ``code`` is reported for ``path``.

        As in ruff: the most specific matching prefix wins between select and
        ignore; extend-select adds to select; per-file-ignores always remove.
        Rules that are off by default (SC003) count only when named in full.
        """
        chosen = self.select + self.extend_select
        if code in OFF_BY_DEFAULT and code not in chosen:
            return False  # only named in full: neither ALL nor a prefix turns these on
        selected = _best_match(code, chosen)
        ignored = _best_match(code, self.ignore)
        if selected < 0 or ignored >= selected:
            return False
        if path is not None and self.per_file_ignores:
            rel = _relative_posix(path, self.root)
            for pattern, codes in self.per_file_ignores:
                if _glob_matches(rel, pattern) and _best_match(code, codes) >= 0:
                    return False
        return True

    def fingerprint(self) -> str:
        """What the analysis of a file depends on, for cache keys (not selection)."""
        return repr((self.dialect, self.shape_hints))


def _best_match(code: str, prefixes: tuple[str, ...]) -> int:
    """Length of the longest prefix that matches ``code``; "ALL" counts as 0; -1 if none."""
    best = -1
    for prefix in prefixes:
        if prefix == "ALL":
            best = max(best, 0)
        elif code.startswith(prefix):
            best = max(best, len(prefix))
    return best


def _relative_posix(path: Path, root: Path) -> str:
    try:
        return PurePosixPath(Path(os.path.abspath(path)).relative_to(os.path.abspath(root))).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _glob_matches(rel: str, pattern: str) -> bool:
    """A per-file-ignores glob: a pattern without "/" matches the file name anywhere."""
    if "/" not in pattern:
        return fnmatchcase(rel.rsplit("/", 1)[-1], pattern) or fnmatchcase(rel, pattern)
    pattern = pattern.removeprefix("./")
    return fnmatchcase(rel, pattern) or fnmatchcase(rel, pattern.rstrip("/") + "/*")


KNOWN_KEYS = {
    "select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude",
    "dialect", "shapes", "cache-dir", "respect-gitignore",
}


@dataclass(frozen=True)
class Overrides:
    """Command-line settings that take precedence over every config file."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    dialect: str | None = None
    cache_dir: Path | None = None


def load_config(pyproject: Path, known_codes: frozenset[str], warnings: list[str]) -> LintConfig:
    """The [tool.shapecheck] table of one pyproject.toml; raises ConfigError on invalid values."""
    table = _read_table(pyproject)
    root = pyproject.parent
    if table is None:
        return LintConfig(root=root, source=pyproject)
    for key in table:
        if key not in KNOWN_KEYS:
            close = get_close_matches(key.replace("_", "-"), sorted(KNOWN_KEYS), n=1, cutoff=0.8)
            suggestion = f" (did you mean {close[0]!r}?)" if close else ""
            warnings.append(f"{pyproject}: unknown key [tool.shapecheck] {key!r} ignored{suggestion}")

    def where(key: str) -> str:
        return f"{pyproject}: [tool.shapecheck] {key}"

    values: dict[str, Any] = {}
    for key, attr in (("select", "select"), ("ignore", "ignore"), ("extend-select", "extend_select")):
        if key in table:
            values[attr] = _codes(table[key], known_codes, where(key))
    for key, attr in (("exclude", "exclude"), ("extend-exclude", "extend_exclude")):
        if key in table:
            values[attr] = _strings(table[key], where(key))
    if "per-file-ignores" in table:
        raw = table["per-file-ignores"]
        if not isinstance(raw, dict):
            raise ConfigError(f"{where('per-file-ignores')} must be a table of glob = [codes]")
        values["per_file_ignores"] = tuple(
            (str(glob), _codes(codes, known_codes, where(f"per-file-ignores {glob!r}")))
            for glob, codes in raw.items())
    if "dialect" in table:
        values["dialect"] = _dialect(table["dialect"], where("dialect"))
    if "shapes" in table:
        values["shape_hints"] = _shapes(table["shapes"], where("shapes"))
    if "cache-dir" in table:
        raw = table["cache-dir"]
        if not isinstance(raw, str) or not raw:
            raise ConfigError(f"{where('cache-dir')} must be a non-empty string, got {raw!r}")
        values["cache_dir"] = (root / os.path.expanduser(raw)).resolve()
    if "respect-gitignore" in table:
        raw = table["respect-gitignore"]
        if not isinstance(raw, bool):
            raise ConfigError(f"{where('respect-gitignore')} must be true or false, got {raw!r}")
        values["respect_gitignore"] = raw
    return LintConfig(root=root, source=pyproject, **values)


def _read_table(pyproject: Path) -> dict | None:
    try:
        with open(pyproject, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read {pyproject}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{pyproject}: invalid TOML: {exc}") from None
    tool = data.get("tool", {})
    table = tool.get("shapecheck") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.shapecheck] must be a table")
    return table


def _strings(raw: object, where: str) -> tuple[str, ...]:
    # A bare string is an error rather than a one-item list: "SC1, SC2" or a
    # pasted glob would otherwise be read as something the user did not write.
    if isinstance(raw, str):
        raise ConfigError(f"{where} must be a list of strings, got the string {raw!r} "
                          f"(write [{json.dumps(raw)}])")
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise ConfigError(f"{where} must be a list of strings, got {raw!r}")
    return tuple(raw)


def _codes(raw: object, known_codes: frozenset[str], where: str) -> tuple[str, ...]:
    codes = _strings(raw, where)
    return validate_codes(codes, known_codes, where)


def validate_codes(codes: tuple[str, ...], known_codes: frozenset[str], where: str) -> tuple[str, ...]:
    """Codes or prefixes, upper-cased; each must name at least one known rule."""
    out = []
    for code in codes:
        code = code.strip().upper()
        if not code:
            continue
        if code != "ALL" and not any(known.startswith(code) for known in known_codes):
            raise ConfigError(f"{where}: unknown rule code {code!r}{suggest_code(code, known_codes)} "
                              f"(see `shapecheck rules`)")
        out.append(code)
    return tuple(out)


def suggest_code(code: str, known_codes: frozenset[str]) -> str:
    """`` (did you mean 'SC101'?)`` for a near miss (SC1O1, SC1001, SC011); empty unless exactly one code is close."""
    typed = code.strip().upper()
    # The usual slips first: the letters O and l typed for the digits 0 and 1.
    repaired = typed[:2] + typed[2:].replace("O", "0").replace("L", "1").replace("I", "1")
    if repaired != typed and repaired in known_codes:
        return f" (did you mean {repaired!r}?)"
    close = [known for known in sorted(known_codes) if _one_edit_apart(typed, known)]
    return f" (did you mean {close[0]!r}?)" if len(close) == 1 else ""


def _one_edit_apart(a: str, b: str) -> bool:
    """One character inserted, deleted, replaced, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diffs) == 1 or (len(diffs) == 2 and diffs[1] == diffs[0] + 1
                                   and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]])
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _dialect(raw: object, where: str) -> str | None:
    if raw in ("auto", None):
        return None
    if raw not in DIALECTS:
        choices = ", ".join(("auto",) + DIALECTS)
        raise ConfigError(f"{where} must be one of {choices}, got {raw!r}")
    return str(raw)


def validate_dialect(raw: str, where: str) -> str | None:
    return _dialect(raw, where)


def _shapes(raw: object, where: str) -> tuple[tuple[str, str], ...]:
    from ..runtime.dims import parse_dim

    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table of name = \"d0,d1,...\"")
    out = []
    for name, text in raw.items():
        if not isinstance(text, str) or not str(name).isidentifier():
            raise ConfigError(f"{where}: {name!r} must be an identifier mapped to a string like \"B,T,C\"")
        parts = [part for part in text.replace("(", "").replace(")", "").split(",")]
        if parts and not parts[-1].strip():
            parts = parts[:-1]  # "(5,)" style trailing comma
        try:
            for part in parts:
                parse_dim(part)
        except ValueError as exc:
            raise ConfigError(f"{where}: {name} = {text!r}: {exc}") from None
        out.append((str(name), ",".join(part.strip() for part in parts)))
    return tuple(sorted(out))


def apply_overrides(config: LintConfig, overrides: Overrides) -> LintConfig:
    changes: dict[str, Any] = {}
    if overrides.select is not None:
        changes["select"] = overrides.select
    if overrides.ignore:
        changes["ignore"] = config.ignore + overrides.ignore
    if overrides.extend_select:
        changes["extend_select"] = config.extend_select + overrides.extend_select
    if overrides.exclude is not None:
        changes["exclude"] = overrides.exclude
    if overrides.extend_exclude:
        changes["extend_exclude"] = config.extend_exclude + overrides.extend_exclude
    if overrides.dialect is not None:
        changes["dialect"] = overrides.dialect
    if overrides.cache_dir is not None:
        changes["cache_dir"] = overrides.cache_dir
    return replace(config, **changes)


@dataclass
class ConfigResolver:
    """Finds each directory's config once: the nearest pyproject.toml with [tool.shapecheck].

    With ``explicit`` (from --config) every file uses that one config.
    """

    known_codes: frozenset[str]
    overrides: Overrides = field(default_factory=Overrides)
    explicit: Path | None = None
    warnings: list[str] = field(default_factory=list)
    _by_dir: dict[Path, LintConfig] = field(default_factory=dict)
    _by_file: dict[Path, LintConfig] = field(default_factory=dict)
    _explicit_config: LintConfig | None = None

    def __post_init__(self) -> None:
        if self.explicit is not None:
            if not self.explicit.is_file():
                raise ConfigError(f"config file not found: {self.explicit}")
            config = load_config(self.explicit, self.known_codes, self.warnings)
            self._explicit_config = apply_overrides(config, self.overrides)

    def for_directory(self, directory: Path) -> LintConfig:
        if self._explicit_config is not None:
            return self._explicit_config
        directory = Path(os.path.abspath(directory))
        cached = self._by_dir.get(directory)
        if cached is not None:
            return cached
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and _has_shapecheck_table(candidate):
            config = self._load(candidate)
        elif directory.parent == directory:
            config = apply_overrides(LintConfig(root=Path.cwd()), self.overrides)
        else:
            config = self.for_directory(directory.parent)
        self._by_dir[directory] = config
        return config

    def for_file(self, path: Path) -> LintConfig:
        return self.for_directory(Path(os.path.abspath(path)).parent)

    def _load(self, pyproject: Path) -> LintConfig:
        config = self._by_file.get(pyproject)
        if config is None:
            config = apply_overrides(load_config(pyproject, self.known_codes, self.warnings), self.overrides)
            self._by_file[pyproject] = config
        return config


def _has_shapecheck_table(pyproject: Path) -> bool:
    """Cheap text test first; a file that mentions it is parsed (and must then be valid)."""
    try:
        text = pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "shapecheck" in text and _read_table(pyproject) is not None
