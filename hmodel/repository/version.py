"""The version cell of optimistic locking: committed versions, claims and deletions."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from hmodel.backend.base import Cell
from hmodel.errors import ConflictError, DecodeError, ValidationError
from hmodel.mapping.tombstone import fence, fence_tag, no_row

__all__ = ["VersionCell"]

_PENDING = b"P"
_LONG_MAX = 2**63 - 1


@attrs.frozen
class VersionCell:
    """Encodes the version column of a locked model.

    Byte layouts of the cell:

    * absent, or ``b""`` (a row deleted over Thrift1): version 0, the row does not exist;
    * 8 bytes: a committed version, the big-endian signed long of the ``Long`` codec;
    * 17 bytes ``b"P" + previous + new`` (two 8-byte longs): a Thrift1 save in progress
      from version ``previous`` that will commit ``new``. No committed version can equal
      it, so a check expecting a committed version fails against it;
    * 9 bytes ``b"F" + tag`` (an 8-byte long): a fence, put by a unique index's writer
      taking over the claim (tagged ``tag``) of a write that may still land (I1). The
      row reads as absent; an insert's check (the cell absent) refuses it, so that
      write cannot land, and a later insert whose new version is greater than ``tag``
      expects it and replaces it (:meth:`Locking.save_op
      <hmodel.repository.locking.Locking.save_op>`).

    A version is the timestamp of every cell the save wrote (a stamp of
    :class:`~hmodel.clock.WriteStamps`, greater than the version it replaces), so
    ``as_of`` reads see whole saves.

    Attributes:
        column: The version column, ``b"f:q"``.
        lease_ms: How long a Thrift1 claim blocks other writers; after that a writer may
            take the row over.
    """

    column: bytes
    lease_ms: int

    def check(self, version: object, *, table: str, field: str) -> int:
        """Return ``version`` if a save can start from it (0 .. 2**63-2: it bumps it).

        Raises:
            ValidationError: Not an int, or out of the 64-bit range.
        """
        if isinstance(version, bool) or not isinstance(version, int):
            raise ValidationError(
                "the version field holds an int", table=table, field=field, value=version
            )
        if not 0 <= version < _LONG_MAX:
            raise ValidationError(
                "a version is between 0 and 2**63-2 (a save bumps it)",
                table=table,
                field=field,
                value=version,
            )
        return version

    def encode(self, version: int) -> bytes | None:
        """The stored bytes of a committed ``version``; ``None`` (absent) for 0."""
        if not version:
            return None
        return version.to_bytes(8, "big", signed=True)

    def pending(self, previous: int, version: int) -> bytes:
        """The marker of a Thrift1 save from ``previous`` that will commit ``version``."""
        return (
            _PENDING
            + previous.to_bytes(8, "big", signed=True)
            + version.to_bytes(8, "big", signed=True)
        )

    @staticmethod
    def fence(tag: int) -> bytes:
        """The fence of the writes of a row stamped ``tag`` or earlier (see the class)."""
        return fence(tag)

    @staticmethod
    def fence_of(raw: bytes | None) -> int | None:
        """The tag of a fence; ``None`` for anything else."""
        return fence_tag(raw)

    @staticmethod
    def claim_of(raw: bytes | None) -> tuple[int, int] | None:
        """``(previous, new)`` of a pending marker; ``None`` for anything else."""
        if raw is not None and len(raw) == 17 and raw[:1] == _PENDING:
            return (
                int.from_bytes(raw[1:9], "big", signed=True),
                int.from_bytes(raw[9:], "big", signed=True),
            )
        return None

    def number(
        self, raw: bytes | None, cells: Mapping[bytes, Cell], *, table: str, row: bytes
    ) -> int:
        """The version a reader sees, given the row's other cells.

        A pending marker reads as the version it will commit once the save's data is
        there (a data cell carries its timestamp: the data's puts are one row operation,
        so one such cell means all of them; over Thrift1 the deletes of fields set to
        ``None`` follow as a second one), and as the version it started from before.

        Raises:
            DecodeError: The cell is neither a version nor a marker.
        """
        if raw is None or no_row(raw):
            return 0  # absent, the Thrift1 tombstone or a fence: version 0
        if len(raw) == 8:
            return int.from_bytes(raw, "big", signed=True)
        claim = self.claim_of(raw)
        if claim is None:
            raise DecodeError(
                "version cell is neither a version nor a pending marker",
                table=table,
                row=row,
                column=self.column,
                value=raw,
            )
        previous, new = claim
        applied = any(cell.timestamp == new for cell in cells.values())
        return new if applied else previous

    def check_not_pending(self, raw: bytes | None, now: int, *, table: str, row: bytes) -> None:
        """Refuse to claim over a pending marker younger than the lease.

        Raises:
            ConflictError: Another save of this row is in progress.
        """
        claim = self.claim_of(raw)
        if claim is not None and now < claim[1] + self.lease_ms:
            raise ConflictError(
                "another save of this row is in progress; read it again and retry",
                table=table,
                row=row,
                column=self.column,
            )
