"""`dclint import netbox URL` against a live NetBox, when one is named: NetBox is not on PyPI,
so the tests cannot start one (tests/test_import_netbox.py covers its REST and GraphQL shapes
on exports). With NETBOX_URL and NETBOX_TOKEN set (and NETBOX_MAP, a mapping file, if the
site's device types are to be imported), the import writes a design that `dclint check` reads,
and a second import of the unchanged server is byte-identical."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def test_a_live_netbox_imports_and_checks(tmp_path: Path) -> None:
    url = os.environ.get("NETBOX_URL")
    if not url or not os.environ.get("NETBOX_TOKEN"):
        pytest.skip("no live NetBox: set NETBOX_URL and NETBOX_TOKEN to test against one")
    extra = ["--map", os.environ["NETBOX_MAP"]] if os.environ.get("NETBOX_MAP") else []
    if os.environ.get("NETBOX_SITE"):
        extra += ["--site", os.environ["NETBOX_SITE"]]

    def dclint(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dclint", *args],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )

    first = dclint("import", "netbox", url, *extra, "-o", "first.yaml")
    assert first.returncode == 0, first.stderr
    second = dclint("import", "netbox", url, *extra, "-o", "second.yaml")
    assert second.returncode == 0, second.stderr
    assert (tmp_path / "first.yaml").read_bytes() == (tmp_path / "second.yaml").read_bytes()
    check = dclint("check", "first.yaml", "--format", "json")
    assert check.returncode in (0, 1), check.stdout + check.stderr
    token = os.environ["NETBOX_TOKEN"]
    assert token not in first.stderr + check.stdout + (tmp_path / "first.yaml").read_text()
