"""The server's message loop over stdio: LSP's `Content-Length` framing read with bounds, and
malformed messages answered as JSON-RPC says, never with a traceback.

pygls' own loop reads a header line of any length, allocates whatever `Content-Length` claims
(a lying 100 GB header is a MemoryError) and logs a malformed message's traceback on stderr.
This loop reads a header line of at most MAX_HEADER bytes and a body of at most MAX_MESSAGE
bytes: a longer body is read and dropped in chunks (never held whole) and answered with an
Invalid Request error. A body that is not JSON is answered with a Parse error (-32700, id
null); a message that is not a JSON-RPC 2.0 object, or whose parameters do not fit its method,
with Invalid Request (-32600) or Invalid params (-32602) under its id (JSON-RPC 2.0, section
5.1). A notification is never answered: a malformed one is dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any, BinaryIO

__all__ = ["MAX_HEADER", "MAX_MESSAGE", "serve_stream"]

MAX_HEADER = 8 * 1024  # bytes of one header line
# bytes of one message: an editor sends a whole document in didOpen and didChange, and dclint
# reads designs up to 10 MiB (dclint.loader); escaped JSON of one can be several times that
MAX_MESSAGE = 64 * 1024 * 1024
_CHUNK = 1 << 20
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


def _quiet_pygls() -> None:
    """pygls logs a failed message with its traceback; an editor reads stderr as the log, so
    nothing of that goes there (the client is answered instead)."""
    log = logging.getLogger("pygls")
    log.addHandler(logging.NullHandler())
    log.propagate = False


class _Frames:
    """Header lines and bodies read from a binary stream, in a worker thread each."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    async def _call(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    async def line(self) -> bytes:
        return bytes(await self._call(self.stream.readline, MAX_HEADER))

    async def body(self, length: int) -> bytes | None:
        """`length` bytes, or None (read and dropped) when over MAX_MESSAGE."""
        if length <= MAX_MESSAGE:
            return bytes(await self._call(self.stream.read, length))
        left = length
        while left > 0:
            chunk = await self._call(self.stream.read, min(_CHUNK, left))
            if not chunk:
                break
            left -= len(chunk)
        return None


def _error(protocol: Any, ident: Any, code: int, message: str) -> None:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
    ).encode("utf-8")
    writer = protocol.writer
    if writer is not None:
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def _id_of(data: Any) -> Any:
    ident = data.get("id") if isinstance(data, dict) else None
    return ident if isinstance(ident, (int, str)) and not isinstance(ident, bool) else None


def handle_body(protocol: Any, body: bytes) -> None:
    """One message's body: handed to pygls when it is a well-formed JSON-RPC 2.0 message,
    else answered with the JSON-RPC error that says why."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        _error(protocol, None, PARSE_ERROR, "Parse error: the message is not JSON")
        return
    ident = _id_of(data)
    request = isinstance(data, dict) and "id" in data
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        _error(protocol, ident, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object")
        return
    method = data.get("method")
    if "method" in data and not isinstance(method, str):
        if request:
            _error(protocol, ident, INVALID_REQUEST, "Invalid Request: method is not a string")
        return
    if request and ident is None:
        _error(protocol, None, INVALID_REQUEST, "Invalid Request: id is not a number or string")
        return
    try:
        message = protocol.structure_message(data)
    except Exception:
        if request and method is not None:
            _error(protocol, ident, INVALID_PARAMS, f"Invalid params for {method}")
        return  # a malformed notification or response is dropped
    try:
        protocol.handle_message(message)
    except Exception:
        if request and method is not None:
            _error(protocol, ident, INVALID_REQUEST, f"Invalid Request: {method}")


async def _loop(stop: threading.Event, frames: _Frames, protocol: Any) -> None:
    length: int | None = None
    bad_header = False
    while not stop.is_set():
        header = await frames.line()
        if not header:
            break
        if not header.endswith(b"\n"):  # a header line past MAX_HEADER: the frame is bad
            bad_header = True
            continue
        text = header.strip()
        if text:
            name, _, value = text.partition(b":")
            if name.strip().lower() == b"content-length":
                value = value.strip()
                if value.isdigit() and len(value) <= 20:
                    length = int(value)
                else:
                    bad_header = True
            continue
        # the blank line: the body follows
        if length is None or bad_header:
            length, bad_header = None, False
            _error(protocol, None, INVALID_REQUEST, "Invalid Request: bad message header")
            continue
        body = await frames.body(length)
        length = None
        if body is None:
            _error(
                protocol,
                None,
                INVALID_REQUEST,
                f"Invalid Request: message over the {MAX_MESSAGE:,}-byte limit, dropped",
            )
            continue
        if not body:
            break
        handle_body(protocol, body)


def serve_stream(server: Any, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Run `server` (a pygls LanguageServer) over the streams with the bounded loop."""
    from pygls.io_ import StdoutWriter

    _quiet_pygls()
    server._stop_event = stop = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))
    try:
        asyncio.run(_loop(stop, _Frames(stdin), server.protocol))
    except BrokenPipeError:
        pass
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
