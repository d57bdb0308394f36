"""The retry policy both Thrift backends share (hmodel.backend.retry)."""

from __future__ import annotations

import logging
import random
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
            jitter=lambda: 1.0,
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
        jitter=lambda: 1.0,
        where="h:1",
    )
    assert pauses == [4.0, MAX_BACKOFF_MS / 1000, MAX_BACKOFF_MS / 1000]


def test_pauses_are_jittered_between_half_and_all_of_the_backoff() -> None:
    pauses: list[float] = []
    draws = iter([0.0, 0.5, 1.0])
    attempt, _ = _dropping(3, sent=False)
    send(
        attempt,
        method="m",
        retry=Retry.IDEMPOTENT,
        retries=3,
        backoff_ms=100,
        sleep=pauses.append,
        jitter=lambda: next(draws),
        where="h:1",
    )
    assert pauses == [0.05, 0.15, 0.4]


def test_a_seeded_jitter_repeats_and_the_default_one_spreads() -> None:
    def run(jitter: Callable[[], float]) -> list[float]:
        pauses: list[float] = []
        attempt, _ = _dropping(3, sent=False)
        send(
            attempt,
            method="m",
            retry=Retry.IDEMPOTENT,
            retries=3,
            backoff_ms=100,
            sleep=pauses.append,
            jitter=jitter,
            where="h:1",
        )
        return pauses

    assert run(random.Random(7).random) == run(random.Random(7).random)
    for pause, full in zip(run(random.Random(8).random), [0.1, 0.2, 0.4], strict=True):
        assert full / 2 <= pause <= full


def test_each_retry_is_logged_on_the_hmodel_logger(caplog: pytest.LogCaptureFixture) -> None:
    attempt, _ = _dropping(2, sent=False)
    with caplog.at_level(logging.INFO, logger="hmodel"):
        send(
            attempt,
            method="getRows",
            retry=Retry.IDEMPOTENT,
            retries=3,
            backoff_ms=100,
            sleep=lambda _: None,
            jitter=lambda: 1.0,
            where="h:1",
        )
    assert [r.name for r in caplog.records] == ["hmodel", "hmodel"]
    assert caplog.messages[0].startswith("getRows to h:1: connection dropped (")
    assert caplog.messages[0].endswith("reconnecting, retry 1 of 3 in 0.100 s")
    assert caplog.messages[1].endswith("reconnecting, retry 2 of 3 in 0.200 s")


def test_each_retry_is_an_event_of_the_current_span() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    attempt, _ = _dropping(1, sent=False)
    with provider.get_tracer("test").start_as_current_span("request"):
        send(
            attempt,
            method="getRows",
            retry=Retry.IDEMPOTENT,
            retries=3,
            backoff_ms=100,
            sleep=lambda _: None,
            jitter=lambda: 1.0,
            where="h:1",
        )
    (span,) = exporter.get_finished_spans()
    (event,) = span.events
    assert event.name == "hmodel.retry"
    assert dict(event.attributes or {}) == {
        "hmodel.method": "getRows",
        "hmodel.retry": 1,
        "hmodel.pause_s": 0.1,
        "error.type": "OSError",
        "server.address": "h",
        "server.port": 1,
    }
