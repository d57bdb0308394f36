"""``hmodel inspect`` on tables HBase's Java client and happybase wrote, over both protocols.

Each table holds one key layout a Java service writes with ``Bytes.toBytes`` (K1, K4, K6)
and every Java value type; the generated module must import, decode every sampled row
and re-encode it byte for byte on Thrift1 and on Thrift2.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator

import attrs
import pytest

from hmodel.backend.base import Backend
from hmodel.keys import Str
from hmodel.ops.inspection import inspect_table
from hmodel.ops.model_verify import load_module
from hmodel.schema import Family, Table
from tests.interop.client import JavaClient, part, rowspec

pytestmark = pytest.mark.hbase

PROTOCOLS = ("hbase", "hbase2")
START = dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc)
START_MS = int(START.timestamp() * 1000)


#: Every Java value type, per row number.
def _cells(n: int) -> dict[str, str]:
    return {
        "d:total": f"long:{n * 1_000_003 - 500}",
        "d:count": f"int:{-n}",
        "d:ratio": f"double:{n / 8}",
        "d:price": f"decimal:{n}.{n:02d}",
        "d:name": f"string:name {n}",
        "d:ok": f"boolean:{str(n % 2 == 0).lower()}",
    }


OPEN_TEXT = "terminated" in {f.name for f in attrs.fields(Str)}

#: layout -> (rowspec of row n, the key components the module must use, needs open text).
LAYOUTS = {
    "long": (lambda n: rowspec(part("long", n * 7919)), "Int(", False),
    "revts": (
        lambda n: rowspec(part("str", f"u{n % 10}"), part("revlong", START_MS + n * 60_000)),
        "Str(",
        False,
    ),
    "md5": (
        lambda n: rowspec(part("md5", 4, f"id{n:03d}"), part("str", f"id{n:03d}")),
        "Hashed(",
        False,
    ),
    "string": (lambda n: rowspec(part("str", f"order-{n}")), "terminated=False", True),
    "delimited": (
        lambda n: rowspec(
            part("str", f"user{n % 5}"), part("str", "|"), part("pad", 8, 20240100 + n)
        ),
        'sep=b"|"',
        True,
    ),
    "phoenix": (
        lambda n: rowspec(
            part("salt", 4), part("str", f"o{n}"), part("hex", "00"), part("phlong", n - 10)
        ),
        "salt_buckets=4",
        True,
    ),
    "hexdigest": (
        lambda n: rowspec(part("md5hex", 4, f"u{n}"), part("str", f"u{n}")),
        "HexHashed(",
        True,
    ),
}
ROWS = 25


@pytest.fixture(scope="module")
def java_tables(java: JavaClient, real_backends: dict[str, Backend]) -> Iterator[dict[str, str]]:
    """One table per layout, filled by Java; dropped afterwards."""
    prefix = os.environ.get("HMODEL_TEST_PREFIX") or "hmodel_test"
    admin = real_backends["hbase2"]
    names = {layout: f"{prefix}_inspect_java_{layout}" for layout in LAYOUTS}
    for layout, name in names.items():
        if admin.table_exists(name):
            admin.delete_table(name)
        admin.create_table(Table(name, [Family("d", versions=2)]))
        spec = LAYOUTS[layout][0]
        for n in range(ROWS):
            java.put(name, spec(n), _cells(n))
    try:
        yield names
    finally:
        for name in names.values():
            admin.delete_table(name)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_inspect_reproduces_java_rows(
    java_tables: dict[str, str], real_backends: dict[str, Backend], protocol: str, layout: str
) -> None:
    """The module inspect writes for a Java table decodes and re-encodes all its rows."""
    _, component, needs_open_text = LAYOUTS[layout]
    if needs_open_text and not OPEN_TEXT:
        pytest.skip("this hmodel has no open text layout (Str(..., terminated=False))")
    inspection = inspect_table(real_backends[protocol], java_tables[layout], limit=100)
    assert inspection.verification.rows == ROWS
    assert inspection.verification.ok, inspection.verification.mismatches
    assert component in inspection.source
    for codec in ("Long()", "Int32()", "Float64()", "DecimalCodec()", "Utf8()", "Bool()"):
        assert codec in inspection.source
    load_module(inspection.source)


@pytest.fixture(scope="module")
def happybase_table(hmodel_real_hbase_address: tuple[str, int]) -> Iterator[str]:
    """A table a happybase script filled on the real Thrift1 server: text everywhere."""
    import happybase

    name = f"{os.environ.get('HMODEL_TEST_PREFIX') or 'hmodel_test'}_inspect_happybase"
    connection = happybase.Connection(*hmodel_real_hbase_address)
    if name.encode() in connection.tables():
        connection.delete_table(name, disable=True)
    connection.create_table(name, {"d": {"max_versions": 3}, "m": {}})
    table = connection.table(name)
    for n in range(ROWS):
        table.put(
            f"{n:08d}".encode(),
            {b"d:qty": str(n).encode(), b"d:doc": b'{"n":%d}' % n, b"m:\x00%c" % n: b"v"},
        )
    try:
        yield name
    finally:
        connection.delete_table(name, disable=True)
        connection.close()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_inspect_reproduces_happybase_rows(
    happybase_table: str, real_backends: dict[str, Backend], protocol: str
) -> None:
    """A happybase script's table (text numbers, JSON, binary qualifiers) round-trips whole."""
    inspection = inspect_table(real_backends[protocol], happybase_table)
    assert inspection.verification.rows == ROWS
    assert inspection.verification.ok, inspection.verification.mismatches
    assert 'map_field("m"' in inspection.source
    assert "Json()" in inspection.source
