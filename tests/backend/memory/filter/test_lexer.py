"""The tokenizer: words, quoted strings with '' escapes, punctuation and offsets (I4)."""

from __future__ import annotations

import pytest

from hmodel.backend.memory.filter.lexer import Source, TokenKind, tokenize
from hmodel.errors import FilterError


def kinds_and_values(text: str | bytes) -> list[tuple[TokenKind, bytes]]:
    return [(token.kind, token.value) for token in tokenize(Source.of(text))]


def test_splits_a_filter_call_into_name_punctuation_and_arguments() -> None:
    assert kinds_and_values("ValueFilter (!=, 'binary:x')") == [
        (TokenKind.WORD, b"ValueFilter"),
        (TokenKind.LPAREN, b"("),
        (TokenKind.WORD, b"!="),
        (TokenKind.COMMA, b","),
        (TokenKind.STRING, b"binary:x"),
        (TokenKind.RPAREN, b")"),
        (TokenKind.END, b""),
    ]


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("''", b""),
        ("'it''s'", b"it's"),
        ("''''", b"'"),
        ("'a''''b'", b"a''b"),
        ("'x y,(z)'", b"x y,(z)"),
        ("'caf\u00e9'", "caf\u00e9".encode()),
        ("'\t\n'", b"\t\n"),
    ],
)
def test_a_quoted_string_is_its_utf8_bytes_with_doubled_quotes_unescaped(
    literal: str, value: bytes
) -> None:
    assert kinds_and_values(literal)[0] == (TokenKind.STRING, value)


def test_bytes_input_keeps_non_utf8_bytes_in_strings() -> None:
    assert kinds_and_values(b"'\xff\x00'")[0] == (TokenKind.STRING, b"\xff\x00")


def test_surrogate_escaped_str_stands_for_raw_bytes() -> None:
    assert kinds_and_values("'\udcff'")[0] == (TokenKind.STRING, b"\xff")


def test_tabs_separate_tokens_like_spaces() -> None:
    assert [kind for kind, _ in kinds_and_values("a\tAND\tb")][:3] == [TokenKind.WORD] * 3


def test_token_offsets_are_byte_offsets() -> None:
    tokens = tokenize(Source.of("f ('\u00e9', 1)"))
    assert [(t.start, t.end) for t in tokens] == [
        (0, 1),
        (2, 3),
        (3, 7),
        (7, 8),
        (9, 10),
        (10, 11),
        (11, 11),
    ]


def test_error_offsets_count_characters_of_a_str() -> None:
    with pytest.raises(FilterError, match="at offset 4"):
        tokenize(Source.of("'\u00e9' \n"))


def test_an_unterminated_string_is_reported_where_it_opens() -> None:
    with pytest.raises(FilterError, match="unterminated quoted string opened at offset 13"):
        tokenize(Source.of("PrefixFilter('abc"))


def test_an_escaped_quote_at_the_end_does_not_close_the_string() -> None:
    with pytest.raises(FilterError, match="unterminated"):
        tokenize(Source.of("PrefixFilter('abc'')"))


def test_control_characters_outside_strings_are_rejected() -> None:
    with pytest.raises(FilterError, match="control character"):
        tokenize(Source.of("PrefixFilter('a')\nAND KeyOnlyFilter()"))


def test_a_filter_string_must_be_text() -> None:
    with pytest.raises(FilterError, match="str or bytes"):
        Source.of(42)  # type: ignore[arg-type]


def test_unencodable_surrogates_are_rejected() -> None:
    with pytest.raises(FilterError, match="unencodable"):
        Source.of("'\ud800'")
