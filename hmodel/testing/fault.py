"""A Backend wrapper that fails, stalls or interleaves work at a chosen call, for tests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
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

__all__ = ["FaultyBackend", "Hook"]

#: What a hook runs: it gets the call's name and arguments.
Action = Callable[[str, tuple[Any, ...]], None]


@attrs.define
class Hook:
    """What happens at the ``nth`` call (1-based) of one method, counting from installation.

    Attributes:
        method: The Backend method, e.g. ``"mutate"`` or ``"check_and_mutate"``.
        nth: Which call (1: the next one). ``0``: every call.
        before: Run before the call is passed on (e.g. another writer's whole save, or a
            read that must see the row as it is before the call).
        after: Run after the call returned (the call's effect is there).
        fail: Raised instead of passing the call on (``before`` still runs first), or,
            with ``fail_after``, after passing it on (the call took effect, the caller
            never learns it: a dropped reply).
        fail_after: See ``fail``.
        seen: Calls of ``method`` counted so far.
    """

    method: str
    nth: int = 1
    before: Action | None = None
    after: Action | None = None
    fail: BaseException | None = None
    fail_after: bool = False
    seen: int = 0


class FaultyBackend(Backend):
    """Wraps a backend; passes every call on, except where a :class:`Hook` intervenes.

    Deterministic fault injection for write-path tests (no sleeps, no patching): a hook
    on the ``nth`` call of a method can run code before or after it (interleave another
    writer at exactly that point), or raise instead of it or after it. Hooks fire once
    (``nth >= 1``) or on every call (``nth=0``); the hooked thread runs the hook's code.

    Example:
        >>> from hmodel.backend.memory import MemoryBackend
        >>> from hmodel.errors import ConnectionLostError
        >>> faulty = FaultyBackend(MemoryBackend())
        >>> _ = faulty.on("list_tables", fail=ConnectionLostError("dropped"))
        >>> faulty.list_tables()
        Traceback (most recent call last):
        ...
        hmodel.errors.ConnectionLostError: dropped
        >>> faulty.list_tables()
        []

    Args:
        inner: The backend that does the work.
    """

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.hooks: list[Hook] = []
        self.calls: list[str] = []
        self._lock = threading.Lock()

    @property
    def capabilities(self) -> frozenset[str]:  # type: ignore[override]
        """The wrapped backend's capabilities."""
        return self.inner.capabilities

    @property
    def round_trips(self) -> int:  # type: ignore[override]
        """The wrapped backend's round trips."""
        return self.inner.round_trips

    def on(self, method: str, **options: Any) -> Hook:
        """Install a :class:`Hook` on ``method`` (options as its attributes)."""
        if not callable(getattr(self.inner, method, None)):
            raise ValueError(f"a Backend has no method {method!r}")
        hook = Hook(method, **options)
        with self._lock:
            self.hooks.append(hook)
        return hook

    def _hook(self, method: str) -> Hook | None:
        with self._lock:
            self.calls.append(method)
            for hook in self.hooks:
                if hook.method != method:
                    continue
                hook.seen += 1
                if hook.nth in (0, hook.seen):
                    if hook.nth:
                        self.hooks.remove(hook)
                    return hook
        return None

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        hook = self._hook(method)
        if hook is None:
            return getattr(self.inner, method)(*args, **kwargs)
        if hook.before is not None:
            hook.before(method, args)
        if hook.fail is not None and not hook.fail_after:
            raise hook.fail
        result = getattr(self.inner, method)(*args, **kwargs)
        if hook.after is not None:
            hook.after(method, args)
        if hook.fail is not None:
            raise hook.fail
        return result

    # --- the protocol, passed on ----------------------------------------------------

    def create_table(self, table: Table) -> None:
        """Pass on :meth:`Backend.create_table`."""
        self._call("create_table", table)

    def delete_table(self, name: str) -> None:
        """Pass on :meth:`Backend.delete_table`."""
        self._call("delete_table", name)

    def table_exists(self, name: str) -> bool:
        """Pass on :meth:`Backend.table_exists`."""
        return bool(self._call("table_exists", name))

    def list_tables(self) -> list[str]:
        """Pass on :meth:`Backend.list_tables`."""
        return list(self._call("list_tables"))

    def describe_families(self, name: str) -> dict[str, Family]:
        """Pass on :meth:`Backend.describe_families`."""
        return dict(self._call("describe_families", name))

    def regions(self, name: str) -> list[Region]:
        """Pass on :meth:`Backend.regions`."""
        return list(self._call("regions", name))

    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """Pass on :meth:`Backend.get`."""
        return list(self._call("get", table, rows, columns=columns, before=before))

    def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """Pass on :meth:`Backend.get_versions`."""
        return list(
            self._call("get_versions", table, row, column, max_versions=max_versions, before=before)
        )

    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        """Pass on :meth:`Backend.scan` (the hook fires when the scan is opened)."""
        found: Iterator[RowResult] = self._call("scan", table, scan)
        return found

    def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """Pass on :meth:`Backend.mutate`."""
        self._call("mutate", table, mutations)

    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """Pass on :meth:`Backend.increment`."""
        return int(self._call("increment", table, row, column, amount))

    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """Pass on :meth:`Backend.increment_many`."""
        self._call("increment_many", table, increments)

    def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """Pass on :meth:`Backend.check_and_put`."""
        return bool(self._call("check_and_put", table, row, column, expected, put))

    def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """Pass on :meth:`Backend.check_and_delete`."""
        return bool(self._call("check_and_delete", table, row, column, expected, delete))

    def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """Pass on :meth:`Backend.check_and_mutate`."""
        return bool(self._call("check_and_mutate", table, row, column, expected, mutations))

    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """Pass on :meth:`Backend.append`."""
        return dict(self._call("append", table, row, values))

    def close(self) -> None:
        """Pass on :meth:`Backend.close`."""
        self._call("close")
