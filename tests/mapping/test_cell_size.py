"""F11: oversized cells are refused (or warned about) by the mapper, before any write."""

# No ``from __future__ import annotations``: the models are declared at module level but
# their annotations must evaluate plainly.

import warnings

import pytest

from hmodel import Family, Key, Repository, Str, Table, UnitOfWork, field, map_field, model
from hmodel.backend.base import Backend
from hmodel.errors import CellSizeWarning, CellTooLargeError
from hmodel.mapping import mapper_for

DOCS = Table("docs", [Family("d")])


@model(DOCS, key=Key(Str("id")), warn_cell_bytes=100)
class Doc:
    id: str
    title: str = field("d:t", max_bytes=16)
    body: bytes = field("d:b", default=b"")
    parts: dict[str, bytes] = map_field("d", prefix="p_", max_bytes=8, warn_bytes=4)


def test_the_mapper_refuses_a_cell_over_max_bytes_naming_it() -> None:
    with pytest.raises(CellTooLargeError) as caught:
        mapper_for(Doc).to_mutations(Doc(id="x", title="t" * 17), timestamp=1)
    error = caught.value
    assert (error.table, error.row, error.column, error.field) == (
        "docs",
        b"x\x00\x00",
        b"d:t",
        "title",
    )
    assert (error.value, error.limit) == (17, 16)
    assert "17 bytes" in str(error) and "F11" in str(error)


def test_a_cell_of_exactly_max_bytes_is_written() -> None:
    mutations = mapper_for(Doc).to_mutations(Doc(id="x", title="t" * 16), timestamp=1)
    assert any(m.column == b"d:t" for m in mutations)


def test_a_cell_over_warn_bytes_is_written_with_a_warning() -> None:
    with pytest.warns(CellSizeWarning, match="'body'.*101 bytes") as caught:
        mutations = mapper_for(Doc).to_mutations(
            Doc(id="x", title="t", body=b"b" * 101), timestamp=1
        )
    assert caught[0].filename == __file__  # points at the caller, not at hmodel
    assert any(m.column == b"d:b" for m in mutations)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        mapper_for(Doc).to_mutations(Doc(id="x", title="t", body=b"b" * 100), timestamp=1)


def test_map_entries_are_checked_one_cell_at_a_time() -> None:
    mapper = mapper_for(Doc)
    with pytest.raises(CellTooLargeError) as caught, pytest.warns(CellSizeWarning):
        mapper.map_put({"id": "x"}, "parts", {"a": b"12345678", "b": b"123456789"})
    assert caught.value.column == b"d:p_b"
    with pytest.warns(CellSizeWarning):
        mapper.map_put({"id": "x"}, "parts", {"a": b"12345"})


def test_no_write_path_sends_an_oversized_cell(backend: Backend) -> None:
    docs = Repository(Doc, backend)
    docs.create_table()
    docs.save(Doc(id="x", title="ok"))
    big = "t" * 17
    before = backend.round_trips
    with pytest.raises(CellTooLargeError):
        docs.save(Doc(id="y", title=big))
    with pytest.raises(CellTooLargeError):
        docs.save_many([Doc(id="z", title="ok"), Doc(id="y", title=big)])
    with pytest.raises(CellTooLargeError):
        docs.update({"id": "x"}, title=big)
    with pytest.raises(CellTooLargeError):
        docs.put_entries({"id": "x"}, "parts", {"a": b"123456789"})
    with pytest.raises(CellTooLargeError), UnitOfWork(backend) as uow:
        uow.save(Doc(id="w", title=big))
    assert backend.round_trips == before
    assert [d.id for d in docs.scan()] == ["x"]
    assert docs.get(id="x", required=True).title == "ok"
