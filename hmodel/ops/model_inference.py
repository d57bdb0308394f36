"""Guessing a whole model from a table sample for ``hmodel inspect``: key, fields, map families."""

from __future__ import annotations

import keyword
import re
from collections import defaultdict

import attrs

from hmodel.ops.key_inference import KeyGuess, infer_key
from hmodel.ops.table_sample import TableSample
from hmodel.ops.value_inference import ValueGuess, infer_value

__all__ = ["ColumnGuess", "MapGuess", "ModelGuess", "infer_model"]

#: A family with more distinct qualifiers than this in the sample is a map (F6).
MAX_COLUMNS = 32
_QUALIFIER = re.compile(rb"[\x21-\x7e]+")


@attrs.frozen
class ColumnGuess:
    """One fixed qualifier as one model field.

    Attributes:
        column: ``"family:qualifier"``.
        name: The field's Python name.
        value: The codec guess.
        optional: Some sampled rows lack the cell (the field defaults to ``None``).
    """

    column: str
    name: str
    value: ValueGuess
    optional: bool


@attrs.frozen
class MapGuess:
    """A family of dynamic qualifiers as one map field (F6).

    Attributes:
        family: The family name.
        name: The field's Python name.
        text_qualifiers: Every qualifier is UTF-8 text (``dict[str, ...]``), else the
            keys stay ``bytes`` (``key_codec=Raw()``).
        value: The codec guess of all its cells.
        note: Why it is a map.
    """

    family: str
    name: str
    text_qualifiers: bool
    value: ValueGuess
    note: str


@attrs.frozen
class ModelGuess:
    """Everything ``hmodel inspect`` renders: the table, the key, the fields.

    Attributes:
        sample: What was read.
        class_name: The model class's name.
        key: The key layout.
        columns: The fixed-qualifier fields, by column.
        maps: The map fields, by family.
        extra: The name of the catch-all field (``extra_field()``) that keeps the cells
            of qualifiers the sample did not show.
    """

    sample: TableSample
    class_name: str
    key: KeyGuess
    columns: tuple[ColumnGuess, ...]
    maps: tuple[MapGuess, ...]
    extra: str = "extra"


def class_name_of(table: str) -> str:
    """``"order_item"`` -> ``"OrderItem"``; a name starting with a digit gets ``Row``."""
    words = re.split(r"[^0-9A-Za-z]+", table.rpartition(":")[2])
    name = "".join(w[:1].upper() + w[1:] for w in words if w) or "Row"
    return name if name[0].isalpha() else "Row" + name


def _identifier(text: str, taken: set[str], family: str) -> str:
    base = re.sub(r"[^0-9a-z_]+", "_", text.lower()).strip("_") or "q"
    if base[0].isdigit():
        base = "q_" + base
    if keyword.iskeyword(base) or base in ("self", "cls"):
        base += "_"
    name = base if base not in taken else f"{family}_{base}"
    number = 2
    while name in taken:
        name, number = f"{base}_{number}", number + 1
    taken.add(name)
    return name


def _is_map(qualifiers: set[bytes]) -> str | None:
    if len(qualifiers) > MAX_COLUMNS:
        return f"{len(qualifiers)} distinct qualifiers in the sample: dynamic columns (F6)"
    if not all(_QUALIFIER.fullmatch(q) for q in qualifiers):
        return "qualifiers that are not printable text: dynamic columns (F6)"
    return None


def infer_model(sample: TableSample) -> ModelGuess:
    """Guess the key, a field per fixed qualifier and a map per dynamic family.

    Raises:
        SampleError: The sample is empty, or no key layout fits its rowkeys.
    """
    from hmodel.errors import SampleError

    if not sample.rows:
        raise SampleError(f"table {sample.table!r} has no rows to inspect", table=sample.table)
    key = infer_key([row.row for row in sample.rows])
    taken = set(key.key.fields)
    phoenix = key.proposer == "phoenix"
    cells: dict[str, dict[bytes, list[bytes]]] = defaultdict(lambda: defaultdict(list))
    for row in sample.rows:
        for column, cell in row.cells.items():
            family_bytes, _, qualifier = column.partition(b":")
            cells[family_bytes.decode()][qualifier].append(cell.value)
    columns: list[ColumnGuess] = []
    maps: list[MapGuess] = []
    for family in sorted(cells):
        by_qualifier = cells[family]
        why = _is_map(set(by_qualifier))
        if why is not None:
            text = all(_utf8(q) for q in by_qualifier)
            values = [v for vs in by_qualifier.values() for v in vs]
            name = _identifier(family, taken, family)
            maps.append(MapGuess(family, name, text, infer_value(values, phoenix=phoenix), why))
            continue
        for qualifier in sorted(by_qualifier):
            values = by_qualifier[qualifier]
            name = _identifier(qualifier.decode(), taken, family)
            columns.append(
                ColumnGuess(
                    f"{family}:{qualifier.decode()}",
                    name,
                    infer_value(values, phoenix=phoenix),
                    len(values) < len(sample.rows),
                )
            )
    extra = _identifier("extra", taken, "all")
    name = class_name_of(sample.table)
    return ModelGuess(sample, name, key, tuple(columns), tuple(maps), extra)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
