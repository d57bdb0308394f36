"""The advisor's numbers and silences: ``[tool.hmodel.check]`` in pyproject.toml, or options."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from hmodel.errors import CheckConfigError
from hmodel.ops.finding import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "IGNORE_ATTRIBUTE",
    "CheckConfig",
    "TableVolume",
    "ignore_codes",
    "load_config",
    "parse_size",
    "volume_of",
]

#: The model class attribute that silences codes beside the declaration:
#: ``__hmodel_ignore__ = {"HM-K8": "why this key may lead with a timestamp"}``.
IGNORE_ATTRIBUTE = "__hmodel_ignore__"

_GIB = 1024**3
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
    "pb": 1000**5,
    "pib": 1024**5,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*\Z")
_CODE = re.compile(r"^HM-[KFRIS]\d+\Z")


def parse_size(value: object, label: str) -> int:
    """Return a byte count from an integer or a string such as ``"32GiB"`` or ``"100 KB"``.

    Units are B, KB/MB/GB/TB/PB (decimal: powers of 1000) and KiB/MiB/GiB/TiB/PiB
    (binary: powers of 1024), in any case, with or without a space; no unit means bytes.
    ``"2 TB"`` is 2,000,000,000,000 bytes, ``"2TiB"`` 2,199,023,255,552.

    >>> parse_size("128MiB", "flush-size")
    134217728

    Raises:
        CheckConfigError: Not a non-negative number with a known unit; the message starts
            with ``label`` (which names the setting and table) and quotes the bad text.
    """
    if isinstance(value, bool):
        raise CheckConfigError(f"{label} must be a size in bytes", value=value)
    if isinstance(value, int):
        number, unit = float(value), ""
    elif isinstance(value, float):
        number, unit = value, ""
    elif isinstance(value, str) and (match := _SIZE.match(value)):
        number, unit = float(match.group(1)), match.group(2).lower()
    else:
        raise CheckConfigError(
            f"{label} must be a size such as 2TB, 32GiB or 100KB, not {value!r}", value=value
        )
    if unit not in _UNITS or number < 0:
        raise CheckConfigError(
            f"{label}: {value!r} has an unknown unit (B, KB, MB, GB, TB, PB decimal; "
            "KiB, MiB, GiB, TiB, PiB binary)",
            value=value,
        )
    return int(number * _UNITS[unit])


def _count(value: object, label: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise CheckConfigError(f"{label} must be an integer >= {minimum}", value=value)
    return value


def _fraction(value: object, label: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise CheckConfigError(f"{label} must be a number in (0, 1]", value=value)
    return float(value)


def _severity(value: object, label: str) -> Severity | None:
    if value == "never":
        return None
    try:
        return Severity(value)
    except ValueError:
        raise CheckConfigError(
            f"{label} must be one of info, warning, error, never", value=value
        ) from None


@attrs.frozen
class TableVolume:
    """What a table is expected to hold (S1, S3, F11).

    Attributes:
        rows: Expected rows, or ``None`` when not declared.
        row_bytes: Average bytes per row (key, families, qualifiers and values).
        cell_bytes: The largest cell expected, or ``None`` when not declared (F11).
        volume: The expected data in bytes (``volume = "2 TB"``), or ``None``; when
            given it wins over ``rows * row_bytes``.
    """

    rows: int | None = None
    row_bytes: int = 1024
    cell_bytes: int | None = None
    volume: int | None = None

    @property
    def data_bytes(self) -> int | None:
        """``volume`` when given, else ``rows * row_bytes``, else ``None``."""
        if self.volume is not None:
            return self.volume
        return None if self.rows is None else self.rows * self.row_bytes


@attrs.frozen
class CheckConfig:
    """Everything the advisor needs beyond the declarations.

    Attributes:
        volumes: Expected volume per table full name.
        sample_rows: Rowkeys read from a live table, at most, to derive split points for a
            key layout that does not tell them (default 100,000).
        region_servers: Region servers in the cluster (S2), or ``None``.
        heap: Heap of one region server in bytes (S2), or ``None``.
        memstore_fraction: ``hbase.regionserver.global.memstore.size`` (default 0.4).
        flush_size: ``hbase.hregion.memstore.flush.size`` for tables without
            ``MEMSTORE_FLUSHSIZE`` (default 128 MiB).
        region_size: The target region size for S1/S3 (default 10 GiB).
        max_regions: Regions per table above which S1 warns (default 100).
        monotonic_fields: Key field names known to grow monotonically (K8), besides
            timestamps.
        key_spaces: Per model name, what its leading key bytes look like when the key
            cannot say: ``"hex"`` (hex digits) or ``"uniform"`` (random bytes) (K11).
        ignore: Per subject (``"model:Order"``, ``"table:order"``, ``"cluster"``), the
            codes silenced there, each with its reason.
        fail_on: The lowest severity that makes the exit status 1, or ``None`` (never).
    """

    volumes: Mapping[str, TableVolume] = attrs.Factory(dict)
    region_servers: int | None = None
    heap: int | None = None
    memstore_fraction: float = 0.4
    flush_size: int = 128 * 1024**2
    region_size: int = 10 * _GIB
    max_regions: int = 100
    sample_rows: int = 100_000
    monotonic_fields: frozenset[str] = frozenset()
    key_spaces: Mapping[str, str] = attrs.Factory(dict)
    ignore: Mapping[str, Mapping[str, str]] = attrs.Factory(dict)
    fail_on: Severity | None = Severity.WARNING

    def volume(self, table: str) -> TableVolume:
        """Return the declared volume of ``table``, or an empty one."""
        return self.volumes.get(table, TableVolume())

    def ignored(self, subject: str, code: str) -> str | None:
        """Return the reason ``code`` is silenced for ``subject``, or ``None``."""
        return self.ignore.get(subject, {}).get(code)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> CheckConfig:
        """Build the settings from a ``[tool.hmodel.check]`` table (keys use dashes).

        Raises:
            CheckConfigError: An unknown key, a bad number, an unknown code, a severity
                that does not exist, or an ignore without a reason.
        """
        known = {
            "tables",
            "volume",
            "region-servers",
            "heap",
            "memstore-fraction",
            "flush-size",
            "region-size",
            "max-regions",
            "sample-rows",
            "monotonic-fields",
            "key-spaces",
            "ignore",
            "fail-on",
        }
        unknown = sorted(set(data) - known)
        if unknown:
            raise CheckConfigError(
                f"unknown [tool.hmodel.check] setting {unknown[0]!r}", value=sorted(known)
            )
        kwargs: dict[str, Any] = {
            "volumes": _volumes(data.get("tables", {}), data.get("volume", {}))
        }
        if "region-servers" in data:
            kwargs["region_servers"] = _count(data["region-servers"], "region-servers", 1)
        if "heap" in data:
            kwargs["heap"] = parse_size(data["heap"], "heap")
        if "memstore-fraction" in data:
            kwargs["memstore_fraction"] = _fraction(data["memstore-fraction"], "memstore-fraction")
        for key in ("flush-size", "region-size"):
            if key in data:
                kwargs[key.replace("-", "_")] = max(1, parse_size(data[key], key))
        if "max-regions" in data:
            kwargs["max_regions"] = _count(data["max-regions"], "max-regions", 1)
        if "sample-rows" in data:
            kwargs["sample_rows"] = _count(data["sample-rows"], "sample-rows", 1)
        fields = data.get("monotonic-fields", [])
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise CheckConfigError("monotonic-fields must be a list of field names", value=fields)
        kwargs["monotonic_fields"] = frozenset(fields)
        kwargs["key_spaces"] = _key_spaces(data.get("key-spaces", {}))
        kwargs["ignore"] = _ignores(data.get("ignore", {}))
        if "fail-on" in data:
            kwargs["fail_on"] = _severity(data["fail-on"], "fail-on")
        return cls(**kwargs)


def volume_of(text: object, table: str, label: str) -> int:
    """Return the expected volume of ``table`` in bytes, from ``"2 TB"`` or a byte count.

    Raises:
        CheckConfigError: Not a size; the error names the table (``table``) and the text.
    """
    try:
        return parse_size(text, f"{label} of table {table!r}")
    except CheckConfigError as exc:
        raise CheckConfigError(exc.message, table=table, value=text) from None


def _volumes(tables: object, shorthand: object) -> dict[str, TableVolume]:
    if not isinstance(tables, Mapping):
        raise CheckConfigError("tables must map table names to their volume", value=tables)
    if not isinstance(shorthand, Mapping):
        raise CheckConfigError(
            'volume must map table names to sizes: [tool.hmodel.check.volume] order = "2 TB"',
            value=shorthand,
        )
    volumes = {}
    for name, spec in tables.items():
        if not isinstance(spec, Mapping):
            raise CheckConfigError(f"tables.{name} must be a table of numbers", value=spec)
        extra = sorted(set(spec) - {"rows", "row-bytes", "cell-bytes", "volume"})
        if extra:
            raise CheckConfigError(f"tables.{name}: unknown setting {extra[0]!r}", value=extra)
        rows = spec.get("rows")
        volumes[str(name)] = TableVolume(
            volume=(
                None
                if "volume" not in spec
                else volume_of(spec["volume"], str(name), f"tables.{name}.volume")
            ),
            rows=None if rows is None else _count(rows, f"tables.{name}.rows"),
            row_bytes=max(1, parse_size(spec.get("row-bytes", 1024), f"tables.{name}.row-bytes")),
            cell_bytes=(
                None
                if "cell-bytes" not in spec
                else parse_size(spec["cell-bytes"], f"tables.{name}.cell-bytes")
            ),
        )
    for name, text in shorthand.items():
        size = volume_of(text, str(name), "volume")
        volumes[str(name)] = attrs.evolve(volumes.get(str(name), TableVolume()), volume=size)
    return volumes


def _key_spaces(spaces: object) -> dict[str, str]:
    if not isinstance(spaces, Mapping):
        raise CheckConfigError("key-spaces must map model names to hex or uniform", value=spaces)
    for name, space in spaces.items():
        if space not in ("hex", "uniform"):
            raise CheckConfigError(f"key-spaces.{name} must be 'hex' or 'uniform'", value=space)
    return {str(k): str(v) for k, v in spaces.items()}


def ignore_codes(codes: object, where: str) -> dict[str, str]:
    """Check one subject's silences, ``{code: reason}``, and return them.

    Raises:
        CheckConfigError: Not a mapping, a key that is not a code (``HM-K8``), or a
            missing or blank reason.
    """
    if not isinstance(codes, Mapping):
        raise CheckConfigError(f"{where} must map codes to reasons", value=codes)
    for code, reason in codes.items():
        if not _CODE.match(str(code)):
            raise CheckConfigError(f"{where}: {code!r} is not a code", value=code)
        if not isinstance(reason, str) or not reason.strip():
            raise CheckConfigError(f"{where}.{code}: give the reason it is silenced", value=reason)
    return {str(c): str(r) for c, r in codes.items()}


def _ignores(ignore: object) -> dict[str, dict[str, str]]:
    if not isinstance(ignore, Mapping):
        raise CheckConfigError("ignore must map subjects to {code = reason}", value=ignore)
    return {
        str(subject): ignore_codes(codes, f"ignore.{subject!r}")
        for subject, codes in ignore.items()
    }


def load_config(path: Path | None) -> CheckConfig:
    """Read ``[tool.hmodel.check]`` from a TOML file; defaults when it has none.

    Args:
        path: A ``pyproject.toml`` (or any TOML file with that section), or ``None`` for
            the defaults.

    Raises:
        CheckConfigError: The file cannot be read or parsed, or a setting is invalid.
    """
    if path is None:
        return CheckConfig()
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CheckConfigError(f"cannot read {path}: {exc}") from exc
    section = document.get("tool", {}).get("hmodel", {}).get("check", {})
    if not isinstance(section, Mapping):
        raise CheckConfigError("[tool.hmodel.check] must be a table", value=section)
    return CheckConfig.from_mapping(section)
