"""The asyncio Thrift connection's protocol: waits, its one timer, paused writes, the end.

Driven by hand: a transport that records what is written, bytes and losses fed as the
loop would feed them, and a loop whose clock the test sets (no sleeps, no timed
assertions: a timer fires when the test moves the clock past it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from thriftpy2.transport import TTransportException

from hmodel.backend.aio_pool import _ProtocolSocket


class ClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose time is what the test sets."""

    now = 0.0

    def time(self) -> float:
        return self.now


class Transport(asyncio.Transport):
    """Records writes; no socket (so no readability check)."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


def drive(scenario: Callable[[ClockLoop, _ProtocolSocket, Transport], Awaitable[None]]) -> None:
    loop = ClockLoop()

    async def main() -> None:
        sock = _ProtocolSocket(timeout=1.0)
        transport = Transport()
        sock.connection_made(transport)
        await scenario(loop, sock, transport)

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()


async def turns(count: int = 3) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


def test_bytes_wake_the_waiting_read_and_a_read_takes_what_came_up_to_its_size() -> None:
    async def scenario(loop: ClockLoop, sock: _ProtocolSocket, transport: Transport) -> None:
        sock.write(b"request")
        await sock.flush()
        assert transport.written == [b"request"]  # sent at once, no drain
        read = asyncio.ensure_future(sock.read(5))
        await turns()
        assert not read.done()
        sock.data_received(b"abc")
        sock.data_received(b"defg")
        assert await read == b"abcde"  # what came before the read ran, cut at size
        assert await sock.read(10) == b"fg"
        assert not sock.stale()

    drive(scenario)


def test_each_wait_gets_the_whole_timeout_however_long_the_reply_takes() -> None:
    async def scenario(loop: ClockLoop, sock: _ProtocolSocket, transport: Transport) -> None:
        read = asyncio.ensure_future(sock.read(10))
        await turns()  # waits from 0.0: the connection's timer set for 1.0
        loop.now = 0.9
        sock.data_received(b"a")
        assert await read == b"a"
        read = asyncio.ensure_future(sock.read(10))
        await turns()  # waits from 0.9
        loop.now = 1.5
        await turns()  # the timer fires for a wait of 0.6 s: moved on to 1.9
        assert not read.done()
        loop.now = 1.95
        await turns()
        with pytest.raises(asyncio.TimeoutError):
            await read

    drive(scenario)


def test_an_idle_connection_never_times_out() -> None:
    async def scenario(loop: ClockLoop, sock: _ProtocolSocket, transport: Transport) -> None:
        read = asyncio.ensure_future(sock.read(10))
        await turns()
        sock.data_received(b"a")
        assert await read == b"a"
        loop.now = 5.0
        await turns()  # the timer fires with no wait: nothing happens
        assert sock.is_open() and not sock.stale()

    drive(scenario)


def test_a_write_waits_only_while_the_transport_is_paused_and_within_the_timeout() -> None:
    async def scenario(loop: ClockLoop, sock: _ProtocolSocket, transport: Transport) -> None:
        sock.pause_writing()
        flush = asyncio.ensure_future(sock.flush())
        await turns()
        assert not flush.done()
        sock.resume_writing()
        await flush
        sock.pause_writing()
        flush = asyncio.ensure_future(sock.flush())
        await turns()
        loop.now = 1.0
        await turns()
        with pytest.raises(asyncio.TimeoutError):
            await flush

    drive(scenario)


def test_the_end_of_the_connection_comes_after_its_bytes_as_the_streams_said_it() -> None:
    async def scenario(loop: ClockLoop, sock: _ProtocolSocket, transport: Transport) -> None:
        read = asyncio.ensure_future(sock.read(10))
        await turns()
        sock.data_received(b"last")
        sock.eof_received()
        sock.connection_lost(None)
        assert await read == b"last"
        with pytest.raises(TTransportException) as ended:
            await sock.read(10)
        assert ended.value.type == TTransportException.END_OF_FILE
        with pytest.raises(ConnectionResetError):
            await sock.flush()
        assert sock.stale() and not sock.is_open()

    drive(scenario)


def test_a_broken_connection_fails_the_waiting_read_with_the_loops_error() -> None:
    async def scenario(loop: ClockLoop, sock: _ProtocolSocket, transport: Transport) -> None:
        read = asyncio.ensure_future(sock.read(10))
        await turns()
        broken = ConnectionResetError("reset by peer")
        sock.connection_lost(broken)
        with pytest.raises(ConnectionResetError) as raised:
            await read
        assert raised.value is broken

    drive(scenario)


def test_bytes_nobody_asked_for_make_an_idle_connection_stale() -> None:
    async def scenario(loop: ClockLoop, sock: _ProtocolSocket, transport: Transport) -> None:
        assert not sock.stale()
        sock.data_received(b"x")
        assert sock.stale()
        sock.close()
        assert transport.closed and sock.stale()

    drive(scenario)


def test_a_cancelled_read_leaves_no_waiter_behind() -> None:
    async def scenario(loop: ClockLoop, sock: _ProtocolSocket, transport: Transport) -> None:
        read = asyncio.ensure_future(sock.read(10))
        await turns()
        read.cancel()
        with pytest.raises(asyncio.CancelledError):
            await read
        sock.data_received(b"late")  # no waiter to wake: kept, the connection stale
        assert sock.stale()

    drive(scenario)
