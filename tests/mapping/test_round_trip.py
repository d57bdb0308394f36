"""Property: an instance saved as cells and read back is equal, for every field kind."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st

from hmodel.codecs import Long
from hmodel.mapping import mapper_for

from .rows import row_after
from .sample import Everything

LONG_RANGE = st.integers(min_value=-(2**63), max_value=2**63 - 1)
KEY_TEXT = st.text(max_size=12)
WHEN = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(timezone.utc)
)

everything = st.builds(
    Everything,
    name=KEY_TEXT,
    n=LONG_RANGE,
    text=st.text(),
    blob=st.binary(),
    number=st.none() | LONG_RANGE,
    ratio=st.floats(allow_nan=False),
    flag=st.booleans(),
    price=st.none() | st.decimals(allow_nan=False, allow_infinity=False, places=3),
    when=st.none() | WHEN,
    day=st.none() | st.dates(),
    ident=st.none() | st.uuids(),
    doc=st.lists(LONG_RANGE, max_size=4),
    tags=st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=4),
    scores=st.dictionaries(st.text(max_size=6), LONG_RANGE, max_size=4),
    hits=LONG_RANGE,
    version=st.integers(min_value=0, max_value=2**63 - 1),
)


@given(everything, st.integers(min_value=1, max_value=2**62))
def test_every_field_kind_round_trips_through_cells(item: Everything, timestamp: int) -> None:
    mapper = mapper_for(Everything)
    counters = {b"a:h": Long().encode(item.hits), b"a:_v": Long().encode(item.version)}

    row = row_after(mapper.to_mutations(item, timestamp=timestamp), extra=counters)

    assert mapper.from_row(row) == item


@given(everything)
def test_a_save_writes_only_columns_the_model_maps_back_to_its_fields(item: Everything) -> None:
    mapper = mapper_for(Everything)

    for mutation in mapper.to_mutations(item, timestamp=7):
        assert mutation.row == mapper.rowkey(item)
        assert mutation.column is not None
        assert mapper.field_of(mutation.column) is not None
