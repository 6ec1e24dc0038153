"""End to end with a real LSP client: diagnostics on open and on change, hovers, inlay hints, fixes, robustness."""

from __future__ import annotations

import asyncio
import time

import pytest

from lsp_session import Session, run

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402

from shapecheck.analysis.api import analyze_source  # noqa: E402

BUGGY = """\
import torch


def attend(x: torch.Tensor):
    B, T, C = x.shape
    w = torch.ones(C, 8)
    h = x @ w
    return h + torch.ones(T, 3)
"""

DEBOUNCE_MS = 400


def uri_of(path) -> str:
    return path.as_uri()


def codes(diagnostics) -> list[tuple[int, str]]:
    return [(d.range.start.line, d.code) for d in diagnostics]


def test_open_hover_edit_and_fix_in_one_session(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(BUGGY)
    uri = uri_of(path)

    async def session():
        async with Session({"debounceMs": DEBOUNCE_MS}) as lsp:
            lsp.open(uri, BUGGY)
            _, found = await lsp.diagnostics_for(uri, version=1)
            assert codes(found) == [(7, "SC101")]
            assert found[0].source == "shapecheck" and found[0].severity == types.DiagnosticSeverity.Error
            assert found[0].message.startswith("cannot broadcast (B, T, 8) with (T, 3)")

            hover = await lsp.hover(uri, 6, 4)  # on `h`
            assert hover.contents.value == "`h`: (B, T, 8) torch, dtype unknown"
            on_w = await lsp.hover(uri, 6, 12)  # on `w` in `x @ w`
            assert on_w.contents.value == "`w`: (C, 8) float32 torch, from line 6"
            assert (on_w.range.start.line, on_w.range.start.character, on_w.range.end.character) == (6, 12, 13)
            on_op = await lsp.hover(uri, 6, 10)  # on the `@`: the whole product
            assert on_op.contents.value == "`x @ w`: (B, T, 8) torch, dtype unknown"

            # An edit fixes that bug and makes another: the new diagnostic comes after one debounce.
            edited = BUGGY.replace("torch.ones(T, 3)", "torch.ones(T, 8)").replace(
                "    h = x @ w\n", "    h = x @ w\n    g = h + torch.ones(7)\n")
            sent = time.monotonic()
            lsp.replace_all(uri, edited, 2)
            arrived, found = await lsp.diagnostics_for(uri, version=2, after=sent)
            assert codes(found) == [(7, "SC101")] and "(B, T, 8) with (7,)" in found[0].message
            assert arrived - sent >= DEBOUNCE_MS / 1000 * 0.9  # not before the user paused
            assert arrived - sent < DEBOUNCE_MS / 1000 + 20  # and then as soon as the analysis is done
    run(session())


def test_a_burst_of_edits_is_analyzed_once_for_its_last_version(tmp_path):
    path = tmp_path / "burst.py"
    text = "import numpy as np\nx = np.ones((3, 4))\n"
    path.write_text(text)
    uri = uri_of(path)

    async def session():
        async with Session({"debounceMs": DEBOUNCE_MS}) as lsp:
            lsp.open(uri, text)
            await lsp.diagnostics_for(uri, version=1)
            sent = time.monotonic()
            for version in range(2, 7):
                lsp.replace_all(uri, text + f"y = x + np.ones({version})\n", version)
                await asyncio.sleep(DEBOUNCE_MS / 1000 / 8)
            _, found = await lsp.diagnostics_for(uri, version=6, after=sent)
            assert "with (6,)" in found[0].message
            await asyncio.sleep(DEBOUNCE_MS / 1000 * 2)
            published = [p.version for when, p in lsp.diagnostics[uri] if when > sent]
            assert published == [6]  # the intermediate versions were never analyzed
    run(session())


def test_inlay_hints_show_shapes_after_assignments_and_can_be_switched_off(tmp_path):
    path = tmp_path / "hints.py"
    text = "import numpy as np\nx = np.ones((3, 4))\nq, k = x[0], x[1]\ns = 'text'\n"
    path.write_text(text)
    uri = uri_of(path)

    async def session(options):
        async with Session(options) as lsp:
            lsp.open(uri, text)
            await lsp.diagnostics_for(uri, version=1)
            return [(h.position.line, h.position.character, h.label) for h in await lsp.inlay_hints(uri)]

    def collect(options):
        found = []

        async def go():
            found.extend(await session(options))
        run(go())
        return found

    assert collect({}) == [(1, 1, ": (3, 4)"), (2, 1, ": (4,)"), (2, 4, ": (4,)")]
    assert collect({"inlayHints": False}) == []


def test_a_code_action_applies_the_certain_fix_and_the_result_lints_clean(tmp_path):
    text = ("import numpy as np\n"
            "x = np.arange(16.0).reshape(4, 4)\n"
            "centered = x - x.mean(axis=1)  # per-row centring\n")
    path = tmp_path / "fix.py"
    path.write_text(text)
    uri = uri_of(path)

    async def session():
        async with Session() as lsp:
            lsp.open(uri, text)
            _, found = await lsp.diagnostics_for(uri, version=1)
            assert codes(found) == [(2, "SC103")]
            assert await lsp.code_actions(uri, 0) == []
            [action] = await lsp.code_actions(uri, 2)
            assert action.title == "add keepdims=True (SC103)" and action.kind == types.CodeActionKind.QuickFix
            [edit] = action.edit.changes[uri]
            lines = text.splitlines(keepends=True)
            line = lines[edit.range.start.line]
            lines[edit.range.start.line] = line[:edit.range.start.character] + edit.new_text + \
                line[edit.range.end.character:]
            fixed = "".join(lines)
            assert fixed == text.replace("x.mean(axis=1)", "x.mean(axis=1, keepdims=True)")
            assert analyze_source(fixed, "fix.py") == []
    run(session())


def test_syntax_errors_binary_text_and_broken_config_give_diagnostics_not_tracebacks(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.shapecheck]\nselect = \"SC1\"\n")  # a str, not a list
    broken, binary, elsewhere = tmp_path / "broken.py", tmp_path / "blob.py", tmp_path / "gone" / "x.py"

    async def session():
        async with Session() as lsp:
            lsp.open(uri_of(broken), "import numpy as np\nx = (1,\n")
            lsp.open(uri_of(binary), "x = 1\n\0\0\0")
            lsp.open(uri_of(elsewhere), "import numpy as np\ny = np.ones(2) + np.ones(3)\n")
            _, syntax = await lsp.diagnostics_for(uri_of(broken), version=1)
            _, unreadable = await lsp.diagnostics_for(uri_of(binary), version=1)
            _, other = await lsp.diagnostics_for(uri_of(elsewhere), version=1)
            assert codes(syntax) == [(1, "SC001")] and "was never closed" in syntax[0].message
            assert [d.code for d in unreadable] == ["SC002"]
            assert codes(other) == [(1, "SC101")]
            assert await lsp.hover(uri_of(broken), 1, 0) is None
            return lsp

    lsp_holder = []

    async def go():
        lsp_holder.append(await session())
    run(go())
    lsp = lsp_holder[0]
    assert "Traceback" not in lsp.stderr and not any("Traceback" in m for m in lsp.logs)
    # The broken pyproject.toml is said once per analysis in one line; the defaults apply meanwhile.
    assert any("select" in m and "using the default settings" in m for m in lsp.logs)
