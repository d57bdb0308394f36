"""The hmodel pytest plugin: one test body on every backend, for hmodel and its users."""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from hmodel.testing.kit import open_target, split_target, target_params

if TYPE_CHECKING:
    from hmodel.backend.base import Backend
    from hmodel.backend.memory import MemoryBackend
    from hmodel.clock import ManualClock
    from hmodel.testing.fake import FakeHBaseServer
    from hmodel.testing.hbase_process import HBaseProcess, ThriftServers
    from hmodel.testing.kdc import LoopbackKdc
    from hmodel.testing.table_reuse import TablePool
    from hmodel.testing.transports import FakeTransportServers

__all__ = [
    "hmodel_backend",
    "hmodel_clock",
    "hmodel_hbase_process",
    "hmodel_kdc",
    "hmodel_memory_backend",
    "hmodel_real_hbase2_address",
    "hmodel_real_hbase2_pool",
    "hmodel_real_hbase_address",
    "hmodel_real_hbase_pool",
    "hmodel_real_hbase_transports",
    "hmodel_thrift2_address",
    "hmodel_thrift_address",
    "hmodel_thrift_server",
    "hmodel_transport_servers",
]


@pytest.fixture
def hmodel_memory_backend() -> MemoryBackend:
    """A fresh, empty in-memory engine for each test: no tables, nothing to clean up."""
    from hmodel.backend.memory import MemoryBackend

    return MemoryBackend()


@pytest.fixture(scope="session")
def hmodel_thrift_server() -> Iterator[FakeHBaseServer]:
    """One running :class:`FakeHBaseServer` for the whole test session.

    It listens on loopback, on a free port, with the buffered transport and the binary
    protocol (happybase's defaults), and serves HBase 2's Thrift2 API over the same engine
    on a second free port (:func:`hmodel_thrift2_address`).

    It is shared by every test: tests must delete the tables they create (or use unique
    table names / a happybase ``table_prefix``) so they do not see each other's data.

    ``HMODEL_FAKE_MIN_LATENCY_MS`` (a whole number of ms, default 0) holds each call that
    long, as ``hmodel fake-hbase --min-latency-ms`` does (see ``docs/testing.md``).
    """
    from hmodel.testing.fake import FakeHBaseServer

    latency = _min_latency_ms()
    with FakeHBaseServer(thrift2_port=0, min_latency_ms=latency) as server:
        yield server


#: The environment variable of the session's fake server's minimum call latency in ms.
MIN_LATENCY_VARIABLE = "HMODEL_FAKE_MIN_LATENCY_MS"


def _min_latency_ms() -> int:
    """The minimum call latency ``HMODEL_FAKE_MIN_LATENCY_MS`` asks of the fake server.

    Raises:
        ValidationError: The variable is not a whole number >= 0.
    """
    from hmodel.errors import ValidationError

    raw = os.environ.get(MIN_LATENCY_VARIABLE, "").strip() or "0"
    if not raw.isdigit():
        raise ValidationError(
            f"{MIN_LATENCY_VARIABLE} must be a whole number of ms", field=MIN_LATENCY_VARIABLE,
            value=raw,
        )  # fmt: skip
    return int(raw)


@pytest.fixture(scope="session")
def hmodel_thrift_address(hmodel_thrift_server: FakeHBaseServer) -> tuple[str, int]:
    """``(host, port)`` of :func:`hmodel_thrift_server`, for ``happybase.Connection(*address)``."""
    return hmodel_thrift_server.address


@pytest.fixture(scope="session")
def hmodel_thrift2_address(hmodel_thrift_server: FakeHBaseServer) -> tuple[str, int]:
    """``(host, port)`` of the Thrift2 side of :func:`hmodel_thrift_server`.

    For ``Thrift2Backend(*address)`` or any client of HBase's ``THBaseService``.
    """
    port = hmodel_thrift_server.thrift2_port
    assert port is not None
    return hmodel_thrift_server.host, port


@pytest.fixture(scope="session")
def hmodel_transport_servers(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[FakeTransportServers]:
    """The fake servers of the ``-tls``, ``-http`` and ``-https`` targets, for the session.

    Each transport's server (Thrift1, and Thrift2 over the same engine) starts when a
    test first needs it; the TLS ones use a throwaway CA made with ``openssl`` (tests
    needing them skip, with the reason, where there is none).
    """
    from hmodel.testing.transports import FakeTransportServers

    servers = FakeTransportServers(tmp_path_factory.mktemp("hmodel-certs"))
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture
def _hmodel_openssl(request: pytest.FixtureRequest) -> None:
    """Skip, with the reason, a TLS transport target where there is no ``openssl``."""
    from hmodel.testing.certs import find_openssl

    if find_openssl() is None:
        pytest.skip("no openssl to make the test certificates: TLS targets skipped")


#: ``HMODEL_TEST_ZOOKEEPER=host:port``: the ZooKeeper of the cluster ``HMODEL_TEST_HBASE``
#: names, for the real ``-http``/``-https`` targets' Thrift servers.
ZOOKEEPER_VARIABLE = "HMODEL_TEST_ZOOKEEPER"


def _zookeeper_of(address: tuple[str, int]) -> tuple[str, int] | None:
    """The ZooKeeper of the cluster whose Thrift1 server is ``address``, if known.

    ``HMODEL_TEST_ZOOKEEPER``, else the state file of the ``hmodel hbase start`` (or kit)
    run serving that address.
    """
    import json

    from hmodel.testing.hbase_container import parse_address
    from hmodel.testing.hbase_process import run_dir

    text = os.environ.get(ZOOKEEPER_VARIABLE)
    if text:
        return parse_address(text)
    for path in sorted(run_dir().glob("*.json")):
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if state.get("thrift_port") == address[1] and state.get("zookeeper_port"):
            return str(state.get("host", address[0])), int(state["zookeeper_port"])
    return None


@pytest.fixture(scope="session")
def hmodel_real_hbase_transports(
    request: pytest.FixtureRequest, hmodel_real_hbase_address: tuple[str, int]
) -> Iterator[ThriftServers]:
    """A real HBase's Thrift1 and Thrift2 servers in HTTP mode, without and with TLS.

    Extra servers (:class:`~hmodel.testing.hbase_process.ThriftServers`) attached to the
    ZooKeeper of the real cluster of :func:`hmodel_real_hbase_address` (the session's
    own, or the ``hmodel hbase start`` run ``HMODEL_TEST_HBASE`` names, or the one
    ``HMODEL_TEST_ZOOKEEPER`` names); those the session's selected tests use are started
    together the first time one is needed, and stopped at the session's end. Skipped,
    with the reason, without Java or a known ZooKeeper.
    """
    from hmodel.testing.hbase_container import ADDRESS_VARIABLE
    from hmodel.testing.hbase_process import ThriftServers, find_java

    if find_java() is None:
        pytest.skip("no java (install a JDK 17): no HBase Thrift HTTP servers are started")
    zookeeper: tuple[str, int] | None
    if not os.environ.get(ADDRESS_VARIABLE) and _process_wanted():
        process = request.getfixturevalue("hmodel_hbase_process")
        zookeeper = (process.host, process.zookeeper_port)
    else:
        zookeeper = _zookeeper_of(hmodel_real_hbase_address)
    if zookeeper is None:
        pytest.skip(
            f"the ZooKeeper of {ADDRESS_VARIABLE} is unknown (set {ZOOKEEPER_VARIABLE}): "
            "real HTTP(S) transport tests skipped"
        )
    wanted = {
        ("thrift" if base == "hbase" else "thrift2", transport)
        for item in request.session.items
        if (callspec := getattr(item, "callspec", None)) is not None
        for base, transport in [split_target(str(callspec.params.get("hmodel_backend", "")))]
        if base in ("hbase", "hbase2") and transport != "socket"
    }
    with ThriftServers(zookeeper) as servers:
        servers.start(*sorted(wanted))
        yield servers


def pytest_configure(config: pytest.Config) -> None:
    """Register the kit's markers (so ``--strict-markers`` accepts them)."""
    config.addinivalue_line(
        "markers",
        "requires(*capabilities): run only on backends whose capabilities include these "
        '(e.g. requires("check_and_mutate")); skipped with the reason elsewhere',
    )
    config.addinivalue_line(
        "markers",
        "hbase: needs a real HBase (started by the kit when Java is present, or "
        "HMODEL_TEST_HBASE / HMODEL_TEST_HBASE2)",
    )
    config.addinivalue_line(
        "markers",
        "transports(real=False): also run hmodel_backend on the fake servers over TLS, "
        "HTTP and HTTPS (thrift-tls ... thrift2-https), and with real=True on a real "
        "HBase's Thrift servers over HTTP and HTTPS (hbase-http ... hbase2-https)",
    )
    config.addinivalue_line(
        "markers",
        "async_edge: also run hmodel_backend through the asyncio backends: the -async form "
        "of each fake target (memory-async, thrift-async, thrift2-https-async ...), a "
        "synchronous Backend whose data calls the asyncio backend serves",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run each test using ``hmodel_backend`` once per target (see :func:`hmodel_backend`)."""
    if "hmodel_backend" not in metafunc.fixturenames:
        return
    for given in metafunc.definition.iter_markers("parametrize"):
        names = given.args[0] if given.args else given.kwargs.get("argnames", "")
        if "hmodel_backend" in (
            names.replace(" ", "").split(",") if isinstance(names, str) else names
        ):
            return  # the test chose its targets itself
    mark = metafunc.definition.get_closest_marker("transports")
    real = bool(mark.kwargs.get("real", False)) if mark is not None else False
    async_edge = metafunc.definition.get_closest_marker("async_edge") is not None
    metafunc.parametrize(
        "hmodel_backend",
        target_params(transports=mark is not None, real_transports=real, async_edge=async_edge),
        indirect=True,
    )


#: ``HMODEL_TEST_HBASE_PROCESS=0``: never start a real HBase for the real targets.
PROCESS_VARIABLE = "HMODEL_TEST_HBASE_PROCESS"


def _process_wanted() -> bool:
    from hmodel.testing.hbase_process import find_java

    return os.environ.get(PROCESS_VARIABLE, "1") != "0" and find_java() is not None


def _no_server_reason(variable: str) -> str:
    from hmodel.testing.hbase_process import find_java

    if os.environ.get(PROCESS_VARIABLE, "1") == "0":
        why = f"{PROCESS_VARIABLE}=0"
    elif find_java() is None:
        why = "no java (install a JDK 17) to start one"
    else:  # pragma: no cover -- the process would have been started
        why = "no process"
    return f"{why} and {variable} unset: real-HBase tests skipped"


#: ``hbase-site.xml`` settings of the HBase the kit starts. A test session keeps many small
#: tables open (:class:`~hmodel.testing.table_reuse.TablePool`); with HBase's MSLAB each
#: region's first write takes a 2 MB chunk per family that stays until the region flushes
#: or closes, so about 100 written tables exhaust the 768 MB heap (measured on 2.6.1: +5.6
#: MB per written 2-family table, none without MSLAB). MSLAB guards big heaps against
#: fragmentation; a test server has none to guard.
KIT_HBASE_SETTINGS = {"hbase.hregion.memstore.mslab.enabled": "false"}


@pytest.fixture(scope="session")
def hmodel_hbase_process() -> Iterator[HBaseProcess]:
    """One real standalone HBase with Thrift1 and Thrift2 for the session, started lazily.

    Started (:class:`~hmodel.testing.hbase_process.HBaseProcess`) the first time a test
    asks for it, stopped at the session's end; skipped with the reason when there is no
    ``java`` or ``HMODEL_TEST_HBASE_PROCESS=0``. A start that fails is an error, with
    the server's log.
    """
    from hmodel.testing.hbase_process import HBaseProcess, find_java

    if os.environ.get(PROCESS_VARIABLE, "1") == "0":
        pytest.skip(f"{PROCESS_VARIABLE}=0: no real HBase is started")
    if find_java() is None:
        pytest.skip("no java (install a JDK 17): no real HBase is started")
    with HBaseProcess(settings=KIT_HBASE_SETTINGS) as process:
        yield process


@pytest.fixture(scope="session")
def hmodel_kdc() -> Iterator[LoopbackKdc]:
    """A throwaway Kerberos realm on loopback for the session (SASL GSSAPI tests).

    A :class:`~hmodel.testing.kdc.LoopbackKdc` (realm ``HMODEL.TEST``, ``krb5kdc`` on a
    free port, all in a temporary directory), its ``KRB5_CONFIG`` set in this process
    while it runs; skipped with the reason when the MIT Kerberos programs or the
    ``gssapi`` package are missing.
    """
    from hmodel.testing.kdc import LoopbackKdc, kdc_missing, kerberos_environment

    reason = kdc_missing()
    if reason is not None:
        pytest.skip(reason)
    with LoopbackKdc() as kdc, kerberos_environment(kdc.environment()):
        yield kdc


@pytest.fixture(scope="session")
def hmodel_real_hbase_address(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """A real HBase Thrift1 server: the first of these that is available.

    ``HMODEL_TEST_HBASE=host:port``; the session's :func:`hmodel_hbase_process` when Java
    is present; a testcontainer when a Docker engine answers; else the test is skipped
    with the reason.
    """
    from hmodel.testing.hbase_container import ADDRESS_VARIABLE, parse_address, real_hbase

    text = os.environ.get(ADDRESS_VARIABLE)
    if text:
        yield parse_address(text)
        return
    if _process_wanted():
        yield request.getfixturevalue("hmodel_hbase_process").thrift_address
        return
    from hmodel.testing.hbase_container import docker_available

    if not docker_available():
        pytest.skip(_no_server_reason(ADDRESS_VARIABLE) + " (and no Docker engine)")
    with real_hbase() as address:
        yield address


@pytest.fixture(scope="session")
def hmodel_real_hbase2_address(request: pytest.FixtureRequest) -> tuple[str, int]:
    """A real HBase Thrift2 server: the first of these that is available.

    ``HMODEL_TEST_HBASE2=host:port``; the session's :func:`hmodel_hbase_process` when Java
    is present; else the test is skipped with the reason.
    """
    from hmodel.testing.hbase_container import parse_address

    text = os.environ.get("HMODEL_TEST_HBASE2")
    if text:
        return parse_address(text)
    if _process_wanted():
        address: tuple[str, int] = request.getfixturevalue("hmodel_hbase_process").thrift2_address
        return address
    pytest.skip(_no_server_reason("HMODEL_TEST_HBASE2"))


#: ``HMODEL_TEST_TABLE_COPIES=n``: copies of each table a real target keeps (default 5).
COPIES_VARIABLE = "HMODEL_TEST_TABLE_COPIES"

#: The pool's own backends wait this long for a call (a truncation on a loaded machine).
_POOL_TIMEOUT_MS = 120_000


def _pool(
    open_raw: Callable[[str], Backend],
    prefix: str,
    open_warm: Callable[[str], Backend] | None = None,
) -> Iterator[TablePool]:
    from hmodel.testing.table_reuse import TablePool

    text = os.environ.get(COPIES_VARIABLE, "5")
    if not text.isdigit() or int(text) < 1:
        raise pytest.UsageError(f"{COPIES_VARIABLE} must be a whole number >= 1, not {text!r}")
    pool = TablePool(open_raw, prefix, open_warm=open_warm, copies=int(text))
    try:
        yield pool
    finally:
        pool.close()


def _same_cluster(thrift1: tuple[str, int], thrift2: tuple[str, int], prefix: str) -> bool:
    """Whether a table created through the Thrift2 server is seen by the Thrift1 one."""
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend
    from hmodel.schema import Family, Table

    probe = f"{prefix}-probe"
    with Thrift2Backend(*thrift2, table_prefix=probe, timeout_ms=_POOL_TIMEOUT_MS) as admin:
        if admin.table_exists("t"):
            admin.delete_table("t")
        admin.create_table(Table("t", [Family("f")]))
        try:
            with ThriftBackend(*thrift1, table_prefix=probe) as thrift1_backend:
                return thrift1_backend.table_exists("t")
        finally:
            admin.delete_table("t")


@pytest.fixture(scope="session")
def hmodel_real_hbase_pool(
    request: pytest.FixtureRequest, hmodel_real_hbase_address: tuple[str, int]
) -> Iterator[TablePool]:
    """The tables the ``hbase`` target keeps between tests (see ``TablePool``).

    The pool empties tables through a Thrift2 server (``truncateTable``) when it has one
    on the same cluster: the session's own HBase, or ``HMODEL_TEST_HBASE2`` when a probe
    table created through it shows on ``HMODEL_TEST_HBASE``; else by drop and create.
    """
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.backend.thrift2 import Thrift2Backend
    from hmodel.testing.hbase_container import ADDRESS_VARIABLE, parse_address
    from hmodel.testing.kit import real_prefix

    prefix = real_prefix("hbase")
    thrift2: tuple[str, int] | None = None
    if not os.environ.get(ADDRESS_VARIABLE) and _process_wanted():
        thrift2 = request.getfixturevalue("hmodel_hbase_process").thrift2_address
    elif os.environ.get("HMODEL_TEST_HBASE2"):
        given = parse_address(os.environ["HMODEL_TEST_HBASE2"])
        if _same_cluster(hmodel_real_hbase_address, given, prefix):
            thrift2 = given

    def open_thrift1(table_prefix: str) -> Backend:
        return ThriftBackend(
            *hmodel_real_hbase_address, table_prefix=table_prefix, timeout_ms=_POOL_TIMEOUT_MS
        )

    if thrift2 is None:
        yield from _pool(open_thrift1, prefix)
        return

    def open_thrift2(table_prefix: str) -> Backend:
        return Thrift2Backend(*thrift2, table_prefix=table_prefix, timeout_ms=_POOL_TIMEOUT_MS)

    yield from _pool(open_thrift2, prefix, open_warm=open_thrift1)


@pytest.fixture(scope="session")
def hmodel_real_hbase2_pool(hmodel_real_hbase2_address: tuple[str, int]) -> Iterator[TablePool]:
    """The tables the ``hbase2`` target keeps between tests (see ``TablePool``)."""
    from hmodel.backend.thrift2 import Thrift2Backend
    from hmodel.testing.kit import real_prefix

    def open_raw(table_prefix: str) -> Backend:
        return Thrift2Backend(
            *hmodel_real_hbase2_address, table_prefix=table_prefix, timeout_ms=_POOL_TIMEOUT_MS
        )

    yield from _pool(open_raw, real_prefix("hbase2"))


@pytest.fixture
def hmodel_clock() -> ManualClock:
    """A :class:`~hmodel.clock.ManualClock` for repositories and stores under test.

    It moves only when told (``advance``/``set``), so write stamps, TTLs and leases are
    deterministic; the backends keep their own clocks (the fake servers the system's).
    """
    from hmodel.clock import ManualClock

    return ManualClock()


@pytest.fixture
def hmodel_backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """One clean backend per target: each test using it runs once per target.

    Targets (see :mod:`hmodel.testing.kit`): ``memory``; ``thrift`` and ``thrift2``,
    HBase's two Thrift APIs against the session's fake server; ``hbase`` and ``hbase2``,
    a real cluster (skipped with the reason unless ``HMODEL_TEST_HBASE`` /
    ``HMODEL_TEST_HBASE2`` is set or, for Thrift1, a Docker engine runs). A test marked
    ``@pytest.mark.transports`` also runs on ``thrift-tls``, ``thrift-http``,
    ``thrift-https`` and their ``thrift2`` forms (the fake servers over TLS, HTTP and
    HTTPS), and with ``transports(real=True)`` on ``hbase-http``, ``hbase-https``,
    ``hbase2-http`` and ``hbase2-https`` (the real cluster's Thrift servers in HTTP
    mode). A test marked ``@pytest.mark.async_edge`` also runs on the ``-async`` form of
    each fake target it runs on (``memory-async``, ``thrift2-https-async``: the same
    server through the asyncio backend, see
    :class:`~hmodel.testing.async_edge.AsyncEdgeBackend`). Choose with
    ``HMODEL_TARGETS=memory,thrift2-https,hbase2-async``. A test marked
    ``@pytest.mark.requires("cap")`` is skipped, with the reason, on targets whose
    backend lacks the capability.
    """
    target = str(request.param)
    if split_target(target)[1] in ("tls", "https") and not target.startswith("hbase"):
        request.getfixturevalue("_hmodel_openssl")
    wanted = {c for mark in request.node.iter_markers("requires") for c in mark.args}
    with open_target(target, request) as backend:
        missing = sorted(wanted - set(backend.capabilities))
        if missing:
            pytest.skip(f"{type(backend).__name__} ({target}) lacks {', '.join(missing)}")
        yield backend


#: The ``user_properties`` key under which each test records its target.
TARGET_PROPERTY = "hmodel_target"


def pytest_itemcollected(item: pytest.Item) -> None:
    """Record the kit target of a test run on one (for the per-target summary)."""
    callspec = getattr(item, "callspec", None)
    target = callspec.params.get("hmodel_backend") if callspec is not None else None
    if target is not None:
        item.user_properties.append((TARGET_PROPERTY, str(target)))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print one line per kit target: how many of its tests passed, failed, were skipped."""
    from hmodel.testing.kit import ALL_TARGETS as TARGETS

    counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for category, reports in terminalreporter.stats.items():
        for report in reports:
            target = dict(getattr(report, "user_properties", ())).get(TARGET_PROPERTY)
            when = getattr(report, "when", None)
            if target is None or when is None:
                continue
            if (
                when == "call"
                or (when == "setup" and report.outcome != "passed")
                or (when == "teardown" and report.outcome == "failed")
            ):
                counts[target][category or "other"] += 1
    if not counts:
        return
    terminalreporter.write_sep("-", "hmodel tests per target")
    for target in sorted(counts, key=lambda t: TARGETS.index(t) if t in TARGETS else 99):
        parts = ", ".join(f"{n} {what}" for what, n in sorted(counts[target].items()))
        terminalreporter.write_line(f"target {target}: {parts}")
