"""Observing repository calls: OpenTelemetry spans and DEBUG log lines from query events."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from hmodel.errors import error_type
from hmodel.repository import Listener, QueryEvent

__all__ = [
    "OpenTelemetryListener",
    "StatementLogger",
    "error_type",
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
    the repository method; ``db.collection.name`` the table as the server knows it (the
    backend's table prefix applied; ``hmodel.table`` the declared name when it differs),
    ``db.namespace`` its HBase namespace (``default`` for a name without one);
    ``db.query.text`` a scan's plan;
    ``db.response.returned_rows`` the rows returned or mutations sent;
    ``server.address``/``server.port`` the Thrift server (not for the in-process engine);
    ``error.type`` the fully qualified class of the exception a failed call raised.
    hmodel adds ``hmodel.round_trips`` (requests the backend made) and ``hmodel.rowkeys``
    (rows addressed by key). Both the older and the newer attribute names are set, so
    either generation of tooling finds them.

    >>> span_attributes(QueryEvent("get", "ns:user", rows=(b"u1",), round_trips=1, results=1))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'db.system': 'hbase', 'db.system.name': 'hbase', 'db.operation': 'get',
     'db.operation.name': 'get', 'db.collection.name': 'ns:user',
     'db.response.returned_rows': 1, 'hmodel.round_trips': 1, 'hmodel.rowkeys': 1,
     'db.namespace': 'ns'}
    """
    table = event.server_table or event.table
    attributes: dict[str, Any] = {
        "db.system": "hbase",
        "db.system.name": "hbase",
        "db.operation": event.operation,
        "db.operation.name": event.operation,
        "db.collection.name": table,
        "db.response.returned_rows": event.results,
        "hmodel.round_trips": event.round_trips,
        "hmodel.rowkeys": len(event.rows),
    }
    if table != event.table:
        attributes["hmodel.table"] = event.table
    if "," not in table:  # a unit of work names its tables together: no one namespace
        namespace, sep, _ = table.rpartition(":")
        attributes["db.namespace"] = namespace if sep else "default"
    if event.plan is not None:
        attributes["db.query.text"] = event.plan
    if event.server_address is not None:
        attributes["server.address"] = event.server_address
    if event.server_port is not None:
        attributes["server.port"] = event.server_port
    if event.error is not None:
        attributes["error.type"] = error_type(event.error)
    return attributes


#: The attributes of ``db.client.operation.duration``, after the database conventions.
_METRIC_ATTRIBUTES = (
    "db.system.name",
    "db.operation.name",
    "db.collection.name",
    "db.namespace",
    "server.address",
    "server.port",
    "error.type",
)

#: The duration histogram's bucket boundaries, seconds (the semantic conventions' advice).
DURATION_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0)


class OpenTelemetryListener:
    """A repository listener that records each call as an OpenTelemetry CLIENT span.

    Follows OpenTelemetry's database client conventions. Spans are named
    ``"{operation} {table}"`` (``"scan order"``) and carry :func:`span_attributes`. A
    query event is emitted when the call has finished; it carries the call's start and
    duration, which become the span's start and end. The span nests under whatever span
    is current, such as the request that made the call. A call that raised gives a span
    with status ERROR (the message as its description), ``error.type`` and the exception
    recorded as an ``exception`` event. Each call's duration is also recorded, in
    seconds, in the ``db.client.operation.duration`` histogram (attributes: the
    ``db.*``, ``server.*`` and ``error.type`` ones of the span). Needs the ``otel``
    extra (``pip install hmodel[otel]``: the OpenTelemetry API only; the application
    installs and configures the SDK).

    Args:
        tracer_provider: Where spans go; ``None`` uses the globally configured provider.
        meter_provider: Where the histogram goes; ``None`` uses the global provider.

    Raises:
        OperationsError: OpenTelemetry is not installed.
    """

    def __init__(self, tracer_provider: Any = None, meter_provider: Any = None) -> None:
        try:
            from opentelemetry import metrics, trace
        except ImportError:
            from hmodel.errors import OperationsError

            raise OperationsError(
                "tracing needs OpenTelemetry: pip install 'hmodel[otel]'"
            ) from None
        self._kind = trace.SpanKind.CLIENT
        self._status = trace.Status
        self._error_code = trace.StatusCode.ERROR
        self._tracer = trace.get_tracer(SCOPE, tracer_provider=tracer_provider)
        meter = metrics.get_meter(SCOPE, meter_provider=meter_provider)
        self._duration = meter.create_histogram(
            "db.client.operation.duration",
            unit="s",
            description="Duration of database client operations.",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )

    def __call__(self, event: QueryEvent) -> None:
        """Record ``event`` as one span and one duration."""
        start = event.started_ns or None
        attributes = span_attributes(event)
        span = self._tracer.start_span(
            f"{event.operation} {attributes['db.collection.name']}",
            kind=self._kind,
            attributes=attributes,
            start_time=start,
        )
        end = None if start is None else start + event.duration_ns
        for when, retry in event.retries:
            span.add_event("hmodel.retry", retry, timestamp=when)
        if event.error is not None:
            span.record_exception(event.error, timestamp=end, escaped=True)
            span.set_status(self._status(self._error_code, str(event.error)))
        span.end(end_time=end)
        self._duration.record(
            event.duration_ns / 1e9,
            {k: attributes[k] for k in _METRIC_ATTRIBUTES if k in attributes},
        )


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
        failed = "" if event.error is None else f", failed: {error_type(event.error)}"
        self.logger.log(
            self.level,
            "%s %s: %d rowkeys, %d results, %d round trips%s%s",
            event.operation,
            event.table,
            len(event.rows),
            event.results,
            event.round_trips,
            failed,
            plan,
        )


def install_tracing(
    *targets: Observable, tracer_provider: Any = None, meter_provider: Any = None
) -> OpenTelemetryListener:
    """Record every later call of each repository in ``targets`` as a span; one call.

    Also records each call's duration (see :class:`OpenTelemetryListener`).

    Raises:
        OperationsError: OpenTelemetry is not installed.
    """
    listener = OpenTelemetryListener(tracer_provider, meter_provider)
    for target in targets:
        target.add_listener(listener)
    return listener


def install_logging(*targets: Observable, logger: logging.Logger | None = None) -> StatementLogger:
    """Log every later call of each repository in ``targets`` at DEBUG; one call."""
    listener = StatementLogger(logger)
    for target in targets:
        target.add_listener(listener)
    return listener
