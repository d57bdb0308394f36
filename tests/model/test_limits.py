"""K8: a key leading with a monotonic value warns; F11: cell-size limits per field and model."""

# No ``from __future__ import annotations``: the models are declared inside test functions.

import warnings
from typing import ClassVar

import pytest

from hmodel.errors import DeclarationError, MonotonicKeyWarning
from hmodel.keys import (
    Const,
    Descending,
    Hashed,
    Int,
    Key,
    Reversed,
    ReverseTimestamp,
    Salt,
    Str,
    Timestamp,
)
from hmodel.model import field, map_field, model, model_info
from hmodel.model.limits import DEFAULT_MAX_CELL_BYTES, DEFAULT_WARN_CELL_BYTES, monotonic_lead
from hmodel.schema import Family, Table

EVENTS = Table("events", [Family("e")])


@pytest.mark.parametrize(
    "key",
    [
        Key(Timestamp("ts")),
        Key(ReverseTimestamp("ts")),
        Key(Descending(Timestamp("ts"))),
        Key(Const(b"\x01", name="type"), Timestamp("ts")),
        Key(Timestamp("ts"), Str("host")),
    ],
    ids=["timestamp", "reverse", "descending", "after-const", "then-host"],
)
def test_a_key_leading_with_a_timestamp_warns_K8(key: Key) -> None:
    name = key.fields[0]
    source = f"""
@model(EVENTS, key=key)
class Event:
    {name}: datetime
    {"host: str" if "host" in key.fields else ""}
    body: str = field("e:b")
"""
    namespace = {"model": model, "EVENTS": EVENTS, "key": key, "field": field}
    exec("from datetime import datetime", namespace)
    with pytest.warns(MonotonicKeyWarning, match="K8") as caught:
        exec(compile(source, "user_models.py", "exec"), namespace)
    assert caught[0].filename == "user_models.py"  # attributed to the declaration, not hmodel


@pytest.mark.parametrize(
    "key",
    [
        Key(Str("host"), Timestamp("ts")),
        Key(Salt("ts", buckets=8), Timestamp("ts")),
        Key(Hashed("ts", nbytes=2), Timestamp("ts")),
        Key(Reversed(Timestamp("ts"))),
        Key(Int("id", size=8)),
    ],
    ids=["entity-first", "salted", "hashed", "reversed", "int"],
)
def test_keys_that_spread_writes_do_not_warn(key: Key) -> None:
    assert monotonic_lead(key) is None


def test_the_warning_is_silenced_with_a_reason() -> None:
    from datetime import datetime

    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)

        @model(EVENTS, key=Key(Timestamp("ts")), allow_monotonic_key="a few writes a day")
        class Audit:
            ts: datetime
            body: str = field("e:b")

    assert model_info(Audit).allow_monotonic_key == "a few writes a day"


@pytest.mark.parametrize("value", ["", 1, None])
def test_allow_monotonic_key_is_a_bool_or_a_reason(value: object) -> None:
    with pytest.raises(DeclarationError, match="allow_monotonic_key"):

        @model(EVENTS, key=Key(Str("host")), allow_monotonic_key=value)  # type: ignore[arg-type]
        class Event:
            host: str


def test_cell_limits_default_to_10_mib_refused_and_100_kib_warned_F11() -> None:
    @model(EVENTS, key=Key(Str("id")))
    class Doc:
        id: str
        body: str = field("e:b")
        small: str = field("e:s", max_bytes=1000, warn_bytes=10)
        parts: dict[str, bytes] = map_field("e", prefix="p_", max_bytes=64)

    info = model_info(Doc)
    assert (DEFAULT_MAX_CELL_BYTES, DEFAULT_WARN_CELL_BYTES) == (10 * 1024 * 1024, 100 * 1024)
    assert info.cell_limits(info.columns["body"]) == (DEFAULT_MAX_CELL_BYTES, 102_400)
    assert info.cell_limits(info.columns["small"]) == (1000, 10)
    assert info.cell_limits(info.maps["parts"]) == (64, 102_400)


def test_model_wide_limits_apply_to_fields_without_their_own() -> None:
    @model(EVENTS, key=Key(Str("id")), max_cell_bytes=None, warn_cell_bytes=None)
    class Loose:
        id: str
        body: str = field("e:b")
        capped: str = field("e:c", max_bytes=5)

    info = model_info(Loose)
    assert info.cell_limits(info.columns["body"]) == (None, None)
    assert info.cell_limits(info.columns["capped"]) == (5, None)


@pytest.mark.parametrize(
    ("model_options", "field_options", "match"),
    [
        ({"max_cell_bytes": 0}, {}, "max_cell_bytes"),
        ({"warn_cell_bytes": True}, {}, "warn_cell_bytes"),
        ({"max_cell_bytes": 10, "warn_cell_bytes": 20}, {}, "above max_cell_bytes"),
        ({}, {"max_bytes": -1}, "max_bytes"),
        ({}, {"max_bytes": 10, "warn_bytes": 11}, "above max_bytes"),
    ],
)
def test_bad_limits_are_refused(
    model_options: dict[str, object], field_options: dict[str, object], match: str
) -> None:
    with pytest.raises(DeclarationError, match=match):

        @model(EVENTS, key=Key(Str("id")), **model_options)  # type: ignore[arg-type]
        class Doc:
            id: str
            body: str = field("e:b", **field_options)  # type: ignore[call-overload]


def test_the_advisors_ignore_with_a_reason_silences_the_warning_too() -> None:
    from datetime import datetime

    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)

        @model(EVENTS, key=Key(Timestamp("ts")))
        class Audit:
            __hmodel_ignore__: ClassVar[dict[str, str]] = {"HM-K8": "100 rows a day"}
            ts: datetime
            body: str = field("e:b")

    assert model_info(Audit).allow_monotonic_key == "100 rows a day"
    with pytest.warns(MonotonicKeyWarning):

        @model(EVENTS, key=Key(Timestamp("ts")))
        class Blank:
            __hmodel_ignore__: ClassVar[dict[str, str]] = {"HM-K8": ""}
            ts: datetime
            body: str = field("e:b")
