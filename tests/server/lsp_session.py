"""A real LSP client (pygls's own) driving ``python -m shapecheck server`` over stdio, for the tests."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


class Session:
    """One server process; records every diagnostics notification and log message it sends."""

    def __init__(self, options: dict | None = None, capabilities: types.ClientCapabilities | None = None):
        self.options = options or {}
        self.capabilities = capabilities or types.ClientCapabilities()
        self.client = LanguageClient("shapecheck-tests", "1")
        self.diagnostics: dict[str, list[tuple[float, types.PublishDiagnosticsParams]]] = {}
        self.logs: list[str] = []
        self.stderr = ""

        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics.setdefault(params.uri, []).append((time.monotonic(), params))

        def on_log(params: types.LogMessageParams) -> None:
            self.logs.append(params.message)

        self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(on_diagnostics)
        self.client.feature(types.WINDOW_LOG_MESSAGE)(on_log)

    async def __aenter__(self) -> "Session":
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        await self.client.start_io(sys.executable, "-m", "shapecheck", "server", env=env)
        self.init = await self.client.initialize_async(types.InitializeParams(
            capabilities=self.capabilities, initialization_options=self.options))
        self.client.initialized(types.InitializedParams())
        return self

    async def __aexit__(self, *exc) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 20)
            self.client.exit(None)
        finally:
            await asyncio.wait_for(self.client.stop(), 20)
            self.stderr = (await self.client._server.stderr.read()).decode("utf-8", "replace")

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))

    def replace_all(self, uri: str, text: str, version: int) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnostics_for(self, uri: str, version: int | None = None, after: float = 0.0,
                              timeout: float = 60.0) -> tuple[float, list[types.Diagnostic]]:
        """The first diagnostics of ``uri`` (for ``version``) published after ``after``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for when, params in self.diagnostics.get(uri, []):
                if when > after and (version is None or params.version == version):
                    return when, list(params.diagnostics)
            await asyncio.sleep(0.02)
        raise AssertionError(f"no diagnostics for {uri} version {version}")

    async def hover(self, uri: str, line: int, character: int) -> types.Hover | None:
        return await self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character)))

    async def inlay_hints(self, uri: str, last_line: int = 1000) -> list[types.InlayHint]:
        hints = await self.client.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0),
                              end=types.Position(line=last_line, character=0))))
        return list(hints or [])

    async def code_actions(self, uri: str, line: int) -> list[types.CodeAction]:
        where = types.Position(line=line, character=0)
        actions = await self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=where, end=where),
            context=types.CodeActionContext(diagnostics=[])))
        return list(actions or [])


def run(coroutine) -> None:
    asyncio.run(asyncio.wait_for(coroutine, 240))
