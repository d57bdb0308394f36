"""The retry policy both Thrift backends share (hmodel.backend.retry)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hmodel.backend.retry import MAX_BACKOFF_MS, DroppedError, Retry, send
from hmodel.errors import ConnectionLostError, OutcomeUnknownError, ReadInterruptedError


def _dropping(times: int, *, sent: bool) -> tuple[Callable[[], str], list[int]]:
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise DroppedError(OSError("reset"), sent=sent)
        return "ok"

    return attempt, calls


def _send(attempt: Callable[[], str], retry: Retry, pauses: list[float]) -> str:
    return str(
        send(
            attempt,
            method="m",
            retry=retry,
            retries=3,
            backoff_ms=50,
            sleep=pauses.append,
            where="h:1",
            table="t",
        )
    )


def test_idempotent_requests_are_retried_with_doubling_pauses() -> None:
    pauses: list[float] = []
    attempt, calls = _dropping(3, sent=True)
    assert _send(attempt, Retry.IDEMPOTENT, pauses) == "ok"
    assert len(calls) == 4 and pauses == [0.05, 0.1, 0.2]


def test_the_budget_spent_is_a_connection_lost_error() -> None:
    attempt, calls = _dropping(10, sent=True)
    with pytest.raises(ConnectionLostError) as info:
        _send(attempt, Retry.IDEMPOTENT, [])
    assert type(info.value) is ConnectionLostError and "4 attempt(s)" in info.value.message
    assert len(calls) == 4


@pytest.mark.parametrize(
    ("retry", "error"),
    [(Retry.UNSENT, OutcomeUnknownError), (Retry.READ_UNSENT, ReadInterruptedError)],
)
def test_a_request_that_may_have_left_is_never_resent(
    retry: Retry, error: type[ConnectionLostError]
) -> None:
    """A write's outcome is unknown; a cursor-moving read was interrupted."""
    attempt, calls = _dropping(1, sent=True)
    with pytest.raises(error):
        _send(attempt, retry, [])
    assert len(calls) == 1
    unsent, again = _dropping(1, sent=False)  # never left: retried
    assert _send(unsent, retry, []) == "ok" and len(again) == 2


def test_pauses_are_capped() -> None:
    pauses: list[float] = []
    attempt, _ = _dropping(3, sent=False)
    send(
        attempt,
        method="m",
        retry=Retry.UNSENT,
        retries=3,
        backoff_ms=4_000,
        sleep=pauses.append,
        where="h:1",
    )
    assert pauses == [4.0, MAX_BACKOFF_MS / 1000, MAX_BACKOFF_MS / 1000]
