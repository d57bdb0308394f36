"""Families and tables to and from Thrift2 ``TColumnFamilyDescriptor`` / ``TTableDescriptor``."""

from __future__ import annotations

from typing import Any

from hmodel.backend.thrift2.idl import HBASE2, TColumnFamilyDescriptor, TTableDescriptor, TTableName
from hmodel.errors import BackendError, SchemaError, UnsupportedOperationError
from hmodel.schema.family import BloomFilter, Compression, DataBlockEncoding, Family
from hmodel.schema.table import Durability, Table

__all__ = [
    "BLOOM_PREFIX_LENGTH",
    "from_family_descriptor",
    "from_table_descriptor",
    "split_name",
    "table_name",
    "to_family_descriptor",
    "to_table_descriptor",
]

#: The family configuration key holding a ``ROWPREFIX_FIXED_LENGTH`` bloom filter's length.
BLOOM_PREFIX_LENGTH = "RowPrefixBloomFilter.prefix_length"

#: Table attributes (``TableDescriptor`` values) of the options a :class:`Table` declares.
_READONLY = b"READONLY"
_MAX_FILESIZE = b"MAX_FILESIZE"
_MEMSTORE_FLUSHSIZE = b"MEMSTORE_FLUSHSIZE"


def split_name(full_name: str) -> tuple[str | None, str]:
    """``"ns:t"`` -> ``("ns", "t")``; ``"t"`` -> ``(None, "t")``."""
    namespace, colon, name = full_name.rpartition(":")
    return (namespace if colon and namespace != "default" else None), name


def table_name(full_name: str) -> Any:
    """The ``TTableName`` of ``"ns:t"`` or ``"t"`` (the default namespace leaves ``ns`` unset)."""
    namespace, name = split_name(full_name)
    return TTableName(ns=None if namespace is None else namespace.encode(), qualifier=name.encode())


def _enum_value(enum_class: Any, name: str, *, option: str, family: str) -> int:
    value = getattr(enum_class, name, None)
    if not isinstance(value, int):
        raise UnsupportedOperationError(
            f"HBase's Thrift2 API has no {option} {name}", column=family, value=name
        )
    return value


def _enum_name(enum_class: Any, value: int | None, *, default: str) -> str:
    if value is None:
        return default
    name: str | None = enum_class._VALUES_TO_NAMES.get(value)
    if name is None:
        raise BackendError(f"the server answered an unknown {enum_class.__name__} {value}")
    return name


def to_family_descriptor(family: Family) -> Any:
    """The ``TColumnFamilyDescriptor`` of ``family``, every option set explicitly.

    HBase's ``modifyColumnFamily`` replaces the whole descriptor (unset fields fall back to
    defaults), so every option the schema layer declares is sent. ``TTL`` travels in
    seconds (:data:`~hmodel.schema.family.FOREVER` is ``Integer.MAX_VALUE``, as in HBase);
    the prefix length of a ``ROWPREFIX_FIXED_LENGTH`` bloom filter as the family
    configuration ``RowPrefixBloomFilter.prefix_length``.

    Raises:
        UnsupportedOperationError: ``DATA_BLOCK_ENCODING => PREFIX_TREE`` (gone in HBase 2).
    """
    configuration = (
        {BLOOM_PREFIX_LENGTH: str(family.bloom_prefix_length)}
        if family.bloom_prefix_length is not None
        else None
    )
    return TColumnFamilyDescriptor(
        name=family.name_bytes,
        configuration=configuration,
        blockSize=family.block_size,
        bloomnFilterType=_enum_value(
            HBASE2.TBloomFilterType, family.bloom_filter.value, option="BLOOMFILTER",
            family=family.name,
        ),
        compressionType=_enum_value(
            HBASE2.TCompressionAlgorithm, family.compression.value, option="COMPRESSION",
            family=family.name,
        ),
        dataBlockEncoding=_enum_value(
            HBASE2.TDataBlockEncoding, family.data_block_encoding.value,
            option="DATA_BLOCK_ENCODING", family=family.name,
        ),
        keepDeletedCells=_KEEP[family.keep_deleted_cells],
        maxVersions=family.versions,
        minVersions=family.min_versions,
        scope=family.replication_scope,
        timeToLive=family.ttl,
        blockCacheEnabled=family.block_cache,
        inMemory=family.in_memory,
    )  # fmt: skip


#: ``KEEP_DELETED_CELLS`` as the IDL's ``TKeepDeletedCells``.
_KEEP: dict[bool | str, int] = {
    False: HBASE2.TKeepDeletedCells.FALSE,
    True: HBASE2.TKeepDeletedCells.TRUE,
    "TTL": HBASE2.TKeepDeletedCells.TTL,
}


def from_family_descriptor(descriptor: Any, *, table: str | None = None) -> Family:
    """The :class:`Family` a ``TColumnFamilyDescriptor`` describes; unset fields: defaults.

    Raises:
        BackendError: An option hmodel's schema cannot hold (``COMPRESSION => BZIP2``, an
            unknown enum value, a bad prefix length).
    """
    raw_name = descriptor.name
    name = raw_name.decode("utf-8", "replace") if isinstance(raw_name, bytes) else str(raw_name)
    keep = _enum_name(HBASE2.TKeepDeletedCells, descriptor.keepDeletedCells, default="FALSE")
    compression = _enum_name(
        HBASE2.TCompressionAlgorithm, descriptor.compressionType, default="NONE"
    )
    if keep not in ("FALSE", "TRUE", "TTL") or compression not in Compression.__members__:
        raise BackendError(
            f"family {name!r} has an option hmodel's schema cannot hold "
            f"(KEEP_DELETED_CELLS={keep}, COMPRESSION={compression})",
            table=table,
            column=name,
        )
    configuration = descriptor.configuration or {}
    prefix = configuration.get(BLOOM_PREFIX_LENGTH)
    bloom = _enum_name(HBASE2.TBloomFilterType, descriptor.bloomnFilterType, default="ROW")
    options: dict[str, Any] = {
        "versions": descriptor.maxVersions if descriptor.maxVersions is not None else 1,
        "min_versions": descriptor.minVersions or 0,
        "keep_deleted_cells": "TTL" if keep == "TTL" else keep == "TRUE",
        "compression": compression,
        "data_block_encoding": _enum_name(
            HBASE2.TDataBlockEncoding, descriptor.dataBlockEncoding, default="NONE"
        ),
        "bloom_filter": bloom,
        "block_size": descriptor.blockSize if descriptor.blockSize is not None else 65_536,
        "block_cache": descriptor.blockCacheEnabled is not False,
        "in_memory": bool(descriptor.inMemory),
        "replication_scope": descriptor.scope or 0,
        "bloom_prefix_length": (
            int(prefix) if prefix is not None and bloom == "ROWPREFIX_FIXED_LENGTH" else None
        ),
    }
    if descriptor.timeToLive is not None:
        options["ttl"] = descriptor.timeToLive
    try:
        return Family(name, **options)
    except (SchemaError, ValueError) as exc:
        raise BackendError(
            f"family {name!r} as the server describes it is not a valid declaration: {exc}",
            table=table,
            column=name,
        ) from exc


def to_table_descriptor(table: Table, server_name: str) -> Any:
    """The ``TTableDescriptor`` of ``table``, named ``server_name`` (table prefix applied).

    ``READONLY``, ``MAX_FILESIZE`` and ``MEMSTORE_FLUSHSIZE`` travel as table attributes
    (the ``TableDescriptor`` values HBase's shell sets), ``DURABILITY`` as its own field.
    A table option left at its default (``None``, ``False``) is not sent.
    """
    attributes: dict[bytes, bytes] = {}
    if table.read_only:
        attributes[_READONLY] = b"true"
    if table.max_filesize is not None:
        attributes[_MAX_FILESIZE] = str(table.max_filesize).encode()
    if table.memstore_flushsize is not None:
        attributes[_MEMSTORE_FLUSHSIZE] = str(table.memstore_flushsize).encode()
    return TTableDescriptor(
        tableName=table_name(server_name),
        columns=[to_family_descriptor(family) for family in table.families],
        attributes=attributes or None,
        durability=getattr(HBASE2.TDurability, table.durability.value),
    )


def _size(attributes: dict[bytes, bytes], key: bytes) -> int | None:
    raw = attributes.get(key)
    return None if raw is None else int(raw.decode())


def from_table_descriptor(descriptor: Any, *, name: str, splits: tuple[bytes, ...] = ()) -> Table:
    """The :class:`Table` a ``TTableDescriptor`` describes, called ``name``, with ``splits``.

    Families come in the server's order (HBase sorts them by name). More than three
    families are accepted as described (``allow_many_families``).

    Raises:
        BackendError: An option hmodel's schema cannot hold.
    """
    attributes = descriptor.attributes or {}
    namespace, bare = split_name(name)
    families = [from_family_descriptor(c, table=name) for c in descriptor.columns or []]
    durability = _enum_name(HBASE2.TDurability, descriptor.durability, default="USE_DEFAULT")
    try:
        return Table(
            bare,
            families,
            namespace=namespace,
            splits=list(splits) or None,
            read_only=attributes.get(_READONLY, b"false").lower() == b"true",
            durability=Durability(durability),
            max_filesize=_size(attributes, _MAX_FILESIZE),
            memstore_flushsize=_size(attributes, _MEMSTORE_FLUSHSIZE),
            allow_many_families=len(families) > 3,
        )
    except (SchemaError, ValueError) as exc:
        raise BackendError(
            f"table {name!r} as the server describes it is not a valid declaration: {exc}",
            table=name,
        ) from exc


# Keep the enum names of the schema layer and of the IDL in step (checked at import).
assert set(BloomFilter.__members__) == set(HBASE2.TBloomFilterType._NAMES_TO_VALUES)
assert set(DataBlockEncoding.__members__) - {"PREFIX_TREE"} == set(
    HBASE2.TDataBlockEncoding._NAMES_TO_VALUES
)
