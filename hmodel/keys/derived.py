"""Computed key components: record-type tags, hash prefixes, salt buckets (K3, K4, K9, R1)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import attrs

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys.component import DerivedComponent, take
from hmodel.keys.integer import check_int

__all__ = ["Const", "Hashed", "Salt", "digest_size", "joined", "source_names"]


def source_names(fields: tuple[object, ...], what: str) -> tuple[str, ...]:
    """Return the source field names of a computed component, checked.

    Raises:
        DeclarationError: None, one that is not a non-empty string, or one named twice.
    """
    if not fields:
        raise DeclarationError(f"{what} needs at least one source field")
    for field in fields:
        if not isinstance(field, str) or not field:
            raise DeclarationError(f"{what} source fields are field names", value=field)
    if len(set(fields)) != len(fields):
        raise DeclarationError(f"{what} names a source field twice", value=fields)
    return tuple(str(f) for f in fields)


def joined(encoded: Mapping[str, bytes], sources: tuple[str, ...], name: str) -> bytes:
    """Return the encoded bytes of ``sources``, concatenated in order.

    Raises:
        KeyEncodeError: A source is missing from ``encoded`` (names it).
    """
    missing = [s for s in sources if s not in encoded]
    if missing:
        raise KeyEncodeError(f"{name!r} needs the source field {missing[0]!r}", field=missing[0])
    return b"".join(encoded[s] for s in sources)


def digest_size(algorithm: object) -> int:
    """The digest size in bytes of a :mod:`hashlib` algorithm.

    Raises:
        DeclarationError: Not an algorithm with a fixed digest size.
    """
    try:
        size = hashlib.new(algorithm, usedforsecurity=False).digest_size  # type: ignore[arg-type]
    except (ValueError, TypeError):
        size = 0
    if not size:
        raise DeclarationError(
            "a hash needs a hashlib algorithm with a fixed digest size", value=algorithm
        )
    return int(size)


@attrs.frozen(init=False)
class Const(DerivedComponent):
    """A constant tag such as a record type (R1): ``[customer][type=2][order]``.

    Its bytes are ``tag`` itself. Encoding fills it in; decoding refuses any other bytes,
    so :meth:`Key.matches` tells record types sharing one table apart.

    Args:
        tag: The bytes, at least one.
        name: A label for error messages (default ``const <tag>``); not a value field.

    Raises:
        DeclarationError: ``tag`` is not non-empty bytes.
    """

    tag: bytes
    name: str

    def __init__(self, tag: bytes, name: str | None = None) -> None:
        if not isinstance(tag, bytes) or not tag:
            raise DeclarationError("a Const tag must be non-empty bytes", value=tag)
        if name is not None and (not isinstance(name, str) or not name):
            raise DeclarationError("a Const name must be a non-empty string", value=name)
        self.__attrs_init__(tag, name or f"const {tag!r}")

    @property
    def fixed_width(self) -> int:
        """``len(tag)``."""
        return len(self.tag)

    @property
    def sources(self) -> tuple[str, ...]:
        """None: a constant depends on nothing."""
        return ()

    def derive(self, encoded: Mapping[str, bytes]) -> bytes:
        """Return ``tag``."""
        return self.tag

    def encode(self, value: Any) -> bytes:
        """Return ``tag``; ``value`` must be ``tag`` (or ``None``).

        Raises:
            KeyEncodeError: ``value`` is another value.
        """
        if value is not None and value != self.tag:
            raise KeyEncodeError(
                f"{self.name!r} is the constant {self.tag!r}", field=self.name, value=value
            )
        return self.tag

    def decode(self, buf: bytes, pos: int) -> tuple[bytes, int]:
        """Check that ``tag`` is at ``pos``; return it and the position after it.

        Raises:
            KeyDecodeError: Other bytes (another record type), or truncated.
        """
        raw = take(buf, pos, len(self.tag), self)
        if raw != self.tag:
            raise KeyDecodeError(f"{self.name!r} expects {self.tag!r}", field=self.name, value=raw)
        return raw, pos + len(self.tag)


@attrs.frozen(init=False)
class Hashed(DerivedComponent):
    """The first ``nbytes`` of a digest of some fields' encoded bytes (K4, K9).

    Layout: ``hash(enc(f1) + enc(f2) + ...)[:nbytes]``, where ``enc`` is each source
    field's own key encoding (a variable-width ``Str`` includes its ``00 00`` terminator)
    in the order given. ``md5(user)[:4] + user`` spreads users over the key space and
    still allows a Get by user; the hash is recomputed and checked on decode. A hash can
    only be scanned for when all its source fields are known (:meth:`Key.ranges`).

    Args:
        *source_fields: The value fields hashed, in order.
        nbytes: How many leading digest bytes to keep (1 .. digest size).
        algorithm: A :mod:`hashlib` algorithm with a fixed digest size (``"md5"``,
            ``"sha1"``, ``"sha256"``, ...); used for spreading, not for security.
        name: A label for error messages (default ``md5(f1,f2)``).

    Raises:
        DeclarationError: No source field, an unknown algorithm, ``nbytes`` out of range.
    """

    sources: tuple[str, ...]
    nbytes: int
    algorithm: str
    name: str

    def __init__(
        self, *source_fields: str, nbytes: int = 4, algorithm: str = "md5", name: str | None = None
    ) -> None:
        sources = source_names(source_fields, "Hashed")
        size = digest_size(algorithm)
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or not 1 <= nbytes <= size:
            raise DeclarationError(f"Hashed nbytes must be in 1..{size}", value=nbytes)
        self.__attrs_init__(sources, nbytes, algorithm, name or f"{algorithm}({','.join(sources)})")

    @property
    def fixed_width(self) -> int:
        """``nbytes``."""
        return self.nbytes

    def derive(self, encoded: Mapping[str, bytes]) -> bytes:
        """Return the first ``nbytes`` of the digest of the encoded source fields.

        Raises:
            KeyEncodeError: A source field is missing from ``encoded``.
        """
        data = joined(encoded, self.sources, self.name)
        return hashlib.new(self.algorithm, data, usedforsecurity=False).digest()[: self.nbytes]

    def encode(self, value: Any) -> bytes:
        """Return ``value``, a digest prefix of ``nbytes`` bytes.

        Raises:
            KeyEncodeError: ``value`` is not ``nbytes`` bytes.
        """
        if not isinstance(value, bytes) or len(value) != self.nbytes:
            raise KeyEncodeError(
                f"{self.name!r} is {self.nbytes} digest bytes", field=self.name, value=value
            )
        return value

    def decode(self, buf: bytes, pos: int) -> tuple[bytes, int]:
        """Read ``nbytes`` at ``pos`` (the composite key checks them against the fields).

        Raises:
            KeyDecodeError: Truncated.
        """
        return take(buf, pos, self.nbytes, self), pos + self.nbytes


@attrs.frozen(init=False)
class Salt(DerivedComponent):
    """A bucket number in ``0 .. buckets - 1`` computed from some fields, to spread writes (K3).

    Layout: ``bucket`` as ``nbytes`` big-endian bytes, where ``bucket`` is the first 8
    bytes of the MD5 of the source fields' encoded bytes (as for :class:`Hashed`), read
    as a big-endian integer, modulo ``buckets``. MD5 is the same in every process and on
    every machine (Python's ``hash()`` is not). A salted table is pre-split at the
    bucket prefixes (K11), and a read that does not know the sources fans out to one scan
    per bucket (I5); :meth:`Key.ranges` returns them.

    Args:
        *source_fields: The value fields the bucket is computed from.
        buckets: The number of buckets, 1 .. ``256 ** nbytes``.
        nbytes: 1 or 2 bytes.
        name: A label for error messages (default ``salt(f1,f2)``).

    Raises:
        DeclarationError: No source field, ``nbytes`` not 1 or 2, ``buckets`` out of range.
    """

    sources: tuple[str, ...]
    buckets: int
    nbytes: int
    name: str

    def __init__(
        self, *source_fields: str, buckets: int, nbytes: int = 1, name: str | None = None
    ) -> None:
        sources = source_names(source_fields, "Salt")
        if isinstance(nbytes, bool) or nbytes not in (1, 2):
            raise DeclarationError("Salt nbytes must be 1 or 2", value=nbytes)
        limit = 256**nbytes
        if isinstance(buckets, bool) or not isinstance(buckets, int) or not 1 <= buckets <= limit:
            raise DeclarationError(f"Salt buckets must be in 1..{limit}", value=buckets)
        self.__attrs_init__(sources, buckets, nbytes, name or f"salt({','.join(sources)})")

    @property
    def fixed_width(self) -> int:
        """``nbytes``."""
        return self.nbytes

    def derive(self, encoded: Mapping[str, bytes]) -> int:
        """Return the bucket of the encoded source fields.

        Raises:
            KeyEncodeError: A source field is missing from ``encoded``.
        """
        data = joined(encoded, self.sources, self.name)
        digest = hashlib.md5(data, usedforsecurity=False).digest()
        return int.from_bytes(digest[:8], "big") % self.buckets

    def encode(self, value: Any) -> bytes:
        """Return bucket ``value`` as ``nbytes`` big-endian bytes.

        Raises:
            KeyEncodeError: Not an ``int`` in ``0 .. buckets - 1``.
        """
        return check_int(value, 0, self.buckets - 1, self.name).to_bytes(self.nbytes, "big")

    def decode(self, buf: bytes, pos: int) -> tuple[int, int]:
        """Read the bucket at ``pos``.

        Raises:
            KeyDecodeError: Truncated, or a bucket ``>= buckets``.
        """
        raw = take(buf, pos, self.nbytes, self)
        bucket = int.from_bytes(raw, "big")
        if bucket >= self.buckets:
            raise KeyDecodeError(
                f"{self.name!r}: unknown salt bucket {bucket} (there are {self.buckets})",
                field=self.name,
                value=raw,
            )
        return bucket, pos + self.nbytes
