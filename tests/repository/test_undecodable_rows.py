"""Rows that will not decode: reads fail loudly by default, or skip and report (issue 8)."""

from __future__ import annotations

from typing import Any

import pytest

from hmodel import Family, Key, Str, Table, field, map_field, model
from hmodel.backend.base import Backend, Put
from hmodel.errors import DecodeError, QueryError
from hmodel.repository import Repository

drive = Table("ud_dir", [Family("i"), Family("c")])


@model(drive, key=Key(Str("path")))
class Directory:
    path: str
    owner: str = field("i:o")
    size: int = field("i:s", default=0)
    children: dict[str, str] = map_field("c")


@pytest.fixture
def repo(backend: Backend) -> Repository[Directory]:
    repository = Repository(Directory, backend)
    repository.create_table()
    repository.save(Directory(path="/a", owner="ann"))
    repository.save(Directory(path="/c", owner="cat"))
    # A map entry put on a row that was never saved: no owner (the common way it arises).
    repository.put_entries({"path": "/b"}, "children", {"x": "1"})
    # A corrupt cell: not an 8-byte long.
    row = repository.mapper.key_of(path="/d")
    backend.mutate("ud_dir", [Put(row, b"i:o", b"dan"), Put(row, b"i:s", b"oops")])
    return repository


def test_a_scan_fails_on_a_row_without_its_required_fields(repo: Repository[Directory]) -> None:
    """The default is loud, and the message says what is missing and how it happens."""
    with pytest.raises(DecodeError) as info:
        list(repo.scan())
    message = str(info.value)
    assert "owner" in message and "never saved or was deleted" in message
    assert info.value.row == repo.mapper.key_of(path="/b")


def test_a_scan_can_skip_and_report_bad_rows(repo: Repository[Directory]) -> None:
    """on_error=function: good rows come back, each bad one is reported once."""
    reported: list[DecodeError] = []
    found = [d.path for d in repo.scan(on_error=reported.append)]
    assert found == ["/a", "/c"]
    assert [e.row for e in reported] == [repo.mapper.key_of(path=p) for p in ("/b", "/d")]
    assert reported[1].column == b"i:s"
    assert [d.path for d in repo.scan(on_error="skip")] == ["/a", "/c"]


def test_pages_list_the_rows_they_skipped(repo: Repository[Directory]) -> None:
    """A page's errors name the skipped rows; the token still moves past them."""
    pages = list(repo.pages(1, on_error="skip"))
    paths = [d.path for p in pages for d in p.items]
    errors = [e.row for p in pages for e in p.errors]
    assert paths == ["/a", "/c"]
    assert errors == [repo.mapper.key_of(path=p) for p in ("/b", "/d")]


def test_get_many_can_read_bad_rows_as_none(repo: Repository[Directory]) -> None:
    """Aligned with the keys: a bad row is None, and reported."""
    keys: list[dict[str, Any]] = [{"path": p} for p in ("/a", "/b", "/z")]
    with pytest.raises(DecodeError):
        repo.get_many(keys)
    reported: list[DecodeError] = []
    found = repo.get_many(keys, on_error=reported.append)
    assert [d.path if d else None for d in found] == ["/a", None, None]
    assert len(reported) == 1


def test_an_unknown_on_error_is_a_query_error(repo: Repository[Directory]) -> None:
    """Only "raise", "skip" or a function."""
    with pytest.raises(QueryError):
        repo.scan(on_error="ignore")  # type: ignore[arg-type]
    with pytest.raises(QueryError):
        repo.page(2, on_error=3)  # type: ignore[arg-type]


def test_a_row_whose_key_is_no_declared_models_is_an_error_not_skipped(
    repo: Repository[Directory], backend: Backend
) -> None:
    """R1 skips other declared record types only; a corrupt key is reported."""
    backend.mutate("ud_dir", [Put(b"/e-without-terminator", b"i:o", b"eve")])
    reported: list[DecodeError] = []
    found = [d.path for d in repo.scan(on_error=reported.append)]
    assert found == ["/a", "/c"]
    assert b"/e-without-terminator" in [e.row for e in reported]
