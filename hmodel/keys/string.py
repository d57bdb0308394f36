"""Text and bytes in a key: escaped and terminated, or padded to a fixed width (K2)."""

from __future__ import annotations

import abc
import codecs
from typing import Any, TypeVar

import attrs

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys.component import Order, ValueComponent, check_name, take

__all__ = ["ESCAPE", "TERMINATOR", "Bytes", "Str"]

T = TypeVar("T", str, bytes)

#: What a ``0x00`` byte of the value becomes in a variable-width encoding.
ESCAPE = b"\x00\xff"
#: What ends a variable-width encoding.
TERMINATOR = b"\x00\x00"

# Encodings whose byte order is the code-point order of the text (Python's ``str`` order).
_ORDERED_ENCODINGS = {"utf-8": "utf-8", "ascii": "ascii", "iso8859-1": "latin-1"}


def _check_width(width: object, name: str) -> int | None:
    if width is None:
        return None
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise DeclarationError("width must be None or an int >= 1", field=name, value=width)
    return width


@attrs.frozen
class _Blob(ValueComponent[T], abc.ABC):
    """The byte layout shared by :class:`Str` and :class:`Bytes` (documented on ``Bytes``)."""

    name: str
    width: int | None = attrs.field(default=None, kw_only=True)
    pad: bytes | None = attrs.field(default=b"\x00", kw_only=True)
    terminated: bool = attrs.field(default=True, kw_only=True)
    until: bytes | None = attrs.field(default=None, kw_only=True)

    def __attrs_post_init__(self) -> None:
        check_name(self.name, type(self).__name__)
        _check_width(self.width, self.name)
        if not isinstance(self.terminated, bool):
            raise DeclarationError(
                "terminated must be a bool", field=self.name, value=self.terminated
            )
        if self.until is not None:
            if not isinstance(self.until, bytes) or not self.until:
                raise DeclarationError(
                    "until must be non-empty bytes (the separator that follows the value)",
                    field=self.name,
                    value=self.until,
                )
            object.__setattr__(self, "terminated", False)
        if not self.terminated and self.width is not None:
            raise DeclarationError(
                "a fixed-width value has no terminator to leave out: drop terminated/until",
                field=self.name,
                value=self.width,
            )
        if self.pad is None:
            if self.width is None:
                raise DeclarationError(
                    "pad=None (exact width) needs a width", field=self.name, value=self.pad
                )
        elif not isinstance(self.pad, bytes) or len(self.pad) != 1:
            raise DeclarationError("pad must be a single byte", field=self.name, value=self.pad)

    @abc.abstractmethod
    def _to_raw(self, value: Any) -> bytes:
        """Return the unescaped bytes of ``value`` or raise :class:`KeyEncodeError`."""

    @abc.abstractmethod
    def _from_raw(self, raw: bytes) -> T:
        """Return the value of unescaped bytes or raise :class:`KeyDecodeError`."""

    @property
    def fixed_width(self) -> int | None:
        """``width``, or ``None`` for the variable-width layouts."""
        return self.width

    @property
    def prefix_free(self) -> bool:
        """False for the open layouts (``terminated=False``, ``until=``): raw bytes."""
        return self.terminated

    @property
    def followed_by(self) -> bytes | None:
        """``until``: the separator the key writes after the raw bytes."""
        return self.until

    @property
    def order(self) -> Order:
        """Ascending, except before a separator other than ``00`` (see the class)."""
        if self.until is None or self.until == b"\x00":
            return Order.ASCENDING
        return Order.UNORDERED

    def stem(self, value: Any) -> bytes:
        """The bytes that start the encoding of every value that starts with ``value``.

        For the escaped layout that is the encoding without its terminator; for the open
        layouts the raw bytes. Prefix ("starts with") scans use it.

        Raises:
            KeyEncodeError: As :meth:`encode`, or a fixed-width component.
        """
        if self.width is not None:
            raise KeyEncodeError(
                f"{self.name!r} is fixed-width: no prefix of it can be scanned for",
                field=self.name,
                value=value,
            )
        raw = self._to_raw(value)
        return raw.replace(b"\x00", ESCAPE) if self.terminated else raw

    def encode(self, value: Any) -> bytes:
        """Return the padded, escaped-and-terminated or raw bytes of ``value``.

        Raises:
            KeyEncodeError: Wrong type; longer than ``width``; holding a byte not above
                ``pad`` (fixed width); holding the ``until`` separator; not encodable in
                the text encoding.
        """
        raw = self._to_raw(value)
        if self.width is None:
            if self.terminated:
                return raw.replace(b"\x00", ESCAPE) + TERMINATOR
            if self.until is not None and (raw + self.until).find(self.until) != len(raw):
                raise KeyEncodeError(
                    f"{self.name!r} holds its separator {self.until!r}",
                    field=self.name,
                    value=value,
                )
            return raw
        if self.pad is None:
            if len(raw) != self.width:
                raise KeyEncodeError(
                    f"{self.name!r} is {len(raw)} bytes, not exactly its width {self.width}",
                    field=self.name,
                    value=value,
                )
            return raw
        if len(raw) > self.width:
            raise KeyEncodeError(
                f"{self.name!r} is {len(raw)} bytes, longer than its width {self.width}",
                field=self.name,
                value=value,
            )
        if raw and min(raw) <= self.pad[0]:
            raise KeyEncodeError(
                f"{self.name!r} holds a byte not above its pad byte {self.pad!r}",
                field=self.name,
                value=value,
            )
        return raw + self.pad * (self.width - len(raw))

    def decode(self, buf: bytes, pos: int) -> tuple[T, int]:
        """Read one value at ``pos`` in the component's layout (see :class:`Bytes`).

        That is ``width`` bytes; up to and including the terminator; up to, not
        including, the ``until`` separator; or all the bytes left (``terminated=False``).

        Raises:
            KeyDecodeError: Truncated; no terminator or separator; ``00`` followed by anything but
                ``00``/``FF``; padding followed by value bytes; not valid text.
        """
        if self.width is not None:
            chunk = take(buf, pos, self.width, self)
            if self.pad is None:
                return self._from_raw(chunk), pos + self.width
            raw = chunk.rstrip(self.pad)
            if raw and min(raw) <= self.pad[0]:
                raise KeyDecodeError(
                    f"{self.name!r}: fixed-width value holds a byte not above the pad byte",
                    field=self.name,
                    value=chunk,
                )
            return self._from_raw(raw), pos + self.width
        if not self.terminated:
            if self.until is None:
                return self._from_raw(buf[pos:]), len(buf)
            end = buf.find(self.until, pos)
            if end < 0:
                raise KeyDecodeError(
                    f"truncated rowkey: {self.name!r} is not followed by {self.until!r}",
                    field=self.name,
                    value=buf[pos:],
                )
            return self._from_raw(buf[pos:end]), end
        zero = buf.find(b"\x00", pos)
        if 0 <= zero < len(buf) - 1 and buf[zero + 1] == 0:  # no escaped byte: the usual case
            return self._from_raw(buf[pos:zero]), zero + 2
        out = bytearray()
        start = pos
        while True:
            zero = buf.find(b"\x00", pos)
            if zero < 0 or zero + 1 >= len(buf):
                raise KeyDecodeError(
                    f"truncated rowkey: {self.name!r} has no terminator",
                    field=self.name,
                    value=buf[start:],
                )
            out += buf[pos:zero]
            marker = buf[zero + 1]
            if marker == 0x00:
                return self._from_raw(bytes(out)), zero + 2
            if marker != 0xFF:
                raise KeyDecodeError(
                    f"{self.name!r}: byte 00 followed by {marker:02x}, not 00 or ff",
                    field=self.name,
                    value=buf[start : zero + 2],
                )
            out.append(0)
            pos = zero + 2


@attrs.frozen
class Bytes(_Blob[bytes]):
    r"""Raw bytes in a key, variable-width (escaped and terminated) or fixed-width (padded).

    Variable width (``width=None``): each ``00`` byte of the value is written ``00 FF``
    and the value ends with the terminator ``00 00``. Order: where value ``s`` is a
    proper prefix of ``t``, ``s`` continues with ``00 00`` and ``t`` with a byte above
    ``00`` or with ``00 FF``; where they first differ at bytes ``x < y``, either both are
    literal or ``x`` is ``00`` written ``00 FF`` against ``y > 00``. Either way the
    encodings differ at a byte inside both, so ``a`` < ``ab`` < ``b`` holds for whole
    keys whatever follows. ``00 00`` never occurs inside an encoding, so encodings are
    prefix-free and parse without a length.

    Fixed width (``width=N``): the value's bytes right-padded with ``pad`` to exactly
    ``N`` bytes; a longer value is refused, never truncated. Every byte of the value must
    be *above* ``pad``: a value holding the pad byte could not be told from its padding,
    and one holding a smaller byte would sort before a shorter value it extends
    (``b"a\x01"`` padded with ``b" "`` is ``61 01 20``, below ``b"a"`` = ``61 20 20``).
    With the default ``pad=b"\x00"`` that rules out only ``00`` bytes, and byte order is
    exactly value order.

    Exact width (``width=N, pad=None``): the value must be exactly ``N`` bytes and any
    byte is allowed; values of one length sort as their bytes. This is the layout for a
    digest that replaces a long id (K9): ``Bytes("url_md5", width=16, pad=None)``.

    Open, to the end of the key (``terminated=False``): the value's bytes exactly, with
    no escape and no terminator, as Java's ``Bytes.toBytes(String)`` writes a whole
    rowkey. Nothing can follow it, so :class:`~hmodel.keys.Key` accepts it only as its
    last component. Byte order is value order (``a`` < ``ab`` < ``b``).

    Open, up to a separator (``until=b"|"``): the value's bytes exactly, then the key's
    next component, a :class:`~hmodel.keys.Const` starting with ``until``, marks its end
    (``Key(..., sep=b"|")`` and :func:`~hmodel.keys.phoenix_key` write both). A value
    holding ``until`` is refused. Byte order is value order only when ``until`` is
    ``b"\x00"`` (every value byte is above it); for another separator a value's bytes
    may sort below it (``"ab|"`` < ``"a|"`` since ``b`` < ``|``), so the component is
    unordered: prefixes work, bounds are refused.

    Args:
        name: The field name.
        width: ``None`` for variable width (escaped, terminated), or a fixed width in bytes.
        pad: The fixed-width pad byte; value bytes must all be above it. ``None``: exact
            width, no padding, any byte.
        terminated: ``False`` for the open layout ending the key (variable width only).
        until: The separator that follows the open layout (implies ``terminated=False``).

    Raises:
        DeclarationError: ``width`` not a positive int, ``pad`` not a single byte,
            ``until`` not non-empty bytes, or an open layout with a ``width``.
    """

    @property
    def python_type(self) -> type[bytes]:
        """``bytes``."""
        return bytes

    def _to_raw(self, value: Any) -> bytes:
        if not isinstance(value, bytes):
            raise KeyEncodeError(
                f"{self.name!r} takes bytes, not {type(value).__name__}",
                field=self.name,
                value=value,
            )
        return value

    def _from_raw(self, raw: bytes) -> bytes:
        return raw


@attrs.frozen
class Str(_Blob[str]):
    r"""Text in a key, stored in ``encoding`` with the layout of :class:`Bytes`.

    UTF-8 (the default), ASCII and Latin-1 are the encodings whose byte order is the
    code-point order Python compares strings by; others are refused. ``width`` counts
    encoded bytes. A variable-width ``Str`` takes any text, ``"\x00"`` included; a
    fixed-width one refuses characters encoded with bytes not above ``pad``.

    ``Str("order_id", terminated=False)`` as a key's only (or last) component writes the
    text exactly, ``o1`` as ``6f 31``, which is what a Java client's
    ``Get(Bytes.toBytes("o1"))`` looks up.

    Args:
        name: The field name.
        width: ``None`` for variable width (escaped, terminated), or a fixed width in bytes.
        pad: The fixed-width pad byte.
        terminated: ``False`` for the open layout ending the key (see :class:`Bytes`).
        until: The separator that follows the open layout (see :class:`Bytes`).
        encoding: ``"utf-8"``, ``"ascii"`` or ``"latin-1"``.

    Raises:
        DeclarationError: A bad ``width``/``pad``, or an encoding that does not keep order.
    """

    encoding: str = attrs.field(default="utf-8", kw_only=True)

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        try:
            canonical = codecs.lookup(self.encoding).name
        except (LookupError, TypeError):
            canonical = ""
        if canonical not in _ORDERED_ENCODINGS:
            raise DeclarationError(
                "Str encoding must keep code-point order: utf-8, ascii or latin-1",
                field=self.name,
                value=self.encoding,
            )
        object.__setattr__(self, "encoding", _ORDERED_ENCODINGS[canonical])

    @property
    def python_type(self) -> type[str]:
        """``str``."""
        return str

    def _to_raw(self, value: Any) -> bytes:
        if not isinstance(value, str):
            raise KeyEncodeError(
                f"{self.name!r} takes str, not {type(value).__name__}",
                field=self.name,
                value=value,
            )
        try:
            return value.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise KeyEncodeError(
                f"{self.name!r} cannot be encoded in {self.encoding}: {exc.reason}",
                field=self.name,
                value=value,
            ) from None

    def _from_raw(self, raw: bytes) -> str:
        try:
            return raw.decode(self.encoding)
        except UnicodeDecodeError as exc:
            raise KeyDecodeError(
                f"{self.name!r} is not valid {self.encoding}: {exc.reason}",
                field=self.name,
                value=raw,
            ) from None
