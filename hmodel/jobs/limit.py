"""A rate limit for jobs, so a bulk job does not starve the cluster's online traffic."""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

from hmodel.errors import ValidationError

__all__ = ["RateLimit", "TokenBucket"]


@attrs.frozen
class RateLimit:
    """At most ``rows_per_second`` rows read per second by the whole job. Picklable.

    The runner gives each shard running at once an equal share (:meth:`share`): with
    ``rows_per_second=1000`` and 4 shards at a time (the executor's workers), each shard
    reads at most 250 rows/s, so the job as a whole stays under 1000 whatever the
    number of machines.

    Attributes:
        rows_per_second: The job's limit, ``> 0``.
        burst_seconds: How many seconds of rows a shard may read at once after idling
            (its bucket's size), ``> 0``.
    """

    rows_per_second: float
    burst_seconds: float = 1.0

    def __attrs_post_init__(self) -> None:
        for name in ("rows_per_second", "burst_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValidationError(f"{name} is a number > 0", field=name, value=value)

    def share(self, concurrent: int) -> RateLimit:
        """The limit of one of ``concurrent`` shards running at once (``concurrent >= 1``)."""
        return RateLimit(self.rows_per_second / max(1, concurrent), self.burst_seconds)

    def bucket(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> TokenBucket:
        """A token bucket enforcing this limit (``clock`` in seconds)."""
        rate = self.rows_per_second
        return TokenBucket(rate, rate * self.burst_seconds, clock=clock, sleep=sleep)


class TokenBucket:
    """A token bucket: ``rate`` tokens a second, at most ``capacity`` saved up.

    :meth:`acquire` takes tokens and, when the bucket runs short, sleeps for the
    shortfall (``shortfall / rate`` seconds), so over any stretch of time ``t`` at most
    ``capacity + rate * t`` tokens are taken. A request larger than the capacity is
    served too (it sleeps longer). The clock and the sleep are parameters, so tests
    need no real time.

    Args:
        rate: Tokens a second, ``> 0``.
        capacity: The most saved up (the bucket starts full), ``> 0``.
        clock: Seconds, monotonic.
        sleep: Waits that many seconds.
    """

    def __init__(
        self,
        rate: float,
        capacity: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate <= 0 or capacity <= 0:
            raise ValidationError(
                "a token bucket's rate and capacity are > 0", value=(rate, capacity)
            )
        self.rate = rate
        self.capacity = capacity
        self.clock = clock
        self.sleep = sleep
        self.tokens = capacity
        self.last = clock()
        self.slept = 0.0

    def acquire(self, tokens: float) -> float:
        """Take ``tokens``, sleeping first if the bucket is short; return the seconds slept."""
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now
        self.tokens -= tokens
        if self.tokens >= 0:
            return 0.0
        wait = -self.tokens / self.rate
        self.sleep(wait)
        self.slept += wait
        return wait
