"""A streamed pages() read gives the rows and tokens of a read page by page (R8, K3, I5)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel import Family, Int, Key, Salt, Str, Table, field, model
from hmodel.backend.memory import MemoryBackend
from hmodel.repository import Repository
from hmodel.schema import SaltSplits

#: Bucket counts of the salted models (1: no salt, a single span).
_BUCKETS = (1, 2, 3, 5, 16)


def _model(buckets: int) -> Any:
    name = f"sp_reading_{buckets}"
    if buckets == 1:
        key = Key(Str("device"), Int("seq", size=4))
        table = Table(name, [Family("d")])
    else:
        key = Key(Salt("device", buckets=buckets), Str("device"), Int("seq", size=4))
        table = Table(name, [Family("d")], splits=SaltSplits(buckets))

    @model(table, key=key)
    class Reading:
        device: str
        seq: int
        value: int = field("d:v")

    return Reading


_MODELS = {buckets: _model(buckets) for buckets in _BUCKETS}


@settings(max_examples=60, deadline=None)
@given(
    buckets=st.sampled_from(_BUCKETS),
    devices=st.integers(0, 9),
    per_device=st.integers(0, 12),
    size=st.integers(1, 15),
    reverse=st.booleans(),
    read_tokens=st.booleans(),
)
def test_streamed_pages_match_page_by_page(
    *, buckets: int, devices: int, per_device: int, size: int, reverse: bool, read_tokens: bool
) -> None:
    """Same items and the same tokens, whether or not the streamed tokens are read early."""
    reading = _MODELS[buckets]
    repo = Repository(reading, MemoryBackend())
    repo.create_table()
    repo.save_many(
        [reading(device=f"d{d}", seq=s, value=s) for d in range(devices) for s in range(per_device)]
    )
    streamed = []
    for page in repo.pages(size, reverse=reverse):
        if read_tokens:
            page.next_token  # noqa: B018  # made now, while the scan goes on
        streamed.append(page)
    stepped = []
    token = None
    while True:
        page = repo.page(size, reverse=reverse, token=token)
        if page.items:
            stepped.append(page)
        token = page.next_token
        if token is None:
            break
    keys = [[(r.device, r.seq) for r in page.items] for page in streamed]
    assert keys == [[(r.device, r.seq) for r in page.items] for page in stepped]
    assert [p.next_token for p in streamed] == [p.next_token for p in stepped]
    assert sum(len(k) for k in keys) == devices * per_device
