"""Thrift2 write messages (mutateRow, putMultiple, deleteMultiple) written straight from cells."""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

__all__ = ["delete_multiple", "mutate_row", "put_multiple"]

_I32 = struct.Struct("!i").pack
_I64 = struct.Struct("!q").pack

#: A cell to put: ``(family, qualifier, value)``; a column to delete: ``(family, qualifier)``.
PutCell = tuple[bytes, bytes, bytes]
DeleteColumn = tuple[bytes, bytes]


def _head(method: bytes) -> bytes:
    """A call message's header: version 1 and CALL, the method's name, sequence id 0."""
    return _I32(-0x7FFEFFFF) + _I32(len(method)) + method + _I32(0)


_MUTATE_ROW, _PUT_MULTIPLE = _head(b"mutateRow"), _head(b"putMultiple")
_DELETE_MULTIPLE = _head(b"deleteMultiple")
#: Field headers: (type, id). Strings are type 11, structs 12, lists 15 (then the element
#: type and the size), maps 13 (then key type, value type and size), i64 10, i32 8.
_STRING_1, _STRING_2, _STRING_3 = b"\x0b\x00\x01", b"\x0b\x00\x02", b"\x0b\x00\x03"
_STRUCT_1, _STRUCT_2 = b"\x0c\x00\x01", b"\x0c\x00\x02"
_STRUCTS_2 = b"\x0f\x00\x02\x0c"
_I64_3, _I64_4 = b"\x0a\x00\x03", b"\x0a\x00\x04"
#: ``TPut.attributes`` (field 5, map of string to string).
_ATTRIBUTES_5 = b"\x0d\x00\x05\x0b\x0b"
#: ``TDelete.deleteType`` (field 4, i32) ``DELETE_COLUMNS`` (1): every version up to the stamp.
_DELETE_COLUMNS = b"\x08\x00\x04" + _I32(1)
_STOP = b"\x00"


def _tput(
    out: list[bytes],
    row: bytes,
    cells: Sequence[PutCell],
    timestamp: int,
    attributes: Mapping[bytes, bytes] | None,
) -> None:
    """Append a ``TPut``: the row, one ``TColumnValue`` per cell (all at ``timestamp``)."""
    add = out.append
    stamp = _I64_4 + _I64(timestamp) + _STOP  # each TColumnValue's timestamp, then its end
    add(_STRING_1)
    add(_I32(len(row)))
    add(row)
    add(_STRUCTS_2)
    add(_I32(len(cells)))
    for family, qualifier, value in cells:
        add(_STRING_1)
        add(_I32(len(family)))
        add(family)
        add(_STRING_2)
        add(_I32(len(qualifier)))
        add(qualifier)
        add(_STRING_3)
        add(_I32(len(value)))
        add(value)
        add(stamp)
    if attributes is not None:
        add(_ATTRIBUTES_5)
        add(_I32(len(attributes)))
        for key, value in attributes.items():
            add(_I32(len(key)))
            add(key)
            add(_I32(len(value)))
            add(value)
    add(_STOP)


def _tdelete(out: list[bytes], row: bytes, columns: Sequence[DeleteColumn], timestamp: int) -> None:
    """Append a ``TDelete`` (``DELETE_COLUMNS``) of ``columns``, each at ``timestamp``."""
    add = out.append
    stamp = _I64_3 + _I64(timestamp) + _STOP  # each TColumn's timestamp, then its end
    add(_STRING_1)
    add(_I32(len(row)))
    add(row)
    add(_STRUCTS_2)
    add(_I32(len(columns)))
    for family, qualifier in columns:
        add(_STRING_1)
        add(_I32(len(family)))
        add(family)
        add(_STRING_2)
        add(_I32(len(qualifier)))
        add(qualifier)
        add(stamp)
    add(_DELETE_COLUMNS)
    add(_STOP)


def mutate_row(  # noqa: PLR0917  # the call's parts, as the struct builder takes them
    table: bytes,
    row: bytes,
    puts: Sequence[PutCell],
    deletes: Sequence[DeleteColumn],
    timestamp: int,
    attributes: Mapping[bytes, bytes] | None,
) -> bytes:
    """The whole ``mutateRow(table, TRowMutations)`` message of one row's puts and deletes.

    Byte for byte what thriftpy2's binary protocol writes for ``TRowMutations(row,
    [TMutation(put=TPut(row, columnValues, attributes=attributes))] + [TMutation(
    deleteSingle=TDelete(row, columns, deleteType=DELETE_COLUMNS))])``, each cell and
    column at ``timestamp``; no put (no delete) when ``puts`` (``deletes``) is empty
    (``tests/backend/test_thrift2_request.py`` holds it to that). Every ``bytes`` is
    written as a 4-byte big-endian length and the bytes.
    """
    out = [_MUTATE_ROW, _STRING_1, _I32(len(table)), table, _STRUCT_2, _STRING_1]
    out += [_I32(len(row)), row, _STRUCTS_2, _I32(bool(puts) + bool(deletes))]
    if puts:
        out.append(_STRUCT_1)  # TMutation.put
        _tput(out, row, puts, timestamp, attributes)
        out.append(_STOP)
    if deletes:
        out.append(_STRUCT_2)  # TMutation.deleteSingle
        _tdelete(out, row, deletes, timestamp)
        out.append(_STOP)
    out.append(_STOP)  # TRowMutations
    out.append(_STOP)  # the arguments
    return b"".join(out)


def put_multiple(
    table: bytes,
    rows: Mapping[bytes, Sequence[PutCell]],
    timestamp: int,
    attributes: Mapping[bytes, bytes] | None,
) -> bytes:
    """The whole ``putMultiple(table, tputs)`` message: one ``TPut`` per row, in order.

    As :func:`mutate_row` writes each ``TPut``.
    """
    out = [_PUT_MULTIPLE, _STRING_1, _I32(len(table)), table, _STRUCTS_2, _I32(len(rows))]
    for row, cells in rows.items():
        _tput(out, row, cells, timestamp, attributes)
    out.append(_STOP)
    return b"".join(out)


def delete_multiple(
    table: bytes, rows: Mapping[bytes, Sequence[DeleteColumn]], timestamp: int
) -> bytes:
    """The whole ``deleteMultiple(table, tdeletes)`` message: one ``TDelete`` per row.

    As :func:`mutate_row` writes each ``TDelete``.
    """
    out = [_DELETE_MULTIPLE, _STRING_1, _I32(len(table)), table, _STRUCTS_2, _I32(len(rows))]
    for row, columns in rows.items():
        _tdelete(out, row, columns, timestamp)
    out.append(_STOP)
    return b"".join(out)
