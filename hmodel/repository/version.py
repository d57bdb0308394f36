"""The version cell of optimistic locking: committed versions and pending-save markers."""

from __future__ import annotations

import attrs

from hmodel.errors import ConflictError, DecodeError

__all__ = ["VersionCell"]

_PENDING = b"P"


@attrs.frozen
class VersionCell:
    """Encodes the version column of a locked model.

    Byte layouts: a committed version ``v`` is the 8-byte big-endian signed long of ``v``
    (the ``Long`` codec's layout); version 0 is the absent cell. A save in progress is
    ``b"P"``, the 8-byte version it started from, and the 8-byte version it will commit:
    17 bytes, which no committed version can equal, so a check-and-put expecting a
    committed version fails against it. Readers see the version it started from, so a
    copy of what they read can never be saved over the version being committed.

    Versions are epoch milliseconds bumped past the previous version
    (``max(now, previous + 1)``) and double as the timestamp of every cell of the save.

    Attributes:
        column: The version column, ``b"f:q"``.
        lease_ms: How long a pending marker blocks other writers; after that a writer may
            take the row over (the stale save's late cells are older and stay hidden).
    """

    column: bytes
    lease_ms: int

    def encode(self, version: int | None) -> bytes | None:
        """The stored bytes of a committed ``version``; ``None`` (absent) for 0."""
        if not version:
            return None
        return int(version).to_bytes(8, "big", signed=True)

    def pending(self, previous: int, version: int) -> bytes:
        """The marker of a save from ``previous`` that will commit ``version``."""
        return (
            _PENDING
            + previous.to_bytes(8, "big", signed=True)
            + version.to_bytes(8, "big", signed=True)
        )

    @staticmethod
    def claimed(raw: bytes | None) -> int | None:
        """The version a pending marker will commit; ``None`` for anything else."""
        if raw is not None and len(raw) == 17 and raw[:1] == _PENDING:
            return int.from_bytes(raw[9:], "big", signed=True)
        return None

    def number(self, raw: bytes | None, *, table: str, row: bytes) -> int:
        """The version a reader sees: the committed one, or the one a pending save started from."""
        if raw is None:
            return 0
        if len(raw) == 8:
            return int.from_bytes(raw, "big", signed=True)
        if len(raw) == 17 and raw[:1] == _PENDING:
            return int.from_bytes(raw[1:9], "big", signed=True)
        raise DecodeError(
            "version cell is neither a version nor a pending marker",
            table=table,
            row=row,
            column=self.column,
            value=raw,
        )

    def check_not_pending(self, raw: bytes | None, now: int, *, table: str, row: bytes) -> None:
        """Refuse to save over a pending marker younger than the lease.

        Raises:
            ConflictError: Another save of this row is in progress.
        """
        started = self.claimed(raw)
        if started is not None and now < started + self.lease_ms:
            raise ConflictError(
                "another save of this row is in progress; read it again and retry",
                table=table,
                row=row,
                column=self.column,
            )
