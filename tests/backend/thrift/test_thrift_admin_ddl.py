"""Pre-split tables over Thrift1: created whole through a Thrift2 admin address (K11, F3)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hmodel.backend.base import Region
from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import IllegalArgumentError, UnsupportedOperationError
from hmodel.keys import Key, Salt, Str
from hmodel.model import field, model
from hmodel.repository import Repository
from hmodel.schema import Family, SaltSplits, Table
from hmodel.testing import FakeHBaseServer

#: The getting-started page's table: four salt buckets, pre-split into four regions.
USERS = Table("user", [Family("i", min_versions=1, ttl=86_400)], splits=SaltSplits(4))


@pytest.fixture(scope="module")
def server() -> Iterator[FakeHBaseServer]:
    """One fake server with Thrift1 and, on a second port, Thrift2 over the same engine."""
    with FakeHBaseServer(thrift2_port=0) as fake:
        yield fake


@pytest.fixture
def backends() -> Iterator[list[ThriftBackend]]:
    """Collects the test's backends; drops their tables and closes them afterwards."""
    made: list[ThriftBackend] = []
    yield made
    for backend in made:
        for name in backend.list_tables():
            backend.delete_table(name)
        backend.close()


def test_without_an_admin_the_refusal_names_every_way_out(
    server: FakeHBaseServer, backends: list[ThriftBackend]
) -> None:
    thrift = ThriftBackend(server.host, server.port)
    backends.append(thrift)

    with pytest.raises(UnsupportedOperationError) as info:
        thrift.create_table(USERS)

    message = info.value.message
    assert "split points" in message and "MIN_VERSIONS" in message
    assert "admin=" in message and "lenient_ddl=True" in message and "HBase shell" in message
    assert "create 'user'" in message
    assert not thrift.table_exists("user")


def test_the_suggested_ddl_creates_the_table_under_the_table_prefix(
    server: FakeHBaseServer, backends: list[ThriftBackend]
) -> None:
    # The statement names the table the backend's calls will look for: fhr1_user.
    thrift = ThriftBackend(server.host, server.port, table_prefix="fhr1")
    backends.append(thrift)
    with pytest.raises(UnsupportedOperationError) as info:
        thrift.create_table(USERS)
    assert "create 'fhr1_user'" in info.value.message
    assert "create 'user'" not in info.value.message


@pytest.mark.parametrize("how", ["host:port", "port", "backend"])
def test_an_admin_address_creates_the_table_whole_with_its_split_points(
    server: FakeHBaseServer, backends: list[ThriftBackend], how: str
) -> None:
    assert server.thrift2_port is not None
    admin: str | int | Thrift2Backend
    if how == "backend":  # opened only when used: it connects, and is closed below
        admin = Thrift2Backend(server.host, server.thrift2_port, table_prefix="app")
    else:
        admin = (
            f"{server.host}:{server.thrift2_port}" if how == "host:port" else server.thrift2_port
        )
    thrift = ThriftBackend(server.host, server.port, table_prefix="app", admin=admin)
    backends.append(thrift)

    thrift.create_table(USERS)

    assert thrift.list_tables() == ["user"]
    assert [r.start for r in thrift.regions("user")] == [b"", b"\x01", b"\x02", b"\x03"]
    with Thrift2Backend(server.host, server.thrift2_port) as unprefixed:
        assert unprefixed.list_tables() == ["app_user"]
    if isinstance(admin, Thrift2Backend):
        admin.close()


def test_a_table_thrift1_can_carry_still_goes_over_thrift1(
    server: FakeHBaseServer, backends: list[ThriftBackend]
) -> None:
    thrift = ThriftBackend(server.host, server.port, admin=f"{server.host}:1")  # unreachable
    backends.append(thrift)

    thrift.create_table(Table("plain", [Family("f", versions=2)]))

    assert thrift.regions("plain") == [Region(b"", b"")]


def test_the_getting_started_model_runs_over_thrift1_with_an_admin(
    server: FakeHBaseServer, backends: list[ThriftBackend]
) -> None:
    @model(USERS, key=Key(Salt("user_id", buckets=4), Str("user_id")))
    class User:
        user_id: str
        nickname: str = field("i:n")

    assert server.thrift2_port is not None
    thrift = ThriftBackend(server.host, server.port, admin=server.thrift2_port)
    backends.append(thrift)
    repo = Repository(User, thrift)

    repo.create_table()
    repo.save(User(user_id="u1", nickname="Ann"))

    assert repo.get(user_id="u1", required=True).nickname == "Ann"
    assert len(thrift.regions("user")) == 4


@pytest.mark.parametrize("admin", ["host:notaport", 0, 70_000, True, 1.5])
def test_a_bad_admin_is_refused(server: FakeHBaseServer, admin: object) -> None:
    with pytest.raises(IllegalArgumentError):
        ThriftBackend(server.host, server.port, admin=admin, autoconnect=False)  # type: ignore[arg-type]


def test_an_admin_backend_with_another_table_prefix_is_refused(server: FakeHBaseServer) -> None:
    assert server.thrift2_port is not None
    other = Thrift2Backend(server.host, server.thrift2_port, autoconnect=False)
    with pytest.raises(IllegalArgumentError, match="table_prefix"):
        ThriftBackend(server.host, server.port, table_prefix="app", admin=other, autoconnect=False)
