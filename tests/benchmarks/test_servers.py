"""The benchmarks' server choice: the running HBase the kit names, else the fake in a process."""

from __future__ import annotations

import pytest

from bench.servers import SERVER_VARIABLE, servers


def test_the_kit_addresses_are_used_as_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    """HMODEL_TEST_HBASE and HMODEL_TEST_HBASE2 name a real HBase; tables go under the prefix."""
    monkeypatch.delenv(SERVER_VARIABLE, raising=False)
    monkeypatch.setenv("HMODEL_TEST_HBASE", "10.1.2.3:9090")
    monkeypatch.setenv("HMODEL_TEST_HBASE2", "10.1.2.3:9095")
    monkeypatch.setenv("HMODEL_TEST_PREFIX", "h_mine")
    with servers() as server:
        assert server.real
        assert server.thrift1 == ("10.1.2.3", 9090)
        assert server.thrift2 == ("10.1.2.3", 9095)
        assert server.prefix == "h_mine"
        assert "HMODEL_TEST_HBASE=10.1.2.3:9090" in server.what


def test_fake_is_forced_by_the_variable_and_serves_both_apis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HMODEL_BENCH_SERVER=fake starts hmodel fake-hbase, Thrift1 and Thrift2, unprefixed."""
    import happybase

    from hmodel.backend.thrift2 import Thrift2Backend

    monkeypatch.setenv(SERVER_VARIABLE, "fake")
    monkeypatch.setenv("HMODEL_TEST_HBASE", "10.1.2.3:9090")
    monkeypatch.setenv("HMODEL_TEST_HBASE2", "10.1.2.3:9095")
    with servers() as server:
        assert not server.real
        assert server.prefix is None
        connection = happybase.Connection(*server.thrift1, timeout=10_000)
        try:
            assert connection.tables() == []
        finally:
            connection.close()
        backend = Thrift2Backend(*server.thrift2, retry_backoff_ms=0)
        try:
            assert backend.list_tables() == []
        finally:
            backend.close()
