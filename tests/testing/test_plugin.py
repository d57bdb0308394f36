"""The pytest plugin's fixtures, exercised in a separate pytest run with ``pytester``."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]  # a non-root conftest may not declare plugins; a module may


def test_memory_backend_fixture_is_fresh_for_every_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from hmodel.backend.memory import MemoryBackend
        from hmodel.schema import Family, Table

        def test_first(hmodel_memory_backend):
            assert isinstance(hmodel_memory_backend, MemoryBackend)
            hmodel_memory_backend.create_table(Table("t", [Family("f")]))

        def test_second(hmodel_memory_backend):
            assert hmodel_memory_backend.list_tables() == []
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)


def test_thrift_server_fixture_is_one_running_server_for_the_session(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import happybase

        ports = set()

        def test_first(hmodel_thrift_server, hmodel_thrift_address):
            assert hmodel_thrift_server.running
            assert hmodel_thrift_address == (hmodel_thrift_server.host, hmodel_thrift_server.port)
            ports.add(hmodel_thrift_server.port)
            connection = happybase.Connection(*hmodel_thrift_address)
            connection.create_table("t", {"f": {}})
            connection.close()

        def test_second(hmodel_thrift_server):
            ports.add(hmodel_thrift_server.port)
            assert len(ports) == 1
            assert hmodel_thrift_server.backend.list_tables() == ["t"]  # shared: clean up!
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)


def test_thrift2_address_fixture_serves_the_same_engine(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from hmodel.backend.thrift2 import Thrift2Backend
        from hmodel.schema import Family, Table

        def test_thrift2(hmodel_thrift_server, hmodel_thrift2_address):
            with Thrift2Backend(*hmodel_thrift2_address) as backend:
                backend.create_table(Table("t2", [Family("f")], splits=[b"m"]))
                assert hmodel_thrift_server.backend.list_tables() == ["t2"]
                assert len(backend.regions("t2")) == 2
                backend.delete_table("t2")
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)


def test_the_plugin_is_registered_through_its_entry_point(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest("--fixtures")
    result.stdout.fnmatch_lines(["*hmodel_memory_backend*", "*hmodel_thrift_server*"])
