"""Tables another program wrote: sparse rows, and a catch-all of undeclared cells (F2, F6)."""

from __future__ import annotations

import pytest

from hmodel import Family, Key, Str, Table, counter, field, map_field, model
from hmodel.backend.base import Backend, Cell, Delete, Put, RowResult
from hmodel.clock import ManualClock
from hmodel.errors import DeclarationError, DecodeError, ValidationError
from hmodel.keys import PaddedInt
from hmodel.mapping import mapper_for
from hmodel.model import extra_field, model_info
from hmodel.repository import Repository

LEGACY = Table("legacy_user", [Family("d"), Family("m")])


@model(LEGACY, key=Key(Str("id", terminated=False)), missing="none")
class Sparse:
    id: str
    name: str = field("d:name")
    city: str = field("d:city", default="?")


@model(LEGACY, key=Key(Str("id", terminated=False)))
class Strict:
    id: str
    name: str = field("d:name")


@model(LEGACY, key=Key(Str("id", terminated=False)))
class Kept:
    id: str
    name: str | None = field("d:name", default=None)
    views: int = counter("d:views")
    tags: dict[str, str] = map_field("d", prefix="t_")
    rest: dict[bytes, bytes] = extra_field("d")


@model(LEGACY, key=Key(Str("id", terminated=False)))
class Everything:
    id: str
    name: str | None = field("d:name", default=None)
    rest: dict[bytes, bytes] = extra_field()


def row(**cells: bytes) -> RowResult:
    return RowResult(b"u1", {c.replace("_", ":", 1).encode(): Cell(v, 1) for c, v in cells.items()})


def test_a_missing_required_field_is_still_an_error_by_default() -> None:
    """Without missing=, a row lacking a required field raises DecodeError naming both."""
    with pytest.raises(DecodeError) as caught:
        mapper_for(Strict).from_row(row(d_other=b"x"))
    assert (caught.value.row, caught.value.field) == (b"u1", "name")


def test_a_sparse_model_reads_missing_fields_as_none_or_their_default() -> None:
    """missing="none": the absent required field is None, one with a default its default."""
    read = mapper_for(Sparse).from_row(row(d_other=b"x"))
    assert (read.id, read.name, read.city) == ("u1", None, "?")
    with pytest.raises(ValidationError, match="required"):
        mapper_for(Sparse).to_mutations(read, timestamp=5)
    with pytest.raises(DeclarationError, match="missing"):
        model(LEGACY, key=Key(Str("id")), missing="skip")(
            type("Bad", (), {"__annotations__": {"id": str}})
        )


def test_the_catch_all_holds_exactly_the_undeclared_qualifiers() -> None:
    """Declared columns, counters and map entries stay theirs; every other qualifier is kept."""
    found = mapper_for(Kept).from_row(
        row(
            d_name=b"ann",
            d_views=(3).to_bytes(8, "big"),
            d_t_a=b"x",
            d_legacy=b"\x00\xff",
            m_q=b"z",
        )
    )
    assert found.rest == {b"legacy": b"\x00\xff"}
    assert (found.name, found.views, found.tags) == ("ann", 3, {"a": "x"})


def test_a_save_writes_the_catch_all_back_byte_for_byte_and_never_a_declared_column() -> None:
    """The entries are put unchanged, no family delete is sent, and a declared column is refused."""
    kept = Kept(id="u1", name="ann", rest={b"legacy": b"\x00\xff", b"n2": b""})
    mutations = mapper_for(Kept).to_mutations(kept, timestamp=7)
    puts = {m.column: m.value for m in mutations if isinstance(m, Put)}
    assert puts == {b"d:name": b"ann", b"d:legacy": b"\x00\xff", b"d:n2": b""}
    assert not [m for m in mutations if isinstance(m, Delete) and m.column == b"d"]
    for claimed in (b"name", b"views", b"t_a"):
        with pytest.raises(ValidationError, match="cannot hold"):
            mapper_for(Kept).to_mutations(Kept(id="u1", rest={claimed: b"x"}), timestamp=7)


def test_a_catch_all_of_every_family_is_keyed_by_whole_columns() -> None:
    """extra_field() keeps b"f:q" of every family, and reads all the families."""
    found = mapper_for(Everything).from_row(row(d_name=b"ann", d_x=b"1", m_y=b"2"))
    assert found.rest == {b"d:x": b"1", b"m:y": b"2"}
    assert mapper_for(Everything).columns() == [b"d", b"m"]
    with pytest.raises(ValidationError, match="cannot hold"):
        mapper_for(Everything).to_mutations(Everything(id="u1", rest={b"z:q": b""}), timestamp=3)
    assert model_info(Everything).fields["rest"].read_families == (b"d", b"m")


def test_a_catch_all_is_declared_once_as_bytes_to_bytes() -> None:
    """dict[str, str] or two catch-alls are declaration errors naming the field."""
    with pytest.raises(DeclarationError, match=r"dict\[bytes, bytes\]"):

        @model(LEGACY, key=Key(Str("id")))
        class Wrong:
            id: str
            rest: dict[str, str] = extra_field("d")

    with pytest.raises(DeclarationError, match="at most one"):

        @model(LEGACY, key=Key(Str("id")))
        class Twice:
            id: str
            a: dict[bytes, bytes] = extra_field("d")
            b: dict[bytes, bytes] = extra_field("m")


FOREIGN = Table("foreign_rows", [Family("d")])


@model(FOREIGN, key=Key(Str("user"), PaddedInt("n", width=4), sep=b"|"), missing="none")
class Foreign:
    user: str
    n: int
    name: str = field("d:name")
    rest: dict[bytes, bytes] = extra_field("d")


def test_a_scan_of_rows_another_program_wrote_loses_nothing(backend: Backend) -> None:
    """Rows written as raw cells scan back whole, and a save rewrites them byte for byte."""
    repo = Repository(Foreign, backend, clock=ManualClock())
    repo.create_table()
    raw = {
        b"ann|0001": {b"d:name": b"Ann", b"d:age": b"41"},
        b"bob|0002": {b"d:x": b"\x00\x01"},
    }
    table = FOREIGN.full_name
    backend.mutate(table, [Put(r, c, v, 5) for r, cells in raw.items() for c, v in cells.items()])
    found = {(f.user, f.n): f for f in repo.scan()}
    assert found[("ann", 1)].rest == {b"age": b"41"}
    assert found[("bob", 2)].name is None and found[("bob", 2)].rest == {b"x": b"\x00\x01"}
    found[("ann", 1)].name = "Ann"
    repo.save(found[("ann", 1)])
    (stored,) = backend.get(table, [b"ann|0001"])
    assert {c: cell.value for c, cell in stored.cells.items()} == {
        b"d:name": b"Ann",
        b"d:age": b"41",
    }
