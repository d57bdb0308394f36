"""Text and bytes in keys: escaping, padding, order and refusals (K2)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from hmodel.errors import DeclarationError, KeyDecodeError, KeyEncodeError
from hmodel.keys import Bytes, Key, Str

TEXT = st.text(alphabet=st.characters(codec="utf-8"))  # NUL, \xff, astral planes included
BINARY = st.binary(max_size=12) | st.lists(st.sampled_from(b"\x00\x01\xfe\xff")).map(bytes)
PADS = st.sampled_from([b"\x00", b" ", b"0", b"\x7f"])


def cmp(a: object, b: object) -> int:
    return int(a > b) - int(a < b)  # type: ignore[operator]


@given(TEXT, st.binary(max_size=4))
def test_variable_text_round_trips_and_stops_at_its_terminator(text: str, tail: bytes) -> None:
    """Any text, NUL included, decodes back and the decoder stops after its terminator."""
    component = Str("s")
    raw = component.encode(text)
    assert component.decode(raw + tail, 0) == (text, len(raw))


@given(BINARY, st.binary(max_size=4))
def test_variable_bytes_round_trip(value: bytes, tail: bytes) -> None:
    """Any bytes, 0x00 and 0xff included, decode back from their escaped form."""
    component = Bytes("b")
    raw = component.encode(value)
    assert component.decode(b"\x01" + raw + tail, 1) == (value, 1 + len(raw))


@given(TEXT, TEXT, st.binary(max_size=3), st.binary(max_size=3))
def test_variable_text_order_holds_whatever_follows(s: str, t: str, x: bytes, y: bytes) -> None:
    """Byte order of [s][x] vs [t][y] is the order of s vs t when they differ (K2)."""
    assume(s != t)
    component = Str("s")
    assert cmp(component.encode(s) + x, component.encode(t) + y) == cmp(s, t)


@given(BINARY, BINARY, st.binary(max_size=3), st.binary(max_size=3))
def test_variable_bytes_order_holds_whatever_follows(
    a: bytes, b: bytes, x: bytes, y: bytes
) -> None:
    """Escaped bytes sort like the bytes, whatever component follows them."""
    assume(a != b)
    component = Bytes("b")
    assert cmp(component.encode(a) + x, component.encode(b) + y) == cmp(a, b)


def test_prefixes_sort_first_inside_whole_keys() -> None:
    """ "a" < "ab" < "b" holds for whole keys, even when a 0xff byte follows the shorter one."""
    s = Str("s")
    assert s.encode("a") + b"\xff" < s.encode("ab") + b"\x00" < s.encode("b")
    assert s.encode("") < s.encode("\x00") < s.encode("\x00\x00") < s.encode("\x01")
    assert s.encode("a\x00b") == b"a\x00\xffb\x00\x00"


@given(st.binary(max_size=10))
def test_whatever_decodes_is_canonical(buf: bytes) -> None:
    """Bytes that decode are exactly the encoding of the decoded value (no aliases)."""
    for component in (Str("s"), Bytes("b"), Str("f", width=3), Bytes("g", width=3, pad=b" ")):
        try:
            value, end = component.decode(buf, 0)
        except KeyDecodeError:
            continue
        assert component.encode(value) == buf[:end]


@st.composite
def fixed_bytes_case(draw: st.DrawFn) -> tuple[Bytes, bytes, bytes]:
    pad = draw(PADS)
    width = draw(st.integers(1, 6))
    allowed = st.binary(max_size=width).filter(lambda v: all(c > pad[0] for c in v))
    return Bytes("b", width=width, pad=pad), draw(allowed), draw(allowed)


@given(fixed_bytes_case())
def test_fixed_width_bytes_round_trip_and_keep_order(case: tuple[Bytes, bytes, bytes]) -> None:
    """Padded values are exactly width bytes, decode back and sort like the values."""
    component, a, b = case
    assert len(component.encode(a)) == component.fixed_width
    assert component.decode(component.encode(a) + b"\x00", 0) == (a, component.width)
    assert cmp(component.encode(a), component.encode(b)) == cmp(a, b)


@given(st.text(alphabet=st.characters(codec="utf-8", min_codepoint=1), max_size=4), TEXT)
def test_fixed_width_text_round_trips_and_keeps_order(a: str, b: str) -> None:
    """Fixed-width UTF-8 padded with 0x00 sorts like the text (NUL itself is refused)."""
    component = Str("s", width=16)
    assume("\x00" not in b and len(b.encode()) <= 16)
    assert component.decode(component.encode(a), 0) == (a, 16)
    assert cmp(component.encode(a), component.encode(b)) == cmp(a, b)


def test_fixed_width_pads_on_the_right() -> None:
    """A short value is followed by pad bytes up to the width."""
    assert Str("s", width=5).encode("ab") == b"ab\x00\x00\x00"
    assert Str("s", width=4, pad=b" ", encoding="ascii").encode("ab") == b"ab  "
    assert Str("s", width=2).encode("") == b"\x00\x00"


def test_too_long_is_refused_never_truncated() -> None:
    """A value longer than the width (in encoded bytes) raises, naming field and value."""
    with pytest.raises(KeyEncodeError, match="longer than its width 2") as info:
        Str("s", width=2).encode("\u00e9\u00e9")  # 4 UTF-8 bytes
    assert (info.value.field, info.value.value) == ("s", "\u00e9\u00e9")
    with pytest.raises(KeyEncodeError, match="longer"):
        Bytes("b", width=1).encode(b"ab")


@pytest.mark.parametrize(
    ("component", "value"),
    [
        (Str("s", width=4), "a\x00"),  # holds the pad byte: indistinguishable from padding
        (Bytes("b", width=4, pad=b" "), b"a b"),  # the pad byte inside
        (Bytes("b", width=4, pad=b" "), b"a\x01"),  # below the pad: would sort before b"a"
    ],
)
def test_fixed_width_refuses_bytes_not_above_the_pad(component: Bytes | Str, value: object) -> None:
    """Values holding the pad byte, or a byte below it, are refused (order and decoding)."""
    with pytest.raises(KeyEncodeError, match="pad byte"):
        component.encode(value)


@pytest.mark.parametrize(
    ("component", "value", "message"),
    [
        (Str("s"), b"abc", "takes str"),
        (Str("s"), 1, "takes str"),
        (Bytes("b"), "abc", "takes bytes"),
        (Bytes("b"), bytearray(b"abc"), "takes bytes"),
        (Str("s"), "\ud800", "cannot be encoded"),  # a lone surrogate
        (Str("s", encoding="ascii"), "\u00e9", "cannot be encoded"),
    ],
)
def test_wrong_type_or_unencodable_text_is_refused(
    component: Bytes | Str, value: object, message: str
) -> None:
    """Wrong types and text the encoding cannot hold raise KeyEncodeError with the field."""
    with pytest.raises(KeyEncodeError, match=message) as info:
        component.encode(value)
    assert info.value.field == component.name


@pytest.mark.parametrize(
    ("component", "buf", "message"),
    [
        (Str("s"), b"abc", "no terminator"),
        (Str("s"), b"abc\x00", "no terminator"),
        (Str("s"), b"a\x00\x05b\x00\x00", "followed by 05"),
        (Str("s"), b"\xff\xfe\x00\x00", "not valid utf-8"),
        (Str("s", width=3), b"a\x00b", "not above the pad"),
        (Str("s", width=3), b"ab", "truncated"),
        (Bytes("b", width=3, pad=b" "), b"a\x01 ", "not above the pad"),
    ],
)
def test_corrupt_bytes_are_refused(component: Bytes | Str, buf: bytes, message: str) -> None:
    """Unterminated, badly escaped, badly padded or invalid text raises KeyDecodeError."""
    with pytest.raises(KeyDecodeError, match=message) as info:
        component.decode(buf, 0)
    assert info.value.field == component.name


@pytest.mark.parametrize(
    "kwargs",
    [{"width": 0}, {"width": True}, {"width": 2.0}, {"pad": b""}, {"pad": b"ab"}, {"pad": " "}],
)
def test_bad_layouts_are_refused(kwargs: dict[str, object]) -> None:
    """Widths are positive ints and pads a single byte."""
    with pytest.raises(DeclarationError):
        Bytes("b", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32-be", "cp1252", "no-such-codec"])
def test_encodings_that_do_not_keep_code_point_order_are_refused(encoding: str) -> None:
    """Only UTF-8, ASCII and Latin-1 sort bytes in code-point order."""
    with pytest.raises(DeclarationError, match="code-point order"):
        Str("s", encoding=encoding)


def test_encoding_aliases_are_normalised() -> None:
    """Aliases such as 'UTF8' and 'latin1' are accepted under their canonical names."""
    assert Str("s", encoding="UTF8").encoding == "utf-8"
    assert Str("s", encoding="latin1").encoding == "latin-1"
    assert (Str("s").python_type, Bytes("b").python_type) == (str, bytes)


# --- exact width (pad=None): digests that replace long ids (K9) -------------------------


@given(st.binary(min_size=16, max_size=16), st.binary(min_size=16, max_size=16))
def test_exact_width_bytes_take_any_byte_and_keep_byte_order(a: bytes, b: bytes) -> None:
    component = Bytes("digest", width=16, pad=None)
    assert component.encode(a) == a
    assert component.decode(component.encode(a) + b"tail", 0) == (a, 16)
    assert (component.encode(a) < component.encode(b)) == (a < b)


def test_an_md5_digest_with_zero_bytes_is_a_valid_exact_width_key() -> None:
    import hashlib

    digest = hashlib.md5(b"https://example.com/3").digest()
    key = Key(Bytes("url_md5", width=16, pad=None), Str("day"))
    row = key.encode({"url_md5": b"\x00" + digest[1:], "day": "2024-01-01"})
    assert key.decode(row) == {"url_md5": b"\x00" + digest[1:], "day": "2024-01-01"}


@pytest.mark.parametrize("value", [b"", b"x" * 15, b"x" * 17])
def test_exact_width_refuses_any_other_length(value: bytes) -> None:
    with pytest.raises(KeyEncodeError) as info:
        Bytes("digest", width=16, pad=None).encode(value)
    assert info.value.field == "digest"


def test_exact_width_needs_a_width() -> None:
    with pytest.raises(DeclarationError):
        Bytes("digest", pad=None)
