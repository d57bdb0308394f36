"""AsyncIndexedRepository: the secondary index protocol (I1) as coroutines over an AsyncBackend."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from hmodel.aio.repository import AsyncRepository
from hmodel.backend.aio import AsyncBackend
from hmodel.backend.base import Backend
from hmodel.backend.op import aiterate, arun, run
from hmodel.patterns.index import Entry, Index
from hmodel.patterns.index_repository import IndexedRepositoryCore
from hmodel.repository import Page

__all__ = ["AsyncIndexedRepository"]

M = TypeVar("M")


async def _done() -> None:
    """Nothing left to do (what the older ``create_tables(backend)`` returns to await)."""


class AsyncIndexedRepository(IndexedRepositoryCore[M, AsyncBackend]):
    """Saves, deletes and queries that keep secondary indexes consistent, from asyncio (I1).

    The asynchronous edge of :class:`~hmodel.patterns.IndexedRepository`: the same
    arguments (an :class:`~hmodel.aio.AsyncRepository` where it takes a ``Repository``),
    the same method names, results, round trips, statistics and errors, each method a
    coroutine and :meth:`pages` and :meth:`pages_covered` async iterators. Every method
    runs the very operation the synchronous one runs
    (:class:`~hmodel.patterns.index_repository.IndexedRepositoryCore`), awaiting its
    requests: the claims of unique values (I2), the unverified/verified entries, the
    lease check, the guarded step 3, the read repair after the grace and the covering
    reads (I1) are the same code. A synchronous and an asynchronous indexed repository of
    the same tables and indexes are one protocol: they may write and read concurrently.

    The index jobs (``rebuild``, ``verify``: :func:`~hmodel.patterns.index_job.run_index_job`)
    stay synchronous; ``await indexed.create_tables()`` creates the tables through the
    asyncio backend.

    Cancellation (``task.cancel()``, ``asyncio.timeout()``) is a writer dying at that
    point of the protocol, as after a dropped connection: a write cancelled before its
    data write leaves unverified entries and unique claims that readers skip (a claim
    holds its value against other rows until the index's ``grace`` has passed, then the
    next write takes it over); one cancelled after its data write leaves entries that
    readers check against the data row and repair after the grace. Nothing is given back
    on cancellation (a failure the protocol catches gives claims back, best effort).

    Example::

        users = AsyncIndexedRepository(
            AsyncRepository(User, AsyncThrift2Backend("hbase-thrift", 9090)), [by_email]
        )
        await users.save(User(user_id="u1", email="ann@example.com"))
        found = await users.get_unique(by_email, email="ann@example.com")

    Args:
        repository: The async data repository; its write stamps order the index writes.
        indexes: The indexes of its model.
        token_secret: HMAC key for page tokens; default: the repository's.

    Raises:
        ValidationError: An index of another model, or two indexes with one name.
    """

    repository: AsyncRepository[M]

    def __init__(
        self,
        repository: AsyncRepository[M],
        indexes: Sequence[Index[M]],
        *,
        token_secret: bytes | None = None,
    ) -> None:
        super().__init__(repository, indexes, token_secret=token_secret)

    def create_tables(
        self, backend: Backend | None = None, *, exist_ok: bool = False
    ) -> Coroutine[Any, Any, None]:
        """Create the data table and every index table: ``await indexed.create_tables()``.

        Through the repository's own asyncio backend, one ``create_table`` each (a Thrift
        backend makes them from a worker thread: the loop is not blocked), as the
        synchronous ``IndexedRepository.create_tables``.

        Passing a synchronous ``backend`` is the older form: the tables are created through
        it now (a ``DeprecationWarning``), and what is returned is already done.

        Raises:
            TableExistsError: A table exists and ``exist_ok`` is false.
        """
        if backend is None:
            return arun(self._create_tables_op(exist_ok=exist_ok), self.backend)
        warnings.warn(
            "AsyncIndexedRepository.create_tables(sync_backend) is deprecated: "
            "await indexed.create_tables() creates them through the asyncio backend",
            DeprecationWarning,
            stacklevel=2,
        )
        run(self._create_tables_op(exist_ok=exist_ok), backend)
        return _done()

    async def load_rows(self, rows: Sequence[bytes]) -> dict[bytes, M | None]:
        """The models stored at data rowkeys ``rows`` (as ``IndexedRepository.load_rows``).

        One ``get_many`` round trip (none for no rows).
        """
        return await arun(self._load_rows_op(rows), self.backend)

    async def put_status_if(
        self, index: Index[M], row: bytes, expected: bytes | None, value: bytes
    ) -> bool:
        """Check-and-put the status cell of a unique row; whether it was applied."""
        return await arun(self._put_status_if_op(index, row, expected, value), self.backend)

    # --- writes -----------------------------------------------------------------------------

    async def save(self, obj: M, *, ttl: timedelta | None = None) -> M:
        """Save ``obj`` and keep every index consistent (as ``IndexedRepository.save``).

        The same requests and round trips: a ``get`` of the stored row, the claims of
        unique values, step 1, the data write, step 3.

        Raises:
            ValidationError: The instance or an index rowkey of it is invalid; nothing is
                written.
            UniqueViolationError: A unique value is held by another row, or being claimed
                by a write of another row, or (a model with a version field) this save
                stalled past the grace and a writer of another row took its claim over,
                fencing this row first; nothing is written.
            ConflictError: Optimistic locking refused the save, or another save or delete
                of this row holding one of its unique values is in flight.
            LeaseExpiredError: The write stalled past half the grace before its data
                write; no data was written.
            ClaimLostError: Only for a model without a version field: the data row was
                written, but a unique claim of this save was taken over by another row
                while it stalled past the grace.
        """
        return await arun(self._save_op(obj, ttl), self.backend)

    async def update(
        self, key: Mapping[str, Any], *, ttl: timedelta | None = None, **changes: Any
    ) -> M:
        """Change some fields of one row and keep every index consistent; return the row.

        As ``IndexedRepository.update``: the stored row is read first (one ``get``).

        Raises:
            NotFoundError: No row has this key.
            ValidationError: An unknown or key field, a wrong type; nothing is written.
            UniqueViolationError, ConflictError, ClaimLostError: As for :meth:`save`.
        """
        return await arun(self._update_op(key, ttl, changes), self.backend)

    async def delete(self, obj: M) -> None:
        """Delete ``obj``'s row and its index entries (as ``IndexedRepository.delete``).

        Raises:
            ConflictError: Optimistic locking refused the delete, or another save or
                delete of this row holding one of its unique values is in flight.
        """
        await arun(self._delete_op(obj), self.backend)

    # --- reads ------------------------------------------------------------------------------

    async def page(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        **bounds: Any,
    ) -> Page[M]:
        """One page of at most ``size`` models found through ``index``, and a resume token.

        As ``IndexedRepository.page``; its tokens resume on either edge (same
        ``token_secret``).

        Raises:
            QueryError: An unknown index or fields, values that do not encode, or a
                ``size`` below 1.
            TokenError: The token was altered or belongs to another query.
        """
        op = self._page_op(index, size, values, token, covering=False, bounds=bounds)
        items, next_token = await arun(op, self.backend)
        return Page(items, next_token)

    async def page_covered(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        **bounds: Any,
    ) -> Page[dict[str, Any]]:
        """A page of dicts answered from the index rows (as ``IndexedRepository.page_covered``).

        Verified entries are served without reading the data table; unverified ones are
        checked against their data rows (one ``get_many`` for those of the page).
        """
        op = self._page_op(index, size, values, token, covering=True, bounds=bounds)
        items, next_token = await arun(op, self.backend)
        return Page(items, next_token)

    def pages(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None = None,
        **bounds: Any,
    ) -> AsyncIterator[Page[M]]:
        """The pages of a query until it is exhausted, as an async iterator (``async for``)."""
        return aiterate(
            self._pages_op(index, size, values, covering=False, bounds=bounds), self.backend
        )

    def pages_covered(
        self,
        index: str | Index[M],
        size: int,
        values: Mapping[str, Any] | None = None,
        **bounds: Any,
    ) -> AsyncIterator[Page[dict[str, Any]]]:
        """The pages of a covering query until exhausted, as an async iterator."""
        return aiterate(
            self._pages_op(index, size, values, covering=True, bounds=bounds), self.backend
        )

    async def find(
        self,
        index: str | Index[M],
        values: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        **bounds: Any,
    ) -> list[M]:
        """Every model a query finds (at most ``limit``), in index order (as ``find``).

        Raises:
            QueryError: ``limit`` is not an int >= 1, or as :meth:`plan`.
        """
        return await arun(self._find_op(index, values, limit, bounds), self.backend)

    async def get_unique(self, index: str | Index[M], **values: Any) -> M | None:
        """The model holding ``values`` in a unique index, or ``None`` (two round trips).

        Raises:
            QueryError: Not a unique index, or not exactly its fields.
        """
        return await arun(self._get_unique_op(index, values), self.backend)

    async def resolve(
        self, index: Index[M], results: Sequence[Any], *, covering: bool = False
    ) -> list[Any]:
        """Turn index rows into what a reader may see (as ``IndexedRepository.resolve``).

        A model, a dict (``covering``) or ``None`` (skip) per row; one ``get_many`` for
        the data rows to check; unverified entries older than the grace are repaired.
        """
        return await arun(self._resolve_op(index, results, covering=covering), self.backend)

    async def repair(
        self,
        index: Index[M],
        entry: Entry,
        obj: M | None,
        *,
        data_stamp: int | None = None,
        fence: bool = False,
    ) -> bool:
        """Rewrite ``entry`` verified from ``obj``, or delete it; guarded (as ``repair``).

        Returns whether the repair was applied.
        """
        op = self._repair_op(index, entry, obj, data_stamp=data_stamp, fence=fence)
        return await arun(op, self.backend)
