"""One repository's prepared backend calls: reads and increments with their requests built once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from hmodel.backend.base import Backend, RowResult

__all__ = ["PreparedCalls"]


class PreparedCalls:
    """The calls a synchronous repository makes most, prepared once on its backend.

    A backend may offer prepared forms of its hottest calls, an addition to the
    :class:`~hmodel.backend.base.Backend` protocol found by name (as ``row_batch`` is):

    - ``prepare_get(table, columns)``: a function of a rowkey returning its
      :class:`~hmodel.backend.base.RowResult` (``None`` for no row): ``get(table, [row],
      columns=columns)`` of one row;
    - ``prepare_increment(table, column)``: a function of a rowkey and an amount
      returning the counter's new value: ``increment(table, row, column, amount)``.

    Either may answer ``None`` (not prepared: a subclass overriding the call, a column it
    refuses). The Thrift backends build the request's message once and fill the rowkey
    (and amount) in per call (:class:`~hmodel.backend.template.MessageTemplate`); the
    same bytes, result and errors as the plain call. Where a backend prepares nothing
    (the engine, fault wrappers, users' backends), the plain call is made, so every
    backend gives the same answers either way.

    Args:
        backend: The backend the calls go to.
        table: The table.
        columns: The columns a whole-row read asks for.
    """

    __slots__ = ("_columns", "_incrementers", "_reader", "backend", "table")

    def __init__(self, backend: Backend, table: str, columns: Sequence[bytes]) -> None:
        self.backend = backend
        self.table = table
        self._columns = tuple(columns)
        self._reader: Callable[[bytes], RowResult | None] | None = None
        self._incrementers: dict[bytes, Callable[[bytes, int], int]] = {}

    def reader(self) -> Callable[[bytes], RowResult | None]:
        """The reader of one whole row by rowkey (made at the first call, then kept)."""
        reader = self._reader
        if reader is None:
            reader = self._reader = self._prepared_reader()
        return reader

    def incrementer(self, column: bytes) -> Callable[[bytes, int], int]:
        """The incrementer of counter ``column`` (made at its first call, then kept)."""
        found = self._incrementers.get(column)
        if found is None:
            found = self._incrementers[column] = self._prepared_incrementer(column)
        return found

    def _prepared_reader(self) -> Callable[[bytes], RowResult | None]:
        backend, table, columns = self.backend, self.table, self._columns
        prepared = _prepare(backend, "prepare_get", table, columns)
        if prepared is not None:
            return cast(Callable[[bytes], RowResult | None], prepared)

        def read(row: bytes) -> RowResult | None:
            results = backend.get(table, [row], columns=columns)
            return results[0] if results else None

        return read

    def _prepared_incrementer(self, column: bytes) -> Callable[[bytes, int], int]:
        backend, table = self.backend, self.table
        prepared = _prepare(backend, "prepare_increment", table, column)
        if prepared is not None:
            return cast(Callable[[bytes, int], int], prepared)

        def increment(row: bytes, amount: int) -> int:
            return backend.increment(table, row, column, amount)

        return increment


def _prepare(backend: Backend, name: str, *args: Any) -> Any:
    """What the backend's ``name`` method prepares for ``args``; ``None`` if it has none."""
    prepare = getattr(backend, name, None)
    return None if prepare is None else prepare(*args)
