"""The AgentLTL language server (pygls over lsprotocol), started by `policyc lsp`.

Features: the checker's diagnostics on open, change and save (with ranges, related
locations for labels, and the help line); hover (a tool's signature and the rules that
name it, a rule's class, severity and weight, a predicate's or macro's header); go to
definition (tools, predicates, macros, procedures, types, layers, rules, and names from
imports and the standard library); document formatting (`policyc fmt`).

Each server keeps the analysis of each open document on itself (`PolicyServer.analyses`),
keyed by URI and replaced on every change; nothing is shared between servers.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from policyc import __version__
from policyc.diagnostics import Diagnostic, Severity
from policyc.lsp.analysis import Analysis, analyse, definition, formatted, hover

_SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
             Severity.NOTE: types.DiagnosticSeverity.Information}


#: Seconds a document must stay unchanged before its diagnostics are published: edits that
#: come in a burst (typing, or changes queued while an analysis ran) are analysed once, in
#: their last version, not one after the other.
PUBLISH_DELAY = 0.2


class PolicyProtocol(LanguageServerProtocol):
    """pygls's protocol, answering a failed request without the Python traceback pygls puts
    in the error's data: the editor is told what failed, never the server's insides."""

    def _send_response(self, msg_id: int | str, result: object = None,
                       error: types.ResponseError | None = None) -> None:
        if error is not None and error.data is not None:
            error = types.ResponseError(code=error.code, message=error.message)
        super()._send_response(msg_id, result, error)


class PolicyServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("policyc", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full,
                         protocol_cls=PolicyProtocol)
        self.analyses: dict[str, Analysis] = {}
        self._due: dict[str, asyncio.TimerHandle] = {}  # documents whose diagnostics are to be published

    def schedule(self, uri: str) -> None:
        """Publish the diagnostics of `uri` once it has stayed unchanged for PUBLISH_DELAY."""
        self.unschedule(uri)
        self._due[uri] = asyncio.get_running_loop().call_later(PUBLISH_DELAY, self._publish_due, uri)

    def unschedule(self, uri: str) -> None:
        handle = self._due.pop(uri, None)
        if handle is not None:
            handle.cancel()

    def _publish_due(self, uri: str) -> None:
        self._due.pop(uri, None)
        try:
            self.publish(uri)
        except Exception as exc:  # noqa: BLE001 - told to the editor as pygls tells a failed notification
            logging.getLogger("pygls").error("publishing the diagnostics of %s failed: %s", uri, type(exc).__name__)
            self.report_server_error(exc, FeatureNotificationError)

    def path_of(self, uri: str) -> str:
        return to_fs_path(uri) or uri

    def analysis(self, uri: str) -> Analysis:
        document = self.workspace.get_text_document(uri)
        current = self.analyses.get(uri)
        if current is None or current.text != document.source:
            current = self.analyses[uri] = analyse(document.source, self.path_of(uri))
        return current

    # ---------------------------------------------------------- positions

    def _lines_of(self, path: str, analysis: Analysis, read: dict[str, list[str]] | None = None) -> list[str]:
        """The lines of a file a position is in; `read` keeps the files read so far (a
        diagnostic per rule of an imported file reads that file once, not once per rule)."""
        if path == analysis.path:
            return analysis.text.split("\n")
        if read is not None and path in read:
            return read[path]
        try:
            lines = Path(path).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError):
            lines = []
        if read is not None:
            read[path] = lines
        return lines

    def to_range(self, lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> types.Range:
        codec = self.workspace.position_codec
        return types.Range(start=codec.position_to_client_units(lines, types.Position(*start)),
                           end=codec.position_to_client_units(lines, types.Position(*end)))

    def from_position(self, uri: str, position: types.Position) -> tuple[int, int]:
        document = self.workspace.get_text_document(uri)
        server = document.position_codec.position_from_client_units(document.lines, position)
        return server.line, server.character

    # ---------------------------------------------------------- diagnostics

    def lsp_diagnostic(self, d: Diagnostic, analysis: Analysis, lines: list[str], uri: str,
                       read: dict[str, list[str]]) -> types.Diagnostic:
        message = d.message
        if d.span is not None and d.span.path == analysis.path:
            where = self.to_range(lines, (d.span.line - 1, d.span.column - 1), (d.span.end_line - 1, d.span.end_column - 1))
        else:
            where = self.to_range(lines, (0, 0), (0, 0))
            if d.span is not None:
                message = f"{message} (in {d.span})"
        related = []
        for label in d.labels:
            if label.span.path.startswith("<"):
                continue
            label_lines = self._lines_of(label.span.path, analysis, read)
            other = from_fs_path(str(Path(label.span.path).resolve())) if label.span.path != analysis.path else None
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=other or uri,
                                        range=self.to_range(label_lines, (label.span.line - 1, label.span.column - 1),
                                                            (label.span.end_line - 1, label.span.end_column - 1))),
                message=label.message))
        extra = [f"note: {n}" for n in d.notes] + ([f"help: {d.help}"] if d.help else [])
        return types.Diagnostic(range=where, message="\n".join([message, *extra]), severity=_SEVERITY[d.severity],
                                code=d.code, source="policyc", related_information=related or None,
                                data=dict(d.fields) or None)

    def publish(self, uri: str) -> None:
        analysis = self.analysis(uri)
        lines = analysis.text.split("\n")
        read: dict[str, list[str]] = {}
        diagnostics = [self.lsp_diagnostic(d, analysis, lines, uri, read) for d in analysis.diagnostics]
        version = self.workspace.get_text_document(uri).version
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics))


def stdlib_path(path: str) -> str:
    """The file behind the standard library's virtual path (`<stdlib>/prelude.altl`)."""
    if path.startswith("<stdlib>/"):
        from policyc.resources import stdlib_dir

        return str(stdlib_dir() / path.split("/", 1)[1])
    return path


def make_server() -> PolicyServer:
    server = PolicyServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PolicyServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PolicyServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PolicyServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.analyses.pop(params.text_document.uri, None)  # imported files may have changed
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PolicyServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.unschedule(params.text_document.uri)
        ls.analyses.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri,
                                                                            diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: PolicyServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        text = hover(ls.analysis(uri), *ls.from_position(uri, params.position))
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: PolicyServer, params: types.DefinitionParams) -> types.Location | None:
        uri = params.text_document.uri
        analysis = ls.analysis(uri)
        found = definition(analysis, *ls.from_position(uri, params.position))
        if found is None:
            return None
        path, line, column, end_line, end_column = found
        if path == analysis.path:
            target = uri
        else:
            path = stdlib_path(path)
            target = from_fs_path(str(Path(path).resolve()))
        lines = ls._lines_of(path, analysis)
        return types.Location(uri=target, range=ls.to_range(lines, (line, column), (end_line, end_column)))

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    def on_formatting(ls: PolicyServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        uri = params.text_document.uri
        document = ls.workspace.get_text_document(uri)
        out = formatted(document.source, ls.path_of(uri))
        if out is None:
            return None
        if out == document.source:
            return []
        lines = document.source.split("\n")
        whole = ls.to_range(lines, (0, 0), (len(lines) - 1, len(lines[-1])))
        return [types.TextEdit(range=whole, new_text=out)]

    return server


def serve_stdio(stdin: int = 0, stdout=None) -> None:
    """Serve the editor on standard input and output (file descriptor `stdin`, binary
    `stdout`) until it exits. Frames are read by `policyc.lsp.framing`, which answers every
    request it cannot handle, instead of pygls's reader, which trusts every header."""
    import asyncio
    import os
    import sys
    import threading

    from pygls.io_ import StdoutWriter

    from policyc.lsp.framing import read_frames

    _quiet_logs()
    server = make_server()
    server._stop_event = stop = threading.Event()  # what pygls's shutdown sets
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

    async def main() -> None:
        # a daemon thread reads: one blocked in `read` neither delays the exit nor is waited for
        loop = asyncio.get_running_loop()
        chunks: asyncio.Queue[bytes] = asyncio.Queue()

        def pump() -> None:
            data = b"x"
            while data:
                try:
                    data = os.read(stdin, 1 << 16)
                except OSError:
                    data = b""
                try:
                    loop.call_soon_threadsafe(chunks.put_nowait, data)
                except RuntimeError:  # the loop has closed: the server is done
                    return

        threading.Thread(target=pump, name="policyc-lsp-stdin", daemon=True).start()
        await read_frames(chunks.get, server.protocol, stop)

    try:
        asyncio.run(main())
    except BrokenPipeError:
        pass  # the editor went away
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


def _quiet_logs() -> None:
    """pygls logs what it cannot read with a traceback in the message; the server's log on
    standard error says it in one line (the client is answered with the error itself)."""
    import logging
    import sys

    class OneLine(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            text = record.getMessage().splitlines()
            return f"policyc lsp: {record.levelname.lower()}: {text[0] if text else ''}"

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    for name in ("pygls", "lsprotocol"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(logging.WARNING)
        logger.propagate = False
