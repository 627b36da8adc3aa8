"""Issue 54 item 3 and issue 48 item 5: the server keeps up with typing and stands hostile
input. Ten quick edits cost one check whose diagnostics arrive within 0.5 s of the last; a FIFO,
a /dev/zero symlink and a 50 MB file named *.yaml in the workspace neither block nor get
checked; a lying Content-Length allocates nothing; malformed JSON-RPC is answered with JSON-RPC
errors and nothing reaches stderr. (Real server processes, wall-clock bounds: integration.)"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = pytest.mark.integration

DESIGN = "name: hall\nracks:\n  - id: r[1-8]\n    platform: gb200-nvl72\n    it_load: {load}\n"


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "dclint", "server"]),
)
async def client(lsp_client: LanguageClient, tmp_path: Path):  # type: ignore[no-untyped-def]
    published: list[tuple[float, str, int | None, int]] = []

    features = lsp_client.protocol.fm.features
    recorded = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]  # pytest-lsp's own

    def on_publish(*args: object) -> object:  # each publication, with when it arrived
        params = args[-1]
        assert isinstance(params, types.PublishDiagnosticsParams)
        at = time.perf_counter()
        published.append((at, params.uri, params.version, len(params.diagnostics)))
        return recorded(*args)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = on_publish

    lsp_client.published = published  # type: ignore[attr-defined]
    lsp_client.root = tmp_path  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[types.WorkspaceFolder(tmp_path.as_uri(), "designs")],
        )
    )
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path, text: str) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(path.as_uri(), "yaml", 1, text))
    )


def _change(client: LanguageClient, path: Path, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version, path.as_uri()),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )


async def _published(client: LanguageClient, path: Path, version: int) -> tuple[float, int]:
    """(time, number of diagnostics) of the first publication for `path` at `version`."""
    published = client.published  # type: ignore[attr-defined]
    for _ in range(3000):
        got = [(t, n) for t, uri, v, n in published if uri == path.as_uri() and v == version]
        if got:
            return got[0]
        await asyncio.sleep(0.01)
    raise AssertionError(f"no diagnostics for version {version}")


@pytest.mark.asyncio
async def test_ten_quick_edits_publish_one_final_set_within_half_a_second(
    client: LanguageClient,
) -> None:
    path = client.root / "hall.yaml"  # type: ignore[attr-defined]
    _open(client, path, DESIGN.format(load="100 kW"))
    assert (await _published(client, path, 1))[1] == 0
    for version in range(2, 12):  # a keystroke every 30 ms: 101 kW .. 130 kW
        _change(client, path, DESIGN.format(load=f"{99 + version * 3 - 2} kW"), version)
        last = time.perf_counter()
        await asyncio.sleep(0.03)
    at, count = await _published(client, path, 11)
    assert at - last < 0.5, f"settled {at - last:.3f} s after the last edit"
    assert count == 1  # 130 kW on r[1-8]: one diagnostic for the defect, not eight
    await asyncio.sleep(0.4)
    versions = [v for _, uri, v, _ in client.published if uri == path.as_uri()]  # type: ignore[attr-defined]
    assert versions == [1, 11]  # the nine edits in between were never checked or published


@pytest.mark.asyncio
async def test_fifos_devices_and_huge_files_in_the_workspace_never_block(
    client: LanguageClient,
) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    os.mkfifo(root / "pipe.yaml")
    (root / "zero.yaml").symlink_to("/dev/zero")
    (root / "huge.yaml").write_bytes(b"name: huge\nracks: []\n" + b"#" * (50 * 1024 * 1024))
    fragment = root / "racks.yaml"
    fragment.write_text("rack_types:\n  t: {platform: gb200-nvl72, it_load: 130 kW}\n")
    hall = "name: hall\ninclude: [racks.yaml]\nracks:\n  - {id: r1, type: t}\n"
    (root / "hall.yaml").write_text(hall)
    start = time.perf_counter()
    _open(client, fragment, fragment.read_text())  # scans the workspace for its includers
    at, count = await _published(client, fragment, 1)
    assert count == 1 and at - start < 5
    huge = "name: big\nracks: []\n" + "#" * (50 * 1024 * 1024)
    big = root / "big.yaml"
    _open(client, big, huge)  # a 50 MB buffer: refused, not checked
    await _published(client, big, 1)
    (diag,) = client.diagnostics[big.as_uri()]
    assert diag.message == "file is over the 10,485,760-byte limit for a design"


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _responses(out: bytes) -> list[dict[str, object]]:
    found = []
    while out:
        head, _, rest = out.partition(b"\r\n\r\n")
        length = int(head.split(b":")[1])
        found.append(json.loads(rest[:length]))
        out = rest[length:]
    return found


def test_malformed_json_rpc_gets_json_rpc_errors_and_no_traceback(tmp_path: Path) -> None:
    sent = b"".join(
        [
            _frame(b"{not json"),
            _frame(b"[1, 2]"),
            _frame(b'{"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": 5}'),
            _frame(b'{"jsonrpc": "2.0", "method": 12}'),
            b"Content-Length: 100000000000\r\n\r\n{}",  # lying: 100 GB announced, 2 B sent
        ]
    )
    proc = subprocess.run(
        [sys.executable, "-m", "dclint", "server"],
        input=sent,
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.stderr == b""
    got = [(r["id"], r["error"]["code"]) for r in _responses(proc.stdout)]  # type: ignore[index]
    assert got == [(None, -32700), (None, -32600), (7, -32602), (None, -32600)]
