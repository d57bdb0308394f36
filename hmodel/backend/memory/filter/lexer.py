"""The tokenizer of the HBase filter language (I4): words, quoted strings and punctuation."""

from __future__ import annotations

import enum

import attrs

from hmodel.errors import FilterError

__all__ = ["KEYWORDS", "Source", "Token", "TokenKind", "tokenize"]

#: The operator words; like HBase's ``ParseFilter`` they are case-sensitive.
KEYWORDS = frozenset({b"AND", b"OR", b"SKIP", b"WHILE"})

_QUOTE = 0x27
_SPACE = frozenset(b" \t")
_PUNCTUATION = {
    ord("("): "LPAREN",
    ord(")"): "RPAREN",
    ord(","): "COMMA",
}
_WORD_END = frozenset(b" \t(),'")


class TokenKind(enum.Enum):
    """What a token is."""

    WORD = "word"
    """A run of characters other than space, tab, ``(``, ``)``, ``,`` and ``'``: a filter
    name, an operator keyword, an integer, a boolean or a compare operator."""
    STRING = "string"
    """A single-quoted literal; its value is the unescaped bytes (``''`` stands for ``'``)."""
    LPAREN = "("
    RPAREN = ")"
    COMMA = ","
    END = "end of filter"


@attrs.frozen
class Token:
    """One token: its kind, its bytes and where it lies in the source (byte offsets).

    For :attr:`TokenKind.STRING` the value is the literal's content with ``''``
    unescaped; for every other kind it is the token's text as bytes.
    """

    kind: TokenKind
    value: bytes
    start: int
    end: int

    def describe(self) -> str:
        """Name the token for an error message, e.g. ``'AND'`` or ``end of filter``."""
        if self.kind is TokenKind.END:
            return "end of filter"
        if self.kind is TokenKind.STRING:
            return "string " + repr(self.value.decode("utf-8", "backslashreplace"))
        return repr(self.value.decode("utf-8", "backslashreplace"))


@attrs.frozen
class Source:
    r"""A filter string as given (``str`` or ``bytes``) and as parsed (bytes).

    A ``str`` is encoded as UTF-8, as HBase's ``Bytes.toBytes(String)`` does; lone
    surrogates ``\udc80``-``\udcff`` (Python's ``surrogateescape``) stand for the raw
    bytes ``0x80``-``0xff``, so any byte string can be written as a ``str`` too.
    Offsets in error messages count characters of a ``str`` and bytes of a ``bytes``.
    """

    text: str | bytes
    data: bytes

    @classmethod
    def of(cls, text: str | bytes) -> Source:
        """Wrap ``text``; raises :class:`FilterError` if it is neither str nor bytes."""
        if isinstance(text, bytes):
            return cls(text, text)
        if isinstance(text, str):
            try:
                return cls(text, text.encode("utf-8", "surrogateescape"))
            except UnicodeEncodeError as exc:
                raise FilterError(
                    f"filter string has an unencodable character at offset {exc.start}",
                    value=text,
                ) from exc
        raise FilterError("a filter string must be str or bytes", value=text)

    def offset(self, position: int) -> int:
        """Translate a byte offset into an offset in the text as given."""
        if isinstance(self.text, bytes):
            return position
        return len(self.data[:position].decode("utf-8", "surrogateescape"))

    def error(self, message: str, position: int, hint: str = "") -> FilterError:
        """A :class:`FilterError` saying ``message`` at ``position`` (a byte offset)."""
        return FilterError(f"{message} at offset {self.offset(position)}{hint}", value=self.text)


def tokenize(source: Source) -> list[Token]:
    """Split ``source`` into tokens, ending with one :attr:`TokenKind.END` token.

    Spaces and tabs separate tokens. Other control characters may only appear inside
    quoted strings.

    Raises:
        FilterError: A string is not closed, or a control character is outside a string.
    """
    data = source.data
    tokens: list[Token] = []
    i = 0
    size = len(data)
    while i < size:
        byte = data[i]
        if byte in _SPACE:
            i += 1
        elif byte in _PUNCTUATION:
            tokens.append(Token(TokenKind[_PUNCTUATION[byte]], data[i : i + 1], i, i + 1))
            i += 1
        elif byte == _QUOTE:
            tokens.append(_string(source, i))
            i = tokens[-1].end
        else:
            start = i
            while i < size and data[i] not in _WORD_END:
                if data[i] < 0x20 or data[i] == 0x7F:
                    raise source.error(
                        f"control character {chr(data[i])!r} outside a quoted string", i
                    )
                i += 1
            tokens.append(Token(TokenKind.WORD, data[start:i], start, i))
    tokens.append(Token(TokenKind.END, b"", size, size))
    return tokens


def _string(source: Source, start: int) -> Token:
    """Read the quoted string opening at ``start``; ``''`` inside it is one quote."""
    data = source.data
    parts: list[bytes] = []
    i = start + 1
    while True:
        close = data.find(b"'", i)
        if close < 0:
            raise source.error("unterminated quoted string opened", start)
        parts.append(data[i:close])
        if data[close + 1 : close + 2] == b"'":
            parts.append(b"'")
            i = close + 2
            continue
        return Token(TokenKind.STRING, b"".join(parts), start, close + 1)
