"""The language server over the real protocol: `python -m policyc lsp` in a subprocess,
driven by pygls's own client over its pipes (initialize, didOpen, didChange, hover,
definition, formatting, shutdown)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path


import pytest

from lazy import lazy, needs
from policyc.diagnostics import Source
from policyc.fmt import format_module
from policyc.resources import stdlib_dir
from policyc.syntax import parse_source

pytestmark = [needs("pygls", "lsprotocol", extra="lsp"), pytest.mark.slow]  # servers and clusters in subprocesses
types, client_module, uris = lazy("lsprotocol.types"), lazy("pygls.lsp.client"), lazy("pygls.uris")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TIMEOUT = 30


class Session:
    """A client connected to a server process, collecting the diagnostics it publishes."""

    def __init__(self, client) -> None:
        self.client = client
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.arrived = asyncio.Event()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published.setdefault(params.uri, []).append(params)
            self.arrived.set()

    async def diagnostics(self, uri: str, count: int) -> list[types.Diagnostic]:
        """The diagnostics of the `count`-th publication for `uri`."""
        while len(self.published.get(uri, [])) < count:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), TIMEOUT)
        return list(self.published[uri][count - 1].diagnostics)

    def open(self, path: Path, text: str | None = None) -> str:
        uri = uris.from_fs_path(str(path))
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="agentltl", version=1,
            text=path.read_text(encoding="utf-8") if text is None else text)))
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def hover(self, uri: str, line: int, character: int) -> str | None:
        result = await asyncio.wait_for(self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character))), TIMEOUT)
        return None if result is None else result.contents.value

    async def definition(self, uri: str, line: int, character: int):
        return await asyncio.wait_for(self.client.text_document_definition_async(types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character))), TIMEOUT)

    async def formatting(self, uri: str):
        return await asyncio.wait_for(self.client.text_document_formatting_async(types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True))), TIMEOUT)


def with_server(scenario) -> None:
    """Run `scenario(session, capabilities)` against a fresh server process."""

    async def main() -> None:
        client = client_module.LanguageClient("policyc-tests", "1")
        session = Session(client)
        await client.start_io(sys.executable, "-m", "policyc", "lsp", "--stdio")
        try:
            result = await asyncio.wait_for(client.initialize_async(types.InitializeParams(
                capabilities=types.ClientCapabilities(), process_id=None,
                root_uri=uris.from_fs_path(str(ROOT)))), TIMEOUT)
            client.initialized(types.InitializedParams())
            await scenario(session, result.capabilities)
            await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
            client.exit(None)
            assert await asyncio.wait_for(client._server.wait(), TIMEOUT) == 0
        finally:
            if client._server.returncode is None:  # a failed scenario: end the server, show what it said
                client._server.kill()
                await client._server.wait()
                print((await client._server.stderr.read()).decode(errors="replace")[-4000:])
            await client.stop()

    asyncio.run(main())


def position_of(text: str, needle: str, occurrence: int = 0, offset: int = 0) -> tuple[int, int]:
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    index += offset
    line = text.count("\n", 0, index)
    return line, index - (text.rfind("\n", 0, index) + 1)


def test_capabilities_and_diagnostics_on_open_and_change(tmp_path):
    policy = tmp_path / "code_qa.altl"
    text = (EXAMPLES / "code_qa.altl").read_text(encoding="utf-8")
    policy.write_text(text, encoding="utf-8")
    broken = text.replace("before(search, final_answer)", "before(serch, final_answer)")

    async def scenario(session: Session, capabilities) -> None:
        assert capabilities.hover_provider and capabilities.definition_provider
        assert capabilities.document_formatting_provider
        uri = session.open(policy)
        assert await session.diagnostics(uri, 1) == []
        session.change(uri, broken, 2)
        (diagnostic,) = await session.diagnostics(uri, 2)
        line, column = position_of(broken, "serch")
        assert diagnostic.code == "E0201" and diagnostic.source == "policyc"
        assert diagnostic.severity == types.DiagnosticSeverity.Error
        assert diagnostic.message == "unknown tool `serch`\nhelp: did you mean `search`?"
        assert diagnostic.data == {"name": "serch", "suggestion": "search"}  # for a quick fix
        assert diagnostic.range == types.Range(start=types.Position(line=line, character=column),
                                               end=types.Position(line=line, character=column + 5))
        assert session.published[uri][1].version == 2
        session.change(uri, text, 3)
        assert await session.diagnostics(uri, 3) == []
        shown = await session.hover(uri, *position_of(text, "rule reads_a_file", offset=6))
        assert "**offline-only**" in shown and "severity `warn`, weight 3, layer `L5`" in shown

    with_server(scenario)


def test_ranges_count_utf16_code_units(tmp_path):
    policy = tmp_path / "p.altl"
    text = 'policy p\ntool search(query: str)\nrule r "a 😋 rule": called(serch)\n'

    async def scenario(session: Session, _capabilities) -> None:
        uri = session.open(policy, text)
        (diagnostic,) = await session.diagnostics(uri, 1)
        code_points = text.split("\n")[2].index("serch")
        assert diagnostic.range.start == types.Position(line=2, character=code_points + 1)  # 😋 is two units

    with_server(scenario)


def test_hover_and_definition():
    desk = EXAMPLES / "support_desk.altl"
    text = desk.read_text(encoding="utf-8")
    aliased = EXAMPLES / "diverse_tools.altl"
    aliased_text = aliased.read_text(encoding="utf-8")

    async def scenario(session: Session, _capabilities) -> None:
        uri = session.open(desk)
        assert await session.diagnostics(uri, 1) == []
        # a tool: its signature and the rules that name it; its declaration
        use = position_of(text, "once get_customer", offset=5)
        shown = await session.hover(uri, *use)
        assert shown.startswith("```altl\ntool get_customer(email: str) -> Customer\n```")
        assert "`verify_first`" in shown
        location = await session.definition(uri, *use)
        assert location.uri == uri
        assert location.range.start == types.Position(line=position_of(text, "tool get_customer")[0], character=5)
        # a rule: its class, severity, weight and layer
        shown = await session.hover(uri, *position_of(text, "rule eligible_before_refund", offset=6))
        assert "**gateable**" in shown and "severity `block`, weight 5, layer `money`" in shown
        shown = await session.hover(uri, *position_of(text, "rule reply_last", offset=6))
        assert "**gateable**" in shown and "severity `warn`, weight 3, layer `procedure`" in shown
        # a record type, a layer
        assert "type Order = {" in await session.hover(uri, *position_of(text, "-> Order", offset=4))
        # a predicate of the standard library: its header; its definition in the prelude
        use = position_of(text, "called_n(reply)", offset=2)
        assert "def called_n(t: event, op: cmp, n: int)" in await session.hover(uri, *use)
        location = await session.definition(uri, *use)
        prelude = stdlib_dir() / "prelude.altl"
        assert Path(uris.to_fs_path(location.uri)).resolve() == prelude.resolve()
        prelude_text = prelude.read_text(encoding="utf-8")
        assert location.range.start == types.Position(line=position_of(prelude_text, "def called_n(")[0], character=4)
        # a variable and a keyword have no declaration to go to
        assert await session.definition(uri, *position_of(text, "order_id: o)", offset=10)) is None
        assert await session.hover(uri, *position_of(text, "always", offset=1)) is None
        # a tool renamed by an import: its declaration in the imported file
        other = session.open(aliased)
        assert await session.diagnostics(other, 1) == []
        location = await session.definition(other, *position_of(aliased_text, "accumulate_readings, correlate", offset=25))
        base = EXAMPLES / "fan_out_fan_in.altl"
        assert Path(uris.to_fs_path(location.uri)).resolve() == base.resolve()
        base_text = base.read_text(encoding="utf-8")
        assert location.range.start == types.Position(line=position_of(base_text, "tool tool_b(")[0], character=5)

    with_server(scenario)


def test_formatting_is_policyc_fmt(tmp_path):
    policy = tmp_path / "p.altl"
    messy = "policy p\ntool a()\ntool b()\nrule r:   G(a->F b)\n# the end\n"
    expected = format_module(parse_source(Source(str(policy), messy))[0])
    assert expected != messy

    async def scenario(session: Session, _capabilities) -> None:
        uri = session.open(policy, messy)
        await session.diagnostics(uri, 1)
        (edit,) = await session.formatting(uri)
        assert edit.new_text == expected
        assert edit.range.start == types.Position(line=0, character=0)
        assert edit.range.end == types.Position(line=5, character=0)
        session.change(uri, expected, 2)
        await session.diagnostics(uri, 2)
        assert list(await session.formatting(uri)) == []
        session.change(uri, "rule r: (", 3)
        assert [d.code for d in await session.diagnostics(uri, 3)] == ["E0001"]
        assert await session.formatting(uri) is None  # nothing to format until it parses

    with_server(scenario)
