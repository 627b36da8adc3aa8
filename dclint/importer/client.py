"""A NetBox or Nautobot server read over its REST API with the standard library: every page of
every endpoint an import needs, as a dump (see dclint.importer.dcim). The token comes from an
environment variable and goes only into the Authorization header: never into a file, a log or
an error message; `next` links are followed only on the server the user named."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from dclint.errors import ConfigError, printable
from dclint.importer.dcim import ENDPOINTS

__all__ = ["PAGE_SIZE", "fetch_dump"]

PAGE_SIZE = 1000  # NetBox's default MAX_PAGE_SIZE
# Nautobot renders every object at ?depth=1 with its related objects in full: a page of 1,000
# interfaces took over 60 s on a live Nautobot 3.2.7 (two busy cores), so its pages are smaller
NAUTOBOT_PAGE_SIZE = 200
TIMEOUT_S = 300  # one page
MAX_PAGES = 100_000


def _base(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"'{printable(url)[:200]}' is not an http(s) URL of a server")
    if parts.username or parts.password:
        raise ConfigError(
            "give the server's URL without a user or password; the token is read "
            "from the environment"
        )
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/").removesuffix("/api")
    return origin, origin + path + "/api/"


def _get(url: str, token: str) -> Any:
    scheme = "Bearer" if token.startswith("nbt_") else "Token"  # NetBox 4.5's v2 tokens
    request = urllib.request.Request(
        url, headers={"Authorization": f"{scheme} {token}", "Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        hint = " (is the token valid, with read permission?)" if exc.code in (401, 403) else ""
        message = f"{printable(url)[:300]}: the server said {exc.code} {exc.reason}{hint}"
        raise ConfigError(message) from None
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(f"{printable(url)[:300]}: cannot reach the server: {reason}") from None
    except json.JSONDecodeError:
        raise ConfigError(f"{printable(url)[:300]}: the server's answer is not JSON") from None


def fetch_dump(source: str, url: str, token_env: str) -> dict[str, Any]:
    """Every object of ENDPOINTS on the server, by API path (Nautobot's at depth 1, so nested
    objects carry their names)."""
    token = os.environ.get(token_env, "")
    if not token:
        raise ConfigError(f"set ${token_env} to an API token for {printable(url)[:200]}")
    origin, api = _base(url)
    extra = "&depth=1" if source == "nautobot" else ""
    size = NAUTOBOT_PAGE_SIZE if source == "nautobot" else PAGE_SIZE
    dump: dict[str, Any] = {}
    for path in ENDPOINTS:
        if source == "nautobot" and path == "dcim/sites":
            continue  # Nautobot has locations, not sites
        if source == "netbox" and path == "dcim/locations":
            continue  # NetBox's locations sit inside a site: the site is what is imported
        objects: list[Any] = []
        page: str | None = f"{api}{path}/?limit={size}{extra}"
        for _ in range(MAX_PAGES):
            if page is None:
                break
            answer = _get(page, token)
            if answer is None:
                break
            if not isinstance(answer, dict) or not isinstance(answer.get("results"), list):
                raise ConfigError(f"{printable(page)[:300]}: not a REST list answer")
            objects.extend(answer["results"])
            nxt = answer.get("next")
            if isinstance(nxt, str) and not nxt.startswith(origin + "/"):
                raise ConfigError(
                    f"{printable(page)[:300]}: the next page is on another server; "
                    "refusing to send the token there"
                )
            page = nxt if isinstance(nxt, str) else None
        dump[path] = objects
    return dump
