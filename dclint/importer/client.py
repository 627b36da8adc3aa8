"""A NetBox or Nautobot server read over its REST API with the standard library: every page of
every endpoint an import needs, as a dump (see dclint.importer.dcim). The token comes from an
environment variable and goes only into the Authorization header of requests to the server the
user named (same scheme, host and port): never into a file, a log or an error message.

Written on `http.client` rather than `urlopen`, requests or httpx: none of those enforces a
deadline on a whole response (a server sending one byte every half second passes any read
timeout), and each follows redirects unless told not to; here the connection is made to the
host this module checked, nothing is followed implicitly, and every response is bounded in
time and bytes while it is read."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

from dclint.errors import ConfigError, printable
from dclint.importer.dcim import ENDPOINTS

__all__ = ["PAGE_SIZE", "Limits", "fetch_dump"]

PAGE_SIZE = 1000  # NetBox's default MAX_PAGE_SIZE
# Nautobot renders every object at ?depth=1 with its related objects in full: a page of 1,000
# interfaces took over 60 s on a live Nautobot 3.2.7 (two busy cores), so its pages are smaller
NAUTOBOT_PAGE_SIZE = 200
_CHUNK = 1 << 16


@dataclass(frozen=True)
class Limits:
    """How long and how much one import may take from a server (dclint's own bounds, each
    well above what a 1,000-rack site needs: its whole REST dump is ~20 MB)."""

    connect_s: float = 30.0  # opening the connection
    read_s: float = 300.0  # one read of the socket: the slowest page seen took over 60 s
    response_s: float = 900.0  # one whole response, headers and body
    response_bytes: int = 256 << 20  # one response's body
    total_bytes: int = 2 << 30  # every response together (run.MAX_DUMP_BYTES for a dump file)
    pages: int = 10_000  # one endpoint's pages: 10 M NetBox objects, 2 M Nautobot ones
    redirects: int = 5  # within the server the user named


class _Fail(Exception):
    """An answer that ends the import: the message names the URL, never the token."""


def _short(url: str) -> str:
    return printable(url)[:300]


def _origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an http(s) URL; ValueError for anything else."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(url)
    if parts.username is not None or parts.password is not None:
        raise ValueError(url)
    port = parts.port or (443 if scheme == "https" else 80)  # ValueError for a bad port
    return scheme, parts.hostname.lower(), port


def _base(url: str) -> tuple[tuple[str, str, int], str]:
    parts = urllib.parse.urlsplit(url)
    if parts.username or parts.password:
        raise ConfigError(
            "give the server's URL without a user or password; the token is read "
            "from the environment"
        )
    try:
        origin = _origin(url)
    except ValueError:
        raise ConfigError(f"'{printable(url)[:200]}' is not an http(s) URL of a server") from None
    path = parts.path.rstrip("/").removesuffix("/api")
    return origin, f"{parts.scheme}://{parts.netloc}{path}/api/"


@functools.cache
def _tls() -> Any:
    """The system's certificates, verified (loaded once: each load reads the CA bundle)."""
    import ssl

    return ssl.create_default_context()


def _connection(origin: tuple[str, str, int], limits: Limits) -> tuple[Any, bool]:
    """A connection to `origin` (through the environment's proxy, if one applies), and
    whether requests on it name the whole URL (a plain-http proxy)."""
    import http.client
    import urllib.request

    scheme, host, port = origin
    proxy = None if urllib.request.proxy_bypass(host) else urllib.request.getproxies().get(scheme)
    headers: dict[str, str] = {}
    target, target_port = host, port
    if proxy:
        p = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        target, target_port = p.hostname or "", p.port or 80
        if p.username is not None:
            import base64

            user = f"{urllib.parse.unquote(p.username)}:{urllib.parse.unquote(p.password or '')}"
            headers["Proxy-Authorization"] = "Basic " + base64.b64encode(user.encode()).decode()
    conn: Any
    if scheme == "https":
        conn = http.client.HTTPSConnection(
            target, target_port, timeout=limits.connect_s, context=_tls()
        )
        if proxy:
            conn.set_tunnel(host, port, headers=headers)
    else:
        conn = http.client.HTTPConnection(target, target_port, timeout=limits.connect_s)
    conn.proxy_headers = headers if proxy and scheme == "http" else {}
    return conn, bool(proxy) and scheme == "http"


class _Watchdog:
    """Shuts the connection's socket when a response's deadline passes, whatever read the
    reader is blocked in (a status line or headers trickled byte by byte included)."""

    def __init__(self, conn: Any, seconds: float) -> None:
        import threading

        self.conn = conn
        self.fired = False
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True
        self.timer.start()

    def _fire(self) -> None:
        import socket

        self.fired = True
        sock = getattr(self.conn, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed
                sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self.timer.cancel()


class _Client:
    def __init__(self, origin: tuple[str, str, int], token: str, limits: Limits) -> None:
        self.origin = origin
        self.limits = limits
        scheme = "Bearer" if token.startswith("nbt_") else "Token"  # NetBox 4.5's v2 tokens
        self.authorization = f"{scheme} {token}"
        self.received = 0
        self.not_found = 0  # endpoints that answered 404

    def get(self, url: str) -> Any:
        """The JSON answer at `url` (None for a 404), following redirects only within the
        server the user named."""
        for _ in range(self.limits.redirects + 1):
            status, location, body = self._request(url)
            if status not in (301, 302, 303, 307, 308):
                break
            if not location:
                raise _Fail(f"{_short(url)}: the server redirects ({status}) to nowhere")
            target = urllib.parse.urljoin(url, location)
            if self._foreign(target):
                raise _Fail(
                    f"{_short(url)}: the server redirects ({status}) to {_short(target)}, "
                    "another server (scheme, host or port); refusing to send the token there "
                    "(give that server's URL if it is the right one)"
                )
            url = target
        else:
            raise _Fail(f"{_short(url)}: more than {self.limits.redirects} redirects")
        if status == 404:
            self.not_found += 1
            return None
        if status >= 400:
            hint = " (is the token valid, with read permission?)" if status in (401, 403) else ""
            raise _Fail(f"{_short(url)}: the server said {status}{hint}")
        if status != 200:
            raise _Fail(f"{_short(url)}: the server answered {status}, not 200")
        try:
            return json.loads(body)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, a 5,000-digit number
            raise _Fail(f"{_short(url)}: the server's answer is not JSON dclint reads") from None

    def _foreign(self, url: str) -> bool:
        try:
            return _origin(url) != self.origin
        except ValueError:
            return True

    def _request(self, url: str) -> tuple[int, str | None, bytes]:
        import http.client

        limits = self.limits
        parts = urllib.parse.urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        conn, whole_url = _connection(self.origin, limits)
        deadline = time.monotonic() + limits.response_s
        watchdog = _Watchdog(conn, limits.response_s)
        try:
            conn.connect()
            conn.sock.settimeout(limits.read_s)
            headers = {"Authorization": self.authorization, "Accept": "application/json"}
            headers.update(conn.proxy_headers)
            conn.request("GET", url if whole_url else path, headers=headers)
            answer = conn.getresponse()
            if answer.status in (301, 302, 303, 307, 308):
                return answer.status, answer.getheader("Location"), b""
            body = self._body(url, answer, deadline, watchdog)
            return answer.status, None, body
        except _Fail:
            raise
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if watchdog.fired or time.monotonic() >= deadline:
                raise _Fail(self._late(url)) from None
            if isinstance(exc, TimeoutError):
                raise _Fail(
                    f"{_short(url)}: the server sent nothing for {limits.read_s:g} s"
                ) from None
            import ssl

            if isinstance(exc, ssl.SSLCertVerificationError):
                raise _Fail(
                    f"{_short(url)}: the server's certificate is not trusted "
                    f"({exc.verify_message}); SSL_CERT_FILE can name a CA bundle"
                ) from None
            if isinstance(exc, ssl.SSLError):
                raise _Fail(f"{_short(url)}: TLS with the server failed ({exc.reason})") from None
            if isinstance(exc, OSError):
                reason = getattr(exc, "reason", None) or exc.strerror or type(exc).__name__
            else:
                reason = f"not a valid HTTP answer ({type(exc).__name__})"
            raise _Fail(f"{_short(url)}: cannot reach the server: {reason}") from None
        finally:
            watchdog.cancel()
            conn.close()

    def _late(self, url: str) -> str:
        return f"{_short(url)}: the answer took over {self.limits.response_s:g} s"

    def _body(self, url: str, answer: Any, deadline: float, watchdog: _Watchdog) -> bytes:
        limits = self.limits
        cap = min(limits.response_bytes, limits.total_bytes - self.received)
        declared = answer.getheader("Content-Length")
        if declared is not None and declared.strip().isdigit() and int(declared) > cap:
            raise _Fail(
                f"{_short(url)}: the answer would be {int(declared):,} bytes, over the "
                f"{cap:,}-byte limit"
            )
        if answer.status != 200:
            return b""  # an error's body is never shown: it may echo the request
        chunks: list[bytes] = []
        size = 0
        while True:
            if time.monotonic() >= deadline or watchdog.fired:
                raise _Fail(self._late(url))
            chunk = answer.read1(min(_CHUNK, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                raise _Fail(f"{_short(url)}: the answer is over the {cap:,}-byte limit")
        if watchdog.fired:
            raise _Fail(self._late(url))
        self.received += size
        return b"".join(chunks)


def fetch_dump(
    source: str, url: str, token_env: str, limits: Limits | None = None
) -> dict[str, Any]:
    """Every object of ENDPOINTS on the server, by API path (Nautobot's at depth 1, so nested
    objects carry their names). ConfigError, naming the URL, for any answer out of bounds."""
    limits = limits or Limits()
    token = os.environ.get(token_env, "")
    if not token:
        raise ConfigError(f"set ${token_env} to an API token for {printable(url)[:200]}")
    origin, api = _base(url)
    client = _Client(origin, token, limits)
    extra = "&depth=1" if source == "nautobot" else ""
    size = NAUTOBOT_PAGE_SIZE if source == "nautobot" else PAGE_SIZE
    dump: dict[str, Any] = {}
    try:
        for path in ENDPOINTS:
            if source == "nautobot" and path == "dcim/sites":
                continue  # Nautobot has locations, not sites
            if source == "netbox" and path == "dcim/locations":
                continue  # NetBox's locations sit inside a site: the site is what is imported
            dump[path] = _pages(client, f"{api}{path}/?limit={size}{extra}", size)
    except _Fail as exc:
        raise ConfigError(str(exc)) from None
    if client.not_found == len(dump):  # a mistyped URL, not an empty site
        raise ConfigError(
            f"{printable(api)[:300]}: every endpoint answered 404 Not Found: is this the "
            f"{'Nautobot' if source == 'nautobot' else 'NetBox'} server's URL?"
        )
    return dump


def _pages(client: _Client, first: str, size: int) -> list[Any]:
    """One endpoint's objects, page after page: a `next` seen before, a page past the count
    the server announced, or more than Limits.pages pages end the import."""
    objects: list[Any] = []
    seen: set[str] = set()
    page: str | None = first
    expected: int | None = None  # pages the first answer's `count` needs
    while page is not None:
        if page in seen:
            raise _Fail(f"{_short(page)}: the server's `next` link leads back to a page read")
        if len(seen) >= client.limits.pages or (expected is not None and len(seen) >= expected):
            cap = client.limits.pages if expected is None else expected
            raise _Fail(
                f"{_short(page)}: more than {cap:,} pages (the server's pagination does not end)"
            )
        seen.add(page)
        answer = client.get(page)
        if answer is None:  # an endpoint this server's version does not have
            return objects
        if not isinstance(answer, dict) or not isinstance(answer.get("results"), list):
            raise _Fail(f"{_short(page)}: not a REST list answer")
        count = answer.get("count")
        if expected is None and isinstance(count, int) and not isinstance(count, bool):
            # the server's own page size may be below the one asked for (MAX_PAGE_SIZE)
            per_page = max(1, min(size, len(answer["results"]) or size))
            expected = min(client.limits.pages, max(1, math.ceil(count / per_page)) + 1)
        objects.extend(answer["results"])
        nxt = answer.get("next")
        if isinstance(nxt, str) and nxt:
            if client._foreign(nxt):
                raise _Fail(
                    f"{_short(page)}: the next page is on another server ({_short(nxt)}); "
                    "refusing to send the token there"
                )
            if not answer["results"]:
                raise _Fail(f"{_short(page)}: an empty page names a next page")
        page = nxt if isinstance(nxt, str) and nxt else None
    return objects
