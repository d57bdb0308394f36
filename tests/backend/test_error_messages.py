"""Error messages name their context once, on every backend, and the CLI prints them clean."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend, Scan
from hmodel.cli import describe
from hmodel.errors import InputError, TableNotFoundError


def test_a_context_item_the_message_already_quotes_is_not_repeated() -> None:
    error = TableNotFoundError("no such table (table='bookmark')", table="bookmark", row=b"r")
    assert str(error) == "no such table (table='bookmark') (row=b'r')"
    assert str(TableNotFoundError("gone", table="t")) == "gone (table='t')"


def test_a_missing_table_names_it_once(backend: Backend) -> None:
    """Over Thrift the fake server's answer quotes its own error: still one suffix."""
    with pytest.raises(TableNotFoundError) as info:
        list(backend.scan("bookmark", Scan()))
    assert str(info.value).count("table='bookmark'") <= 1
    assert info.value.table == "bookmark"


def test_the_cli_prints_the_message_and_only_the_context_it_lacks() -> None:
    assert describe(InputError("cannot import module 'x': No module named 'x'", value="x")) == (
        "cannot import module 'x': No module named 'x'"
    )
    assert describe(TableNotFoundError("no such table", table="bookmark")) == (
        "no such table (table 'bookmark')"
    )


def test_a_missing_table_over_thrift_says_both_names_and_what_creates_it(
    backend: Backend,
) -> None:
    """The name the server lacks (table prefix applied) and the declared one, and the fix."""
    if not hasattr(backend, "url"):
        pytest.skip("the in-process engine has one name per table")
    server = backend.server_table_name("no_such_errs")
    for read in (
        lambda: backend.get("no_such_errs", [b"r"]),
        lambda: list(backend.scan("no_such_errs", Scan())),
    ):
        with pytest.raises(TableNotFoundError) as info:
            read()
        message = str(info.value)
        assert f"no table {server!r}" in message
        assert "create_table()" in message and "hmodel migrate" in message
        if server != "no_such_errs":
            assert "(declared as 'no_such_errs')" in message


def test_a_client_on_the_other_protocols_port_is_told_so(backend: Backend) -> None:
    """A Thrift2 backend pointed at the Thrift1 port (and the reverse) says which it is."""
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend
    from hmodel.errors import UnsupportedOperationError

    if type(backend) not in (ThriftBackend, Thrift2Backend):
        pytest.skip("needs a plain Thrift backend: its host and port are the other's peer")
    other = {ThriftBackend: Thrift2Backend, Thrift2Backend: ThriftBackend}[type(backend)]
    mine, theirs = other.protocols
    wrong = other(backend.host, backend.port, retries=0)  # type: ignore[attr-defined]
    try:
        with pytest.raises(UnsupportedOperationError) as info:
            wrong.table_exists("anything")
    finally:
        wrong.close()
    assert f"not an HBase {mine} server: is it the {theirs} one?" in str(info.value)


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # bound, never listening: connections are refused
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize("protocol", ["Thrift1", "Thrift2"])
def test_a_refused_connection_says_what_to_start(protocol: str) -> None:
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend
    from hmodel.errors import ConnectionLostError

    backend_class = ThriftBackend if protocol == "Thrift1" else Thrift2Backend
    with pytest.raises(ConnectionLostError) as info:
        backend_class("127.0.0.1", _closed_port(), retries=0)
    command = "hbase thrift start" if protocol == "Thrift1" else "hbase thrift2 start"
    assert f"nothing listens there: is HBase's {protocol} server (`{command}`)" in str(info.value)
    assert "hmodel fake-hbase" in str(info.value)


def test_a_refused_asyncio_connection_says_so_too() -> None:
    import asyncio

    from hmodel.backend.thrift2 import AsyncThrift2Backend
    from hmodel.errors import ConnectionLostError

    async def main() -> None:
        backend = AsyncThrift2Backend("127.0.0.1", _closed_port(), retries=0)
        try:
            await backend.get("t", [b"r"])
        finally:
            await backend.aclose()

    with pytest.raises(ConnectionLostError, match="nothing listens there"):
        asyncio.run(main())


def test_a_host_that_does_not_resolve_is_named() -> None:
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.errors import ConnectionLostError

    with pytest.raises(ConnectionLostError, match="the host name does not resolve"):
        ThriftBackend("no-such-host.invalid", 9090, retries=0)
