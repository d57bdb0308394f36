"""real_hbase(): the HMODEL_TEST_HBASE address, a testcontainer, or a clear skip."""

from __future__ import annotations

import socket

import pytest

from hmodel.backend.thrift import ThriftBackend
from hmodel.errors import BackendError, IllegalArgumentError
from hmodel.testing import FakeHBaseServer
from hmodel.testing.hbase_container import (
    ADDRESS_VARIABLE,
    SKIP_REASON,
    docker_available,
    parse_address,
    real_hbase,
    wait_for_thrift,
)


def test_without_docker_or_address_real_hbase_tests_are_skipped_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if docker_available():
        pytest.skip("a Docker engine answers here: the no-Docker path cannot be observed")
    monkeypatch.delenv(ADDRESS_VARIABLE, raising=False)
    skipped = pytest.raises(pytest.skip.Exception, match="no Docker engine and HMODEL_TEST_HBASE")
    with skipped, real_hbase():
        raise AssertionError("must not be reached")
    assert "real-HBase tests skipped" in SKIP_REASON


def test_the_address_variable_is_used_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeHBaseServer() as server:
        monkeypatch.setenv(ADDRESS_VARIABLE, f"{server.host}:{server.port}")
        with real_hbase() as (host, port):
            assert (host, port) == (server.host, server.port)
            with ThriftBackend(host, port) as backend:
                assert backend.list_tables() == []


@pytest.mark.parametrize(
    ("text", "address"),
    [("localhost:9090", ("localhost", 9090)), ("[::1]:9091", ("::1", 9091)), (" h:1 ", ("h", 1))],
)
def test_addresses_parse_as_host_and_port(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize("text", ["localhost", ":9090", "h:port", "h:0", "h:65536"])
def test_a_bad_address_is_refused_naming_the_variable(text: str) -> None:
    with pytest.raises(IllegalArgumentError, match=ADDRESS_VARIABLE):
        parse_address(text)


def test_waiting_for_a_live_server_returns_at_once() -> None:
    with FakeHBaseServer() as server:
        wait_for_thrift(server.host, server.port, sleep=lambda s: pytest.fail("slept"))


def test_waiting_for_a_silent_server_gives_up_at_the_deadline() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    with pytest.raises(BackendError, match="did not answer in 3 s"):
        wait_for_thrift("127.0.0.1", port, timeout_s=3, sleep=sleep, clock=lambda: now[0])
    assert now[0] == 3.0
