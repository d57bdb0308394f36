"""The part both Thrift backends share (ThriftBackendBase): names, options, repr; no server."""

from __future__ import annotations

from typing import Any

import pytest

from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.backend.thrift_base import ThriftBackendBase
from hmodel.errors import IllegalArgumentError

KINDS = [ThriftBackend, Thrift2Backend]


@pytest.mark.parametrize("kind", KINDS)
def test_both_backends_map_table_names_through_one_base(kind: type[ThriftBackendBase]) -> None:
    backend = kind("h", 9090, table_prefix="app", autoconnect=False)
    assert isinstance(backend, ThriftBackendBase)
    assert backend._data_name("ns:user") == b"ns:app_user"
    assert backend._visible_name("ns:app_user") == "ns:user"
    assert backend._visible_name("ns:other_user") is None
    backend.table_prefix_separator = "."
    assert backend._data_name("ns:user") == b"ns:app.user"
    backend.table_prefix = None
    assert backend._data_name("ns:user") == b"ns:user"
    assert backend._visible_name("anything") == "anything"
    with pytest.raises(IllegalArgumentError, match="non-empty str"):
        backend._data_name("")
    backend.close()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("option", "value"), [("table_prefix", ""), ("table_prefix_separator", "a:b")]
)
def test_both_backends_refuse_a_bad_table_prefix_before_connecting(
    kind: type[ThriftBackendBase], option: str, value: str
) -> None:
    options: dict[str, Any] = {option: value}
    with pytest.raises(IllegalArgumentError, match=option):
        kind("h", 9090, **options)  # autoconnect: would fail to connect otherwise


@pytest.mark.parametrize("kind", KINDS)
def test_from_url_and_repr_name_the_public_class_also_for_a_subclass(
    kind: type[ThriftBackendBase],
) -> None:
    class Custom(kind):  # type: ignore[valid-type,misc]
        pass

    sub: type[ThriftBackendBase] = Custom
    backend = sub.from_url("thrift://h:9091", table_prefix="t", autoconnect=False)
    assert type(backend) is sub
    assert repr(backend) == f"{kind.__name__}('h', 9091, table_prefix='t')"
    assert backend.round_trips == 0
    with backend as same:
        assert same is backend


def test_the_thrift1_backends_own_admin_follows_its_table_prefix() -> None:
    backend = ThriftBackend("h", 9090, table_prefix="app", admin=9092, autoconnect=False)
    admin = backend._admin
    assert isinstance(admin, Thrift2Backend)
    assert admin._data_name("t") == b"app_t"
    backend.table_prefix_separator = "."
    assert admin._data_name("t") == b"app.t"
    backend.table_prefix = "other"
    assert admin._data_name("t") == b"other.t"
    backend.close()
