"""Fixtures of the contract suite: tables created through the Backend protocol only."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hmodel.backend.base import Backend
from hmodel.errors import UnsupportedOperationError
from hmodel.schema import Family, Table


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The whole contract also runs over TLS, HTTP and HTTPS, and on the asyncio backends.

    Marks each contract test ``transports`` and ``async_edge`` before the kit
    parametrises its targets (``HMODEL_TARGETS=thrift2-https`` runs it on one of them;
    ``thrift2-https-async`` through the asyncio Thrift2 backend; with a real HBase,
    ``HMODEL_TARGETS=hbase2-https`` on its Thrift2 HTTPS server).
    """
    if metafunc.definition.get_closest_marker("transports") is None:
        metafunc.definition.add_marker(pytest.mark.transports)
    if metafunc.definition.get_closest_marker("async_edge") is None:
        metafunc.definition.add_marker(pytest.mark.async_edge)


#: The table most contract tests use: ``i`` keeps 3 versions, ``d`` HBase's default of 1.
TABLE = "contract"


@pytest.fixture
def table(backend: Backend) -> str:
    """A fresh table ``contract`` with families ``i`` (VERSIONS 3) and ``d`` (VERSIONS 1)."""
    backend.create_table(Table(TABLE, [Family("i", versions=3), Family("d")]))
    return TABLE


@pytest.fixture
def create_or_skip(backend: Backend) -> Callable[[Table], str]:
    """Create a table, skipping the test if this backend cannot carry its options.

    Thrift1's ``createTable`` cannot carry split points, ``KEEP_DELETED_CELLS`` and other
    options; the Thrift backend refuses them with ``UnsupportedOperationError``.
    """

    def create(declaration: Table) -> str:
        try:
            backend.create_table(declaration)
        except UnsupportedOperationError as exc:
            pytest.skip(f"{type(backend).__name__} cannot create this table: {exc.message}")
        return declaration.full_name

    return create
