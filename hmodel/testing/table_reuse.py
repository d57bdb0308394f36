"""Tables kept on a real HBase between tests: reused when unchanged, emptied, never re-created."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from hmodel.backend.base import Backend, Increment, Mutation, Scan
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.schema.family import Family
from hmodel.schema.table import Table

__all__ = ["ReusingThrift2Backend", "ReusingThriftBackend", "TablePool"]


class TablePool:
    """The tables one real-HBase target keeps between the tests of a session.

    Creating and dropping a table on a real HBase costs a master procedure each (about
    0.6 s and 0.45 s on a 2-core standalone 2.6), so the test kit does not drop a test's
    tables at its end: it *parks* them. A parked table is invisible to the next test
    (``list_tables`` and ``table_exists`` leave it out). When a test creates a table of
    the same name and the same descriptor (families, options, split points), the parked
    one is handed over instead: as it is when nothing was written to it through the
    kit's backend and a one-row scan finds it empty, else emptied with ``truncateTable``
    (splits preserved) through ``raw`` when it is a Thrift2 backend, else by drop and
    create. Deleting the rows would not do: HBase's delete markers would hide a later
    test's puts at older timestamps until a major compaction.

    A parked table of another descriptor is dropped before the create; a parked table
    that a test touches in any other way (a read, a write, a drop) is dropped first, so
    the test sees what it would see on a fresh cluster: no such table. A table a test
    altered (a Thrift2 admin call: families, enabled state, truncation) is dropped at
    the test's end instead of parked.

    Args:
        raw: A plain backend on the same cluster and table prefix, which does the work.

    Attributes:
        counts: ``created``, ``reused``, ``truncated`` and ``dropped`` tables so far.
    """

    def __init__(self, raw: Backend) -> None:
        self.raw = raw
        self.parked: dict[str, Table] = {}
        self.live: dict[str, Table] = {}
        self.dirty: set[str] = set()
        self.altered: set[str] = set()
        self.counts: Counter[str] = Counter()

    def _drop(self, name: str) -> None:
        self.parked.pop(name, None)
        self.live.pop(name, None)
        self.dirty.discard(name)
        self.altered.discard(name)
        self.raw.delete_table(name)
        self.counts["dropped"] += 1

    def begin(self) -> None:
        """Start a test: drop every table of the prefix that the pool does not know."""
        for name in self.raw.list_tables():
            if name not in self.parked:
                self._drop(name)

    def end(self) -> None:
        """End a test: park the tables it created unaltered, drop every other one."""
        tables = set(self.raw.list_tables())
        for name in sorted(tables):
            if name in self.parked:
                continue
            if name in self.live and name not in self.altered:
                self.parked[name] = self.live.pop(name)
            else:
                self._drop(name)
        for name in set(self.parked) - tables:  # dropped behind the kit's back
            del self.parked[name]
        self.live.clear()

    def close(self) -> None:
        """Drop every table the pool holds (the end of the session)."""
        self.end()
        for name in list(self.parked):
            self._drop(name)

    def claim(self, name: str) -> None:
        """A test touches ``name`` other than by creating it: a parked table goes first."""
        if name in self.parked:
            self._drop(name)

    def wrote(self, name: str) -> None:
        """A write went to ``name``: it must be emptied before it is handed over again."""
        self.dirty.add(name)

    def alter(self, name: str) -> None:
        """``name`` was altered (or disabled): it is dropped at the test's end."""
        self.altered.add(name)

    def create(self, table: Table) -> None:
        """Create ``table`` for the current test, or hand over a parked copy emptied."""
        name = table.full_name
        parked = self.parked.get(name)
        if parked is not None and parked != table:
            self._drop(name)
            parked = None
        if parked is None:
            self.raw.create_table(table)
            self.counts["created"] += 1
        else:
            del self.parked[name]
            if name in self.dirty or next(iter(self.raw.scan(name, Scan(limit=1))), None):
                self._empty(table)
            self.counts["reused"] += 1
        self.dirty.discard(name)
        self.live[name] = table

    def _empty(self, table: Table) -> None:
        name = table.full_name
        if isinstance(self.raw, Thrift2Backend):
            self.raw.truncate_table(name, preserve_splits=True)
            self.counts["truncated"] += 1
        else:
            self._drop(name)
            self.raw.create_table(table)
            self.counts["created"] += 1


class _Reusing(Backend):
    """The overrides both reusing backends share: each call tells the pool first."""

    pool: TablePool

    def create_table(self, table: Table) -> None:
        """Create ``table``, or take over a parked copy (see :class:`TablePool`).

        The backend then knows the table's families, as after its own create, so its
        first write costs no extra round trip to look them up.
        """
        self.pool.create(table)
        self._remember_families(table)

    def _remember_families(self, table: Table) -> None:
        """Cache ``table``'s family names as the backend's own ``create_table`` does."""

    def delete_table(self, name: str) -> None:
        """Drop ``name`` (a parked table counts as absent)."""
        self.pool.claim(name)
        self.pool.live.pop(name, None)
        super().delete_table(name)  # type: ignore[safe-super]

    def table_exists(self, name: str) -> bool:
        """Whether ``name`` exists and is not parked."""
        return name not in self.pool.parked and super().table_exists(name)  # type: ignore[safe-super]

    def list_tables(self) -> list[str]:
        """The tables of the prefix, parked ones left out."""
        names = super().list_tables()  # type: ignore[safe-super]
        return [name for name in names if name not in self.pool.parked]

    def describe_families(self, name: str) -> dict[str, Family]:
        """:meth:`Backend.describe_families` of a table the test can see."""
        self.pool.claim(name)
        return super().describe_families(name)  # type: ignore[safe-super]

    def get(self, table: str, rows: Sequence[bytes], *args: Any, **kwargs: Any) -> Any:
        """:meth:`Backend.get` of a table the test can see."""
        self.pool.claim(table)
        return super().get(table, rows, *args, **kwargs)  # type: ignore[safe-super]

    def get_versions(self, table: str, row: bytes, *args: Any, **kwargs: Any) -> Any:
        """:meth:`Backend.get_versions` of a table the test can see."""
        self.pool.claim(table)
        return super().get_versions(table, row, *args, **kwargs)  # type: ignore[safe-super]

    def scan(self, table: str, scan: Scan) -> Any:
        """:meth:`Backend.scan` of a table the test can see (the backend's own scanner)."""
        self.pool.claim(table)
        return super().scan(table, scan)  # type: ignore[safe-super]

    def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """:meth:`Backend.mutate`, marking the table written."""
        self.pool.claim(table)
        self.pool.wrote(table)
        super().mutate(table, mutations)  # type: ignore[safe-super]

    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """:meth:`Backend.increment`, marking the table written."""
        self.pool.claim(table)
        self.pool.wrote(table)
        return super().increment(table, row, column, amount)  # type: ignore[safe-super]

    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """:meth:`Backend.increment_many`, marking the table written."""
        self.pool.claim(table)
        self.pool.wrote(table)
        super().increment_many(table, increments)  # type: ignore[safe-super]

    def check_and_put(self, table: str, row: bytes, *args: Any, **kwargs: Any) -> bool:
        """:meth:`Backend.check_and_put`, marking the table written."""
        self.pool.claim(table)
        self.pool.wrote(table)
        return bool(super().check_and_put(table, row, *args, **kwargs))  # type: ignore[safe-super]

    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """:meth:`Backend.append`, marking the table written."""
        self.pool.claim(table)
        self.pool.wrote(table)
        return super().append(table, row, values)  # type: ignore[safe-super]


class ReusingThriftBackend(_Reusing, ThriftBackend):
    """A :class:`ThriftBackend` whose tables come from a :class:`TablePool`.

    Args:
        pool: The target's pool.
        *args: :class:`ThriftBackend`'s arguments.
        **kwargs: :class:`ThriftBackend`'s keyword arguments.
    """

    def __init__(self, pool: TablePool, *args: Any, **kwargs: Any) -> None:
        self.pool = pool
        super().__init__(*args, **kwargs)

    def _remember_families(self, table: Table) -> None:
        names = tuple(family.name_bytes for family in table.families)
        self._families[self._server_name(table.full_name)] = names


class ReusingThrift2Backend(_Reusing, Thrift2Backend):
    """A :class:`Thrift2Backend` whose tables come from a :class:`TablePool`.

    Its conditional writes mark the table written; its admin calls that change a table
    (families, enabled state, truncation) mark it altered, so it is dropped at the end.

    Args:
        pool: The target's pool.
        *args: :class:`Thrift2Backend`'s arguments.
        **kwargs: :class:`Thrift2Backend`'s keyword arguments.
    """

    def __init__(self, pool: TablePool, *args: Any, **kwargs: Any) -> None:
        self.pool = pool
        super().__init__(*args, **kwargs)

    def _remember_families(self, table: Table) -> None:
        names = tuple(family.name_bytes for family in table.families)
        self._families[self._server_name(table.full_name)] = names

    def check_and_delete(self, table: str, row: bytes, *args: Any, **kwargs: Any) -> bool:
        """:meth:`Thrift2Backend.check_and_delete`, marking the table written."""
        self.pool.claim(table)
        self.pool.wrote(table)
        return super().check_and_delete(table, row, *args, **kwargs)

    def check_and_mutate(self, table: str, row: bytes, *args: Any, **kwargs: Any) -> bool:
        """:meth:`Thrift2Backend.check_and_mutate`, marking the table written."""
        self.pool.claim(table)
        self.pool.wrote(table)
        return super().check_and_mutate(table, row, *args, **kwargs)

    def _altering(self, name: str) -> None:
        self.pool.claim(name)
        self.pool.alter(name)

    def truncate_table(self, name: str, *, preserve_splits: bool = True) -> None:
        """:meth:`Thrift2Backend.truncate_table`; the table is dropped at the test's end."""
        self._altering(name)
        super().truncate_table(name, preserve_splits=preserve_splits)

    def disable_table(self, name: str) -> None:
        """:meth:`Thrift2Backend.disable_table`; the table is dropped at the test's end."""
        self._altering(name)
        super().disable_table(name)

    def enable_table(self, name: str) -> None:
        """:meth:`Thrift2Backend.enable_table`; the table is dropped at the test's end."""
        self._altering(name)
        super().enable_table(name)

    def add_family(self, name: str, family: Family) -> None:
        """:meth:`Thrift2Backend.add_family`; the table is dropped at the test's end."""
        self._altering(name)
        super().add_family(name, family)

    def alter_family(self, name: str, family: Family) -> None:
        """:meth:`Thrift2Backend.alter_family`; the table is dropped at the test's end."""
        self._altering(name)
        super().alter_family(name, family)

    def delete_family(self, name: str, family: str) -> None:
        """:meth:`Thrift2Backend.delete_family`; the table is dropped at the test's end."""
        self._altering(name)
        super().delete_family(name, family)

    def modify_table(self, table: Table) -> None:
        """:meth:`Thrift2Backend.modify_table`; the table is dropped at the test's end."""
        self._altering(table.full_name)
        super().modify_table(table)

    def alter_table(self, table: Table, *, dry_run: bool = False) -> list[str]:
        """:meth:`Thrift2Backend.alter_table`; the table is dropped at the test's end."""
        if not dry_run:
            self._altering(table.full_name)
        return super().alter_table(table, dry_run=dry_run)
