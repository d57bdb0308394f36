"""``hmodel inspect``: each inference step, the generated module, and the command's formats."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel import Key, field, model
from hmodel.backend.base import Put
from hmodel.backend.memory import MemoryBackend
from hmodel.cli import main
from hmodel.codecs import Bool, DecimalCodec, Float64, Int32, Json, Long, MsgPack, Utf8
from hmodel.errors import SampleError
from hmodel.keys import Int, JavaInt, PaddedInt, ReverseTimestamp, Str, phoenix_key
from hmodel.ops.inspection import inspect_table
from hmodel.ops.key_inference import infer_key
from hmodel.ops.model_inference import class_name_of
from hmodel.ops.model_render import family_source
from hmodel.ops.model_verify import load_module, verify_rows
from hmodel.ops.table_sample import sample_table
from hmodel.ops.value_inference import infer_value
from hmodel.schema import Family, Table
from hmodel.testing import FakeHBaseServer

MOMENT = dt.datetime(2024, 5, 17, 8, 0, tzinfo=dt.timezone.utc)


def _table(backend: MemoryBackend, name: str, rows: dict[bytes, dict[bytes, bytes]]) -> None:
    families = sorted({c.partition(b":")[0].decode() for cells in rows.values() for c in cells})
    backend.create_table(Table(name, [Family(f, versions=3) for f in families or ["d"]]))
    backend.mutate(
        name, [Put(row, c, v, 1) for row, cells in rows.items() for c, v in cells.items()]
    )


# --- key inference (K1, K4, K6) ------------------------------------------------------------


def test_java_longs_become_an_unsigned_int_key() -> None:
    """Non-negative Bytes.toBytes(long) keys are hmodel's unsigned 8-byte Int (K1)."""
    guess = infer_key([n.to_bytes(8, "big") for n in (1, 7, 1 << 40)])
    assert guess.source == 'Key(Int("number", size=8, signed=False))'
    assert guess.annotations() == {"number": int}


def test_reverse_timestamps_are_told_by_their_value_range() -> None:
    """8-byte keys that are Long.MAX_VALUE minus a 2000-2100 instant are ReverseTimestamp (K6)."""
    stamp = ReverseTimestamp("t")
    rows = [stamp.encode(MOMENT + dt.timedelta(minutes=m)) for m in range(5)]
    assert infer_key(rows).source == 'Key(ReverseTimestamp("at"))'


def test_an_md5_prefix_over_the_rest_is_a_hash_prefix() -> None:
    """A raw MD5 prefix of the rest of the key is Hashed over a fixed-width id (K4)."""
    rows = [hashlib.md5(i).digest()[:4] + i for i in (b"ab", b"cd", b"ef")]
    guess = infer_key(rows)
    assert guess.source.startswith('Key(Hashed("id", nbytes=4), ')
    assert all(guess.key.encode(guess.key.decode(r)) == r for r in rows)


def test_hmodel_terminated_text_keys_stay_hmodel_text() -> None:
    """Keys hmodel itself wrote (escaped, 00 00 terminated) are read as Str (K2)."""
    assert infer_key([b"o1\x00\x00", b"o22\x00\x00"]).source == 'Key(Str("id"))'


def test_text_of_one_width_is_fixed_width_text() -> None:
    """Printable keys of one length are at least exact-width text, never opaque bytes."""
    source = infer_key([b"20240101", b"20240102"]).source
    assert "Bytes(" not in source


@pytest.mark.parametrize(
    ("rows", "source"),
    [
        ([b"o1", b"o22", b"x"], 'Key(Str("id", terminated=False))'),
        ([b"user1|20240101", b"user2|20240102"], 'sep=b"|"'),
        ([b"0000000042", b"0000000007"], 'Key(PaddedInt("id", width=10))'),
        ([b"order-1", b"order-2"], 'Key(Str("id", terminated=False))'),
        ([b"\xff" * 8, (5).to_bytes(8, "big")], 'Key(JavaInt("number", size=8))'),
    ],
)
def test_foreign_text_and_number_layouts(rows: list[bytes], source: str) -> None:
    """Plain, delimited and zero-padded text, Java negatives: the components Java code needs."""
    assert source in infer_key(rows).source


def test_a_hex_digest_prefix_is_hex_hashed() -> None:
    """The first hex characters of MD5(rest) make a HexHashed prefix (K4)."""
    rows = [hashlib.md5(i).hexdigest()[:4].encode() + i for i in (b"u1", b"u2", b"u3")]
    assert infer_key(rows).source == 'Key(HexHashed("id", nchars=4), Str("id", terminated=False))'


def test_a_phoenix_salt_byte_is_found_with_its_bucket_count() -> None:
    """Phoenix salted keys give their SALT_BUCKETS: the fewest buckets every salt fits (K3)."""
    key = phoenix_key(Str("id"), Int("n", size=8), salt_buckets=6)
    rows = [key.encode({"id": f"o{n}", "n": n - 10}) for n in range(30)]
    guess = infer_key(rows)
    assert guess.source == 'phoenix_key(Str("id"), Int("number", size=8), salt_buckets=6)'


_WORDS = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789"), min_size=1, max_size=8)

#: Known layouts: the component inspect must choose, and a strategy of key values.
KNOWN_LAYOUTS: dict[str, tuple[Key, str, Any]] = {
    "delimited": (
        Key(Str("user"), PaddedInt("day", width=8), sep=b"|"),
        'sep=b"|"',
        st.fixed_dictionaries(
            {"user": _WORDS.map(lambda w: "u" + w), "day": st.integers(10_000_000, 99_999_999)}
        ),
    ),
    "padded": (
        Key(PaddedInt("n", width=12)),
        "PaddedInt(",
        st.fixed_dictionaries({"n": st.integers(0, 10**12 - 1)}),
    ),
    "java": (
        Key(JavaInt("n")),
        'JavaInt("number", size=8)',
        st.fixed_dictionaries({"n": st.integers(-(1 << 63), -1)}),
    ),
    "phoenix": (
        phoenix_key(Str("id"), Int("n", size=8), salt_buckets=8),
        "salt_buckets=8",
        st.fixed_dictionaries({"id": _WORDS, "n": st.integers(-(1 << 40), 1 << 40)}),
    ),
}


@settings(max_examples=30)
@given(layout=st.sampled_from(sorted(KNOWN_LAYOUTS)), data=st.data())
def test_random_keys_in_a_known_layout_are_recognised(layout: str, data: st.DataObject) -> None:
    """Random keys of a known foreign layout get that layout back, and it round-trips them."""
    key, expected, values = KNOWN_LAYOUTS[layout]
    unique = st.lists(values, min_size=40, max_size=60, unique_by=lambda r: tuple(r.values()))
    rows = sorted({key.encode(record) for record in data.draw(unique)})
    if layout == "delimited" and len({r.split(b"|")[1] for r in rows}) < 2:
        return  # one day in the whole sample: a constant part, rightly not a field
    guess = infer_key(rows)
    assert expected in guess.source
    assert all(guess.key.encode(guess.key.decode(row)) == row for row in rows)


def test_an_ambiguous_key_is_noted() -> None:
    """Where a second kind of layout fits too, the guess says so."""
    guess = infer_key([(5).to_bytes(8, "big")])
    assert any(note.startswith("8-byte") for note in guess.notes)


# --- value inference (F10, F11) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "codec"),
    [
        ([Long().encode(5), Long().encode(-(1 << 40))], "Long()"),
        ([Float64().encode(3.5), Float64().encode(-0.25)], "Float64()"),
        ([Int32().encode(-3)], "Int32()"),
        ([DecimalCodec().encode(Decimal("12.340"))], "DecimalCodec()"),
        ([Bool().encode(True), Bool().encode(False)], "Bool()"),
        ([Utf8().encode("caf\u00e9")], "Utf8()"),
        ([Json().encode({"a": [1, None]})], "Json()"),
        ([MsgPack().encode({"a": 1}), MsgPack().encode({"b": [1, "x"]})], "MsgPack()"),
        ([MsgPack().encode([1, 2, 3, "x"]), MsgPack().encode([])], "MsgPack()"),
        ([b"\x01\x02\x03"], "Raw()"),
    ],
)
def test_each_value_layout_gets_its_codec(values: list[bytes], codec: str) -> None:
    """Java's Bytes.toBytes values, text, JSON and MessagePack get the codec that wrote them."""
    assert infer_value(values).codec == codec


def test_json_in_another_spacing_stays_text_with_a_note() -> None:
    """JSON that Json() would rewrite differently is kept as text, never re-spaced."""
    guess = infer_value([b'{"b": 1, "a": 2}'])
    assert guess.codec == "Utf8()"
    assert "JSON" in guess.note


def test_8_byte_values_are_longs_or_doubles_by_their_magnitude() -> None:
    """Bits beyond 2**53 read as a double; zeros read as both, noted uncertain."""
    assert infer_value([Long().encode(4_611_686_018_427_387_904)]).codec == "Float64()"  # 2.0
    zero = infer_value([Long().encode(0)])
    assert zero.codec == "Long()"
    assert "uncertain" in zero.note


# --- the whole model -----------------------------------------------------------------------


def _legacy(backend: MemoryBackend) -> None:
    rows: dict[bytes, dict[bytes, bytes]] = {}
    for n in range(30):
        cells = {
            b"d:total": Long().encode(n * 1000 - 7),
            b"d:name": f"item {n}".encode(),
            b"d:price": DecimalCodec().encode(Decimal(n) / 4),
            b"d:ok": Bool().encode(n % 2 == 0),
            b"tags:" + bytes([n, 0xFE]): b"x",
        }
        if n % 3:
            cells[b"d:ratio"] = Float64().encode(n / 3)
        rows[n.to_bytes(8, "big")] = cells
    _table(backend, "legacy_items", rows)


def test_the_generated_module_reproduces_every_sampled_row() -> None:
    """inspect's module imports, decodes every row and re-encodes it byte for byte."""
    backend = MemoryBackend()
    _legacy(backend)
    inspection = inspect_table(backend, "legacy_items", limit=100)
    assert inspection.verification.rows == 30
    assert inspection.verification.ok, inspection.verification.mismatches
    source = inspection.source
    assert 'Family("d", versions=3)' in source
    assert 'ratio: float | None = field("d:ratio", codec=Float64(), default=None)' in source
    assert 'map_field("tags", key_codec=Raw()' in source
    assert "class LegacyItems:" in source


def test_verification_reports_the_rows_a_model_does_not_reproduce() -> None:
    """A model that drops a column fails exactly the rows holding it, naming the column."""
    backend = MemoryBackend()
    _legacy(backend)
    sample = sample_table(backend, "legacy_items", limit=5)
    table = Table("legacy_items", [Family("d", versions=3), Family("tags")])

    @model(table, key=Key(Int("n", size=8, signed=False)))
    class Partial:
        n: int
        total: int = field("d:total", codec=Long())

    check = verify_rows(Partial, sample.rows)
    assert not check.ok
    assert len(check.mismatches) == 5
    assert "d:name" in check.mismatches[0].reason


def test_an_empty_table_cannot_be_inspected() -> None:
    """No rows, no guess: a SampleError naming the table."""
    backend = MemoryBackend()
    backend.create_table(Table("empty", [Family("d")]))
    with pytest.raises(SampleError, match="no rows"):
        inspect_table(backend, "empty")


def test_the_prefix_limits_the_sample() -> None:
    """--prefix reads only the rows starting with it."""
    backend = MemoryBackend()
    _table(backend, "mixed", {b"a\x00\x00": {b"d:x": b"1"}, b"b\x00\x00": {b"d:x": b"2"}})
    assert len(sample_table(backend, "mixed", prefix=b"b").rows) == 1


def test_names_and_families_render_as_python() -> None:
    """Table names become class names; family options print only where not default."""
    assert class_name_of("ns:order_item-2") == "OrderItem2"
    assert class_name_of("2fa") == "Row2fa"
    assert family_source(Family("d")) == 'Family("d")'
    assert family_source(Family("d", ttl=60, compression="GZ")) == (
        'Family("d", ttl=60, compression="GZ")'
    )


def test_the_module_loader_names_a_module_that_does_not_import() -> None:
    """A generated module that raises on import is one InputError, not a traceback."""
    from hmodel.errors import InputError

    with pytest.raises(InputError, match="does not import"):
        load_module("raise RuntimeError('x')")


CODECS: dict[str, Any] = {
    "long": (Long(), st.integers(-(1 << 63), (1 << 63) - 1)),
    "int": (Int32(), st.integers(-(1 << 31), (1 << 31) - 1)),
    "text": (Utf8(), st.text(st.characters(min_codepoint=0x20, exclude_categories=("Cs",)))),
    "bool": (Bool(), st.booleans()),
    "decimal": (DecimalCodec(), st.decimals(allow_nan=False, allow_infinity=False, places=3)),
}


@settings(max_examples=30)
@given(
    keys=st.sets(st.integers(0, (1 << 63) - 1), min_size=1, max_size=12),
    kinds=st.lists(st.sampled_from(sorted(CODECS)), min_size=1, max_size=4),
    data=st.data(),
)
def test_random_rows_in_a_known_layout_round_trip(
    keys: set[int], kinds: list[str], data: st.DataObject
) -> None:
    """Random rows (Java-long keys, columns of several codecs, gaps) always round-trip."""
    rows: dict[bytes, dict[bytes, bytes]] = {}
    for number in keys:
        cells = {}
        for index, kind in enumerate(kinds):
            codec, values = CODECS[kind]
            if data.draw(st.booleans()) or not cells:
                cells[f"d:c{index}".encode()] = codec.encode(data.draw(values))
        rows[number.to_bytes(8, "big")] = cells
    backend = MemoryBackend()
    _table(backend, "random_rows", rows)
    check = inspect_table(backend, "random_rows").verification
    assert check.ok, check.mismatches
    assert check.rows == len(keys)


# --- the command -----------------------------------------------------------------------------


@pytest.fixture
def served_table(fake_hbase_server: FakeHBaseServer) -> Any:
    """A happybase script's table on the fake Thrift1 server (text values, as scripts write)."""
    import happybase

    connection = happybase.Connection(fake_hbase_server.host, fake_hbase_server.port)
    connection.create_table("scripted", {"d": {"max_versions": 2}})
    table = connection.table("scripted")
    for n in range(12):
        table.put(f"{n:06d}".encode(), {b"d:n": str(n).encode(), b"d:note": b"seen"})
    try:
        yield fake_hbase_server
    finally:
        connection.delete_table("scripted", disable=True)
        connection.close()


def test_inspect_prints_a_module_and_exits_0(
    capsys: pytest.CaptureFixture[str], served_table: FakeHBaseServer
) -> None:
    """Over Thrift1: the module on stdout, the check on stderr, exit 0 when all round-trip."""
    address = f"{served_table.host}:{served_table.port}"
    assert main(["inspect", "scripted", "--hbase", address, "--sample", "50"]) == 0
    out, err = capsys.readouterr()
    assert "class Scripted:" in out
    assert 'Family("d", versions=2' in out
    assert "12 of 12 sampled rows" in err
    module = load_module(out)
    assert module.Scripted.__name__ == "Scripted"


def test_inspect_json_over_thrift2(
    capsys: pytest.CaptureFixture[str], served_table: FakeHBaseServer
) -> None:
    """Over Thrift2, --format json: one document with the counts and the module."""
    address = f"{served_table.host}:{served_table.thrift2_port}"
    assert main(["inspect", "scripted", "--thrift2", address, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["rows"], document["round_trip"], document["mismatches"]) == (12, 12, [])
    assert "class Scripted:" in document["module"]


def test_inspect_without_a_server_or_table_exits_2(
    capsys: pytest.CaptureFixture[str], fake_hbase_server: FakeHBaseServer
) -> None:
    """No server option, or a table that does not exist: exit 2 with one line."""
    assert main(["inspect", "t"]) == 2
    assert "--hbase" in capsys.readouterr().err
    address = f"{fake_hbase_server.host}:{fake_hbase_server.port}"
    assert main(["inspect", "no_such_table", "--hbase", address]) == 2
    assert capsys.readouterr().err.startswith("hmodel inspect: ")


def test_a_key_leading_with_an_instant_is_modelled_without_a_warning() -> None:
    """A table keyed by reverse timestamps gets a model that allows its monotonic lead (K8)."""
    import warnings

    backend = MemoryBackend()
    stamp = ReverseTimestamp("t")
    rows = {stamp.encode(MOMENT + dt.timedelta(seconds=n)): {b"d:x": b"1"} for n in range(10)}
    _table(backend, "recent_first", rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        inspection = inspect_table(backend, "recent_first")
    assert inspection.verification.ok
    assert "allow_monotonic_key=" in inspection.source


def test_inspect_writes_the_module_to_output(
    capsys: pytest.CaptureFixture[str], served_table: FakeHBaseServer, tmp_path: Any
) -> None:
    """--output FILE: the module in the file, nothing but the check on the streams."""
    target = tmp_path / "scripted_model.py"
    address = f"{served_table.host}:{served_table.port}"
    assert main(["inspect", "scripted", "--thrift", address, "-o", str(target)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "12 of 12" in err
    assert "class Scripted:" in target.read_text()


def test_inspect_refuses_both_protocols(capsys: pytest.CaptureFixture[str]) -> None:
    """--hbase and --hbase2 together: exit 2, naming both."""
    assert main(["inspect", "t", "--hbase", "h:1", "--hbase2", "h:2"]) == 2
    assert "--hbase2" in capsys.readouterr().err


def test_rows_beyond_the_sample_keep_their_unseen_qualifiers() -> None:
    """A qualifier the sample never showed lands in the catch-all and re-encodes exactly."""
    backend = MemoryBackend()
    rows = {f"k{n}".encode(): {b"d:a": b"x"} for n in range(5)}
    rows[b"z9"] = {b"d:a": b"y", b"d:later": b"\x00\x01"}
    _table(backend, "growing", rows)
    inspection = inspect_table(backend, "growing", limit=5)
    assert "later" not in inspection.source
    module = load_module(inspection.source)
    everything = sample_table(backend, "growing").rows
    assert verify_rows(module.Growing, everything).ok
