"""HBase shell statements (``create``, ``alter``) for table declarations (F3, F4, F5, K11)."""

from __future__ import annotations

import enum

from hmodel.errors import SchemaError
from hmodel.schema.family import Family
from hmodel.schema.split import NumRegions
from hmodel.schema.table import Durability, Table

__all__ = ["alter_statements", "binary_literal", "create_statement", "splits_file"]

#: Family options in the order they are rendered (the order of pattern F3), with the
#: ``Family`` attribute holding each.
_FAMILY_OPTIONS: tuple[tuple[str, str], ...] = (
    ("VERSIONS", "versions"),
    ("MIN_VERSIONS", "min_versions"),
    ("TTL", "ttl"),
    ("COMPRESSION", "compression"),
    ("DATA_BLOCK_ENCODING", "data_block_encoding"),
    ("BLOOMFILTER", "bloom_filter"),
    ("BLOCKSIZE", "block_size"),
    ("BLOCKCACHE", "block_cache"),
    ("IN_MEMORY", "in_memory"),
    ("KEEP_DELETED_CELLS", "keep_deleted_cells"),
    ("REPLICATION_SCOPE", "replication_scope"),
)

#: Table options in the order they are rendered (the order of pattern F4).
_TABLE_OPTIONS: tuple[tuple[str, str], ...] = (
    ("READONLY", "read_only"),
    ("DURABILITY", "durability"),
    ("MAX_FILESIZE", "max_filesize"),
    ("MEMSTORE_FLUSHSIZE", "memstore_flushsize"),
)

_PREFIX_LENGTH_KEY = "RowPrefixBloomFilter.prefix_length"

_DEFAULT_FAMILY = Family("_")


def _quote(text: str) -> str:
    r"""Return ``text`` as a Ruby single-quoted string: only ``\`` and ``'`` are escaped."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _binary_text(key: bytes) -> str:
    r"""Return ``Bytes.toStringBinary(key)``: printable ASCII but ``\`` as is, else ``\xNN``."""
    return "".join(
        chr(byte) if 0x20 <= byte <= 0x7E and byte != 0x5C else f"\\x{byte:02X}" for byte in key
    )


def binary_literal(key: bytes) -> str:
    r"""Return ``key`` as the shell reads a split point: ``Bytes.toStringBinary`` quoted.

    The shell passes each ``SPLITS`` string through ``Bytes.toBytesBinary``, which turns
    ``\xNN`` (four characters) into the byte ``0xNN``. So printable ASCII other than ``\``
    is written as itself and every other byte as ``\xNN`` (uppercase hex), inside Ruby
    *single* quotes, which keep the backslash for ``toBytesBinary``; a ``'`` is escaped
    for Ruby as ``\'``. (Ruby double quotes would turn ``"\xff"`` into a raw byte that
    JRuby cannot hand to Java intact.)

    >>> print(binary_literal(b"a\x00'\xff"))
    'a\x00\'\xFF'
    """
    return "'" + _binary_text(key).replace("'", "\\'") + "'"


def _value(value: object) -> str:
    if isinstance(value, bool):
        return _quote("true" if value else "false")
    if isinstance(value, enum.Enum):
        return _quote(str(value.value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):  # KEEP_DELETED_CELLS => 'TTL'
        return _quote(value)
    raise TypeError(f"no shell rendering for {value!r}")


def _hash(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{key} => {value}" for key, value in pairs) + "}"


def _family_pairs(family: Family, base: Family) -> list[tuple[str, str]]:
    """The options of ``family`` that differ from ``base``, rendered, in F3 order."""
    pairs = []
    for option, attribute in _FAMILY_OPTIONS:
        value = getattr(family, attribute)
        if value != getattr(base, attribute):
            pairs.append((option, _value(value)))
    if family.bloom_prefix_length != base.bloom_prefix_length:
        length = family.bloom_prefix_length
        rendered = "nil" if length is None else _quote(str(length))
        pairs.append(("CONFIGURATION", f"{{{_quote(_PREFIX_LENGTH_KEY)} => {rendered}}}"))
    return pairs


def _family_spec(family: Family, base: Family = _DEFAULT_FAMILY) -> str:
    return _hash([("NAME", _quote(family.name)), *_family_pairs(family, base)])


def _table_pairs(table: Table) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    policy = table.split_policy
    if isinstance(policy, NumRegions):
        pairs.append(("NUMREGIONS", str(policy.num_regions)))
        pairs.append(("SPLITALGO", _quote(policy.algorithm.value)))
    elif table.splits:
        points = ", ".join(binary_literal(point) for point in table.splits)
        pairs.append(("SPLITS", f"[{points}]"))
    defaults = {"read_only": False, "durability": Durability.USE_DEFAULT}
    for option, attribute in _TABLE_OPTIONS:
        value = getattr(table, attribute)
        if value is not None and value != defaults.get(attribute):
            pairs.append((option, _value(value)))
    return pairs


def create_statement(table: Table) -> str:
    r"""Return the HBase shell ``create`` statement for ``table``, in one canonical form.

    The form is ``create 'ns:name', {NAME => 'f', ...}, ..., {table options}``:

    * families in declaration order, each a hash holding ``NAME`` and then only the options
      that differ from HBase's defaults, in the order VERSIONS, MIN_VERSIONS, TTL,
      COMPRESSION, DATA_BLOCK_ENCODING, BLOOMFILTER, BLOCKSIZE, BLOCKCACHE, IN_MEMORY,
      KEEP_DELETED_CELLS, REPLICATION_SCOPE (pattern F3), then ``CONFIGURATION`` for a
      bloom prefix length;
    * integers unquoted (TTL in seconds, sizes in bytes), booleans as ``'true'`` /
      ``'false'``, names and enum values in single quotes;
    * one final hash, only when needed, with the split clause first: ``NUMREGIONS`` and
      ``SPLITALGO`` for :class:`~hmodel.schema.split.NumRegions`, otherwise ``SPLITS``
      with each point as :func:`binary_literal` renders it; then READONLY, DURABILITY,
      MAX_FILESIZE, MEMSTORE_FLUSHSIZE (pattern F4) when not the default. The shell's
      ``create`` applies table options given in that hash.

    A namespace must exist before the table (``create_namespace 'ns'``).

    >>> from hmodel.schema.family import Family
    >>> print(create_statement(Table("t", [Family("d")], splits=[b"\x01", b"\x02"])))
    create 't', {NAME => 'd'}, {SPLITS => ['\x01', '\x02']}
    """
    parts = [f"create {_quote(table.full_name)}"]
    parts.extend(_family_spec(family) for family in table.families)
    table_pairs = _table_pairs(table)
    if table_pairs:
        parts.append(_hash(table_pairs))
    return ", ".join(parts)


def splits_file(table: Table) -> str:
    r"""Return the text of a ``SPLITS_FILE`` for ``table``: one point per line.

    Each line is the point in ``Bytes.toStringBinary`` form, which the shell reads back
    with ``Bytes.toBytesBinary``, so binary points survive (``create 't', 'f',
    SPLITS_FILE => 'splits.txt'``). The text ends with a newline; it is empty when the
    table has no split points.

    >>> from hmodel.schema.family import Family
    >>> splits_file(Table("t", [Family("d")], splits=[b"a", b"\xff"]))
    'a\n\\xFF\n'
    """
    return "".join(_binary_text(point) + "\n" for point in table.splits)


def _table_option_changes(old: Table, new: Table) -> list[str]:
    """The hashes that change ``old``'s table options into ``new``'s, in F4 order."""
    pairs: list[tuple[str, str]] = []
    unset: list[str] = []
    for option, attribute in _TABLE_OPTIONS:
        after = getattr(new, attribute)
        if getattr(old, attribute) == after:
            continue
        if after is None:
            unset.append(_hash([("METHOD", "'table_att_unset'"), ("NAME", _quote(option))]))
        else:
            pairs.append((option, _value(after)))
    return ([_hash(pairs)] if pairs else []) + unset


def alter_statements(old: Table, new: Table) -> list[str]:
    """Return the shell statements that turn table ``old`` into ``new`` (F5).

    The list is ``disable``, one ``alter`` per change, then ``enable``, or empty when
    nothing changes. Changes come in this order:

    1. families of ``old`` missing from ``new`` are deleted
       (``alter 't', {NAME => 'f', METHOD => 'delete'}``): their data is dropped;
    2. families of ``new``, in declaration order: a new family is added with its
       non-default options, as in :func:`create_statement`; a changed family is altered
       with exactly the options that changed, written out even when the new value is
       HBase's default (the shell keeps the options an ``alter`` does not name);
    3. changed table options in one ``alter``; each one set back to ``None`` is removed
       by its own ``alter 't', {METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'}``.

    Existing store files keep their old layout (compression, block encoding, block size,
    bloom filter) until they are rewritten: the change takes full effect at the next
    major compaction (``major_compact 't'``). Version and TTL limits apply to reads at
    once, and the excess cells are dropped at that compaction.

    Raises:
        SchemaError: ``old`` and ``new`` name different tables, or their split points
            differ (regions are set at creation; split or merge them instead).
    """
    if old.full_name != new.full_name:
        raise SchemaError(
            f"cannot alter table {old.full_name!r} into another table",
            table=old.full_name,
            value=new.full_name,
        )
    if old.splits != new.splits:
        raise SchemaError(
            "split points are fixed when a table is created; split or merge regions instead",
            table=old.full_name,
            value=new.splits,
        )
    target = _quote(new.full_name)
    changes: list[str] = []
    new_names = {family.name for family in new.families}
    for family in old.families:
        if family.name not in new_names:
            changes.append(_hash([("NAME", _quote(family.name)), ("METHOD", "'delete'")]))
    old_families = {family.name: family for family in old.families}
    for family in new.families:
        before = old_families.get(family.name)
        if before is None:
            changes.append(_family_spec(family))
        elif before != family:
            changes.append(_family_spec(family, base=before))
    changes.extend(_table_option_changes(old, new))
    if not changes:
        return []
    return [
        f"disable {target}",
        *(f"alter {target}, {change}" for change in changes),
        f"enable {target}",
    ]
