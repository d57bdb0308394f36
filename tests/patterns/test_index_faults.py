"""Fault injection: 10,000 index operations with random faults: never a wrong answer (I1-I3)."""

from __future__ import annotations

import pytest

from hmodel.backend.base import Backend
from tests.patterns.index_faults import Run, contention

# memory: 4 order writers x 2,000 + 2 unique-nickname writers x 1,000 = 10,000 operations.
# Over Thrift (to the project's fake server, no check_and_mutate: the timestamp-guarded
# path), fewer: every call is a network round trip.
#: Per target: order threads, operations each, user threads, operations each (10,000 on
#: the engine; 600 over a network protocol).
_REMOTE = (3, 150, 2, 75)
SIZES = {
    "memory": (4, 2000, 2, 1000),
    "thrift": _REMOTE,
    "thrift2": _REMOTE,
    "hbase": _REMOTE,
    "hbase2": _REMOTE,
}


def test_random_faults_never_give_a_wrong_answer_and_rebuild_makes_the_index_exact(
    backend: Backend, request: pytest.FixtureRequest
) -> None:
    target = request.node.callspec.params["hmodel_backend"]
    order_threads, order_ops, user_threads, user_ops = SIZES[target]
    run = Run(backend, seed=20261124, rate=0.05)
    figures = run.run(
        order_threads=order_threads,
        order_ops=order_ops,
        user_threads=user_threads,
        user_ops=user_ops,
    )
    print(f"\n{target}: {figures}")
    assert figures.failures == []
    assert figures.ops == order_threads * order_ops + user_threads * user_ops
    assert figures.faults["before"] and figures.faults["after"]
    for name, counts in figures.verify_after.items():
        assert counts["missing"] + counts["stale"] + counts["orphans"] == 0, name
        assert counts["duplicates"] + counts["pending"] == 0, name


def test_writers_contending_for_the_same_rows_leave_no_wrong_verified_entry(
    backend: Backend, request: pytest.FixtureRequest
) -> None:
    ops = 400 if request.node.callspec.params["hmodel_backend"] == "memory" else 60
    figures = contention(backend, seed=7, threads=4, ops=ops, rate=0.05)
    print(f"\ncontention: {figures}")
    assert figures.failures == []
    assert figures.raised > 0  # conflicts and faults happened
    for name, counts in figures.verify_after.items():
        assert counts["missing"] + counts["stale"] + counts["orphans"] + counts["pending"] == 0, (
            name
        )
