"""A soak of copies (R3) and relations (R6): threads, random faults, promises checked.

Four writers rename shipments (``Copy.save``), delete and re-create lines (the copies),
and link and unlink users (``Relation``), through a backend failing ~7% of the writes
(before, after, or halfway through a call). After every call that returned normally the
state it promised is checked; after all writers stop, a final ``repair`` leaves 0 stale
copies, 0 partial rows and 0 one-sided links. A longer run::

    HMODEL_SOAK_OPS=2000 python -m pytest tests/patterns/test_copies_and_relations_soak.py
"""

from __future__ import annotations

import os
import random
import threading

from hmodel import Query, Store
from hmodel.backend.base import Backend
from hmodel.errors import HModelError, NotFoundError
from hmodel.patterns import Copy, Relation
from hmodel.testing.random_fault import RandomFaultBackend
from tests.patterns.shared_models import Line, Shipping, User

OPS = int(os.environ.get("HMODEL_SOAK_OPS", "250"))  # per writer
WRITERS = 4
CITIES = ("Paris", "Lyon", "Rome", "Oslo", "Nice")
USERS = ("ann", "bob", "cid", "dan", "eve")


def _source(line: Line) -> dict[str, object]:
    return {"order_id": line.order_id, "ship": line.ship}


def test_copies_and_relations_keep_their_promises_under_faults(backend: Backend) -> None:
    """0 broken promises, 0 stale copies and 0 one-sided links after the final repair."""
    faulty = RandomFaultBackend(backend, seed=16, rate=0.07)
    store = Store(faulty)
    faulty.enabled = False
    store.create_tables(Shipping, User)
    copy = Copy(
        store,
        Shipping,
        Line,
        fields={"ship_city": "city"},
        locate=lambda s: Query({"order_id": s.order_id, "ship": s.ship}),
        source_of=_source,
    )
    follow = Relation(store, User, "follows", User, "fans")
    for ship in (1, 2):
        store.repository(Shipping).save(Shipping(order_id="o", ship=ship, city="Paris"))
        for n in range(3):
            store.repository(Line).save(
                Line(order_id="o", ship=ship, line=n, item="tea", ship_city="Paris")
            )
    for name in USERS:
        store.repository(User).save(User(user_id=name, nickname=name))
    faulty.enabled = True
    broken: list[str] = []
    outside: list[BaseException] = []
    done = [0]
    lock = threading.Lock()

    lines = store.repository(Line)
    generation = iter(range(1, 10**9))

    def items(ship: int) -> dict[int, str]:
        return {x.line: x.item for x in lines.scan({"order_id": "o", "ship": ship})}

    def check_save(ship: int, floor: int, before: dict[int, str], city: str) -> None:
        """Every line there before and after (not re-created) holds the saved city or a copy
        newer than floor (a copy already equal is left at its older stamp)."""
        wanted = lines.mapper.encode_value("ship_city", city)
        for line in lines.scan({"order_id": "o", "ship": ship}):
            if before.get(line.line) != line.item:
                continue  # created or re-created meanwhile: a target save, its own stamp
            row = lines.mapper.rowkey(line)
            cells = backend.get_versions(lines.table, row, b"o:c", max_versions=1)
            if cells and cells[0].timestamp <= floor and cells[0].value != wanted:
                broken.append(f"line {ship}/{line.line}: copy older than the save")

    started: dict[tuple[str, str], int] = {}
    active: dict[tuple[str, str], int] = {}

    def begin(pair: tuple[str, str]) -> tuple[int, bool]:
        """Count a call on the pair: its number, and whether no other call was running."""
        with lock:
            started[pair] = started.get(pair, 0) + 1
            active[pair] = active.get(pair, 0) + 1
            return started[pair], active[pair] == 1

    def alone(pair: tuple[str, str], seen: tuple[int, bool]) -> bool:
        """End the call; whether no other call on the pair overlapped it (its check holds)."""
        with lock:
            active[pair] -= 1
            return seen[1] and started[pair] == seen[0]

    def writer(seed: int) -> None:
        chance = random.Random(seed)
        for _ in range(OPS):
            what = chance.random()
            ship = chance.choice((1, 2))
            try:
                faulty.enabled = True
                if what < 0.35:
                    row = store.repository(Shipping).mapper.key_of(order_id="o", ship=ship)
                    before = items(ship)
                    floor = store.stamps.next(rows=(row,))
                    city = chance.choice(CITIES)
                    # A save overlapping another's on the ship may find its copies equal
                    # and leave them while the other's late write lands: that one puts
                    # the newer city back itself, after; only a save alone is checked.
                    seen = begin(("ship", str(ship)))
                    try:
                        copy.save(Shipping(order_id="o", ship=ship, city=city))
                    finally:
                        checked = alone(("ship", str(ship)), seen)
                    if checked:
                        check_save(ship, floor, before, city)
                elif what < 0.5:
                    number = chance.randrange(3)
                    old = lines.get(order_id="o", ship=ship, line=number)
                    lines.delete(order_id="o", ship=ship, line=number)
                    now = lines.get(order_id="o", ship=ship, line=number)
                    if old is not None and now is not None and now.item == old.item:
                        broken.append("a deleted line came back")  # only a new one may
                elif what < 0.65:
                    number = chance.randrange(3)
                    source = store.repository(Shipping).get(order_id="o", ship=ship)
                    assert source is not None
                    item = f"tea{next(generation)}"
                    line = Line(order_id="o", ship=ship, line=number, item=item, ship_city="")
                    store.repository(Line).save(copy.fill(line, source))
                elif what < 0.85:
                    left, right = chance.sample(USERS, 2)
                    seen = begin((left, right))
                    try:
                        follow.link(left, right, "one-way")
                        both = right in follow.of_left(left) and left in follow.of_right(right)
                    finally:
                        checked = alone((left, right), seen)
                    if not both and checked:
                        broken.append(f"link {left}->{right} returned but is not on both sides")
                elif what < 0.95:
                    left, right = chance.sample(USERS, 2)
                    seen = begin((left, right))
                    try:
                        follow.unlink(left, right)
                        either = right in follow.of_left(left) or left in follow.of_right(right)
                    finally:
                        checked = alone((left, right), seen)
                    if either and checked:
                        broken.append(f"unlink {left}->{right} returned but a side is left")
                else:
                    try:
                        follow.link(chance.choice(USERS), "ghost", "one-way")
                        broken.append("a link to a missing user returned")
                    except NotFoundError:
                        pass
            except HModelError:
                pass  # a fault: the writer's call failed, as a dying process's would
            except BaseException as error:
                outside.append(error)
            with lock:
                done[0] += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    faulty.enabled = False
    assert outside == []
    assert done[0] == WRITERS * OPS
    assert faulty.faults > 0
    copy.repair_targets()
    follow.repair(follow.verify(), complete=False)
    assert copy.verify_targets() == []
    assert follow.verify() == []
    assert store.repository(User).get(user_id="ghost") is None
    assert [u.user_id for u in store.repository(User).scan()] == sorted(USERS)  # all decode
    assert len(list(store.repository(Line).scan({"order_id": "o"}))) <= 6
    assert broken == []
