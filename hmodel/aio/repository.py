"""AsyncRepository[M]: the repository's operations as coroutines over an AsyncBackend."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import timedelta
from typing import Any, Literal, TypeVar, overload

from hmodel.backend.aio import AsyncBackend
from hmodel.backend.op import aiterate, arun, create_tables_op
from hmodel.repository import Condition, Page, Query
from hmodel.repository.core import OnError, RepositoryCore

__all__ = ["AsyncRepository"]

M = TypeVar("M")


class AsyncRepository(RepositoryCore[M, AsyncBackend]):
    """Reads and writes instances of one model from an asyncio event loop.

    The asynchronous edge of :class:`~hmodel.repository.Repository`: the same arguments
    (``model``, then an :class:`~hmodel.backend.aio.AsyncBackend`, then the same
    keywords), the same method names, results, round trips and errors, each method a
    coroutine, and :meth:`scan` and :meth:`pages` async iterators (``async for``). Every
    method runs the very operation the synchronous repository runs
    (:class:`~hmodel.repository.core.RepositoryCore`), awaiting its requests.

    Asynchronous so far: :meth:`get`, :meth:`get_many`, :meth:`get_fields`,
    :meth:`history`, :meth:`exists`, :meth:`save`, :meth:`save_many`, :meth:`update`,
    :meth:`move`, :meth:`delete`, :meth:`delete_many`, :meth:`increment`,
    :meth:`increment_many`, the map entries (:meth:`put_entries`,
    :meth:`remove_entries`, :meth:`change_entries`, :meth:`get_entries`),
    :meth:`scan`, :meth:`page`, :meth:`pages`, plus the methods without I/O
    (:meth:`plan`, :meth:`load`, :meth:`reserve_stamp`...); models with a version field
    (optimistic locking, R5) included: one atomic ``check_and_mutate`` on the memory
    engine and Thrift2, a claim, the data and a commit over Thrift1 (a cancellation
    between those leaves the row claimed until the lock lease ends, as a dropped
    connection does).

    Cancellation (``task.cancel()``, ``asyncio.timeout()``): a write is one request per
    row operation; cancelled before it is sent, nothing is written; once sent, it is
    applied whole or not at all, and the connection it used is discarded, never given
    back mid-response. The instance is then not remembered as saved.

    Example (a FastAPI-style handler: see ``docs/async.md``)::

        users = AsyncRepository(User, AsyncThrift2Backend("hbase-thrift", 9090))
        user = await users.get(user_id="u1", required=True)
        async for order in orders.scan({"customer_id": "c1"}, limit=10):
            ...
    """

    async def create_table(self, *, exist_ok: bool = False) -> None:
        """Create the model's table from its declaration (one ``create_table``).

        Raises:
            TableExistsError: The table exists and ``exist_ok`` is false.
        """
        await arun(create_tables_op([self.info.table], exist_ok=exist_ok), self.backend)

    # --- reads ----------------------------------------------------------------------

    @overload
    async def get(
        self,
        *,
        required: Literal[True],
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        **key: Any,
    ) -> M: ...

    @overload
    async def get(
        self,
        *,
        required: bool = False,
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        **key: Any,
    ) -> M | None: ...

    async def get(
        self,
        *,
        required: bool = False,
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        **key: Any,
    ) -> M | None:
        """Read one model by its key fields, in one round trip (as ``Repository.get``).

        Raises:
            NotFoundError: ``required`` and no such row.
        """
        op = self._get_op(required=required, fields=fields, as_of=as_of, key=key)
        return await arun(op, self.backend)

    async def get_many(
        self,
        keys: Sequence[Mapping[str, Any]],
        *,
        fields: Sequence[str] | None = None,
        as_of: int | None = None,
        on_error: OnError = "raise",
    ) -> list[M | None]:
        """Read several models in one round trip, aligned with ``keys`` (as ``get_many``)."""
        op = self._get_many_op(keys, fields=fields, as_of=as_of, on_error=on_error)
        return await arun(op, self.backend)

    async def exists(self, **key: Any) -> bool:
        """Whether the row of these key fields holds this model's data (one round trip)."""
        return await arun(self._exists_op(key), self.backend)

    # --- scans ----------------------------------------------------------------------

    def scan(
        self,
        prefix: Mapping[str, Any] | None = None,
        *,
        query: Query | None = None,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
        reverse: bool = False,
        fields: Sequence[str] | None = None,
        where: Condition | None = None,
        limit: int | None = None,
        on_error: OnError = "raise",
    ) -> AsyncIterator[M]:
        """Iterate models by key range with ``async for`` (as ``Repository.scan``).

        The query is checked at once (``QueryError`` here, not at the first row); the
        scans open at the first row asked for. Leaving the loop early releases them
        (``aclose()`` the iterator to release them at once when not looping to the end).
        """
        q = self._query(
            query,
            prefix,
            low=low,
            high=high,
            low_inclusive=low_inclusive,
            high_inclusive=high_inclusive,
            reverse=reverse,
            fields=fields,
            where=where,
            limit=limit,
        )
        return aiterate(self._scan_op(q, on_error, batched=True), self.backend)

    async def page(
        self,
        size: int,
        prefix: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        query: Query | None = None,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
        reverse: bool = False,
        fields: Sequence[str] | None = None,
        where: Condition | None = None,
        on_error: OnError = "raise",
    ) -> Page[M]:
        """One page of at most ``size`` models and a token for the next (R8; as ``page``).

        Tokens are the synchronous repository's: one made here resumes there, and the
        other way round (with the same ``token_secret``).

        Raises:
            TokenError: The token was altered, or belongs to another query.
        """
        q = self._query(
            query,
            prefix,
            low=low,
            high=high,
            low_inclusive=low_inclusive,
            high_inclusive=high_inclusive,
            reverse=reverse,
            fields=fields,
            where=where,
        )
        return await arun(self._page_op(size, q, token, on_error), self.backend)

    def pages(
        self,
        size: int,
        prefix: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
        query: Query | None = None,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
        reverse: bool = False,
        fields: Sequence[str] | None = None,
        where: Condition | None = None,
        on_error: OnError = "raise",
    ) -> AsyncIterator[Page[M]]:
        """Iterate pages of ``size`` with ``async for`` (as ``Repository.pages``).

        The query and the token are checked at once.
        """
        q = self._query(
            query,
            prefix,
            low=low,
            high=high,
            low_inclusive=low_inclusive,
            high_inclusive=high_inclusive,
            reverse=reverse,
            fields=fields,
            where=where,
        )
        return aiterate(self._pages_op(size, q, token, on_error), self.backend)

    # --- writes ---------------------------------------------------------------------

    async def save(
        self, obj: M, *, ttl: timedelta | None = None, write_stamp: int | None = None
    ) -> M:
        """Write the whole model and return it (as ``Repository.save``).

        Raises:
            ValidationError: An invalid instance; nothing is written.
            RowExistsError: A new locked instance (version 0) and the row exists.
            ConflictError: The stored version is not the one read. Nothing is written.
            OutcomeUnknownError: The connection dropped (or the call was cancelled) during
                a non-idempotent step: read the row before retrying.
        """
        return await arun(self._save_op(obj, ttl=ttl, write_stamp=write_stamp), self.backend)

    async def save_many(self, objs: Sequence[M], *, ttl: timedelta | None = None) -> None:
        """Write several models in one round trip (as ``Repository.save_many``)."""
        await arun(self._save_many_op(objs, ttl=ttl), self.backend)

    async def delete(
        self, obj: M | None = None, /, *, write_stamp: int | None = None, **key: Any
    ) -> None:
        """Delete a row, given a model instance or its key fields (one round trip).

        For a model with a version field pass the instance: the delete succeeds only if
        the stored version is the one read (``ConflictError`` otherwise).
        """
        await arun(self._delete_op(obj, write_stamp=write_stamp, key=key), self.backend)

    async def delete_many(self, keys: Sequence[Mapping[str, Any]]) -> None:
        """Delete several rows by key fields in one round trip (as ``delete_many``)."""
        await arun(self._delete_many_op(keys), self.backend)

    async def increment(self, key: Mapping[str, Any], **amounts: int) -> dict[str, int]:
        """Add to counter fields of one row; return their new values (F10)."""
        return await arun(self._increment_op(key, amounts), self.backend)

    async def update(
        self,
        key: Mapping[str, Any],
        *,
        ttl: timedelta | None = None,
        write_stamp: int | None = None,
        **changes: Any,
    ) -> None:
        """Write only the named fields of one row, without reading it (as ``update``).

        One round trip (a map with a prefix is read first: +1).

        Raises:
            ValidationError: Unknown or key fields, wrong types, or a locked model.
                Nothing is written.
        """
        op = self._update_op(key, ttl=ttl, write_stamp=write_stamp, changes=changes)
        await arun(op, self.backend)

    async def move(self, obj: M, **new_key: Any) -> M:
        """Change key fields (K10): save a copy under the new key, then delete the old row.

        As ``Repository.move``: not atomic across the two rows (a failure or a
        cancellation between them leaves both). Returns the copy.
        """
        return await arun(self._move_op(obj, new_key), self.backend)

    async def get_stamped(self, rows: Sequence[bytes]) -> dict[bytes, tuple[M | None, int]]:
        """Read rows by rowkey in one round trip, each with its newest write stamp.

        As ``Repository.get_stamped``: per rowkey the model (``None`` for a missing row,
        or one that does not decode) and the newest write stamp read (0: no row).
        """
        return await arun(self._get_stamped_op(rows), self.backend)

    # --- projections and versions -----------------------------------------------------

    async def get_fields(self, fields: Sequence[str], **key: Any) -> dict[str, Any] | None:
        """Read some fields of one row as a dict, key fields included (as ``get_fields``).

        One round trip; ``None`` when the row holds none of the fields' cells.
        """
        return await arun(self._get_fields_op(fields, key), self.backend)

    async def history(
        self, field: str, *, limit: int | None = None, before: int | None = None, **key: Any
    ) -> list[tuple[Any, int]]:
        """A field's versions, newest first, as ``(value, timestamp)`` (F7; as ``history``).

        One round trip; at most ``limit`` versions and never more than the family keeps;
        ``before`` (exclusive) reads older ones.

        Raises:
            QueryError: ``limit`` is below 1.
        """
        op = self._history_op(field, limit=limit, before=before, key=key)
        return await arun(op, self.backend)

    # --- counters (F10) ---------------------------------------------------------------

    async def increment_many(
        self, items: Sequence[tuple[Mapping[str, Any], Mapping[str, int]]]
    ) -> None:
        """Increment counters of many rows in one round trip; each increment is atomic."""
        await arun(self._increment_many_op(items), self.backend)

    # --- map fields (F6, R10) ---------------------------------------------------------

    async def put_entries(
        self, key: Mapping[str, Any], field: str, entries: Mapping[Any, Any]
    ) -> None:
        """Add or overwrite entries of a map field, one round trip (as ``put_entries``)."""
        await arun(self._put_entries_op(key, field, entries), self.backend)

    async def remove_entries(
        self, key: Mapping[str, Any], field: str, names: Sequence[Any]
    ) -> None:
        """Delete entries of a map field by key, one round trip (as ``remove_entries``)."""
        await arun(self._remove_entries_op(key, field, names), self.backend)

    async def change_entries(
        self,
        key: Mapping[str, Any],
        field: str,
        *,
        put: Mapping[Any, Any] | None = None,
        remove: Sequence[Any] = (),
    ) -> None:
        """Put some entries and remove others in one mutation (R10; as ``change_entries``).

        One ``mutate`` request, none when nothing changes; its atomicity per backend is
        ``Repository.change_entries``'s.

        Raises:
            ValidationError: Not a map field, a key both put and removed, or a locked
                model. Nothing is written.
        """
        await arun(self._change_entries_op(key, field, put=put, remove=remove), self.backend)

    async def get_entries(
        self, key: Mapping[str, Any], field: str, names: Sequence[Any] | None = None
    ) -> dict[Any, Any]:
        """Read a map field whole, or only the entries named, one round trip."""
        return await arun(self._get_entries_op(key, field, names), self.backend)
