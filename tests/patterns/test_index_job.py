"""Index jobs: backfill (I2), verify and rebuild (I3), sharded by region and resumable."""

from __future__ import annotations

import functools
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from hmodel import patterns
from hmodel.backend.base import Backend, Put
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.clock import ManualClock, system_clock
from hmodel.patterns.index import Index
from hmodel.patterns.index_job import (
    JobReport,
    Shard,
    ShardReport,
    plan_shards,
    run_index_job,
    run_shard,
    run_shard_with,
)
from hmodel.patterns.index_repository import IndexedRepository
from hmodel.repository import Repository
from hmodel.schema import Family, Table
from tests.patterns.index_models import BY_NICK, ITEMS_BY_COLOUR, Item, User, colour_index


def stock(backend: Backend, count: int = 10) -> Repository[Item]:
    """Items written before any index existed."""
    repo = Repository(Item, backend)
    repo.create_table()
    repo.save_many(
        [Item(item_id=f"i{n:02d}", colour=("red", "blue")[n % 2], size=n) for n in range(count)]
    )
    backend.create_table(ITEMS_BY_COLOUR)
    return repo


def test_backfill_indexes_data_that_existed_before_the_index(backend: Backend) -> None:
    stock(backend)
    index = colour_index()
    before = run_index_job(backend, index, "verify")
    assert before.counts["missing"] == 10 and before.problems == 10
    assert before.samples["missing"][0] == b"i00\x00\x00"
    backfill = run_index_job(backend, index, "backfill")
    assert backfill.counts["written"] == 10
    assert run_index_job(backend, index, "verify").problems == 0
    items = IndexedRepository(Repository(Item, backend), [index])
    assert [o.item_id for o in items.find("item_by_colour", {"colour": "blue"})] == [
        f"i{n:02d}" for n in range(1, 10, 2)
    ]
    covered = items.page_covered("item_by_colour", 1, {"colour": "red"}).items
    assert covered == [{"item_id": "i00", "colour": "red", "size": 0}]


def test_verify_counts_orphans_stale_entries_and_rebuild_fixes_them(backend: Backend) -> None:
    stock(backend, 4)
    index = colour_index()
    run_index_job(backend, index, "backfill")
    table = index.table.full_name
    status = index.status(True, 1)
    backend.mutate(
        table,
        [
            # an orphan: no data row i99
            Put(index.entry_row({"colour": "red"}, b"i99\x00\x00"), index.status_column, status, 1),
            # stale: i01 is blue, not green
            Put(
                index.entry_row({"colour": "green"}, b"i01\x00\x00"), index.status_column, status, 1
            ),
        ],
    )
    # stale covering cell: i02's size is 2
    backend.mutate(
        table,
        [
            Put(
                index.entry_row({"colour": "red"}, b"i02\x00\x00"),
                b"x:size",
                b"\x80\x00\x00\x00\x00\x00\x00\x09",
            )
        ],
    )
    report = run_index_job(backend, index, "verify")
    assert (report.counts["orphans"], report.counts["stale"], report.counts["missing"]) == (1, 2, 0)
    assert report.samples["orphans"] == (index.entry_row({"colour": "red"}, b"i99\x00\x00"),)
    rebuild = run_index_job(backend, index, "rebuild")
    assert rebuild.counts["deleted"] == 2 and rebuild.counts["written"] == 1
    after = run_index_job(backend, index, "verify")
    assert after.problems == 0 and after.counts["ok"] == 4


def test_a_shard_resumes_from_its_checkpoint(backend: Backend) -> None:
    stock(backend, 7)
    index = colour_index()
    (shard,) = plan_shards(backend, index, "backfill")
    seen: list[ShardReport] = []
    first = run_shard(
        backend, shard, batch_size=3, max_batches=1, progress=lambda s, r: seen.append(r)
    )
    assert (first.rows, first.done, first.checkpoint) == (3, False, b"i02\x00\x00")
    assert len(seen) == 1 and seen[0].rows == 3
    rest = run_shard(backend, shard, batch_size=3, checkpoint=first.checkpoint)
    assert (rest.rows, rest.done) == (4, True)
    assert first.written + rest.written == 7
    assert run_index_job(backend, index, "verify").problems == 0


def test_jobs_split_by_region_into_picklable_shards() -> None:
    backend = MemoryBackend()
    splits = Table("item", [Family("i")], splits=[b"i03", b"i06"])
    backend.create_table(splits)
    Repository(Item, backend).save_many([Item(item_id=f"i{n:02d}", colour="red") for n in range(9)])
    backend.create_table(ITEMS_BY_COLOUR)
    index = colour_index()
    shards = plan_shards(backend, index, "rebuild")
    assert [(s.side, s.start, s.stop) for s in shards] == [
        ("data", b"", b"i03"),
        ("data", b"i03", b"i06"),
        ("data", b"i06", b""),
        ("index", b"", b""),
    ]
    assert pickle.loads(pickle.dumps(shards)) == shards
    reports = [run_shard(backend, s) for s in shards if s.side == "data"]
    assert [r.rows for r in reports] == [3, 3, 3]
    assert JobReport.of("rebuild", reports).counts["written"] == 9


def test_unique_index_jobs_find_and_fix_missing_claims(backend: Backend) -> None:
    repo = Repository(User, backend)
    repo.create_table()
    repo.save_many([User(user_id="u1", nickname="bob"), User(user_id="u2", nickname="ann")])
    backend.create_table(BY_NICK)
    index = Index(User, on=["nickname"], table=BY_NICK, unique=True)
    assert run_index_job(backend, index, "verify").counts["missing"] == 2
    run_index_job(backend, index, "backfill")
    assert run_index_job(backend, index, "verify").problems == 0
    users = IndexedRepository(repo, [index])
    assert users.get_unique("user_by_nick", nickname="ann") == User(user_id="u2", nickname="ann")


def _thrift(host: str, port: int) -> Backend:
    return ThriftBackend(host, port)


def test_worker_processes_run_the_shards_over_thrift(fake_hbase_server: Any) -> None:
    host, port = fake_hbase_server.host, fake_hbase_server.port
    factory = functools.partial(_thrift, host, port)
    with factory() as backend:
        for name in backend.list_tables():
            backend.delete_table(name)
        stock(backend, 12)
        index = colour_index()
        with ProcessPoolExecutor(max_workers=2) as pool:
            report = run_index_job(
                backend,
                index,
                "rebuild",
                runner=lambda shards: pool.map(functools.partial(run_shard_with, factory), shards),
            )
        assert report.counts["written"] == 12
        assert run_index_job(backend, index, "verify").problems == 0
        for name in backend.list_tables():
            backend.delete_table(name)


def test_shards_are_pure_data() -> None:
    shard = Shard("verify", "data", colour_index(), b"a", b"b", 3)
    assert pickle.loads(pickle.dumps(shard)) == shard
    with pytest.raises(AttributeError):
        shard.start = b"c"  # type: ignore[misc]


# --- the jobs' clock: the grace is judged as readers judge it ------------------------------


@pytest.mark.parametrize(
    "start",
    [1_700_000_000_000, 4_000_000_000_000],
    ids=["clock-behind-the-system", "clock-ahead-of-the-system"],
)
def test_jobs_judge_the_grace_by_the_readers_clock(backend: Backend, start: int) -> None:
    """An unverified entry is pending for jobs exactly while readers think it in flight."""
    clock = ManualClock(start)
    repo = Repository(Item, backend, clock=clock)
    repo.create_table()
    backend.create_table(ITEMS_BY_COLOUR)
    index = colour_index()
    item = repo.save(Item(item_id="i1", colour="red", size=1))
    tag = clock()  # a writer that died after its data write: its entry stays unverified
    entry_row = index.row_of(item, repo.mapper.rowkey(item))
    assert entry_row is not None
    backend.mutate(
        index.table.full_name,
        index.entry_puts(entry_row, item, verified=False, tag=tag, timestamp=tag),
    )
    readers = IndexedRepository(repo, [index])
    assert not readers.expired(index, tag)
    young = run_index_job(backend, index, "verify", clock=clock)
    assert (young.counts["pending"], young.counts["stale"]) == (1, 0)
    clock.advance(index.grace_ms + 1)
    assert readers.expired(index, tag)
    old = run_index_job(backend, index, "verify", clock=clock)
    assert (old.counts["pending"], old.counts["stale"]) == (0, 1)
    assert run_index_job(backend, index, "rebuild", clock=clock).counts["written"] == 1
    assert run_index_job(backend, index, "verify", clock=clock).problems == 0


def test_a_shard_carries_its_clock_to_the_worker() -> None:
    """plan_shards puts the clock in every shard; a ManualClock pickles as its time."""
    backend = MemoryBackend()
    backend.create_table(Table("item", [Family("i")]))
    backend.create_table(ITEMS_BY_COLOUR)
    clock = ManualClock(4_000_000_000_000)
    shards = plan_shards(backend, colour_index(), "verify", clock=clock)
    assert all(s.clock is clock for s in shards)
    copied = pickle.loads(pickle.dumps(shards))
    assert copied == shards and copied[0].clock() == clock()
    assert plan_shards(backend, colour_index(), "verify")[0].clock is system_clock


def test_the_old_name_run_job_warns_and_runs_the_index_job(backend: Backend) -> None:
    """``hmodel.patterns.run_job`` is ``run_index_job``'s deprecated alias for one release."""
    stock(backend, count=3)
    index = colour_index()
    with pytest.warns(DeprecationWarning, match="run_index_job"):
        report = patterns.run_job(backend, index, "backfill")
    assert report.counts["written"] == 3
    assert run_index_job(backend, index, "verify").problems == 0
