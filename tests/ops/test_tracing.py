from __future__ import annotations

import itertools
import logging
from datetime import date

import pytest

from examples.ecommerce.models import Customer
from hmodel.backend.memory import MemoryBackend
from hmodel.ops.tracing import StatementLogger, install_logging, install_tracing
from hmodel.repository import QueryEvent, Repository

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
