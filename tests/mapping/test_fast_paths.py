"""The mapper's generated reader and writer agree with its full paths, errors included (issue 11).

``Mapper.from_row`` builds instances with a generated reader (slots set directly) and
``Mapper.to_mutations`` writes with a generated writer; anything they do not decide goes
to the full loops, which word every error. These properties run both routes on the same
rows and instances, well-formed and damaged, and require the same answer or the same
error, and the same warnings.
"""

from __future__ import annotations

import gc
import warnings
from datetime import date, datetime, timezone
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmodel import Const, Family, Key, Str, Table, field, model
from hmodel.backend.base import Cell, ListCells, RowResult, WireCells, newest_timestamp
from hmodel.codecs import Json
from hmodel.errors import HModelError
from hmodel.mapping import mapper_for
from hmodel.mapping.mapper import Mapper
from hmodel.repository.identity import IdentityMap

from .rows import row_after
from .sample import Customer, CustomerOrder, Everything, Order, User

MODELS = [User, Order, Customer, CustomerOrder, Everything]

NAIVE = datetime(2024, 1, 1)  # refused by the codec, as it should be
BYTES = st.sampled_from([b"", b"\x00", b"\xff" * 9, b"\x00" * 8, b'"x"', b"[1]"]) | st.binary(
    max_size=10
)


def outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: tuple[str, Any] = ("ok", call(*args, **kwargs))
        except HModelError as error:
            result = (type(error).__name__, (str(error), error.field, error.value))
    return (*result, [str(w.message) for w in caught])  # type: ignore[return-value]


def full_path(mapper: Mapper[Any]) -> Mapper[Any]:
    """A mapper of the same model with the generated reader and writer switched off."""
    slow = Mapper(mapper.cls)
    slow._reader = None
    slow._writer = None
    return slow


@st.composite
def rows_of(draw: st.DrawFn, cls: type) -> RowResult:
    """A row of ``cls``'s columns: each column absent, well-formed or arbitrary bytes."""
    mapper: Mapper[Any] = mapper_for(cls)
    key: dict[str, dict[str, Any]] = {
        "User": {"user_id": "u"},
        "Order": {"order_id": "o"},
        "Customer": {"customer_id": "c"},
    }
    key |= {"CustomerOrder": {"customer_id": "c", "order_id": "o"}}
    key |= {"Everything": {"name": "n", "n": 3}}
    row = mapper.key_of(**key[cls.__name__])
    if draw(st.booleans()):
        row = draw(st.sampled_from([row, row[:-1], row + b"\x00", b"\x02" + row]))
    cells: dict[bytes, Cell] = {}
    columns = [f.column for f in mapper.info.fields.values() if hasattr(f, "column")]
    columns += [b"f:u1", b"o:l_x", b"a:t_k", b"m:s", b"m:\xff"]
    for column in columns:
        choice = draw(st.integers(0, 2))
        if choice == 1:
            cells[column] = Cell(draw(BYTES), 5)
        elif choice == 2:
            cells[column] = Cell(good_value(column), 5)
    return RowResult(row, dict(sorted(cells.items())))


def listed(data: st.DataObject, cells: dict[bytes, Any]) -> ListCells:
    """The cells as Thrift2 lists them: in column order, or drawn out of it or with extras.

    Each a ``TColumnValue``-like struct; an older version may follow a column's cell (a
    read of several versions, newest first as HBase sends them), and the columns may come
    out of order: the reader must then take the general path, or read the same values.
    """
    groups = []
    for column, cell in sorted(cells.items()):
        family, _, qualifier = column.partition(b":")
        group = [
            SimpleNamespace(
                family=family, qualifier=qualifier, value=cell.value, timestamp=cell.timestamp
            )
        ]
        if data.draw(st.integers(0, 9)) == 0:  # an older version of the same column
            group.append(
                SimpleNamespace(family=family, qualifier=qualifier, value=b"old", timestamp=0)
            )
        groups.append(group)
    if data.draw(st.integers(0, 4)) == 0:
        groups = data.draw(st.permutations(groups))
    return ListCells([value for group in groups for value in group])


def good_value(column: bytes) -> bytes:
    """A value that decodes for most columns (8 bytes, quoted text, ...)."""
    return {b"a:j": b"[1, 2]", b"a:d": b"1.5"}.get(column, b"\x00" * 7 + b"\x01")


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_reading_a_row_agrees_with_the_full_path(cls: type, data: st.DataObject) -> None:
    mapper: Mapper[Any] = mapper_for(cls)
    slow = full_path(mapper)
    result = data.draw(rows_of(cls))
    # The same row as Thrift1 hands it over: its own cell objects, an empty value as None.
    wire = {
        column: SimpleNamespace(
            value=cell.value or data.draw(st.sampled_from([b"", None])), timestamp=cell.timestamp
        )
        for column, cell in result.cells.items()
    }
    rows = (
        result,
        RowResult(result.row, WireCells(wire)),
        RowResult(result.row, listed(data, dict(result.cells))),
    )
    for row in rows:
        for trusted in (False, True):
            fast = outcome(mapper.from_row, row, key_encoded_here=trusted)
            assert fast == outcome(slow.from_row, row, key_encoded_here=trusted)
            assert fast == outcome(slow.from_row, result, key_encoded_here=trusted)


USERS = st.builds(
    User,
    user_id=st.text(max_size=4),
    nickname=st.one_of(st.text(max_size=5), st.none(), st.integers(), st.just("x" * 300)),
    gender=st.none() | st.text(max_size=3) | st.binary(max_size=2),
    dob=st.none() | st.dates() | st.just(datetime(2024, 1, 1, tzinfo=timezone.utc)),
    address=st.none() | st.text(max_size=3),
)

EVERYTHING = st.builds(
    Everything,
    name=st.text(max_size=4),
    n=st.integers(-(2**63), 2**63 - 1),
    text=st.text(max_size=4) | st.none() | st.integers(),
    blob=st.binary(max_size=4) | st.text(max_size=2) | st.just(bytearray(b"x")),
    number=st.none() | st.integers(-(2**64), 2**64) | st.booleans(),
    ratio=st.floats(allow_nan=False) | st.integers(-5, 5) | st.booleans(),
    flag=st.booleans() | st.integers(0, 1),
    price=st.none() | st.decimals(allow_nan=False, allow_infinity=False, places=2),
    when=st.none()
    | st.just(datetime(2024, 1, 1, tzinfo=timezone.utc))
    | st.just(datetime(2024, 1, 1)),
    day=st.none() | st.just(date(2024, 1, 1)),
    doc=st.lists(st.integers(), max_size=2) | st.just([{1}]),
    tags=st.dictionaries(st.text(max_size=2), st.text(max_size=2), max_size=2),
)


@model(Table("limited", [Family("d")]), key=Key(Str("k")), warn_cell_bytes=12, max_cell_bytes=20)
class Limited:
    """Every plain kind of column, no map (so the generated writer runs); F11 limits."""

    k: str
    text: str = field("d:t")
    note: str | None = field("d:n", default=None)
    price: Decimal | None = field("d:p", default=None)
    number: int | None = field("d:i", default=None)
    ratio: float = field("d:f", default=0.0)
    flag: bool = field("d:o", default=False)
    blob: bytes = field("d:b", default=b"")
    when: datetime | None = field("d:w", default=None)
    doc: list[int] = field("d:j", codec=Json(), factory=list)
    either: int | str = field("d:e", codec=Json(), default=0)


LIMITED = st.builds(
    Limited,
    k=st.text(max_size=3),
    text=st.text(max_size=25) | st.integers(),
    note=st.none() | st.text(max_size=25),
    price=st.none() | st.decimals(allow_nan=False, allow_infinity=False, places=1),
    number=st.none() | st.integers(-(2**64), 2**64) | st.booleans(),
    ratio=st.floats(allow_nan=False) | st.integers(-5, 5) | st.booleans(),
    flag=st.booleans() | st.integers(0, 1),
    blob=st.binary(max_size=25) | st.just(bytearray(b"x")) | st.none(),
    when=st.none()
    | st.just(datetime(2024, 1, 1, tzinfo=timezone.utc))
    | st.just(datetime(2024, 1, 1)),
    doc=st.lists(st.integers(), max_size=3) | st.just([{1}]) | st.none(),
    either=st.integers(-3, 3) | st.text(max_size=2) | st.booleans() | st.none(),
)


#: Values of the declared types only, sizes around the F11 bounds: the writer decides these.
LIMITED_CLEAN = st.builds(
    Limited,
    k=st.text(max_size=3),
    text=st.text(min_size=10, max_size=22),
    note=st.none() | st.text(min_size=10, max_size=22),
    price=st.none() | st.decimals(allow_nan=False, allow_infinity=False, places=1),
    number=st.none() | st.integers(-(2**63), 2**63 - 1),
    ratio=st.floats(allow_nan=False),
    flag=st.booleans(),
    blob=st.binary(min_size=10, max_size=22),
    when=st.none() | st.just(datetime(2024, 1, 1, tzinfo=timezone.utc)),
    doc=st.lists(st.integers(0, 10**6), max_size=4),
    either=st.integers(-3, 3) | st.text(max_size=12),
)


@pytest.mark.parametrize(
    "instances",
    [USERS, EVERYTHING, LIMITED, LIMITED_CLEAN],
    ids=["user", "everything", "limited", "limited-clean"],
)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_writing_an_instance_agrees_with_the_full_path(
    instances: st.SearchStrategy[Any], data: st.DataObject
) -> None:
    item = data.draw(instances)
    mapper = mapper_for(type(item))
    slow = full_path(mapper)
    timestamp = data.draw(st.integers(1, 2**40))
    assert outcome(mapper.to_mutations, item, timestamp=timestamp) == outcome(
        slow.to_mutations, item, timestamp=timestamp
    )


@given(EVERYTHING.filter(lambda e: type(e.text) is str and type(e.blob) is bytes))
@settings(max_examples=50, deadline=None)
def test_an_instance_read_back_through_the_generated_reader_is_equal(item: Everything) -> None:
    mapper = mapper_for(Everything)
    try:
        mutations = mapper.to_mutations(item, timestamp=9)
    except HModelError:
        return
    read = mapper.from_row(row_after(mutations))
    assert read == attrs.evolve(item, hits=0, version=0)  # type: ignore[misc]


def test_a_model_with_its_own_init_hooks_is_built_through_its_class() -> None:
    seen: list[str] = []

    @model(Table("hooked", [Family("d")]), key=Key(Str("k")))
    class Hooked:
        k: str
        text: str = field("d:t")

        def __attrs_post_init__(self) -> None:
            seen.append(self.k)

    mapper = mapper_for(Hooked)
    assert mapper._reader is None
    row = mapper.key_of(k="a")
    assert mapper.from_row(RowResult(row, {b"d:t": Cell(b"x", 1)})) == Hooked(k="a", text="x")
    assert seen == ["a", "a"]


@settings(max_examples=200, deadline=None)
@given(
    st.builds(
        CustomerOrder,
        customer_id=st.text(max_size=3) | st.integers() | st.binary(max_size=2),
        order_id=st.text(max_size=3) | st.none(),
        total=st.just(Decimal(1)),
    )
)
def test_a_rowkey_of_an_instance_agrees_with_the_full_path(item: CustomerOrder) -> None:
    mapper = mapper_for(CustomerOrder)
    slow = outcome(lambda: mapper.key_of_values(mapper.key_values(item)))
    assert outcome(mapper.rowkey, item) == slow


def test_the_generated_writer_runs_for_a_model_without_maps() -> None:
    assert mapper_for(Limited)._writer is not None
    assert mapper_for(User)._writer is None  # a map field: the loop writes it


def test_a_loaded_instance_keeps_its_key_fields_immutable() -> None:
    mapper = mapper_for(User)
    user = mapper.from_row(RowResult(mapper.key_of(user_id="u"), {b"i:n": Cell(b"nick", 1)}))
    assert mapper._reader is not None
    with pytest.raises(HModelError, match="cannot change"):
        user.user_id = "v"
    user.nickname = "other"
    assert user.nickname == "other"


def test_the_identity_map_forgets_an_instance_when_it_is_collected() -> None:
    identity = IdentityMap()
    mapper = mapper_for(User)
    users = [User(user_id=str(n), nickname="n") for n in range(100)]
    for n, user in enumerate(users):
        identity.remember(user, mapper.rowkey(user), None)
        identity.remember(user, mapper.rowkey(user), bytes([n]))  # a second save: one entry
    del user  # the loop's last one
    copy = identity.copy()
    assert identity.recall(users[7]) is not None
    assert identity.recall(users[7]).version == b"\x07"  # type: ignore[union-attr]
    del users[:50]
    gc.collect()
    assert len(identity) == 50
    assert len(copy) == 50
    identity.forget(users[0])
    assert identity.recall(users[0]) is None
    assert copy.recall(users[0]) is not None
    users.clear()
    gc.collect()
    assert len(identity) == 0
    assert len(copy) == 0


def test_a_model_whose_key_has_no_value_field_reads_and_writes() -> None:
    """A singleton row (``Key(Const(...))``): no key fields, the same generated paths."""

    @model(Table("singleton", [Family("d")]), key=Key(Const(b"config")))
    class Config:
        text: str = field("d:t")

    mapper = mapper_for(Config)
    assert mapper.key_values(Config(text="x")) == {}
    assert mapper.rowkey(Config(text="x")) == mapper.key_of() == b"config"
    mutations = mapper.to_mutations(Config(text="x"), timestamp=3)
    assert mapper.from_row(row_after(mutations)) == Config(text="x")


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_the_stamped_reader_reads_the_same_instance_and_the_newest_stamp(
    cls: type, data: st.DataObject
) -> None:
    # Issue 29: a repository's loads take the instance and the stamp it observes in one pass.
    mapper: Mapper[Any] = mapper_for(cls)
    stamped = mapper.stamped_reader
    assert stamped is not None
    drawn = data.draw(rows_of(cls))
    stamps = st.integers(0, 2**40)
    cells = {c: Cell(cell.value, data.draw(stamps)) for c, cell in drawn.cells.items()}
    wire = {
        c: SimpleNamespace(value=cell.value, timestamp=cell.timestamp) for c, cell in cells.items()
    }
    fields = {f.column for f in mapper.info.fields.values() if hasattr(f, "column")}
    rows = (
        RowResult(drawn.row, cells),
        RowResult(drawn.row, WireCells(wire)),
        RowResult(drawn.row, listed(data, cells)),
    )
    for row in rows:
        try:
            obj, newest = stamped(row, True)
        except Exception:  # the general path decides, and words the error
            continue
        assert outcome(mapper.from_row, row) == ("ok", obj, [])
        expected = newest_timestamp(row.cells, mapper.server_stamped)
        assert newest in (expected, -1)
        if set(cells) <= fields and not mapper.info.maps:
            assert newest == expected
