"""Reading a live table for ``hmodel spread``: its rowkeys and its real regions."""

from __future__ import annotations

from collections.abc import Iterator

from hmodel.backend.base import Backend, Scan
from hmodel.errors import InputError
from hmodel.model import ModelInfo
from hmodel.ops.spread import Spread, measure

__all__ = ["live_spread", "parse_address", "scan_keys"]

#: Return one cell per row and no values: only the rowkeys travel.
KEYS_ONLY = "FirstKeyOnlyFilter() AND KeyOnlyFilter()"


def parse_address(text: str) -> tuple[str, int]:
    """Return ``(host, port)`` from ``HOST:PORT``.

    Raises:
        InputError: Not ``HOST:PORT`` with a port number.
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InputError("give the Thrift server as HOST:PORT", value=text)
    return host, int(port)


def scan_keys(backend: Backend, info: ModelInfo, *, limit: int | None = None) -> Iterator[bytes]:
    """Yield the rowkeys of ``info``'s table that decode under its key, at most ``limit``.

    Rows of other record types in the same table (R1) are skipped. Only keys are read
    (``FirstKeyOnlyFilter`` and ``KeyOnlyFilter``); ``limit`` bounds the rows scanned.
    """
    scan = Scan(filter=KEYS_ONLY, limit=limit)
    for row in backend.scan(info.table.full_name, scan):
        if info.key.matches(row.row):
            yield row.row


def live_spread(backend: Backend, info: ModelInfo, *, limit: int | None = None) -> Spread:
    """Count the live table's rowkeys per region of its real regions.

    Raises:
        BackendError: The table does not exist or the backend fails.
    """
    regions = backend.regions(info.table.full_name)
    points = [region.start for region in regions[1:]]
    keys = scan_keys(backend, info, limit=limit)
    return measure(info.name, info.table.full_name, keys, points)
