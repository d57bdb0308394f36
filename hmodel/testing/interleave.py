"""Every interleaving of a few clients' backend calls, run one call at a time: a protocol's proof.

A client-side protocol (a secondary index's three steps, a unique claim, a copy's sync) is
correct only if it is correct however the calls of concurrent clients interleave. Threads
and sleeps find the bad orders by luck; this module finds them all. It is stateless model
checking in the manner of CHESS: a *scenario* builds a fresh world (a backend, a clock,
two or three client callables and an invariant check); each client gets its own
:class:`SteppedBackend`, whose every call (and every batch fetch of a scan) is a
**step**: the client's thread blocks there until the explorer gives it the turn. Exactly
one client runs at a time, so a run is fully determined by its *schedule*, the sequence of
clients given the turn. :func:`explore` re-runs the scenario for every schedule (a
depth-first search over the choices), checks the invariant after every step, and reports
the number of interleavings and the first violating schedule, which :func:`replay` runs
again step by step.

Reduction: sleep sets (Godefroid, "Partial-Order Methods for the Verification of
Concurrent Systems", 1996, chapter 5), and nothing more. Two steps are *independent* when
they touch disjoint (table, row) sets or both only read: the memory engine keeps no state
across rows that a call can observe, so running them in either order gives the same store
and the same answers. Independence is judged on the calls' own arguments: a ``get`` reads
its rows; each fetch of a scan reads its whole ``[start, stop)`` range, and opening the
scanner only the table's declaration; writes (``mutate``, the check-and-* calls,
increments, appends) write their rows; creating or deleting a table touches all of it. A
clock advance is dependent on every call (clients read the clock between calls); a death
is independent of other clients' calls (a dead client changes nothing), but two deaths
share the budget. After the search has explored a step ``t`` from a state, ``t`` sleeps in
the sibling branches explored after it, and stays asleep down a branch as long as the
steps taken are independent of it: taking it there would only reach states that the
branch of ``t`` reaches too.

Why it is sound: every reachable state, and so every state an invariant can fail in, is
still visited. By induction over the order in which the search finishes its nodes: a state
reached from a node by steps that start with an awake step is visited in that child's
branch; one reached by steps that start with a sleeping ``t`` is reached, commuting ``t``
back over the independent steps it slept through, from the sibling branch of ``t``, which
finished earlier. Complete runs are pairwise inequivalent (orders that only swap
independent steps run once). Persistent-set methods (dynamic partial-order reduction)
would prune more, but they keep one order of independent steps and so skip the states in
between, where an invariant checked after every step may fail: they are not used. The
argument needs clients that share nothing but the world's backend and clock (each client
gets its own view of the clock, so it keeps its own write stamps, as a separate process
would); ``reduce=False`` runs every interleaving.
"""

from __future__ import annotations

import functools
import random
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar, cast

import attrs

from hmodel.backend.base import Backend, RowResult, Scan
from hmodel.clock import ManualClock
from hmodel.errors import HModelError
from hmodel.testing.fault import FaultyBackend

__all__ = [
    "Call",
    "Client",
    "Crash",
    "Exploration",
    "ExplorationError",
    "ExplorationLimitError",
    "Moment",
    "Outcome",
    "Run",
    "ScheduleError",
    "Step",
    "SteppedBackend",
    "StuckClientError",
    "Violation",
    "World",
    "explore",
    "format_schedule",
    "parse_schedule",
    "replay",
]

P = ParamSpec("P")
T = TypeVar("T")

_NAME = re.compile(r"[A-Za-z0-9_-]+\Z")


# --- errors ---------------------------------------------------------------------------------


class ExplorationError(HModelError):
    """The explorer could not run a scenario as asked."""


class ExplorationLimitError(ExplorationError):
    """A scenario has more interleavings than ``max_interleavings`` allows."""


class ScheduleError(ExplorationError):
    """A schedule does not fit the scenario.

    A replay's step names another call than the client makes, or the scenario made other
    calls when re-run (it is not deterministic).
    """


class StuckClientError(ExplorationError):
    """A client neither made its next backend call nor finished in time.

    It is blocked outside the backend (a lock held by a client waiting for its turn?) or
    loops: a safety net, never a verdict on the protocol.
    """


class Crash(BaseException):
    """Raised in a client that the explorer made die, instead of its call and all later ones.

    A test-only signal, deliberately outside the :class:`~hmodel.errors.HModelError` tree
    and outside :class:`Exception`: no ``except`` of the code under test catches it, and
    every later call of the dead client raises it again, so nothing a dead process could
    not do reaches the store.
    """


class _Abort(BaseException):
    """Unwinds the clients of a run the explorer abandoned."""


# --- footprints: what a call touches ---------------------------------------------------------


@attrs.frozen
class _Area:
    """Rows ``[start, stop)`` of ``table`` (``stop`` ``b""``: to the end; ``None``: every table).

    With ``schema``: the table's existence and families instead of rows.
    """

    table: str | None
    start: bytes = b""
    stop: bytes = b""
    schema: bool = False

    def overlaps(self, other: _Area) -> bool:
        if self.schema != other.schema:
            return False
        if self.table is None or other.table is None:
            return True
        if self.table != other.table:
            return False
        return (not other.stop or self.start < other.stop) and (
            not self.stop or other.start < self.stop
        )


@attrs.frozen
class _Footprint:
    reads: tuple[_Area, ...] = ()
    writes: tuple[_Area, ...] = ()

    def conflicts(self, other: _Footprint) -> bool:
        """Whether one writes what the other reads or writes (two reads never conflict)."""
        mine = self.reads + self.writes
        theirs = other.reads + other.writes
        return any(w.overlaps(a) for w in self.writes for a in theirs) or any(
            w.overlaps(a) for w in other.writes for a in mine
        )


_NOTHING = _Footprint()
_GLOBAL = _Footprint(writes=(_Area(None), _Area(None, schema=True)))
_ROW_WRITES = frozenset({"increment", "check_and_put", "check_and_delete", "check_and_mutate"})


def _table(name: Any) -> str:
    text = str(name)
    return text.removeprefix("default:")


def _row(table: Any, row: bytes) -> _Area:
    return _Area(_table(table), row, row + b"\x00")


def _footprint(method: str, args: Sequence[Any]) -> _Footprint:
    """What a call of ``method`` with ``args`` may read and write (malformed: everything)."""
    try:
        if method == "get":
            return _Footprint(reads=tuple(_row(args[0], r) for r in args[1]))
        if method == "get_versions":
            return _Footprint(reads=(_row(args[0], args[1]),))
        if method == "scan":  # opening a scanner reads no row (the fetches do)
            return _Footprint(reads=(_Area(_table(args[0]), schema=True),))
        if method == "fetch":
            scan: Scan = args[1]
            return _Footprint(reads=(_Area(_table(args[0]), scan.start, scan.stop),))
        if method in {"mutate", "increment_many"}:
            return _Footprint(writes=tuple(_row(args[0], m.row) for m in args[1]))
        if method in _ROW_WRITES or method == "append":
            return _Footprint(writes=(_row(args[0], args[1]),))
        if method in ("table_exists", "describe_families", "regions"):
            return _Footprint(reads=(_Area(_table(args[0]), schema=True),))
        if method in ("create_table", "delete_table"):
            name = _table(args[0].full_name if method == "create_table" else args[0])
            return _Footprint(writes=(_Area(name), _Area(name, schema=True)))
        if method == "list_tables":
            return _Footprint(reads=(_Area(None, schema=True),))
    except Exception:
        return _GLOBAL
    return _GLOBAL


# --- what a run is made of -------------------------------------------------------------------


@attrs.frozen
class Step:
    """One scheduling decision of a run.

    Attributes:
        kind: ``"call"`` (the client makes its pending call and runs to its next one),
            ``"crash"`` (the client dies instead of making it) or ``"advance"`` (the
            world's clock moves forward by ``millis``).
        client: The client's name (``None`` for a clock advance).
        method: The backend method of the pending call (``"fetch"``: a scan's next batch).
        millis: How far a clock advance moves the clock.
    """

    kind: str
    client: str | None
    method: str = ""
    millis: int = 0

    def __str__(self) -> str:
        if self.kind == "advance":
            return f"+{self.millis}ms"
        return f"{self.client}{'!' if self.kind == 'crash' else '.'}{self.method}"


def format_schedule(schedule: Sequence[Step]) -> str:
    """The short form of a schedule: ``"a.get b.get a.check_and_put b!mutate +5001ms"``.

    ``a.get``: client ``a`` makes its ``get``; ``b!mutate``: ``b`` dies before its
    ``mutate``; ``+5001ms``: the clock moves 5001 ms. :func:`parse_schedule` reads it back.
    """
    return " ".join(str(step) for step in schedule)


_STEP = re.compile(r"(?:\+(\d+)ms|([A-Za-z0-9_-]+)([.!])([a-z_]+))\Z")


def parse_schedule(text: str) -> tuple[Step, ...]:
    """Read the short form of :func:`format_schedule` back into steps.

    Raises:
        ScheduleError: A step is not ``name.method``, ``name!method`` or ``+<n>ms``.
    """
    steps: list[Step] = []
    for token in text.split():
        found = _STEP.match(token)
        if found is None:
            raise ScheduleError("not a step of a schedule", value=token)
        millis, client, mark, method = found.groups()
        if millis is not None:
            steps.append(Step("advance", None, "", int(millis)))
        else:
            steps.append(Step("crash" if mark == "!" else "call", client, method))
    return tuple(steps)


@attrs.frozen
class Call:
    """A backend call a client made, as its checker may inspect it.

    Attributes:
        method: The backend method (``"fetch"``: a batch of an open scan).
        args: Its positional arguments (table first).
        kwargs: Its keyword arguments.
        result: What it returned (``None`` for a fetch or a failed call).
        error: What it raised, if it failed.
    """

    method: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any] = attrs.field(factory=dict)
    result: Any = None
    error: BaseException | None = None


@attrs.frozen
class Outcome:
    """How a client ended: the value its callable returned, or what it raised.

    Attributes:
        value: The returned value (``None`` when it raised).
        error: The exception raised (a :class:`Crash` when the explorer made it die).
    """

    value: Any = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        """Whether the client returned normally."""
        return self.error is None

    @property
    def crashed(self) -> bool:
        """Whether the explorer made the client die."""
        return isinstance(self.error, Crash)


@attrs.frozen
class Client:
    """What a client callable gets: its name, its stepped backend and its own clock.

    Attributes:
        name: The client's name in the world.
        backend: The client's :class:`SteppedBackend`: every call is a step.
        clock: The client's view of the world's clock (its time plus the client's offset;
            a separate object, so the client keeps its own write stamps, as a separate
            process would).
    """

    name: str
    backend: Backend
    clock: Callable[[], int]


@attrs.frozen
class Moment:
    """The world as the invariant check sees it, after a step (or before the first).

    Attributes:
        backend: The world's backend itself (reading it is not a step).
        clock: The world's clock.
        schedule: The steps taken so far.
        calls: Per client, the calls it has made so far (its own history: safe to judge).
        outcomes: The clients that have finished (returned, raised or died).
        done: Whether every client has finished: the run's last check.
    """

    backend: Backend
    clock: ManualClock
    schedule: tuple[Step, ...]
    calls: Mapping[str, tuple[Call, ...]]
    outcomes: Mapping[str, Outcome]
    done: bool


@attrs.frozen
class World:
    """What a scenario builds afresh for every run.

    Attributes:
        backend: The shared backend, e.g. a new ``MemoryBackend(clock=clock)`` with its
            tables created.
        clock: The clock of the backend and of every client (advanced only by the
            explorer, between steps).
        clients: Name (letters, digits, ``_``, ``-``) to callable, run in this order
            until each makes its first call; each gets its :class:`Client`. Clients must
            share nothing but ``backend`` and ``clock``.
        check: The invariant, called with a :class:`Moment` before the first step, after
            every step and (``moment.done``) at the end; it raises (an ``assert``) when the
            invariant does not hold. It must judge the state (the store, the clients'
            outcomes and own calls), not the order in which clients took their turns, and
            read ``moment.backend`` only.
        offsets: Per client name, how many milliseconds its clock runs ahead of
            ``clock`` (negative: behind); unnamed clients show ``clock``'s time. Clocks a
            millisecond apart give two writers different write stamps in every order of
            their steps: the clock skew every deployment has.
    """

    backend: Backend
    clock: ManualClock
    clients: Mapping[str, Callable[[Client], Any]]
    check: Callable[[Moment], None] | None = None
    offsets: Mapping[str, int] = attrs.field(factory=dict)


#: A scenario: builds a fresh :class:`World` for each run.
Scenario = Callable[[], World]


@attrs.frozen
class Violation:
    """The invariant failed: where, and the schedule that leads there.

    Attributes:
        schedule: The steps up to the failing check (``replay`` runs exactly these).
        error: What the check raised.
        done: Whether it was the run's last check (every client had finished).
        outcomes: The clients finished by then.
    """

    schedule: tuple[Step, ...]
    error: BaseException
    done: bool
    outcomes: Mapping[str, Outcome]

    @property
    def short(self) -> str:
        """The schedule's short form (see :func:`format_schedule`)."""
        return format_schedule(self.schedule)

    def describe(self) -> str:
        """The schedule, the failure and how each finished client ended."""
        where = "at the end" if self.done else f"after step {len(self.schedule)}"
        lines = [
            f"invariant violated {where}: {type(self.error).__name__}: {self.error}",
            f"schedule: {self.short}",
        ]
        for name, outcome in self.outcomes.items():
            shown = (
                f"returned {outcome.value!r}"
                if outcome.ok
                else f"raised {type(outcome.error).__name__}: {outcome.error}"
            )
            lines.append(f"client {name} {shown}")
        return "\n".join(lines)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


@attrs.frozen
class Exploration:
    """What :func:`explore` did and found.

    Attributes:
        interleavings: Complete runs (every client finished), one per interleaving
            explored (one per class of orders differing only in independent steps, when
            reduced).
        pruned: Runs cut short by the reduction (their states were checked elsewhere).
        steps: Steps taken over all runs.
        checks: Invariant checks made (states checked; a state re-reached by re-running
            a prefix is not checked again).
        violation: The first violation found (the search stops there), or ``None``.
        exhaustive: Whether every interleaving was explored (``False`` when sampled).
    """

    interleavings: int
    pruned: int
    steps: int
    checks: int
    violation: Violation | None
    exhaustive: bool

    def __str__(self) -> str:
        runs = _count(self.interleavings, "interleaving")
        if self.violation is not None:
            found = f"a violation, after {runs}"
        elif self.exhaustive:
            found = f"no violation in all {runs}"
        else:
            found = f"no violation in {_count(self.interleavings, 'sampled interleaving')}"
        figures = [
            _count(self.pruned, "pruned run"),
            _count(self.steps, "step"),
            _count(self.checks, "check"),
        ]
        return f"{found} ({', '.join(figures)})"

    def assert_holds(self) -> None:
        """Raise ``AssertionError`` with the violating schedule if there is one."""
        if self.violation is not None:
            raise AssertionError(f"{self}\n{self.violation.describe()}")


@attrs.frozen
class Run:
    """One run of a scenario by :func:`replay`.

    Attributes:
        schedule: The steps taken.
        calls: Per client, the calls it made.
        outcomes: The clients that finished.
        violation: The violation the schedule leads to, or ``None``.
    """

    schedule: tuple[Step, ...]
    calls: Mapping[str, tuple[Call, ...]]
    outcomes: Mapping[str, Outcome]
    violation: Violation | None


# --- the stepped backend ---------------------------------------------------------------------


class _Clock:
    """One client's view of the world's clock: its own object, ``offset`` ms ahead of it."""

    def __init__(self, clock: ManualClock, offset: int) -> None:
        self._clock = clock
        self._offset = offset

    def __call__(self) -> int:
        return self._clock() + self._offset


class SteppedBackend(FaultyBackend):
    """One client's backend in a run: every call waits for the client's turn, then runs.

    A forwarding wrapper (a :class:`~hmodel.testing.fault.FaultyBackend`, whose hooks
    still work) over the world's backend. A call is a step: the calling thread blocks
    until the explorer gives its client the turn, then the call is passed on and the
    client runs on to its next call. A scan is a step when opened and one more before
    each batch fetch, as :meth:`Backend.scan` documents them (``batch_size`` rows a
    fetch, ``max_batch_size`` doubling, ``limit``); reading a fetched batch's rows is
    not. Calls made from the explorer's own thread (e.g. a check reading a lazy result a
    client returned) are passed on without a step. :attr:`round_trips` counts the
    client's own requests (the world's counter would depend on the other clients' turns).
    :meth:`close` does nothing: the world's backend is shared.

    Made by the explorer for each client of each run; a scenario never builds one.
    """

    def __init__(self, inner: Backend, run: _Run, name: str) -> None:
        super().__init__(inner)
        self._run = run
        self._name = name
        self._trips = 0

    @property
    def round_trips(self) -> int:  # type: ignore[override]
        """The round trips of this client's own calls (the world's counter is shared)."""
        return self._trips

    def _counted(self, call: Callable[[], Any]) -> Any:
        before = self.inner.round_trips
        try:
            return call()
        finally:
            self._trips += self.inner.round_trips - before

    def _forward(
        self, method: str, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        if method == "mutate" and self._run.split_batches and len(args) == 2:
            rows: dict[Any, list[Any]] = {}
            for mutation in cast("Sequence[Any]", args[1]):
                rows.setdefault(getattr(mutation, "row", None), []).append(mutation)
            if len(rows) > 1:  # HBase applies a batch row by row: a step per row
                for part in rows.values():
                    self._step(method, call, (args[0], part), kwargs)
                return cast("T", None)
        return cast("T", self._step(method, call, args, kwargs))

    def _step(
        self,
        method: str,
        call: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        passed_on = functools.partial(super()._forward, method, call, *args, **kwargs)
        if not self._run.gate(self._name, method, _footprint(method, args)):
            return self._counted(passed_on)
        try:
            result = self._counted(passed_on)
        except Exception as error:
            self._run.record(self._name, Call(method, args, kwargs, error=error))
            raise
        self._run.record(self._name, Call(method, args, kwargs, result))
        return result

    def scan(self, table: str, scan: Scan) -> Iterator[RowResult]:
        """Open the scan (a step); each batch fetch is a step of its own."""
        rows = super().scan(table, scan)
        return self._fetches(rows, table, scan)

    def _fetches(self, rows: Iterator[RowResult], table: str, scan: Scan) -> Iterator[RowResult]:
        footprint = _footprint("fetch", (table, scan))
        size = scan.batch_size
        returned = 0
        try:
            while True:
                want = size if scan.limit is None else min(size, scan.limit - returned)
                size = scan.next_batch_size(size)
                if want <= 0:
                    return
                if self._run.gate(self._name, "fetch", footprint):
                    self._run.record(self._name, Call("fetch", (table, scan)))
                for taken in range(want):
                    before = self._trips
                    try:
                        row = self._counted(functools.partial(next, rows))
                    except StopIteration:
                        return
                    if taken and self._trips != before:
                        raise ExplorationError(
                            "the backend fetched scan rows outside a step: its batches do "
                            "not follow Backend.scan's batch_size",
                            table=table,
                        )
                    yield row
                    returned += 1
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()

    def close(self) -> None:
        """Nothing: the world's backend is shared by every client and the check."""


# --- one run ---------------------------------------------------------------------------------


@attrs.frozen
class _Move:
    """A step the explorer may take next: the transition of the search."""

    kind: str
    client: str | None
    method: str
    footprint: _Footprint
    millis: int = 0

    @property
    def key(self) -> tuple[str, str | None]:
        return self.kind, self.client

    @property
    def step(self) -> Step:
        return Step(self.kind, self.client, self.method, self.millis)


def _dependent(one: _Move, other: _Move) -> bool:
    """Whether the two moves may not commute (see the module's reduction)."""
    if one.client is not None and one.client == other.client:
        return True
    if one.kind == "crash" or other.kind == "crash":
        return one.kind == other.kind  # two deaths share the budget
    if one.kind == "advance" or other.kind == "advance":
        return True
    return one.footprint.conflicts(other.footprint)


def _held() -> threading.Lock:
    """A lock already taken: a baton that one thread releases and another waits for."""
    lock = threading.Lock()
    lock.acquire()
    return lock


class _Worker:
    """A thread that runs one client after another, run after run (starting one costs)."""

    def __init__(self) -> None:
        self._job: Callable[[], None] | None = None
        self._wake = _held()
        threading.Thread(target=self._loop, name="interleave-client", daemon=True).start()

    def run(self, job: Callable[[], None] | None) -> None:
        """Run ``job`` in the thread (``None``: end the thread)."""
        self._job = job
        self._wake.release()

    def _loop(self) -> None:
        while True:
            self._wake.acquire()
            job = self._job
            if job is None:
                return
            job()


class _Pool:
    """The idle workers of an exploration."""

    def __init__(self) -> None:
        self.idle: list[_Worker] = []

    def take(self) -> _Worker:
        return self.idle.pop() if self.idle else _Worker()

    def close(self) -> None:
        for worker in self.idle:
            worker.run(None)
        self.idle.clear()


@attrs.define(eq=False)
class _ClientState:
    name: str
    function: Callable[[Client], Any]
    backend: SteppedBackend
    clock: _Clock
    go: threading.Lock = attrs.field(factory=_held)
    ended: threading.Lock = attrs.field(factory=_held)
    worker: _Worker | None = None
    ident: int | None = None
    pending: _Move | None = None
    decision: str = "call"
    death: Crash | None = None
    outcome: Outcome | None = None
    calls: list[Call] = attrs.field(factory=list)


class _Run:
    """One execution of a world: the clients in threads, taking turns at their calls."""

    def __init__(self, world: World, timeout: float, pool: _Pool, split_batches: bool) -> None:
        self.world = world
        self.timeout = timeout
        self.pool = pool
        self.split_batches = split_batches
        self.scheduler = threading.get_ident()
        self.back = _held()
        self.aborted = False
        self.stuck = False
        self.schedule: list[Step] = []
        self.clients: dict[str, _ClientState] = {}
        for name, function in world.clients.items():
            clock = _Clock(world.clock, world.offsets.get(name, 0))
            backend = SteppedBackend(world.backend, self, name)
            self.clients[name] = _ClientState(name, function, backend, clock)

    # --- the client side (in the client's thread) ------------------------------------------

    def _body(self, state: _ClientState) -> None:
        state.ident = threading.get_ident()
        outcome: Outcome | None
        try:
            client = Client(state.name, state.backend, state.clock)
            outcome = Outcome(value=state.function(client))
        except _Abort:
            outcome = None
        except BaseException as error:
            outcome = Outcome(error=error)
        if state.death is not None:
            outcome = Outcome(error=state.death)
        state.outcome = outcome
        state.pending = None
        if not self.aborted:  # after an abort no one waits for the baton
            self.back.release()
        state.ended.release()

    def gate(self, name: str, method: str, footprint: _Footprint) -> bool:
        """Block the client's call until its turn; ``False``: not a step, pass it on."""
        state = self.clients[name]
        caller = threading.get_ident()
        if caller != state.ident:
            if caller == self.scheduler:
                return False
            raise ExplorationError(
                f"client {name!r}'s backend was called from a thread the explorer does not "
                "schedule: a client must make its calls itself",
                value=method,
            )
        if self.aborted:
            raise _Abort
        if state.death is not None:
            raise Crash(f"client {name!r} is dead: its {method} never happened")
        state.pending = _Move("call", name, method, footprint)
        self.back.release()
        state.go.acquire()
        if self.aborted:
            raise _Abort
        state.pending = None
        if state.decision == "crash":
            state.death = Crash(f"client {name!r} died before its {method}")
            raise state.death
        return True

    def record(self, name: str, call: Call) -> None:
        self.clients[name].calls.append(call)

    # --- the explorer side ------------------------------------------------------------------

    def _wait(self, name: str, after: str) -> None:
        if not self.back.acquire(timeout=self.timeout):
            self.stuck = True
            raise StuckClientError(
                f"client {name!r} neither made its next backend call nor finished within "
                f"{self.timeout} s after {after}: it is blocked outside the backend (a lock "
                "held by a client waiting for its turn?) or loops",
                value=format_schedule(self.schedule),
            )

    def start(self) -> None:
        """Run each client, in order, up to its first call (or to its end)."""
        for state in self.clients.values():
            state.worker = self.pool.take()
            state.worker.run(functools.partial(self._body, state))
            self._wait(state.name, "its start")

    def moves(self, crashes: int, advance: int | None) -> list[_Move]:
        """The moves possible now, in a fixed order: calls, deaths, a clock advance."""
        pending = [s.pending for s in self.clients.values() if s.pending is not None]
        moves = list(pending)
        if crashes > 0:
            moves += [attrs.evolve(m, kind="crash", footprint=_NOTHING) for m in pending]
        if advance is not None and pending:
            moves.append(_Move("advance", None, "", _GLOBAL, advance))
        return moves

    def perform(self, move: _Move) -> None:
        self.schedule.append(move.step)
        if move.kind == "advance":
            self.world.clock.advance(move.millis)
            return
        assert move.client is not None
        state = self.clients[move.client]
        state.decision = move.kind
        state.go.release()
        self._wait(move.client, f"its {move.method}")

    @property
    def done(self) -> bool:
        return all(s.outcome is not None for s in self.clients.values())

    def moment(self) -> Moment:
        return Moment(
            backend=self.world.backend,
            clock=self.world.clock,
            schedule=tuple(self.schedule),
            calls={n: tuple(s.calls) for n, s in self.clients.items()},
            outcomes={n: s.outcome for n, s in self.clients.items() if s.outcome is not None},
            done=self.done,
        )

    def finish(self) -> None:
        """End the run: unwind clients still waiting for a turn; free their threads."""
        self.aborted = True
        for state in self.clients.values():
            if state.pending is not None:
                state.go.release()
        if self.stuck:
            return  # a stuck thread may never end: a daemon, left behind, not reused
        for state in self.clients.values():
            if state.worker is not None and state.ended.acquire(timeout=self.timeout):
                self.pool.idle.append(state.worker)


# --- the search ------------------------------------------------------------------------------


@attrs.define(eq=False)
class _Node:
    """A state on the search's current path: the moves possible there and those explored."""

    moves: list[_Move]
    sleep: dict[tuple[str, str | None], _Move]
    done: list[_Move] = attrs.field(factory=list)
    taken: _Move | None = None

    @property
    def signature(self) -> tuple[tuple[str, str | None, str], ...]:
        return tuple((m.kind, m.client, m.method) for m in self.moves)

    def next(self) -> _Move | None:
        explored = {m.key for m in self.done}
        for move in self.moves:
            if move.key not in explored and move.key not in self.sleep:
                return move
        return None


Chooser = Callable[[int, list[_Move]], _Move | None]


@attrs.define
class _Figures:
    interleavings: int = 0
    pruned: int = 0
    steps: int = 0
    checks: int = 0


class _Explorer:
    def __init__(
        self,
        scenario: Scenario,
        *,
        crashes: int,
        advance: int | None,
        advances: int,
        timeout: float,
        split_batches: bool,
    ) -> None:
        self.scenario = scenario
        self.crashes = crashes
        self.advance = advance
        self.advances = advances
        self.timeout = timeout
        self.split_batches = split_batches
        self.figures = _Figures()
        self.pool = _Pool()

    def world(self) -> World:
        world = self.scenario()
        if not isinstance(world, World):
            raise ExplorationError("a scenario returns a World", value=world)
        if not world.clients:
            raise ExplorationError("a world needs at least one client")
        for name in world.clients:
            if not isinstance(name, str) or not _NAME.match(name):
                raise ExplorationError(
                    "a client's name is letters, digits, '_' and '-'", value=name
                )
        for name, offset in world.offsets.items():
            if isinstance(offset, bool) or not isinstance(offset, int):
                raise ExplorationError("a clock offset is an int (ms)", field=name, value=offset)
        return world

    def execute(self, choose: Chooser, check_from: int) -> tuple[_Run, str, Violation | None]:
        """One run: ``"complete"``, ``"pruned"`` (no move chosen) or ``"violated"``."""
        run = _Run(self.world(), self.timeout, self.pool, self.split_batches)
        try:
            run.start()
            depth = 0
            crashes, advances = self.crashes, self.advances
            violation = self._check(run) if check_from == 0 else None
            while violation is None:
                moves = run.moves(crashes, self.advance if advances > 0 else None)
                if not moves:
                    self.figures.interleavings += 1
                    return run, "complete", None
                move = choose(depth, moves)
                if move is None:
                    return run, "pruned", None
                run.perform(move)
                self.figures.steps += 1
                depth += 1
                crashes -= move.kind == "crash"
                advances -= move.kind == "advance"
                if depth >= check_from:
                    violation = self._check(run)
            return run, "violated", violation
        finally:
            run.finish()

    def _check(self, run: _Run) -> Violation | None:
        check = run.world.check
        if check is None:
            return None
        moment = run.moment()
        self.figures.checks += 1
        try:
            check(moment)
        except Exception as error:
            return Violation(moment.schedule, error, moment.done, moment.outcomes)
        return None

    def result(self, violation: Violation | None, *, exhaustive: bool) -> Exploration:
        f = self.figures
        return Exploration(f.interleavings, f.pruned, f.steps, f.checks, violation, exhaustive)

    def exhaustive(self, *, reduce: bool, limit: int) -> Exploration:
        path: list[_Node] = []

        def choose(depth: int, moves: list[_Move]) -> _Move | None:
            if depth < len(path):
                node = path[depth]
                if node.signature != tuple((m.kind, m.client, m.method) for m in moves):
                    raise ScheduleError(
                        "the scenario is not deterministic: re-run with the same schedule, "
                        f"its clients made other calls at step {depth + 1}",
                        value=format_schedule([n.taken.step for n in path[:depth] if n.taken]),
                    )
                return node.taken
            sleep: dict[tuple[str, str | None], _Move] = {}
            if reduce and path:
                parent = path[-1]
                assert parent.taken is not None
                for move in (*parent.sleep.values(), *parent.done):
                    if move.key != parent.taken.key and not _dependent(move, parent.taken):
                        sleep[move.key] = move
            node = _Node(moves, sleep)
            node.taken = node.next()
            if node.taken is None:
                return None
            path.append(node)
            return node.taken

        check_from = 0
        runs = 0
        while True:
            if runs >= limit:
                raise ExplorationLimitError(
                    f"the scenario has more than {limit:,} interleavings: make it smaller, "
                    "raise max_interleavings, or pass sample=True",
                    value=limit,
                )
            runs += 1
            _, ending, violation = self.execute(choose, check_from)
            if ending == "pruned":
                self.figures.pruned += 1
            if violation is not None:
                return self.result(violation, exhaustive=False)
            while path:
                node = path[-1]
                assert node.taken is not None
                node.done.append(node.taken)
                node.taken = node.next()
                if node.taken is not None:
                    break
                path.pop()
            if not path:
                return self.result(None, exhaustive=True)
            check_from = len(path)

    def sampled(self, *, runs: int, seed: int) -> Exploration:
        chance = random.Random(seed)

        def choose(depth: int, moves: list[_Move]) -> _Move:
            return chance.choice(moves)

        for _ in range(runs):
            _, _, violation = self.execute(choose, 0)
            if violation is not None:
                return self.result(violation, exhaustive=False)
        return self.result(None, exhaustive=False)

    def replay(self, schedule: Sequence[Step]) -> Run:
        def choose(depth: int, moves: list[_Move]) -> _Move | None:
            if depth >= len(schedule):
                return None
            step = schedule[depth]
            for move in moves:
                if move.key != (step.kind, step.client):
                    continue
                if step.kind == "advance":
                    return attrs.evolve(move, millis=step.millis)
                if move.method != step.method:
                    break
                return move
            if step.kind == "advance" and step.millis > 0:
                return _Move("advance", None, "", _GLOBAL, step.millis)
            raise ScheduleError(
                f"step {depth + 1} of the schedule ({step}) does not fit: the possible "
                f"steps are {format_schedule([m.step for m in moves])}",
                value=format_schedule(schedule),
            )

        run, _, violation = self.execute(choose, 0)
        moment = run.moment()
        return Run(moment.schedule, moment.calls, moment.outcomes, violation)


def explore(
    scenario: Scenario,
    *,
    reduce: bool = True,
    crashes: int = 0,
    advance_clock: int | None = None,
    max_advances: int = 1,
    max_interleavings: int = 50_000,
    sample: bool = False,
    seed: int = 0,
    split_batches: bool = False,
    step_timeout: float = 30.0,
) -> Exploration:
    """Run ``scenario`` in every interleaving of its clients' calls, checking its invariant.

    Depth-first over the choices of which client runs next: the scenario is built afresh
    and re-run from the start for each schedule (stateless search), and its check runs
    before the first step, after every step and at the end. The search stops at the
    first violation.

    Args:
        scenario: Builds a fresh :class:`World` for each run.
        reduce: Skip orders that only swap independent steps (sleep sets; see the
            module). ``False``: every interleaving (``n`` clients of ``k`` calls each:
            ``(n*k)! / (k!)**n``).
        crashes: At most this many clients die per run; any client may die before any of
            its calls (its call and all later ones raise :class:`Crash`, nothing of them
            reaches the store), so every "died between step 1 and step 3" is run.
        advance_clock: If given, between any two steps the clock may also move forward by
            this many milliseconds (e.g. an index's ``grace`` + 1: a writer stalled past
            it), at most ``max_advances`` times per run.
        max_advances: See ``advance_clock``.
        max_interleavings: The most runs (complete or pruned) to make;
            :class:`ExplorationLimitError` beyond it, unless ``sample``.
        sample: Run ``max_interleavings`` random schedules (seeded by ``seed``) instead
            of all of them: a sample, not a proof (``exhaustive`` is ``False``).
        seed: See ``sample``.
        split_batches: Make a ``mutate`` of several rows one step per row (in the order
            the rows first appear), as HBase applies a batch row by row with no atomicity
            across rows, so another client's step, or a death, may fall between two rows
            of one batch. ``False``: one step, as the memory engine applies it.
        step_timeout: Seconds a client may take from its turn to its next call before
            :class:`StuckClientError` (a safety net against a client blocked outside the
            backend; never reached by a correct scenario).

    Returns:
        The figures and the first violation, if any (``assert_holds()`` raises it).

    Raises:
        ExplorationLimitError: More than ``max_interleavings`` runs (not sampled).
        ScheduleError: The scenario is not deterministic.
        StuckClientError: A client blocked outside the backend.
    """
    for name, value in (("crashes", crashes), ("max_advances", max_advances)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ExplorationError(f"{name} is an int >= 0", field=name, value=value)
    if advance_clock is not None and (not isinstance(advance_clock, int) or advance_clock < 1):
        raise ExplorationError("advance_clock is an int >= 1 (ms)", value=advance_clock)
    if not isinstance(max_interleavings, int) or max_interleavings < 1:
        raise ExplorationError("max_interleavings is an int >= 1", value=max_interleavings)
    explorer = _Explorer(
        scenario,
        crashes=crashes,
        advance=advance_clock,
        advances=max_advances if advance_clock is not None else 0,
        timeout=step_timeout,
        split_batches=split_batches,
    )
    try:
        if sample:
            return explorer.sampled(runs=max_interleavings, seed=seed)
        return explorer.exhaustive(reduce=reduce, limit=max_interleavings)
    finally:
        explorer.pool.close()


def replay(
    scenario: Scenario,
    schedule: Sequence[Step] | str,
    *,
    split_batches: bool = False,
    step_timeout: float = 30.0,
) -> Run:
    """Run ``scenario`` once, following ``schedule`` step by step, checking after each.

    ``schedule`` is a :attr:`Violation.schedule` or its short form (``"a.get b.get
    a.check_and_put"``). The run stops where the schedule ends (clients not finished by
    then are abandoned) or at a violation. ``split_batches`` as the exploration had it.

    Raises:
        ScheduleError: A step names a client without that pending call.
    """
    steps = parse_schedule(schedule) if isinstance(schedule, str) else tuple(schedule)
    crashes = sum(step.kind == "crash" for step in steps)
    explorer = _Explorer(
        scenario,
        crashes=crashes,
        advance=None,
        advances=0,
        timeout=step_timeout,
        split_batches=split_batches,
    )
    try:
        return explorer.replay(steps)
    finally:
        explorer.pool.close()
