"""cost, capacity, diff and plan write where -o says, in the formats a person reads (Markdown,
HTML) besides text and JSON; the documents carry the text's figures (issue 29 item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
H100 = str(ROOT / "sample_designs" / "h100-40node.yaml")
FABRIC = str(ROOT / "sample_designs" / "broken-fabric-2to1.yaml")
COMMANDS = {
    "cost": ["cost", H100],
    "capacity": ["capacity", H100, "--add", "dgx-h100"],
    "diff": ["diff", H100, FABRIC],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("fmt", ["markdown", "html", "json"])
def test_output_file_in_each_format(
    name: str, fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"report.{fmt}"
    assert main([*COMMANDS[name], "--format", fmt, "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""  # all of it went to the file
    text = out.read_text(encoding="utf-8")
    if fmt == "html":
        assert text.startswith("<!DOCTYPE html>")
        assert "default-src 'none'" in text  # nothing loads from elsewhere
    elif fmt == "markdown":
        assert text.startswith("#") and "| " in text


def test_documents_carry_the_texts_figures(capsys: pytest.CaptureFixture[str]) -> None:
    main(["cost", H100])
    text = capsys.readouterr().out
    main(["cost", H100, "--format", "markdown"])
    md = capsys.readouterr().out
    for label in ("predicted step", "training time", "cost total"):
        value = next(x for x in text.splitlines() if x.startswith(label)).split(None, 2)[-1]
        value = value.removeprefix("step ").removeprefix("time ").removeprefix("total ").strip()
        assert f"| {label} | {value} |" in md
    main(["capacity", H100, "--add", "dgx-h100", "--format", "html"])
    page = capsys.readouterr().out
    assert "<td>fabric ports</td><td>compute.leaf</td><td>0</td>" in page
    assert "Result: 0 more racks (0 GPUs); binding first: fabric ports compute.leaf." in page


def test_diff_html_escapes_design_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = tmp_path / "b.yaml"
    text = Path(H100).read_text(encoding="utf-8")
    b.write_text(text.replace("name: h100-40node", 'name: "<script>x</script>"', 1), "utf-8")
    assert main(["diff", H100, str(b), "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
