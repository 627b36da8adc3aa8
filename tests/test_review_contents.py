"""The review's contents (issue #50 item 3): each entry links to its section's heading in the
HTML, and the PDF's page numbers come from the printed PDF's named destinations read against
its page tree (`report.pdf.anchor_pages`), the way Chromium writes them."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SAMPLES
from dclint.cli import main
from dclint.report.pdf import anchor_pages


def test_every_contents_entry_links_to_a_heading(tmp_path: Path) -> None:
    out = tmp_path / "review.html"
    designs = [str(SAMPLES / "broken-feed-headroom.yaml"), str(SAMPLES / "h100-40node.yaml")]
    against = str(SAMPLES / "broken-rack-130kw.yaml")
    main(["review", *designs, "--against", against, "-o", str(out), "--today", "2026-12-06"])
    html = out.read_text(encoding="utf-8")
    toc = re.search(r'<ol class="toc">(.*?)</ol>', html)
    assert toc is not None
    links = re.findall(r'<a href="#([^"]+)">([^<]+)</a><span class="page-no"></span>', toc[1])
    assert [text for _, text in links] == [
        "Executive summary",
        "Design broken-feed-headroom",
        "Design h100-40node",
        "Design broken-rack-130kw",  # the counter-design is reviewed too
        "Counter-design",
        "Scope and method",
        "Limitations and coverage",
        "Sign-off",
        "Appendix: assumptions and sources",
    ]
    ids = re.findall(r' id="([^"]+)"', html)
    assert all(ids.count(anchor) == 1 for anchor, _ in links), links


def _pdf(pages: list[int], dests: dict[str, int]) -> bytes:
    """A PDF's structure as Chromium writes it: a page tree of /Pages nodes (eight pages a
    node) over /Page leaves, and /Dests naming a page object for each anchor."""
    objs: dict[int, str] = {}
    leaves = [100 + i for i in range(len(pages))]
    nodes = []
    for n, start in enumerate(range(0, len(leaves), 8)):
        kids = " ".join(f"{k} 0 R" for k in leaves[start : start + 8])
        objs[10 + n] = f"<</Type /Pages\n/Count 8\n/Kids [{kids}]>>"
        nodes.append(10 + n)
    objs[2] = f"<</Type /Pages\n/Kids [{' '.join(f'{k} 0 R' for k in nodes)}]>>"
    for leaf in leaves:
        objs[leaf] = "<</Type /Page\n/Parent 2 0 R>>\nstream\nx 0 obj junk\nendstream"
    names = "\n".join(f"/{a} [{leaves[p - 1]} 0 R /XYZ 6 777.75 0]" for a, p in dests.items())
    objs[50] = f"<<{names}>>"
    objs[1] = "<</Type /Catalog\n/Pages 2 0 R\n/Dests 50 0 R>>"
    body = "".join(f"{n} 0 obj\n{text}\nendobj\n" for n, text in sorted(objs.items()))
    return ("%PDF-1.4\n" + body + "%%EOF\n").encode()


def test_anchor_pages_reads_the_page_tree_in_order() -> None:
    dests = {"summary": 1, "d0": 3, "d1": 11, "method": 17, "appendix": 20}
    assert anchor_pages(_pdf(list(range(20)), dests)) == dests
    assert anchor_pages(b"%PDF-1.4\n%%EOF\n") == {}
