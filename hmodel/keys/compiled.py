"""A composite key's encode and decode, precomputed for the hot paths (issue 11).

:class:`CompiledKey` does what :meth:`Key.encode` and :meth:`Key.decode` do, byte for
byte, without re-reading the declaration on every call: the value components' codecs,
the constant bytes, and each computed component's step are laid out once. A salt or
hash over source bytes seen recently is looked up, not recomputed (MD5 is a pure
function of those bytes, so the cache changes no result).

Errors are never worded here: on any doubt (a missing field, a value that does not
encode, a key that does not parse) the call is handed to the :class:`Key` itself, which
raises its usual typed error with the field and row named.
"""

from __future__ import annotations

import datetime as dt
import keyword
import struct
from collections.abc import Callable, Mapping
from typing import Any

from hmodel.errors import KeyDecodeError
from hmodel.keys.component import DerivedComponent, ValueComponent
from hmodel.keys.composite import Key
from hmodel.keys.derived import Const, Salt
from hmodel.keys.string import Str
from hmodel.keys.timestamp import EPOCH, LONG_MAX, MICROS_PER_TICK, ReverseTimestamp, Timestamp

__all__ = ["CompiledKey"]

#: Source bytes remembered per computed component before the memo is emptied.
MEMO_SIZE = 4096


class _Derived:
    """One computed component: its value from the encoded sources, memoised, and its bytes."""

    __slots__ = ("component", "memo", "sources", "to_bytes")

    def __init__(self, component: DerivedComponent) -> None:
        self.component = component
        self.sources = component.sources
        self.memo: dict[bytes, Any] = {}
        if isinstance(component, Salt):
            table = [component.encode(bucket) for bucket in range(component.buckets)]
            self.to_bytes: Callable[[Any], bytes] = table.__getitem__
        else:
            self.to_bytes = component.encode

    def value(self, encoded: Mapping[str, bytes]) -> Any:
        """The component's value (a bucket, a digest prefix) for these encoded sources."""
        sources = self.sources
        data = encoded[sources[0]] if len(sources) == 1 else b"".join(encoded[s] for s in sources)
        memo = self.memo
        found = memo.get(data)
        if found is None:
            found = self.component.derive(encoded)
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[data] = found
        return found


class CompiledKey:
    """The encode and decode of one :class:`Key`, laid out once.

    Attributes:
        key: The key. Its results are this object's results, exactly.
        layout: Per component, in key order: a value field's name, a constant's bytes,
            or the step computing a salt or hash (with its memo).
    """

    __slots__ = ("_decode", "_encode", "_encoders", "_width", "key", "layout")

    def __init__(self, key: Key) -> None:
        self.key = key
        self._encoders: tuple[tuple[str, Callable[[Any], bytes]], ...] = tuple(
            (c.name, c.encode) for c in key.components if isinstance(c, ValueComponent)
        )
        # Per component, in key order: a value field's name, constant bytes, or a _Derived.
        layout: list[str | bytes | _Derived] = []
        for component in key.components:
            if isinstance(component, ValueComponent):
                layout.append(component.name)
            elif isinstance(component, Const):
                layout.append(component.tag)
            else:
                assert isinstance(component, DerivedComponent)
                layout.append(_Derived(component))
        self.layout = tuple(layout)
        self._width = len(self._encoders)
        self._encode, self._decode = _generate(key, self._encoders, self.layout)

    def encode(self, values: Mapping[str, Any]) -> bytes:
        """Return ``Key.encode(values)``.

        Raises:
            KeyEncodeError: As :meth:`Key.encode` (the key raises it).
        """
        try:
            if len(values) == self._width:
                return self._encode(values)
        except Exception:  # the key words the error (or finds none)
            pass
        return self.key.encode(values)

    def attribute_encoder(self, kinds: Mapping[str, type]) -> Callable[[object], bytes]:
        """A function returning the rowkey of an object's key attributes, or raising.

        ``encoder(obj)`` reads each key field as an attribute of ``obj``, requires it to
        be exactly of class ``kinds[name]``, and encodes as :meth:`encode` does. It raises
        (any exception) where it does not decide: a value of another class, one that does
        not encode; the caller then takes its full path, which words the error.
        """
        names: dict[str, Any] = {"_UndecidedError": _UndecidedError}
        lines = ["def encode(obj):"]
        for index, (name, _) in enumerate(self._encoders):
            names[f"t{index}"] = kinds[name]
            lines.append(f"    a{index} = {attribute_of('obj', name)}")
            lines.append(f"    if type(a{index}) is not t{index}:")
            lines.append("        raise _UndecidedError")
        where = {name: index for index, (name, _) in enumerate(self._encoders)}
        lines.extend(
            _encode_lines(self._encoders, self.layout, names, lambda name: f"a{where[name]}")
        )
        exec(compile("\n".join(lines), f"<hmodel key attributes {self.key!r}>", "exec"), names)
        encoder: Callable[[object], bytes] = names["encode"]
        return encoder

    def decode(self, row: bytes, *, verify: bool = True) -> dict[str, Any]:
        """Return ``Key.decode(row)``.

        Args:
            row: The rowkey.
            verify: Check every computed component against the decoded fields, as
                :meth:`Key.decode` does. ``False`` only for a row this process encoded
                from the same key (a get by key): its salt and hashes are right by
                construction, and recomputing them would only cost time.

        Raises:
            KeyDecodeError: As :meth:`Key.decode` (the key raises it).
        """
        try:
            if type(row) is bytes:
                return self._decode(row, verify)
        except Exception:  # the key words the error
            pass
        return self.key.decode(row)

    def matches(self, row: bytes) -> bool:
        """Whether ``row`` decodes cleanly under the key (:meth:`Key.matches`)."""
        try:
            self.decode(row)
        except KeyDecodeError:
            return False
        return True


def plain_name(name: str) -> bool:
    """Whether generated source may name attribute ``name`` as ``obj.name``.

    Only a plain identifier that is not a keyword: any other name is written as a string
    literal, so no name can change what the generated code does.
    """
    return name.isidentifier() and not keyword.iskeyword(name)


def attribute_of(variable: str, name: str) -> str:
    """Source reading attribute ``name`` of ``variable``: ``obj.name``, or ``getattr``.

    A name that is not :func:`plain_name` is read with ``getattr`` and a string literal.
    """
    if plain_name(name):
        return f"{variable}.{name}"
    return f"getattr({variable}, {name!r})"


#: A big-endian signed 8-byte long (Java's ``Bytes.toBytes(long)``).
_LONG = struct.Struct(">q")

#: ``timedelta`` positional arguments of ``t`` ticks of each unit (days, seconds,
#: microseconds, milliseconds).
_DELTA_ARGS = {"s": "0, t", "ms": "0, 0, 0, t", "us": "0, 0, t"}


class _UndecidedError(Exception):
    """A generated step met something it does not decide: the key's own code will."""


def _generate(
    key: Key,
    encoders: tuple[tuple[str, Callable[[Any], bytes]], ...],
    layout: tuple[str | bytes | _Derived, ...],
) -> tuple[Callable[[Mapping[str, Any]], bytes], Callable[[bytes, bool], dict[str, Any]]]:
    """Straight-line encode and decode functions for ``key``, compiled once.

    The generated code works through the components in key order with no loop,
    dictionary of steps or type dispatch between them: encode calls each component's own
    ``encode``; decode writes the usual layouts out inline (:func:`decode_lines`) and
    calls the others' ``decode``. Field names appear only as ``repr`` string literals or,
    in :meth:`CompiledKey.attribute_encoder`, as attribute names (:func:`attribute_of`).
    Either function raises on anything unusual, and :class:`CompiledKey` then hands the
    call to the key.
    """
    names: dict[str, Any] = {"_UndecidedError": _UndecidedError}
    lines = ["def encode(values):"]
    lines.extend(_encode_lines(encoders, layout, names, lambda name: f"values[{name!r}]"))
    lines.append("def decode(row, verify):")
    body, values = decode_lines(key, layout, names)
    lines.extend(body)
    lines.append(f"    return {{{', '.join(f'{n!r}: {v}' for n, v in values.items())}}}")
    exec(compile("\n".join(lines), f"<hmodel key {key!r}>", "exec"), names)
    return names["encode"], names["decode"]


def _encode_lines(
    encoders: tuple[tuple[str, Callable[[Any], bytes]], ...],
    layout: tuple[str | bytes | _Derived, ...],
    names: dict[str, Any],
    access: Callable[[str], str],
) -> list[str]:
    """The body of a generated encode: each value encoded, then the parts joined.

    ``access(name)`` is the expression of field ``name``'s value. A computed component's
    memo is read before its sources' dictionary is built.
    """
    lines = []
    for index, (name, encode) in enumerate(encoders):
        names[f"c{index}"] = encode
        lines.extend(_encode_one(getattr(encode, "__self__", None), index, access(name), names))
    slot = {name: index for index, (name, _) in enumerate(encoders)}
    parts: list[str] = []
    for position, step in enumerate(layout):
        if isinstance(step, str):
            parts.append(f"e_{slot[step]}")
        elif isinstance(step, bytes):
            names[f"k{position}"] = step
            parts.append(f"k{position}")
        else:
            names[f"x{position}"], names[f"xm{position}"] = step, step.memo
            sources = ", ".join(f"{s!r}: e_{slot[s]}" for s in step.sources)
            if len(step.sources) == 1:
                lines.append(f"    m{position} = xm{position}.get(e_{slot[step.sources[0]]})")
                lines.append(f"    if m{position} is None:")
                lines.append(f"        m{position} = x{position}.value({{{sources}}})")
            else:
                lines.append(f"    m{position} = x{position}.value({{{sources}}})")
            parts.append(f"x{position}.to_bytes(m{position})")
    lines.append(f"    return b''.join(({', '.join(parts)},))")
    return lines


def _encode_one(component: object, i: int, value: str, names: dict[str, Any]) -> list[str]:
    """Lines setting ``e_{i}`` to the bytes of ``value`` (an expression) under ``component``.

    The usual cases are written out inline: a ``str`` in a variable-width ``Str``, an
    aware ``datetime`` in a ``Timestamp``/``ReverseTimestamp``. Any other value, and any
    other component, goes through the component's ``encode`` (``c{i}``), which refuses what
    it must. The inline code does exactly what the component does, or raises.
    """
    if type(component) is Str and component.width is None and component.terminated:
        names[f"ce{i}"] = component.encoding
        return [
            f"    a = {value}",
            "    if type(a) is str:",
            f"        e_{i} = a.encode(ce{i}).replace(b'\\x00', b'\\x00\\xff') + b'\\x00\\x00'",
            "    else:",
            f"        e_{i} = c{i}(a)",
        ]
    if type(component) in (Timestamp, ReverseTimestamp):
        assert isinstance(component, Timestamp | ReverseTimestamp)
        names["_EPOCH"], names["_DATETIME"], names["_PACK"] = EPOCH, dt.datetime, _LONG.pack
        stored = "t" if type(component) is Timestamp else f"{LONG_MAX} - t"
        return [
            f"    a = {value}",
            "    if type(a) is _DATETIME and a.utcoffset() is not None:",
            "        d = a - _EPOCH",
            "        t, r = divmod((d.days * 86400 + d.seconds) * 1000000 + d.microseconds, "
            f"{MICROS_PER_TICK[component.unit]})",
            f"        if r or not 0 <= t <= {component.max_ticks}:",
            "            raise _UndecidedError",
            f"        e_{i} = _PACK({stored})",
            "    else:",
            f"        e_{i} = c{i}(a)",
        ]
    return [f"    e_{i} = c{i}({value})"]


def decode_lines(
    key: Key, layout: tuple[str | bytes | _Derived, ...], names: dict[str, Any]
) -> tuple[list[str], dict[str, str]]:
    """Source lines decoding ``row`` under ``key`` into locals, for a generated function.

    The lines run in a function with the locals ``row`` (the rowkey) and ``verify``
    (check computed components), indented by four spaces, and raise on anything unusual
    (:class:`_UndecidedError`, or whatever a component raises). ``names`` receives the
    globals they use.

    Returns:
        The lines, and per value field the local holding its value.
    """
    names["_UndecidedError"] = _UndecidedError
    lines = ["    p0 = 0"]
    for position, component in enumerate(key.components):
        lines.extend(_decode_one(component, position, names))
    lines.append(f"    if p{len(key.components)} != len(row):")
    lines.append("        raise _UndecidedError")
    where = {c.name: p for p, c in enumerate(key.components) if isinstance(c, ValueComponent)}
    checks = [(p, s) for p, s in enumerate(layout) if isinstance(s, _Derived)]
    if checks:
        lines.append("    if verify:")
        for position, step in checks:
            names[f"kx{position}"], names[f"km{position}"] = step, step.memo
            sources = ", ".join(f"{s!r}: row[p{where[s]}:p{where[s] + 1}]" for s in step.sources)
            if len(step.sources) == 1:  # the memo first, without building the sources' dict
                (source,) = step.sources
                lines.append(
                    f"        m = km{position}.get(row[p{where[source]}:p{where[source] + 1}])"
                )
                lines.append("        if m is None:")
                lines.append(f"            m = kx{position}.value({{{sources}}})")
            else:
                lines.append(f"        m = kx{position}.value({{{sources}}})")
            lines.append(f"        if m != v{position}:")
            lines.append("            raise _UndecidedError")
    return lines, {name: f"v{position}" for name, position in where.items()}


def _decode_one(component: object, i: int, names: dict[str, Any]) -> list[str]:
    """Lines setting ``v{i}`` and ``p{i + 1}`` from ``row`` at ``p{i}``.

    The usual layouts are written out inline (a variable-width ``Str`` without escaped
    bytes, a one-byte ``Salt``, a ``Timestamp``/``ReverseTimestamp``); anything else,
    and any case the inline code does not decide, goes through the component's
    ``decode``.
    """
    at, to = f"p{i}", f"p{i + 1}"
    if type(component) is Str and component.width is None and component.terminated:
        names[f"kn{i}"] = component.encoding
        return [
            f"    z = row.find(b'\\x00', {at})",
            "    if z < 0 or row[z + 1]:",  # IndexError past the end: undecided too
            "        raise _UndecidedError",
            f"    v{i} = row[{at}:z].decode(kn{i})",
            f"    {to} = z + 2",
        ]
    if type(component) is Salt and component.nbytes == 1:
        return [
            f"    v{i} = row[{at}]",
            f"    if v{i} >= {component.buckets}:",
            "        raise _UndecidedError",
            f"    {to} = {at} + 1",
        ]
    if type(component) in (Timestamp, ReverseTimestamp):
        assert isinstance(component, Timestamp | ReverseTimestamp)
        names["_EPOCH"], names["_DELTA"], names["_LONG"] = EPOCH, dt.timedelta, _LONG.unpack
        ticks = "t" if type(component) is Timestamp else f"{LONG_MAX} - t"
        return [
            f"    (t,) = _LONG(row[{at}:{at} + 8])",  # struct.error unless exactly 8 bytes
            f"    t = {ticks}",
            f"    if not 0 <= t <= {component.max_ticks}:",
            "        raise _UndecidedError",
            f"    v{i} = _EPOCH + _DELTA({_DELTA_ARGS[component.unit]})",
            f"    {to} = {at} + 8",
        ]
    names[f"kd{i}"] = component.decode  # type: ignore[attr-defined]
    return [f"    v{i}, {to} = kd{i}(row, {at})"]
