"""Record types (R1, R2, R5): several models under one key prefix, read in one scan."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

import attrs

from hmodel.backend.base import RowResult
from hmodel.backend.op import Op, iterate, run
from hmodel.errors import DeclarationError, DecodeError
from hmodel.patterns.storelike import END, StoreLike, collect, pull
from hmodel.repository import KeySpan, OnError, Repository, ScanPlan, Store, execute_op
from hmodel.repository.core import RepositoryCore

__all__ = ["Aggregate", "RecordTypes", "RecordTypesCore"]

R = TypeVar("R")
T = TypeVar("T")


@attrs.frozen
class Aggregate(Generic[R]):
    """A root record and the records stored under its key (R2: an order with its lines).

    Attributes:
        root: The root instance.
        members: Every other record under the root's key, in key order.
    """

    root: R
    members: tuple[Any, ...]

    def of(self, cls: type[T]) -> list[T]:
        """The members of one record type, in key order."""
        return [m for m in self.members if isinstance(m, cls)]


class RecordTypesCore:
    """The declaration and sans-I/O operations of record types, shared by both edges (R2).

    Not used directly: :class:`RecordTypes` (over a :class:`~hmodel.repository.Store`)
    and :class:`hmodel.aio.AsyncRecordTypes` (over an :class:`~hmodel.aio.AsyncStore`)
    run its operations; see :class:`RecordTypes` for the arguments.
    """

    def __init__(self, store: StoreLike, *models: type) -> None:
        if len(models) < 2:
            raise DeclarationError("record types are two or more models on one table")
        self.repositories: tuple[RepositoryCore[Any, Any], ...] = tuple(
            store.repository(m) for m in models
        )
        tables = {r.info.table.full_name for r in self.repositories}
        if len(tables) != 1:
            raise DeclarationError(
                f"record types share one table, not {sorted(tables)}", table=sorted(tables)[0]
            )
        self.table = tables.pop()
        self.backend = store.backend
        self._columns = _union([c for r in self.repositories for c in r.mapper.columns()])

    def plan(self, prefix: Mapping[str, Any], *, reverse: bool = False) -> ScanPlan:
        """The one scan that reads every record type under ``prefix`` (no I/O).

        ``prefix`` is a leading run of key fields common to every type (the customer id,
        the order id). Per salt bucket, the range spans from the lowest start to the
        highest stop of the types' ranges.

        Raises:
            KeyEncodeError: ``prefix`` is not a leading run of every type's key fields.
            DeclarationError: The types' keys put the prefix in different buckets.
        """
        per_type = [r.info.key.ranges(dict(prefix)) for r in self.repositories]
        counts = {len(ranges) for ranges in per_type}
        if len(counts) != 1:
            raise DeclarationError(
                "record types read together must salt the prefix alike", table=self.table
            )
        spans = []
        for parts in zip(*per_type, strict=True):
            start = min(p.start for p in parts)
            stop = b"" if any(not p.stop for p in parts) else max(p.stop for p in parts)
            spans.append(KeySpan(start, stop))
        spans.sort(key=lambda s: s.start)
        offset = self.repositories[0].mapper.salt_width if len(spans) > 1 else 0
        return ScanPlan(
            table=self.table,
            spans=tuple(spans),
            columns=self._columns,
            reverse=reverse,
            merge_offset=offset,
        )

    def _decode(self, result: RowResult, on_error: OnError) -> list[Any]:
        """Every record type whose key the row has and whose cells it holds."""
        found: list[Any] = []
        matched = False
        for repository in self.repositories:
            if not repository.mapper.matches(result.row):
                continue
            matched = True
            own = repository.mapper.columns()
            if not any(_selects(own, column) for column in result.cells):
                continue
            try:
                obj = repository.load(result)
            except DecodeError as error:
                _report(error, on_error)
                continue
            if obj is not None:
                found.append(obj)
        if not matched:
            _report(
                DecodeError(
                    "the row's key is none of the record types read together",
                    table=self.table,
                    row=result.row,
                ),
                on_error,
            )
        return found

    def _scan_op(self, prefix: Mapping[str, Any], reverse: bool, on_error: OnError) -> Op[None]:
        """The stream operation of ``scan``: yields the typed records (one scan)."""
        rows = execute_op(self.plan(prefix, reverse=reverse))
        try:
            while True:
                item = yield from pull(rows)
                if item is END:
                    return
                yield from self._decode(item[1], on_error)
        finally:
            rows.close()

    def _read_op(self, prefix: Mapping[str, Any], on_error: OnError) -> Op[list[Any]]:
        """The operation of ``read``."""
        return (yield from collect(self._scan_op(prefix, False, on_error)))

    def _groups_op(self, root: type[R], prefix: Mapping[str, Any], on_error: OnError) -> Op[None]:
        """The stream operation of ``groups``: yields an :class:`Aggregate` per root.

        Raises:
            DeclarationError: ``root`` is not one of the record types (when called).
        """
        repositories = {r.model: r for r in self.repositories}
        if root not in repositories:
            raise DeclarationError(f"{root.__name__} is not one of these record types")
        return self._grouped(root, repositories[root].info.key_field_names, prefix, on_error)

    def _grouped(
        self,
        root: type[R],
        key_fields: Sequence[str],
        prefix: Mapping[str, Any],
        on_error: OnError,
    ) -> Op[None]:
        current: R | None = None
        members: list[Any] = []
        records = self._scan_op(prefix, False, on_error)
        try:
            while True:
                record = yield from pull(records)
                if record is END:
                    break
                if isinstance(record, root):
                    if current is not None:
                        yield Aggregate(current, tuple(members))
                    current, members = record, []
                elif current is not None and all(
                    getattr(record, f, None) == getattr(current, f) for f in key_fields
                ):
                    members.append(record)
                else:
                    _report(
                        DecodeError(
                            f"an orphan {type(record).__name__}: no {root.__name__} before it",
                            table=self.table,
                        ),
                        on_error,
                    )
        finally:
            records.close()
        if current is not None:
            yield Aggregate(current, tuple(members))

    def _group_op(
        self, root: type[R], prefix: Mapping[str, Any], on_error: OnError
    ) -> Op[Aggregate[R] | None]:
        """The operation of ``group``."""
        found = yield from collect(self._groups_op(root, prefix, on_error))
        if len(found) > 1:
            raise DeclarationError(
                f"{len(found)} {root.__name__} records under this prefix: use groups()",
                table=self.table,
            )
        return found[0] if found else None


class RecordTypes(RecordTypesCore):
    """Models that share a table and a key prefix, read together (R1, R2; R5 for contrast).

    The HBase reference guide's single-table designs ("Case Study - Customer/Order") put
    several record types under one prefix: a
    customer ``[customer][1]`` and its orders ``[customer][2][order]`` (R1); an order
    ``[order][ORDER]``, its shipments ``[order][SHIPPING][ship#]`` and lines
    ``[order][LINE][ship#][line#]`` (R2). Each type is a model with its own key, told apart
    by a ``Const`` tag; one prefix scan reads them all, in key order, as typed objects.
    A single type is read with its repository, whose ranges already include its tag, so it
    never fetches another type's rows. (R5, the normalised alternative, is one model per
    table: one read per table.)

    Every method runs the operation :class:`RecordTypesCore` defines (sans-I/O, see
    :mod:`hmodel.backend.op`); :class:`hmodel.aio.AsyncRecordTypes` runs the same ones
    from an asyncio event loop.

    Args:
        store: Where the models' repositories come from.
        *models: The record types; all on one table.

    Raises:
        DeclarationError: Fewer than two models, or models on different tables.
    """

    repositories: tuple[Repository[Any], ...]

    def __init__(self, store: Store, *models: type) -> None:
        super().__init__(store, *models)

    def scan(
        self,
        prefix: Mapping[str, Any],
        *,
        reverse: bool = False,
        on_error: OnError = "raise",
    ) -> Iterator[Any]:
        """Every record under ``prefix``, typed, in key order: one scan (per salt bucket).

        Round trips: one open and one per 1,000 rows per bucket (over Thrift also a close).
        A row that matches no record type, or does not decode, raises
        :class:`~hmodel.errors.DecodeError` unless ``on_error`` skips it.
        """
        return iterate(self._scan_op(prefix, reverse, on_error), self.backend)

    def read(self, prefix: Mapping[str, Any], *, on_error: OnError = "raise") -> list[Any]:
        """:meth:`scan` as a list (R1: "one prefix scan returns everything about a customer")."""
        return run(self._read_op(prefix, on_error), self.backend)

    def groups(
        self, root: type[R], prefix: Mapping[str, Any], *, on_error: OnError = "raise"
    ) -> Iterator[Aggregate[R]]:
        """The records under ``prefix`` grouped under each ``root`` record (R2).

        A member belongs to the root before it whose key fields it shares (every key
        field of the root's model, e.g. ``order_id``). Members before any root, or not
        sharing the current root's key, raise :class:`~hmodel.errors.DecodeError` (an
        orphan: its root was deleted) unless ``on_error`` skips them.

        Raises:
            DeclarationError: ``root`` is not one of the record types.
        """
        return iterate(self._groups_op(root, prefix, on_error), self.backend)

    def group(
        self, root: type[R], prefix: Mapping[str, Any], *, on_error: OnError = "raise"
    ) -> Aggregate[R] | None:
        """The one aggregate under ``prefix`` (the prefix is the root's whole key), or None."""
        return run(self._group_op(root, prefix, on_error), self.backend)


def _union(columns: Sequence[bytes]) -> tuple[bytes, ...]:
    """Columns and families to read, without a column of a family read whole."""
    families = {c for c in columns if b":" not in c}
    kept = {c for c in columns if b":" not in c or c.partition(b":")[0] not in families}
    return tuple(sorted(kept))


def _selects(selection: Sequence[bytes], column: bytes) -> bool:
    family = column.partition(b":")[0]
    return column in selection or family in selection


def _report(error: DecodeError, on_error: OnError) -> None:
    if on_error == "raise":
        raise error
    if callable(on_error):
        on_error(error)
