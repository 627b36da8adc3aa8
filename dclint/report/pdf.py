"""PDF output: the review's HTML printed by headless Chromium (Debian's `chromium`), with CSS
paged media for the paper size, the running header and the page numbers. Chromium runs with a
fresh profile in a temporary directory, without network, sync or first-run work; the PDF is
written beside the output and renamed onto it, so a failed print leaves nothing half-written."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from dclint.errors import ConfigError

__all__ = ["BROWSERS", "find_browser", "html_to_pdf", "write_pdf"]

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


def write_pdf(doc: Any, run: Any, path: str, paper: str = "A4") -> None:
    """The review (`doc`, of the run's assessment `run`) as a PDF at `path`: its HTML page with
    the print styles for `paper`, printed by a browser."""
    from dclint.report.document import render_html

    html_to_pdf(render_html(doc, run, paper=paper), path, paper)
