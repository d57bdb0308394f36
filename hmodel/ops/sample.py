"""Key samples for ``hmodel spread``: a generator in the user's module, or a CSV/JSON-lines file."""

from __future__ import annotations

import csv
import datetime as dt
import inspect
import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from hmodel.errors import HModelError, SampleError
from hmodel.model import ModelInfo
from hmodel.ops.inventory import import_module
from hmodel.ops.spread import Spread, measure

__all__ = ["encode_sample", "read_file", "sample_function", "spread_of"]


def _convert(text: object, python_type: type, field: str) -> Any:
    """Turn a text value from a file into the key component's Python type."""
    if not isinstance(text, str) or python_type is str:
        return text
    try:
        if python_type is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return text.lower() in ("true", "1")
        if python_type is int:
            return int(text)
        if python_type is float:
            return float(text)
        if python_type is bytes:
            return bytes.fromhex(text[2:]) if text.startswith("0x") else text.encode()
        if python_type is dt.datetime:
            moment = dt.datetime.fromisoformat(text)
            return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)
        if python_type is dt.date:
            return dt.date.fromisoformat(text)
        if python_type is Decimal:
            return Decimal(text)
        if python_type is uuid.UUID:
            return uuid.UUID(text)
    except (ValueError, InvalidOperation) as exc:
        raise SampleError(
            f"cannot read {text!r} as {python_type.__name__}", field=field, value=text
        ) from exc
    return text


def read_file(path: Path) -> Iterator[dict[str, Any]]:
    """Yield the records of a ``.csv`` file (a header row names the fields) or JSON lines.

    JSON lines (``.jsonl``, ``.ndjson``, ``.json``) hold one object per line; blank lines
    are skipped.

    Raises:
        SampleError: The file cannot be read, has an unknown suffix, or a line is not a
            JSON object.
    """
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson", ".json"):
        raise SampleError("a key sample file is .csv or JSON lines (.jsonl)", value=str(path))
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            if suffix == ".csv":
                yield from csv.DictReader(handle)
                return
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SampleError(f"{path}:{number}: not JSON: {exc.msg}") from exc
                if not isinstance(record, dict):
                    raise SampleError(f"{path}:{number}: not a JSON object", value=record)
                yield record
    except OSError as exc:
        raise SampleError(f"cannot read {path}: {exc.strerror}", value=str(path)) from exc


def sample_function(spec: str) -> Callable[[type[Any]], Iterator[Any]]:
    """Return the generator ``module:function`` as a callable of the model class.

    The function takes no argument or one (the model class being spread) and yields
    mappings of key fields, or model instances.

    Raises:
        InputError: The module cannot be imported.
        SampleError: ``spec`` is not ``module:function`` or names no callable.
    """
    module_name, sep, name = spec.partition(":")
    if not sep or not module_name or not name:
        raise SampleError("a sample generator is given as module:function", value=spec)
    function = getattr(import_module(module_name), name, None)
    if not callable(function):
        raise SampleError(f"{module_name} has no function {name!r}", value=spec)
    try:
        takes_model = bool(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        takes_model = False

    def call(model: type[Any]) -> Iterator[Any]:
        return iter(function(model) if takes_model else function())

    return call


def encode_sample(info: ModelInfo, records: Iterable[Any], *, limit: int | None) -> list[bytes]:
    """Encode up to ``limit`` records with the model's key.

    Each record is a model instance or a mapping holding the key fields (other entries
    are ignored); text values from files are converted to each field's type.

    Raises:
        SampleError: A record misses a key field, or a value does not encode.
    """
    fields = info.key.fields
    types = {f.name: f.python_type for f in info.key_fields}
    keys = []
    for number, record in enumerate(records, start=1):
        if limit is not None and number > limit:
            break
        if isinstance(record, info.cls):
            values = {name: getattr(record, name) for name in fields}
        elif isinstance(record, Mapping):
            missing = [name for name in fields if name not in record]
            if missing:
                raise SampleError(
                    f"sample record {number} has no key field {missing[0]!r} of {info.name}",
                    field=missing[0],
                )
            values = {name: _convert(record[name], types[name], name) for name in fields}
        else:
            raise SampleError(
                f"sample record {number} is neither a mapping nor a {info.name}", value=record
            )
        try:
            keys.append(info.key.encode(values))
        except HModelError as exc:
            raise SampleError(
                f"sample record {number}: {exc.message}", field=exc.field, value=exc.value
            ) from exc
    return keys


def spread_of(info: ModelInfo, records: Iterable[Any], *, limit: int | None = None) -> Spread:
    """Encode ``records`` with the model's key and count them per region of its table.

    Raises:
        SampleError: A record misses a key field, or a value does not encode.
    """
    keys = encode_sample(info, records, limit=limit)
    return measure(info.name, info.table.full_name, keys, info.table.splits)
