"""The asyncio edge creates its own tables: awaitable create_table(s) over its asyncio backend."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from hmodel.aio import (
    AsyncIdAllocator,
    AsyncIndexedRepository,
    AsyncRepository,
    AsyncStore,
    AsyncTimeSeries,
)
from hmodel.backend.aio import AsyncBackend, InProcessAsyncBackend
from hmodel.backend.base import Backend
from hmodel.errors import TableExistsError
from hmodel.model import model_info
from hmodel.patterns import id_table
from hmodel.testing.async_edge import async_backend_of
from tests.patterns.index_models import ACCOUNTS, ACCOUNTS_BY_EMAIL, Account, Item, email_index
from tests.patterns.summary_models import DailyOrders, daily
from tests.patterns.test_timebucket import TSDB, hourly


def _async(backend: Backend) -> AsyncBackend:
    made = async_backend_of(backend)
    assert made is not None
    return made


async def _close(made: AsyncBackend) -> None:
    """Close a Thrift backend's pool (the memory engine stays the test's backend's)."""
    if not isinstance(made, InProcessAsyncBackend):
        await made.aclose()


def test_an_async_indexed_repository_creates_its_tables_over_its_own_backend_I1(
    backend: Backend,
) -> None:
    """``await create_tables()``: the data and index tables made through the asyncio
    backend, none given; again: TableExistsError, or nothing with exist_ok; then usable."""
    made = _async(backend)

    async def main() -> Account | None:
        accounts = AsyncIndexedRepository(AsyncRepository(Account, made), [email_index()])
        await accounts.create_tables()
        assert await made.table_exists(ACCOUNTS.full_name)
        assert ACCOUNTS_BY_EMAIL.full_name in await made.list_tables()
        with pytest.raises(TableExistsError):
            await accounts.create_tables()
        await accounts.create_tables(exist_ok=True)
        await accounts.save(Account(account_id="a1", email="ann@example.com"))
        found = await accounts.get_unique(email_index().name, email="ann@example.com")
        await _close(made)
        return found

    found = asyncio.run(main())
    assert found is not None and found.account_id == "a1"
    assert backend.table_exists(ACCOUNTS.full_name)
    assert backend.table_exists(ACCOUNTS_BY_EMAIL.full_name)


def test_an_async_store_and_repository_create_tables_as_the_sync_ones_do(
    backend: Backend,
) -> None:
    """AsyncStore.create_tables (exist_ok by default) and AsyncRepository.create_table."""
    made = _async(backend)

    async def main() -> None:
        store = AsyncStore(made)
        await store.create_tables(Item, Item)  # each table once
        await store.create_tables(Item)  # exist_ok=True by default
        with pytest.raises(TableExistsError):
            await store.repository(Item).create_table()
        await store.repository(Item).create_table(exist_ok=True)
        await _close(made)

    asyncio.run(main())
    assert backend.table_exists("item")


def test_the_older_create_tables_with_a_sync_backend_warns_and_still_works(
    hmodel_memory_backend: Backend,
) -> None:
    """create_tables(sync_backend): a DeprecationWarning, the tables made, awaitable."""
    made = _async(hmodel_memory_backend)
    accounts = AsyncIndexedRepository(AsyncRepository(Account, made), [email_index()])
    with pytest.warns(DeprecationWarning, match="await indexed.create_tables"):
        done = accounts.create_tables(hmodel_memory_backend)
    assert hmodel_memory_backend.table_exists(ACCOUNTS_BY_EMAIL.full_name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asyncio.run(_await(done))


async def _await(done: object) -> None:
    await done  # type: ignore[misc]


def test_the_other_async_facades_create_their_tables_K9_R9_I3(backend: Backend) -> None:
    """AsyncIdAllocator, AsyncTimeSeries and AsyncSummary: ``await create_table()`` as the
    synchronous ones (exist_ok by default for ids and series, not for a summary)."""
    made = _async(backend)
    ids_table = id_table("async_ddl_ids")

    async def main() -> None:
        await AsyncIdAllocator(made, ids_table, kind="host").create_table()
        await AsyncIdAllocator(made, ids_table, kind="host").create_table()  # left alone
        series = AsyncTimeSeries(hourly(), made)
        await series.create_table()
        summary = daily(AsyncStore(made))
        await summary.create_table()
        with pytest.raises(TableExistsError):
            await summary.create_table()
        await _close(made)

    asyncio.run(main())
    for table in (ids_table, TSDB, model_info(DailyOrders).table):
        assert backend.table_exists(table.full_name)
