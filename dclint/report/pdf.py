"""PDF output: the review's HTML printed by headless Chromium (Debian's `chromium`), with CSS
paged media for the paper size, the running header and the page numbers. Chromium runs with a
fresh profile in a temporary directory, without network, sync or first-run work; the PDF is
written beside the output and renamed onto it, so a failed print leaves nothing half-written."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from dclint.errors import ConfigError

__all__ = ["BROWSERS", "anchor_pages", "find_browser", "html_to_pdf", "write_pdf"]

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT_S = 120
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--no-pdf-header-footer",  # the page's own @page boxes carry the header and page numbers
)


def find_browser() -> str:
    """The Chromium to print with: $DCLINT_CHROMIUM, else the first on PATH."""
    given = os.environ.get("DCLINT_CHROMIUM")
    if given:
        if shutil.which(given) is None:
            raise ConfigError(f"DCLINT_CHROMIUM={given}: not an executable")
        return given
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise ConfigError(
        "PDF output needs headless Chromium: apt-get install chromium "
        "(or set DCLINT_CHROMIUM), or write --output review.html and print it"
    )


def html_to_pdf(html: str, output: str, paper: str = "A4") -> None:
    """Print `html` to the PDF file `output` (paper size from the page's @page rule)."""
    browser = find_browser()
    target = Path(output)
    directory = target.resolve().parent
    with tempfile.TemporaryDirectory(prefix="dclint-pdf-") as work:
        page = Path(work) / "review.html"
        page.write_text(html, encoding="utf-8")
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".pdf", dir=directory)
        os.close(fd)
        try:
            command = [
                browser,
                *FLAGS,
                f"--user-data-dir={Path(work) / 'profile'}",
                f"--print-to-pdf={tmp}",
                page.as_uri(),
            ]
            try:
                done = subprocess.run(
                    command,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=TIMEOUT_S,
                    check=False,
                    env={**os.environ, "HOME": work},
                )
            except subprocess.TimeoutExpired:
                raise ConfigError(
                    f"--output {output}: Chromium did not finish in {TIMEOUT_S} s"
                ) from None
            with open(tmp, "rb") as handle:
                head = handle.read(5)
            if done.returncode != 0 or head != b"%PDF-":
                last = (done.stderr or b"").decode("utf-8", "replace").strip().splitlines()
                why = last[-1][:200] if last else f"exit {done.returncode}"
                raise ConfigError(f"--output {output}: Chromium did not print the PDF: {why}")
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


_OBJECT = re.compile(rb"(?<![0-9])(\d+) 0 obj\b")
_REF = re.compile(rb"(\d+) 0 R")
_DEST = re.compile(rb"/([A-Za-z0-9_.#-]+)\s*\[\s*(\d+) 0 R")


def _objects(data: bytes) -> dict[int, bytes]:
    """Each object's dictionary text, by number (Chromium writes the document's structure,
    the page tree and the named destinations, uncompressed; page contents are streams)."""
    out: dict[int, bytes] = {}
    marks = list(_OBJECT.finditer(data))
    for m, nxt in zip(marks, [*marks[1:], None], strict=False):  # the last: to the end
        end = data.find(b"endobj", m.end(), nxt.start() if nxt else len(data))
        body = data[m.end() : end if end >= 0 else None]
        stream = body.find(b"stream")
        out[int(m.group(1))] = body[:stream] if stream >= 0 else body
    return out


def anchor_pages(data: bytes) -> dict[str, int]:
    """Anchor (an HTML id a link points at) -> the page it prints on (1 the first), from a
    PDF Chromium printed: its named destinations (/Dests) against the page tree's order.
    {} where the PDF has neither (another printer, no links)."""
    objs = _objects(data)
    kids = {n: [int(k) for k in _REF.findall(b[b.find(b"/Kids") :].split(b"]")[0])]
            for n, b in objs.items() if b"/Type /Pages" in b and b"/Kids" in b}  # fmt: skip
    referenced = {k for ks in kids.values() for k in ks}
    roots = [n for n in kids if n not in referenced]
    order: list[int] = []

    def walk(node: int) -> None:  # iterative depth is the tree's: a few levels
        for kid in kids.get(node, []):
            if kid in kids:
                walk(kid)
            else:
                order.append(kid)

    for root in roots[:1]:
        walk(root)
    page_of = {n: i for i, n in enumerate(order, start=1)}
    out: dict[str, int] = {}
    for body in objs.values():
        m = re.search(rb"/Dests\s+(\d+) 0 R", body)
        dests = objs.get(int(m.group(1)), b"") if m else b""
        for name, ref in _DEST.findall(dests):
            if int(ref) in page_of:
                out[name.decode("ascii")] = page_of[int(ref)]
    return out


PASSES = 3  # prints at most: one to learn the pages, one with them, one if that moved any


def write_pdf(doc: Any, run: Any, path: str, paper: str = "A4") -> None:
    """The review (`doc`, of the run's assessment `run`) as a PDF at `path`: its HTML page with
    the print styles for `paper`, printed by a browser. The contents carry page numbers: the
    page is printed once, each section's page read back from the PDF's link targets, and
    printed again with the numbers (again if a number moved a section, up to PASSES)."""
    from dclint.report.document import render_html

    pages: dict[str, int] | None = None
    for _ in range(PASSES):
        html_to_pdf(render_html(doc, run, paper=paper, pages=pages), path, paper)
        with open(path, "rb") as handle:
            found = anchor_pages(handle.read())
        if not found or found == pages:
            return
        pages = found
