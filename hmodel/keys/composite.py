"""A composite rowkey: components concatenated so byte order follows them in turn (K1, K2)."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, TypeAlias

import attrs

from hmodel.backend.base import prefix_stop
from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys.component import Component, DerivedComponent, Order, ValueComponent
from hmodel.keys.delimited import delimit
from hmodel.keys.derived import Const, Salt
from hmodel.keys.range import KeyRange

__all__ = ["Key"]

_NOTHING: Mapping[str, Any] = types.MappingProxyType({})


_Part: TypeAlias = "ValueComponent[Any] | DerivedComponent"


def _components(components: tuple[object, ...]) -> tuple[_Part, ...]:
    if not components:
        raise DeclarationError("a Key needs at least one component")
    parts: list[_Part] = []
    for component in components:
        if not isinstance(component, (ValueComponent, DerivedComponent)):
            raise DeclarationError(
                "Key components are value components (Str, Int, ...) or computed ones "
                "(Const, Hashed, Salt)",
                value=component,
            )
        parts.append(component)
    return tuple(parts)


def _check_open(parts: tuple[_Part, ...]) -> None:
    """Refuse an open layout that is not last, or not followed by its separator."""
    for index, component in enumerate(parts):
        if not isinstance(component, ValueComponent) or component.prefix_free:
            continue
        after = component.followed_by
        following = parts[index + 1] if index + 1 < len(parts) else None
        if after is None and following is not None:
            raise DeclarationError(
                f"{component.name!r} runs to the end of the key (terminated=False), so it "
                "must be the key's last component",
                field=component.name,
            )
        if after is not None and not (
            isinstance(following, Const) and following.tag.startswith(after)
        ):
            raise DeclarationError(
                f"{component.name!r} ends before {after!r}: the next component must be "
                f"Const({after!r}) (Key(..., sep=...) writes it)",
                field=component.name,
            )


@attrs.frozen(init=False)
class Key:
    r"""A rowkey made of components, encoded one after the other with no separator.

    Each component's encodings are order-preserving (or, for ``Descending`` and
    ``ReverseTimestamp``, order-reversing) and prefix-free, so two keys compare as bytes
    the way their first differing component compares; a key with no ``Salt``,
    ``Hashed`` or ``Reversed`` component sorts exactly like the tuple of its values.
    ``Const``, ``Hashed`` and ``Salt`` components are computed, never passed in.

    >>> from hmodel.keys import Int, Str
    >>> key = Key(Str("user"), Int("n", size=2))
    >>> key.encode({"user": "ann", "n": 7})
    b'ann\x00\x00\x80\x07'
    >>> key.decode(b"ann\x00\x00\x80\x07")
    {'user': 'ann', 'n': 7}

    A key written by another program often joins text with a delimiter
    (``user123|20240101``): ``sep=b"|"`` writes each component, then the separator, and
    the last one, with variable-width text raw (no escape, no terminator) and refused if
    it holds the separator:

    >>> key = Key(Str("user"), Str("day"), sep=b"|")
    >>> key.encode({"user": "user123", "day": "20240101"})
    b'user123|20240101'

    Args:
        *components: The components, most significant first.
        sep: A delimiter written between the components (see ``hmodel.keys.delimited.delimit``); the
            key's ``components`` are then the rewritten ones, separators included.

    Raises:
        DeclarationError: No component, two value fields with one name, a ``Hashed`` or
            ``Salt`` naming a field the key does not have, more than one ``Salt``, or an
            open layout (``terminated=False``, ``until=``) that is not last or not
            followed by its separator.
    """

    components: tuple[ValueComponent[Any] | DerivedComponent, ...]

    def __init__(self, *components: Component, sep: bytes | None = None) -> None:
        if sep is not None:
            components = delimit(components, sep)
        checked = _components(components)
        checked = tuple(
            c.bind(checked, index) if isinstance(c, DerivedComponent) else c
            for index, c in enumerate(checked)
        )
        _check_open(checked)
        names = [c.name for c in checked if isinstance(c, ValueComponent)]
        duplicate = {n for n in names if names.count(n) > 1}
        if duplicate:
            raise DeclarationError("a Key names a field twice", field=min(duplicate))
        salts = [c for c in checked if isinstance(c, Salt)]
        if len(salts) > 1:
            raise DeclarationError("a Key has at most one Salt", value=salts)
        for component in checked:
            if isinstance(component, DerivedComponent):
                for source in component.sources:
                    if source not in names:
                        raise DeclarationError(
                            f"{component.name!r} names {source!r}, not a value field of the key",
                            field=source,
                        )
        self.__attrs_init__(checked)

    @property
    def fields(self) -> tuple[str, ...]:
        """The names of the value fields, in key order (no ``Const``/``Hashed``/``Salt``)."""
        return tuple(c.name for c in self.components if isinstance(c, ValueComponent))

    @property
    def salt(self) -> Salt | None:
        """The key's ``Salt`` component, if any."""
        return next((c for c in self.components if isinstance(c, Salt)), None)

    @property
    def buckets(self) -> int | None:
        """The number of salt buckets, or ``None`` for an unsalted key."""
        salt = self.salt
        return None if salt is None else salt.buckets

    @property
    def fixed_width(self) -> int | None:
        """The key's width in bytes when every component is fixed-width, else ``None``."""
        widths = [c.fixed_width for c in self.components]
        return None if None in widths else sum(w or 0 for w in widths)

    def component(self, name: str) -> ValueComponent[Any]:
        """Return the value component of field ``name``.

        Raises:
            KeyEncodeError: The key has no such field.
        """
        for component in self.components:
            if isinstance(component, ValueComponent) and component.name == name:
                return component
        raise KeyEncodeError("the key has no such field", field=name)

    def _encode_fields(self, values: Mapping[str, Any], *, partial: bool) -> dict[str, bytes]:
        if not isinstance(values, Mapping):
            raise KeyEncodeError("key values must be a mapping of field names", value=values)
        fields = self.fields
        for name in values:
            if name not in fields:
                raise KeyEncodeError(
                    "the key has no such field", field=str(name), value=values[name]
                )
        if not partial:
            for name in fields:
                if name not in values:
                    raise KeyEncodeError(f"missing key field {name!r}", field=name)
        return {
            c.name: c.encode(values[c.name])
            for c in self.components
            if isinstance(c, ValueComponent) and c.name in values
        }

    def encode(self, values: Mapping[str, Any]) -> bytes:
        """Return the rowkey of ``values`` (one entry per value field).

        Raises:
            KeyEncodeError: A field is missing or unknown, or a value does not encode
                (wrong type, out of range, too long); the error names the field.
        """
        encoded = self._encode_fields(values, partial=False)
        return b"".join(
            c.encode(c.derive(encoded)) if isinstance(c, DerivedComponent) else encoded[c.name]
            for c in self.components
        )

    def decode(self, row: bytes) -> dict[str, Any]:
        """Return the value fields of ``row``, after checking every computed component.

        Raises:
            KeyDecodeError: Truncated or trailing bytes, a component that does not parse,
                a ``Const`` with other bytes, an unknown salt bucket, or a ``Hashed``/
                ``Salt`` that does not match the decoded fields; ``row`` is attached.
        """
        if not isinstance(row, bytes):
            raise KeyDecodeError("a rowkey is bytes", value=row)
        values: dict[str, Any] = {}
        encoded: dict[str, bytes] = {}
        stored: list[tuple[DerivedComponent, Any]] = []
        pos = 0
        try:
            for component in self.components:
                value, end = component.decode(row, pos)
                if isinstance(component, DerivedComponent):
                    stored.append((component, value))
                else:
                    values[component.name] = value
                    encoded[component.name] = row[pos:end]
                pos = end
        except KeyDecodeError as exc:
            raise KeyDecodeError(exc.message, row=row, field=exc.field, value=exc.value) from None
        if pos != len(row):
            raise KeyDecodeError(
                f"{len(row) - pos} trailing bytes after the last component",
                row=row,
                value=row[pos:],
            )
        for component, value in stored:
            if component.derive(encoded) != value:
                kind = "salt bucket" if isinstance(component, Salt) else "hash"
                raise KeyDecodeError(
                    f"{component.name!r}: stored {kind} does not match the decoded fields",
                    row=row,
                    field=component.name,
                    value=value,
                )
        return values

    def matches(self, row: bytes) -> bool:
        """Whether ``row`` decodes cleanly under this key: tells record types apart (R1)."""
        try:
            self.decode(row)
        except KeyDecodeError:
            return False
        return True

    def bucket_of(self, values: Mapping[str, Any]) -> int | None:
        """Return the salt bucket of ``values`` (only the salt's source fields are needed).

        Returns:
            The bucket, or ``None`` for an unsalted key.

        Raises:
            KeyEncodeError: A source field is missing or does not encode.
        """
        salt = self.salt
        if salt is None:
            return None
        known = {k: v for k, v in values.items() if k in salt.sources}
        result: int = salt.derive(self._encode_fields(known, partial=True))
        return result

    def bucket_prefixes(self) -> list[bytes]:
        """Return the leading bytes of each salt bucket, in order: split points for K11.

        Only ``Const`` components may precede the salt; their bytes are included. An
        unsalted key has none.

        Raises:
            DeclarationError: A value field or hash precedes the salt, so buckets are not
                contiguous in the table.
        """
        salt = self.salt
        if salt is None:
            return []
        lead = b""
        for component in self.components:
            if component is salt:
                break
            if not isinstance(component, DerivedComponent) or component.sources:
                raise DeclarationError(
                    "salt buckets are only contiguous when the salt leads the key",
                    field=component.name,
                )
            lead += component.encode(component.derive({}))
        return [lead + salt.encode(bucket) for bucket in range(salt.buckets)]

    def ranges(
        self,
        prefix: Mapping[str, Any] = _NOTHING,
        *,
        low: Any = None,
        high: Any = None,
        low_inclusive: bool = True,
        high_inclusive: bool = False,
    ) -> list[KeyRange]:
        """Return the scan ranges of the keys with a given prefix, and optional bounds.

        ``prefix`` gives the values of the first *k* value fields; the ranges hold exactly
        the keys whose first *k* fields equal them. ``low``/``high`` then bound the next
        value field *logically* (``low <= v < high`` by default): for a ``Descending`` or
        ``ReverseTimestamp`` field the byte bounds are swapped here. ``Const`` components
        and computable ``Hashed``/``Salt`` ones are filled in. A salt whose sources are not
        all in the prefix gives one range per bucket (I5): scan each and merge. A trailing
        hash that cannot be computed ends the prefix; one that the prefix or the bounds
        would have to cross is an error. A prefix that gives a value running to the end of
        the key (``terminated=False``) is that one row; bounds on a component whose order
        wraps (:class:`~hmodel.keys.JavaInt`: negatives after positives) give one range
        per run, and bounds on an unordered one (``Reversed``, text before a separator
        other than ``00``) are refused.

        Returns:
            Non-empty ranges sorted by start; ``[]`` when the bounds leave nothing.

        Raises:
            KeyEncodeError: Unknown fields, a prefix that is not a leading run of fields,
                bounds after the last field or on a ``Reversed`` field, a hash that
                cannot be computed, or a value that does not encode.
        """
        if not isinstance(prefix, Mapping):
            raise KeyEncodeError("a key prefix is a mapping of field names", value=prefix)
        fields = self.fields
        count = len(prefix)
        unknown = next((str(f) for f in prefix if f not in fields), None)
        if unknown is not None:
            raise KeyEncodeError(
                f"the key has no field {unknown!r} (the key fields: {', '.join(fields)})",
                field=unknown,
                value=prefix[unknown],
            )
        if set(prefix) != set(fields[:count]):
            wanted = next(f for f in fields[:count] if f not in prefix)
            raise KeyEncodeError(
                f"a prefix gives a leading run of the key fields: {wanted!r} is missing",
                field=wanted,
            )
        bounded = low is not None or high is not None
        if bounded and count == len(fields):
            raise KeyEncodeError("low/high bound the field after the prefix; there is none")
        encoded = self._encode_fields(prefix, partial=True)
        heads = [b""]
        placed = 0
        closed = False  # the prefix placed a value that runs to the end of the key
        target: ValueComponent[Any] | None = None
        for component in self.components:
            if isinstance(component, ValueComponent):
                if component.name not in encoded:
                    target = component if bounded else None
                    break
                heads = [head + encoded[component.name] for head in heads]
                closed = not component.prefix_free and component.followed_by is None
                placed += 1
                continue
            if all(source in encoded for source in component.sources):
                piece = component.encode(component.derive(encoded))
                heads = [head + piece for head in heads]
            elif isinstance(component, Salt):
                heads = [h + component.encode(b) for h in heads for b in range(component.buckets)]
            elif placed == count and not bounded:
                break
            else:
                raise KeyEncodeError(
                    f"cannot range-scan across {component.name!r}: give all its source fields",
                    field=component.name,
                )
        found = [
            piece
            for head in heads
            for piece in self._bounded(
                head,
                target,
                closed=closed,
                low=low,
                high=high,
                low_inclusive=low_inclusive,
                high_inclusive=high_inclusive,
            )
        ]
        return sorted(found, key=lambda r: r.start)

    @staticmethod
    def _bounded(
        head: bytes,
        target: ValueComponent[Any] | None,
        *,
        closed: bool,
        low: Any,
        high: Any,
        low_inclusive: bool,
        high_inclusive: bool,
    ) -> list[KeyRange]:
        """Return the ranges under ``head`` with ``target`` bounded (none if empty).

        ``closed``: ``head`` is a whole key (its last value runs to the end of the key),
        so the range is that one row.
        """
        if target is None:
            return [KeyRange(head, head + b"\x00" if closed else prefix_stop(head))]
        if target.order is Order.UNORDERED:
            why = "K5"
            if target.followed_by is not None:
                why = f"text before the separator {target.followed_by!r}, which may sort above it"
            raise KeyEncodeError(
                f"cannot bound {target.name!r}: its bytes do not keep value order ({why})",
                field=target.name,
            )
        pieces = (
            Key._bounded_piece(head, target, bounds)
            for bounds in target.segments(low, high, low_inclusive, high_inclusive)
        )
        return [piece for piece in pieces if piece is not None]

    @staticmethod
    def _bounded_piece(
        head: bytes, target: ValueComponent[Any], bounds: tuple[Any, Any, bool, bool]
    ) -> KeyRange | None:
        """Return the range under ``head`` of one contiguous piece of bounds, or ``None``."""
        low, high, low_inclusive, high_inclusive = bounds
        start, stop = head, prefix_stop(head)
        open_end = not target.prefix_free and target.followed_by is None
        tail = target.followed_by or b""

        def after(bound: bytes) -> bytes:
            """The smallest row above every row whose ``target`` value is ``bound``'s."""
            return bound + b"\x00" if open_end else prefix_stop(bound)

        # ``first`` selects the smallest byte strings, ``last`` the largest.
        first, first_inclusive, last, last_inclusive = low, low_inclusive, high, high_inclusive
        if target.order is Order.DESCENDING:
            first, first_inclusive, last, last_inclusive = high, high_inclusive, low, low_inclusive
        if first is not None:
            bound = head + target.encode(first) + tail
            if first_inclusive:
                start = bound
            else:
                start = after(bound)
                if not start:  # every key is below or inside ``bound``: nothing is above it
                    return None
        if last is not None:
            bound = head + target.encode(last) + tail
            stop = after(bound) if last_inclusive else bound
        if stop and start >= stop:
            return None
        return KeyRange(start, stop)
