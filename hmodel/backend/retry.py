"""When a request to a Thrift server may be sent again, and what is raised when it may not."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from hmodel.errors import ConnectionLostError, OutcomeUnknownError, ReadInterruptedError

__all__ = ["MAX_BACKOFF_MS", "DroppedError", "Retry", "send"]

#: Longest pause between two attempts, whatever the backoff and the attempt number.
MAX_BACKOFF_MS = 5_000


class Retry(enum.Enum):
    """When a request may be sent again after its connection dropped.

    Attributes:
        IDEMPOTENT: Always (up to the retry budget): sending it twice has the effect of
            sending it once (reads, scanner opens, puts and deletes of given cells).
        UNSENT: Only if the connection failed before the request was written; once it may
            have reached the server the outcome is unknown and
            :class:`~hmodel.errors.OutcomeUnknownError` says so (increments, appends,
            conditional writes, admin changes).
        READ_UNSENT: As ``UNSENT``, for a read that moves server-side state (a scanner
            fetch advances the scanner, so a second send would skip rows): once it may
            have left, :class:`~hmodel.errors.ReadInterruptedError` says a read was
            interrupted and nothing was written.
    """

    IDEMPOTENT = "idempotent"
    UNSENT = "unsent"
    READ_UNSENT = "read, unsent"


class DroppedError(Exception):
    """The connection failed; ``sent`` tells whether the request may have left."""

    def __init__(self, cause: BaseException, *, sent: bool) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.sent = sent


def send(
    attempt: Callable[[], Any],
    *,
    method: str,
    retry: Retry,
    retries: int,
    backoff_ms: int,
    sleep: Callable[[float], None],
    where: str,
    table: str | None = None,
    row: bytes | None = None,
) -> Any:
    """Run ``attempt`` until it returns, retrying dropped connections as ``retry`` allows.

    ``attempt`` sends the request once and raises :class:`DroppedError` when the
    connection failed. Retries wait ``backoff_ms``, doubled at each further attempt and
    capped at :data:`MAX_BACKOFF_MS`.

    Raises:
        OutcomeUnknownError: A non-idempotent request may have reached the server.
        ReadInterruptedError: A cursor-moving read may have reached the server.
        ConnectionLostError: The retry budget is spent (the last failure as the cause).
    """
    tries = 0
    while True:
        try:
            return attempt()
        except DroppedError as dropped:
            if (retry is Retry.IDEMPOTENT or not dropped.sent) and tries < retries:
                sleep(min(backoff_ms * 2**tries, MAX_BACKOFF_MS) / 1000)
                tries += 1
                continue
            lost: ConnectionLostError
            if dropped.sent and retry is Retry.READ_UNSENT:
                lost = ReadInterruptedError(
                    f"connection to {where} lost during {method}: a read was interrupted; "
                    "nothing was written (not re-sent: it moves a server-side cursor): "
                    f"{dropped.cause}",
                    table=table,
                    row=row,
                )
            elif dropped.sent and retry is Retry.UNSENT:
                lost = OutcomeUnknownError(
                    f"connection to {where} lost during {method}: the request may or may not "
                    f"have been applied (not retried, it is not idempotent): {dropped.cause}",
                    table=table,
                    row=row,
                )
            else:
                lost = ConnectionLostError(
                    f"connection to {where} failed during {method} after {tries + 1} "
                    f"attempt(s): {dropped.cause}",
                    table=table,
                    row=row,
                )
            raise lost from dropped.cause
