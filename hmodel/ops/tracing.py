"""Observing repository calls: OpenTelemetry spans and DEBUG log lines from query events."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from hmodel.repository import Listener, QueryEvent

__all__ = [
    "OpenTelemetryListener",
    "StatementLogger",
    "install_logging",
    "install_tracing",
    "span_attributes",
]

#: The instrumentation scope name spans are created under.
SCOPE = "hmodel"


class Observable(Protocol):
    """Anything that tells listeners of its query events: a repository."""

    def add_listener(self, listener: Listener) -> None:
        """Tell ``listener`` of every later call's event."""


def span_attributes(event: QueryEvent) -> dict[str, Any]:
    """Return the span attributes of ``event``, after OpenTelemetry's database conventions.

    ``db.system``/``db.system.name`` are ``"hbase"``; ``db.operation``/``db.operation.name``
    the repository method; ``db.collection.name`` the table (``db.namespace`` its
    namespace, when it has one); ``db.query.text`` a scan's plan;
    ``db.response.returned_rows`` the rows returned or mutations sent. hmodel adds
    ``hmodel.round_trips`` (requests the backend made) and ``hmodel.rowkeys`` (rows
    addressed by key). Both the older and the newer attribute names are set, so either
    generation of tooling finds them.

    >>> span_attributes(QueryEvent("get", "ns:user", rows=(b"u1",), round_trips=1, results=1))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'db.system': 'hbase', 'db.system.name': 'hbase', 'db.operation': 'get',
     'db.operation.name': 'get', 'db.collection.name': 'ns:user',
     'db.response.returned_rows': 1, 'hmodel.round_trips': 1, 'hmodel.rowkeys': 1,
     'db.namespace': 'ns'}
    """
    attributes: dict[str, Any] = {
        "db.system": "hbase",
        "db.system.name": "hbase",
        "db.operation": event.operation,
        "db.operation.name": event.operation,
        "db.collection.name": event.table,
        "db.response.returned_rows": event.results,
        "hmodel.round_trips": event.round_trips,
        "hmodel.rowkeys": len(event.rows),
    }
    namespace, sep, _ = event.table.partition(":")
    if sep and "," not in namespace:
        attributes["db.namespace"] = namespace
    if event.plan is not None:
        attributes["db.query.text"] = event.plan
    return attributes


class OpenTelemetryListener:
    """A repository listener that records each call as an OpenTelemetry CLIENT span.

    Spans are named ``"{operation} {table}"`` (``"scan order"``) and carry
    :func:`span_attributes`. A query event is emitted when the call has finished; it
    carries the call's start and duration, which become the span's start and end. The
    span nests under whatever span is current, such as the request that made the call.
    Needs the ``otel`` extra (``pip install hmodel[otel]``).

    Args:
        tracer_provider: Where spans go; ``None`` uses the globally configured provider.

    Raises:
        OperationsError: OpenTelemetry is not installed.
    """

    def __init__(self, tracer_provider: Any = None) -> None:
        try:
            from opentelemetry import trace
        except ImportError:
            from hmodel.errors import OperationsError

            raise OperationsError(
                "tracing needs OpenTelemetry: pip install 'hmodel[otel]'"
            ) from None
        self._kind = trace.SpanKind.CLIENT
        self._tracer = trace.get_tracer(SCOPE, tracer_provider=tracer_provider)

    def __call__(self, event: QueryEvent) -> None:
        """Record ``event`` as one span."""
        start = event.started_ns or None
        span = self._tracer.start_span(
            f"{event.operation} {event.table}",
            kind=self._kind,
            attributes=span_attributes(event),
            start_time=start,
        )
        span.end(end_time=None if start is None else start + event.duration_ns)


class StatementLogger:
    """A repository listener that logs each call, at DEBUG by default.

    One line per call: ``get user: 1 rowkeys, 1 results, 1 round trips``, followed by
    the plan of a scan. Configure the ``hmodel.statements`` logger (or pass another) to
    see them, e.g. ``logging.getLogger("hmodel.statements").setLevel(logging.DEBUG)``.

    Args:
        logger: Where to log; default ``logging.getLogger("hmodel.statements")``.
        level: The level of the lines.
    """

    def __init__(self, logger: logging.Logger | None = None, level: int = logging.DEBUG) -> None:
        self.logger = logger or logging.getLogger("hmodel.statements")
        self.level = level

    def __call__(self, event: QueryEvent) -> None:
        """Log ``event``."""
        if not self.logger.isEnabledFor(self.level):
            return
        plan = f"\n{event.plan}" if event.plan else ""
        self.logger.log(
            self.level,
            "%s %s: %d rowkeys, %d results, %d round trips%s",
            event.operation,
            event.table,
            len(event.rows),
            event.results,
            event.round_trips,
            plan,
        )


def install_tracing(*targets: Observable, tracer_provider: Any = None) -> OpenTelemetryListener:
    """Record every later call of each repository in ``targets`` as a span; one call.

    Raises:
        OperationsError: OpenTelemetry is not installed.
    """
    listener = OpenTelemetryListener(tracer_provider)
    for target in targets:
        target.add_listener(listener)
    return listener


def install_logging(*targets: Observable, logger: logging.Logger | None = None) -> StatementLogger:
    """Log every later call of each repository in ``targets`` at DEBUG; one call."""
    listener = StatementLogger(logger)
    for target in targets:
        target.add_listener(listener)
    return listener
