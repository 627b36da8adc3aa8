"""`dclint import nautobot` against a real Nautobot (issue 28, item 5).

tests/integration/nautobot.sh starts PostgreSQL, Redis and Nautobot (from PyPI) on 127.0.0.1,
loads the test cluster (tests/integration/cluster.py) through Nautobot's own REST API, runs
`dclint import nautobot URL` twice (the designs must be byte-identical) and `dclint check`, and
stops everything it started. The script runs once for this module, in a session of its own
so that whatever it leaves behind can be found; these tests read what it wrote: the design,
against the cluster it was loaded from and against the NetBox import of the same cluster, the
dump of what Nautobot answered, and the exact findings of `dclint check`.

Skips only when the server cannot be had here (the script exits 77 and says why: no root for
apt-get and no PostgreSQL/Redis, PyPI unreachable, Python too old). A first run installs
Nautobot into ~/.cache/dclint-nautobot and migrates a database it keeps there; later runs copy
that database. Bounded: the script is ended (TERM, then KILL of its whole session) after
TIMEOUT_S.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from integration.cluster import NET_RACK, cluster, netbox_dump
from integration.hall import GPU_RACKS

from dclint.cli import main
from dclint.model.ranges import expand
from dclint.model.resolve import topology_of

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "integration" / "nautobot.sh"
NETBOX_MAP = HERE / "integration" / "netbox-import.yaml"
TIMEOUT_S = 3600  # cold: apt-get, pip, migrate (5-15 min), the load (4-11 min) on two busy cores
SKIPPED = 77
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class Run:
    out: Path
    log: str
    seconds: float
    left_behind: list[str]
    url: str


def _session(sid: int) -> list[str]:
    """`pid command` of every process in session `sid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[3]) == sid:
            found.append(f"{entry.name} {cmd.strip()[:200]}")
    return found


def _run_script(out: Path) -> dict[str, Any]:
    """nautobot.sh OUT in a session of its own, bounded; what it printed and left behind."""
    env = {**os.environ, "PYTHON": sys.executable}
    start = time.monotonic()
    proc = subprocess.Popen(
        ["bash", str(SCRIPT), str(out)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
        start_new_session=True,
    )
    timed_out = False
    try:
        log, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGTERM)  # its trap stops what it started
        try:
            log, _ = proc.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            log, _ = proc.communicate()
    seconds = time.monotonic() - start
    left = _session(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    code = proc.returncode
    return {"code": code, "log": log, "seconds": seconds, "left": left, "timed_out": timed_out}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The script's one run for this pytest run: with xdist, the first worker to get here runs
    it and the others read what it recorded (a second server would double the time)."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux's /proc to see that nothing is left running")
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = root / "nautobot-live"
    with open(root / "nautobot-live.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        recorded = root / "nautobot-live.json"
        if recorded.exists():
            result = json.loads(recorded.read_text(encoding="utf-8"))
        else:
            out.mkdir(exist_ok=True)
            result = _run_script(out)
            recorded.write_text(json.dumps(result), encoding="utf-8")
    log = result["log"]
    if result["timed_out"]:
        pytest.fail(f"nautobot.sh did not finish in {TIMEOUT_S} s:\n{log[-4000:]}")
    if result["code"] == SKIPPED:
        reasons = [line for line in log.splitlines() if line.startswith("SKIP:")]
        pytest.skip(reasons[-1] if reasons else log[-500:])
    assert result["code"] == 0, log[-6000:]
    url = re.search(r"Nautobot \S+ at (http://127\.0\.0\.1:\d+)", log)
    assert url is not None, log
    timings = (out / "timings.txt").read_text().split()
    print(f"nautobot.sh: {result['seconds']:.0f} s; {timings}")
    return Run(out, log, result["seconds"], result["left"], url.group(1))


def _normal(text: str, run: Run) -> str:
    """Text with this run's server and object ids written the same every run."""
    return UUID.sub("<uuid>", text.replace(run.url, "http://nautobot"))


def test_everything_the_script_started_is_stopped(live: Run) -> None:
    assert live.left_behind == []
    ports = [*re.findall(r"on 127\.0\.0\.1:(\d+)", live.log), live.url.rsplit(":", 1)[1]]
    assert len(ports) == 3  # PostgreSQL, Redis, Nautobot
    for port in ports:
        with socket.socket() as s, pytest.raises(ConnectionRefusedError):
            s.connect(("127.0.0.1", int(port)))
    assert "nautobot.sh: FAILED" not in live.log
    assert re.search(r"stopped everything \(exit 0\)", live.log)


def test_what_nautobot_answered(live: Run) -> None:
    dump = json.loads((live.out / "dump.json").read_text(encoding="utf-8"))
    counts = {path: len(objects) for path, objects in dump.items()}
    # the cluster, and beside it the hall of issue #49 (tests/integration/hall.py)
    assert counts == {
        "dcim/locations": 1 + 2,
        "dcim/racks": 9 + 9,
        "dcim/power-panels": 2 + 4,
        "dcim/power-feeds": 18 + 20,
        "dcim/device-types": 3 + 2,
        "dcim/power-port-templates": 9 + 3,
        "dcim/devices": 45 + 64,
        "dcim/power-ports": 6 * 32 + 2 * 12 + 1 + (6 * 32 + 2 * 12 + 2 * 9 + 10 + 1),
        "dcim/interfaces": 1024 + (8 * 32 + 64 * 12),
        "dcim/cables": 512,
    }
    # Nautobot's own shapes, as the importer reads them
    feed = next(f for f in dump["dcim/power-feeds"] if f["name"] == "pf-b08")
    assert (feed["voltage"], feed["amperage"], feed["max_utilization"]) == (415, 32, 80)
    assert (feed["power_path"]["value"], feed["type"]["value"]) == ("b", "redundant")
    assert (feed["power_panel"]["name"], feed["rack"]["name"]) == ("pp-b", "gpu-r08")
    assert feed["status"]["name"] == "Active"
    cable = dump["dcim/cables"][0]
    assert sorted(cable["terminations"]) == ["a1", "b1"]
    assert cable["terminations"]["a1"]["object_type"] == "dcim.interface"


def test_an_unwritable_dump_names_its_flag(live: Run) -> None:
    """`--save-dump` into a folder that does not exist: exit 2, one line naming the flag (it
    said '--output' before), and neither the dump nor the design written."""
    target = live.out / "no" / "such" / "dump.json"
    assert (live.out / "save-dump.rc").read_text().strip() == "2"
    err = (live.out / "save-dump.err").read_text(encoding="utf-8")
    assert err == f"dclint: error: --save-dump {target}: No such file or directory\n", err
    assert not (live.out / "no").exists()
    assert not (live.out / "site-unsaved.yaml").exists()


def test_the_design_is_the_cluster_loaded(live: Run) -> None:
    from dclint.loader import load

    c = cluster()
    design = load(live.out / "site.yaml")
    topo = topology_of(design)
    assert [r.id for r in topo.racks] == c.racks  # gpu-r01 ... gpu-r08, net-r01
    panels = [
        (p.id, p.model.path, p.model.voltage.m_as("V"), p.model.current_rating.m_as("A"))
        for p in topo.panels.values()
    ]
    assert panels == [("pp-a", "A", 415.0, 800.0), ("pp-b", "B", 415.0, 800.0)]
    feeds = {
        f.id: (
            f.model.panel,
            f.model.voltage.m_as("V"),
            f.model.current_rating.m_as("A"),
            f.model.phases,
            f.model.path,
        )
        for f in topo.feeds.values()
    }
    assert feeds == {
        f["name"]: (f["panel"], 415.0, float(f["amperage"]), 3, f["path"].upper()) for f in c.feeds
    }
    racks = {r.id: (r.feed_ids, r.platform_key, r.nodes, r.it_load.m_as("kW")) for r in topo.racks}
    expected = {
        rack: ([f"pf-a{i:02d}", f"pf-b{i:02d}"], "dgx-h100", 4, 40.8)
        for i, rack in enumerate(c.racks[:-1], start=1)
    }
    expected[NET_RACK] = (["pf-a09", "pf-b09"], None, 1, 13.2)  # 12 switches x 2 x 550 W
    assert racks == expected
    (fabric,) = design.fabrics
    switches = {i: (s.model, s.tier) for s in fabric.switches for i, _ in expand(s.id)}
    assert switches == {
        **{f"leaf{k}": ("qm9700", "leaf") for k in range(1, 9)},
        **{f"spine{k}": ("qm9700", "spine") for k in range(1, 5)},
    }
    links: dict[tuple[str, str], int] = {}
    for link in fabric.links:
        assert link.speed.m_as("Gb/s") == 400
        for a, _ in expand(link.a):
            links[(a, link.b)] = links.get((a, link.b), 0) + link.count
    assert sum(links.values()) == 512
    assert links == {
        **{(rack, f"leaf{k}"): 4 for rack in c.racks[:-1] for k in range(1, 9)},
        **{(f"leaf{k}", f"spine{j}"): 8 for k in range(1, 9) for j in range(1, 5)},
    }


def test_the_same_design_as_from_netbox(live: Run, tmp_path: Path) -> None:
    """One cluster, two DCIMs: the designs differ only in the comments naming the sources."""
    dump = tmp_path / "netbox.json"
    dump.write_text(json.dumps(netbox_dump(cluster())), encoding="utf-8")
    netbox = tmp_path / "netbox.yaml"
    assert (
        main(
            [
                "import",
                "netbox",
                "--from-file",
                str(dump),
                "--map",
                str(NETBOX_MAP),
                "-o",
                str(netbox),
            ]
        )
        == 0
    )

    def body(text: str) -> list[str]:
        lines = text.splitlines()[3:]  # the header names the command
        end = next(i for i, line in enumerate(lines) if line.startswith("origins:"))
        return [line.split("  # ")[0] for line in lines[:end]]

    nautobot = (live.out / "site.yaml").read_text(encoding="utf-8")
    assert body(nautobot) == body(netbox.read_text(encoding="utf-8"))


def test_check_finds_exactly_the_32_A_rack(live: Run) -> None:
    assert (live.out / "check.rc").read_text().strip() == "1"
    report = json.loads((live.out / "check.json").read_text(encoding="utf-8"))
    (design,) = report["designs"]
    lines = (live.out / "site.yaml").read_text(encoding="utf-8").splitlines()

    def line_of(prefix: str) -> int:
        (found,) = [i for i, line in enumerate(lines, start=1) if line.startswith(prefix)]
        return found

    a08, b08 = line_of("    - id: pf-a[08-09]"), line_of("    - id: pf-b[08-09]")
    racks = line_of("  - id: gpu-r[01-08]")
    found = sorted(
        (f["rule"], f["subject"], f["line"], _normal(f.get("origin", ""), live))
        for f in design["findings"]
    )
    nb = "http://nautobot/dcim"
    assert found == [
        ("PWR003", "pf-a08", a08 + 3, f"Nautobot power-feed <uuid> <{nb}/power-feeds/<uuid>/>"),
        ("PWR003", "pf-b08", b08 + 3, f"Nautobot power-feed <uuid> <{nb}/power-feeds/<uuid>/>"),
        ("PWR004", "gpu-r08", racks + 2, f"Nautobot rack <uuid> <{nb}/racks/<uuid>/>"),
    ]


def test_the_token_is_nowhere(live: Run) -> None:
    """The run's token is 40 hex digits; nothing written or printed holds such a string."""
    token = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")
    assert token.search(live.log) is None
    for path in live.out.iterdir():
        assert token.search(path.read_text(encoding="utf-8")) is None, path.name


def test_the_hall_from_a_live_nautobot(live: Run) -> None:
    """Issue #49's hall in a real Nautobot: 256 GPUs in eight GPU racks at 40.8 kW (six
    redundant PSUs a DGX H100), the RMA node counted and marked, the campus UPS panels followed
    upstream by their panel-to-panel feeds, rows from the rack groups, every object on the
    ledger, and the overload the RMA node would have hidden."""
    from dclint.loader import load

    design = load(live.out / "hall.yaml")
    topo = topology_of(design)
    assert topo.gpus == 256
    gpu = {r.id: round(r.it_load.m_as("kW"), 3) for r in topo.racks if r.platform_key}
    assert gpu == {r: 40.8 for r in GPU_RACKS}
    rows = {i: g.row for g in design.racks for i, _ in expand(g.id)}
    assert rows == {**{r: f"Row {r[0]}" for r in GPU_RACKS}, "N01": "Row N"}
    assert {g.id: g.offline_nodes for g in design.racks if g.offline_nodes} == {"A02": 1}
    assert [g.id for g in design.racks if g.status == "planned"] == ["B04"]
    assert {p.id: p.fed_by for p in design.power.panels} == {
        "rpp-a": "ups-a",
        "rpp-b": "ups-b",
        "ups-a": None,
        "ups-b": None,
    }
    ledger = json.loads((live.out / "hall-ledger.json").read_text(encoding="utf-8"))
    counts = {k: (v["read"], v["imported"], v["merged"], v["skipped"]) for k, v in ledger.items()}
    assert counts == {
        "location": (3, 1, 0, 2),  # Hall 1; Campus above it; dc1 (the cluster) outside
        "rack": (18, 9, 0, 9),
        "power-panel": (6, 4, 0, 2),
        "power-feed": (38, 18, 2, 18),
        "device": (109, 0, 44, 65),
        "cable": (512, 0, 0, 512),
    }
    assert all(v["unplaced_objects"] == [] for v in ledger.values())
    assert (live.out / "hall-check.rc").read_text().strip() == "1"
    report = json.loads((live.out / "hall-check.json").read_text(encoding="utf-8"))
    found = sorted((f["rule"], f["subject"]) for f in report["designs"][0]["findings"])
    assert found == [("PWR003", "A02-a"), ("PWR003", "A02-b"), ("PWR004", "A02")]
