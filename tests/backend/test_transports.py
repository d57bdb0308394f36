"""Every transport carries the protocol: socket, TLS, HTTP and HTTPS, fake and real servers.

Marked ``transports(real=True)``: each test runs on the five plain targets, on both
backends against the fake servers over TLS, HTTP and HTTPS, and against a real HBase's
Thrift1 and Thrift2 servers in HTTP mode without and with TLS
(``hbase.regionserver.thrift.http``, ``hbase.thrift.ssl.enabled``), which the kit starts
beside the real cluster when one is there.
"""

from __future__ import annotations

from typing import Any

import pytest

from hmodel.backend.base import Backend, Delete, Put, Scan
from hmodel.backend.endpoint import TLS
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import (
    ColumnFamilyNotFoundError,
    ConnectionLostError,
    TableNotFoundError,
    TLSError,
)
from hmodel.schema import Family, Table

pytestmark = pytest.mark.transports(real=True)


@pytest.fixture
def table(backend: Backend) -> str:
    """A fresh table ``wire`` with family ``f`` (3 versions)."""
    backend.create_table(Table("wire", [Family("f", versions=3)]))
    return "wire"


def test_put_get_and_delete_round_trip(backend: Backend, table: str) -> None:
    backend.mutate(table, [Put(b"r1", b"f:a", b"\x00\xff", timestamp=10)])
    backend.mutate(table, [Put(b"r1", b"f:a", b"two", timestamp=20)])
    [result] = backend.get(table, [b"r1"])
    assert result.value(b"f:a") == b"two"
    versions = backend.get_versions(table, b"r1", b"f:a", max_versions=3)
    assert [cell.value for cell in versions] == [b"two", b"\x00\xff"]
    backend.mutate(table, [Delete(b"r1")])
    assert backend.get(table, [b"r1"]) == []


def test_a_scan_pages_over_the_transport(backend: Backend, table: str) -> None:
    backend.mutate(table, [Put(b"k%02d" % i, b"f:q", b"v%d" % i, timestamp=1) for i in range(25)])
    rows = [r.row for r in backend.scan(table, Scan(start=b"k03", stop=b"k21", batch_size=4))]
    assert rows == [b"k%02d" % i for i in range(3, 21)]
    reverse = backend.scan(table, Scan(start=b"k20", stop=b"k25", batch_size=2, reverse=True))
    assert [r.row for r in reverse] == [b"k%02d" % i for i in range(24, 19, -1)]


def test_counters_and_conditional_writes(backend: Backend, table: str) -> None:
    assert backend.increment(table, b"c", b"f:n", 5) == 5
    assert backend.increment(table, b"c", b"f:n", -2) == 3
    assert backend.check_and_put(table, b"p", b"f:q", None, Put(b"p", b"f:q", b"first"))
    assert not backend.check_and_put(table, b"p", b"f:q", None, Put(b"p", b"f:q", b"again"))
    assert backend.get(table, [b"p"])[0].value(b"f:q") == b"first"


def test_server_errors_arrive_typed(backend: Backend, table: str) -> None:
    with pytest.raises(TableNotFoundError):
        backend.get("no_such_table", [b"r"])
    with pytest.raises(ColumnFamilyNotFoundError):
        backend.mutate(table, [Put(b"r", b"nope:q", b"v", timestamp=1)])
    assert backend.get(table, [b"r"]) == []  # and the connection goes on


# --- the real Thrift HTTP servers ---------------------------------------------------------

KINDS: dict[str, Any] = {"thrift": ThriftBackend, "thrift2": Thrift2Backend}


@pytest.fixture(scope="module")
def real_servers(request: pytest.FixtureRequest) -> Any:
    """The real cluster's Thrift HTTP(S) servers (skipped without a real HBase)."""
    servers = request.getfixturevalue("hmodel_real_hbase_transports")
    servers.start(*((role, t) for role in KINDS for t in ("http", "https")))
    return servers


@pytest.mark.hbase
@pytest.mark.parametrize("role", KINDS)
def test_a_real_https_server_s_certificate_is_verified(real_servers: Any, role: str) -> None:
    """Against the system's CAs the test certificate is refused; against its own, accepted."""
    host, port = real_servers.address(role, "https")
    with pytest.raises(TLSError, match="not accepted"):
        KINDS[role](host, port, http=True, tls=TLS(), retries=0)
    with pytest.raises(TLSError, match="server_hostname"):
        KINDS[role](
            host,
            port,
            http=True,
            tls=TLS(ca_file=real_servers.ca_file, server_hostname="db.example"),
        )
    with KINDS[role](host, port, http=True, tls=TLS(ca_file=real_servers.ca_file)) as backend:
        assert isinstance(backend.list_tables(), list)


@pytest.mark.hbase
@pytest.mark.parametrize("role", KINDS)
def test_the_real_servlet_answers_at_any_path_and_refuses_plain_http_on_its_tls_port(
    real_servers: Any, role: str
) -> None:
    host, port = real_servers.address(role, "http")
    with KINDS[role].from_url(f"http://{host}:{port}/gateway/default/hbase") as backend:
        assert isinstance(backend.list_tables(), list)
    host, port = real_servers.address(role, "https")
    with (
        KINDS[role].from_url(f"http://{host}:{port}/", retries=0) as plain,
        pytest.raises(ConnectionLostError, match="speaks HTTPS"),
    ):
        plain.list_tables()
