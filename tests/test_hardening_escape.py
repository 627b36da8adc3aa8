"""Issue 27, items 2 and 3: free text (design, tier, CDU group names; file names) is escaped in
every output of every command, and control, bidirectional and invisible characters are refused
where a design writes them (shown escaped wherever else they come from)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dclint.cli import main
from dclint.escaping import (
    UNSAFE,
    html_text,
    markdown_code,
    markdown_text,
    mermaid_label,
    output_text,
    plain_line,
    printable,
)

ROOT = Path(__file__).resolve().parent.parent
# the H100 sample, its workload on 64 of its 320 GPUs: plan's layout search a third the cost
SAMPLE = (ROOT / "sample_designs" / "h100-40node.yaml").read_text(encoding="utf-8")
assert SAMPLE.count("    gpus: 320\n") == 1
SAMPLE = SAMPLE.replace("    gpus: 320\n", "    gpus: 64\n")
# one character of each class the loader refuses (dclint.escaping.UNSAFE but tab and newline)
REFUSED = {
    "ESC": "\\e",
    "BEL": "\\a",
    "DEL": "\\x7f",
    "NEL": "\\N",
    "C1 CSI": "\\x9b",
    "line separator": "\\L",
    "RLO": "\\u202e",
    "LRE": "\\u202a",
    "RLI": "\\u2067",
    "PDI": "\\u2069",
    "zero-width space": "\\u200b",
    "RLM": "\\u200f",
    "ALM": "\\u061c",
    "BOM inside": "\\ufeff",
}
# free text that loads (no control character) but is markup in one output or another
HOSTILE_NAMES = [
    "<script>alert(1)</script>",
    "#60;script#62;alert(1)#60;/script#62;",
    "::error::pwned",
    "##[error]pwned",
    'x"]-->n9["y',
    "a`b``c|d]e[f](g) *h* _i_ ~j~ &amp; <!-- k",
    "%0A::warning::w",
]


def _named(name: str, tier: str = "leaf") -> str:
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    text = re.sub(r"^name: .*$", f'name: "{quoted}"', SAMPLE, count=1, flags=re.M)
    return text.replace("      - name: leaf", f'      - name: "{tier.replace(chr(34), "")}"', 1)


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue() + err.getvalue()


def _assert_safe(text: str, fmt: str, name: str) -> None:
    assert UNSAFE.search(text.replace("\n", "").replace("\t", "")) is None
    lines = text.splitlines()
    if fmt != "github":  # github's own lines are its workflow commands
        assert not [x for x in lines if x.lstrip().startswith(("::", "##["))], text
    else:
        assert all(x.startswith("::") or x.startswith(("All checks", "Found")) for x in lines)
    if fmt in ("html", "junit"):
        assert "<script" not in text and "<!-- k" not in text
    if fmt in ("markdown", "markdown-summary"):  # Markdown escapes with a backslash
        assert re.search(r"(?<!\\)<(script|!-- k)", text) is None, text
    if fmt == "markdown":
        for label in re.findall(r'^\s+n\d+\["(.*)"\]$', text, flags=re.M):
            rest = re.sub(r"#\d+;", "", label.replace("<br/>", " "))  # entity codes are ours
            assert not set(rest) & set('"#<>`|[]{}'), label


FORMATS = ("text", "json", "sarif", "junit", "github", "markdown", "markdown-summary", "html")


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_name_stays_in_its_place_in_every_check_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("d.yaml").write_text(_named(name, tier=name), encoding="utf-8")
    for fmt in FORMATS:
        code, out = _run("check", "d.yaml", "--format", fmt, "--select", "PWR001")
        assert code == 0, out
        _assert_safe(out, fmt, name)


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_name_stays_in_its_place_in_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("d.yaml").write_text(_named(name, tier=name), encoding="utf-8")
    Path("e.yaml").write_text(_named("other " + name), encoding="utf-8")
    runs = [
        (("cost", "d.yaml"), "text"),
        (("cost", "d.yaml", "--format", "json"), "json"),
        (("capacity", "d.yaml", "--add", "hgx-h100"), "text"),
        (("diff", "d.yaml", "e.yaml"), "text"),
        (("diff", "d.yaml", "e.yaml", "--format", "markdown"), "markdown"),
        (("diff", "d.yaml", "e.yaml", "--format", "json"), "json"),
        (("plan", "d.yaml", "--format", "markdown", "--top", "2"), "markdown"),
        (("plan", "d.yaml", "--top", "2"), "text"),
    ]
    for argv, fmt in runs:
        code, out = _run(*argv)
        assert code == 0, (argv, out)
        _assert_safe(out, fmt, name)


@pytest.mark.parametrize("what", sorted(REFUSED))
@pytest.mark.parametrize("where", ["name", "row", "key", "description"])
def test_control_bidi_and_invisible_characters_are_refused_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str, where: str
) -> None:
    monkeypatch.chdir(tmp_path)
    char = REFUSED[what]
    lines = ["name: t", "racks:", "  - id: r01", "    it_load: 10 kW"]
    at = (1, 7) if where == "name" else (2, 14)
    if where == "name":
        lines[0] = f'name: "ab{char}cd"'
    elif where == "row":  # a rack's row: any free-text field
        lines.append(f'    row: "a{char}b"')
        at = (5, 10)
    elif where == "key":
        lines.append(f'    "it{char}_load": 1')
        at = (5, 5)
    else:
        lines.insert(1, f'description: "multi\\nline {char} text"')
    Path("d.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out = _run("check", "d.yaml")
    assert code == 2, out
    first = out.splitlines()[0]
    assert first.startswith(f"d.yaml:{at[0]}:{at[1]}: error: character U+"), out
    assert "is not allowed in a design (a control, bidirectional or invisible character)" in first


def test_a_line_break_is_refused_outside_a_description(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("d.yaml").write_text(
        'name: "a\\n::error::x"\ndescription: "two\\nlines\\tfine"\nracks: []\n', encoding="utf-8"
    )
    code, out = _run("check", "d.yaml")
    assert code == 2
    assert out.splitlines()[0] == (
        "d.yaml:1:7: error: a line break or tab is not allowed here (only in a description)"
    )


def test_a_file_name_that_is_a_workflow_command_does_not_start_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("::error::x.yaml").write_text(
        "name: t\nracks:\n  - id: r01\n    it_load: 130 kW\n", encoding="utf-8"
    )
    for fmt in ("text", "markdown", "junit"):
        code, out = _run("check", "::error::x.yaml", "--format", fmt, "--select", "PWR001")
        assert code == 1
        _assert_safe(out, fmt, "")
    _, out = _run("check", "::error::x.yaml", "--select", "PWR001")
    assert out.startswith("\\x3a:error::x.yaml:4:14: PWR001 [error]")


def test_the_helpers() -> None:
    assert printable("a\u202eb\x1bc\u200bd\udcff") == "a\\u202eb\\x1bc\\u200bd\\udcff"
    assert plain_line("  ::error::x") == "  \\x3a:error::x"
    assert plain_line("##[error]x") == "\\x23#[error]x"
    assert mermaid_label('a#60;b"]`|:') == "a#35;60;b#34;#93;#96;#124;#58;"
    assert html_text("<a \"b\" 'c'>\u202e") == "&lt;a &quot;b&quot; &#x27;c&#x27;&gt;\\u202e"
    assert markdown_text("<b>|x`") == "\\<b\\>\\|x\\`"
    assert markdown_code("a``b") == "```a``b```"
    assert markdown_code("`a") == "`` `a ``"
    # JSON: the unsafe characters json.dumps keeps become escapes; a lone surrogate is text
    assert output_text('{"a": "x\u202ey\x85\udcff"}', "json") == (
        '{"a": "x\\u202ey\\u0085\\\\udcff"}'
    )
    assert output_text("\x1b[1mbold\x1b[0m \x1b]0;t\x07", "text", colour=True) == (
        "\x1b[1mbold\x1b[0m \\x1b]0;t\\x07"
    )
    assert output_text("::error::x\n", "github") == "::error::x\n"


# 30 names a run, each checked and printed five ways (1.3 CPU-seconds): the integration tier;
# the default tier walks the same check and escapers with HOSTILE_NAMES in eight formats
# (test_a_hostile_name_stays_in_its_place_in_every_check_format) and the refusals with
# test_control_bidi_and_invisible_characters_are_refused_at_load
@pytest.mark.integration
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(min_size=1, max_size=24))
def test_any_name_is_refused_at_its_line_or_escaped_everywhere(name: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        Path("d.yaml").write_text(_named(name, tier=name), encoding="utf-8")
        for fmt in ("text", "github", "markdown", "html", "json"):
            code, out = _run("check", "d.yaml", "--format", fmt, "--select", "PWR001")
            assert code in (0, 2), out
            assert "Traceback" not in out
            _assert_safe(out, fmt, name)


def _as_mermaid_shows(line: str) -> str:
    """The text a browser shows of a Mermaid line: Mermaid's encodeEntities and decodeEntities
    (mermaid-js, packages/mermaid/src/utils.ts, ported as written), then the HTML entity
    decoding of the label's DOM."""
    import html

    line = re.sub(r"style.*:\S*#.*;", lambda m: m.group()[:-1], line)
    line = re.sub(r"classDef.*:\S*#.*;", lambda m: m.group()[:-1], line)

    def code(m: re.Match[str]) -> str:
        inner = m.group()[1:-1]
        return ("ﬂ°°" if re.fullmatch(r"\+?\d+", inner) else "ﬂ°") + inner + "¶ß"

    line = re.sub(r"#\w+;", code, line)
    line = line.replace("ﬂ°°", "&#").replace("ﬂ°", "&").replace("¶ß", ";")
    return html.unescape(line)


@pytest.mark.parametrize(
    "text",
    ["#35;", "a#60;b", "style x:#", "classDef y:#35;", "style: #quot; done", "ﬂ°°60¶ß", "&lt;"],
)
def test_entity_codes_in_a_label_are_shown_as_written(text: str) -> None:
    """Issue 48: an entity code in a design's text is shown as its characters, never decoded,
    and Mermaid's style/classDef clean-up cannot cut one of dclint's own codes short."""
    from dclint.analysis.diagrams import Graph, Node
    from dclint.report.drawing import mermaid

    graph = Graph("g", nodes=[Node(key="a", title=text, detail=text, layer=0)])
    graph.add(Node(key="b", title="b", detail="b", layer=1))
    graph.link("a", "b", text)
    lines = [x for x in mermaid(graph).splitlines() if x.startswith("  n")]
    assert not any(":" in x for x in lines)  # the clean-up's trigger
    assert [_as_mermaid_shows(x) for x in lines[::2]] == [
        f'  n0["{text}<br/>{text}"]',
        f"  n0 -->|{text}| n1",
    ]
