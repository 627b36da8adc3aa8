"""The server's workspace and message handling without a process (issue 48 item 5, issue 54
item 3): the workspace scan opens only regular files inside it, a fragment opened alone gets
its own load and unit errors, a defect on many racks is one diagnostic, hover shows every value
with a unit, and malformed JSON-RPC gets JSON-RPC errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import dclint
from conftest import SAMPLES
from dclint.engine.runner import Engine
from dclint.server.hover import hover_text
from dclint.server.transport import handle_body
from dclint.server.workspace import Workspace

HALL = "name: hall\ninclude: [racks.yaml]\nracks:\n  - {id: 'r[1-8]', type: t}\n"
LIBRARY = "rack_types:\n  t: {platform: gb200-nvl72, it_load: 130 kW}\n"


def test_the_workspace_scan_skips_fifos_devices_and_symlinks_out_of_it(tmp_path: Path) -> None:
    (tmp_path / "hall.yaml").write_text(HALL)
    (tmp_path / "racks.yaml").write_text(LIBRARY)
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text("name: out\ninclude: [racks.yaml]\n")
    (tmp_path / "out.yaml").symlink_to(outside)
    (tmp_path / "inside.yaml").symlink_to(tmp_path / "hall.yaml")  # inside: the same file
    ws = Workspace(tmp_path)
    found = sorted(p.name for p in ws._candidates())
    assert found == ["hall.yaml", "racks.yaml"]
    assert ws.text(tmp_path / "pipe.yaml") is None  # never blocks
    assert ws.text(tmp_path / "zero.yaml") is None


def test_a_defect_on_eight_racks_is_one_diagnostic_at_the_fragment(tmp_path: Path) -> None:
    (tmp_path / "hall.yaml").write_text(HALL)
    (tmp_path / "racks.yaml").write_text(LIBRARY)
    (tmp_path / "hall-2.yaml").write_text(HALL.replace("name: hall", "name: hall-2"))
    ws = Workspace(tmp_path)
    got = ws.changed(tmp_path / "racks.yaml")
    pwr = [d for d in got[(tmp_path / "racks.yaml").resolve()] if d.rule == "PWR001"]
    assert [(d.line, d.column) for d in pwr] == [(2, 39)]
    assert pwr[0].message.endswith("[8 racks of type t: r[1-8]] [in 2 designs: hall, hall-2]")


def test_a_fragment_opened_alone_gets_its_load_and_unit_errors(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    path = tmp_path / "racks.yaml"
    text = LIBRARY.replace("130 kW", "4O kW") + "racks:\n  - {id: r1, type: elsewhere}\n"
    ws.open(path, text)
    (only,) = ws.changed(path)[path.resolve()]
    assert (only.line, only.column, only.rule) == (2, 39, "DCL000")
    assert only.message == (
        "rack_types.t.it_load: unknown unit in 'O kW'; expected power, e.g. '120 kW'"
    )
    compose = tmp_path / "docker-compose.yaml"  # not a fragment: nothing said
    ws.open(compose, "services:\n  web: {image: nginx}\n")
    assert ws.changed(compose) == {compose.resolve(): []}


def test_a_document_over_the_size_limit_is_not_checked(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    path = tmp_path / "big.yaml"
    ws.open(path, "name: big\nracks: []\n" + "#" * (11 * 1024 * 1024))
    (only,) = ws.changed(path)[path.resolve()]
    assert only.message == "file is over the 10,485,760-byte limit for a design"


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (
            ("cooling", "cdus", 0, "capacity"),
            "**cooling.cdus[0].capacity** = 2000 kW (2e+06 W in base units)",
        ),
        (
            ("site", "utility_capacity"),
            "**site.utility_capacity** = 1.5 MW (1.5e+06 W in base units)",
        ),
    ],
)
def test_hover_on_a_value_with_a_unit_shows_it_in_base_units_and_its_readers(
    path: tuple[Any, ...], shown: str
) -> None:
    design = dclint.load(SAMPLES / "gb200-superpod-su.yaml")
    text = hover_text(design, path, [], Engine().rules)
    assert text is not None
    first, readers = text.split("  \n")
    assert first == shown
    assert readers.startswith("read by ")
    assert ("CLG001" in readers) == (path[0] == "cooling")


class _Protocol:
    """What handle_body uses of pygls' protocol: a writer, and the message handlers."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.writer = self
        self.handled: list[Any] = []

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def structure_message(self, data: dict[str, Any]) -> Any:
        if data.get("params") == 5:
            raise ValueError("params")
        return data

    def handle_message(self, message: Any) -> None:
        self.handled.append(message)

    def errors(self) -> list[tuple[Any, int]]:
        out = []
        for frame in self.sent:
            body = json.loads(frame.split(b"\r\n\r\n", 1)[1])
            out.append((body["id"], body["error"]["code"]))
        return out


@pytest.mark.parametrize(
    ("body", "errors", "handled"),
    [
        (b"{not json", [(None, -32700)], 0),
        (b"[1, 2]", [(None, -32600)], 0),
        (b'{"jsonrpc": "1.0", "id": 3, "method": "x"}', [(3, -32600)], 0),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": 5}', [(7, -32602)], 0),
        (b'{"jsonrpc": "2.0", "method": "x", "params": 5}', [], 0),  # a notification: dropped
        (b'{"jsonrpc": "2.0", "id": [1], "method": "x"}', [(None, -32600)], 0),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}', [], 1),
    ],
)
def test_malformed_messages_get_json_rpc_errors(
    body: bytes, errors: list[tuple[Any, int]], handled: int
) -> None:
    protocol = _Protocol()
    handle_body(protocol, body)
    assert protocol.errors() == errors
    assert len(protocol.handled) == handled
