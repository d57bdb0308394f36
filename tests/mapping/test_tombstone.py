"""The version-cell values that read as no row: a fence decodes to its tag, nothing else is one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hmodel.mapping.tombstone import fence, fence_tag, no_row
from hmodel.repository.version import VersionCell

LONGS = st.integers(min_value=-(2**63), max_value=2**63 - 1)
CELL = VersionCell(b"f:v", lease_ms=30_000)


@given(LONGS)
def test_a_fence_is_9_bytes_that_decode_to_its_tag(tag: int) -> None:
    raw = fence(tag)
    assert len(raw) == 9 and raw[:1] == b"F"
    assert fence_tag(raw) == tag and no_row(raw)


@given(st.integers(min_value=1, max_value=2**63 - 1), LONGS)
def test_no_committed_version_or_pending_claim_reads_as_a_fence(
    version: int, previous: int
) -> None:
    """A versioned row's live values (8-byte versions, 17-byte Thrift1 claims) stay rows."""
    for raw in (CELL.encode(version), CELL.pending(previous, version)):
        assert raw is not None and fence_tag(raw) is None and not no_row(raw)


def test_the_thrift1_tombstone_reads_as_no_row_and_an_absent_cell_does_not() -> None:
    assert no_row(b"") and fence_tag(b"") is None
    assert not no_row(None)
