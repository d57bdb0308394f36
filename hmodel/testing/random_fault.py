"""A Backend wrapper that fails calls at seeded random points, before, inside or after them."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import timedelta
from typing import ParamSpec, TypeVar, cast

from hmodel.backend.base import Backend, Mutation, RowResult
from hmodel.clock import ManualClock
from hmodel.errors import ConnectionLostError, OutcomeUnknownError, ReadInterruptedError
from hmodel.testing.fault import FaultyBackend

__all__ = ["KINDS", "WRITES", "RandomFaultBackend"]

P = ParamSpec("P")
T = TypeVar("T")

#: The calls that change data: where a writer can die.
WRITES = frozenset(
    {"mutate", "check_and_put", "check_and_delete", "check_and_mutate", "increment", "append"}
)

#: Every kind of fault, in the order of :attr:`RandomFaultBackend.injected`.
KINDS = ("before", "after", "inside", "stall", "drop")

#: A dropped scan yields fewer rows than this before it fails (0 included).
_DROP_WITHIN = 10


class _DroppedScan:
    """A scan that yields ``rows`` rows of ``inner``, then fails as a dropped connection."""

    def __init__(self, inner: Iterator[RowResult], rows: int, table: str) -> None:
        self._inner = inner
        self._left = rows
        self._table = table

    def __iter__(self) -> _DroppedScan:
        return self

    def __next__(self) -> RowResult:
        if self._left <= 0:
            self.close()
            raise ReadInterruptedError(
                f"injected fault: scan of {self._table!r} dropped midway; nothing was "
                "written, the rows already returned are valid",
                table=self._table,
            )
        self._left -= 1
        return next(self._inner)

    def close(self) -> None:
        """Close the scan underneath (releases its server-side scanner)."""
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> _DroppedScan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RandomFaultBackend(FaultyBackend):
    """Wraps a backend and makes calls fail at random, reproducibly from a seed.

    Each call of a method in ``methods`` draws a fault with probability ``rate``, of one
    of the kinds the call admits, chosen at random (weighted by ``weights``):

    * **before**: :class:`~hmodel.errors.ConnectionLostError` is raised and nothing is
      applied (the request never left); a ``scan`` fails when opened;
    * **after**: the call is applied, then :class:`~hmodel.errors.OutcomeUnknownError` is
      raised (the reply was lost: the caller cannot know); not for ``scan``;
    * **inside** (``mutate`` only): the rows of the call are applied one by one in a random
      order, as HBase applies a multi-row batch (each row atomically, no atomicity across
      rows), and the call fails after a random number of them;
    * **stall** (only with ``clock`` and ``stall``): the shared
      :class:`~hmodel.clock.ManualClock` is advanced by ``stall`` before the call is
      passed on, which then succeeds. With one clock shared by every writer, this is
      what a long pause of the calling writer looks like to the others: every write in
      flight (its own included) ages by ``stall`` at once; with ``stall`` longer than an
      index's grace, their unverified entries and claims become those of dead writers;
    * **drop** (``scan`` only): the scan opens, yields a random number of rows (0 to 9),
      then raises :class:`~hmodel.errors.ReadInterruptedError`, as the Thrift1 scanner
      does when the connection keeps dropping during fetches (the Thrift2 scanner raises
      its parent, :class:`~hmodel.errors.ConnectionLostError`): nothing was written and
      the rows already yielded are valid.

    A writer that gets an error stops, as a process that died there would: so every
    point between and inside a protocol's writes is reached. Deterministic for one seed
    and one thread; with several threads the interleaving decides which call draws which
    number. :class:`~hmodel.testing.fault.FaultyBackend` hooks still work.

    Args:
        inner: The backend that does the work.
        seed: Seed of the random draws.
        rate: Probability that a call of ``methods`` draws a fault, 0 to 1.
        methods: The methods that may fail (default: the writes). Add ``"get"``,
            ``"scan"`` and others to stall and fail reads too.
        clock: The clock a stall advances (``None``: no stalls).
        stall: How far a stall advances ``clock`` (``None``: no stalls).
        weights: Relative weight of each kind (default 1 each); a kind with weight 0
            is never drawn. Among the kinds a call admits, one is drawn by weight.

    Attributes:
        enabled: Set to ``False`` to pass every call on (e.g. for a final check).
        injected: Faults injected so far, by kind (``before``, ``after``, ``inside``,
            ``stall``, ``drop``).

    Raises:
        ValueError: ``rate`` is not a probability, a weight is negative or names no
            kind, or only one of ``clock`` and ``stall`` is given.
    """

    def __init__(
        self,
        inner: Backend,
        *,
        seed: int = 0,
        rate: float = 0.05,
        methods: frozenset[str] = WRITES,
        clock: ManualClock | None = None,
        stall: timedelta | None = None,
        weights: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__(inner)
        if not 0 <= rate <= 1:
            raise ValueError("rate is a probability, 0 to 1")
        if (clock is None) != (stall is None):
            raise ValueError("a stall needs both the clock to advance and the stall's length")
        given = dict(weights or {})
        if set(given) - set(KINDS) or any(w < 0 for w in given.values()):
            raise ValueError(f"weights are >= 0, by kind among {KINDS}")
        self.rate = rate
        self.methods = methods
        self.clock = clock
        self.stall_ms = 0 if stall is None else round(stall.total_seconds() * 1000)
        self.weights = {kind: float(given.get(kind, 1.0)) for kind in KINDS}
        self.enabled = True
        self.injected: dict[str, int] = dict.fromkeys(KINDS, 0)
        self._random = random.Random(seed)
        self._draw_lock = threading.Lock()
        self._local = threading.local()

    @property
    def faults(self) -> int:
        """Faults injected so far, all kinds."""
        return sum(self.injected.values())

    @property
    def faults_here(self) -> int:
        """Faults injected so far into calls of the calling thread, all kinds."""
        return int(getattr(self._local, "faults", 0))

    def _kinds(self, method: str) -> list[str]:
        if method == "scan":
            kinds = ["before", "drop"]
        elif method == "mutate":
            kinds = ["before", "after", "inside"]
        else:
            kinds = ["before", "after"]
        if self.clock is not None:
            kinds.append("stall")
        return [k for k in kinds if self.weights[k] > 0]

    def _draw(self, method: str) -> tuple[str | None, float]:
        with self._draw_lock:
            if not self.enabled or method not in self.methods:
                return None, 0.0
            if self._random.random() >= self.rate:
                return None, 0.0
            kinds = self._kinds(method)
            if not kinds:
                return None, 0.0
            kind = self._random.choices(kinds, [self.weights[k] for k in kinds])[0]
            self.injected[kind] += 1
            fraction = self._random.random()
        self._local.faults = self.faults_here + 1
        return kind, fraction

    def _forward(
        self, method: str, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        kind, fraction = self._draw(method)
        if kind is None:
            return super()._forward(method, call, *args, **kwargs)
        if kind == "before":
            raise ConnectionLostError(f"injected fault before {method}")
        if kind == "stall":
            assert self.clock is not None
            self.clock.advance(self.stall_ms)
            return super()._forward(method, call, *args, **kwargs)
        if kind == "drop":
            opened = cast("Iterator[RowResult]", super()._forward(method, call, *args, **kwargs))
            return cast("T", _DroppedScan(opened, int(fraction * _DROP_WITHIN), str(args[0])))
        if kind == "inside":
            table, mutations = cast("tuple[str, Sequence[Mutation]]", args)
            self._partial(table, mutations, fraction)
            raise OutcomeUnknownError(f"injected fault inside {method}")
        super()._forward(method, call, *args, **kwargs)
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
