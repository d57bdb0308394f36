"""Direct calls give what the operations give: the same bytes, instances and errors (issue 29).

A repository no listener hears runs ``get`` of a whole row, ``increment`` of one
counter, ``save`` of an unlocked model and ``update`` of fields without prefixed maps
directly, through the backend's prepared calls and row batches (Thrift1, Thrift2: a
message template filled per call, messages written from cells) or its plain calls (the
engine, wrappers). A listener makes it take the operations (:func:`~hmodel.backend.op.run`).
These properties hold both routes to the same results on every backend, and on the
Thrift backends to the same messages, byte for byte (K1, K2, F6, F8, F10).
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hmodel import Family, Key, ReverseTimestamp, Salt, Str, Table, counter, field, model
from hmodel.backend.base import Backend
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.backend.thrift2.idl import TColumnValue, TResult
from hmodel.backend.wire import WireCodec
from hmodel.clock import ManualClock, WriteStamps
from hmodel.errors import HModelError, NotFoundError
from hmodel.repository import Repository

EPOCH = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


@model(
    Table("prepared", [Family("p")]),
    key=Key(Salt("user", buckets=8), Str("user"), ReverseTimestamp("ts"), Str("item")),
)
class Sale:
    """A salted composite key (escaped strings, a reverse timestamp), values and a counter."""

    user: str
    ts: dt.datetime
    item: str
    price: int = field("p:p")
    title: str = field("p:t")
    note: str | None = field("p:n", default=None)
    views: int = counter("p:v")


@model(Table("prepared", [Family("p")]), key=Key(Str("sid")), ttl=dt.timedelta(minutes=10))
class Session:
    """A model TTL (F8): every put of an update carries it, a delete does not."""

    sid: str
    user: str = field("p:u")
    note: str | None = field("p:n", default=None)


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
SALES = st.builds(
    dict,
    user=TEXT,
    ts=st.integers(0, 10**9).map(lambda s: EPOCH + dt.timedelta(seconds=s)),
    item=TEXT,
    price=st.integers(-(2**63), 2**63 - 1),
    title=TEXT,
    note=st.none() | TEXT,
)


#: Examples of one test share its backend: each makes keys of its own.
_EXAMPLES = itertools.count()


def _sales(values: list[dict[str, Any]]) -> list[Sale]:
    tag = f"{next(_EXAMPLES)}/"
    return [Sale(**{**v, "item": tag + v["item"]}) for v in values]


def _heard(backend: Backend) -> Repository[Sale]:
    """A repository a listener hears: it runs every call as its operation."""
    return Repository(Sale, backend, listeners=[lambda event: None])


def _key(sale: Sale) -> dict[str, Any]:
    return {"user": sale.user, "ts": sale.ts, "item": sale.item}


def _fields(sale: Sale | None) -> dict[str, Any] | None:
    return None if sale is None else {n: getattr(sale, n) for n in Sale.__annotations__}


def _outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return ("ok", call(*args, **kwargs))
    except HModelError as error:
        return (type(error).__name__, str(error))


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(SALES, min_size=3, max_size=5))
def test_direct_and_operation_paths_read_and_write_the_same(
    backend: Backend, values: list[dict[str, Any]]
) -> None:
    *sales, missing = _sales(values)
    direct, heard = Repository(Sale, backend), _heard(backend)
    direct.create_table(exist_ok=True)
    for index, sale in enumerate(sales):
        (direct if index % 2 else heard).save(sale)
    for sale in [*sales, missing]:
        if missing is not sale and _key(missing) == _key(sale):
            continue
        assert _fields(direct.get(**_key(sale))) == _fields(heard.get(**_key(sale)))
    if all(_key(missing) != _key(s) for s in sales):
        assert _outcome(direct.get, required=True, **_key(missing)) == _outcome(
            heard.get, required=True, **_key(missing)
        )
        assert _outcome(direct.get, required=True, **_key(missing))[0] == NotFoundError.__name__
    first = _key(sales[0])
    one, two = direct.increment(first, views=3), heard.increment(first, views=4)
    assert two == {"views": one["views"] + 4}
    assert _outcome(direct.increment, first, views=True) == _outcome(
        heard.increment, first, views=True
    )
    assert _outcome(direct.increment, first, nope=1) == _outcome(heard.increment, first, nope=1)
    assert _outcome(direct.get, user=1, ts=EPOCH, item="x") == _outcome(
        heard.get, user=1, ts=EPOCH, item="x"
    )
    second = _key(sales[1])
    if second == first:
        return
    direct.update(first, title="direct", note=None)
    heard.update(second, title="heard", note=None)
    for key, title in ((first, "direct"), (second, "heard")):
        assert _fields(direct.get(**key)) == _fields(heard.get(**key))
        got = heard.get(**key)
        assert got is not None and (got.title, got.note) == (title, None)
    assert _outcome(direct.update, first, user="x") == _outcome(heard.update, first, user="x")
    assert _outcome(direct.update, first, price="x") == _outcome(heard.update, first, price="x")


class _Recorded:
    """A Thrift backend whose calls are recorded as whole messages and answered in place."""

    sent: list[tuple[str, bytes]]
    answer: Any

    def _rpc(self, method: str, *args: Any, **context: Any) -> Any:
        request = context.get("request")
        if request is None:  # the general path hands over its arguments: encode them
            codec = WireCodec(self.channel_class.service, protocol="binary", decode_response=False)  # type: ignore[attr-defined]
            request = codec.encode(method, args)
        self.sent.append((method, request))
        return self.answer(method)


class RecordedThrift1(_Recorded, ThriftBackend):
    def __init__(self) -> None:
        super().__init__(autoconnect=False)
        self.sent = []
        self._families[self._data_name("prepared")] = (b"p",)
        self.answer = lambda method: 7 if method == "atomicIncrement" else []


class RecordedThrift2(_Recorded, Thrift2Backend):
    def __init__(self) -> None:
        super().__init__(autoconnect=False)
        self.sent = []
        self._families[self._server_name("prepared")] = (b"p",)
        counter_value = TColumnValue(b"p", b"v", (7).to_bytes(8, "big"), 1)
        self.answer = lambda method: (
            TResult(row=b"r", columnValues=[counter_value]) if method == "increment" else []
        )


@pytest.mark.parametrize("backend_class", [RecordedThrift1, RecordedThrift2])
@settings(max_examples=60)
@given(values=SALES, amount=st.integers(-(2**63), 2**63 - 1))
def test_prepared_calls_send_the_operations_bytes(
    backend_class: type, values: dict[str, Any], amount: int
) -> None:
    (sale,) = _sales([values])
    fast, slow = backend_class(), backend_class()
    assert _outcome(Repository(Sale, fast).get, **_key(sale)) == _outcome(
        _heard(slow).get, **_key(sale)
    )
    assert _outcome(Repository(Sale, fast).increment, _key(sale), views=amount) == _outcome(
        _heard(slow).increment, _key(sale), views=amount
    )
    stamps = [WriteStamps(ManualClock(1_700_000_000_000)) for _ in range(2)]
    for changes in (
        {"title": sale.title, "note": sale.note},
        {"note": None},
        {"price": amount},
        {"price": str(amount)},  # does not encode: the same error, nothing sent
        {"title": None},  # required: the same error
        {"note": sale.note, "views": 1},  # a counter: the same error
        {"title": sale.title, "item": "x"},  # a key field (K10): the same error
        {"nope": 1},
        {},  # nothing to write, nothing sent
    ):
        for ttl in (None, dt.timedelta(seconds=5)):
            updates = [
                Repository(Sale, fast, stamps=stamps[0]).update,
                Repository(Sale, slow, stamps=stamps[1], listeners=[lambda e: None]).update,
            ]
            assert _outcome(updates[0], _key(sale), ttl=ttl, **changes) == _outcome(
                updates[1], _key(sale), ttl=ttl, **changes
            )
    for changes in ({"user": sale.title, "note": sale.note}, {"note": None}):
        updates = [
            Repository(Session, fast, stamps=stamps[0]).update,
            Repository(Session, slow, stamps=stamps[1], listeners=[lambda e: None]).update,
        ]
        key = {"sid": sale.user}
        assert _outcome(updates[0], key, **changes) == _outcome(updates[1], key, **changes)
    assert fast.sent == slow.sent
    assert [method for method, _ in fast.sent][:2] in (
        ["getRowsWithColumns", "atomicIncrement"],
        ["getMultiple", "increment"],
    )


def test_a_backend_that_overrides_get_is_read_through_it() -> None:
    class Counting(ThriftBackend):
        reads = 0

        def get(self, *args: Any, **kwargs: Any) -> Any:
            Counting.reads += 1
            return []

    backend = Counting(autoconnect=False)
    assert backend.prepare_get("t") is None
    assert Repository(Sale, backend).get(user="u", ts=EPOCH, item="i") is None
    assert Counting.reads == 1


@settings(max_examples=40)
@given(
    values=st.lists(SALES, min_size=1, max_size=6),
    fields=st.none() | st.sampled_from([["price", "title"], ["title", "price", "note"]]),
    as_of=st.none() | st.integers(1, 2**40),
)
def test_get_many_over_thrift2_sends_the_messages_of_a_tget_per_row(
    values: list[dict[str, Any]], fields: list[str] | None, as_of: int | None
) -> None:
    """The getMultiple message written from a template (ListTemplate) is the structs' own."""
    fast, slow = RecordedThrift2(), RecordedThrift2()
    slow.binary_requests = False  # a TGet struct per row, encoded by the recorder
    keys = [_key(sale) for sale in _sales(values)]
    for backend in (fast, slow):
        assert Repository(Sale, backend).get_many(keys, fields=fields, as_of=as_of) == [None] * len(
            keys
        )
    assert fast.sent == slow.sent
    assert [method for method, _ in fast.sent] == ["getMultiple"]
