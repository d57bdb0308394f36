"""The sans-I/O core: operations written once as generators, run by a sync or an async driver.

An operation is a generator that *yields* the calls it needs made (a :class:`Call`: the
name of a method of the object it runs against, and the arguments) and *receives* each
call's result (or has its exception thrown in at the ``yield``). It decides what to send
and how to read the answer, and performs no I/O: as h11 and httpcore keep their protocol
apart from their sockets. Two thin drivers perform the calls:

* :func:`run` against synchronous objects (a :class:`~hmodel.backend.base.Backend`);
* :func:`arun` against asynchronous ones (an
  :class:`~hmodel.backend.aio.AsyncBackend`), awaiting each call.

A *stream* operation also yields the items it produces, anything that is not a
:class:`Request`; :func:`iterate` and :func:`aiterate` turn one into an iterator or an
async iterator. Scans are read through three requests: :class:`OpenScan` gives a
handle, :class:`ScanNext` the handle's next rows (``[]`` when none are left) and
:class:`CloseScan` releases it. :class:`Pause` waits (``time.sleep`` or
``asyncio.sleep``): a retry that found another writer mid-way backs off through it. A
driver closes every scan an operation left open when the operation ends, however it
ends (an exception, ``close()``, a cancelled task), so an operation never has to yield
while being closed.

Both drivers are the only per-edge code; everything an operation decides is decided once.

>>> def double(row):
...     got = yield Call("lookup", (row,))
...     return got * 2
>>> class Store:
...     def lookup(self, row):
...         return len(row)
>>> run(double(b"abc"), Store())
6
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Iterator, Mapping
from itertools import islice
from typing import Any, TypeVar

import attrs

from hmodel.errors import TableExistsError
from hmodel.schema import Table

__all__ = [
    "BACKOFF_CAP_MS",
    "BACKOFF_FIRST_MS",
    "Call",
    "CloseScan",
    "Items",
    "Op",
    "OpenScan",
    "Pause",
    "Request",
    "ScanNext",
    "aiterate",
    "arun",
    "backoff_op",
    "create_tables_op",
    "iterate",
    "rpc",
    "run",
]

T = TypeVar("T")

_NO_KWARGS: Mapping[str, Any] = {}


class Request:
    """The base of what an operation yields to be performed (never an item it produces)."""

    __slots__ = ()


class Call(Request):
    """Call ``method(*args, **kwargs)`` on the object the operation runs against.

    Treat it as immutable. A plain slotted class rather than a frozen attrs class: every
    backend call of every operation makes one, and a frozen class's ``__init__`` (through
    ``object.__setattr__``) cost about as much as the rest of the sync driver.

    Attributes:
        method: A method name, e.g. ``"get"`` of the
            :class:`~hmodel.backend.base.Backend` protocol.
        args: Positional arguments.
        kwargs: Keyword arguments.
    """

    __slots__ = ("args", "kwargs", "method")

    def __init__(
        self, method: str, args: tuple[Any, ...] = (), kwargs: Mapping[str, Any] = _NO_KWARGS
    ) -> None:
        self.method = method
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        return f"Call(method={self.method!r}, args={self.args!r}, kwargs={self.kwargs!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Call:
            return NotImplemented
        return (self.method, self.args, self.kwargs) == (other.method, other.args, other.kwargs)

    __hash__ = None  # type: ignore[assignment]  # kwargs is a mapping: not hashable


@attrs.frozen(weakref_slot=False)
class OpenScan(Request):
    """Open ``scan(table, scan)``; the operation receives a handle for :class:`ScanNext`."""

    table: str
    scan: Any


@attrs.frozen(weakref_slot=False)
class ScanNext(Request):
    """The next at most ``count`` rows of an open scan (a list; ``[]``: none left).

    Rows are taken as the backend fetches them: asking for the scan's batch size costs at
    most the round trip that fetches them.
    """

    handle: Any
    count: int


@attrs.frozen(weakref_slot=False)
class CloseScan(Request):
    """Release an open scan (its server-side scanner) before its rows run out."""

    handle: Any


class Items(list):  # type: ignore[type-arg]  # any items, as a stream's are
    """Several items of a stream at once, in order, handed on one by one by the drivers.

    :func:`iterate` and :func:`aiterate` give each item as if it had been yielded alone.
    A stream that produces its items a batch at a time (a scan) yields one per batch
    rather than passing each item through its generator: at a scan's rate of rows, a
    generator hop per row was a tenth of the client's time. Only streams run by those
    two drivers yield them; :func:`~hmodel.patterns.storelike.pull` refuses one.
    """

    __slots__ = ()


@attrs.frozen(weakref_slot=False)
class Pause(Request):
    """Wait ``seconds`` before the next request; the operation receives ``None``.

    The synchronous drivers sleep (``time.sleep``: the thread waits, other threads run),
    the asyncio ones ``await asyncio.sleep`` (other tasks run). A retry against another
    writer's work in progress yields one (see :func:`backoff_op`), so the other writer
    gets the time to finish instead of the retries running out while it does.
    """

    seconds: float


#: The first pause of :func:`backoff_op`, in milliseconds.
BACKOFF_FIRST_MS = 1.0
#: The longest pause of :func:`backoff_op`, in milliseconds.
BACKOFF_CAP_MS = 100.0


def backoff_op(attempt: int, *, jitter: Callable[[], float] = random.random) -> Op[None]:
    """Pause before retry ``attempt`` (0: the first try, no pause), jittered exponentially.

    Retry ``n`` (``n >= 1``) waits ``min(BACKOFF_CAP_MS, BACKOFF_FIRST_MS * 2 ** (n - 1))``
    milliseconds times a factor in ``[0.5, 1.0)`` (``0.5 + jitter() / 2``), so two
    writers that collided do not retry in step. Twenty attempts wait at most about
    1.3 s in all (at least 0.66 s).

    Args:
        attempt: How many tries came before this one.
        jitter: A source of floats in ``[0, 1)`` (inject a constant in tests).
    """
    if attempt <= 0:
        return
    ms = min(BACKOFF_CAP_MS, BACKOFF_FIRST_MS * 2.0 ** min(attempt - 1, 32))
    yield Pause(ms * (0.5 + jitter() / 2) / 1000.0)


#: An operation: yields requests, receives their results, returns ``T``.
Op = Generator[Any, Any, T]


def rpc(method: str, *args: Any, **context: Any) -> Call:
    """The request to send ``method(*args)`` through a Thrift backend's ``_rpc``.

    An operation of a Thrift backend runs against its ``_rpc`` (a callable: the request
    calls it); ``context`` is ``_rpc``'s keywords (``retry``, ``table``, ``row``...). The
    synchronous and the asyncio backends each perform it with their own ``_rpc``.
    """
    return Call("__call__", (method, *args), context)


def _close_sync(handle: Any) -> None:
    close = getattr(handle, "close", None)
    if close is not None:
        close()


async def _close_async(handle: Any) -> None:
    aclose = getattr(handle, "aclose", None)
    if aclose is not None:
        await aclose()


def _perform(request: Any, target: Any, scans: dict[int, Any]) -> Any:
    """Perform one request synchronously (a helper of :func:`run` and :func:`iterate`)."""
    kind = type(request)
    if kind is Call:
        return getattr(target, request.method)(*request.args, **request.kwargs)
    if kind is ScanNext:
        take = getattr(request.handle, "take", None)  # a batch at once (Thrift scanners)
        if take is not None:
            return take(request.count)
        return list(islice(request.handle, request.count))
    if kind is OpenScan:
        handle = target.scan(request.table, request.scan)
        scans[id(handle)] = handle
        return handle
    if kind is CloseScan:
        scans.pop(id(request.handle), None)
        _close_sync(request.handle)
        return None
    if kind is Pause:
        time.sleep(request.seconds)
        return None
    raise TypeError(f"an operation yielded {request!r}, which is no request")


async def _aperform(request: Any, target: Any, scans: dict[int, Any]) -> Any:
    """Perform one request by awaiting it (a helper of :func:`arun` and :func:`aiterate`)."""
    kind = type(request)
    if kind is Call:
        return await getattr(target, request.method)(*request.args, **request.kwargs)
    if kind is ScanNext:
        rows: list[Any] = []
        handle = request.handle
        while len(rows) < request.count:
            try:
                rows.append(await handle.__anext__())
            except StopAsyncIteration:
                break
        return rows
    if kind is OpenScan:
        handle = await target.scan(request.table, request.scan)
        scans[id(handle)] = handle
        return handle
    if kind is CloseScan:
        scans.pop(id(request.handle), None)
        await _close_async(request.handle)
        return None
    if kind is Pause:
        await asyncio.sleep(request.seconds)
        return None
    raise TypeError(f"an operation yielded {request!r}, which is no request")


def run(op: Op[T], target: Any) -> T:
    """Run ``op`` to its end against a synchronous ``target``; return its value.

    Each request is performed and its result sent back in, or its exception thrown in
    at the ``yield`` (so the operation's ``try``/``except`` see the backend's errors).

    Most operations yield one :class:`Call` and return: that case is run inline (no scan
    bookkeeping, no ``finally``); anything else continues in the general loop, so both
    behave the same.
    """
    try:
        request = op.send(None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    if type(request) is not Call:
        return _run(op, target, request, None)
    try:
        result = getattr(target, request.method)(*request.args, **request.kwargs)
    except BaseException as exc:  # thrown in at the ``yield``, as the general loop does
        return _run(op, target, None, exc)
    try:
        request = op.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    return _run(op, target, request, None)


def _run(op: Op[T], target: Any, request: Any, error: BaseException | None) -> T:
    """:func:`run`'s general loop: perform ``request`` (or throw ``error`` in) and go on."""
    scans: dict[int, Any] = {}
    send: Any = None
    try:
        while True:
            if error is None:
                try:
                    send = _perform(request, target, scans)
                except BaseException as exc:
                    error, send = exc, None
            try:
                request = op.send(send) if error is None else op.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            error = None
    finally:
        op.close()
        for handle in scans.values():
            _close_sync(handle)
        del error  # no reference cycle through the traceback


async def arun(op: Op[T], target: Any) -> T:
    """Run ``op`` to its end against an asynchronous ``target``, awaiting each request.

    As :func:`run`. A cancellation while a request is awaited is thrown into the
    operation like any exception; the scans it opened are closed as it ends.
    """
    scans: dict[int, Any] = {}
    send: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                request = op.send(send) if error is None else op.throw(error)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            error = None
            try:
                send = await _aperform(request, target, scans)
            except BaseException as exc:
                error, send = exc, None
    finally:
        op.close()
        for handle in scans.values():
            await _close_async(handle)
        del error


def iterate(op: Op[None], target: Any) -> Iterator[Any]:
    """The items a stream operation yields, performing its requests on ``target`` between.

    Closing the iterator closes the operation and the scans it left open.
    """
    scans: dict[int, Any] = {}
    send: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                yielded = op.send(send) if error is None else op.throw(error)
            except StopIteration:
                return
            error = None
            send = None
            if not isinstance(yielded, Request):
                if type(yielded) is Items:
                    yield from yielded
                else:
                    yield yielded
                continue
            try:
                send = _perform(yielded, target, scans)
            except BaseException as exc:
                error = exc
    finally:
        op.close()
        for handle in scans.values():
            _close_sync(handle)
        del error


async def aiterate(op: Op[None], target: Any) -> AsyncIterator[Any]:
    """As :func:`iterate`, as an async iterator over an asynchronous ``target``.

    Close it (``aclose()``, or leave ``async for`` through its end) to release the scans
    at once; one abandoned is closed when the event loop finalizes it.
    """
    scans: dict[int, Any] = {}
    send: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                yielded = op.send(send) if error is None else op.throw(error)
            except StopIteration:
                return
            error = None
            send = None
            if not isinstance(yielded, Request):
                if type(yielded) is Items:
                    for item in yielded:
                        yield item
                else:
                    yield yielded
                continue
            try:
                send = await _aperform(yielded, target, scans)
            except BaseException as exc:
                error = exc
    finally:
        op.close()
        for handle in scans.values():
            await _close_async(handle)
        del error


def create_tables_op(tables: Iterable[Table], *, exist_ok: bool) -> Op[None]:
    """Create each of ``tables`` (one ``create_table`` each), on either edge.

    Raises:
        TableExistsError: A table exists and ``exist_ok`` is false (the tables before it
            are created).
    """
    for table in tables:
        try:
            yield Call("create_table", (table,), {})
        except TableExistsError:
            if not exist_ok:
                raise
