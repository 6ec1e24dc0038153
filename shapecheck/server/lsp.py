"""The Language Server over stdio (pygls): diagnostics, hovers, inlay hints and code actions.

Each open document is analyzed as ``lint`` analyzes a file (the same
configuration, selection, suppressions and cache: server/documents.py) in
one worker thread, so the protocol keeps answering while a big file is
walked. Edits are debounced: the analysis starts when the user has paused
for ``debounceMs`` (300 ms unless the client says otherwise). A hover, an
inlay hint or a code action waits for the pending analysis of its document,
so it never answers from text that has changed since.

Initialization options (all optional): ``inlayHints`` (bool, default true),
``debounceMs`` (int), ``config`` (a pyproject.toml for every file, as
``lint --config``), ``cache`` (bool, default true).

Whatever one document does (a syntax error, bytes that are no text, a
broken pyproject.toml, an analyzer bug), the server answers with a
diagnostic or one log line, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from ..analysis.findings import Finding
from ..lint.formats.message import message_of
from .documents import Analysis, DocumentAnalyzer, fix_edit, hover_text, inlay_hints, span_range

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "info": types.DiagnosticSeverity.Information}
HOVER_WAIT = 30.0  # seconds a request waits for its document's pending analysis


@dataclass
class ServerOptions:
    inlay_hints: bool = True
    debounce: float = 0.3
    config: Path | None = None
    cache: bool = True

    @classmethod
    def from_client(cls, raw: Any) -> "ServerOptions":
        options = cls()
        if not isinstance(raw, dict):
            return options
        if isinstance(raw.get("inlayHints"), bool):
            options.inlay_hints = raw["inlayHints"]
        if isinstance(raw.get("debounceMs"), (int, float)) and raw["debounceMs"] >= 0:
            options.debounce = raw["debounceMs"] / 1000
        if isinstance(raw.get("config"), str) and raw["config"]:
            options.config = Path(raw["config"])
        if isinstance(raw.get("cache"), bool):
            options.cache = raw["cache"]
        return options


class ShapecheckServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("shapecheck", __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.options = ServerOptions()
        self.analyzer = DocumentAnalyzer()
        self.results: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.told: dict[str, str] = {}  # uri -> the configuration problem last logged for it
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shapecheck-analysis")

    def configure(self, options: ServerOptions) -> None:
        self.options = options
        self.analyzer = DocumentAnalyzer(options.config, options.cache)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=f"shapecheck: {message}"))
        except Exception:
            pass  # the client went away: nobody to tell

    # ---------------------------------------------------------------- analysis

    def schedule(self, uri: str, delay: float) -> None:
        """(Re)start the debounce timer of ``uri``: the last edit of a burst wins. A notebook's
        JSON is not Python: editors send its cells as documents of their own."""
        if uri.endswith(".ipynb"):
            return
        previous = self.pending.pop(uri, None)
        if previous is not None and not previous.done():
            previous.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._analyze_later(uri, delay))

    async def _analyze_later(self, uri: str, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            document = self.workspace.get_text_document(uri)
            text, version = document.source, document.version
            path = to_fs_path(uri) or uri
            loop = asyncio.get_running_loop()
            analysis = await loop.run_in_executor(self.worker, self.analyzer.analyze, path, text, version)
            self.results[uri] = analysis
            if analysis.error and self.told.get(uri) != analysis.error:  # once, not at every keystroke
                self.log(f"{path}: {analysis.error}; using the default settings")
            self.told[uri] = analysis.error or ""
            self.publish(uri, analysis.findings, analysis.text, version)
            if self.options.inlay_hints and self._client_refreshes_hints():
                self.workspace_inlay_hint_refresh(None)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never a traceback in the client's log: one line instead
            self.log(f"cannot analyze {uri}: {type(exc).__name__}: {exc}".splitlines()[0],
                     types.MessageType.Error)

    def _client_refreshes_hints(self) -> bool:
        workspace = self.client_capabilities.workspace
        hints = workspace.inlay_hint if workspace is not None else None
        return bool(hints is not None and hints.refresh_support)

    async def current(self, uri: str) -> Analysis | None:
        """The analysis of the document as it is now: waits for a pending one."""
        task = self.pending.get(uri)
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), HOVER_WAIT)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass
        analysis = self.results.get(uri)
        if analysis is None or self.workspace.get_text_document(uri).source != analysis.text:
            return None  # changed since, and the analysis of the change is not done: no stale answers
        return analysis

    def publish(self, uri: str, findings: list[Finding], text: str, version: int | None) -> None:
        lines = text.splitlines(keepends=True)
        diagnostics = [self.diagnostic(f, lines) for f in findings]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics, version=version))

    def to_client(self, lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> types.Range:
        return self.workspace.position_codec.range_to_client_units(lines, types.Range(
            start=types.Position(line=start[0], character=start[1]),
            end=types.Position(line=end[0], character=end[1])))

    def diagnostic(self, finding: Finding, lines: list[str]) -> types.Diagnostic:
        message = message_of(finding)
        return types.Diagnostic(range=self.to_client(lines, *span_range(finding.span)),
                                message="\n".join((message.headline, *message.details)),
                                severity=_SEVERITY[finding.severity.value], code=finding.code,
                                source="shapecheck")


server = ShapecheckServer()


@server.feature(types.INITIALIZE)
def initialize(ls: ShapecheckServer, params: types.InitializeParams) -> None:
    ls.configure(ServerOptions.from_client(params.initialization_options))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: ShapecheckServer, params: types.DidOpenTextDocumentParams) -> None:
    document = params.text_document
    try:
        cached = ls.analyzer.cached(to_fs_path(document.uri) or document.uri, document.text)
        if cached is not None:  # lint saw this very text: show its findings at once
            ls.publish(document.uri, cached, document.text, document.version)
    except Exception:
        pass
    ls.schedule(document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: ShapecheckServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, ls.options.debounce)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: ShapecheckServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)  # other files may import it: configuration may differ too


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: ShapecheckServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.results.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: ShapecheckServer, params: types.HoverParams) -> types.Hover | None:
    try:
        analysis = await ls.current(params.text_document.uri)
        if analysis is None:
            return None
        lines = analysis.text.splitlines(keepends=True)
        at = ls.workspace.position_codec.position_from_client_units(lines, params.position)
        found = hover_text(analysis, (at.line, at.character))
        if found is None:
            return None
        text, (start, end) = found
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                           range=ls.to_client(lines, start, end))
    except Exception as exc:
        ls.log(f"hover failed: {type(exc).__name__}: {exc}".splitlines()[0], types.MessageType.Error)
        return None


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
async def inlay_hint(ls: ShapecheckServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    if not ls.options.inlay_hints:
        return []
    try:
        analysis = await ls.current(params.text_document.uri)
        if analysis is None:
            return []
        lines = analysis.text.splitlines(keepends=True)
        hints = []
        for hint in inlay_hints(analysis, params.range.start.line, params.range.end.line):
            where = ls.to_client(lines, hint.position, hint.position).start
            hints.append(types.InlayHint(position=where, label=hint.label, kind=types.InlayHintKind.Type,
                                         tooltip=hint.tooltip, padding_left=False))
        return hints
    except Exception as exc:
        ls.log(f"inlay hints failed: {type(exc).__name__}: {exc}".splitlines()[0], types.MessageType.Error)
        return []


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
async def code_action(ls: ShapecheckServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    try:
        uri = params.text_document.uri
        analysis = await ls.current(uri)
        if analysis is None:
            return []
        lines = analysis.text.splitlines(keepends=True)
        first, last = params.range.start.line, params.range.end.line
        actions = []
        for finding in analysis.findings:
            (start_line, _), (end_line, _) = span_range(finding.span)
            if finding.fix is None or end_line < first or start_line > last:
                continue
            edit = fix_edit(analysis, finding.fix)
            if edit is None:
                continue
            start, end, new_text = edit
            change = types.TextEdit(range=ls.to_client(lines, start, end), new_text=new_text)
            actions.append(types.CodeAction(
                title=f"{finding.fix.title} ({finding.code})", kind=types.CodeActionKind.QuickFix,
                diagnostics=[ls.diagnostic(finding, lines)], is_preferred=True,
                edit=types.WorkspaceEdit(changes={uri: [change]})))
        return actions
    except Exception as exc:
        ls.log(f"code actions failed: {type(exc).__name__}: {exc}".splitlines()[0], types.MessageType.Error)
        return []


def serve() -> int:
    """Runs the server on stdin/stdout until the client says exit."""
    logging.basicConfig(level=logging.ERROR, format="shapecheck server: %(message)s")
    server.start_io()
    return 0


__all__ = ["ServerOptions", "ShapecheckServer", "serve", "server"]
