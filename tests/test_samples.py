"""The sample designs give exactly the findings their `# expect:` comments mark."""

from __future__ import annotations

import pytest

from conftest import SAMPLES, expected_marks, findings_of


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.yaml")))
def test_sample_findings(sample: str) -> None:
    path = SAMPLES / sample
    assert findings_of(path) == expected_marks(path)


def test_clean_sample_is_clean() -> None:
    assert findings_of(SAMPLES / "gb200-superpod-su.yaml") == set()
    assert expected_marks(SAMPLES / "gb200-superpod-su.yaml") == set()
