"""What the pattern cores need of a store on either edge, and stream plumbing for their ops.

The cores of the record types (R2), copies (R3, R7), relations (R6) and taxonomies (R11)
are written once as sans-I/O operations (:mod:`hmodel.backend.op`) and run by a
synchronous facade (over a :class:`~hmodel.repository.Store`) or an asynchronous one
(over an :class:`~hmodel.aio.AsyncStore`). Both stores give what :class:`StoreLike` names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from hmodel.backend.op import Items, Op, Request
from hmodel.clock import WriteStamps
from hmodel.repository.core import RepositoryCore

__all__ = ["END", "StoreLike", "UnitLike", "collect", "pull"]

M = TypeVar("M")

#: What :func:`pull` returns when the stream has no item left.
END: Any = object()


class UnitLike(Protocol):
    """The queueing part of a unit of work (``UnitOfWork`` or ``AsyncUnitOfWork``)."""

    def put_entries(
        self, model: type, key: Mapping[str, Any], field: str, entries: Mapping[Any, Any]
    ) -> None:
        """Queue entries of a map field."""

    def remove_entries(
        self, model: type, key: Mapping[str, Any], field: str, names: Sequence[Any]
    ) -> None:
        """Queue the removal of entries of a map field."""

    def discard(self) -> None:
        """Drop everything queued."""

    def _commit_op(self) -> Op[int]:
        """The commit's operation."""


class StoreLike(Protocol):
    """A :class:`~hmodel.repository.Store` or an :class:`~hmodel.aio.AsyncStore`."""

    @property
    def backend(self) -> Any:
        """A :class:`~hmodel.backend.base.Backend` or an ``AsyncBackend``."""

    @property
    def stamps(self) -> WriteStamps:
        """The write stamps of every repository of the store."""

    def repository(self, model: type[M]) -> RepositoryCore[M, Any]:
        """The store's repository of ``model``."""

    def unit_of_work(self) -> Any:
        """A new unit of work of the store's edge."""


def pull(stream: Op[None]) -> Op[Any]:
    """The next item of the stream operation ``stream``, its requests passed on; :data:`END`.

    Lets one operation consume another's items one at a time, so a stream read (a scan)
    and the writes made per item interleave exactly as a synchronous generator pipeline
    would. An exception thrown in at a request goes into ``stream`` (as the drivers do).
    """
    send: Any = None
    error: BaseException | None = None
    while True:
        try:
            got = stream.send(send) if error is None else stream.throw(error)
        except StopIteration:
            return END
        error = None
        if not isinstance(got, Request):
            if type(got) is Items:
                raise TypeError("a stream pulled item by item yielded Items (batched=True)")
            return got
        try:
            send = yield got
        except GeneratorExit:
            stream.close()
            raise
        except BaseException as exc:
            error, send = exc, None


def collect(stream: Op[None]) -> Op[list[Any]]:
    """Every item of the stream operation ``stream``, as a list."""
    items: list[Any] = []
    try:
        while True:
            item = yield from pull(stream)
            if item is END:
                return items
            items.append(item)
    finally:
        stream.close()
