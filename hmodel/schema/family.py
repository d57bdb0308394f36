"""A column family declaration with the options HBase stores per family (F1, F2, F3, F7, F8, F9)."""

from __future__ import annotations

import enum
import unicodedata
import warnings
from typing import Literal

import attrs

from hmodel.errors import SchemaError
from hmodel.schema.option import bool_option, enum_option

__all__ = [
    "FOREVER",
    "BloomFilter",
    "Compression",
    "DataBlockEncoding",
    "Family",
    "SchemaWarning",
    "check_family_name",
]

#: HBase's TTL meaning "never expires" (``HConstants.FOREVER`` = ``Integer.MAX_VALUE`` seconds).
FOREVER = 2_147_483_647

#: The largest Java ``int``: the bound of VERSIONS, MIN_VERSIONS and BLOCKSIZE.
_JAVA_INT_MAX = 2_147_483_647

#: Family names are stored with a one-byte length in every cell (``KeyValue``).
_MAX_FAMILY_NAME_BYTES = 127


class SchemaWarning(UserWarning):
    """A declaration HBase accepts but that does nothing useful, e.g. MIN_VERSIONS without TTL."""


class Compression(str, enum.Enum):
    """Store-file compression of a family (F3); HBase's ``COMPRESSION`` option."""

    NONE = "NONE"
    GZ = "GZ"
    LZ4 = "LZ4"
    LZO = "LZO"
    SNAPPY = "SNAPPY"
    ZSTD = "ZSTD"


class DataBlockEncoding(str, enum.Enum):
    """Key encoding inside data blocks (F3); HBase's ``DATA_BLOCK_ENCODING`` option.

    ``PREFIX_TREE`` exists only up to HBase 1.x; HBase 2 refuses it.
    """

    NONE = "NONE"
    PREFIX = "PREFIX"
    DIFF = "DIFF"
    FAST_DIFF = "FAST_DIFF"
    PREFIX_TREE = "PREFIX_TREE"
    ROW_INDEX_V1 = "ROW_INDEX_V1"


class BloomFilter(str, enum.Enum):
    """Bloom filter kind of a family (F3); HBase's ``BLOOMFILTER`` option."""

    NONE = "NONE"
    ROW = "ROW"
    ROWCOL = "ROWCOL"
    ROWPREFIX_FIXED_LENGTH = "ROWPREFIX_FIXED_LENGTH"


def check_family_name(name: object) -> None:
    r"""Check HBase's rule for a family name.

    Raises:
        SchemaError: Not a non-empty string; starts with '.'; holds ':', '\\', '/' or a
            control character; is 'recovered.edits'; over 127 UTF-8 bytes.
    """
    if not isinstance(name, str) or not name:
        raise SchemaError("a family name must be a non-empty string", value=name)
    problem = None
    if name.startswith("."):
        problem = "must not start with '.'"
    elif any(c in ":\\/" or unicodedata.category(c) == "Cc" for c in name):
        problem = "must not contain ':', '\\', '/' or control characters"
    elif name == "recovered.edits":
        problem = "must not be 'recovered.edits' (reserved by HBase)"
    elif len(name.encode()) > _MAX_FAMILY_NAME_BYTES:
        problem = f"must be at most {_MAX_FAMILY_NAME_BYTES} bytes in UTF-8"
    if problem:
        raise SchemaError(f"invalid family name: it {problem}", column=name, value=name)


def _int_option(
    family: str, option: str, value: int, *, minimum: int, maximum: int = _JAVA_INT_MAX
) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchemaError(f"{option} must be an integer", column=family, value=value)
    if not minimum <= value <= maximum:
        raise SchemaError(
            f"{option} must be between {minimum} and {maximum}", column=family, value=value
        )
    return value


def _keep_option(family: str, value: object) -> bool | Literal["TTL"]:
    """``KEEP_DELETED_CELLS``: a bool, or ``"TTL"`` in any case (returned as ``"TTL"``)."""
    if isinstance(value, str) and value.upper() == "TTL":
        return "TTL"
    if not isinstance(value, bool):
        raise SchemaError("KEEP_DELETED_CELLS must be a bool or 'TTL'", column=family, value=value)
    return value


@attrs.frozen(init=False)
class Family:
    r"""One column family and its HBase options (F3).

    Every option is checked when the family is declared; a bad one raises
    :class:`~hmodel.errors.SchemaError` whose message names the option and whose
    ``column`` is the family name. Enum options take the enum or its name in any case
    (``compression="gz"``).

    Family names should be one letter (F2): the name is stored in every cell. The defaults
    are HBase's own defaults, so a ``Family("d")`` renders as ``{NAME => 'd'}``.

    Args:
        name: The family name, e.g. ``"i"``. HBase's rules: not empty, not starting with
            ``.``, no ``:``, ``\``, ``/`` or control characters, at most 127 bytes, not
            ``recovered.edits``.
        versions: ``VERSIONS``: how many versions of a cell the family keeps (>= 1; HBase 2
            default 1). Prefer rows over many versions (F7).
        min_versions: ``MIN_VERSIONS``: versions kept even when older than the TTL (F7);
            must not exceed ``versions``. Without a TTL it has no effect: HBase accepts it,
            hmodel accepts it too but issues a :class:`SchemaWarning`.
        ttl: ``TTL`` in seconds (F8), 1 .. :data:`FOREVER`; :data:`FOREVER` means never.
            Cells older than this (by cell timestamp) become invisible.
        keep_deleted_cells: ``KEEP_DELETED_CELLS`` (F9): time-range reads that end before a
            delete marker still see the deleted cells, and a major compaction keeps the
            markers and the cells they mask. ``"TTL"`` (any case) reads the same, but a
            major compaction purges the markers older than the family TTL, with the cells
            they mask (HBase's ``KeepDeletedCells.TTL``; without a TTL it is ``True``).
        compression: ``COMPRESSION``.
        data_block_encoding: ``DATA_BLOCK_ENCODING``.
        bloom_filter: ``BLOOMFILTER`` (HBase's default is ``ROW``).
        block_size: ``BLOCKSIZE`` in bytes (1 KiB .. 16 MiB; default 64 KiB).
        block_cache: ``BLOCKCACHE``.
        in_memory: ``IN_MEMORY``: priority in the block cache.
        replication_scope: ``REPLICATION_SCOPE``: 0 (local) or 1 (replicated).
        bloom_prefix_length: The row-prefix length in bytes of a ``ROWPREFIX_FIXED_LENGTH``
            bloom filter (the family configuration ``RowPrefixBloomFilter.prefix_length``);
            required with that filter and refused with any other.

    Raises:
        SchemaError: Any option out of range or of the wrong type.
    """

    name: str
    versions: int
    min_versions: int
    ttl: int
    keep_deleted_cells: bool | Literal["TTL"]
    compression: Compression
    data_block_encoding: DataBlockEncoding
    bloom_filter: BloomFilter
    block_size: int
    block_cache: bool
    in_memory: bool
    replication_scope: int
    bloom_prefix_length: int | None

    def __init__(
        self,
        name: str,
        *,
        versions: int = 1,
        min_versions: int = 0,
        ttl: int = FOREVER,
        keep_deleted_cells: bool | Literal["TTL"] = False,
        compression: Compression | str = Compression.NONE,
        data_block_encoding: DataBlockEncoding | str = DataBlockEncoding.NONE,
        bloom_filter: BloomFilter | str = BloomFilter.ROW,
        block_size: int = 65_536,
        block_cache: bool = True,
        in_memory: bool = False,
        replication_scope: int = 0,
        bloom_prefix_length: int | None = None,
    ) -> None:
        check_family_name(name)
        versions = _int_option(name, "VERSIONS", versions, minimum=1)
        min_versions = _int_option(name, "MIN_VERSIONS", min_versions, minimum=0)
        if min_versions > versions:
            raise SchemaError(
                f"MIN_VERSIONS must not exceed VERSIONS ({versions})",
                column=name,
                value=min_versions,
            )
        ttl = _int_option(name, "TTL", ttl, minimum=1, maximum=FOREVER)
        bloom = enum_option("BLOOMFILTER", BloomFilter, bloom_filter, family=name)
        if bloom is BloomFilter.ROWPREFIX_FIXED_LENGTH:
            if bloom_prefix_length is None:
                raise SchemaError(
                    "BLOOMFILTER ROWPREFIX_FIXED_LENGTH needs bloom_prefix_length",
                    column=name,
                )
            _int_option(name, "bloom_prefix_length", bloom_prefix_length, minimum=1)
        elif bloom_prefix_length is not None:
            raise SchemaError(
                "bloom_prefix_length is only for BLOOMFILTER ROWPREFIX_FIXED_LENGTH",
                column=name,
                value=bloom_prefix_length,
            )
        self.__attrs_init__(
            name,
            versions,
            min_versions,
            ttl,
            _keep_option(name, keep_deleted_cells),
            enum_option("COMPRESSION", Compression, compression, family=name),
            enum_option("DATA_BLOCK_ENCODING", DataBlockEncoding, data_block_encoding, family=name),
            bloom,
            _int_option(name, "BLOCKSIZE", block_size, minimum=1024, maximum=16 * 1024 * 1024),
            bool_option("BLOCKCACHE", block_cache, family=name),
            bool_option("IN_MEMORY", in_memory, family=name),
            _int_option(name, "REPLICATION_SCOPE", replication_scope, minimum=0, maximum=1),
            bloom_prefix_length,
        )
        if min_versions and ttl == FOREVER:
            warnings.warn(
                f"family {name!r}: MIN_VERSIONS without a TTL has no effect (F7)",
                SchemaWarning,
                stacklevel=2,
            )

    @property
    def has_ttl(self) -> bool:
        """Whether cells of this family expire (``ttl`` is not :data:`FOREVER`)."""
        return self.ttl != FOREVER

    @property
    def name_bytes(self) -> bytes:
        """The family name as the bytes that prefix its columns (``b"i"``)."""
        return self.name.encode()
