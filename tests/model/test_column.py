"""Parsing the ``"family:qualifier"`` strings that place a field (F2)."""

from __future__ import annotations

import pytest

from hmodel.errors import DeclarationError
from hmodel.model.column import ColumnName, parse_column, parse_family


def test_a_column_splits_at_the_first_colon_into_family_and_qualifier_bytes() -> None:
    assert parse_column("i:n") == ColumnName("i", b"n")
    assert parse_column("i:a:b") == ColumnName("i", b"a:b")
    assert parse_column("i:名") == ColumnName("i", "名".encode())


def test_the_empty_qualifier_is_a_column_as_in_hbase() -> None:
    assert parse_column("i:").column == b"i:"


def test_a_column_renders_as_the_bytes_a_backend_uses() -> None:
    assert parse_column("info:nick").column == b"info:nick"
    assert str(parse_column("i:n")) == "i:n"


@pytest.mark.parametrize("text", ["in", ":n", ".i:n", "a/b:n", b"i:n", None, "i:\ud800"])
def test_a_malformed_column_is_refused(text: object) -> None:
    with pytest.raises(DeclarationError):
        parse_column(text)


@pytest.mark.parametrize("family", ["-i", "i j", "é"])
def test_column_families_follow_hbases_family_name_rule(family: str) -> None:
    # The same rule as hmodel.schema.Family, which HBase's own isLegalFamilyName sets.
    assert parse_column(f"{family}:n").family == family


@pytest.mark.parametrize("text", ["f:x", "", ".f", None])
def test_a_malformed_family_is_refused(text: object) -> None:
    with pytest.raises(DeclarationError, match="family name"):
        parse_family(text)
