"""The pytest plugin's fixtures, exercised in a separate pytest run with ``pytester``."""

from __future__ import annotations

import shutil
from pathlib import Path

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


def test_the_kit_runs_one_body_on_every_target_and_honours_requires(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hmodel_backend: memory, thrift, thrift2 run; real targets skip with the reason."""
    monkeypatch.delenv("HMODEL_TEST_HBASE", raising=False)
    monkeypatch.delenv("HMODEL_TEST_HBASE2", raising=False)
    monkeypatch.delenv("HMODEL_TARGETS", raising=False)
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent.sock")  # no Docker engine here
    monkeypatch.setenv("HMODEL_TEST_HBASE_PROCESS", "0")  # and no real HBase started
    pytester.makepyfile(
        """
        import pytest
        from hmodel.backend.base import Put
        from hmodel.schema import Family, Table

        def test_a_table_per_target(hmodel_backend, hmodel_clock):
            hmodel_backend.create_table(Table("kit", [Family("f")]))
            hmodel_backend.mutate("kit", [Put(b"r", b"f:q", b"v", timestamp=hmodel_clock())])
            assert hmodel_backend.get("kit", [b"r"])[0].value(b"f:q") == b"v"

        @pytest.mark.requires("check_and_mutate")
        def test_atomic_only(hmodel_backend):
            assert "check_and_mutate" in hmodel_backend.capabilities
        """
    )
    # In a subprocess: the plugin reads HMODEL_TARGETS when it loads, and this process's
    # plugin loaded with the outer run's value (which may narrow the targets).
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-rs")
    result.assert_outcomes(passed=5, skipped=5)
    result.stdout.fnmatch_lines(
        [
            "*hmodel tests per target*",
            "target memory: 2 passed",
            "target thrift: 1 passed, 1 skipped",
            "target hbase2: 2 skipped",
            "*HMODEL_TEST_HBASE_PROCESS=0 and HMODEL_TEST_HBASE2 unset*",
            "*ThriftBackend (thrift) lacks check_and_mutate*",
        ]
    )
    # The targets are read when the plugin loads: a fresh process sees the variable.
    monkeypatch.setenv("HMODEL_TARGETS", "memory,thrift2")
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=4)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl for test certificates")
def test_a_test_marked_transports_also_runs_over_tls_http_and_https(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """transports: the six fake transport targets join; real=True adds the real ones."""
    monkeypatch.delenv("HMODEL_TEST_HBASE", raising=False)
    monkeypatch.delenv("HMODEL_TEST_HBASE2", raising=False)
    monkeypatch.setenv("HMODEL_TEST_HBASE_PROCESS", "0")
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent.sock")
    monkeypatch.delenv("HMODEL_TARGETS", raising=False)
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.transports
        def test_wired(hmodel_backend):
            assert hmodel_backend.list_tables() == []

        @pytest.mark.transports(real=True)
        def test_wired_everywhere(hmodel_backend):
            assert hmodel_backend.list_tables() == []

        def test_plain(hmodel_backend):
            assert hmodel_backend.list_tables() == []
        """
    )
    result = pytester.runpytest("-p", "no:randomly", "-q")
    # 11 + 11 + 5 passed-or-skipped runs: the real ones skip without a real HBase.
    result.assert_outcomes(passed=9 + 9 + 3, skipped=2 + 6 + 2)
    result.stdout.fnmatch_lines(
        [
            "target thrift-tls: 2 passed",
            "target thrift2-https: 2 passed",
            "target hbase2-https: 1 skipped",
        ]
    )
    import hmodel  # the subprocess must import this hmodel, not another installed one

    monkeypatch.setenv("PYTHONPATH", str(Path(hmodel.__file__).parents[1]))
    monkeypatch.setenv("HMODEL_TARGETS", "thrift2-https")
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=3)
    monkeypatch.setenv("HMODEL_TARGETS", "thrift-ftp")
    assert pytester.runpytest_subprocess("-p", "no:randomly").ret != 0


def test_a_test_may_choose_its_targets_itself(pytester: pytest.Pytester) -> None:
    """An explicit parametrisation of hmodel_backend wins over the kit's targets."""
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("hmodel_backend", ["memory", "thrift2"], indirect=True)
        def test_two(hmodel_backend):
            assert hmodel_backend.list_tables() == []
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)


@pytest.mark.hbase
@pytest.mark.skipif(shutil.which("java") is None, reason="no java: no real HBase to start")
def test_with_java_both_real_targets_share_one_started_hbase_and_reuse_tables(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hbase and hbase2 run on one process the kit starts; a table is reused, emptied."""
    for variable in ("HMODEL_TEST_HBASE", "HMODEL_TEST_HBASE2", "HMODEL_TEST_HBASE_PROCESS"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HMODEL_TARGETS", "hbase,hbase2")
    import hmodel  # the subprocess must import this hmodel, not another installed one

    monkeypatch.setenv("PYTHONPATH", str(Path(hmodel.__file__).parents[1]))
    pytester.makepyfile(
        """
        import pytest
        from hmodel.backend.base import Put
        from hmodel.schema import Family, Table

        processes = set()

        @pytest.mark.parametrize("round", [1, 2])
        def test_a_fresh_table_each_time(hmodel_backend, hmodel_hbase_process, round):
            processes.add(tuple(hmodel_hbase_process.pids.values()))
            assert hmodel_backend.list_tables() == []
            hmodel_backend.create_table(Table("kit", [Family("f")]))
            assert hmodel_backend.get("kit", [b"r"]) == []
            hmodel_backend.mutate("kit", [Put(b"r", b"f:q", b"v", timestamp=1_000)])
            assert len(processes) == 1

        def test_the_pools_reused_the_tables(hmodel_real_hbase_pool, hmodel_real_hbase2_pool):
            for pool in (hmodel_real_hbase_pool, hmodel_real_hbase2_pool):
                assert (pool.counts["created"], pool.counts["reused"]) == (1, 1)
                pool.drain()  # each round's written table is emptied in the background
                assert pool.counts["truncated"] == 2
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["target hbase: 2 passed", "target hbase2: 2 passed"])


def test_the_hbase_pool_empties_through_thrift2_only_on_the_same_cluster() -> None:
    """HMODEL_TEST_HBASE2 serves the hbase pool's truncations only if a probe table shows."""
    from hmodel.testing.fake import FakeHBaseServer
    from hmodel.testing.plugin import _same_cluster

    with FakeHBaseServer(thrift2_port=0) as one, FakeHBaseServer(thrift2_port=0) as other:
        assert one.thrift2_port is not None and other.thrift2_port is not None
        assert _same_cluster(one.address, (one.host, one.thrift2_port), "p")
        assert not _same_cluster(one.address, (other.host, other.thrift2_port), "p")
        assert one.backend.list_tables() == other.backend.list_tables() == []  # probes gone


def test_a_test_marked_async_edge_also_runs_through_the_asyncio_backends(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """async_edge: each fake target's -async form joins; real ones only when named."""
    monkeypatch.delenv("HMODEL_TEST_HBASE", raising=False)
    monkeypatch.delenv("HMODEL_TEST_HBASE2", raising=False)
    monkeypatch.setenv("HMODEL_TEST_HBASE_PROCESS", "0")
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent.sock")
    monkeypatch.delenv("HMODEL_TARGETS", raising=False)
    pytester.makepyfile(
        """
        import pytest
        from hmodel.backend.base import Put, Scan
        from hmodel.schema import Family, Table
        from hmodel.testing.async_edge import AsyncEdgeBackend

        @pytest.mark.async_edge
        def test_through_asyncio(hmodel_backend, request):
            is_async = request.node.callspec.params["hmodel_backend"].endswith("-async")
            assert isinstance(hmodel_backend, AsyncEdgeBackend) == is_async
            hmodel_backend.create_table(Table("edge", [Family("f")]))
            hmodel_backend.mutate("edge", [Put(b"r", b"f:q", b"v")])
            assert [r.row for r in hmodel_backend.scan("edge", Scan())] == [b"r"]

        def test_plain(hmodel_backend):
            assert hmodel_backend.list_tables() == []
        """
    )
    result = pytester.runpytest("-p", "no:randomly", "-q")
    # 5 sync targets (2 real skip) + 3 -async ones; the plain test on the 5 only.
    result.assert_outcomes(passed=3 + 3 + 3, skipped=2 + 2)
    result.stdout.fnmatch_lines(["target memory-async: 1 passed", "target thrift2-async: 1 passed"])
    import hmodel  # the subprocess must import this hmodel, not another installed one

    monkeypatch.setenv("PYTHONPATH", str(Path(hmodel.__file__).parents[1]))
    monkeypatch.setenv("HMODEL_TARGETS", "thrift-async,hbase2-async")
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines(["*HMODEL_TEST_HBASE_PROCESS=0 and HMODEL_TEST_HBASE2 unset*"])
