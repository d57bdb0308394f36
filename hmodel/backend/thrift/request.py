"""Thrift1 ``mutateRowsTs`` messages written straight from cells (binary protocol), no structs."""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

__all__ = ["mutate_rows_ts"]

_I32 = struct.Struct("!i").pack
_I64 = struct.Struct("!q").pack

#: The message header of a ``mutateRowsTs`` call: version 1 and CALL (0x80010001), the
#: name's length and bytes, sequence id 0 (the wire's calls all carry 0).
_HEAD = _I32(-0x7FFEFFFF) + _I32(len(b"mutateRowsTs")) + b"mutateRowsTs" + _I32(0)
#: ``tableName``: field 1, type string (11).
_TABLE = b"\x0b\x00\x01"
#: ``rowBatches``: field 2, a list (15) of structs (12), then its size.
_ROW_BATCHES = b"\x0f\x00\x02\x0c"
#: A ``BatchMutation``'s ``row``: field 1, string; its ``mutations``: field 2, list of structs.
_ROW, _MUTATIONS = b"\x0b\x00\x01", b"\x0f\x00\x02\x0c"
#: A ``Mutation``: ``isDelete`` (field 1, bool) false or true, then ``column``'s header
#: (field 2, string); a put's ``value`` header (field 3, string); and the end of every
#: mutation: ``writeToWAL`` (field 4, bool) true, then the struct's stop byte.
_PUT, _DELETE = b"\x02\x00\x01\x00\x0b\x00\x02", b"\x02\x00\x01\x01\x0b\x00\x02"
_VALUE, _END = b"\x0b\x00\x03", b"\x02\x00\x04\x01\x00"
#: ``timestamp``: field 3, i64; ``attributes``: field 4, a map (13) of string to string.
_TIMESTAMP, _ATTRIBUTES = b"\x0a\x00\x03", b"\x0d\x00\x04\x0b\x0b"
_STOP = b"\x00"


def mutate_rows_ts(
    table: bytes,
    rows: Mapping[bytes, Sequence[tuple[bytes, bytes | None]]],
    timestamp: int,
    attributes: Mapping[bytes, bytes],
) -> bytes:
    """The whole ``mutateRowsTs(table, rowBatches, timestamp, attributes)`` call message.

    Byte for byte what thriftpy2's binary protocol writes for the same call of
    ``BatchMutation`` structs, one per row in ``rows``' order, each holding one
    ``Mutation`` per ``(column, value)`` pair in order: ``value`` ``None`` is a delete of
    the column (``isDelete`` true, no value), else a put; ``writeToWAL`` true, the IDL's
    default (``tests/backend/test_thrift_request.py`` holds it to that). Every
    ``bytes`` (``table``: the server's name of the table) is written as a 4-byte
    big-endian length and the bytes.

    Raises:
        struct.error: ``timestamp`` outside the signed 64-bit range.
    """
    out = [_HEAD, _TABLE, _I32(len(table)), table, _ROW_BATCHES, _I32(len(rows))]
    add = out.append
    for row, cells in rows.items():
        add(_ROW)
        add(_I32(len(row)))
        add(row)
        add(_MUTATIONS)
        add(_I32(len(cells)))
        for column, value in cells:
            if value is None:
                add(_DELETE)
                add(_I32(len(column)))
                add(column)
            else:
                add(_PUT)
                add(_I32(len(column)))
                add(column)
                add(_VALUE)
                add(_I32(len(value)))
                add(value)
            add(_END)
        add(_STOP)
    add(_TIMESTAMP)
    add(_I64(timestamp))
    add(_ATTRIBUTES)
    add(_I32(len(attributes)))
    for key, value in attributes.items():
        add(_I32(len(key)))
        add(key)
        add(_I32(len(value)))
        add(value)
    add(_STOP)
    return b"".join(out)
