"""WriteStamps orders each row's writes, for single rows and batches alike (issue 29).

A batch of :data:`~hmodel.clock.BATCH_ROWS` rows or more is remembered as one record;
these properties hold the structure to the guarantee of the per-row records: every stamp
of a row is greater than every stamp handed out or observed before for it, and never
below the clock, whatever the mix of single writes, batches, observed timestamps and
clock moves (a standing clock, steps forward, steps back of under a second).
An observed timestamp the clock has passed is not remembered (as documented).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel.clock import BATCH_ROWS, SWEEP_MS, WriteStamps

ROWS = [b"r%02d" % i for i in range(BATCH_ROWS + 8)]


class SteppingClock:
    """A clock set by the test, forwards or back."""

    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


STEP = st.one_of(
    st.tuples(st.just("next"), st.integers(1, 3), st.sets(st.sampled_from(ROWS), max_size=3)),
    st.tuples(
        st.just("next"),
        st.integers(1, 3),
        st.sets(st.sampled_from(ROWS), min_size=BATCH_ROWS, max_size=len(ROWS)),
    ),
    st.tuples(st.just("observe"), st.integers(-5, 20), st.sets(st.sampled_from(ROWS), max_size=40)),
    st.tuples(st.just("clock"), st.integers(-300, 3), st.just(set())),
)


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(STEP, max_size=40))
def test_every_stamp_of_a_row_exceeds_its_earlier_ones(
    steps: list[tuple[str, int, set[bytes]]],
) -> None:
    clock = SteppingClock()
    stamps = WriteStamps(clock)
    seen: dict[bytes, int] = {}  # per row, the greatest stamp handed out or observed
    for kind, amount, rows in steps:
        if kind == "clock":
            clock.now += amount
        elif kind == "observe":
            timestamp = clock.now + amount
            stamps.observe(timestamp, rows=sorted(rows))
            if timestamp < clock.now:
                continue  # documented: a time the clock has passed needs no record
            for row in rows:
                seen[row] = max(seen.get(row, 0), timestamp)
        else:
            first = stamps.next(amount, rows=sorted(rows))
            assert first >= clock.now
            assert all(first > seen.get(row, 0) for row in rows)
            for row in rows:
                seen[row] = first + amount - 1


def test_a_batch_in_a_still_millisecond_is_stamped_after_the_one_before() -> None:
    clock = SteppingClock()
    stamps = WriteStamps(clock)
    batch = ROWS[:BATCH_ROWS]
    assert stamps.next(rows=batch) == 1_000_000
    assert stamps.next(rows=[batch[-1]]) == 1_000_001  # found in the batch record
    assert stamps.next(rows=ROWS[BATCH_ROWS:]) == 1_000_000  # other rows: the clock's time
    assert stamps.next(rows=batch) == 1_000_002


def test_old_records_are_swept_within_sweep_ms_and_max_rows_always_holds() -> None:
    """Sweeps are throttled to one per SWEEP_MS, never past the ``max_rows`` bound."""
    clock = SteppingClock()
    stamps = WriteStamps(clock, max_rows=5)
    for i in range(50):
        stamps.next(rows=[b"row%d" % i])
        assert len(stamps._rows) <= 5  # the bound, at every write
    clock.now += 1_001  # every record is over a second old now
    stamps.next(rows=[b"fresh"])  # the sweep is due: SWEEP_MS passed since the last
    assert list(stamps._rows) == [b"fresh"]
    clock.now += 1_001
    stamps.next(rows=[b"again"])
    assert list(stamps._rows) == [b"again"]
    clock.now += SWEEP_MS - 1  # within the period: old records may stay...
    stamps.next(rows=[b"later"])
    clock.now += 1_001
    stamps.next(rows=[b"last"])  # ...until the next sweep
    assert list(stamps._rows) == [b"last"]
