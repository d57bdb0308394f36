"""The job runner in-process: shards, checkpoints, resuming, rate limit, tasks (I2, I3, R3, R6)."""

from __future__ import annotations

import itertools
import pickle
from pathlib import Path
from typing import Any

import pytest

from hmodel import Store
from hmodel.backend.base import Backend, Scan
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.errors import ValidationError
from hmodel.jobs import (
    JOBS_TABLE,
    Checkpoint,
    CheckpointConflictError,
    CheckpointStore,
    CopyTask,
    DirectoryCheckpoints,
    IndexTask,
    JobError,
    Plan,
    RateLimit,
    RelationTask,
    Shard,
    Sharding,
    TableCheckpoints,
    TokenBucket,
    job_status,
    plan_shards,
    run_job,
    run_shard,
    split_range,
)
from hmodel.ops.progress import JobProgress
from hmodel.patterns import index_job
from tests.jobs.models import Crash, follows, ship_to, stock
from tests.patterns.index_models import colour_index
from tests.patterns.shared_models import Line, Shipping, User


@pytest.fixture(params=["directory", "table"])
def store(request: pytest.FixtureRequest, tmp_path: Path, backend: Backend) -> CheckpointStore:
    if request.param == "directory":
        return DirectoryCheckpoints(tmp_path / "jobs")
    return TableCheckpoints(backend)


def test_an_index_job_reports_what_the_patterns_job_reports_I2(
    backend: Backend, store: CheckpointStore
) -> None:
    stock(backend, 10)
    index = colour_index()
    before = run_job(backend, IndexTask(index, "verify"), store, job="v1", batch_size=3)
    expected = index_job.run_index_job(backend, index, "verify")
    assert dict(before.counts) == {
        "rows": 10,
        **{k: v for k, v in expected.counts.items() if k != "rows"},
    }
    assert before.problems == expected.problems == 10
    assert before.samples["missing"] == expected.samples["missing"]
    backfill = run_job(backend, IndexTask(index, "backfill"), store, job="b1", batch_size=3)
    assert backfill.count("written") == 10 and backfill.done
    after = run_job(backend, IndexTask(index, "verify"), store, job="v2")
    assert after.problems == 0 and after.count("ok") == 10


def test_a_crashed_job_resumes_with_the_uninterrupted_counts(
    backend: Backend, store: CheckpointStore, tmp_path: Path
) -> None:
    """The inline "kill": an exception mid-shard, then a second run with the same id."""
    stock(backend, 11)
    index = colour_index()
    reference = run_job(backend, IndexTask(index, "verify"), store, job="ref", batch_size=2)
    crash = Crash(str(tmp_path / "crashed"), number=0, after=5, kill=False)
    task = IndexTask(index, "rebuild")
    with pytest.raises(RuntimeError, match="after 6 rows"):
        run_job(backend, task, store, job="rebuild", batch_size=2, hook=crash)
    partial = job_status(backend, store, "rebuild")
    assert partial.rows == 4 and not partial.done  # two batches recorded, the third lost
    report = run_job(backend, task, store, job="rebuild", batch_size=2, hook=crash)
    assert report.done
    assert report.count("missing") == reference.count("missing") == 11
    assert report.count("written") == 11
    assert report.count("rows") == 22  # 11 data rows, then the 11 entries written
    again = run_job(backend, task, store, job="rebuild")  # done: nothing runs again
    assert again.counts == report.counts
    assert run_job(backend, IndexTask(index, "verify"), store, job="after").problems == 0


def test_the_plan_is_recorded_so_a_resumed_job_keeps_its_shards(
    backend: Backend, store: CheckpointStore
) -> None:
    stock(backend, 9)
    task = IndexTask(colour_index(), "backfill")
    first = run_job(backend, task, store, job="j", sharding=Sharding(rows_per_shard=4))
    assert [(s.shard.start, s.shard.stop) for s in first.shards] == [
        (b"", b"i04\x00\x00"),
        (b"i04\x00\x00", b"i08\x00\x00"),
        (b"i08\x00\x00", b""),
    ]
    assert [s.rows for s in first.shards] == [4, 4, 1]
    again = run_job(backend, task, store, job="j", sharding=Sharding(parts=7))
    assert [s.shard for s in again.shards] == [s.shard for s in first.shards]
    store.bind(backend).forget("j")
    with pytest.raises(JobError, match="no job 'j'"):
        job_status(backend, store, "j")


def test_byte_bisection_splits_a_region_into_contiguous_shards(
    backend: Backend, tmp_path: Path
) -> None:
    stock(backend, 30)
    targets = IndexTask(colour_index(), "backfill").plan(backend)
    shards = plan_shards(backend, "j", targets, Sharding(parts=3))
    assert len(shards) == 3 and shards[0].start == b"" and shards[-1].stop == b""
    assert all(a.stop == b.start for a, b in itertools.pairwise(shards))
    store = DirectoryCheckpoints(tmp_path)
    task = IndexTask(colour_index(), "verify")
    rows = [run_shard(backend, task, s, store).rows for s in shards]
    assert sum(rows) == 30 and all(r > 0 for r in rows)


def test_split_range_bounds() -> None:
    assert split_range(b"a", b"c", 2) == [b"b"]
    assert split_range(b"a", b"a", 4) == []
    points = split_range(b"\x00", b"\xff\xff", 4)
    assert points == [b"\x3f\xff", b"\x7f\xff", b"\xbf\xff"]
    assert all(b"\x00" < p <= b"\xff\xff" for p in points)
    with pytest.raises(ValidationError, match="parts"):
        split_range(b"a", b"b", 0)
    with pytest.raises(ValidationError, match="before the first"):
        split_range(b"b", b"a", 2)
    with pytest.raises(ValidationError, match="rows_per_shard"):
        Sharding(rows_per_shard=0)


def test_two_runners_of_one_shard_cannot_both_advance_it(
    backend: Backend, store: CheckpointStore
) -> None:
    stock(backend, 4)
    task = IndexTask(colour_index(), "verify")
    bound = store.bind(backend)
    plan = Plan("race", tuple(plan_shards(backend, "race", task.plan(backend))))
    (shard, *_) = bound.record_plan(plan).shards
    first = Checkpoint("race", 0, None, {"rows": 0}, {}, False, 1)
    assert bound.advance(None, first)
    assert not bound.advance(None, Checkpoint("race", 0, b"y", {"rows": 1}, {}, False, 1))
    assert bound.load("race", 0) == first

    def overtake(shard: Any, read: int) -> None:  # another runner records a batch meanwhile
        record = bound.load("race", 0)
        bound.advance(record, Checkpoint("race", 0, b"i01\x00\x00", {"rows": 9}, {}, False, 9))

    with pytest.raises(CheckpointConflictError, match="advanced by another runner"):
        run_shard(backend, task, shard, store, batch_size=2, hook=overtake)
    assert bound.load("race", 0).counts == {"rows": 9}  # type: ignore[union-attr]


def test_stores_pickle_without_their_backend(backend: Backend, tmp_path: Path) -> None:
    table = pickle.loads(pickle.dumps(TableCheckpoints(backend, "jobs_x")))
    assert (table.backend, table.table) == (None, "jobs_x")
    with pytest.raises(JobError, match="before bind"):
        table.load("j", 0)
    directory = pickle.loads(pickle.dumps(DirectoryCheckpoints(tmp_path)))
    assert directory.directory == tmp_path
    with pytest.raises(ValidationError, match="job id"):
        directory.load("../up", 0)


def test_the_rate_limit_sleeps_for_the_shortfall_without_real_time(backend: Backend) -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    bucket = TokenBucket(10, 10, clock=lambda: now[0], sleep=sleep)
    stock(backend, 30)
    task = IndexTask(colour_index(), "verify")
    (shard,) = plan_shards(backend, "rate", task.plan(backend))[:1]
    report = run_shard(
        backend, task, shard, TableCheckpoints(backend), batch_size=5, limiter=bucket
    )
    assert report.rows == 30
    assert sum(slept) == pytest.approx(2.0)  # 30 rows at 10/s, the first 10 from the full bucket
    assert RateLimit(1000).share(4) == RateLimit(250)
    with pytest.raises(ValidationError, match="rows_per_second"):
        RateLimit(0)


def test_progress_draws_the_rows_read(backend: Backend, store: CheckpointStore) -> None:
    stock(backend, 7)
    with JobProgress("verify", enabled=False) as hook:
        run_job(
            backend,
            IndexTask(colour_index(), "verify"),
            store,
            job="p",
            progress=hook,
            batch_size=2,
        )
    assert hook.rows == 7 + 0  # data side; the index side has no rows yet


def test_a_copy_job_verifies_and_repairs_stale_copies_R3(
    backend: Backend, store: CheckpointStore
) -> None:
    shop = Store(backend)
    shop.create_tables(Shipping)
    copy = ship_to(backend)
    for n in range(6):
        shipping = Shipping(order_id=f"o{n}", ship=1, city="Paris")
        shop.repository(Shipping).save(shipping)
        lines = [Line(order_id=f"o{n}", ship=1, line=k, item="i", ship_city="") for k in range(2)]
        shop.repository(Line).save_many([copy.fill(line, shipping) for line in lines])
    for n in (1, 4):
        shop.repository(Shipping).save(Shipping(order_id=f"o{n}", ship=1, city="Lyon"))
    verify = run_job(backend, CopyTask(ship_to, "verify"), store, job="cv", batch_size=4)
    assert (verify.count("sources"), verify.problems) == (6, 4)
    assert verify.rows == 6  # the lines share the table (R1), but not the source's columns
    repair = run_job(backend, CopyTask(ship_to, "repair"), store, job="cr", batch_size=4)
    assert repair.count("written") == 4
    assert run_job(backend, CopyTask(ship_to, "verify"), store, job="cv2").problems == 0
    sync = run_job(backend, CopyTask(ship_to, "sync"), store, job="cs")
    assert (sync.count("examined"), sync.count("written")) == (12, 0)


def test_a_relation_job_finds_and_completes_one_sided_links_R6(
    backend: Backend, store: CheckpointStore
) -> None:
    people = Store(backend)
    people.create_tables(User)
    for name in ("ann", "bob", "cid", "dan"):
        people.repository(User).save(User(user_id=name, nickname=name))
    follow = follows(backend)
    follow.link("ann", "bob", "x")
    follow.link("cid", "dan", "y")
    people.repository(User).put_entries({"user_id": "bob"}, "follows", {"cid": "z"})  # one side
    verify = run_job(backend, RelationTask(follows, "verify"), store, job="rv", batch_size=2)
    assert verify.problems == 1 and verify.samples["one_sided"] == (b"bob\x00\x00",)
    repair = run_job(backend, RelationTask(follows, "repair"), store, job="rr", batch_size=2)
    assert repair.count("written") == 1
    assert follow.of_right("cid") == {"bob": "z"}
    assert run_job(backend, RelationTask(follows, "verify"), store, job="rv2").problems == 0


def test_tasks_and_shards_pickle() -> None:
    backend = MemoryBackend()
    stock(backend, 3)
    task = IndexTask(colour_index(), "rebuild")
    shards = plan_shards(backend, "j", task.plan(backend))
    assert [(s.part, s.phase) for s in shards] == [("data", 0), ("index", 1)]
    assert pickle.loads(pickle.dumps(shards)) == shards
    assert pickle.loads(pickle.dumps(task)) == task
    assert pickle.loads(pickle.dumps(CopyTask(ship_to, "sync"))) == CopyTask(ship_to, "sync")


def test_a_job_forgotten_and_planned_again_in_one_millisecond_keeps_its_new_records() -> None:
    """HBase hides a put stamped in the same millisecond as a delete marker of its row, so
    ``forget`` never deletes a key that is written again: the plan row is marked
    forgotten and the next generation's shard rows have keys of their own."""
    clock = ManualClock(1_700_000_000_000)  # frozen: every write in one millisecond
    backend = MemoryBackend(clock=clock)
    store = TableCheckpoints(backend)
    shard = Shard("again", 0, "t", b"", b"")
    for generation in range(3):
        assert store.plan("again") is None
        plan = store.record_plan(Plan("again", (shard,), f"task {generation}"))
        assert plan.task == f"task {generation}"
        assert store.plan("again") == plan
        assert store.load("again", 0) is None  # nothing of the generation before
        record = Checkpoint("again", 0, b"r", {"rows": generation + 1}, {}, False, 1)
        assert store.advance(None, record)
        assert store.load("again", 0) == record
        other = TableCheckpoints(backend)  # another process, reading afresh
        assert other.load("again", 0) == record
        store.forget("again")
    assert store.plan("again") is None
    rows = [r.row for r in backend.scan(JOBS_TABLE, Scan())]
    assert rows == [b"again\x00"]  # the plan row, marked forgotten; shard rows deleted


def test_the_job_runner_and_the_index_jobs_refuse_each_others_arguments_I3() -> None:
    """hmodel.jobs.run_job given an Index, and hmodel.patterns.run_index_job given a task,
    each raise a ValidationError naming the other function, before anything runs."""
    backend = MemoryBackend()
    by_colour = colour_index()
    with pytest.raises(ValidationError, match="run_index_job") as found:
        run_job(backend, by_colour, TableCheckpoints(), job="j")  # type: ignore[arg-type]
    assert found.value.field == "task"
    with pytest.raises(ValidationError, match=r"hmodel\.jobs\.run_job") as found:
        index_job.run_index_job(backend, IndexTask(by_colour, "verify"), "verify")  # type: ignore[arg-type]
    assert found.value.field == "index"
    with pytest.raises(ValidationError, match="'verify', 'backfill' or 'rebuild'"):
        index_job.run_index_job(backend, by_colour, "repair")  # type: ignore[arg-type]
