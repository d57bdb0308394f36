"""A save through the backend's own row batch sends what the general path sends (issue 29).

``save`` and ``save_many`` of a model without map fields hand the backend a
:class:`~hmodel.backend.base.RowBatch` filled by the compiled cell writer (no ``Put`` per
cell, no second check); every other case takes ``mutate`` with the mapper's mutations.
These properties run both routes on the same instances, with the same write stamps, and
require byte-for-byte the same Thrift calls (whole binary-protocol messages: Thrift1
``mutateRowsTs``, Thrift2 ``mutateRow``/``putMultiple``/``deleteMultiple``, which the
batch writes straight from its cells and the general path encodes from structs), the same
errors, and on the engine the same stored cells (F6-F11, K2, K6).
"""

from __future__ import annotations

import warnings
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel import (
    Family,
    Int,
    Key,
    ReverseTimestamp,
    Salt,
    Str,
    Table,
    counter,
    field,
    map_field,
    model,
)
from hmodel.backend.base import RowBatch, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.backend.wire import WireCodec
from hmodel.clock import ManualClock, WriteStamps
from hmodel.codecs import Json
from hmodel.errors import HModelError
from hmodel.model import model_info
from hmodel.repository import Repository

EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)

WIDE_TABLE = Table("wide", [Family("d"), Family("e")])


@model(
    WIDE_TABLE,
    key=Key(Salt("user", buckets=8), Str("user"), ReverseTimestamp("ts"), Int("n")),
    ttl=timedelta(days=3),
    warn_cell_bytes=30,
    max_cell_bytes=40,
)
class Wide:
    """A salted composite key (K2, K6), two families, most codecs, a counter, a TTL (F8)."""

    user: str
    ts: datetime
    n: int
    text: str = field("d:t")
    note: str | None = field("d:n", default=None)
    number: int | None = field("d:i", default=None)
    ratio: float = field("d:f", default=0.0)
    flag: bool = field("e:o", default=False)
    blob: bytes = field("e:b", default=b"")
    price: Decimal | None = field("e:p", default=None)
    when: datetime | None = field("e:w", default=None)
    day: date | None = field("e:y", default=None)
    doc: list[int] = field("e:j", codec=Json(), factory=list)
    either: int | str = field("e:e", codec=Json(), default=0)
    hits: int = counter("d:h")


def _wides(clean: bool) -> st.SearchStrategy[Wide]:
    """Instances of ``Wide``; unless ``clean``, also values the full path must decide."""
    odd: Any = st.nothing() if clean else st.integers() | st.none()
    return st.builds(
        Wide,
        user=st.text(max_size=4),
        ts=st.integers(0, 10**9).map(lambda s: EPOCH + timedelta(seconds=s)),
        n=st.integers(-(2**63), 2**63 - 1),
        text=st.text(max_size=7 if clean else 45) | odd,
        note=st.none() | st.text(max_size=8),
        number=st.none() | st.integers(-(2**63), 2**63 - 1) | (odd if clean else st.booleans()),
        ratio=st.floats(allow_nan=False) | (st.nothing() if clean else st.integers(-3, 3)),
        flag=st.booleans(),
        blob=st.binary(max_size=20 if clean else 45)
        | (st.nothing() if clean else st.just(bytearray(b"x"))),
        price=st.none() | st.decimals(allow_nan=False, allow_infinity=False, places=2),
        when=st.none()
        | st.just(EPOCH)
        | (st.nothing() if clean else st.just(datetime(2024, 1, 1))),
        day=st.none() | st.dates(),
        doc=st.lists(st.integers(0, 10**6), max_size=3),
        either=st.integers(-3, 3) | st.text(max_size=3),
    )


@model(Table("fanned", [Family("i"), Family("f")]), key=Key(Str("user_id")))
class User:
    """A map field owning its family (F9): saves of it take the general path."""

    user_id: str
    nickname: str = field("i:n")
    fans: dict[str, str] = map_field("f")


WIDES = _wides(clean=False)
CLEAN_WIDES = _wides(clean=True)
USERS = st.builds(User, user_id=st.text(min_size=1, max_size=4), nickname=st.text(max_size=4))


class _Sent:
    """What a Thrift backend below would send: its calls recorded, none made (no server).

    ``fast=False`` offers no row batch, so the repository takes the general path.
    """

    sent: list[Any]
    fast: bool

    def _rpc(self, method: str, *args: Any, **context: Any) -> Any:
        # The whole message, as the wire sends it: the one written already, else encoded.
        request = context.get("request")
        if request is None:
            codec = WireCodec(self.channel_class.service, protocol="binary", decode_response=False)  # type: ignore[attr-defined]
            request = codec.encode(method, args)
        self.sent.append((method, request, context.get("row")))

    def row_batch(self, *args: Any) -> RowBatch | None:
        return super().row_batch(*args) if self.fast else None  # type: ignore[misc]


class SentThrift1(_Sent, ThriftBackend):
    def __init__(self, fast: bool) -> None:
        super().__init__(autoconnect=False)
        self.sent, self.fast = [], fast
        self._families[self._data_name("wide")] = (b"d", b"e")
        self._families[self._data_name(model_info(User).table.full_name)] = (b"i", b"f")


class SentThrift2(_Sent, Thrift2Backend):
    def __init__(self, fast: bool) -> None:
        super().__init__(autoconnect=False)
        self.sent, self.fast = [], fast
        self._families[self._server_name("wide")] = (b"d", b"e")


def _outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any, list[str]]:
    """How a call ended: its error's kind and text (or ok), and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call(*args, **kwargs)
            ended: tuple[str, Any] = ("ok", None)
        except HModelError as error:
            ended = (type(error).__name__, str(error))
    return (*ended, [str(w.message) for w in caught])


def _both(
    backend_class: type, model_class: type
) -> tuple[Any, Any, Repository[Any], Repository[Any]]:
    fast, slow = backend_class(True), backend_class(False)
    repos = [
        Repository(model_class, b, stamps=WriteStamps(ManualClock(1_700_000_000_000)))
        for b in (fast, slow)
    ]
    return fast, slow, repos[0], repos[1]


@pytest.mark.parametrize("backend_class", [SentThrift1, SentThrift2], ids=["thrift", "thrift2"])
@settings(max_examples=150, deadline=None)
@given(objs=st.lists(WIDES, max_size=6), single=st.booleans(), ttl=st.sampled_from([None, 5]))
def test_a_batched_save_sends_the_bytes_of_the_general_path(
    backend_class: type, objs: list[Wide], single: bool, ttl: int | None
) -> None:
    fast, slow, fast_repo, slow_repo = _both(backend_class, Wide)
    options = {"ttl": None if ttl is None else timedelta(seconds=ttl)}
    if single and objs:
        got = [_outcome(r.save, objs[0], **options) for r in (fast_repo, slow_repo)]
    else:
        got = [_outcome(r.save_many, objs, **options) for r in (fast_repo, slow_repo)]
    assert got[0] == got[1]
    assert fast.sent == slow.sent


@pytest.mark.parametrize("backend_class", [SentThrift1, SentThrift2], ids=["thrift", "thrift2"])
@settings(max_examples=50, deadline=None)
@given(objs=st.lists(CLEAN_WIDES, min_size=1, max_size=4))
def test_declared_values_take_the_batch(backend_class: type, objs: list[Wide]) -> None:
    fast, _, fast_repo, _ = _both(backend_class, Wide)
    taken: list[RowBatch] = []
    write_rows = fast.write_rows

    def spy(table: str, batch: RowBatch) -> None:
        taken.append(batch)
        write_rows(table, batch)

    fast.write_rows = spy
    fast_repo.save_many(objs)
    assert len(taken) == 1 and fast.sent


def test_a_model_with_a_map_takes_the_general_path() -> None:
    fast, slow, fast_repo, slow_repo = _both(SentThrift1, User)
    fast.write_rows = None  # type: ignore[assignment]  # a map field never reaches it
    for repo in (fast_repo, slow_repo):
        repo.save_many([User(user_id="a", nickname="x", fans={"b": "c"})])
    assert fast.sent == slow.sent and fast.sent


class BatchedMemory(MemoryBackend):
    """The engine, offered the generic :class:`RowBatch` (written through ``mutate``)."""

    def row_batch(
        self, table: str, timestamp: int, ttl: int | None, families: frozenset[bytes]
    ) -> RowBatch:
        return RowBatch(timestamp, ttl, families)

    def write_rows(self, table: str, batch: RowBatch) -> None:
        self.mutate(table, batch.mutations())


def _stored(backend: MemoryBackend) -> list[Any]:
    rows = backend.scan("wide", Scan())
    return [
        (r.row, column, backend.get_versions("wide", r.row, column, max_versions=5))
        for r in rows
        for column in r.cells
    ]


@settings(max_examples=100, deadline=None)
@given(batches=st.lists(st.lists(WIDES, max_size=4), min_size=1, max_size=3))
def test_the_engine_stores_the_cells_of_the_general_path(batches: list[list[Wide]]) -> None:
    clock = ManualClock(1_700_000_000_000)
    stores = [BatchedMemory(clock=clock), MemoryBackend(clock=clock)]
    repos = [Repository(Wide, b, stamps=WriteStamps(clock)) for b in stores]
    for repo in repos:
        repo.create_table()
    for objs in batches:
        got = [_outcome(r.save_many, objs) for r in repos]
        assert got[0] == got[1]
        clock.advance(1)
    assert _stored(stores[0]) == _stored(stores[1])
    keys = [dict(user=o.user, ts=o.ts, n=o.n) for objs in batches for o in objs]
    assert repos[0].get_many(keys, on_error="skip") == repos[1].get_many(keys, on_error="skip")
