"""Denormalised copies (R3, R7): fields of one model copied into rows of another, kept in sync."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar

import attrs

from hmodel.errors import DeclarationError, ValidationError
from hmodel.repository import Query, Store

__all__ = ["Copy", "CopyReport", "StaleCopy"]

S = TypeVar("S")
T = TypeVar("T")


@attrs.frozen
class CopyReport:
    """What a sync or a repair did.

    Attributes:
        examined: Copies found for the source(s).
        touched: Copies rewritten.
        round_trips: Backend requests the whole operation made.
    """

    examined: int
    touched: int
    round_trips: int


@attrs.frozen
class StaleCopy:
    """A copy whose fields differ from its source's.

    Attributes:
        copy: The copy as stored.
        differences: Per copy field, ``(stored value, source value)``.
    """

    copy: Any
    differences: Mapping[str, tuple[Any, Any]]


class Copy(Generic[S, T]):
    """Fields of ``target`` rows that copy fields of a ``source`` model (R3, R7).

    The seed's designs copy data where it is read: ship-to fields into every line item of
    an order (R3), the buyer's attributes into the order table's ``c`` family (R7), so a
    read needs no second lookup. The copy is declared once: which target fields copy
    which source fields, and how to find a source's copies (a key prefix of the target,
    a server-side condition, or any function, e.g. an index query). :meth:`fill` sets the
    copied fields of a new target instance; :meth:`sync` rewrites every copy of a changed
    source; :meth:`verify` finds stale copies and :meth:`repair` rewrites them.

    HBase has no cross-row transaction: between the source's save and the copies'
    rewrite, readers see the new source and old copies; a crash in between leaves stale
    copies, which :meth:`verify` finds and :meth:`repair` fixes. Each copy row changes
    atomically, and every rewrite is stamped after the source's save.

    Args:
        store: Where both models live.
        source: The model copied from.
        target: The model holding the copies.
        fields: Per target field, the source field it copies (same value type).
        locate: Given a source instance, where its copies are: a
            :class:`~hmodel.repository.Query` on the target, or an iterable of target
            instances.
        batch_size: Copies rewritten per unit of work (one ``mutate`` round trip each).

    Raises:
        DeclarationError: Unknown fields, a key field as a copy (keys never change, K10),
            or a counter/version field.
    """

    def __init__(
        self,
        store: Store,
        source: type[S],
        target: type[T],
        *,
        fields: Mapping[str, str],
        locate: Callable[[S], Query | Iterable[T]],
        batch_size: int = 100,
    ) -> None:
        self.store = store
        self.source = store.repository(source)
        self.target = store.repository(target)
        self.fields = dict(fields)
        self.locate = locate
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise DeclarationError("batch_size is an int >= 1", value=batch_size)
        self.batch_size = batch_size
        for copied, original in self.fields.items():
            for repository, name in ((self.target, copied), (self.source, original)):
                info = repository.info
                if name not in info.columns and name not in info.key_field_names:
                    raise DeclarationError(
                        f"{info.name} has no plain field {name!r} to copy",
                        table=info.table.full_name,
                        field=name,
                    )
            if copied in self.target.info.key_field_names:
                raise DeclarationError(
                    f"{copied!r} is a key field of {self.target.info.name}: keys never "
                    "change (K10), so a copy cannot live there",
                    table=self.target.table,
                    field=copied,
                )
        if self.target.info.version_field is not None:
            raise DeclarationError(
                "copies are rewritten without a version check: the target may not be locked",
                table=self.target.table,
            )

    def values(self, source: S) -> dict[str, Any]:
        """The copied fields' values for ``source``, by target field name."""
        return {copied: getattr(source, original) for copied, original in self.fields.items()}

    def fill(self, target: T, source: S) -> T:
        """Set the copied fields of a target instance from ``source`` (before saving it)."""
        for name, value in self.values(source).items():
            setattr(target, name, value)
        return target

    def copies(self, source: S) -> Iterator[T]:
        """The stored copies of ``source``, found as declared."""
        where = self.locate(source)
        if isinstance(where, Query):
            yield from self.target.scan(query=where)
        else:
            for found in where:
                if not isinstance(found, self.target.model):
                    raise ValidationError(
                        f"locate() gave a {type(found).__name__}, not a {self.target.info.name}",
                        table=self.target.table,
                    )
                yield found

    def _rewrite(self, pairs: Iterable[tuple[T, S]]) -> CopyReport:
        """Rewrite the copied fields of each copy, in batches; count what was examined."""
        before = self.store.backend.round_trips
        examined = touched = 0
        unit = self.store.unit_of_work()
        for copy, source in pairs:
            examined += 1
            wanted = self.values(source)
            if all(getattr(copy, name) == value for name, value in wanted.items()):
                continue
            unit.update(self.target.model, self.target.mapper.key_values(copy), **wanted)
            touched += 1
            if unit.pending >= self.batch_size:
                unit.commit()
        unit.commit()
        return CopyReport(examined, touched, self.store.backend.round_trips - before)

    def sync(self, source: S) -> CopyReport:
        """Rewrite every copy of ``source`` whose fields differ (call after saving it).

        Round trips: the copies' read (a scan, or what ``locate`` does), plus one
        ``mutate`` per ``batch_size`` copies rewritten. Copies already equal are left.
        """
        return self._rewrite((copy, source) for copy in self.copies(source))

    def save(self, source: S) -> CopyReport:
        """Save ``source`` with its repository, then :meth:`sync` its copies.

        The report's round trips include the source's save.
        """
        before = self.store.backend.round_trips
        self.source.save(source)
        report = self.sync(source)
        return attrs.evolve(report, round_trips=self.store.backend.round_trips - before)

    def verify(self, sources: Iterable[S]) -> list[StaleCopy]:
        """The copies of ``sources`` whose copied fields differ from the source's."""
        stale: list[StaleCopy] = []
        for source in sources:
            wanted = self.values(source)
            for copy in self.copies(source):
                differences = {
                    name: (getattr(copy, name), value)
                    for name, value in wanted.items()
                    if getattr(copy, name) != value
                }
                if differences:
                    stale.append(StaleCopy(copy, differences))
        return stale

    def repair(self, sources: Iterable[S]) -> CopyReport:
        """Rewrite every stale copy of ``sources`` (e.g. all of ``source.scan()``)."""
        return self._rewrite((copy, source) for source in sources for copy in self.copies(source))
