"""One place that counts a repository call's round trips and tells the listeners."""

from __future__ import annotations

import time
from collections.abc import Sequence

from hmodel.backend.base import Backend
from hmodel.backend.retry import RetryRecord, collected_retries
from hmodel.repository.event import Listener, QueryEvent

__all__ = ["Call", "Instrument"]


class Call:
    """What one call reports: set ``results`` (and ``rows`` or ``plan``) before it ends.

    A plain slotted class (one is made per repository call).

    Attributes:
        rows: The rowkeys the call touches.
        plan: The scan plan, described.
        results: How many results the call returned or wrote.
        started_ns: When it started, ``time.time_ns()``.
        monotonic_ns: When it started, ``time.perf_counter_ns()`` (for the duration).
    """

    __slots__ = ("monotonic_ns", "plan", "results", "rows", "started_ns")

    def __init__(self, rows: tuple[bytes, ...] = (), plan: str | None = None) -> None:
        self.rows = rows
        self.plan = plan
        self.results = 0
        self.started_ns = _now_ns()
        self.monotonic_ns = _perf_ns()

    def __repr__(self) -> str:
        return f"Call(rows={self.rows!r}, plan={self.plan!r}, results={self.results})"


_now_ns, _perf_ns = time.time_ns, time.perf_counter_ns


class Instrument:
    """Measures calls against one backend and emits a :class:`QueryEvent` for each.

    Args:
        table: The table named in the events.
        backend: Whose ``round_trips`` counter measures the calls.
        listeners: Told of every event, in order.
    """

    def __init__(self, table: str, backend: Backend, listeners: Sequence[Listener] = ()) -> None:
        self.table = table
        self.backend = backend
        self.listeners = list(listeners)
        self._server_table: str | None = None

    def call(
        self, operation: str, *, rows: tuple[bytes, ...] = (), always: bool = False
    ) -> _Measured:
        """Measure the ``with`` block as ``operation``; emit when it ends.

        A block that raises an :class:`Exception` emits an event carrying it
        (``QueryEvent.error``). ``always`` also emits when a generator using the block is
        closed early (scans report what they returned before being abandoned). The block
        gets the :class:`Call` to fill in.
        """
        return _Measured(self, operation, rows, always)

    def emit(
        self,
        operation: str,
        before: int,
        call: Call,
        error: Exception | None = None,
        retries: tuple[RetryRecord, ...] = (),
    ) -> None:
        """Tell the listeners of ``call``, which started when ``round_trips`` was ``before``.

        ``error``: what the call raised, if it did; ``retries``: the retries it made.
        """
        if not self.listeners:
            return
        backend = self.backend
        host = getattr(backend, "host", None)
        port = getattr(backend, "port", None)
        server_table = self._server_table
        if server_table is None:
            name_of = getattr(backend, "server_table_name", None)
            server_table = self._server_table = (
                name_of(self.table) if callable(name_of) else self.table
            )
        event = QueryEvent(
            operation,
            self.table,
            rows=call.rows,
            plan=call.plan,
            round_trips=backend.round_trips - before,
            results=call.results,
            started_ns=call.started_ns,
            duration_ns=time.perf_counter_ns() - call.monotonic_ns,
            error=error,
            server_address=host if isinstance(host, str) else None,
            server_port=port if isinstance(port, int) and not isinstance(port, bool) else None,
            server_table=server_table,
            retries=retries,
        )
        for listener in self.listeners:
            listener(event)


class _Measured:
    """The context manager of :meth:`Instrument.call` (a class: cheaper than a generator)."""

    __slots__ = ("always", "before", "call", "instrument", "operation", "retries")

    def __init__(
        self, instrument: Instrument, operation: str, rows: tuple[bytes, ...], always: bool
    ) -> None:
        self.instrument = instrument
        self.operation = operation
        self.always = always
        self.before = instrument.backend.round_trips
        self.call = Call(rows=rows)
        # The call's retries go to its own event, for a call that listeners hear of and
        # that ends before its caller goes on (not a scan's generator, which lives across
        # the caller's other calls: its retries go to the current span, as a backend's do).
        self.retries = collected_retries() if instrument.listeners and not always else None

    def __enter__(self) -> Call:
        if self.retries is not None:
            self.retries.__enter__()
        return self.call

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: object
    ) -> None:
        retries: tuple[RetryRecord, ...] = ()
        if self.retries is not None:
            self.retries.__exit__()
            retries = tuple(self.retries.records)
        if isinstance(error, Exception):
            self.instrument.emit(self.operation, self.before, self.call, error, retries)
        elif kind is None or self.always:
            self.instrument.emit(self.operation, self.before, self.call, retries=retries)
