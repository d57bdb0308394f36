"""Value codec benchmarks: one encode and one decode of a typical cell, per codec."""

from __future__ import annotations

from typing import Any

from bench.harness import Result, Scale, rate
from hmodel.codecs import Avro, Codec, Json, Long, MsgPack, Utf8

__all__ = ["run"]

#: An order line as a document (R4): what a Json, MsgPack or Avro cell typically holds.
ORDER: dict[str, Any] = {
    "order_id": "o-000123",
    "customer": "c-0042",
    "total_cents": 12_999,
    "paid": True,
    "lines": [
        {"sku": "sku-1", "quantity": 2, "price_cents": 4_999},
        {"sku": "sku-2", "quantity": 1, "price_cents": 3_001},
    ],
}

_LINE = {
    "type": "record",
    "name": "Line",
    "fields": [
        {"name": "sku", "type": "string"},
        {"name": "quantity", "type": "int"},
        {"name": "price_cents", "type": "long"},
    ],
}
ORDER_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "Order",
    "fields": [
        {"name": "order_id", "type": "string"},
        {"name": "customer", "type": "string"},
        {"name": "total_cents", "type": "long"},
        {"name": "paid", "type": "boolean"},
        {"name": "lines", "type": {"type": "array", "items": _LINE}},
    ],
}

TEXT = "a product title of about fifty characters, é and ü"


def _cases() -> list[tuple[str, Codec[Any], Any]]:
    return [
        ("long", Long(), 1_709_294_400_123),
        ("utf8", Utf8(), TEXT),
        ("json", Json(), ORDER),
        ("msgpack", MsgPack(), ORDER),
        ("avro", Avro(ORDER_SCHEMA), ORDER),
    ]


def run(scale: Scale) -> list[Result]:
    """Measure encode + decode pairs per second for Long, Utf8, Json, MsgPack and Avro.

    Scalars get four times the operations of documents, which are slower, so that each
    measurement takes a similar time.
    """
    ops = scale.count(20_000, multiple=100)
    results = []
    for name, codec, value in _cases():
        encoded = codec.encode(value)
        if codec.decode(encoded) != value:
            raise AssertionError(f"{name} does not round-trip the benchmark value")
        count = ops if isinstance(value, (int, str)) else ops // 4

        def pair(_: int, codec: Codec[Any] = codec, value: Any = value, count: int = count) -> None:
            encode, decode = codec.encode, codec.decode
            for _ in range(count):
                decode(encode(value))

        results.append(
            Result(
                f"codecs.{name}",
                rate(pair, ops=count, scale=scale),
                "pairs/s",
                "higher",
                f"encode+decode, {len(encoded)} bytes",
            )
        )
    return results
