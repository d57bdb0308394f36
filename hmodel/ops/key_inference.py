"""Guessing a rowkey layout from sampled keys for ``hmodel inspect``: propose, then verify."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

import hmodel.keys as keys_package
from hmodel.errors import HModelError, SampleError
from hmodel.keys import Key
from hmodel.keys.phoenix import phoenix_hash
from hmodel.keys.timestamp import LONG_MAX

__all__ = ["KeyGuess", "candidates", "infer_key", "round_trips"]

#: Separators tried for delimited keys (K1), most common first.
SEPARATORS = (b"|", b"#", b":", b"_", b",", b";", b"-", b"/", b".")
#: Hash-prefix widths tried, in bytes (raw digest) and in hex characters (text digest).
HASH_BYTES = (4, 2, 1, 8, 16)
HASH_CHARS = (4, 8, 2, 6, 32, 16, 1, 3)
#: Instants a reverse timestamp may stand for: 2000-01-01 .. 2100-01-01, in ms (K6).
PLAUSIBLE_MS = (946_684_800_000, 4_102_444_800_000)
#: Fewer sampled keys than this cannot tell a Phoenix salt byte from chance.
MIN_SALTED = 8
_TEXT = re.compile(rb"[\x20-\x7e]+")
_DIGITS = re.compile(rb"[0-9]+")


@attrs.frozen
class KeyGuess:
    """A key layout that round-trips every sampled rowkey.

    Attributes:
        source: The ``Key(...)`` expression, in the names ``hmodel.keys`` exports.
        key: That expression evaluated.
        names: The ``hmodel.keys`` names the expression uses (to import).
        notes: Why this layout, and what is uncertain about it (comments for the module).
        proposer: The family of layouts it comes from (``numeric``, ``fallback``, ...).
    """

    source: str
    key: Key
    names: tuple[str, ...]
    notes: tuple[str, ...] = ()
    proposer: str = ""

    def annotations(self) -> dict[str, type]:
        """The Python type of each key field, in key order."""
        return {name: self.key.component(name).python_type for name in self.key.fields}


def _namespace() -> dict[str, Any]:
    return {name: getattr(keys_package, name) for name in keys_package.__all__}


def round_trips(key: Key, rowkeys: Sequence[bytes]) -> bool:
    """Whether every rowkey decodes under ``key`` and encodes back to the same bytes."""
    for row in rowkeys:
        try:
            if key.encode(key.decode(row)) != row:
                return False
        except HModelError:
            return False
    return True


def _text(rowkeys: Sequence[bytes]) -> bool:
    return all(_TEXT.fullmatch(row) for row in rowkeys)


def _same_length(rowkeys: Sequence[bytes]) -> int | None:
    lengths = {len(row) for row in rowkeys}
    return lengths.pop() if len(lengths) == 1 else None


def _field(name: str, parts: Sequence[bytes]) -> str:
    """The component of one text field of a key: digits of one width, or open text."""
    width = _same_length(parts)
    if width is not None and width > 1 and all(_DIGITS.fullmatch(p) for p in parts):
        return f'PaddedInt("{name}", width={width})'
    return f'Str("{name}")'


def _delimited(rowkeys: Sequence[bytes]) -> Iterator[tuple[str, str]]:
    for sep in SEPARATORS:
        counts = {row.count(sep) for row in rowkeys}
        if len(counts) != 1 or 0 in counts:
            continue
        columns = list(zip(*(row.split(sep) for row in rowkeys), strict=True))
        if len(rowkeys) > 1 and any(len(set(column)) == 1 for column in columns):
            continue  # a constant part is a prefix of open text, not a field
        names = [f"part_{n}" for n in range(1, len(columns) + 1)]
        parts = ", ".join(_field(n, col) for n, col in zip(names, columns, strict=True))
        yield (
            f'Key({parts}, sep=b"{repr(sep)[2:-1]}")',
            f"the fields are joined by {sep!r} in every sampled key (delimited, K1)",
        )


def _hash_prefix(rowkeys: Sequence[bytes]) -> Iterator[tuple[str, str]]:
    for size in HASH_BYTES:
        if all(
            len(row) > size and hashlib.md5(row[size:]).digest()[:size] == row[:size]
            for row in rowkeys
        ):
            rest = _same_length([row[size:] for row in rowkeys])
            tail = (
                f'Bytes("id", width={rest}, pad=None)' if rest else 'Bytes("id", terminated=False)'
            )
            if _text([row[size:] for row in rowkeys]):
                tail = tail.replace("Bytes(", "Str(")
            yield (
                f'Key(Hashed("id", nbytes={size}), {tail})',
                f"the first {size} bytes are the MD5 of the rest (a hash prefix, K4)",
            )
    for chars in HASH_CHARS:
        if all(
            len(row) > chars
            and hashlib.md5(row[chars:]).hexdigest()[:chars].encode() == row[:chars]
            for row in rowkeys
        ):
            yield (
                f'Key(HexHashed("id", nchars={chars}), Str("id", terminated=False))',
                f"the first {chars} characters are the MD5 hex digest of the rest (K4)",
            )


def _textual(row: bytes) -> bool:
    """Printable text, or hmodel's own text with its ``00 00`` terminator."""
    return bool(_TEXT.fullmatch(row.removesuffix(b"\x00\x00")))


def _reverse_ms(data: bytes) -> bool:
    """Whether 8 bytes are ``Long.MAX_VALUE`` minus a millisecond instant of 2000-2100."""
    return PLAUSIBLE_MS[0] <= LONG_MAX - int.from_bytes(data, "big") <= PLAUSIBLE_MS[1]


def _phoenix_buckets(rowkeys: Sequence[bytes]) -> int | None:
    """The fewest ``SALT_BUCKETS`` whose Phoenix salt byte leads every key, if any (K3)."""
    if len(rowkeys) < MIN_SALTED or any(len(row) < 2 for row in rowkeys):
        return None
    if len({row[0] for row in rowkeys}) < 2:
        return None  # one lead byte: no sign of a salt (and 1 bucket fits anything)
    for buckets in range(max(row[0] for row in rowkeys) + 1, 257):
        if all(abs(phoenix_hash(row[1:])) % buckets == row[0] for row in rowkeys):
            return buckets
    return None


def _phoenix(rowkeys: Sequence[bytes]) -> Iterator[tuple[str, str]]:
    buckets = _phoenix_buckets(rowkeys)
    if buckets is None:
        return
    why = f"a Phoenix table with SALT_BUCKETS = {buckets}: its salt byte leads every key"
    rests = [row[1:] for row in rowkeys]
    for size in (8, 4):
        if all(len(r) > size and r[-size - 1] == 0 for r in rests):
            yield (
                f'phoenix_key(Str("id"), Int("number", size={size}), salt_buckets={buckets})',
                f"{why}; a VARCHAR, then a {'BIGINT' if size == 8 else 'INTEGER'}",
            )
    yield f'phoenix_key(Str("id"), salt_buckets={buckets})', f"{why}; one VARCHAR"
    yield f'phoenix_key(Bytes("id"), salt_buckets={buckets})', f"{why}; one VARBINARY"


def _numeric(rowkeys: Sequence[bytes]) -> Iterator[tuple[str, str]]:
    width = _same_length(rowkeys)
    if width not in (8, 4, 2) or all(_textual(row) for row in rowkeys):
        return
    values = [int.from_bytes(row, "big") for row in rowkeys]
    if width == 8 and all(_reverse_ms(row) for row in rowkeys):
        yield (
            'Key(ReverseTimestamp("at"))',
            "8 bytes that are Long.MAX_VALUE minus a millisecond instant of 2000-2100 (K6)",
        )
    if all(v < 1 << (8 * width - 1) for v in values):
        yield (
            f'Key(Int("number", size={width}, signed=False))',
            f"{width}-byte big-endian integers, all non-negative (Bytes.toBytes of a Java "
            "number); a negative one would need JavaInt",
        )
    yield (
        f'Key(JavaInt("number", size={width}))',
        f"{width}-byte big-endian two's-complement integers (Bytes.toBytes of a Java number)",
    )


def _number_suffix(rowkeys: Sequence[bytes]) -> Iterator[tuple[str, str]]:
    """A fixed-width id followed by an 8-byte reverse timestamp or Java long (K6)."""
    width = _same_length(rowkeys)
    if width is None or width <= 8 or _text(rowkeys):
        return
    heads = [row[:-8] for row in rowkeys]
    head = "Str" if _text(heads) else "Bytes"
    lead = f'{head}("id", width={width - 8}, pad=None)'
    if all(_reverse_ms(row[-8:]) for row in rowkeys):
        yield (
            f'Key({lead}, ReverseTimestamp("at"))',
            (f"a {width - 8}-byte id, then Long.MAX_VALUE minus a millisecond instant (K6)"),
        )
    yield (
        f'Key({lead}, Int("number", size=8, signed=False))',
        (f"a {width - 8}-byte id, then an 8-byte Java long"),
    )


def _text_keys(rowkeys: Sequence[bytes]) -> Iterator[tuple[str, str]]:
    width = _same_length(rowkeys)
    if _text(rowkeys):
        if width is not None and all(_DIGITS.fullmatch(row) for row in rowkeys):
            yield (
                f'Key(PaddedInt("id", width={width}))',
                f"zero-padded decimal text of {width} digits (String.format)",
            )
        yield 'Key(Str("id", terminated=False))', "plain text keys (Bytes.toBytes(String))"
        if width is not None:
            yield f'Key(Str("id", width={width}, pad=None))', f"text keys of exactly {width} bytes"
    yield 'Key(Str("id"))', "hmodel's own escaped and terminated text (K2)"


def _fallback(rowkeys: Sequence[bytes]) -> Iterator[tuple[str, str]]:
    width = _same_length(rowkeys)
    if width is not None:
        yield f'Key(Bytes("rowkey", width={width}, pad=None))', "opaque bytes of one width"
    yield 'Key(Bytes("rowkey", terminated=False))', "opaque bytes: no structure recognised"


#: The proposers, most specific first: the first proposal that round-trips wins.
PROPOSERS: tuple[Callable[[Sequence[bytes]], Iterator[tuple[str, str]]], ...] = (
    _phoenix,
    _hash_prefix,
    _numeric,
    _number_suffix,
    _delimited,
    _text_keys,
    _fallback,
)


def candidates(rowkeys: Sequence[bytes]) -> Iterator[KeyGuess]:
    """Yield every proposed layout that round-trips all of ``rowkeys``, best first.

    A proposal whose components this version of hmodel lacks is left out.
    """
    namespace = _namespace()
    seen: set[str] = set()
    for proposer in PROPOSERS:
        for source, why in proposer(rowkeys):
            if source in seen:
                continue
            seen.add(source)
            try:
                key = eval(source, {"__builtins__": {}}, namespace)
            except (NameError, TypeError, HModelError):
                continue
            if isinstance(key, Key) and round_trips(key, rowkeys):
                used = tuple(sorted(n for n in namespace if re.search(rf"\b{n}\(", source)))
                yield KeyGuess(source, key, used, (why,), proposer.__name__.lstrip("_"))


def infer_key(rowkeys: Sequence[bytes]) -> KeyGuess:
    """The most specific layout that round-trips every sampled rowkey.

    Where a second, different layout also fits, the guess notes it as uncertain.

    Raises:
        SampleError: No layout fits (only where hmodel lacks the open text layout).
    """
    found = candidates(rowkeys)
    best = next(found, None)
    if best is None:
        raise SampleError(
            "no key layout this hmodel can express round-trips the sampled rowkeys "
            "(variable-width keys without a terminator need Str(..., terminated=False))",
            value=rowkeys[0] if rowkeys else None,
        )
    other = next(
        (g for g in found if g.proposer not in (best.proposer, "fallback", "text_keys")), None
    )
    if other is None or not rowkeys:
        return best
    alternative = f"uncertain: {other.source} fits the sample too ({other.notes[0]})"
    return attrs.evolve(best, notes=(*best.notes, alternative))
