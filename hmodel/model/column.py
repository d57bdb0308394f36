"""Parsing of the ``"family:qualifier"`` strings that place a field in a table (F2)."""

from __future__ import annotations

import attrs

from hmodel.errors import DeclarationError
from hmodel.schema.family import check_family_name

__all__ = ["ColumnName", "parse_column", "parse_family"]


@attrs.frozen
class ColumnName:
    """A column as HBase names it: a family and a qualifier of raw bytes.

    Attributes:
        family: The family name, e.g. ``"i"``.
        qualifier: The qualifier bytes, e.g. ``b"n"``; may be empty (the column ``b"i:"``).
    """

    family: str
    qualifier: bytes

    @property
    def column(self) -> bytes:
        """The column as a backend names it: ``b"family:qualifier"``."""
        return self.family.encode() + b":" + self.qualifier

    def __str__(self) -> str:
        return self.column.decode("utf-8", "backslashreplace")


def parse_family(text: object) -> str:
    """Return ``text`` if it is a valid family name, else raise.

    Raises:
        DeclarationError: ``text`` is not a string or not a valid family name (a colon in
            it usually means a column was given where a family was expected).
    """
    if not isinstance(text, str):
        raise DeclarationError("a family name is a string", value=text)
    check_family_name(text)  # the same rule as hmodel.schema.Family (SchemaError)
    return text


def parse_column(text: object) -> ColumnName:
    """Parse ``"i:n"`` into family ``"i"`` and qualifier ``b"n"`` (UTF-8).

    Only the first colon separates, as in HBase, so ``"i:a:b"`` is qualifier ``b"a:b"``.
    The qualifier may be empty (``"i:"``), as HBase allows.

    Raises:
        DeclarationError: ``text`` is not a string, has no colon, or its family part is
            not a valid family name.
    """
    if not isinstance(text, str):
        raise DeclarationError("a column is a 'family:qualifier' string", value=text)
    family, sep, qualifier = text.partition(":")
    if not sep:
        raise DeclarationError(
            "a column is 'family:qualifier', e.g. 'i:n'; this has no ':'", value=text
        )
    try:
        raw = qualifier.encode("utf-8")
    except UnicodeEncodeError:
        raise DeclarationError("a qualifier must have a UTF-8 form", value=text) from None
    return ColumnName(parse_family(family), raw)
