"""Rows loaded a fetched batch at a time give what row-by-row loading gives (issue 29).

Scans, pages and ``get_many`` load the rows of each fetch in one loop
(``RepositoryCore._fast_rows``): the generated reader per row, the identity map and the
observed write stamps once per batch. A row the reader cannot decide (it does not
decode, or lacks a required field) is loaded on its own by the general path, after the
rows before it were handed out. These properties hold that loop to row-by-row loading
(a repository whose batch loader loads nothing, so every row takes the general path):
the same instances, in the same order, interleaved with the same ``on_error`` calls and
errors; the same identity-map entries (K10, partial reads); the same stamps observed
(R4's read-modify-write order); the same pages and tokens (R8), and salted fan-out
merged the same way (K3).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel import Family, Key, Salt, Str, Table, field, model
from hmodel.backend.base import Backend, Put, RowResult
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.op import iterate
from hmodel.clock import ManualClock, WriteStamps
from hmodel.errors import DecodeError
from hmodel.repository import Repository


@model(
    Table("batch_load", [Family("p")]),
    key=Key(Salt("user", buckets=4), Str("user"), Str("item")),
)
class Item:
    """A salted key (four buckets merged on every full scan), a long, strings."""

    user: str
    item: str
    price: int = field("p:p")
    title: str = field("p:t")
    note: str | None = field("p:n", default=None)


class RowByRow(Repository[Any]):
    """The reference: its batch loader loads nothing, so every row takes ``_load_each``."""

    def _fast_rows(
        self, results: Sequence[RowResult], start: int, **kwargs: Any
    ) -> tuple[list[Any], int]:
        return [], start


#: What a row holds: a whole item, no required ``title``, or a ``price`` of 3 bytes.
KINDS = st.lists(st.sampled_from(["good", "good", "good", "missing", "corrupt"]), max_size=24)

_TABLES = itertools.count()


def _fill(backend: Backend, repo: Repository[Item], kinds: list[str], tag: str) -> list[bytes]:
    rows = []
    for index, kind in enumerate(kinds):
        user, item = f"{tag}u{index % 5}", f"i{index}"
        row = repo.mapper.key_of(user=user, item=item)
        rows.append(row)
        if kind == "good":
            repo.save(Item(user=user, item=item, price=index, title=f"t{index}", note=None))
        elif kind == "missing":
            backend.mutate(repo.table, [Put(row, b"p:p", (index).to_bytes(8, "big"))])
        else:
            backend.mutate(repo.table, [Put(row, b"p:p", b"bad"), Put(row, b"p:t", b"t")])
    return rows


def _pair(backend: Backend) -> tuple[Repository[Item], Repository[Item]]:
    """The batch-loading repository and the row-by-row one, each with its own stamps."""
    return (
        Repository(Item, backend, stamps=WriteStamps(ManualClock(1))),
        RowByRow(Item, backend, stamps=WriteStamps(ManualClock(1))),
    )


def _trace(repo: Repository[Item], read: Callable[..., Any]) -> tuple[list[Any], list[Any]]:
    """What ``read(on_error)`` hands out and reports, in order, and the instances read."""
    events: list[Any] = []
    objs: list[Any] = []

    def report(error: DecodeError) -> None:
        events.append(("error", type(error).__name__, error.row, error.column))

    try:
        for obj in read(report):
            if isinstance(obj, tuple):  # a page: its items, token and errors' rows
                items, token, errors = obj
                objs.extend(items)
                events.append(("page", [_fields(o) for o in items], token, errors))
                continue
            objs.append(obj)
            events.append(("item", _fields(obj)))
    except DecodeError as error:
        events.append(("raised", type(error).__name__, error.row))
    return events, objs


def _fields(obj: Item | None) -> tuple[Any, ...] | None:
    return None if obj is None else (obj.user, obj.item, obj.price, obj.title, obj.note)


def _state(repo: Repository[Item], objs: list[Any], rows: list[bytes]) -> tuple[Any, ...]:
    """The identity entries of ``objs`` and the stamps the repository would give ``rows``."""
    remembered = [None if o is None else repo._identity.recall(o) for o in objs]
    return remembered, repo._stamps.last, [repo._stamps.next(rows=[row]) for row in rows]


def _same(backend: Backend, rows: list[bytes], tag: str) -> None:
    fast, slow = _pair(backend)
    user = f"{tag}u1"
    reads: list[Callable[[Repository[Item]], Callable[..., Any]]] = [
        lambda r: lambda report: r.scan(on_error=report),
        lambda r: lambda report: r.scan(on_error="raise"),
        lambda r: lambda report: r.scan({"user": user}, on_error=report),
        lambda r: lambda report: r.scan(on_error=report, limit=3),
        lambda r: lambda report: r.scan(on_error=report, fields=["price", "title"]),
        lambda r: lambda report: r.scan(on_error=report, reverse=True, limit=5),
        lambda r: (
            lambda report: [
                (p.items, p.next_token, [e.row for e in p.errors])
                for p in r.pages(4, on_error="skip")
            ]
        ),
        lambda r: (
            lambda report: r.get_many(
                [{"user": f"{tag}u{i % 5}", "item": f"i{i}"} for i in range(len(rows) + 1)],
                on_error=report,
            )
        ),
    ]
    for read in reads:
        got, got_objs = _trace(fast, read(fast))
        want, want_objs = _trace(slow, read(slow))
        assert got == want
        assert _state(fast, got_objs, rows) == _state(slow, want_objs, rows)


@settings(max_examples=40, deadline=None)
@given(kinds=KINDS)
def test_batch_loading_is_row_by_row_loading(kinds: list[str]) -> None:
    backend = MemoryBackend()
    repo = Repository(Item, backend)
    repo.create_table()
    rows = _fill(backend, repo, kinds, "h")
    _same(backend, rows, "h")


def test_batch_loading_is_row_by_row_loading_on_every_backend(backend: Backend) -> None:
    repo = Repository(Item, backend)
    repo.create_table(exist_ok=True)
    tag = f"b{next(_TABLES)}"
    kinds = ["good", "good", "corrupt", "good", "missing", "good", "good", "corrupt", "good"]
    rows = _fill(backend, repo, kinds * 2, tag)
    _same(backend, rows, tag)


@pytest.mark.parametrize(
    ("kwargs", "count"),
    [
        ({}, 210),
        ({"limit": 65}, 65),
        ({"limit": 1}, 1),
        ({"reverse": True, "limit": 140}, 140),
        ({"fields": ["price", "title"]}, 210),
    ],
)
def test_a_scan_handed_out_in_batches_is_the_scan_handed_out_one_by_one(
    kwargs: dict[str, Any], count: int
) -> None:
    """``Repository.scan`` streams a chunk of models at once (``Items``): no difference."""
    backend = MemoryBackend()
    repo = Repository(Item, backend)
    repo.create_table()
    rows = _fill(backend, repo, (["good"] * 70 + ["corrupt", "missing"]) * 3, "z")
    reader, reference = (
        Repository(Item, backend, stamps=WriteStamps(ManualClock(1))) for _ in "rw"
    )
    query = reference._query(None, None, **kwargs)
    got, got_objs = _trace(reader, lambda report: reader.scan(on_error=report, **kwargs))
    want, want_objs = _trace(
        reference, lambda report: iterate(reference._scan_op(query, report), backend)
    )
    assert got == want
    assert len(got_objs) == count
    assert _state(reader, got_objs, rows) == _state(reference, want_objs, rows)


def test_a_reader_who_stops_early_has_not_had_the_whole_fetch_loaded() -> None:
    """At most one chunk of the fetch is decoded ahead of the reader (64 rows)."""
    backend = MemoryBackend()
    repo = Repository(Item, backend)
    repo.create_table()
    repo.save_many(
        [Item(user="u", item=f"i{n:04}", price=n, title="t", note=None) for n in range(500)]
    )
    reader = Repository(Item, backend)
    first = next(iter(reader.scan({"user": "u"})))
    assert first.item == "i0000"
    assert 1 <= len(reader._identity) <= 64
    pages = reader.pages(10, {"user": "u"})
    assert [o.item for o in next(iter(pages)).items] == [f"i{n:04}" for n in range(10)]
    assert len(reader._identity) <= 2 * 64


def test_rows_the_reader_decides_never_take_the_general_path() -> None:
    """Only undecidable rows go row by row: a chunk's end is not one."""
    backend = MemoryBackend()
    Repository(Item, backend).create_table()
    Repository(Item, backend).save_many(
        [Item(user=f"u{n % 7}", item=f"i{n}", price=n, title="t", note=None) for n in range(300)]
    )
    calls: list[bytes] = []

    class Counting(Repository[Any]):
        def _load_each(self, result: RowResult, *args: Any, **kwargs: Any) -> Any:
            calls.append(result.row)
            return super()._load_each(result, *args, **kwargs)

    reader = Counting(Item, backend)
    assert len(list(reader.scan())) == 300
    assert sum(len(page.items) for page in reader.pages(7)) == 300
    assert len(list(reader.scan(limit=150))) == 150
    assert calls == []
