"""When a request to a Thrift server may be sent again, and what is raised when it may not."""

from __future__ import annotations

import asyncio
import contextvars
import enum
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from hmodel.errors import ConnectionLostError, OutcomeUnknownError, ReadInterruptedError, error_type

__all__ = [
    "MAX_BACKOFF_MS",
    "DroppedError",
    "Retry",
    "RetryRecord",
    "after_drop",
    "asend",
    "collected_retries",
    "pause_ms",
    "send",
    "server_attributes",
]

#: Retries are logged here (INFO), as HBase clients log theirs.
logger = logging.getLogger("hmodel")

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


def pause_ms(backoff_ms: int, tries: int, jitter: float) -> float:
    """The pause before retry number ``tries + 1``, in milliseconds ("equal jitter").

    The backoff, doubled per earlier retry and capped at :data:`MAX_BACKOFF_MS`, is
    paused at least half of, plus ``jitter`` (from 0 to 1) times the other half, so
    clients that lost their connections together do not come back together.

    >>> pause_ms(50, 0, 1.0), pause_ms(50, 2, 0.0), pause_ms(4_000, 3, 1.0)
    (50.0, 100.0, 5000.0)
    """
    capped = float(min(backoff_ms * 2**tries, MAX_BACKOFF_MS))
    return capped * (1 + jitter) / 2


#: One retry as a tracing event: when it was decided (epoch ns) and its attributes.
RetryRecord = tuple[int, dict[str, Any]]

#: The retries of the repository call under way in this context (thread or asyncio task),
#: or ``None`` when no call collects them (see :func:`collected_retries`).
_collecting: contextvars.ContextVar[list[RetryRecord] | None] = contextvars.ContextVar(
    "hmodel_retries", default=None
)


class collected_retries:  # noqa: N801 -- a context manager, used like a function
    """Collect the retries made in this context until the ``with`` block ends.

    A repository call that tells listeners opens one, so each ``hmodel.retry`` event
    lands on that call's own span (:class:`~hmodel.ops.tracing.OpenTelemetryListener`
    adds :attr:`records` to it) instead of on whatever span the caller had current. The
    records are ``(epoch ns, attributes)`` pairs, in the order the retries were made.
    Nested blocks collect into their own list.
    """

    __slots__ = ("_token", "records")

    def __init__(self) -> None:
        self.records: list[RetryRecord] = []

    def __enter__(self) -> list[RetryRecord]:
        self._token = _collecting.set(self.records)
        return self.records

    def __exit__(self, *_: object) -> None:
        try:
            _collecting.reset(self._token)
        except ValueError:  # ended in another context (a generator the collector closed)
            _collecting.set(None)


def server_attributes(where: str) -> dict[str, Any]:
    """``server.address`` and ``server.port`` of ``where`` (``host:port`` or a URL).

    >>> server_attributes("10.0.0.7:9090")
    {'server.address': '10.0.0.7', 'server.port': 9090}
    >>> server_attributes("https://[::1]:8443/hbase")
    {'server.address': '::1', 'server.port': 8443}
    """
    if "://" in where:
        parts = urlsplit(where)
        host, port = parts.hostname or where, parts.port
    else:
        host, _, text = where.rpartition(":")
        host, port = host.strip("[]"), int(text) if text.isdigit() else None
    found: dict[str, Any] = {"server.address": host}
    if port is not None:
        found["server.port"] = port
    return found


def _trace_retry(attributes: dict[str, Any]) -> None:
    """Record a ``hmodel.retry`` event where it belongs.

    On the repository call collecting retries, if one is under way here; else on the
    current OpenTelemetry span, if any records.
    """
    collecting = _collecting.get()
    if collecting is not None:
        collecting.append((time.time_ns(), attributes))
        return
    try:
        from opentelemetry import trace
    except ImportError:
        return
    span = trace.get_current_span()
    if span.is_recording():
        span.add_event("hmodel.retry", attributes)


def after_drop(
    dropped: DroppedError,
    *,
    tries: int,
    method: str,
    retry: Retry,
    retries: int,
    backoff_ms: int,
    where: str,
    table: str | None = None,
    row: bytes | None = None,
    jitter: Callable[[], float] = random.random,
) -> float:
    """Decide what follows a dropped attempt: the pause before the next one, in seconds.

    The decision of both edges' retry loops (:func:`send`, and the asyncio channel's):
    a request may be sent again when ``retry`` allows it (always for idempotent ones,
    else only if it was not sent) and fewer than ``retries`` retries were made. The retry
    is logged at INFO on the ``hmodel`` logger and added as a ``hmodel.retry`` event to the
    current OpenTelemetry span (when the API is installed and a span records).

    Args:
        dropped: How the attempt failed.
        tries: Retries made so far (0 after the first attempt).
        method: The RPC, for the messages.
        retry: When the request may be sent again.
        retries: The retry budget.
        backoff_ms: The pause before the first retry (see :func:`pause_ms`).
        where: The server, for the messages.
        table: The table of the call, for the error.
        row: The row of the call, for the error.
        jitter: A float from 0 to 1 spreading the pause.

    Raises:
        OutcomeUnknownError: A non-idempotent request may have reached the server.
        ReadInterruptedError: A cursor-moving read may have reached the server.
        ConnectionLostError: The retry budget is spent (the last failure as the cause).
    """
    if (retry is Retry.IDEMPOTENT or not dropped.sent) and tries < retries:
        pause = pause_ms(backoff_ms, tries, jitter()) / 1000
        logger.info(
            "%s to %s: connection dropped (%s); reconnecting, retry %d of %d in %.3f s",
            method,
            where,
            dropped.cause,
            tries + 1,
            retries,
            pause,
        )
        _trace_retry(
            {
                "hmodel.method": method,
                "hmodel.retry": tries + 1,
                "hmodel.pause_s": pause,
                "error.type": error_type(dropped.cause),
                **server_attributes(where),
            }
        )
        return pause
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
    jitter: Callable[[], float] = random.random,
    tries: int = 0,
) -> Any:
    """Run ``attempt`` until it returns, retrying dropped connections as ``retry`` allows.

    ``attempt`` sends the request once and raises :class:`DroppedError` when the
    connection failed. Retries wait :func:`pause_ms` of ``backoff_ms``: doubled at each
    further attempt, capped at :data:`MAX_BACKOFF_MS`, with ``jitter()`` (a float from 0
    to 1; inject a constant or a seeded ``random.Random().random`` in tests) spreading
    the pause between half and all of it. Each retry is sent on a new connection; what
    follows a drop is decided by :func:`after_drop`. ``tries``: the attempts already made
    and dropped (a caller that made the first attempt itself passes 1).

    Raises:
        OutcomeUnknownError: A non-idempotent request may have reached the server.
        ReadInterruptedError: A cursor-moving read may have reached the server.
        ConnectionLostError: The retry budget is spent (the last failure as the cause).
    """
    while True:
        try:
            return attempt()
        except DroppedError as dropped:
            pause = after_drop(
                dropped,
                tries=tries,
                method=method,
                retry=retry,
                retries=retries,
                backoff_ms=backoff_ms,
                where=where,
                table=table,
                row=row,
                jitter=jitter,
            )
            sleep(pause)
            tries += 1


async def asend(
    attempt: Callable[[], Awaitable[Any]],
    *,
    method: str,
    retry: Retry,
    retries: int,
    backoff_ms: int,
    where: str,
    table: str | None = None,
    row: bytes | None = None,
    jitter: Callable[[], float] = random.random,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Any:
    """As :func:`send`, awaiting ``attempt`` and the pauses (the asyncio edge)."""
    tries = 0
    while True:
        try:
            return await attempt()
        except DroppedError as dropped:
            pause = after_drop(
                dropped,
                tries=tries,
                method=method,
                retry=retry,
                retries=retries,
                backoff_ms=backoff_ms,
                where=where,
                table=table,
                row=row,
                jitter=jitter,
            )
            await sleep(pause)
            tries += 1
