"""Error messages name their context once, on every backend, and the CLI prints them clean."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Scan
from hmodel.cli import describe
from hmodel.errors import InputError, TableNotFoundError


def test_a_context_item_the_message_already_quotes_is_not_repeated() -> None:
    error = TableNotFoundError("no such table (table='bookmark')", table="bookmark", row=b"r")
    assert str(error) == "no such table (table='bookmark') (row=b'r')"
    assert str(TableNotFoundError("gone", table="t")) == "gone (table='t')"


def test_a_missing_table_names_it_once(backend: Backend) -> None:
    """Over Thrift the fake server's answer quotes its own error: still one suffix."""
    with pytest.raises(TableNotFoundError) as info:
        list(backend.scan("bookmark", Scan()))
    assert str(info.value).count("table='bookmark'") <= 1
    assert info.value.table == "bookmark"


def test_the_cli_prints_the_message_and_only_the_context_it_lacks() -> None:
    assert describe(InputError("cannot import module 'x': No module named 'x'", value="x")) == (
        "cannot import module 'x': No module named 'x'"
    )
    assert describe(TableNotFoundError("no such table", table="bookmark")) == (
        "no such table (table 'bookmark')"
    )
