"""Column families to and from Thrift1 ``ColumnDescriptor`` s, and what Thrift1 cannot carry."""

from __future__ import annotations

from typing import Any

import attrs

from hmodel.backend.thrift.idl import ColumnDescriptor
from hmodel.errors import BackendError, SchemaError, UnsupportedOperationError
from hmodel.schema.family import FOREVER, BloomFilter, DataBlockEncoding, Family
from hmodel.schema.table import Durability, Table

__all__ = ["ddl_hint", "family_names", "from_descriptor", "to_descriptor", "uncarried_options"]

#: Thrift1's ``timeToLive`` for "never expires" (the server turns any value <= 0 into FOREVER).
_THRIFT_FOREVER = -1


def to_descriptor(family: Family) -> Any:
    """Return the Thrift1 ``ColumnDescriptor`` for ``family``.

    Every field is set explicitly: the IDL's own defaults (``maxVersions=3``,
    ``blockCacheEnabled=false``, ``bloomFilterType="NONE"``) are not HBase's defaults, so
    leaving one unset would silently change the family. ``ttl`` is sent in seconds, with
    :data:`~hmodel.schema.family.FOREVER` as ``-1``. A ``ROWPREFIX_FIXED_LENGTH`` bloom
    filter is sent as ``ROW``: its prefix length is family configuration Thrift1 cannot
    carry (HBase would refuse the filter without it); :func:`uncarried_options` lists it.
    """
    bloom = family.bloom_filter
    if bloom is BloomFilter.ROWPREFIX_FIXED_LENGTH:
        bloom = BloomFilter.ROW  # its prefix length cannot travel: see uncarried_options
    return ColumnDescriptor(
        name=family.name_bytes + b":",
        maxVersions=family.versions,
        compression=family.compression.value,
        inMemory=family.in_memory,
        bloomFilterType=bloom.value,
        blockCacheEnabled=family.block_cache,
        timeToLive=_THRIFT_FOREVER if family.ttl == FOREVER else family.ttl,
    )


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def family_names(descriptors: Any) -> tuple[bytes, ...]:
    """The family names (``b"f"``) of a ``getColumnDescriptors`` answer, sorted."""
    names = (d.name if isinstance(d.name, bytes) else str(d.name).encode() for d in descriptors)
    return tuple(sorted(name.rstrip(b":") for name in names))


def from_descriptor(descriptor: Any, *, table: str) -> Family:
    """Return the :class:`Family` a Thrift1 ``ColumnDescriptor`` describes.

    Only VERSIONS, TTL, COMPRESSION, IN_MEMORY, BLOOMFILTER and BLOCKCACHE travel over
    Thrift1; every other option of the returned family is HBase's default. A ``timeToLive``
    of ``-1`` (or any value <= 0, or above FOREVER) reads as FOREVER.

    Raises:
        UnsupportedOperationError: The family has a ``ROWPREFIX_FIXED_LENGTH`` bloom
            filter, whose prefix length Thrift1 does not report.
        BackendError: The server reported a compression or bloom filter kind hmodel does
            not know, or an impossible VERSIONS.
    """
    name = _text(descriptor.name).rstrip(":")
    ttl = descriptor.timeToLive
    bloom = _text(descriptor.bloomFilterType).upper()
    if bloom == BloomFilter.ROWPREFIX_FIXED_LENGTH.value:
        raise UnsupportedOperationError(
            "the family's ROWPREFIX_FIXED_LENGTH bloom filter cannot be described over "
            "Thrift1, which does not report its prefix length; use the HBase shell",
            table=table,
            column=name,
        )
    try:
        return Family(
            name,
            versions=descriptor.maxVersions,
            ttl=FOREVER if ttl is None or ttl <= 0 or ttl > FOREVER else ttl,
            compression=_text(descriptor.compression).upper(),
            bloom_filter=bloom,
            in_memory=bool(descriptor.inMemory),
            block_cache=bool(descriptor.blockCacheEnabled),
        )
    except (ValueError, TypeError, SchemaError) as exc:
        raise BackendError(
            f"the server described family {name!r} with options hmodel does not know: {exc}",
            table=table,
            column=name,
        ) from exc


def uncarried_options(table: Table) -> list[str]:
    """List the options of ``table`` that Thrift1's ``createTable`` cannot carry.

    Thrift1 creates a table from a name and a list of ``ColumnDescriptor`` s only: split
    points, table options and the family options outside the descriptor
    (MIN_VERSIONS, KEEP_DELETED_CELLS, DATA_BLOCK_ENCODING, BLOCKSIZE, REPLICATION_SCOPE,
    and the prefix length a ``ROWPREFIX_FIXED_LENGTH`` bloom filter needs) are lost.
    Options left at HBase's default are not listed (they need no carrying).
    """
    left_out: list[str] = []
    if table.splits:
        left_out.append(f"split points ({len(table.splits)}, K11)")
    if table.read_only:
        left_out.append("READONLY")
    if table.durability is not Durability.USE_DEFAULT:
        left_out.append(f"DURABILITY={table.durability.value}")
    if table.max_filesize is not None:
        left_out.append(f"MAX_FILESIZE={table.max_filesize}")
    if table.memstore_flushsize is not None:
        left_out.append(f"MEMSTORE_FLUSHSIZE={table.memstore_flushsize}")
    for family in table.families:
        where = f"of family {family.name!r}"
        if family.min_versions:
            left_out.append(f"MIN_VERSIONS={family.min_versions} {where}")
        if family.keep_deleted_cells:
            shown = "true" if family.keep_deleted_cells is True else family.keep_deleted_cells
            left_out.append(f"KEEP_DELETED_CELLS={shown} {where}")
        if family.data_block_encoding is not DataBlockEncoding.NONE:
            left_out.append(f"DATA_BLOCK_ENCODING={family.data_block_encoding.value} {where}")
        if family.block_size != 65_536:
            left_out.append(f"BLOCKSIZE={family.block_size} {where}")
        if family.replication_scope:
            left_out.append(f"REPLICATION_SCOPE={family.replication_scope} {where}")
        if family.bloom_filter is BloomFilter.ROWPREFIX_FIXED_LENGTH:
            left_out.append(
                f"BLOOMFILTER=ROWPREFIX_FIXED_LENGTH {where} (its prefix length is "
                "configuration; sent as ROW)"
            )
    return left_out


def ddl_hint(table: Table, server_name: str | None = None) -> str:
    """Tell how to create ``table`` with every option: the HBase shell statement.

    ``server_name`` is the name the backend sends (its ``table_prefix`` and namespace
    applied, ``"ns:fhr1_user"``): the statement creates the table under that name, the
    one the backend's calls will look for. Uses ``hmodel.schema.ddl.create_statement``
    when that module is installed, and otherwise names it.
    """
    if server_name is not None and server_name != table.full_name:
        namespace, _, name = server_name.rpartition(":")
        table = attrs.evolve(table, name=name, namespace=namespace or None)
    try:
        from hmodel.schema import ddl  # type: ignore[attr-defined,unused-ignore]

        statement = str(ddl.create_statement(table))
    except (ImportError, AttributeError):
        return (
            "create the table in the HBase shell instead "
            "(hmodel.schema.ddl.create_statement(table) renders the statement)"
        )
    return f"create the table in the HBase shell instead:\n{statement}"
