"""The Thrift2 backend's admin calls: tables, families, regions (a mixin of Thrift2Backend)."""

from __future__ import annotations

from typing import Any

import attrs

from hmodel.backend.base import Region
from hmodel.backend.thrift2.channel import Retry
from hmodel.backend.thrift2.descriptor import (
    from_family_descriptor,
    from_table_descriptor,
    to_family_descriptor,
    to_table_descriptor,
)
from hmodel.backend.thrift2.descriptor import table_name as tname
from hmodel.backend.thrift_base import ThriftBackendBase
from hmodel.errors import IllegalArgumentError, SchemaError, TableNotFoundError
from hmodel.schema.ddl import alter_statements
from hmodel.schema.family import Family
from hmodel.schema.table import Table

__all__ = ["RegionLocation", "Thrift2Admin"]


@attrs.frozen
class RegionLocation:
    """A region of a table and the server holding it.

    Attributes:
        start: First row of the region, inclusive (``b""``: the start of the table).
        end: Row the region stops at, exclusive (``b""``: the end of the table).
        host: The region server's host name.
        port: The region server's port (``0`` when the server does not say).
    """

    start: bytes
    end: bytes
    host: str
    port: int

    @property
    def region(self) -> Region:
        """The :class:`~hmodel.backend.base.Region` without its server."""
        return Region(self.start, self.end)


class Thrift2Admin(ThriftBackendBase):
    """The admin half of :class:`~hmodel.backend.thrift2.Thrift2Backend`.

    Table and family administration over ``THBaseService``, on the plumbing both Thrift
    backends share (``_rpc``, the table names); the backend fills the family cache.
    """

    _families: dict[str, tuple[bytes, ...]]

    def create_table(self, table: Table) -> None:
        """Create ``table`` with one ``createTable``: the full descriptor and split points.

        Every family option and table option of the declaration travels (see
        :func:`~hmodel.backend.thrift2.descriptor.to_table_descriptor`); ``n`` split
        points make ``n + 1`` regions. Never retried once sent.

        Raises:
            TableExistsError: The table exists.
            IllegalArgumentError: ``table`` is not a :class:`~hmodel.schema.Table`.
            UnsupportedOperationError: ``DATA_BLOCK_ENCODING => PREFIX_TREE`` (HBase 2
                has none).
        """
        if not isinstance(table, Table):
            raise IllegalArgumentError("expected a Table declaration", field="table", value=table)
        server_name = self._server_name(table.full_name)
        descriptor = to_table_descriptor(table, server_name)
        self._families.pop(server_name, None)
        self._rpc(
            "createTable",
            descriptor,
            list(table.splits) or None,
            retry=Retry.UNSENT,
            table=table.full_name,
        )
        self._families[server_name] = tuple(f.name_bytes for f in table.families)

    def _disable_if_enabled(self, name: str) -> None:
        tn = tname(self._server_name(name))
        if self._rpc("isTableEnabled", tn, retry=Retry.IDEMPOTENT, table=name):
            self._rpc("disableTable", tn, retry=Retry.UNSENT, table=name)

    def delete_table(self, name: str) -> None:
        """Disable ``name`` if enabled, then delete it (up to three calls).

        Raises:
            TableNotFoundError: No such table.
        """
        self._families.pop(self._server_name(name), None)
        self._disable_if_enabled(name)
        self._rpc("deleteTable", tname(self._server_name(name)), retry=Retry.UNSENT, table=name)

    def truncate_table(self, name: str, *, preserve_splits: bool = True) -> None:
        """Drop every row of ``name``: disable it if enabled, then ``truncateTable``.

        The table comes back enabled with its families and options; with
        ``preserve_splits=False`` it has a single region afterwards.

        Raises:
            TableNotFoundError: No such table.
        """
        if not isinstance(preserve_splits, bool):
            raise IllegalArgumentError("preserve_splits must be a bool", value=preserve_splits)
        self._disable_if_enabled(name)
        self._rpc(
            "truncateTable",
            tname(self._server_name(name)),
            preserve_splits,
            retry=Retry.UNSENT,
            table=name,
        )

    def enable_table(self, name: str) -> None:
        """Enable ``name`` with one ``enableTable``.

        Raises:
            TableNotFoundError: No such table.
        """
        self._rpc("enableTable", tname(self._server_name(name)), retry=Retry.UNSENT, table=name)

    def disable_table(self, name: str) -> None:
        """Disable ``name`` with one ``disableTable``; reads and writes are then refused.

        Raises:
            TableNotFoundError: No such table.
        """
        self._rpc("disableTable", tname(self._server_name(name)), retry=Retry.UNSENT, table=name)

    def is_table_enabled(self, name: str) -> bool:
        """Whether ``name`` is enabled: one ``isTableEnabled``.

        Raises:
            TableNotFoundError: No such table.
        """
        enabled: bool = self._rpc(
            "isTableEnabled", tname(self._server_name(name)), retry=Retry.IDEMPOTENT, table=name
        )
        return enabled

    def table_exists(self, name: str) -> bool:
        """Whether ``name`` exists: one ``tableExists``."""
        exists: bool = self._rpc(
            "tableExists", tname(self._server_name(name)), retry=Retry.IDEMPOTENT, table=name
        )
        return exists

    def list_tables(self) -> list[str]:
        """Names of this prefix's tables (prefix stripped), sorted: one ``getTableNamesByPattern``.

        Tables outside the ``default`` namespace are named ``namespace:name``; HBase's
        system tables are not listed.
        """
        names = self._rpc("getTableNamesByPattern", None, False, retry=Retry.IDEMPOTENT)
        visible = []
        for tn in names:
            namespace = (tn.ns or b"default").decode("utf-8", "replace")
            qualifier = tn.qualifier.decode("utf-8", "replace")
            full = qualifier if namespace == "default" else f"{namespace}:{qualifier}"
            name = self._visible_name(full)
            if name is not None:
                visible.append(name)
        return sorted(visible)

    def _descriptor(self, name: str) -> Any:
        server_name = self._server_name(name)
        descriptor = self._rpc(
            "getTableDescriptor", tname(server_name), retry=Retry.IDEMPOTENT, table=name
        )
        self._families[server_name] = tuple(bytes(c.name) for c in descriptor.columns or [])
        return descriptor

    def describe_families(self, name: str) -> dict[str, Family]:
        """Every family of ``name`` with all its options: one ``getTableDescriptor``.

        Raises:
            TableNotFoundError: No such table.
            BackendError: An option hmodel's schema cannot hold (e.g. set by the shell).
        """
        descriptor = self._descriptor(name)
        families = [from_family_descriptor(c, table=name) for c in descriptor.columns or []]
        families.sort(key=lambda f: f.name_bytes)
        return {f.name: f for f in families}

    def describe_table(self, name: str) -> Table:
        """The whole declaration of ``name`` as stored: ``getTableDescriptor`` and regions.

        Families, their options, the table options and the split points (the start keys
        of the table's regions: they are the declared split points until regions split or
        merge). Two calls. The split points come back as explicit points, so compare
        ``splits`` (not ``split_policy``) with a declaration that used a policy.

        Raises:
            TableNotFoundError: No such table.
        """
        descriptor = self._descriptor(name)
        splits = tuple(region.start for region in self.regions(name)[1:])
        return from_table_descriptor(descriptor, name=name, splits=splits)

    def regions(self, name: str) -> list[Region]:
        """The regions of ``name`` from ``getAllRegionLocations``, in key order.

        Raises:
            TableNotFoundError: No such table (HBase answers an empty list for one).
        """
        return [location.region for location in self.region_locations(name)]

    def region_locations(self, name: str) -> list[RegionLocation]:
        """The regions of ``name`` with the servers holding them: one ``getAllRegionLocations``.

        Raises:
            TableNotFoundError: No such table (HBase answers an empty list for one).
        """
        locations = self._rpc(
            "getAllRegionLocations", self._data_name(name), retry=Retry.IDEMPOTENT, table=name
        )
        if not locations:
            raise TableNotFoundError("no regions: the table does not exist", table=name)
        found = [
            RegionLocation(
                start=location.regionInfo.startKey or b"",
                end=location.regionInfo.endKey or b"",
                host=location.serverName.hostName,
                port=location.serverName.port or 0,
            )
            for location in locations
        ]
        return sorted(found, key=lambda location: location.start)

    def add_family(self, name: str, family: Family) -> None:
        """Add ``family`` with all its options to table ``name``: one ``addColumnFamily``.

        HBase 2 alters tables online (the regions reopen, which flushes them).

        Raises:
            TableNotFoundError: No such table.
            IllegalArgumentError: The table has a family of that name.
        """
        if not isinstance(family, Family):
            raise IllegalArgumentError("expected a Family", table=name, value=family)
        server_name = self._server_name(name)
        self._families.pop(server_name, None)
        self._rpc(
            "addColumnFamily",
            tname(server_name),
            to_family_descriptor(family),
            retry=Retry.UNSENT,
            table=name,
            column=family.name_bytes,
        )

    def alter_family(self, name: str, family: Family) -> None:
        """Replace the options of family ``family.name`` of ``name``: one ``modifyColumnFamily``.

        The whole descriptor is replaced: every option takes the value ``family`` declares
        (HBase's defaults for those it leaves alone), unlike the shell's ``alter``, which
        keeps the options it does not name. Stored cells stay; versions beyond a lower
        ``VERSIONS`` go at the next compaction.

        Raises:
            TableNotFoundError: No such table.
            IllegalArgumentError: The table has no family of that name.
        """
        if not isinstance(family, Family):
            raise IllegalArgumentError("expected a Family", table=name, value=family)
        self._rpc(
            "modifyColumnFamily",
            tname(self._server_name(name)),
            to_family_descriptor(family),
            retry=Retry.UNSENT,
            table=name,
            column=family.name_bytes,
        )

    def delete_family(self, name: str, family: str) -> None:
        """Delete family ``family`` of ``name`` and all its cells: one ``deleteColumnFamily``.

        Raises:
            TableNotFoundError: No such table.
            IllegalArgumentError: No such family, or it is the table's last one.
        """
        if not isinstance(family, str) or not family:
            raise IllegalArgumentError("a family name is a non-empty str", table=name, value=family)
        server_name = self._server_name(name)
        self._families.pop(server_name, None)
        self._rpc(
            "deleteColumnFamily",
            tname(server_name),
            family.encode(),
            retry=Retry.UNSENT,
            table=name,
            column=family.encode(),
        )

    def modify_table(self, table: Table) -> None:
        """Make the stored table ``table.full_name`` exactly ``table``: one ``modifyTable``.

        Families missing from ``table`` are deleted with their cells, new ones added,
        every option replaced. Split points are not changed (regions are set at creation).

        Raises:
            TableNotFoundError: No such table.
        """
        if not isinstance(table, Table):
            raise IllegalArgumentError("expected a Table declaration", value=table)
        server_name = self._server_name(table.full_name)
        self._families.pop(server_name, None)
        self._rpc(
            "modifyTable",
            to_table_descriptor(table, server_name),
            retry=Retry.UNSENT,
            table=table.full_name,
        )

    def alter_table(self, table: Table, *, dry_run: bool = False) -> list[str]:
        """Bring the stored table to the declaration ``table``, one call per change (F5).

        Reads the stored declaration (:meth:`describe_table`), then deletes the families
        ``table`` lacks (``deleteColumnFamily``), adds the new ones
        (``addColumnFamily``), replaces each changed one (``modifyColumnFamily``) and, if
        a table option changed, sends ``modifyTable``. HBase 2 applies each change online.

        Args:
            table: The wanted declaration.
            dry_run: Change nothing; only return the statements.

        Returns:
            The HBase shell statements of the same change (``disable``, ``alter`` ...,
            ``enable``; see :func:`hmodel.schema.alter_statements`); empty when the stored
            table already matches.

        Raises:
            TableNotFoundError: No such table.
            SchemaError: The split points differ (split or merge regions instead).
        """
        if not isinstance(table, Table):
            raise IllegalArgumentError("expected a Table declaration", value=table)
        stored = self.describe_table(table.full_name)
        if stored.splits != table.splits:
            raise SchemaError(
                "split points are fixed when a table is created; split or merge regions instead",
                table=table.full_name,
                value=table.splits,
            )
        stored = Table(
            stored.name,
            stored.families,
            namespace=stored.namespace,
            splits=table.split_policy,
            read_only=stored.read_only,
            durability=stored.durability,
            max_filesize=stored.max_filesize,
            memstore_flushsize=stored.memstore_flushsize,
            allow_many_families=True,
        )
        statements = alter_statements(stored, table)
        if dry_run or not statements:
            return statements
        name = table.full_name
        old = {f.name: f for f in stored.families}
        new_names = {f.name for f in table.families}
        for family in stored.families:
            if family.name not in new_names:
                self.delete_family(name, family.name)
        for family in table.families:
            before = old.get(family.name)
            if before is None:
                self.add_family(name, family)
            elif before != family:
                self.alter_family(name, family)
        options = ("read_only", "durability", "max_filesize", "memstore_flushsize")
        if any(getattr(stored, o) != getattr(table, o) for o in options):
            self.modify_table(table)
        return statements
