"""ForwardingBackend: the one base of every wrapper around a Backend, passing each call on."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import ParamSpec, TypeVar

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

__all__ = ["ForwardingBackend"]

P = ParamSpec("P")
T = TypeVar("T")


class ForwardingBackend(Backend):
    """A :class:`~hmodel.backend.base.Backend` that passes every call on to another.

    The base of anything that wraps a backend (fault injection, stepping a client through
    an interleaving, recording writes, hiding a capability): a wrapper overrides the calls
    it changes and nothing else. Every protocol method goes through one typed path,
    :meth:`_forward`, with the method's name, the wrapped backend's bound method and the
    call's arguments as given; a wrapper that intercepts every call (counts, hooks,
    faults) overrides :meth:`_forward` alone. A wrapper that changes one call overrides
    that method.

    Passed on as they are, not through :meth:`_forward`: :attr:`capabilities`,
    :attr:`rpc_names` and :attr:`round_trips` (read from the wrapped backend at each
    access, so a wrapper over a Thrift2 backend explains and counts as Thrift2), and
    :meth:`mutate_round_trips` and :meth:`server_table_name` (no request). :meth:`close`
    is a call like the others: it closes the wrapped backend, and the context manager
    does the same.

    Nothing is added: no lock, no copy of an argument or a result. A scan's iterator is
    the wrapped backend's own (:meth:`_forward` sees the scan opened, not its fetches).

    Example:
        >>> from hmodel.backend.memory import MemoryBackend
        >>> class Counting(ForwardingBackend):
        ...     def __init__(self, inner):
        ...         super().__init__(inner)
        ...         self.seen = []
        ...
        ...     def _forward(self, method, call, /, *args, **kwargs):
        ...         self.seen.append(method)
        ...         return call(*args, **kwargs)
        >>> counting = Counting(MemoryBackend())
        >>> counting.list_tables(), counting.seen
        ([], ['list_tables'])

    Args:
        inner: The backend that does the work.

    Attributes:
        inner: The backend that does the work; a wrapper may swap it between calls.
    """

    def __init__(self, inner: Backend) -> None:
        self.inner = inner

    def _forward(
        self, method: str, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Make one call of the wrapped backend: ``call(*args, **kwargs)``.

        Args:
            method: The protocol method's name, e.g. ``"mutate"``.
            call: The wrapped backend's bound method of that name, looked up when the
                call is made.
            *args: The call's positional arguments, as the caller gave them.
            **kwargs: The call's keyword arguments, as the caller gave them.

        Returns:
            What the wrapped backend returned.
        """
        return call(*args, **kwargs)

    # --- passed on directly -------------------------------------------------------------

    @property
    def capabilities(self) -> frozenset[str]:  # type: ignore[override]
        """The wrapped backend's capabilities."""
        return self.inner.capabilities

    @property
    def rpc_names(self) -> Mapping[str, str]:  # type: ignore[override]
        """The wrapped backend's wire RPC names, for explanations."""
        return self.inner.rpc_names

    @property
    def round_trips(self) -> int:  # type: ignore[override]
        """The wrapped backend's round trips so far."""
        return self.inner.round_trips

    def mutate_round_trips(self, mutations: Sequence[Mutation]) -> int:
        """The wrapped backend's :meth:`~hmodel.backend.base.Backend.mutate_round_trips`."""
        return self.inner.mutate_round_trips(mutations)

    def server_table_name(self, table: str) -> str:
        """The wrapped backend's :meth:`~hmodel.backend.base.Backend.server_table_name`."""
        return self.inner.server_table_name(table)

    # --- admin ------------------------------------------------------------------------

    def create_table(self, table: Table) -> None:
        """Pass on :meth:`~hmodel.backend.base.Backend.create_table`."""
        self._forward("create_table", self.inner.create_table, table)

    def delete_table(self, name: str) -> None:
        """Pass on :meth:`~hmodel.backend.base.Backend.delete_table`."""
        self._forward("delete_table", self.inner.delete_table, name)

    def table_exists(self, name: str) -> bool:
        """Pass on :meth:`~hmodel.backend.base.Backend.table_exists`."""
        return self._forward("table_exists", self.inner.table_exists, name)

    def list_tables(self) -> list[str]:
        """Pass on :meth:`~hmodel.backend.base.Backend.list_tables`."""
        return self._forward("list_tables", self.inner.list_tables)

    def describe_families(self, name: str) -> dict[str, Family]:
        """Pass on :meth:`~hmodel.backend.base.Backend.describe_families`."""
        return self._forward("describe_families", self.inner.describe_families, name)

    def regions(self, name: str) -> list[Region]:
        """Pass on :meth:`~hmodel.backend.base.Backend.regions`."""
        return self._forward("regions", self.inner.regions, name)

    # --- reads ------------------------------------------------------------------------

    def get(
        self,
        table: str,
        rows: Sequence[bytes],
        *,
        columns: Sequence[bytes] = (),
        before: int | None = None,
    ) -> list[RowResult]:
        """Pass on :meth:`~hmodel.backend.base.Backend.get`."""
        return self._forward("get", self.inner.get, table, rows, columns=columns, before=before)

    def get_versions(
        self,
        table: str,
        row: bytes,
        column: bytes,
        *,
        max_versions: int,
        before: int | None = None,
    ) -> list[Cell]:
        """Pass on :meth:`~hmodel.backend.base.Backend.get_versions`."""
        return self._forward(
            "get_versions",
            self.inner.get_versions,
            table,
            row,
            column,
            max_versions=max_versions,
            before=before,
        )

    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        """Pass on :meth:`~hmodel.backend.base.Backend.scan` (forwarded when opened)."""
        return self._forward("scan", self.inner.scan, table, scan)

    # --- writes -----------------------------------------------------------------------

    def mutate(self, table: str, mutations: Sequence[Mutation]) -> None:
        """Pass on :meth:`~hmodel.backend.base.Backend.mutate`."""
        self._forward("mutate", self.inner.mutate, table, mutations)

    def increment(self, table: str, row: bytes, column: bytes, amount: int = 1) -> int:
        """Pass on :meth:`~hmodel.backend.base.Backend.increment`."""
        return self._forward("increment", self.inner.increment, table, row, column, amount)

    def increment_many(self, table: str, increments: Sequence[Increment]) -> None:
        """Pass on :meth:`~hmodel.backend.base.Backend.increment_many`."""
        self._forward("increment_many", self.inner.increment_many, table, increments)

    def check_and_put(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, put: Put
    ) -> bool:
        """Pass on :meth:`~hmodel.backend.base.Backend.check_and_put`."""
        return self._forward(
            "check_and_put", self.inner.check_and_put, table, row, column, expected, put
        )

    def check_and_delete(
        self, table: str, row: bytes, column: bytes, expected: bytes | None, delete: Delete
    ) -> bool:
        """Pass on :meth:`~hmodel.backend.base.Backend.check_and_delete`."""
        return self._forward(
            "check_and_delete", self.inner.check_and_delete, table, row, column, expected, delete
        )

    def check_and_mutate(
        self,
        table: str,
        row: bytes,
        column: bytes,
        expected: bytes | None,
        mutations: Sequence[Mutation],
    ) -> bool:
        """Pass on :meth:`~hmodel.backend.base.Backend.check_and_mutate`."""
        return self._forward(
            "check_and_mutate",
            self.inner.check_and_mutate,
            table,
            row,
            column,
            expected,
            mutations,
        )

    def append(self, table: str, row: bytes, values: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
        """Pass on :meth:`~hmodel.backend.base.Backend.append`."""
        return self._forward("append", self.inner.append, table, row, values)

    def close(self) -> None:
        """Pass on :meth:`~hmodel.backend.base.Backend.close`."""
        self._forward("close", self.inner.close)
