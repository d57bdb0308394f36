"""The identity map without weak-reference callbacks: dead entries never answer, and are swept.

A repository remembers each instance it loaded or saved (its rowkey, for K10's refusal of
a changed key; the version cell's bytes of a locked model; whether it was read with
``fields=``). Entries are keyed by ``id``, which CPython hands to a new object once the
old one is collected: these tests hold the map to reading such a reused ``id`` as a new
instance, and to staying within about twice its live entries, from one thread and from
several at once.
"""

from __future__ import annotations

import gc
import sys
import threading

import attrs

from hmodel.repository.identity import SWEEP_AT, IdentityMap


@attrs.define(slots=True, weakref_slot=True)
class Thing:
    n: int


class _Cycle:
    """Garbage only a collection frees, with a finalizer that runs Python code."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        self.me = None


def test_a_new_object_under_a_dead_objects_id_reads_as_never_seen() -> None:
    identity = IdentityMap()
    reused = None
    for attempt in range(1000):  # CPython reuses a freed block of the same size at once
        old = Thing(attempt)
        identity.remember(old, b"old-row", b"\x01", partial=True)
        old_id = id(old)
        del old
        gc.collect()
        new = Thing(-1)
        if id(new) == old_id:
            reused = new
            break
    assert reused is not None, "no id was reused: the test could not make its case"
    assert identity.recall(reused) is None
    identity.forget(reused)  # forgetting a never-seen instance is a no-op
    identity.remember(reused, b"new-row", None)
    loaded = identity.recall(reused)
    assert loaded is not None
    assert (loaded.row, loaded.version, loaded.partial) == (b"new-row", None, False)


def test_the_map_keeps_at_most_about_twice_its_live_entries() -> None:
    identity = IdentityMap()
    kept = [Thing(n) for n in range(10)]
    identity.remember_rows(kept, [b"k%d" % n for n in range(10)])
    for n in range(20 * SWEEP_AT):
        identity.remember(Thing(n), b"r", None)  # collected at once
        assert len(identity._entries) <= SWEEP_AT + 1
    assert len(identity) == 10
    for n, obj in enumerate(kept):
        loaded = identity.recall(obj)
        assert loaded is not None and loaded.row == b"k%d" % n
    live = [Thing(n) for n in range(3 * SWEEP_AT)]
    identity.remember_rows(live, [b"l"] * len(live))
    assert len(identity) == 10 + len(live)  # live entries are never swept
    assert all(identity.recall(obj) is not None for obj in live)


def test_threads_remembering_at_once_never_lose_or_mix_up_a_live_entry() -> None:
    identity = IdentityMap()
    failures: list[str] = []
    start = threading.Barrier(4)

    def work(worker: int) -> None:
        try:
            remember_and_check(worker)
        except BaseException as error:  # a thread's error fails the test, not a warning
            failures.append(f"worker {worker} raised {error!r}")

    def remember_and_check(worker: int) -> None:
        start.wait()
        mine: list[tuple[Thing, bytes]] = []
        for n in range(6 * SWEEP_AT):
            _Cycle()
            obj = Thing(n)
            row = b"%d:%d" % (worker, n)
            identity.remember(obj, row, None)
            if n % 7 == 0:
                mine.append((obj, row))  # kept alive; the rest die at once
            if n % 97 == 0:
                for kept, kept_row in mine:
                    loaded = identity.recall(kept)
                    if loaded is None or loaded.row != kept_row:
                        failures.append(f"worker {worker}: {kept_row!r} read as {loaded}")
        for kept, kept_row in mine:
            loaded = identity.recall(kept)
            if loaded is None or loaded.row != kept_row:
                failures.append(f"worker {worker}: {kept_row!r} read as {loaded} at the end")

    # Collections run often, and each finds cyclic garbage whose finalizer is Python code:
    # so the interpreter may switch threads inside a sweep, as it does in a big process
    # (a CI run met "dictionary changed size during iteration" this way).
    threshold = gc.get_threshold()
    interval = sys.getswitchinterval()
    gc.set_threshold(50, 1, 1)
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        gc.set_threshold(*threshold)
        sys.setswitchinterval(interval)
    assert failures == []
