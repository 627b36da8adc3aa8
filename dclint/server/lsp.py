"""`dclint server`: the Language Server Protocol over stdio, on pygls.

Diagnostics are published for open design files on open, change and save (the unsaved text),
and for the designs a changed fragment is part of; a change is checked after QUIET seconds
without another (each check runs in a worker thread, one at a time, and a newer edit drops an
older check's diagnostics); hover shows what dclint computed at a value
and the rule behind a finding; code actions add a reasoned suppression (the server asks for the
reason), apply a fix a finding offers (as `check --fix` makes it; an unsafe one says it
changes the design) and apply the layout search's best layout to a workload. The
configuration is the one `dclint check` finds for each file. Requires the `server` extra
(pygls, lsprotocol).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from dclint._version import __version__
from dclint.server.workspace import Diagnostic, Workspace

__all__ = ["build", "serve"]

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}
SUPPRESS = "dclint.suppress"
APPLY_LAYOUT = "dclint.applyBestLayout"
FIX = "dclint.fix"
# seconds of quiet after an edit before the document is checked again (a keystroke within them
# restarts the wait): 10 quick keystrokes cost one check, not ten
QUIET = 0.2
# the reasons the suppression action offers; an editor shows them as buttons
REASONS = (
    "accepted in design review",
    "temporary: revisit within 90 days",
    "vendor-approved exception",
)


def _path(uri: str) -> Path:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)).resolve()


def _uri(path: Path) -> str:
    return path.resolve().as_uri()


def _range(d: Diagnostic, text: str | None) -> types.Range:
    line, col = max(d.line - 1, 0), max(d.column - 1, 0)
    end = col
    if text is not None:
        lines = text.splitlines()
        if line < len(lines):
            end = max(len(lines[line].rstrip()), col + 1)
    return types.Range(types.Position(line, col), types.Position(line, end))


def _diagnostic(d: Diagnostic, text: str | None) -> types.Diagnostic:
    message = d.message if not d.fix else f"{d.message}\nfix: {d.fix}"
    return types.Diagnostic(
        range=_range(d, text),
        message=message,
        severity=SEVERITY.get(d.severity, types.DiagnosticSeverity.Error),
        code=d.rule,
        source="dclint",
        data={"rule": d.rule, "design": d.design},
    )


class DclintServer(LanguageServer):
    ws: Workspace


def build(root: Path | None = None, engine_args: dict[str, Any] | None = None) -> DclintServer:
    """The server with its features registered (not started)."""
    server = DclintServer("dclint", __version__)
    server.ws = Workspace(root or Path.cwd(), engine_args or {})

    versions: dict[Path, int] = {}  # the version of each open document, as the editor sent it
    edits: dict[Path, int] = {}  # a count of the changes to each path: a newer one supersedes
    tasks: set[asyncio.Task[None]] = set()
    lock = asyncio.Lock()  # one check at a time: the workspace is not shared between checks

    def send(results: dict[Path, list[Diagnostic]]) -> None:
        for file, diags in results.items():
            text = server.ws.text(file)
            server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=_uri(file),
                    diagnostics=[_diagnostic(d, text) for d in diags],
                    version=versions.get(file) if file in server.ws.buffers else None,
                )
            )

    async def recheck(changed: Path, edit: int, delay: float) -> None:
        """Check what `changed` affects after `delay` s of quiet; a newer edit of the same
        path supersedes this one: before it starts (nothing is checked) or while it runs in
        its worker thread (its diagnostics are dropped, the newer check publishes)."""
        await asyncio.sleep(delay)
        async with lock:
            if edits.get(changed) != edit:
                return
            loop = asyncio.get_running_loop()
            results = await loop.run_in_executor(None, server.ws.changed, changed)
        if edits.get(changed) == edit:
            send(results)

    def publish(changed: Path, delay: float = 0.0) -> None:
        edits[changed] = edits.get(changed, 0) + 1
        task = asyncio.ensure_future(recheck(changed, edits[changed], delay))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    @server.feature(types.INITIALIZE)
    def initialize(ls: DclintServer, params: types.InitializeParams) -> None:
        folders = params.workspace_folders or []
        if folders:
            ls.ws.root = _path(folders[0].uri)
        elif params.root_uri:
            ls.ws.root = _path(params.root_uri)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DclintServer, params: types.DidOpenTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        versions[path] = params.text_document.version
        ls.ws.open(path, params.text_document.text)
        publish(path)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DclintServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        path = _path(params.text_document.uri)
        versions[path] = params.text_document.version
        ls.ws.open(path, doc.source)
        publish(path, QUIET)  # checked once the typing pauses

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DclintServer, params: types.DidSaveTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if ls.ws.is_policy_file(path):  # a site policy: every open design is judged again
            ls.ws.reload_config()
            for design in list(ls.ws.results):
                publish(design)
            return
        if path.name in (".dclint.yaml", ".dclint.yml", "pyproject.toml"):
            ls.ws.reload_config()
        publish(path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DclintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.ws.close(_path(params.text_document.uri))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: DclintServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.ws.forget_references()
        for change in params.changes:
            path = _path(change.uri)
            if path.name in (".dclint.yaml", ".dclint.yml", "pyproject.toml") or (
                ls.ws.is_policy_file(path)
            ):
                ls.ws.reload_config()
                for design in list(ls.ws.results):
                    publish(design)
            elif path not in ls.ws.buffers and path.suffix in (".yaml", ".yml"):
                publish(path)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: DclintServer, params: types.HoverParams) -> types.Hover | None:
        from dclint.server.hover import hover_text, path_at

        path = _path(params.text_document.uri)
        line, column = params.position.line + 1, params.position.character + 1
        design = _design_for(ls.ws, path)
        dpath = None
        if design is not None and design.source is not None:
            dpath = path_at(design.source, str(path), line, column)
        here = [d for d in ls.ws.diagnostics(path) if d.line == line]
        text = hover_text(design, dpath, here, ls.ws.engine.rules)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, text))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=True
        ),
    )
    def code_action(ls: DclintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The actions at a range; their edits are made when one is chosen (resolve), so
        the suppression can ask for its reason and the layout search runs only if wanted."""
        uri = params.text_document.uri
        path = _path(uri)
        first, last = params.range.start.line + 1, params.range.end.line + 1
        actions: list[types.CodeAction] = []
        for d in ls.ws.diagnostics(path):
            if not first <= d.line <= last:
                continue
            for i, change in enumerate(getattr(d.finding, "changes", ())):
                note = "" if change.safe else " (unsafe: changes the design)"
                actions.append(
                    types.CodeAction(
                        title=f"Fix {d.rule}: {change.summary}{note}",
                        kind=types.CodeActionKind.QuickFix,
                        is_preferred=change.safe,
                        data={"action": FIX, "uri": uri, "line": d.line, "rule": d.rule, "i": i},
                    )
                )
            if d.rule.startswith("DCL"):
                continue
            actions.append(
                types.CodeAction(
                    title=f"Suppress {d.rule} on this line (with a reason)",
                    kind=types.CodeActionKind.QuickFix,
                    data={"action": SUPPRESS, "uri": uri, "line": d.line - 1, "rule": d.rule},
                )
            )
        index = _workload_at(ls.ws, path, first)
        if index is not None:
            actions.append(
                types.CodeAction(
                    title="Apply the best layout (dclint plan's search)",
                    kind=types.CodeActionKind.QuickFix,
                    data={"action": APPLY_LAYOUT, "uri": uri, "index": index},
                )
            )
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: DclintServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        uri = str(data.get("uri", ""))
        if data.get("action") == SUPPRESS:
            edits = await _suppression(ls, uri, int(data["line"]), str(data["rule"]))
        elif data.get("action") == APPLY_LAYOUT:
            edits = _layout(ls, uri, int(data["index"]))
        elif data.get("action") == FIX:
            edits = _fix(ls, uri, int(data["line"]), str(data["rule"]), int(data["i"]))
        else:
            edits = None
        if edits:
            action.edit = types.WorkspaceEdit(changes={uri: [_text_edit(e) for e in edits]})
        return action

    return server


async def _suppression(ls: DclintServer, uri: str, line: int, rule: str) -> list[Any] | None:
    """Ask why the finding is accepted; the edit that records it, or None if not answered."""
    from dclint.fix.text import suppression_edit

    answer = await ls.window_show_message_request_async(
        types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=f"Why is {rule} accepted here? dclint records the reason in the file.",
            actions=[types.MessageActionItem(r) for r in REASONS],
        )
    )
    if answer is None:
        return None  # a suppression needs a reason
    until = ""
    if answer.title.startswith("temporary"):
        until = (_dt.date.today() + _dt.timedelta(days=90)).isoformat()
    text = ls.ws.text(_path(uri)) or ""
    return [suppression_edit(text, line, rule, answer.title, until)]


def _fix(ls: DclintServer, uri: str, line: int, rule: str, index: int) -> list[Any] | None:
    """The edit of the `index`th fix of the `rule` finding on `line`, made in this document's
    text only (a value written in another file is fixed in that file); None, told why."""
    from dclint.fix.apply import change_edit

    path = _path(uri)
    found = [d for d in ls.ws.diagnostics(path) if d.line == line and d.rule == rule]
    changes = [c for d in found for c in getattr(d.finding, "changes", ())]
    design = _design_for(ls.ws, path)
    if index >= len(changes) or design is None or design.source is None:
        why: Any = "the finding has changed since: check the design again"
    else:
        d = next(d for d in found if changes[index] in d.finding.changes)
        why = change_edit(
            design.source, d.finding, changes[index], lambda name: ls.ws.text(Path(name))
        )
        if not isinstance(why, str):
            name, edit = why
            if Path(name).resolve() == path:
                return [edit]
            why = f"the value is written in {name}: fix it there"
    ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, str(why)))
    return None


def _layout(ls: DclintServer, uri: str, index: int) -> list[Any] | None:
    """The edits that apply the best layout to workload `index`, or None (told why)."""
    from dclint.fix.layout import best_layout_edits

    path = _path(uri)
    design = _design_for(ls.ws, path)
    text = ls.ws.text(path)
    if design is None or text is None:
        got: Any = "the design does not load: fix its errors first"
    else:
        got = best_layout_edits(design, text, index)
    if isinstance(got, str):
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, got))
        return None
    ls.window_show_message(types.ShowMessageParams(types.MessageType.Info, got.summary))
    return list(got.edits)


def _text_edit(e: Any) -> types.TextEdit:
    return types.TextEdit(
        types.Range(
            types.Position(e.start_line, e.start_char), types.Position(e.end_line, e.end_char)
        ),
        e.text,
    )


def _design_for(ws: Workspace, path: Path) -> Any:
    """The loaded design that `path` is (or is part of), from the last check."""
    result = ws.checked.get(path)
    if result is not None:
        return result.design
    for design_file, by_file in ws.results.items():
        if path in by_file or any(path == f for f in by_file):
            got = ws.checked.get(design_file)
            if got is not None and got.design is not None:
                return got.design
    return None


def _workload_at(ws: Workspace, path: Path, line: int) -> int | None:
    """The index of the workload written at `line` of a design file, if any."""
    from dclint.server.hover import path_at

    design = _design_for(ws, path)
    if design is None or design.source is None or not design.workloads:
        return None
    dpath = path_at(design.source, str(path), line, 10_000)
    if dpath and dpath[0] == "workloads" and len(dpath) >= 2 and isinstance(dpath[1], int):
        return dpath[1]
    return None


def serve(root: Path | None = None, engine_args: dict[str, Any] | None = None) -> None:
    """Serve over stdio with dclint's bounded message loop (dclint.server.transport)."""
    import sys

    from dclint.server.transport import serve_stream

    serve_stream(build(root, engine_args), sys.stdin.buffer, sys.stdout.buffer)
