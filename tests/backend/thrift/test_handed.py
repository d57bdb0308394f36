"""ThriftBackend.from_happybase takes a handed connection's settings and leaves it the caller's."""

from __future__ import annotations

from typing import Any

import happybase
import pytest

from hmodel.backend.base import Put
from hmodel.backend.thrift import ThriftBackend
from hmodel.errors import IllegalArgumentError
from hmodel.schema import Family, Table


def test_a_handed_connection_gives_its_prefix_and_stays_open_after_close(
    fake_hbase_server: Any,
) -> None:
    connection = happybase.Connection(
        fake_hbase_server.host, fake_hbase_server.port, table_prefix="handed"
    )
    backend = ThriftBackend.from_happybase(connection)
    try:
        assert backend.table_prefix == "handed" and backend.table_prefix_separator == "_"
        backend.create_table(Table("t", [Family("f")]))
        backend.mutate("t", [Put(b"r", b"f:q", b"v")])
        assert connection.table("t").row(b"r") == {b"f:q": b"v"}  # the same table
        assert backend.round_trips >= 2
    finally:
        backend.delete_table("t")
        backend.close()
    assert connection.transport.is_open()  # the caller's, not closed with the backend
    connection.close()


def test_a_connection_the_caller_closed_is_reopened_for_the_next_call(
    fake_hbase_server: Any,
) -> None:
    connection = happybase.Connection(fake_hbase_server.host, fake_hbase_server.port)
    with ThriftBackend.from_happybase(connection) as backend:
        backend.list_tables()
        connection.close()
        assert backend.list_tables() == backend.list_tables()
    connection.close()


@pytest.mark.parametrize("source", [None, "localhost:9090", object()])
def test_anything_but_a_happybase_connection_or_pool_is_refused(source: object) -> None:
    with pytest.raises(IllegalArgumentError, match=r"happybase\.Connection"):
        ThriftBackend.from_happybase(source)
