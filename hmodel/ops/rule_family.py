"""Advisor rules about families and cells: count (F1), names (F2), versions (F7), size (F11)."""

from __future__ import annotations

from collections.abc import Iterator

from hmodel.model import MapField
from hmodel.ops.context import Context
from hmodel.ops.finding import Finding, Rule, Severity

__all__ = [
    "F1",
    "F2",
    "F7",
    "F11",
    "check_f1",
    "check_f2",
    "check_f7",
    "check_f11",
]

F1 = Rule(
    "HM-F1",
    "F1",
    (
        "https://hbase.apache.org/book.html#number.of.cfs",
        "https://hbase.apache.org/book.html#table_schema_rules_of_thumb",
    ),
    "too many families",
    "Each family has its own MemStore and store files; they flush and compact together, "
    "so many families multiply flushes and small files, and a big family forces flushes "
    "of the small ones. Keep one to three families, more only when read separately.",
)
F2 = Rule(
    "HM-F2",
    "F2",
    (
        "https://hbase.apache.org/book.html#keysize",
        "https://hbase.apache.org/book.html#table_schema_rules_of_thumb",
    ),
    "long family or qualifier names",
    "Every cell stores its row key, family name and qualifier again: long names multiply "
    "storage and block-cache use. Use one-letter families and qualifiers of a few "
    "letters; the code keeps the long name (field('i:n') for nickname).",
)
F7 = Rule(
    "HM-F7",
    "F7",
    (
        "https://hbase.apache.org/book.html#schema.versions",
        "https://hbase.apache.org/book.html#schema.smackdown.rowsversions",
    ),
    "versions",
    "Cell versions are not an index: keep VERSIONS small and put time in the key when "
    "history is queried; MIN_VERSIONS only means something together with a TTL.",
)
F11 = Rule(
    "HM-F11",
    "F11",
    (
        "https://hbase.apache.org/book.html#table_schema_rules_of_thumb",
        "https://hbase.apache.org/book.html#hbase_mob",
    ),
    "large cells",
    "Keep cells under about 100 KB; above that use MOB (up to about 10-50 MB); larger "
    "objects belong in HDFS or an object store with a pointer in HBase.",
)

#: Longest family name F2 accepts, in bytes (F2 says one letter).
MAX_FAMILY_NAME = 2
#: Longest qualifier (or map-field qualifier prefix) F2 accepts, in bytes.
MAX_QUALIFIER = 8
#: Most versions F7 accepts without a warning (the e-commerce goods keep ten prices).
MAX_VERSIONS = 10
_KB = 1000
_MB = 1000**2


def check_f1(ctx: Context) -> Iterator[Finding]:
    """More than three families; families that no model of the table stores in."""
    for table in ctx.inventory.tables:
        names = [f.name for f in table.families]
        if len(names) > 3:
            yield ctx.for_table(
                F1,
                Severity.WARNING,
                table,
                f"{len(names)} families ({', '.join(names)}); the rule is one to three",
                "merge families that are read together; keep a separate family only for "
                "data read on its own",
            )
        models = ctx.inventory.models_on(table)
        if not models:
            continue
        used = {family for info in models for family in info.families}
        for name in names:
            if name not in used:
                yield ctx.for_table(
                    F1,
                    Severity.INFO,
                    table,
                    f"family {name!r} holds no field of "
                    f"{', '.join(i.name for i in models)}: it still costs a MemStore per region",
                    f"drop family {name!r}, or map the fields that live there",
                )


def check_f2(ctx: Context) -> Iterator[Finding]:
    """Family names over two bytes; qualifiers or map prefixes over eight."""
    for table in ctx.inventory.tables:
        for family in table.families:
            if len(family.name_bytes) > MAX_FAMILY_NAME:
                yield ctx.for_table(
                    F2,
                    Severity.WARNING,
                    table,
                    f"family {family.name!r} is {len(family.name_bytes)} bytes, stored in "
                    "every cell",
                    f"rename it to one letter, e.g. {family.name[0]!r}",
                )
    for info in ctx.inventory.models:
        for stored in info.fields.values():
            if isinstance(stored, MapField):
                qualifier, what = stored.prefix, "qualifier prefix"
            else:
                qualifier, what = stored.qualifier, "qualifier"
            if len(qualifier) > MAX_QUALIFIER:
                yield ctx.for_model(
                    F2,
                    Severity.WARNING,
                    info,
                    f"field {stored.name!r} has the {len(qualifier)}-byte {what} "
                    f"{qualifier.decode(errors='replace')!r}, stored in every cell",
                    f"map it to a short qualifier: field('{stored.family}:{stored.name[:2]}')",
                )


def check_f7(ctx: Context) -> Iterator[Finding]:
    """MIN_VERSIONS without TTL; more than ``MAX_VERSIONS`` versions."""
    for table in ctx.inventory.tables:
        for family in table.families:
            if family.min_versions and not family.has_ttl:
                yield ctx.for_table(
                    F7,
                    Severity.WARNING,
                    table,
                    f"family {family.name!r} has MIN_VERSIONS {family.min_versions} but no "
                    "TTL: it does nothing",
                    "give the family a TTL, or drop MIN_VERSIONS",
                )
            if family.versions > MAX_VERSIONS:
                yield ctx.for_table(
                    F7,
                    Severity.WARNING,
                    table,
                    f"family {family.name!r} keeps VERSIONS {family.versions} (over "
                    f"{MAX_VERSIONS})",
                    "model the history as rows with the time in the key (K6), and keep "
                    "VERSIONS small",
                )


def check_f11(ctx: Context) -> Iterator[Finding]:
    """A declared largest cell over 100 KB (warning) or over 10 MB (error)."""
    for table in ctx.inventory.tables:
        cell = ctx.config.volume(table.full_name).cell_bytes
        if cell is None or cell <= 100 * _KB:
            continue
        large = cell > 10 * _MB
        yield ctx.for_table(
            F11,
            Severity.ERROR if large else Severity.WARNING,
            table,
            f"cells of up to {cell:,} bytes are expected (over {'10 MB' if large else '100 KB'})",
            "store the object in HDFS or an object store and keep its path in the cell"
            if large
            else "enable MOB for the family (IS_MOB), or store the object elsewhere with a pointer",
        )
