"""Each design is checked with its own directory's options, however many files alternate."""

from __future__ import annotations

import gc
from pathlib import Path

from conftest import EXAMPLES, TODAY
from dclint.engine.runner import Engine

DESIGN = (EXAMPLES / "pwr001" / "bad.yaml").read_text(encoding="utf-8")


def test_alternating_directories_keep_their_own_limits(tmp_path: Path) -> None:
    files = {}
    for limit in (130, 120):
        folder = tmp_path / f"limit{limit}"
        folder.mkdir()
        (folder / ".dclint.yaml").write_text(f"PWR001:\n  limit: {limit} kW\n", encoding="utf-8")
        (folder / "d.yaml").write_text(DESIGN, encoding="utf-8")
        files[limit] = str(folder / "d.yaml")
    engine = Engine(today=TODAY)
    wrong = 0
    # the objects alive before the test are frozen: each collection then walks this test's
    # objects only, not the whole session's heap (100 full collections late in a run cost 20 s)
    session = gc.get_freeze_count() > 0  # conftest froze what collection made: it stays so
    gc.freeze()
    try:
        for i in range(100):
            limit = (130, 120)[i % 2]
            config = engine.config_for(files[limit])
            got = engine.options(config)["PWR001"]["limit"].m_as("kW")
            wrong += got != limit
            gc.collect()  # frees the previous iteration's objects, as a long run would
    finally:
        if not session:
            gc.unfreeze()
    assert wrong == 0
    assert engine.config_for(files[130]) is engine.config_for(files[130])


def test_a_design_reached_through_a_symlink_has_its_real_directorys_config(
    tmp_path: Path,
) -> None:
    """Directories are resolved once each (config._directory); a design that is itself a
    symbolic link, or named through a linked directory or `..`, still gets the config of the
    directory it really lies in."""
    for limit in (130, 120):
        folder = tmp_path / f"limit{limit}"
        folder.mkdir()
        (folder / ".dclint.yaml").write_text(f"PWR001:\n  limit: {limit} kW\n", encoding="utf-8")
        (folder / "d.yaml").write_text(DESIGN, encoding="utf-8")
    (tmp_path / "limit130" / "linked.yaml").symlink_to(tmp_path / "limit120" / "d.yaml")
    (tmp_path / "via").symlink_to(tmp_path / "limit120", target_is_directory=True)
    engine = Engine(today=TODAY)

    def limit(file: Path) -> float:
        return float(engine.options(engine.config_for(str(file)))["PWR001"]["limit"].m_as("kW"))

    assert limit(tmp_path / "limit130" / "d.yaml") == 130
    assert limit(tmp_path / "limit130" / "linked.yaml") == 120  # the file is a link
    assert limit(tmp_path / "via" / "d.yaml") == 120  # its directory is one
    assert limit(tmp_path / "via" / ".." / "limit130" / "d.yaml") == 130
    assert limit(tmp_path / "limit130" / "d.yaml") == 130  # the first directory, as found
