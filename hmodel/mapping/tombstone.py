"""Version-cell values that read as "no row": the Thrift1 tombstone and the fence."""

from __future__ import annotations

__all__ = ["FENCE_WIDTH", "fence", "fence_tag", "no_row"]

_FENCE = b"F"
#: Bytes of a fence: ``b"F"`` and an 8-byte big-endian signed tag.
FENCE_WIDTH = 9


def fence(tag: int) -> bytes:
    """The version-cell bytes fencing off every write of the row stamped ``tag`` or earlier.

    Layout: ``b"F"`` followed by ``tag`` as an 8-byte big-endian signed long (9 bytes,
    so no committed version, 8 bytes, and no Thrift1 pending marker, 17 bytes starting
    with ``b"P"``, can equal it). The row reads as absent; an insert's check (the version
    cell absent) refuses it, and an insert whose new version is greater than ``tag``
    replaces it.
    """
    return _FENCE + tag.to_bytes(8, "big", signed=True)


def fence_tag(raw: bytes | None) -> int | None:
    """The tag of a fence (see :func:`fence`); ``None`` for any other bytes."""
    if raw is not None and len(raw) == FENCE_WIDTH and raw[:1] == _FENCE:
        return int.from_bytes(raw[1:], "big", signed=True)
    return None


def no_row(raw: bytes | None) -> bool:
    """Whether a version cell holding ``raw`` means "no row" whatever else the row holds.

    ``b""`` is the tombstone a Thrift1 delete leaves; a fence (:func:`fence`) is put by a
    writer taking over a unique claim of a write that may still land. An absent cell
    (``None``) is not: a row without a version cell reads as version 0.
    """
    return raw == b"" or fence_tag(raw) is not None
