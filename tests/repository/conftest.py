"""Fixtures for repository tests: every test body runs on every backend (memory, thrift, hbase)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from hmodel.backend.base import Backend
from hmodel.clock import ManualClock
from hmodel.errors import UnsupportedOperationError
from hmodel.model import model_info
from hmodel.repository import QueryEvent, Repository

M = TypeVar("M")


class Recorder:
    """Collects the QueryEvents of the repositories it listens to."""

    def __init__(self) -> None:
        self.events: list[QueryEvent] = []

    def __call__(self, event: QueryEvent) -> None:
        self.events.append(event)

    def last(self, operation: str) -> QueryEvent:
        return [e for e in self.events if e.operation == operation][-1]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000_000)


@pytest.fixture
def events() -> Recorder:
    return Recorder()


@pytest.fixture
def make_repo(
    backend: Backend, clock: ManualClock, events: Recorder
) -> Callable[..., Repository[Any]]:
    """Build a repository on the test's backend and create its table (without split points
    on Thrift1, which cannot carry them at creation)."""

    def make(model: type[M], **options: Any) -> Repository[M]:
        repo = Repository(model, backend, clock=clock, listeners=[events], **options)
        table = model_info(model).table
        if not backend.table_exists(table.full_name):
            try:
                backend.create_table(table)
            except UnsupportedOperationError:  # Thrift1 cannot pre-split at creation
                backend.create_table(table.without_splits())
        return repo

    return make
