from __future__ import annotations

import io
import logging

import pytest

from hmodel.ops.progress import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_drawn_when_not_a_terminal(caplog: pytest.LogCaptureFixture) -> None:
    stream = io.StringIO()
    with caplog.at_level(logging.DEBUG, logger="hmodel.progress"):
        assert list(progress(range(3), label="loading", stream=stream)) == [0, 1, 2]
    assert stream.getvalue() == ""
    assert caplog.messages == ["loading: 3 done"]


def test_a_bar_is_drawn_at_a_terminal() -> None:
    pytest.importorskip("tqdm")
    stream = _Terminal()
    assert list(progress(range(5), label="loading", stream=stream)) == list(range(5))
    assert "loading" in stream.getvalue()
    assert "0/5" in stream.getvalue()  # drawn at the start, then cleared (leave=False)


def test_the_bar_can_be_forced_off_at_a_terminal() -> None:
    stream = _Terminal()
    assert list(progress([1, 2], label="x", stream=stream, enabled=False)) == [1, 2]
    assert stream.getvalue() == ""


def test_a_job_progress_hook_counts_the_rows_of_every_shard() -> None:
    """An index verify job over several shards: the hook's rows are the job's rows."""
    import io

    from hmodel import Family, Key, Repository, Salt, Str, Table, field, model
    from hmodel.backend.memory import MemoryBackend
    from hmodel.ops.progress import JobProgress
    from hmodel.patterns.index import Index
    from hmodel.patterns.index_job import run_index_job
    from hmodel.patterns.index_repository import IndexedRepository
    from hmodel.schema import SaltSplits

    @model(
        Table("jp_item", [Family("i")], splits=SaltSplits(4)),
        key=Key(Salt("item_id", buckets=4), Str("item_id")),
    )
    class Item:
        item_id: str
        colour: str = field("i:c")

    by_colour = Index(Item, on=["colour"], table=Table("jp_by_colour", [Family("x")]))
    backend = MemoryBackend()
    items = IndexedRepository(Repository(Item, backend), [by_colour])
    items.create_tables()
    for n in range(40):
        items.save(Item(item_id=f"i{n}", colour="red" if n % 2 else "blue"))
    stream = io.StringIO()
    with JobProgress("verify", stream=stream, enabled=True) as hook:
        report = run_index_job(backend, by_colour, "verify", batch_size=7, progress=hook)
    assert hook.rows == report.counts["rows"] == 80  # 40 data rows, 40 index rows
