"""Key codec benchmarks: the salted purchase key encoded, decoded and turned into ranges."""

from __future__ import annotations

from bench.fixture import BUCKETS, EPOCH, PURCHASE_KEY, purchase_keys
from bench.harness import Result, Scale, rate

__all__ = ["run"]


def run(scale: Scale) -> list[Result]:
    """Measure ``Key.encode``, ``Key.decode`` and ``Key.ranges`` on ``PURCHASE_KEY``."""
    ops = scale.count(20_000, multiple=1000)
    values = purchase_keys(1000)
    rows = [PURCHASE_KEY.encode(v) for v in values]
    users = [{"user": v["user"]} for v in values]
    key = PURCHASE_KEY
    rounds = ops // len(values)

    def encode(_: int) -> None:
        for _ in range(rounds):
            for value in values:
                key.encode(value)

    def decode(_: int) -> None:
        for _ in range(rounds):
            for row in rows:
                key.decode(row)

    def user_range(_: int) -> None:
        for _ in range(rounds):
            for prefix in users:
                key.ranges(prefix)

    low, high = EPOCH, EPOCH.replace(month=2)

    def time_range(_: int) -> None:
        for _ in range(rounds):
            for prefix in users:
                key.ranges(prefix, low=low, high=high)

    fan_ops = max(100, ops // 10)

    def fan_out(_: int) -> None:
        for _ in range(fan_ops):
            key.ranges()

    width = len(rows[0])
    return [
        Result(
            "keys.encode",
            rate(encode, ops=ops, scale=scale),
            "ops/s",
            "higher",
            f"[salt][user][reverse ts][product], {width} bytes",
        ),
        Result(
            "keys.decode",
            rate(decode, ops=ops, scale=scale),
            "ops/s",
            "higher",
            "with the salt recomputed and checked",
        ),
        Result(
            "keys.range_user",
            rate(user_range, ops=ops, scale=scale),
            "ops/s",
            "higher",
            "ranges({user}): 1 range, salt computed",
        ),
        Result(
            "keys.range_time",
            rate(time_range, ops=ops, scale=scale),
            "ops/s",
            "higher",
            "ranges({user}, low=, high=) on the reverse ts",
        ),
        Result(
            "keys.range_fanout",
            rate(fan_out, ops=fan_ops, scale=scale),
            "ops/s",
            "higher",
            f"ranges({{}}): {BUCKETS} ranges, one per bucket",
        ),
    ]
