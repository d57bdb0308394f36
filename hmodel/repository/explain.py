"""Explain any repository operation: the backend calls (and wire RPCs) it would send."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from hmodel.backend.base import (
    Backend,
    Cell,
    Delete,
    Increment,
    Mutation,
    Put,
    Region,
    RowResult,
    Scan,
)
from hmodel.schema.family import Family
from hmodel.schema.table import Table

__all__ = ["Explanation", "PlannedCall", "RecordingBackend"]


@attrs.frozen
class PlannedCall:
    """One backend call an operation would make.

    Attributes:
        method: The :class:`~hmodel.backend.base.Backend` method, e.g. ``"mutate"``.
        rpc: What the backend sends for it (``"mutateRowsTs"`` over Thrift1), from the
            backend's ``rpc_names``; the method name where the backend names none.
        table: The table.
        rows: The rowkeys it names (for a scan: its start row).
        detail: Columns, mutations, the scan's range and filter, as text.
        round_trips: Requests it costs: one; a ``mutate`` what the backend's
            ``mutate_round_trips`` says (Thrift1: one per distinct ``(timestamp, ttl)``); a
            scan one to open (each batch of rows costs one more).
    """

    method: str
    rpc: str
    table: str
    rows: tuple[bytes, ...]
    detail: str
    round_trips: int


@attrs.frozen
class Explanation:
    """The calls an operation would make, in order, and their cost."""

    calls: tuple[PlannedCall, ...]

    @property
    def round_trips(self) -> int:
        """Requests the operation makes (scans: plus one per batch of rows read)."""
        return sum(c.round_trips for c in self.calls)

    def describe(self) -> str:
        """One line per call: ``1. mutate -> mutateRowsTs 'user' rows=[...] (...)``."""
        lines = [f"{len(self.calls)} call(s), {self.round_trips} round trip(s)"]
        for number, call in enumerate(self.calls, 1):
            rows = ", ".join(repr(r) for r in call.rows[:3]) + (
                f", ... ({len(call.rows)} rows)" if len(call.rows) > 3 else ""
            )
            lines.append(
                f"{number}. {call.method} -> {call.rpc} {call.table!r} rows=[{rows}] {call.detail}"
            )
        return "\n".join(lines)


def _mutations(mutations: Sequence[Mutation]) -> str:
    puts = sum(isinstance(m, Put) for m in mutations)
    deletes = len(mutations) - puts
    stamps = sorted({m.timestamp for m in mutations if m.timestamp is not None})
    return f"({puts} put(s), {deletes} delete(s), timestamps {stamps})"


class RecordingBackend(Backend):
    """A stand-in backend that records each call and answers as an empty table would.

    Reads find nothing, conditional writes succeed, counters read 0; nothing is stored
    and nothing leaves the process. Capabilities and RPC names are those of the backend
    it stands in for, so an operation takes the path it would take there. Not a
    :class:`~hmodel.backend.forwarding.ForwardingBackend`: no call is passed on.

    Args:
        stands_for: The backend whose behaviour is explained.
    """

    def __init__(self, stands_for: Backend) -> None:
        self.capabilities = stands_for.capabilities
        self.rpc_names = dict(stands_for.rpc_names)
        self.stands_for = stands_for
        self.calls: list[PlannedCall] = []

    def _record(
        self, method: str, table: str, rows: Sequence[bytes], detail: str = "", trips: int = 1
    ) -> None:
        rpc = self.rpc_names.get(method, method)
        self.calls.append(PlannedCall(method, rpc, table, tuple(rows), detail, trips))

    def create_table(self, table: Table) -> None:
        """Record it."""
        self._record("create_table", table.full_name, ())

    def delete_table(self, name: str) -> None:
        """Record it."""
        self._record("delete_table", name, ())

    def table_exists(self, name: str) -> bool:
        """Record it; the table exists."""
        self._record("table_exists", name, ())
        return True

    def list_tables(self) -> list[str]:
        """Record it; no tables."""
        self._record("list_tables", "", ())
        return []

    def describe_families(self, name: str) -> dict[str, Family]:
        """Record it; no families."""
        self._record("describe_families", name, ())
        return {}

    def regions(self, name: str) -> list[Region]:
        """Record it; one region."""
        self._record("regions", name, ())
        return [Region(b"", b"")]

    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """Record it; no row exists."""
        shown = [c.decode("latin-1") for c in columns]
        self._record("get", table, rows, f"columns={shown} before={before}")
        return []

    def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """Record it; no versions."""
        self._record("get_versions", table, [row], f"column={column!r} max={max_versions}")
        return []

    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        """Record it; no rows."""
        detail = f"[{scan.start!r}, {scan.stop or 'end'!r}) reverse={scan.reverse}"
        if scan.filter:
            detail += f" filter={scan.filter!r}"
        self._record("scan", table, [scan.start], detail)
        return iter(())

    def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """Record it, with what it costs on the backend it stands for."""
        trips = self.stands_for.mutate_round_trips(mutations)
        rows = list(dict.fromkeys(m.row for m in mutations))
        self._record("mutate", table, rows, _mutations(mutations), trips)

    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """Record it; the counter reads ``amount``."""
        self._record("increment", table, [row], f"column={column!r} amount={amount}")
        return amount

    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """Record it."""
        rows = list(dict.fromkeys(i.row for i in increments))
        self._record("increment_many", table, rows, f"({len(increments)} increments)")

    def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """Record it; the check passes."""
        self._record("check_and_put", table, [row], f"check {column!r}, put {put.column!r}")
        return True

    def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """Record it; the check passes."""
        self._record("check_and_delete", table, [row], f"check {column!r}")
        return True

    def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """Record it; the check passes."""
        self._record("check_and_mutate", table, [row], f"check {column!r}, {_mutations(mutations)}")
        return True

    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """Record it; the cells hold what was appended."""
        self._record("append", table, [row], f"columns={sorted(values)}")
        return dict(values)


def explain_result(result: Any) -> None:
    """Run a lazy result (a scan's iterator) to its end, so its calls are recorded."""
    if isinstance(result, Iterator):
        for _ in result:
            pass
