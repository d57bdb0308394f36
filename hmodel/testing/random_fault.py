"""A Backend wrapper that fails calls at seeded random points, before, inside or after them."""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from typing import Any

from hmodel.backend.base import Backend, Mutation
from hmodel.errors import ConnectionLostError, OutcomeUnknownError
from hmodel.testing.fault import FaultyBackend

__all__ = ["RandomFaultBackend"]

#: The calls that change data: where a writer can die.
WRITES = frozenset(
    {"mutate", "check_and_put", "check_and_delete", "check_and_mutate", "increment", "append"}
)


class RandomFaultBackend(FaultyBackend):
    """Wraps a backend and makes calls fail at random, reproducibly from a seed.

    Each call of a method in ``methods`` fails with probability ``rate``, in one of three
    ways chosen at random:

    * **before**: :class:`~hmodel.errors.ConnectionLostError` is raised and nothing is
      applied (the request never left);
    * **after**: the call is applied, then :class:`~hmodel.errors.OutcomeUnknownError` is
      raised (the reply was lost: the caller cannot know);
    * **inside** (``mutate`` only): the rows of the call are applied one by one in a random
      order, as HBase applies a multi-row batch (each row atomically, no atomicity across
      rows), and the call fails after a random number of them.

    A writer that gets an error stops, as a process that died there would: so every
    point between and inside a protocol's writes is reached. Deterministic for one seed
    and one thread; with several threads the interleaving decides which call draws which
    number. :class:`~hmodel.testing.fault.FaultyBackend` hooks still work.

    Args:
        inner: The backend that does the work.
        seed: Seed of the random draws.
        rate: Probability that a call fails, 0 to 1.
        methods: The methods that may fail (default: the writes).

    Attributes:
        enabled: Set to ``False`` to pass every call on (e.g. for a final check).
        injected: Faults injected so far, by kind (``before``, ``after``, ``inside``).
    """

    def __init__(
        self,
        inner: Backend,
        *,
        seed: int = 0,
        rate: float = 0.05,
        methods: frozenset[str] = WRITES,
    ) -> None:
        super().__init__(inner)
        if not 0 <= rate <= 1:
            raise ValueError("rate is a probability, 0 to 1")
        self.rate = rate
        self.methods = methods
        self.enabled = True
        self.injected: dict[str, int] = {"before": 0, "after": 0, "inside": 0}
        self._random = random.Random(seed)
        self._draw_lock = threading.Lock()

    @property
    def faults(self) -> int:
        """Faults injected so far, all kinds."""
        return sum(self.injected.values())

    def _draw(self, method: str) -> tuple[str | None, float]:
        with self._draw_lock:
            if not self.enabled or method not in self.methods:
                return None, 0.0
            if self._random.random() >= self.rate:
                return None, 0.0
            kinds = ["before", "after", "inside"] if method == "mutate" else ["before", "after"]
            kind = self._random.choice(kinds)
            self.injected[kind] += 1
            return kind, self._random.random()

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        kind, fraction = self._draw(method)
        if kind is None:
            return super()._call(method, *args, **kwargs)
        if kind == "before":
            raise ConnectionLostError(f"injected fault before {method}")
        if kind == "inside":
            table, mutations = args
            self._partial(table, mutations, fraction)
            raise OutcomeUnknownError(f"injected fault inside {method}")
        super()._call(method, *args, **kwargs)
        raise OutcomeUnknownError(f"injected fault after {method}")

    def _partial(self, table: str, mutations: Sequence[Mutation], fraction: float) -> None:
        """Apply the mutations of a random part of the rows, row by row."""
        rows: dict[bytes, list[Mutation]] = {}
        for mutation in mutations:
            rows.setdefault(mutation.row, []).append(mutation)
        order = list(rows)
        with self._draw_lock:
            self._random.shuffle(order)
        for row in order[: int(fraction * len(order))]:
            self.inner.mutate(table, rows[row])
