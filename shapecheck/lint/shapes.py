"""``shapecheck shapes FILE[:FUNCTION]``: what the analyzer believes each array-valued name is, line by line.

The file is analyzed exactly as ``lint`` does (same configuration, dialect
and shape hints); the walk's recorder keeps the value of every binding
(analysis/reveal.py), listed here in source order under its function.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE
from .config import ConfigError, Overrides, validate_dialect

_BROKEN = ("SC001", "SC002", "SC099")  # no beliefs to list: the file did not parse or analyze


def split_target(target: str) -> tuple[Path, str | None]:
    """``model.py:GPT.forward`` -> (model.py, "GPT.forward"); a path that exists is taken whole."""
    if Path(target).exists() or ":" not in target:
        return Path(target), None
    path, _, function = target.rpartition(":")
    return Path(path), function.strip() or None


def shapes_command(target: str, *, config: Path | None = None, dialect: str | None = None,
                   output_format: str = "text") -> int:
    from ..analysis.reveal import ShapeRecorder
    from ..analysis.shape_listing import bound_names, function_names, in_function
    from .runner import analyze_bytes, kind_of, known_codes

    path, function = split_target(target)
    try:
        overrides = Overrides(dialect=validate_dialect(dialect, "--dialect") if dialect else None)
        from .config import ConfigResolver

        resolved = ConfigResolver(known_codes(), overrides, config).for_file(path)
        data = path.read_bytes()
    except ConfigError as exc:
        return _usage(str(exc))
    except OSError as exc:
        return _usage(f"cannot read {path}: {exc.strerror or type(exc).__name__}")
    recorder = ShapeRecorder(bindings=True)
    findings, _, program = analyze_bytes(str(path), data, kind_of(str(path)), resolved, recorder)
    broken = [f for f in findings if f.code in _BROKEN]
    if broken:
        for finding in broken:
            print(f"{path}:{finding.line}:{finding.column}: {finding.code} {finding.message}", file=sys.stderr)
        return EXIT_FINDINGS
    bound = bound_names(recorder)
    if function is not None:
        known = function_names(recorder)
        if not any(name == function or name.endswith("." + function) for name in known):
            from difflib import get_close_matches

            by_spelling = {spelled: name for name in known for spelled in (name, name.rpartition(".")[2])}
            close = get_close_matches(function, list(by_spelling), n=1)
            hint = f" (did you mean {by_spelling[close[0]]}?)" if close else ""
            return _usage(f"no function {function!r} in {path}{hint}")
        bound = [b for b in bound if in_function(b, function)]
    if output_format == "json":
        rows = []
        for b in bound:
            row = {"path": str(path), **b.to_json()}
            if program is not None:
                index, line = program.locate(b.span.line)
                row.update(cell=program.cells[index].number, line=line)
            rows.append(row)
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_CLEAN
    sys.stdout.write(render_listing(str(path), bound, program))
    return EXIT_CLEAN


def render_listing(path: str, bound: list, program=None) -> str:
    """The text form: a header per function, then ``line  name: belief`` and the callers' values."""
    lines = [f"{path}"]
    current: str | None = None
    width = max((len(_where(b, program)) for b in bound), default=1)
    for b in bound:
        if b.function != current:
            current = b.function
            lines.append(f"  {current or '(module)'}")
        where = _where(b, program)
        lines.append(f"    {where:>{width}}  {b.name}: {b.head}")
        lines.extend(f"    {'':>{width}}      {detail}" for detail in b.details)
    if not bound:
        lines.append("  (no array-valued names)")
    return "\n".join(lines) + "\n"


def _where(bound, program) -> str:
    if program is None:
        return str(bound.span.line)
    index, line = program.locate(bound.span.line)
    return f"cell {program.cells[index].number}:{line}"


def _usage(message: str) -> int:
    print(f"shapecheck: error: {message}", file=sys.stderr)
    return EXIT_USAGE


__all__ = ["shapes_command", "split_target", "render_listing"]
