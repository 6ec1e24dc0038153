"""Reading and running rule examples: the `# error: SCxxx` markers, and the snippet on the real library."""

from __future__ import annotations

import re
import warnings

import pytest

MARKER = re.compile(r"#\s*error:\s*(SC\d{3})")


def marked(code_text: str) -> list[tuple[int, str]]:
    """(line, code) for every line an example marks as reported."""
    return [(n, m.group(1)) for n, line in enumerate(code_text.splitlines(), 1)
            if (m := MARKER.search(line))]


def run(example) -> BaseException | None:
    """Execute one of our own rule examples (never user input) and return what it raised."""
    if example.library == "torch":
        pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(example.code, "<example>", "exec"), {})
        except BaseException as exc:  # noqa: BLE001 - the example's failure is the evidence
            return exc
    return None
