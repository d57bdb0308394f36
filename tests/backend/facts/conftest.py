"""Fixtures of the HBASE_FACTS tests: each fact on hmodel's engine and on a real HBase.

A fact about a protocol runs on the fake server over that protocol (``thrift``: Thrift1,
``thrift2``: Thrift2, both serving the engine) and on a real HBase over it (``hbase``,
``hbase2``); a fact about HBase itself runs through the ``Backend`` protocol on every
target of the kit. Real targets are skipped, with the reason, where no real server is
available or ``HMODEL_TARGETS`` leaves them out.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import happybase
import pytest
import thriftpy2.rpc
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.transport import TBufferedTransportFactory

from hmodel.backend.base import Backend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.backend.thrift2.idl import HBASE2, TTableName
from hmodel.clock import system_clock
from hmodel.schema import Family, Table
from hmodel.testing.kit import PREFIX_VARIABLE, TARGETS_VARIABLE, target_params
from hmodel.testing.plugin import TARGET_PROPERTY

#: Table names of the facts tests, unique in the session (the real server is shared).
_names = itertools.count()


def pytest_itemcollected(item: pytest.Item) -> None:
    """Count a raw-protocol fact test under its target in the kit's per-target summary."""
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    for fixture in ("thrift1", "thrift2"):
        if fixture in params:
            item.user_properties.append((TARGET_PROPERTY, str(params[fixture])))


def _chosen(target: str) -> None:
    """Skip, with the reason, a target ``HMODEL_TARGETS`` leaves out."""
    chosen = [getattr(p, "values", (p,))[0] for p in target_params()]
    if target not in chosen:
        pytest.skip(f"{TARGETS_VARIABLE} leaves out {target}")


def _prefix() -> str:
    """The table prefix of the facts tests: the kit's, ``facts`` appended without a
    separator, so the kit's table pools (which drop unknown tables of their own prefix)
    never see these tables."""
    return (os.environ.get(PREFIX_VARIABLE) or "hmodel_test") + "facts"


def now() -> int:
    """This host's clock in epoch ms (the fake server's engine and a local HBase read it)."""
    return system_clock()


@pytest.fixture
def hmodel_target(request: pytest.FixtureRequest) -> str:
    """The kit target the test's ``backend`` runs on (``memory`` ... ``hbase2``)."""
    return str(request.node.callspec.params["hmodel_backend"])


def is_real(target: str) -> bool:
    """Whether a kit target is a real HBase."""
    return target in ("hbase", "hbase2")


@pytest.fixture
def table(backend: Backend) -> str:
    """A fresh table ``facts`` with families ``f`` (VERSIONS 3) and ``g`` (VERSIONS 1)."""
    backend.create_table(Table("facts", [Family("f", versions=3), Family("g")]))
    return "facts"


@attrs.frozen
class Wire1:
    """A Thrift1 server and a fresh table ``t`` on it: ``f`` (VERSIONS 3), ``g`` (1).

    Attributes:
        target: ``thrift`` (the fake server) or ``hbase`` (a real one).
        connection: A happybase connection (table prefix of the session).
        client: Its raw Thrift1 client; table names on the wire carry the prefix.
        name: The table's name on the wire.
    """

    target: str
    connection: happybase.Connection
    name: bytes

    @property
    def real(self) -> bool:
        """Whether this is a real HBase."""
        return self.target == "hbase"

    @property
    def client(self) -> Any:
        """The raw Thrift1 client."""
        return self.connection.client

    @property
    def table(self) -> happybase.Table:
        """The test's table through happybase."""
        return self.connection.table(self.name.decode().removeprefix(_prefix() + "_"))


@pytest.fixture(params=["thrift", "hbase"])
def thrift1(request: pytest.FixtureRequest) -> Iterator[Wire1]:
    """The fake Thrift1 server or a real one, with a fresh table (see :class:`Wire1`)."""
    target = str(request.param)
    _chosen(target)
    if target == "thrift":
        server = request.getfixturevalue("hmodel_thrift_server")
        host, port = server.host, server.port
    else:
        host, port = request.getfixturevalue("hmodel_real_hbase_address")
    connection = happybase.Connection(host, port, table_prefix=_prefix(), autoconnect=True)
    short = f"t{next(_names)}"
    connection.create_table(short, {"f": {"max_versions": 3}, "g": {"max_versions": 1}})
    try:
        yield Wire1(target, connection, f"{_prefix()}_{short}".encode())
    finally:
        try:
            connection.delete_table(short, disable=True)
        finally:
            connection.close()


@attrs.frozen
class Wire2:
    """A Thrift2 server, a raw client of it, and the tables a test made on it.

    Attributes:
        target: ``thrift2`` (the fake server) or ``hbase2`` (a real one).
        client: A raw ``THBaseService`` client (buffered transport, binary protocol:
            the server's defaults).
        admin: hmodel's Thrift2 backend on the same server, which makes the tables.
        made: The short names of the tables made, dropped after the test.
    """

    target: str
    client: Any
    admin: Thrift2Backend
    made: list[str] = attrs.field(factory=list)

    @property
    def real(self) -> bool:
        """Whether this is a real HBase."""
        return self.target == "hbase2"

    def create(self, *families: Family, splits: list[bytes] | None = None) -> bytes:
        """Make a fresh table; return its name on the wire (prefix included)."""
        short = f"t{next(_names)}"
        self.admin.create_table(
            Table(short, list(families), splits=splits, allow_many_families=True)
        )
        self.made.append(short)
        return f"{_prefix()}_{short}".encode()

    def standard(self) -> bytes:
        """A table of families ``f`` (VERSIONS 3) and ``g`` (1), split at ``m``."""
        return self.create(Family("f", versions=3), Family("g"), splits=[b"m"])

    @staticmethod
    def tname(name: bytes) -> Any:
        """The ``TTableName`` of a table name on the wire."""
        return TTableName(qualifier=name)


@pytest.fixture(params=["thrift2", "hbase2"])
def thrift2(request: pytest.FixtureRequest) -> Iterator[Wire2]:
    """The fake Thrift2 server or a real one (see :class:`Wire2`)."""
    target = str(request.param)
    _chosen(target)
    if target == "thrift2":
        server = request.getfixturevalue("hmodel_thrift_server")
        host, port = server.host, server.thrift2_port
    else:
        host, port = request.getfixturevalue("hmodel_real_hbase2_address")
    client = thriftpy2.rpc.make_client(
        HBASE2.THBaseService,
        host,
        port,
        proto_factory=TBinaryProtocolFactory(),
        trans_factory=TBufferedTransportFactory(),
        timeout=60_000,
    )
    admin = Thrift2Backend(host, port, table_prefix=_prefix())
    wire = Wire2(target, client, admin)
    try:
        yield wire
    finally:
        try:
            for short in wire.made:
                if admin.table_exists(short):
                    admin.delete_table(short)
        finally:
            admin.close()
            client.close()


def raises_with(call: Callable[[], object], kind: type[BaseException]) -> Any:
    """The exception ``call`` raises, which must be a ``kind`` (typed loosely: Thrift
    exceptions carry their fields as plain attributes)."""
    with pytest.raises(kind) as caught:
        call()
    return caught.value
