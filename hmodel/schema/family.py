"""A column family declaration with the options HBase stores per family (F1, F2, F3, F7, F8, F9)."""

from __future__ import annotations

import enum
import re

import attrs

from hmodel.errors import SchemaError

__all__ = ["FOREVER", "BloomFilter", "Compression", "DataBlockEncoding", "Family"]

#: HBase's TTL meaning "never expires" (``HConstants.FOREVER`` = ``Integer.MAX_VALUE`` seconds).
FOREVER = 2_147_483_647

_FAMILY_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


class Compression(str, enum.Enum):
    """Store-file compression of a family (F3); HBase's ``COMPRESSION`` option."""

    NONE = "NONE"
    GZ = "GZ"
    LZ4 = "LZ4"
    LZO = "LZO"
    SNAPPY = "SNAPPY"
    ZSTD = "ZSTD"


class DataBlockEncoding(str, enum.Enum):
    """Key encoding inside data blocks (F3); HBase's ``DATA_BLOCK_ENCODING`` option."""

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


def _positive(name: str, value: int, *, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SchemaError(f"{name} must be an integer >= {minimum}", value=value)


@attrs.frozen
class Family:
    """One column family and its HBase options (F3).

    Family names should be one letter (F2): the name is stored in every cell. The defaults
    are HBase's own defaults, so a ``Family("d")`` renders as ``{NAME => 'd'}``.

    Args:
        name: The family name, e.g. ``"i"``. Letters, digits, ``_``, ``-`` and ``.``;
            it must not start with ``.`` or ``-``.
        versions: ``VERSIONS``: how many versions of a cell the family keeps (>= 1; HBase 2
            default 1). Prefer rows over many versions (F7).
        min_versions: ``MIN_VERSIONS``: versions kept even when older than the TTL; only
            meaningful together with a TTL (F7), must not exceed ``versions``.
        ttl: ``TTL`` in seconds (F8); :data:`FOREVER` means never. Cells older than this
            (by cell timestamp) become invisible.
        keep_deleted_cells: ``KEEP_DELETED_CELLS`` (F9): time-range reads that end before a
            delete marker still see the deleted cells.
        compression: ``COMPRESSION``.
        data_block_encoding: ``DATA_BLOCK_ENCODING``.
        bloom_filter: ``BLOOMFILTER`` (HBase's default is ``ROW``).
        block_size: ``BLOCKSIZE`` in bytes (1 KiB .. 16 MiB; default 64 KiB).
        block_cache: ``BLOCKCACHE``.
        in_memory: ``IN_MEMORY``: priority in the block cache.
        replication_scope: ``REPLICATION_SCOPE``: 0 (local) or 1 (replicated).

    Raises:
        SchemaError: Any option out of range, naming the option and the family.
    """

    name: str
    versions: int = attrs.field(default=1, kw_only=True)
    min_versions: int = attrs.field(default=0, kw_only=True)
    ttl: int = attrs.field(default=FOREVER, kw_only=True)
    keep_deleted_cells: bool = attrs.field(default=False, kw_only=True)
    compression: Compression = attrs.field(
        default=Compression.NONE, converter=Compression, kw_only=True
    )
    data_block_encoding: DataBlockEncoding = attrs.field(
        default=DataBlockEncoding.NONE, converter=DataBlockEncoding, kw_only=True
    )
    bloom_filter: BloomFilter = attrs.field(
        default=BloomFilter.ROW, converter=BloomFilter, kw_only=True
    )
    block_size: int = attrs.field(default=65_536, kw_only=True)
    block_cache: bool = attrs.field(default=True, kw_only=True)
    in_memory: bool = attrs.field(default=False, kw_only=True)
    replication_scope: int = attrs.field(default=0, kw_only=True)

    def __attrs_post_init__(self) -> None:
        try:
            self._validate()
        except SchemaError as exc:
            raise SchemaError(f"family {self.name!r}: {exc.message}", value=exc.value) from None

    def _validate(self) -> None:
        if not isinstance(self.name, str) or not _FAMILY_NAME.match(self.name):
            raise SchemaError(
                "a family name is letters, digits, '_', '-' or '.', not starting with '.' or '-'",
                value=self.name,
            )
        _positive("VERSIONS", self.versions)
        _positive("MIN_VERSIONS", self.min_versions, minimum=0)
        if self.min_versions > self.versions:
            raise SchemaError("MIN_VERSIONS must not exceed VERSIONS", value=self.min_versions)
        _positive("TTL", self.ttl)
        if self.ttl > FOREVER:
            raise SchemaError(f"TTL must be at most {FOREVER} seconds (FOREVER)", value=self.ttl)
        _positive("BLOCKSIZE", self.block_size, minimum=1024)
        if self.block_size > 16 * 1024 * 1024:
            raise SchemaError("BLOCKSIZE must be at most 16 MiB", value=self.block_size)
        if self.replication_scope not in (0, 1):
            raise SchemaError("REPLICATION_SCOPE must be 0 or 1", value=self.replication_scope)
        for flag in ("keep_deleted_cells", "block_cache", "in_memory"):
            if not isinstance(getattr(self, flag), bool):
                raise SchemaError(f"{flag.upper()} must be a bool", value=getattr(self, flag))

    @property
    def has_ttl(self) -> bool:
        """Whether cells of this family expire (``ttl`` is not :data:`FOREVER`)."""
        return self.ttl != FOREVER

    @property
    def name_bytes(self) -> bytes:
        """The family name as the bytes that prefix its columns (``b"i"``)."""
        return self.name.encode()
