"""One value to cell bytes and back, with the model, field and column named in every error."""

from __future__ import annotations

from typing import Any

from hmodel.codecs import Codec
from hmodel.errors import CodecError, DecodeError, ValidationError
from hmodel.model import ModelInfo
from hmodel.model.annotation import check_value, describe

__all__ = ["decode_value", "encode_value"]


def encode_value(
    info: ModelInfo,
    field_name: str,
    codec: Codec[Any],
    value: Any,
    *,
    expected: Any = None,
    what: str = "value",
) -> bytes:
    """Return the cell bytes of ``value`` for field ``field_name`` of the model ``info``.

    Args:
        info: The model.
        field_name: The field, for the message.
        codec: The codec to encode with.
        value: The value.
        expected: The annotation ``value`` must be an instance of (checked when it is a
            plain class), or ``None`` to leave the check to the codec.
        what: What ``value`` is, for the message (``"value"``, ``"map key"``, ...).

    Raises:
        ValidationError: ``value`` is of the wrong type or the codec refuses it; the error
            names the model and the field and carries the value.
    """
    if expected is not None and not check_value(value, expected):
        raise ValidationError(
            f"model {info.name!r}: field {field_name!r} takes {describe(expected)}, "
            f"not {type(value).__name__}",
            table=info.table.full_name,
            field=field_name,
            value=value,
        )
    try:
        return codec.encode(value)
    except CodecError as error:
        raise ValidationError(
            f"model {info.name!r}: field {field_name!r} cannot store this {what}: {error.message}",
            table=info.table.full_name,
            field=field_name,
            value=value,
        ) from error


def decode_value(
    info: ModelInfo,
    field_name: str,
    codec: Codec[Any],
    data: bytes,
    *,
    row: bytes,
    column: bytes,
    what: str = "value",
) -> Any:
    """Return the value the codec reads from ``data``, the cell ``column`` of ``row``.

    Raises:
        DecodeError: The bytes are not a valid encoding (a corrupt cell, or a cell written
            with another codec); the error names the model, the field, the row and the
            column, and carries the bytes.
    """
    try:
        return codec.decode(data)
    except CodecError as error:
        raise DecodeError(
            f"model {info.name!r}: the {what} of field {field_name!r} does not decode: "
            f"{error.message}",
            table=info.table.full_name,
            row=row,
            column=column,
            field=field_name,
            value=data,
        ) from error
