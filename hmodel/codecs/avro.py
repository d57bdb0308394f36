"""Avro record cell codecs for object BLOBs (R4), with schema evolution."""

from __future__ import annotations

import copy
import io
from collections.abc import Mapping
from typing import Any, cast

from hmodel.codecs.codec import Codec
from hmodel.errors import DeclarationError

__all__ = ["Avro", "VersionedAvro"]

Schema = Mapping[str, Any]


def _parse(schema: object, role: str) -> dict[str, Any]:
    """Return ``schema`` parsed by fastavro, refusing anything but a valid record schema."""
    try:
        import fastavro
        from fastavro.schema import SchemaParseException
    except ImportError as error:  # pragma: no cover - fastavro is a dependency of hmodel
        raise DeclarationError(
            "the Avro codec needs the 'fastavro' package: pip install fastavro"
        ) from error
    if not isinstance(schema, Mapping) or schema.get("type") != "record":
        raise DeclarationError(f"an Avro {role} must be a record schema", value=schema)
    try:
        parsed = cast("dict[str, Any]", fastavro.parse_schema(copy.deepcopy(dict(schema))))
    except (SchemaParseException, ValueError, TypeError, KeyError) as error:
        raise DeclarationError(f"invalid Avro {role}: {error}", value=schema) from None
    return parsed


class _AvroRecord(Codec[dict[str, Any]]):
    """Shared strict writing and checked reading of schemaless Avro record bodies."""

    python_type = dict

    def _write(self, writer: dict[str, Any], value: object) -> bytes:
        """Return the schemaless Avro body of the record ``value`` under the ``writer`` schema."""
        import fastavro
        from fastavro.validation import ValidationError

        if not isinstance(value, dict):
            raise self._wrong_type(value)
        buffer = io.BytesIO()
        try:
            # strict: every schema field present, no extra keys (they would be dropped).
            fastavro.schemaless_writer(buffer, writer, value, strict=True)
            # The writer coerces some mismatches (1.5 for a long, True for an int): refuse them.
            fastavro.validation.validate(value, writer, raise_errors=True)
        except ValidationError as error:
            problems = "; ".join(str(problem) for problem in error.errors)
            raise self._encode_error(problems, value) from None
        except (ValueError, TypeError, OverflowError, KeyError, AttributeError) as error:
            raise self._encode_error(str(error), value) from None
        return buffer.getvalue()

    def _read(
        self, body: bytes, writer: dict[str, Any], reader: dict[str, Any] | None
    ) -> dict[str, Any]:
        """Return the record in the Avro ``body``, resolved from ``writer`` to ``reader``."""
        import fastavro
        from fastavro.read import SchemaResolutionError

        buffer = io.BytesIO(body)
        try:
            record = cast("dict[str, Any]", fastavro.schemaless_reader(buffer, writer, reader))
        except SchemaResolutionError as error:
            raise self._decode_error(
                f"reader schema cannot read the writer's: {error}", body
            ) from None
        except (EOFError, ValueError, IndexError, KeyError, TypeError, OverflowError) as error:
            raise self._decode_error(str(error) or type(error).__name__, body) from None
        if buffer.tell() != len(body):
            unread = len(body) - buffer.tell()
            raise self._decode_error(f"{unread} bytes left after the record", body)
        return record


class Avro(_AvroRecord):
    """A record (a ``dict``) as the schemaless Avro binary encoding of an Avro record schema.

    This is the object-BLOB layout of R4: a whole object graph (an order with its shipping
    locations and line items) in one cell, in the compact encoding Avro defines, without a
    header. The bytes do *not* say which schema wrote them, so the schema that wrote a
    cell must be known to read it: pass it as ``schema``.

    Schema evolution follows Avro's resolution rules. To read cells written with an older
    schema as the newer shape, pass the old schema as ``schema`` and the new one as
    ``reader_schema``: a field the reader adds must have a ``default``; a field the reader
    drops is skipped. Such a codec also *writes* with ``schema``, so it suits reading an
    old table; for a table where old and new rows live side by side use
    :class:`VersionedAvro`, which records the writer version in each cell.

    Encoding is strict: every field of the schema must be present, extra keys and values
    of the wrong Avro type (``1.5`` or ``True`` for a ``long``) are refused, not dropped or
    coerced. Decoding refuses truncated bytes, trailing bytes and schemas that do not
    resolve. fastavro is imported when the codec is created.

    Args:
        schema: The writer schema: an Avro record schema as a ``dict``.
        reader_schema: The schema to read as, a compatible evolution of ``schema``;
            ``None`` reads as ``schema``.

    Raises:
        DeclarationError: A schema is not a valid Avro record schema, or fastavro is missing.
    """

    name = "avro"

    def __init__(self, schema: Schema, *, reader_schema: Schema | None = None) -> None:
        self._writer = _parse(schema, "schema")
        self._reader = None if reader_schema is None else _parse(reader_schema, "reader schema")
        self.schema: Schema = copy.deepcopy(dict(schema))
        self.reader_schema: Schema | None = (
            None if reader_schema is None else copy.deepcopy(dict(reader_schema))
        )

    def _options(self) -> dict[str, Any]:
        return {"schema": self.schema, "reader_schema": self.reader_schema}

    def encode(self, value: dict[str, Any]) -> bytes:
        """Return the schemaless Avro encoding of the record ``value`` under ``schema``.

        Raises:
            EncodeError: ``value`` is not a ``dict``, misses a field, has an extra key, or
                holds a value of the wrong Avro type.
        """
        return self._write(self._writer, value)

    def decode(self, data: bytes) -> dict[str, Any]:
        """Return the record in ``data``, written with ``schema``, read as ``reader_schema``.

        Raises:
            DecodeError: ``data`` is truncated, corrupt, has bytes after the record, or the
                reader schema cannot resolve the writer schema.
        """
        return self._read(self._bytes(data), self._writer, self._reader)


class VersionedAvro(_AvroRecord):
    """An Avro record prefixed with one byte naming the schema version that wrote it.

    The layout is ``[version: 1 byte, 0..255][schemaless Avro body]``. ``encode`` always
    writes with the highest version; ``decode`` reads the version byte, decodes the body
    with that version's schema and resolves it to the highest version's shape. So after a
    new version is added, rows written before stay readable and come back in the new
    shape (R4), while new rows are written in it. Each version must be a compatible
    evolution of the earlier ones (fields added with a ``default``, fields removed) and
    versions must never be renumbered or reused.

    Args:
        schemas: Avro record schemas by version number (0 to 255, at least one).

    Raises:
        DeclarationError: No schema, a version outside 0..255, or an invalid schema.
    """

    name = "versioned-avro"

    def __init__(self, schemas: Mapping[int, Schema]) -> None:
        if not schemas:
            raise DeclarationError("VersionedAvro needs at least one schema version")
        for version in schemas:
            if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version <= 255:
                raise DeclarationError("a schema version must be an int in 0..255", value=version)
        self.schemas: dict[int, Schema] = {
            version: copy.deepcopy(dict(schemas[version])) for version in sorted(schemas)
        }
        self._parsed = {
            version: _parse(schema, f"schema version {version}")
            for version, schema in self.schemas.items()
        }
        self.version = max(self.schemas)

    def _options(self) -> dict[str, Any]:
        return {"schemas": self.schemas}

    def encode(self, value: dict[str, Any]) -> bytes:
        """Return the current version byte followed by the Avro body of ``value``.

        Raises:
            EncodeError: As :meth:`Avro.encode`, under the highest version's schema.
        """
        return bytes([self.version]) + self._write(self._parsed[self.version], value)

    def decode(self, data: bytes) -> dict[str, Any]:
        """Return the record in ``data``, read with its version's schema as the newest shape.

        Raises:
            DecodeError: ``data`` is empty, names an unknown version, or its body does not
                decode (see :meth:`Avro.decode`).
        """
        raw = self._bytes(data)
        if not raw:
            raise self._decode_error("empty; expected a version byte", raw)
        writer = self._parsed.get(raw[0])
        if writer is None:
            raise self._decode_error(f"unknown schema version {raw[0]}", raw)
        reader = None if raw[0] == self.version else self._parsed[self.version]
        return self._read(raw[1:], writer, reader)
