"""Query events: what each repository call sent and what it cost, for ``explain`` and hooks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["Listener", "QueryEvent"]


@attrs.frozen
class QueryEvent:
    """One repository call as the backend saw it.

    Attributes:
        operation: The repository method, e.g. ``"get_many"``, ``"scan"``, ``"save"``.
        table: The table (for a unit of work: the tables, comma-separated).
        rows: Rowkeys read or written by key (empty for scans).
        plan: For scans, the plan's :meth:`~hmodel.repository.plan.ScanPlan.describe` text.
        round_trips: Requests the backend made for the call (its ``round_trips`` counter
            before and after; concurrent calls on one backend would be counted together).
        results: Rows returned or mutations sent. A scan counts its models as it hands
            them out, a decoded chunk (at most 64) at a time: a scan left early counts
            the models decoded ahead of its reader too.
        started_ns: When the call began, epoch nanoseconds (``time.time_ns``); 0 if unknown.
        duration_ns: How long it took, nanoseconds (a monotonic clock); 0 if unknown.
        error: The exception the call raised; ``None`` when it returned.
        server_address: The backend's server host (``None``: an in-process engine).
        server_port: The backend's server port (``None``: an in-process engine).
        server_table: The table's name on the server (the backend's table prefix and
            namespace applied: what a Thrift backend sends); ``None`` when unknown.
        retries: The retries the call made after dropped connections, as ``(epoch ns,
            attributes)`` pairs (``hmodel.method``, ``hmodel.retry``, ``hmodel.pause_s``,
            ``error.type``, ``server.address``, ``server.port``); empty for scans, whose
            retries go to the current span.
    """

    operation: str
    table: str
    rows: tuple[bytes, ...] = ()
    plan: str | None = None
    round_trips: int = 0
    results: int = 0
    started_ns: int = 0
    duration_ns: int = 0
    error: Exception | None = None
    server_address: str | None = None
    server_port: int | None = None
    server_table: str | None = None
    retries: tuple[tuple[int, dict[str, Any]], ...] = ()


#: A callable told of every :class:`QueryEvent`.
Listener = Callable[[QueryEvent], None]
