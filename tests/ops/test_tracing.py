from __future__ import annotations

import itertools
import logging
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from examples.ecommerce.models import Customer
from hmodel.backend.forwarding import ForwardingBackend
from hmodel.backend.memory import MemoryBackend
from hmodel.backend.retry import DroppedError, Retry, collected_retries, send
from hmodel.errors import NotFoundError, TableNotFoundError
from hmodel.ops.tracing import StatementLogger, install_logging, install_tracing
from hmodel.repository import QueryEvent, Repository

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ANN = Customer(
    customer_id="c1",
    name="Ann",
    gender="F",
    birth_date=date(1990, 1, 2),
    city="Hangzhou",
    level="gold",
)


@pytest.fixture
def repo() -> Repository[Customer]:
    repository = Repository(Customer, MemoryBackend())
    repository.create_table()
    return repository


def test_every_call_becomes_a_client_span_with_db_attributes(repo: Repository[Customer]) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import SpanKind

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    install_tracing(repo, tracer_provider=provider)

    repo.save(ANN)
    repo.get(customer_id="c1")
    list(repo.scan())

    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["save customer", "get customer", "scan customer"]
    assert {s.kind for s in spans} == {SpanKind.CLIENT}
    get = spans[1].attributes or {}
    assert get["db.system"] == "hbase"
    assert get["db.operation"] == "get"
    assert get["db.collection.name"] == "customer"
    assert get["db.response.returned_rows"] == 1
    assert get["hmodel.round_trips"] == 1
    assert get["hmodel.rowkeys"] == 1
    assert "db.query.text" in (spans[2].attributes or {})
    # Each span covers its call: it starts when the call began and lasts as long.
    for earlier, later in itertools.pairwise(spans):
        assert earlier.start_time is not None and earlier.end_time is not None
        assert earlier.start_time < earlier.end_time <= (later.start_time or 0)


def test_statements_are_logged_at_debug(
    repo: Repository[Customer], caplog: pytest.LogCaptureFixture
) -> None:
    install_logging(repo)
    with caplog.at_level(logging.DEBUG, logger="hmodel.statements"):
        repo.save(ANN)
        repo.get(customer_id="c1")
    assert caplog.messages == [
        "save customer: 1 rowkeys, 5 results, 1 round trips",
        "get customer: 1 rowkeys, 1 results, 1 round trips",
    ]
    assert {r.levelno for r in caplog.records} == {logging.DEBUG}


def test_nothing_is_formatted_when_debug_is_off(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("hmodel.test.quiet")
    logger.setLevel(logging.INFO)
    StatementLogger(logger)(QueryEvent("get", "t"))
    assert caplog.records == []


def _tracing(repo: Repository[Any]) -> tuple[Any, Any]:
    """Install tracing on ``repo`` with in-memory span and metric readers."""
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    install_tracing(
        repo, tracer_provider=provider, meter_provider=MeterProvider(metric_readers=[reader])
    )
    return exporter, reader


def test_a_call_that_raises_gives_an_error_span_with_the_exception(
    repo: Repository[Customer],
) -> None:
    from opentelemetry.trace import StatusCode

    exporter, _ = _tracing(repo)

    with pytest.raises(NotFoundError):
        repo.get(customer_id="nobody", required=True)

    (span,) = exporter.get_finished_spans()
    assert span.name == "get customer"
    assert span.status.status_code is StatusCode.ERROR
    assert "no such row" in (span.status.description or "")
    assert (span.attributes or {})["error.type"] == "hmodel.errors.NotFoundError"
    (exception,) = [e for e in span.events if e.name == "exception"]
    assert (exception.attributes or {})["exception.type"] == "hmodel.errors.NotFoundError"


def test_a_backend_error_gives_an_error_span_too(repo: Repository[Customer]) -> None:
    from opentelemetry.trace import StatusCode

    exporter, _ = _tracing(repo)
    repo.backend.delete_table("customer")

    with pytest.raises(TableNotFoundError):
        repo.get(customer_id="c1")

    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "hmodel.errors.TableNotFoundError"


def _span_of_a_save_over_thrift(server: Any, **options: Any) -> Any:
    """The one span of a traced ``save`` through a ``ThriftBackend`` with ``options``."""
    from hmodel.backend.thrift import ThriftBackend

    admin = f"{server.host}:{server.thrift2_port}"
    backend = ThriftBackend(server.host, server.port, admin=admin, **options)
    repo = Repository(Customer, backend)
    repo.create_table()
    exporter, _ = _tracing(repo)
    try:
        repo.save(ANN)
    finally:
        backend.delete_table("customer")
        backend.close()
    (span,) = exporter.get_finished_spans()
    return span


def test_spans_over_thrift_name_the_server(fake_hbase_server: Any) -> None:
    span = _span_of_a_save_over_thrift(fake_hbase_server)
    attributes = span.attributes or {}
    assert attributes["server.address"] == fake_hbase_server.host
    assert attributes["server.port"] == fake_hbase_server.port
    assert attributes["db.system.name"] == "hbase"
    assert attributes["db.operation.name"] == "save"


def test_the_in_process_engine_has_no_server_attributes(repo: Repository[Customer]) -> None:
    exporter, _ = _tracing(repo)
    repo.save(ANN)
    (span,) = exporter.get_finished_spans()
    assert "server.address" not in (span.attributes or {})


def test_each_call_records_its_duration_in_the_operation_duration_histogram(
    repo: Repository[Customer],
) -> None:
    _, reader = _tracing(repo)
    repo.save(ANN)
    repo.get(customer_id="c1")
    with pytest.raises(NotFoundError):
        repo.get(customer_id="nobody", required=True)

    data = reader.get_metrics_data()
    metrics = [m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics]
    (duration,) = [m for m in metrics if m.name == "db.client.operation.duration"]
    assert duration.unit == "s"
    points = {
        (p.attributes["db.operation.name"], p.attributes.get("error.type")): p
        for p in duration.data.data_points
    }
    assert set(points) == {
        ("save", None),
        ("get", None),
        ("get", "hmodel.errors.NotFoundError"),
    }
    assert points[("get", None)].count == 1
    assert points[("get", None)].attributes["db.collection.name"] == "customer"
    assert points[("get", None)].attributes["db.system.name"] == "hbase"


def test_a_failed_call_is_logged_with_its_error_type(
    repo: Repository[Customer], caplog: pytest.LogCaptureFixture
) -> None:
    install_logging(repo)
    with caplog.at_level(logging.DEBUG, logger="hmodel.statements"), pytest.raises(NotFoundError):
        repo.get(customer_id="nobody", required=True)
    assert caplog.messages == [
        "get customer: 1 rowkeys, 0 results, 1 round trips, failed: hmodel.errors.NotFoundError"
    ]


def test_the_otel_extra_depends_on_the_api_only() -> None:
    pyproject = Path(__file__).parents[2] / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    assert [r.split(">")[0] for r in extras["otel"]] == ["opentelemetry-api"]
    assert any(r.startswith("opentelemetry-sdk") for r in extras["test"])


class _DroppingOnce(ForwardingBackend):
    """Each ``get`` loses its first connection, as a Thrift channel would, then succeeds."""

    def get(self, table: str, row: bytes, **options: Any) -> Any:
        dropped = [OSError("connection reset")]

        def attempt() -> Any:
            if dropped:
                raise DroppedError(dropped.pop(), sent=True)
            return self.inner.get(table, row, **options)

        return send(
            attempt,
            method="getRowWithColumns",
            retry=Retry.IDEMPOTENT,
            retries=3,
            backoff_ms=0,
            sleep=lambda _: None,
            where="hbase-1.example:9090",
        )


def test_a_retry_is_an_event_of_the_calls_own_span(repo: Repository[Customer]) -> None:
    # No span is current: the retry still lands, on the db client span of the call.
    flaky = Repository(Customer, _DroppingOnce(repo.backend))
    exporter, _ = _tracing(flaky)
    flaky.save(ANN)
    assert flaky.get(customer_id="c1") == ANN
    spans = {span.name: span for span in exporter.get_finished_spans()}
    assert spans["save customer"].events == ()
    (event,) = spans["get customer"].events
    assert event.name == "hmodel.retry"
    assert dict(event.attributes or {}) == {
        "hmodel.method": "getRowWithColumns",
        "hmodel.retry": 1,
        "hmodel.pause_s": 0.0,
        "error.type": "OSError",
        "server.address": "hbase-1.example",
        "server.port": 9090,
    }
    span = spans["get customer"]
    assert span.start_time is not None and span.end_time is not None
    assert event.timestamp is not None and span.start_time <= event.timestamp <= span.end_time


def test_a_retry_of_a_thrift_error_names_its_qualified_type() -> None:
    from hmodel.backend.retry import after_drop
    from hmodel.errors import TLSError

    with collected_retries() as records:
        after_drop(
            DroppedError(TLSError("handshake"), sent=False),
            tries=0,
            method="get",
            retry=Retry.IDEMPOTENT,
            retries=1,
            backoff_ms=0,
            where="https://h:8443/hbase",
            jitter=lambda: 0.0,
        )
    ((_, attributes),) = records
    assert attributes["error.type"] == "hmodel.errors.TLSError"
    assert (attributes["server.address"], attributes["server.port"]) == ("h", 8443)


def test_spans_name_the_table_the_server_knows(fake_hbase_server: Any) -> None:
    span = _span_of_a_save_over_thrift(fake_hbase_server, table_prefix="tenant7")
    attributes = span.attributes or {}
    assert span.name == "save tenant7_customer"
    assert attributes["db.collection.name"] == "tenant7_customer"
    assert attributes["hmodel.table"] == "customer"
    assert attributes["db.namespace"] == "default"
