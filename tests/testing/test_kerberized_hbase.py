"""A real HBase 2.6 in secure mode: the SASL transport against HBase's own Thrift servers.

Opt-in (three more JVMs, about a minute to start): ``HMODEL_TEST_KERBERIZED_HBASE=1``,
with the Thrift servers' QOP from ``HMODEL_TEST_KERBERIZED_QOP`` (default ``auth-conf``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hmodel.backend.base import Backend, Put
from hmodel.backend.sasl import Kerberos
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import AuthenticationError, ConnectionLostError
from hmodel.schema import Family, Table
from hmodel.testing.hbase_process import find_java
from hmodel.testing.kdc import LoopbackKdc
from hmodel.testing.kerberized_hbase import KerberizedHBase

VARIABLE = "HMODEL_TEST_KERBERIZED_HBASE"
QOP = os.environ.get("HMODEL_TEST_KERBERIZED_QOP", "auth-conf")
OTHER_QOP = "auth" if QOP != "auth" else "auth-conf"


@pytest.fixture(scope="module")
def secured(hmodel_kdc: LoopbackKdc) -> Iterator[KerberizedHBase]:
    """A kerberized standalone HBase with both Thrift servers requiring SASL with QOP."""
    if os.environ.get(VARIABLE) != "1":
        pytest.skip(f"{VARIABLE}=1 not set: the kerberized real HBase is not started")
    if find_java() is None:
        pytest.skip("no java (install a JDK 17): no real HBase is started")
    with KerberizedHBase(hmodel_kdc, qop=QOP) as hbase:
        yield hbase


def open_backend(secured: KerberizedHBase, kind: str, sasl: Kerberos | None) -> Backend:
    host, port = secured.thrift_address if kind == "thrift" else secured.thrift2_address
    backend_class = ThriftBackend if kind == "thrift" else Thrift2Backend
    return backend_class(host, port, timeout_ms=60_000, retries=0, sasl=sasl)


@pytest.mark.parametrize("kind", ["thrift", "thrift2"])
def test_a_kerberized_hbase_serves_an_authenticated_client(
    secured: KerberizedHBase, kind: str
) -> None:
    with open_backend(secured, kind, secured.sasl()) as backend:
        table = f"hmodel_krb_{kind}"
        backend.create_table(Table(table, [Family("f")]))
        try:
            backend.mutate(table, [Put(b"row", b"f:q", b"over SASL")])
            assert backend.get(table, [b"row"])[0].value(b"f:q") == b"over SASL"
        finally:
            backend.delete_table(table)


@pytest.mark.parametrize("kind", ["thrift", "thrift2"])
def test_a_kerberized_hbase_refuses_a_client_without_a_ticket(
    secured: KerberizedHBase, kind: str, tmp_path: Path
) -> None:
    sasl = Kerberos(host="localhost", qop=QOP, ccache=f"FILE:{tmp_path / 'empty'}")
    with pytest.raises(AuthenticationError, match="default principal"):
        open_backend(secured, kind, sasl)


def test_a_kerberized_hbase_refuses_another_qop(secured: KerberizedHBase) -> None:
    with pytest.raises(AuthenticationError, match="client accepts"):
        open_backend(secured, "thrift2", secured.sasl(OTHER_QOP))


def test_a_kerberized_hbase_drops_a_client_that_does_not_authenticate(
    secured: KerberizedHBase,
) -> None:
    backend = open_backend(secured, "thrift", None)
    try:
        with pytest.raises(ConnectionLostError):
            backend.list_tables()
    finally:
        backend.close()
