"""The contract holds through ``ThriftBackend.from_happybase``: a team's happybase connections.

The contract's reads, writes, scans, counters, conditional writes and versions run on a
Thrift1 backend made from a ``happybase.Connection`` and from a ``happybase.ConnectionPool``
(against the fake Thrift1 server, and a real HBase when ``HMODEL_TEST_HBASE`` is set):
the same results as on the default backend. Tables are created and dropped by the kit's
own backend of the target (so a real target's table pool keeps its books); every data
call goes through the happybase connection(s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

import happybase
import pytest

from hmodel.backend.base import Backend
from hmodel.backend.forwarding import ForwardingBackend
from hmodel.backend.thrift import ThriftBackend
from hmodel.testing.async_edge import pool_touch
from hmodel.testing.kit import open_target
from tests.contract import (
    test_check_and_mutate,
    test_counter,
    test_get,
    test_mutate,
    test_scan,
    test_versions,
)

P = ParamSpec("P")
T = TypeVar("T")

#: The Backend methods that carry data (sent through happybase); the others are the kit's.
_DATA = frozenset(
    {"get", "get_versions", "scan", "mutate", "increment", "increment_many", "check_and_put",
     "check_and_delete", "check_and_mutate", "append"}
)  # fmt: skip


class _ThroughHappybase(ForwardingBackend):
    """The kit's backend for tables; its data calls sent by a ``from_happybase`` backend."""

    def __init__(self, kit: Backend, handed: ThriftBackend) -> None:
        super().__init__(kit)
        self.handed = handed
        self._touch = pool_touch(kit)

    def _forward(
        self, method: str, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        if method not in _DATA:
            return call(*args, **kwargs)
        table = args[0]
        if self._touch is not None:
            self._touch(method, str(table))
        # A real target's prefix is settled by the kit backend's first call.
        if self.handed.table_prefix != self.inner.table_prefix:  # type: ignore[attr-defined]
            self.handed.table_prefix = self.inner.table_prefix  # type: ignore[attr-defined]
        result: T = getattr(self.handed, method)(*args, **kwargs)
        return result

    @property
    def round_trips(self) -> int:  # type: ignore[override]
        return self.inner.round_trips + self.handed.round_trips

    def close(self) -> None:
        self.handed.close()
        super().close()


@pytest.fixture(params=["thrift-connection", "thrift-pool", "hbase-connection", "hbase-pool"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The target's clean backend, its data calls through happybase's connection(s)."""
    target, kind = str(request.param).split("-")
    with open_target(target, request) as kit:
        assert isinstance(kit, ThriftBackend)
        prefix = kit.table_prefix
        options: dict[str, Any] = {"host": kit.host, "port": kit.port}
        source: Any = (
            happybase.Connection(**options)
            if kind == "connection"
            else happybase.ConnectionPool(2, **options)
        )
        handed = ThriftBackend.from_happybase(source, table_prefix=prefix)
        wanted = {c for mark in request.node.iter_markers("requires") for c in mark.args}
        missing = sorted(wanted - set(handed.capabilities))
        if missing:
            pytest.skip(f"ThriftBackend.from_happybase lacks {', '.join(missing)}")
        through = _ThroughHappybase(kit, handed)
        try:
            yield through
        finally:
            handed.close()
            if kind == "connection":
                source.close()


def _tests(*modules: Any) -> dict[str, Any]:
    """The tests of ``modules``, and the fixtures of their own they use."""
    return {
        name: value
        for module in modules
        for name, value in vars(module).items()
        if (name.startswith("test_") and callable(value))
        or type(value).__name__ == "FixtureFunctionDefinition"
    }


globals().update(
    _tests(test_get, test_mutate, test_scan, test_counter, test_check_and_mutate, test_versions)
)
