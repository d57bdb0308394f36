"""Writing the model module of a guessed table layout, as ``hmodel inspect`` prints it."""

from __future__ import annotations

import enum
import textwrap

from hmodel.keys import ReverseTimestamp, Timestamp
from hmodel.ops.model_inference import ColumnGuess, MapGuess, ModelGuess
from hmodel.schema import Family

__all__ = ["FAMILY_OPTIONS", "family_source", "quote", "render_module"]

#: The longest line a generated module's comments take.
WIDTH = 99

#: The ``Family`` options a generated module spells out when they differ from the default.
FAMILY_OPTIONS = (
    "versions",
    "min_versions",
    "ttl",
    "keep_deleted_cells",
    "compression",
    "data_block_encoding",
    "bloom_filter",
    "block_size",
    "block_cache",
    "in_memory",
    "replication_scope",
    "bloom_prefix_length",
)


def quote(value: object) -> str:
    """``repr(value)``, a ``str`` in double quotes as the house style writes it."""
    shown = repr(value.value if isinstance(value, enum.Enum) else value)
    if isinstance(value, str) and shown.startswith("'") and '"' not in shown:
        return f'"{shown[1:-1]}"'
    return shown


def family_source(family: Family) -> str:
    """``Family("d", versions=3)``: the options that differ from a new family's."""
    default = Family(family.name)
    options = [
        f"{option}={quote(getattr(family, option))}"
        for option in FAMILY_OPTIONS
        if getattr(family, option) != getattr(default, option)
    ]
    return f"Family({', '.join([quote(family.name), *options])})"


def _comment(text: str, indent: str = "") -> list[str]:
    """``text`` as comment lines of at most :data:`WIDTH` characters."""
    return [
        f"{indent}# {part}"
        for line in text.split("\n")
        for part in textwrap.wrap(line, WIDTH - len(indent) - 2, subsequent_indent="  ")
    ]


def _column_lines(column: ColumnGuess) -> list[str]:
    value = column.value
    annotation = f"{value.annotation} | None" if column.optional else value.annotation
    default = ", default=None" if column.optional else ""
    lines = _comment(value.note, "    ")
    if column.optional:
        lines += ["    # absent from some sampled rows: None there"]
    spec = f"field({quote(column.column)}, codec={value.codec}{default})"
    lines.append(f"    {column.name}: {annotation} = {spec}")
    return lines


def _map_lines(guess: MapGuess) -> list[str]:
    key_type = "str" if guess.text_qualifiers else "bytes"
    key_codec = "" if guess.text_qualifiers else ", key_codec=Raw()"
    lines = _comment(guess.note, "    ") + _comment(guess.value.note, "    ")
    lines.append(
        f"    {guess.name}: dict[{key_type}, {guess.value.annotation}] = "
        f"map_field({quote(guess.family)}{key_codec}, value_codec={guess.value.codec})"
    )
    return lines


def render_module(guess: ModelGuess) -> str:
    """The Python source of a module declaring ``guess``'s table and model.

    The module declares ``TABLE`` (the sampled families with their options), ``KEY``
    and one model class; comments carry why each layout was chosen and where the guess
    is uncertain.
    """
    sample = guess.sample
    codecs = {c.value.name for c in guess.columns} | {m.value.name for m in guess.maps}
    if any(not m.text_qualifiers for m in guess.maps):
        codecs.add("Raw")
    annotations = [c.value.annotation for c in guess.columns] + [
        m.value.annotation for m in guess.maps
    ]
    hmodel_names = ["Family", "Table", "extra_field", "model"]
    hmodel_names += ["field"] if guess.columns else []
    hmodel_names += ["map_field"] if guess.maps else []
    key_names = sorted({"Key", *guess.key.names})
    key_types = {t.__module__: t.__name__ for t in guess.key.annotations().values()}
    lines = [
        f'"""The HBase table {sample.table!r} as hmodel inspect read it '
        f'({len(sample.rows)} sampled rows): review the comments."""',
        "",
        "from __future__ import annotations",
        "",
    ]
    stdlib = []
    if "datetime" in key_types:
        stdlib.append("import datetime")
    if "Decimal" in annotations:
        stdlib.append("from decimal import Decimal")
    if any("Any" in a for a in annotations):
        stdlib.append("from typing import Any")
    if stdlib:
        lines += [*stdlib, ""]
    lines += [f"from hmodel import {', '.join(sorted(hmodel_names))}"]
    if codecs:
        lines.append(f"from hmodel.codecs import {', '.join(sorted(codecs))}")
    lines += [f"from hmodel.keys import {', '.join(key_names)}", ""]
    families = ", ".join(family_source(f) for _, f in sorted(sample.families.items()))
    table = sample.table.rpartition(":")
    table_args = quote(table[2]) + (f", namespace={quote(table[0])}" if table[0] else "")
    lines += [f"TABLE = Table({table_args}, [{families}])", ""]
    lines += _comment("\n".join(f"key: {note}" for note in guess.key.notes))
    lines += [f"KEY = {guess.key.source}", "", ""]
    first = guess.key.key.components[0] if guess.key.key.components else None
    if isinstance(first, Timestamp | ReverseTimestamp):
        lines += [
            "# The existing layout leads with an instant (K8: its writes go to one region);",
            "# a model of it cannot change that, hmodel check explains the fix.",
            '@model(TABLE, key=KEY, allow_monotonic_key="the existing layout of the table")',
        ]
    else:
        lines.append("@model(TABLE, key=KEY)")
    lines += [
        f"class {guess.class_name}:",
        f'    """A row of ``{sample.table}``."""',
        "",
    ]
    for name, python_type in guess.key.annotations().items():
        spelled = python_type.__name__
        spelled = "datetime.datetime" if spelled == "datetime" else spelled
        lines.append(f"    {name}: {spelled}")
    for column in sorted(guess.columns, key=lambda c: c.optional):
        lines += _column_lines(column)
    for family in guess.maps:
        lines += _map_lines(family)
    lines += [
        "    # the cells of qualifiers the sample did not show, byte for byte: a scan loses none",
        f"    {guess.extra}: dict[bytes, bytes] = extra_field()",
    ]
    return "\n".join(lines) + "\n"
