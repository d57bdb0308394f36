"""Declaration-time guards: monotonic leading key components (K8) and cell-size limits (F11)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

from hmodel.errors import CellSizeWarning, CellTooLargeError, HModelWarning
from hmodel.keys import (
    Component,
    Const,
    Descending,
    Hashed,
    Key,
    Reversed,
    ReverseTimestamp,
    Salt,
    Timestamp,
)

__all__ = [
    "DEFAULT_MAX_CELL_BYTES",
    "DEFAULT_WARN_CELL_BYTES",
    "check_cell_size",
    "monotonic_lead",
    "warn",
]

#: Cells above this many bytes are refused by default (F11): HBase's own client refuses a
#: cell larger than ``hbase.client.keyvalue.maxsize`` (10 MiB by default), and MOB
#: storage, the home of large cells, is meant for values up to about 10 MB.
DEFAULT_MAX_CELL_BYTES = 10 * 1024 * 1024

#: Cells above this many bytes are written with a :class:`~hmodel.errors.CellSizeWarning`
#: by default (F11): keep cells under about 100 KB (larger ones slow
#: reads, compactions and region splits; use MOB or store a pointer).
DEFAULT_WARN_CELL_BYTES = 100 * 1024

_PACKAGE = str(Path(__file__).resolve().parents[1])


def _stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside hmodel."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def warn(warning: HModelWarning) -> None:
    """Emit ``warning`` attributed to the caller's code, not to hmodel's frames."""
    warnings.warn(warning, stacklevel=_stacklevel())


def _monotonic(component: Component) -> bool:
    if isinstance(component, Descending):
        return _monotonic(component.component)
    return isinstance(component, Timestamp | ReverseTimestamp)


def monotonic_lead(key: Key) -> Component | None:
    """Return the monotonic component a key leads with, or ``None`` (K8).

    The key *leads* with the first component after any :class:`~hmodel.keys.Const` tags
    (a constant spreads nothing). A :class:`~hmodel.keys.Timestamp` or
    :class:`~hmodel.keys.ReverseTimestamp` there (also under
    :class:`~hmodel.keys.Descending`: still monotonic, only downwards) makes every new row
    sort next to the previous one, so all writes go to one region. A
    :class:`~hmodel.keys.Salt` or :class:`~hmodel.keys.Hashed` prefix, an entity field,
    or a :class:`~hmodel.keys.Reversed` timestamp in front spreads them. An ``Int`` fed
    from a sequence is monotonic too, but nothing in the declaration says so; it is not
    detected.
    """
    for component in key.components:
        if isinstance(component, Const):
            continue
        if isinstance(component, Salt | Hashed | Reversed):
            return None
        return component if _monotonic(component) else None
    return None


def check_cell_size(
    data: bytes,
    *,
    max_bytes: int | None,
    warn_bytes: int | None,
    model: str,
    field: str,
    table: str,
    row: bytes,
    column: bytes,
) -> None:
    """Refuse or warn about a cell value larger than its limits (F11); sizes are ``len(data)``.

    Only the value's bytes count (not the rowkey, family, qualifier and timestamp HBase
    stores with it).

    Raises:
        CellTooLargeError: ``len(data) > max_bytes``.
    """
    size = len(data)
    context: dict[str, Any] = {"table": table, "row": row, "column": column, "field": field}
    if max_bytes is not None and size > max_bytes:
        raise CellTooLargeError(
            f"model {model!r}: field {field!r} is {size} bytes, over its limit of "
            f"{max_bytes} (F11: store large objects elsewhere and keep a pointer)",
            limit=max_bytes,
            value=size,
            **context,
        )
    if warn_bytes is not None and size > warn_bytes:
        warn(
            CellSizeWarning(
                f"model {model!r}: field {field!r} of table {table!r} writes a cell of {size} "
                f"bytes, over {warn_bytes} (F11: keep cells under ~100 KB; row {row!r})"
            )
        )
