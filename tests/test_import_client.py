"""`dclint import netbox URL` against a hostile HTTP server the test starts on 127.0.0.1: a
redirect to another port never carries the token there, pagination that loops or never ends is
an error, a trickling or oversized answer is cut off by its deadline or byte limit. Limits are
set small through `Limits`, so each case takes well under a second."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from integration.cluster import cluster, netbox_dump

from dclint.cli import main
from dclint.errors import ConfigError
from dclint.importer.client import Limits, fetch_dump
from dclint.importer.dcim import ENDPOINTS

TOKEN = "0123456789abcdef-secret-token"
FAST = Limits(connect_s=2, read_s=2, response_s=0.6, pages=50)

Handler = Callable[[BaseHTTPRequestHandler], None]


class Server:
    """A local server answering every GET with `handle`, recording what each request sent."""

    def __init__(self, handle: Handler) -> None:
        seen: list[dict[str, str]] = []
        self.seen = seen

        class _H(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append({"path": self.path, **{k.lower(): v for k, v in self.headers.items()}})
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    handle(self)  # the client may hang up on purpose

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Handler], Server]]:
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    servers: list[Server] = []

    def start(handle: Handler) -> Server:
        servers.append(Server(handle))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def _json(h: BaseHTTPRequestHandler, data: Any, status: int = 200) -> None:
    body = json.dumps(data).encode()
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def _page(results: list[Any], nxt: str | None, count: int | None = None) -> dict[str, Any]:
    return {"count": count if count is not None else len(results), "next": nxt, "results": results}


def _fails(url: str, limits: Limits = FAST) -> str:
    with pytest.raises(ConfigError) as exc:
        fetch_dump("netbox", url, "NETBOX_TOKEN", limits)
    message = str(exc.value)
    assert TOKEN not in message
    return message


def test_a_server_paged_as_netbox_pages_is_read_whole(serve: Any) -> None:
    """The positive case: the cluster's dump, ten objects a page, same-origin redirects from
    `/api` paths without a slash followed, every request carrying the token."""
    dump = netbox_dump(cluster())

    def handle(h: BaseHTTPRequestHandler) -> None:
        path, _, query = h.path.partition("?")
        if not path.endswith("/"):
            h.send_response(301)
            h.send_header("Location", f"{path}/?{query}")
            h.end_headers()
            return
        key = path.removeprefix("/api/").rstrip("/")
        offset = int(dict(p.split("=") for p in query.split("&")).get("offset", 0))
        items = dump.get(key, [])
        chunk = items[offset : offset + 10]
        nxt = f"{s.url}/api/{key}?limit=1000&offset={offset + 10}"  # no slash: a 301 each page
        _json(h, _page(chunk, nxt if offset + 10 < len(items) else None, len(items)))

    s = serve(handle)
    got = fetch_dump("netbox", s.url, "NETBOX_TOKEN", Limits(response_s=5))
    assert got == {k: dump.get(k, []) for k in ENDPOINTS if k != "dcim/locations"}
    assert sum(map(len, got.values())) == sum(map(len, dump.values())) > 100
    assert {r["authorization"] for r in s.seen} == {f"Token {TOKEN}"}


def test_a_redirect_to_another_port_never_carries_the_token(
    serve: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = serve(lambda h: _json(h, _page([], None)))

    def redirect(h: BaseHTTPRequestHandler) -> None:
        h.send_response(302)
        h.send_header("Location", f"{other.url}/api/dcim/sites/")
        h.end_headers()

    s = serve(redirect)
    out = tmp_path / "site.yaml"
    code = main(["import", "netbox", s.url, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == [
        f"dclint: error: {s.url}/api/dcim/sites/?limit=1000: the server redirects (302) "
        f"to {other.url}/api/dcim/sites/, another server (scheme, host or port); refusing to "
        "send the token there (give that server's URL if it is the right one)"
    ]
    assert other.seen == []  # never asked, so never sent Authorization
    assert len(s.seen) == 1
    assert not out.exists()


@pytest.mark.parametrize(
    "location",
    ["https://127.0.0.1:{port}/api/", "http://localhost:{port}/api/", "//evil.example/api/"],
)
def test_a_redirect_to_another_scheme_or_host_is_refused(serve: Any, location: str) -> None:
    def redirect(h: BaseHTTPRequestHandler) -> None:
        h.send_response(307)
        h.send_header("Location", location.format(port=s.port))
        h.end_headers()

    s = serve(redirect)
    message = _fails(s.url)
    assert "refusing to send the token there" in message
    assert len(s.seen) == 1


def test_a_next_link_to_the_page_itself_is_an_error(serve: Any) -> None:
    s = serve(lambda h: _json(h, _page([{"id": 1}], f"{s.url}{h.path}", 5)))
    message = _fails(s.url)
    assert message == (
        f"{s.url}/api/dcim/sites/?limit=1000: the server's `next` link leads back to a page read"
    )
    assert len(s.seen) == 1


def test_endless_pagination_stops_at_the_page_cap(serve: Any) -> None:
    """No count, a new `next` every time: Limits.pages (50 here) pages, then an error."""

    def endless(h: BaseHTTPRequestHandler) -> None:
        n = int(h.path.rsplit("=", 1)[-1]) if "page=" in h.path else 0
        _json(h, {"next": f"{s.url}/api/dcim/sites/?page={n + 1}", "results": [{"id": n}]})

    s = serve(endless)
    message = _fails(s.url)
    assert message == (
        f"{s.url}/api/dcim/sites/?page=50: more than 50 pages (the server's "
        "pagination does not end)"
    )
    assert len(s.seen) == 50


def test_pagination_past_the_announced_count_stops(serve: Any) -> None:
    """count 4 at 2 a page is 2 pages: a third is allowed for a count that grew, not a fourth."""

    def endless(h: BaseHTTPRequestHandler) -> None:
        n = int(h.path.rsplit("=", 1)[-1]) if "page=" in h.path else 0
        _json(h, _page([{"id": n}, {"id": -n}], f"{s.url}/api/dcim/sites/?page={n + 1}", 4))

    s = serve(endless)
    assert _fails(s.url).endswith("more than 3 pages (the server's pagination does not end)")
    assert len(s.seen) == 3


def test_a_trickling_server_hits_the_response_deadline(serve: Any) -> None:
    """One byte every 0.05 s of a 40-byte answer (2 s): cut off at 0.6 s."""

    def trickle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", "40")
        h.end_headers()
        h.wfile.flush()
        for _ in range(40):
            h.wfile.write(b" ")
            h.wfile.flush()
            time.sleep(0.05)

    s = serve(trickle)
    assert _fails(s.url) == f"{s.url}/api/dcim/sites/?limit=1000: the answer took over 0.6 s"


def test_trickled_headers_hit_the_response_deadline(serve: Any) -> None:
    """The status line and headers themselves one byte at a time: the watchdog ends it."""

    def trickle(h: BaseHTTPRequestHandler) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 40:
            h.wfile.write(bytes([byte]))
            h.wfile.flush()
            time.sleep(0.05)

    s = serve(trickle)
    assert _fails(s.url) == f"{s.url}/api/dcim/sites/?limit=1000: the answer took over 0.6 s"


def test_a_silent_server_hits_the_read_timeout(serve: Any) -> None:
    s = serve(lambda h: time.sleep(1.0))
    limits = Limits(connect_s=2, read_s=0.3, response_s=5)
    assert _fails(s.url, limits) == (
        f"{s.url}/api/dcim/sites/?limit=1000: the server sent nothing for 0.3 s"
    )


def test_a_100_gb_content_length_is_refused_before_reading(serve: Any) -> None:
    def huge(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(100 * 10**9))
        h.end_headers()
        h.wfile.write(b"{" * 1000)

    s = serve(huge)
    assert _fails(s.url) == (
        f"{s.url}/api/dcim/sites/?limit=1000: the answer would be 100,000,000,000 bytes, "
        "over the 268,435,456-byte limit"
    )


def test_an_answer_without_length_is_cut_at_the_byte_limit(serve: Any) -> None:
    def stream(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.end_headers()  # HTTP/1.0: no length, the body runs until the connection closes
        for _ in range(100):
            h.wfile.write(b" " * 1000)

    s = serve(stream)
    limits = Limits(connect_s=2, read_s=2, response_s=5, response_bytes=10_000)
    assert _fails(s.url, limits) == (
        f"{s.url}/api/dcim/sites/?limit=1000: the answer is over the 10,000-byte limit"
    )


def test_a_next_page_on_another_server_is_refused(serve: Any) -> None:
    s = serve(lambda h: _json(h, _page([{"id": 1}], "http://127.0.0.1:1/api/dcim/sites/", 9)))
    assert _fails(s.url) == (
        f"{s.url}/api/dcim/sites/?limit=1000: the next page is on another server "
        "(http://127.0.0.1:1/api/dcim/sites/); refusing to send the token there"
    )


def test_a_server_that_is_not_there_is_one_error(serve: Any) -> None:
    s = serve(lambda h: None)
    url = s.url
    s.close()
    assert _fails(url) == (
        f"{url}/api/dcim/sites/?limit=1000: cannot reach the server: Connection refused"
    )


def test_https_is_verified_against_the_system_certificates(serve: Any) -> None:
    """A plain-http server spoken to over https: the TLS handshake fails, one error line."""
    s = serve(lambda h: _json(h, _page([], None)))
    assert _fails(s.url.replace("http://", "https://")) == (
        f"https://127.0.0.1:{s.port}/api/dcim/sites/?limit=1000: TLS with the server failed "
        "(WRONG_VERSION_NUMBER)"
    )


@pytest.mark.parametrize(
    "body", [b'{"count": ' + b"9" * 5000 + b"}", b"[" * 100_000 + b"]" * 100_000, b"\xff"]
)
def test_an_answer_python_cannot_decode_is_one_error(serve: Any, body: bytes) -> None:
    def answer(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    s = serve(answer)
    assert _fails(s.url) == (
        f"{s.url}/api/dcim/sites/?limit=1000: the server's answer is not JSON dclint reads"
    )


def test_a_url_where_every_endpoint_is_missing_is_an_error(serve: Any) -> None:
    """A mistyped URL, not an empty site: every endpoint answers 404."""

    def missing(h: BaseHTTPRequestHandler) -> None:
        h.send_response(404)
        h.send_header("Content-Length", "0")
        h.end_headers()

    s = serve(missing)
    assert _fails(f"{s.url}/netbx") == (
        f"{s.url}/netbx/api/: every endpoint answered 404 Not Found: is this the NetBox "
        "server's URL?"
    )
    assert len(s.seen) == 10  # each endpoint once (NetBox's: no locations)
