"""Rows HBase's own Java client writes read by hmodel on Thrift1 and Thrift2, and the reverse.

The rowspecs name the layouts Java services write (``Bytes.toBytes``, delimiters,
``String.format("%010d")``, hex digests, Phoenix salted keys); the expected bytes come
from hmodel's components and codecs where they express the layout (K1, K2, K4, K6, K9),
else from the layout's definition. A byte that differs fails the test.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from hmodel import Key, field, model
from hmodel.backend.base import Backend
from hmodel.codecs import (
    Bool,
    DateTime,
    DecimalCodec,
    Float64,
    Int32,
    IntText,
    Long,
    PhoenixInt,
    Utf8,
)
from hmodel.keys import (
    Bytes,
    Descending,
    Hashed,
    HexHashed,
    Int,
    JavaInt,
    PaddedInt,
    ReverseTimestamp,
    Str,
    phoenix_key,
)
from hmodel.mapping import mapper_for
from hmodel.schema import Family, Table
from tests.interop.client import JavaClient, part, rowspec

pytestmark = pytest.mark.hbase

PROTOCOLS = ("hbase", "hbase2")

MOMENT = dt.datetime(2024, 1, 1, 12, 30, tzinfo=dt.timezone.utc)
MOMENT_MS = int(MOMENT.timestamp() * 1000)


def phoenix_salt(rest: bytes, buckets: int) -> bytes:
    """Phoenix's salt byte: a 31-based hash of the signed key bytes, ``abs(hash % buckets)``."""
    value = 1
    for byte in rest:
        value = (31 * value + (byte - 256 if byte > 127 else byte)) & 0xFFFFFFFF
    signed = value - (1 << 32) if value >= 1 << 31 else value
    remainder = abs(signed) % buckets  # Java's % truncates toward zero: abs() first is equal
    return bytes([remainder])


#: (layout, rowspec, the rowkey it must be) of the layouts Java code writes.
KEY_LAYOUTS: list[tuple[str, str, bytes]] = [
    ("string", rowspec(part("str", "o1")), Key(Str("id", terminated=False)).encode({"id": "o1"})),
    (
        "delimited",
        rowspec(part("str", "user123"), part("str", "|"), part("str", "20240101")),
        Key(Str("user"), PaddedInt("day", width=8), sep=b"|").encode(
            {"user": "user123", "day": 20240101}
        ),
    ),
    ("java-long", rowspec(part("long", 42)), Key(Int("n", size=8, signed=False)).encode({"n": 42})),
    ("java-int", rowspec(part("int", 7)), Key(Int("n", size=4, signed=False)).encode({"n": 7})),
    ("java-negative-long", rowspec(part("long", -2)), Key(JavaInt("n")).encode({"n": -2})),
    ("java-short", rowspec(part("short", -3)), Key(JavaInt("n", size=2)).encode({"n": -3})),
    ("zero-padded", rowspec(part("pad", 10, 42)), Key(PaddedInt("n", width=10)).encode({"n": 42})),
    (
        "hex-digest-prefix",
        rowspec(part("md5hex", 4, "u1"), part("str", "u1")),
        Key(HexHashed("id", nchars=4), Str("id", terminated=False)).encode({"id": "u1"}),
    ),
    (
        "md5-prefix",
        rowspec(part("md5", 4, "ab"), part("str", "ab")),
        Key(Hashed("id", nbytes=4), Bytes("id", width=2, pad=None)).encode({"id": b"ab"}),
    ),
    (
        "reverse-timestamp",
        rowspec(part("str", "u1"), part("revlong", MOMENT_MS)),
        b"u1" + ReverseTimestamp("t").encode(MOMENT),
    ),
    (
        "phoenix-salted",
        rowspec(part("salt", 4), part("str", "o1"), part("hex", "00"), part("phlong", -5)),
        phoenix_key(Str("id"), Int("n", size=8), salt_buckets=4).encode({"id": "o1", "n": -5}),
    ),
    (
        "phoenix-salt-by-definition",
        rowspec(part("salt", 4), part("str", "o1"), part("hex", "00"), part("phlong", -5)),
        phoenix_salt(b"o1\x00" + (-5 + (1 << 63)).to_bytes(8, "big"), 4)
        + b"o1\x00"
        + (-5 + (1 << 63)).to_bytes(8, "big"),
    ),
    (
        "phoenix-desc-int",
        rowspec(part("str", "k"), part("hex", "00"), part("desc", part("phint", 3))),
        phoenix_key(Str("k"), Descending(Int("n", size=4))).encode({"k": "k", "n": 3}),
    ),
]

#: (column, valuespec, the value bytes hmodel's codec writes for the same value).
VALUES: list[tuple[str, str, bytes]] = [
    ("d:l", "long:-7", Long().encode(-7)),
    ("d:i", "int:-5", Int32().encode(-5)),
    ("d:f", "double:3.5", Float64().encode(3.5)),
    ("d:m", "decimal:12.340", DecimalCodec().encode(Decimal("12.340"))),
    ("d:s", "string:h\u00e9llo", Utf8().encode("h\u00e9llo")),
    ("d:b", "boolean:true", Bool().encode(True)),
    ("d:t", "string:123", IntText().encode(123)),
    ("d:p", "phint:-3", PhoenixInt().encode(-3)),
    ("d:q", "phlong:-3", PhoenixInt(size=8).encode(-3)),
]


@pytest.fixture(scope="module")
def java_rows(java: JavaClient, interop_table: str) -> dict[str, dict[str, Any]]:
    """Every key layout written once by Java, each row holding every value."""
    cells = {column: spec for column, spec, _ in VALUES}
    return {name: java.put(interop_table, spec, cells) for name, spec, _ in KEY_LAYOUTS}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("layout", [name for name, _, _ in KEY_LAYOUTS])
def test_java_rows_read_by_hmodel(
    java_rows: dict[str, dict[str, Any]],
    real_backends: dict[str, Backend],
    interop_table: str,
    protocol: str,
    layout: str,
) -> None:
    """A row Java wrote is found under the rowkey hmodel computes, every cell byte-identical."""
    expected = {name: key for name, _, key in KEY_LAYOUTS}[layout]
    assert bytes.fromhex(java_rows[layout]["row"]) == expected
    rows = real_backends[protocol].get(interop_table, [expected])
    assert rows, f"{layout}: no row {expected!r} on {protocol}"
    assert {c: cell.value for c, cell in rows[0].cells.items()} == {
        column.encode(): value for column, _, value in VALUES
    }


INTEROP = Table("interop", [Family("d")])


@model(INTEROP, key=Key(Int("n", size=8, signed=False)))
class Reading:
    """What hmodel writes for Java to read: a Java-long key and every Java value type."""

    n: int
    total: int = field("d:l")
    count: int = field("d:i", codec=Int32())
    ratio: float = field("d:f")
    price: Decimal = field("d:m")
    label: str = field("d:s")
    ok: bool = field("d:b")
    at: dt.datetime = field("d:t", codec=DateTime(unit="ms"))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_hmodel_rows_read_by_java(
    java: JavaClient, real_backends: dict[str, Backend], interop_table: str, protocol: str
) -> None:
    """Java's Get(Bytes.toBytes(long)) finds hmodel's row; Bytes.toX decode each value exactly."""
    number = 1000 + PROTOCOLS.index(protocol)
    reading = Reading(
        n=number,
        total=-(1 << 40),
        count=-123,
        ratio=-0.1,
        price=Decimal("-1234.5600"),
        label="caf\u00e9 \u2603",
        ok=False,
        at=MOMENT,
    )
    mutations = mapper_for(Reading).to_mutations(reading, timestamp=MOMENT_MS)
    real_backends[protocol].mutate(interop_table, list(mutations))
    answer = java.get(
        interop_table,
        rowspec(part("long", number)),
        {
            "d:l": "long",
            "d:i": "int",
            "d:f": "double",
            "d:m": "decimal",
            "d:s": "string",
            "d:b": "boolean",
            "d:t": "long",
        },
    )
    assert answer["found"], f"Java's Get missed hmodel's row on {protocol}"
    decoded = {column: cell["decoded"] for column, cell in answer["cells"].items()}
    assert decoded == {
        "d:l": str(-(1 << 40)),
        "d:i": "-123",
        "d:f": "-0.1",
        "d:m": "-1234.5600",
        "d:s": "caf\u00e9 \u2603",
        "d:b": "false",
        "d:t": str(MOMENT_MS),
    }


INTEROP_TEXT = Table("interop", [Family("d")])


@model(INTEROP_TEXT, key=Key(Str("user"), PaddedInt("day", width=8), sep=b"|"))
class Visit:
    """A delimited key with a zero-padded day, text numbers: what Java code writes."""

    user: str
    day: int
    count: int = field("d:c", codec=IntText())
    total: int = field("d:l")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_hmodel_foreign_keys_are_found_by_java(
    java: JavaClient, real_backends: dict[str, Backend], interop_table: str, protocol: str
) -> None:
    """Java's Get of "user|%08d" (Bytes.toBytes of the joined text) finds hmodel's row."""
    user = f"visitor{PROTOCOLS.index(protocol)}"
    visit = Visit(user=user, day=20240101, count=-17, total=1 << 33)
    mutations = mapper_for(Visit).to_mutations(visit, timestamp=MOMENT_MS)
    real_backends[protocol].mutate(interop_table, list(mutations))
    spec = rowspec(part("str", user), part("str", "|"), part("pad", 8, 20240101))
    answer = java.get(interop_table, spec, {"d:c": "string", "d:l": "long"})
    assert answer["found"], f"Java's Get missed hmodel's delimited row on {protocol}"
    decoded = {column: cell["decoded"] for column, cell in answer["cells"].items()}
    assert decoded == {"d:c": "-17", "d:l": str(1 << 33)}


@model(INTEROP_TEXT, key=phoenix_key(Str("id"), Int("n", size=8), salt_buckets=4))
class Salted:
    """A Phoenix salted key (SALT_BUCKETS = 4) with a Phoenix BIGINT cell (K3)."""

    id: str
    n: int
    amount: int = field("d:a", codec=PhoenixInt(size=8))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_hmodel_phoenix_rows_are_found_by_java(
    java: JavaClient, real_backends: dict[str, Backend], interop_table: str, protocol: str
) -> None:
    """Java's Get of Phoenix's bytes (salt, VARCHAR, 00, BIGINT) finds hmodel's salted row."""
    salted = Salted(id=f"order{PROTOCOLS.index(protocol)}", n=-42, amount=-(1 << 50))
    mutations = mapper_for(Salted).to_mutations(salted, timestamp=MOMENT_MS)
    real_backends[protocol].mutate(interop_table, list(mutations))
    spec = rowspec(part("salt", 4), part("str", salted.id), part("hex", "00"), part("phlong", -42))
    answer = java.get(interop_table, spec, {"d:a": "phlong"})
    assert answer["found"], f"Java's Get missed hmodel's Phoenix row on {protocol}"
    assert answer["cells"]["d:a"]["decoded"] == str(-(1 << 50))
