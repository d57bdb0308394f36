"""A real standalone HBase 2.x with its Thrift1 and Thrift2 servers, started from local jars."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from hmodel.errors import BackendError, ServerStartError

__all__ = [
    "HBASE_HOME_VARIABLE",
    "HBASE_VERSION",
    "JVM_FLAGS",
    "MARKER",
    "ROLES",
    "TRANSPORTS",
    "HBaseProcess",
    "ThriftServers",
    "cache_dir",
    "classpath",
    "find_java",
    "find_keytool",
    "free_port",
    "make_keystore",
    "run_dir",
    "running_pids",
    "stop_stale",
    "stop_state",
    "wait_for_thrift",
    "wait_for_thrift2",
]

#: The HBase release the kit runs: 2.6 is the line whose reference guide lists JDK 17 as
#: supported (2.5 only with caveats; 2.4 and older not at all), and 2.6.1 is the newest 2.6
#: release the package registry serves. Its default artifacts are built on Hadoop 2.10 (the
#: ``-hadoop3`` flavour of 2.6.1 is not published there); standalone mode uses only Hadoop's
#: local filesystem, which runs on Java 17 with :data:`JVM_FLAGS`.
HBASE_VERSION = "2.6.1"
#: An unpacked HBase distribution to take the jars from (its ``lib/``) instead of Maven.
HBASE_HOME_VARIABLE = "HBASE_HOME"
#: log4j2 for the JVMs: HBase 2.5+ logs through log4j2, which the server artifacts leave out.
LOG4J_VERSION = "2.17.2"
#: The flags HBase's ``bin/hbase`` adds on JDK 17 (its netty and Hadoop reach into the JDK).
JVM_FLAGS = (
    "-XX:+IgnoreUnrecognizedVMOptions",
    "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
    "--add-modules=jdk.unsupported",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
    "--add-exports=java.base/sun.net.dns=ALL-UNNAMED",
    "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
    "-Dzookeeper.admin.enableServer=false",
    "-Djava.net.preferIPv4Stack=true",
)
#: Every JVM the kit starts carries ``-D{MARKER}=<run id>``, so a stale one is recognised.
MARKER = "hmodel.hbase.run"
#: The three processes of one run, in start order.
ROLES = ("master", "thrift", "thrift2")
_MAIN_CLASSES = {
    "master": "org.apache.hadoop.hbase.master.HMaster",
    "thrift": "org.apache.hadoop.hbase.thrift.ThriftServer",
    "thrift2": "org.apache.hadoop.hbase.thrift2.ThriftServer",
}
#: Jars a Maven resolution brings that must not be on the servers' classpath: other logging
#: bindings, and Hadoop 2's servlet 2.5 API and Jetty 6, which break HBase's Jetty 9.
_EXCLUDED_ARTIFACTS = "slf4j-reload4j,slf4j-log4j12,reload4j,log4j,servlet-api,jetty,jetty-util"
_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>hmodel.testing</groupId>
  <artifactId>hbase-runtime</artifactId>
  <version>{version}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.hbase</groupId><artifactId>hbase-server</artifactId>
      <version>{version}</version></dependency>
    <dependency><groupId>org.apache.hbase</groupId><artifactId>hbase-thrift</artifactId>
      <version>{version}</version></dependency>
    <dependency><groupId>org.apache.hbase</groupId><artifactId>hbase-zookeeper</artifactId>
      <version>{version}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId>
      <version>{log4j}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId><version>{log4j}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-1.2-api</artifactId><version>{log4j}</version></dependency>
  </dependencies>
</project>
"""
_LOG4J2 = """status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:hmodel.log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger = INFO,file
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = WARN
"""


def cache_dir(version: str = HBASE_VERSION) -> Path:
    """Where the resolved jars of ``version`` live: ``$XDG_CACHE_HOME/hmodel/hbase-<version>``.

    ``~/.cache`` when ``XDG_CACHE_HOME`` is unset.
    """
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "hmodel" / f"hbase-{version}"


def run_dir() -> Path:
    """Where the state files of running processes live (``<cache>/hmodel/run``)."""
    return cache_dir().parent / "run"


def find_java() -> str | None:
    """The ``java`` to run: ``$JAVA_HOME/bin/java`` if it exists, else ``java`` on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` right now (the OS's pick for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])


def _distribution_jars(home: Path) -> list[Path]:
    """The jars ``bin/hbase`` puts on a server's classpath, from an unpacked distribution."""
    lib = home / "lib"
    if not lib.is_dir():
        raise ServerStartError(f"{HBASE_HOME_VARIABLE} has no lib/ directory", value=str(home))
    jars = sorted(lib.glob("*.jar"))
    for extra in ("client-facing-thirdparty", "jdk11"):
        jars += sorted(
            jar
            for jar in (lib / extra).glob("*.jar")
            if not jar.name.startswith(("slf4j-log4j", "htrace-core-3"))
        )
    return jars


def classpath(
    *,
    version: str = HBASE_VERSION,
    hbase_home: str | Path | None = None,
    mvn: str | None = None,
    cache: Path | None = None,
) -> list[Path]:
    """The jars of a standalone HBase with its Thrift servers.

    From ``hbase_home`` (default: ``$HBASE_HOME``) when given: its ``lib/`` as
    ``bin/hbase`` uses it. Otherwise Maven resolves ``hbase-server``, ``hbase-thrift`` and
    ``hbase-zookeeper`` of ``version`` with their runtime dependencies, once, into
    ``cache`` (default :func:`cache_dir`), with ``mvn -q dependency:copy-dependencies``;
    later calls reuse the jars there (a ``.complete`` file marks a finished resolution).

    Raises:
        ServerStartError: No distribution and no ``mvn``, or Maven failed (its output's
            tail quoted).
    """
    home = hbase_home if hbase_home is not None else os.environ.get(HBASE_HOME_VARIABLE)
    if home:
        return _distribution_jars(Path(home))
    target = cache if cache is not None else cache_dir(version)
    lib = target / "lib"
    done = target / ".complete"
    if not done.is_file():
        maven = shutil.which(mvn or "mvn")
        if maven is None:
            raise ServerStartError(
                f"neither {HBASE_HOME_VARIABLE} nor Maven (mvn) is available to get the "
                f"HBase {version} jars: install maven or unpack an HBase distribution"
            )
        target.mkdir(parents=True, exist_ok=True)
        (target / "pom.xml").write_text(_POM.format(version=version, log4j=LOG4J_VERSION))
        shutil.rmtree(lib, ignore_errors=True)
        command = [
            maven,
            "-B",
            "-q",
            "-f",
            str(target / "pom.xml"),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={lib}",
            "-DincludeScope=runtime",
            f"-DexcludeArtifactIds={_EXCLUDED_ARTIFACTS}",
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            output = "\n".join((result.stdout + result.stderr).splitlines()[-30:])
            raise ServerStartError(
                f"Maven could not resolve HBase {version} (exit {result.returncode}):\n{output}"
            )
        done.write_text(version + "\n")
    return sorted(lib.glob("*.jar"))


def wait_for_thrift(
    host: str,
    port: int,
    *,
    timeout_s: float = 180.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    alive: Callable[[], None] = lambda: None,
) -> None:
    """Wait until an HBase Thrift1 server at ``host:port`` answers ``getTableNames``.

    HBase's Thrift server accepts connections before the master is up, so a listening
    port is not enough: a request must succeed. ``alive`` is called between tries and
    may raise to stop waiting (a process died).

    Raises:
        BackendError: No answer within ``timeout_s`` (the last error as cause).
    """
    from hmodel.backend.thrift import ThriftBackend

    _wait_for(ThriftBackend, "Thrift", host, port, timeout_s, sleep, clock, alive)


def wait_for_thrift2(
    host: str,
    port: int,
    *,
    timeout_s: float = 180.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    alive: Callable[[], None] = lambda: None,
) -> None:
    """Wait until an HBase Thrift2 server at ``host:port`` answers a table listing.

    ``alive`` is called between tries and may raise to stop waiting (a process died).

    Raises:
        BackendError: No answer within ``timeout_s`` (the last error as cause).
    """
    from hmodel.backend.thrift2 import Thrift2Backend

    _wait_for(Thrift2Backend, "Thrift2", host, port, timeout_s, sleep, clock, alive)


def _wait_for(  # noqa: PLR0917  # the two waits' own arguments, passed on as they are
    backend_class: Any,
    name: str,
    host: str,
    port: int,
    timeout_s: float,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
    alive: Callable[[], None],
) -> None:
    deadline = clock() + timeout_s
    while True:
        try:
            with backend_class(host, port, timeout_ms=5_000, retries=0) as backend:
                backend.list_tables()
            return
        except BackendError as exc:
            if clock() >= deadline:
                raise BackendError(
                    f"HBase {name} server at {host}:{port} did not answer in {timeout_s:g} s"
                ) from exc
            alive()
            sleep(1.0)


def _site(properties: dict[str, str]) -> str:
    rows = "\n".join(
        f"  <property><name>{name}</name><value>{value}</value></property>"
        for name, value in properties.items()
    )
    return f'<?xml version="1.0"?>\n<configuration>\n{rows}\n</configuration>\n'


def _die_with_parent() -> None:  # pragma: no cover -- runs in the forked child
    """Ask Linux to SIGKILL this child when the process that started it dies."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _is_ours(pid: int, run_id: str) -> bool:
    """Whether ``pid`` is alive and is a JVM of run ``run_id`` (not a recycled pid)."""
    if not Path("/proc/self").exists():  # no procfs to read a command line from
        return _pid_alive(pid)
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return f"-D{MARKER}={run_id}".encode() in cmdline


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _stop_pids(pids: Sequence[int], run_id: str, grace_s: float) -> None:
    """SIGTERM each process group of ``pids`` that is still ours, then SIGKILL stragglers."""
    ours = [pid for pid in pids if _is_ours(pid, run_id)]
    for pid in ours:
        _kill_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while ours and time.monotonic() < deadline:
        ours = [pid for pid in ours if _is_ours(pid, run_id)]
        if ours:
            time.sleep(0.2)
    for pid in ours:
        _kill_group(pid, signal.SIGKILL)


def stop_stale(directory: Path | None = None) -> list[str]:
    """Stop the processes of runs whose owner died without stopping them; return their ids.

    A run started with ``detached=False`` records its owner (the Python process) in its
    state file under ``directory`` (default :func:`run_dir`); when that owner is gone, its
    JVMs (recognised by their ``-Dhmodel.hbase.run=<id>`` flag, never by name) are
    killed and its data directory removed. Detached runs (``hmodel hbase start``) are
    left alone: ``hmodel hbase stop`` ends them.
    """
    stale = []
    for path in sorted((directory or run_dir()).glob("*.json")):
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        owner = state.get("owner")
        if owner is None or _pid_alive(int(owner)):
            continue
        _stop_pids([int(p) for p in state.get("pids", {}).values()], state["run_id"], 2.0)
        shutil.rmtree(state.get("work_dir", ""), ignore_errors=True)
        path.unlink(missing_ok=True)
        stale.append(str(state["run_id"]))
    return stale


@attrs.define
class _Child:
    role: str
    process: subprocess.Popen[bytes]
    log: Path


class HBaseProcess:
    """A standalone HBase 2.x and its Thrift1 and Thrift2 servers, on free loopback ports.

    The process fixture of the test kit, after pytest-postgresql's: :meth:`start` resolves
    the jars (:func:`classpath`), writes an ``hbase-site.xml`` into a fresh temporary
    directory, and starts three JVMs, each in its own process group: the HMaster in
    standalone mode (``hbase.cluster.distributed=false``: one JVM holding the master, an
    embedded ZooKeeper and one region server, data on the local filesystem under the
    temporary directory), then ``org.apache.hadoop.hbase.thrift.ThriftServer`` (Thrift1)
    and ``org.apache.hadoop.hbase.thrift2.ThriftServer`` (Thrift2), both with HBase's
    defaults, which are hmodel's backends' defaults: the thread-pool server, buffered
    transport, binary protocol. ZooKeeper's client port and the two Thrift ports are
    picked free; the master and region server RPC ports are the OS's pick
    (``hbase.localcluster.assign.random.ports``); the info (web UI) servers and
    ZooKeeper's admin server are off. It returns once both Thrift servers answer a
    table listing (the master is up).

    :meth:`stop` (also at interpreter exit) ends exactly the process groups it started,
    SIGTERM then SIGKILL after ``grace_s``, and removes the temporary directory. Unless
    ``detached``, each JVM is SIGKILLed by Linux when the starting process dies
    (``PR_SET_PDEATHSIG``), and a state file lets the next :meth:`start` clean a run whose
    owner crashed (:func:`stop_stale`), so a crashed test run leaves nothing listening.

    Args:
        version: The HBase version Maven resolves (ignored with ``hbase_home``).
        hbase_home: An unpacked HBase distribution (default ``$HBASE_HOME``); else Maven.
        java: The ``java`` executable (default :func:`find_java`).
        host: The loopback address every server binds.
        master_heap_mb: ``-Xmx`` of the master JVM (master, ZooKeeper, region server).
        thrift_heap_mb: ``-Xmx`` of each Thrift server JVM.
        start_timeout_s: How long :meth:`start` waits for both Thrift servers.
        grace_s: How long :meth:`stop` waits after SIGTERM before SIGKILL.
        detached: Keep running after the starting process exits (``hmodel hbase start``).
        base_dir: Where the temporary data directory is made (default: the system's).
        settings: Extra ``hbase-site.xml`` properties for all three processes.
    """

    def __init__(
        self,
        *,
        version: str = HBASE_VERSION,
        hbase_home: str | Path | None = None,
        java: str | None = None,
        host: str = "127.0.0.1",
        master_heap_mb: int = 1024,
        thrift_heap_mb: int = 384,
        start_timeout_s: float = 240.0,
        grace_s: float = 3.0,
        detached: bool = False,
        base_dir: str | Path | None = None,
        settings: dict[str, str] | None = None,
    ) -> None:
        self.version = version
        self.hbase_home = hbase_home
        self.java = java
        self.host = host
        self.master_heap_mb = master_heap_mb
        self.thrift_heap_mb = thrift_heap_mb
        self.start_timeout_s = start_timeout_s
        self.grace_s = grace_s
        self.detached = detached
        self.base_dir = base_dir
        self.settings = dict(settings or {})
        self.run_id = uuid.uuid4().hex[:12]
        self.work_dir: Path | None = None
        self.zookeeper_port = 0
        self.thrift_port = 0
        self.thrift2_port = 0
        #: Seconds each phase of the last :meth:`start` took: ``classpath``, ``servers``.
        self.timings: dict[str, float] = {}
        self._children: list[_Child] = []
        self._state_file: Path | None = None

    # --- addresses ----------------------------------------------------------------------

    @property
    def thrift_address(self) -> tuple[str, int]:
        """``(host, port)`` of the Thrift1 server (``HMODEL_TEST_HBASE``)."""
        return self.host, self.thrift_port

    @property
    def thrift2_address(self) -> tuple[str, int]:
        """``(host, port)`` of the Thrift2 server (``HMODEL_TEST_HBASE2``)."""
        return self.host, self.thrift2_port

    @property
    def pids(self) -> dict[str, int]:
        """The pid (= process group id) of each started JVM, by role."""
        return {child.role: child.process.pid for child in self._children}

    @property
    def running(self) -> bool:
        """Whether all three JVMs are alive."""
        return len(self._children) == len(ROLES) and all(
            child.process.poll() is None for child in self._children
        )

    def state(self) -> dict[str, Any]:
        """What ``hmodel hbase status``/``stop`` need to find this run again (JSON-able)."""
        return {
            "run_id": self.run_id,
            "version": self.version,
            "host": self.host,
            "thrift_port": self.thrift_port,
            "thrift2_port": self.thrift2_port,
            "zookeeper_port": self.zookeeper_port,
            "work_dir": str(self.work_dir),
            "pids": self.pids,
            "owner": None if self.detached else os.getpid(),
        }

    # --- start / stop ---------------------------------------------------------------------

    def start(self) -> HBaseProcess:
        """Start the three JVMs and wait until both Thrift servers answer; return ``self``.

        Raises:
            ServerStartError: No ``java``; the jars cannot be had; a JVM exited, or the
                servers did not answer within ``start_timeout_s`` (the log's tail quoted).
                Whatever was started is stopped first.
        """
        if self._children:
            return self
        java = self.java or find_java()
        if java is None:
            raise ServerStartError("no java: install a JDK 17 or set JAVA_HOME")
        stop_stale()
        began = time.monotonic()
        jars = classpath(version=self.version, hbase_home=self.hbase_home)
        self.timings["classpath"] = time.monotonic() - began
        began = time.monotonic()
        self.work_dir = Path(tempfile.mkdtemp(prefix="hmodel-hbase-", dir=self.base_dir))
        try:
            self._launch(java, jars)
            self._wait()
        except BaseException:
            self.stop()
            raise
        self.timings["servers"] = time.monotonic() - began
        if not self.detached:
            atexit.register(self.stop)
        return self

    def _configure(self) -> Path:
        assert self.work_dir is not None
        conf = self.work_dir / "conf"
        for sub in ("conf", "logs", "root", "tmp", "zookeeper"):
            (self.work_dir / sub).mkdir(exist_ok=True)
        self.zookeeper_port = free_port(self.host)
        self.thrift_port = free_port(self.host)
        self.thrift2_port = free_port(self.host)
        properties = {
            "hbase.cluster.distributed": "false",
            "hbase.rootdir": (self.work_dir / "root").as_uri(),
            "hbase.tmp.dir": str(self.work_dir / "tmp"),
            "hbase.zookeeper.quorum": self.host,
            "hbase.zookeeper.property.clientPort": str(self.zookeeper_port),
            "hbase.zookeeper.property.dataDir": str(self.work_dir / "zookeeper"),
            "hbase.localcluster.assign.random.ports": "true",
            "hbase.master.ipc.address": self.host,
            "hbase.regionserver.ipc.address": self.host,
            "hbase.master.info.port": "-1",
            "hbase.regionserver.info.port": "-1",
            "hbase.thrift.info.port": "-1",
            # The local filesystem has no hflush/hsync: HBase's own standalone default.
            "hbase.unsafe.stream.capability.enforce": "false",
            # A test cluster holds hundreds of small tables: with MSLAB on, every written
            # family of every region pins a 2 MiB heap chunk. (A 768 MiB master ran out of
            # heap under three concurrent test runs; the default heap is now 1 GiB.)
            "hbase.hregion.memstore.mslab.enabled": "false",
            **self.settings,
        }
        (conf / "hbase-site.xml").write_text(_site(properties))
        (conf / "log4j2.properties").write_text(_LOG4J2)
        return conf

    def _launch(self, java: str, jars: Sequence[Path]) -> None:
        assert self.work_dir is not None
        conf = self._configure()
        cp = os.pathsep.join([str(conf), *map(str, jars)])
        ports = {"thrift": self.thrift_port, "thrift2": self.thrift2_port}
        for role in ROLES:
            heap = self.master_heap_mb if role == "master" else self.thrift_heap_mb
            log = self.work_dir / "logs" / f"{role}.log"
            args = ["start"]
            if role != "master":
                args = ["-b", self.host, "-p", str(ports[role]), "start"]
            command = [
                java,
                f"-Xmx{heap}m",
                f"-D{MARKER}={self.run_id}",
                *JVM_FLAGS,
                f"-Dlog4j2.configurationFile={conf / 'log4j2.properties'}",
                f"-Dhmodel.log.file={log}",
                "-cp",
                cp,
                _MAIN_CLASSES[role],
                *args,
            ]
            with (self.work_dir / "logs" / f"{role}.out").open("wb") as out:
                process = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    cwd=self.work_dir,
                    start_new_session=True,
                    preexec_fn=None if self.detached else _die_with_parent,  # noqa: PLW1509
                )
            self._children.append(_Child(role, process, log))
            self._write_state()

    def _write_state(self) -> None:
        directory = run_dir()
        directory.mkdir(parents=True, exist_ok=True)
        self._state_file = directory / f"{self.run_id}.json"
        self._state_file.write_text(json.dumps(self.state(), indent=2))

    def _check_alive(self) -> None:
        for child in self._children:
            code = child.process.poll()
            if code is not None:
                raise ServerStartError(
                    f"the HBase {child.role} JVM exited with status {code} while starting; "
                    f"the end of {child.log}:\n{_tail(child.log)}\n"
                    f"{_tail(child.log.with_suffix('.out'), 10)}"
                )

    def _wait(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s

        def alive_sleep(seconds: float) -> None:
            self._check_alive()
            time.sleep(seconds)

        try:
            wait_for_thrift(
                self.host, self.thrift_port, timeout_s=self.start_timeout_s, sleep=alive_sleep
            )
            left = max(1.0, deadline - time.monotonic())
            wait_for_thrift2(self.host, self.thrift2_port, timeout_s=left, sleep=alive_sleep)
        except BackendError as exc:
            if isinstance(exc, ServerStartError):
                raise
            assert self.work_dir is not None
            logs = self.work_dir / "logs"
            raise ServerStartError(
                f"HBase did not answer in {self.start_timeout_s:g} s ({exc}); the end of "
                f"{logs / 'master.log'}:\n{_tail(logs / 'master.log')}"
            ) from exc
        self._warm_up(max(10.0, deadline - time.monotonic()))

    def _warm_up(self, timeout_s: float) -> None:
        """Create, write and drop one table, with a timeout of ``timeout_s``.

        A fresh master's first create takes seconds (namespace and meta work), more than a
        client's default timeout on a loaded 2-core machine.
        """
        from hmodel.backend.base import Put
        from hmodel.backend.thrift2 import Thrift2Backend
        from hmodel.schema.family import Family
        from hmodel.schema.table import Table

        timeout_ms = int(timeout_s * 1000)
        with Thrift2Backend(*self.thrift2_address, timeout_ms=timeout_ms) as backend:
            backend.create_table(Table("hmodel_warm_up", [Family("f")]))
            backend.mutate("hmodel_warm_up", [Put(b"r", b"f:q", b"v")])
            backend.delete_table("hmodel_warm_up")

    def stop(self) -> None:
        """Stop the JVMs this object started and remove its temporary directory.

        Idempotent. Only the process groups started here are signalled (SIGTERM, then
        SIGKILL after ``grace_s``); the data directory goes with them.
        """
        children, self._children = self._children, []
        alive = [c.process.pid for c in children if c.process.poll() is None]
        _stop_pids(alive, self.run_id, self.grace_s)
        for child in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=self.grace_s)
        if self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)
        if self._state_file is not None:
            self._state_file.unlink(missing_ok=True)
            self._state_file = None
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)

    def __enter__(self) -> HBaseProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def stop_state(state: dict[str, Any], grace_s: float = 5.0) -> None:
    """Stop the run a state file describes (``hmodel hbase stop``): its JVMs and its data."""
    _stop_pids([int(p) for p in state.get("pids", {}).values()], str(state["run_id"]), grace_s)
    work_dir = state.get("work_dir")
    if work_dir:
        shutil.rmtree(work_dir, ignore_errors=True)
    (run_dir() / f"{state['run_id']}.json").unlink(missing_ok=True)


def running_pids(state: dict[str, Any]) -> dict[str, int]:
    """The JVMs of a state file's run that are still alive, by role."""
    run_id = str(state["run_id"])
    return {
        role: int(pid) for role, pid in state.get("pids", {}).items() if _is_ours(int(pid), run_id)
    }


#: The transports :class:`ThriftServers` serves: HBase's Thrift HTTP mode, without and with
#: TLS (HBase serves TLS in that mode only).
TRANSPORTS = ("http", "https")


def find_keytool(java: str | None = None) -> str | None:
    """The JDK's ``keytool``: beside ``java`` (default :func:`find_java`), else on PATH."""
    java = java or find_java()
    if java is not None:
        beside = Path(java).resolve().parent / "keytool"
        if beside.is_file():
            return str(beside)
    return shutil.which("keytool")


def make_keystore(
    directory: Path, *, hosts: Sequence[str], keytool: str | None = None
) -> tuple[Path, Path, str]:
    """A PKCS12 keystore with a self-signed P-256 certificate for ``hosts``, by ``keytool``.

    Returns ``(keystore, certificate PEM, password)``: the keystore for the server's
    ``hbase.thrift.ssl.keystore.store``, the certificate for the client's
    ``TLS(ca_file=...)``. Valid for 2 days, trusted by nothing else.

    Raises:
        ServerStartError: No ``keytool``, or it failed (its output quoted).
    """
    tool = keytool or find_keytool()
    if tool is None:
        raise ServerStartError("no keytool (it comes with the JDK) to make the test keystore")
    password = uuid.uuid4().hex
    keystore = directory / "keystore.p12"
    certificate = directory / "ca.pem"
    names = ",".join(
        f"ip:{host}" if host.replace(".", "").isdigit() or ":" in host else f"dns:{host}"
        for host in hosts
    )
    for args in (
        ["-genkeypair", "-alias", "hmodel", "-keyalg", "EC", "-groupname", "secp256r1",
         "-dname", "CN=localhost", "-ext", f"SAN={names}", "-validity", "2",
         "-keystore", str(keystore), "-storetype", "PKCS12",
         "-storepass", password, "-keypass", password],
        ["-exportcert", "-alias", "hmodel", "-keystore", str(keystore),
         "-storepass", password, "-rfc", "-file", str(certificate)],
    ):  # fmt: skip
        result = subprocess.run([tool, *args], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise ServerStartError(
                f"keytool {args[0]} failed (exit {result.returncode}): "
                f"{(result.stdout + result.stderr).strip()[-400:]}"
            )
    return keystore, certificate, password


class ThriftServers:
    """Extra HBase Thrift servers in HTTP mode, attached to a running HBase's ZooKeeper.

    HBase's Thrift1 and Thrift2 servers serve Thrift over HTTP with
    ``hbase.regionserver.thrift.http=true`` (a Jetty servlet answering a ``POST`` at any
    path, binary protocol) and HTTPS with ``hbase.thrift.ssl.enabled=true`` and a
    keystore (``hbase.thrift.ssl.keystore.store``, ``.password``, ``.keypassword``,
    ``.type``); their socket mode has no TLS. Each :meth:`address` starts the asked
    server the first time (one JVM per role and transport, ``-Xmx`` ``heap_mb``, on a
    free loopback port), with its own ``hbase-site.xml`` naming the cluster's ZooKeeper,
    and waits until it answers a table listing. For ``https`` a self-signed certificate
    for the host is made with ``keytool`` into the run's temporary directory; clients
    trust it through :attr:`ca_file`.

    :meth:`stop` (also at interpreter exit) ends exactly the JVMs started here; each dies
    with the starting process (``PR_SET_PDEATHSIG``) and a state file lets
    :func:`stop_stale` clean a crashed run, as for :class:`HBaseProcess`.

    Args:
        zookeeper: ``(host, port)`` of the cluster's ZooKeeper (an
            :class:`HBaseProcess`'s ``host`` and ``zookeeper_port``).
        version: The HBase version of the jars (see :func:`classpath`).
        hbase_home: An unpacked distribution instead of Maven's jars.
        java: The ``java`` executable (default :func:`find_java`).
        host: The loopback address the servers bind.
        heap_mb: ``-Xmx`` of each server JVM.
        start_timeout_s: How long one server may take to answer.
        grace_s: How long :meth:`stop` waits after SIGTERM before SIGKILL.
        base_dir: Where the temporary directory is made (default: the system's).
    """

    def __init__(
        self,
        zookeeper: tuple[str, int],
        *,
        version: str = HBASE_VERSION,
        hbase_home: str | Path | None = None,
        java: str | None = None,
        host: str = "127.0.0.1",
        heap_mb: int = 192,
        start_timeout_s: float = 120.0,
        grace_s: float = 3.0,
        base_dir: str | Path | None = None,
    ) -> None:
        self.zookeeper = zookeeper
        self.version = version
        self.hbase_home = hbase_home
        self.java = java
        self.host = host
        self.heap_mb = heap_mb
        self.start_timeout_s = start_timeout_s
        self.grace_s = grace_s
        self.base_dir = base_dir
        self.run_id = uuid.uuid4().hex[:12]
        self.work_dir: Path | None = None
        #: The certificate clients trust for ``https`` (set once an HTTPS server started).
        self.ca_file: Path | None = None
        #: Seconds each server took to start and answer, by ``"role/transport"``.
        self.timings: dict[str, float] = {}
        self._keystore: tuple[Path, str] | None = None
        self._children: dict[tuple[str, str], _Child] = {}
        self._ports: dict[tuple[str, str], int] = {}
        self._jars: list[Path] | None = None
        self._state_file: Path | None = None

    def url(self, role: str, transport: str) -> str:
        """The URL of a server (started if needed), e.g. ``https://127.0.0.1:40123/``."""
        host, port = self.address(role, transport)
        return f"{transport}://{host}:{port}/"

    def client_options(self, transport: str) -> dict[str, Any]:
        """The backend keyword arguments that reach a server of ``transport``."""
        from hmodel.backend.endpoint import TLS

        options: dict[str, Any] = {"http": True}
        if transport == "https":
            assert self.ca_file is not None, "start an https server first"
            options["tls"] = TLS(ca_file=self.ca_file)
        return options

    def address(self, role: str, transport: str) -> tuple[str, int]:
        """``(host, port)`` of the ``role`` server (``thrift``/``thrift2``) over ``transport``.

        Started (:meth:`start`), and waited for, the first time it is asked.

        Raises:
            ServerStartError: See :meth:`start`.
            IllegalArgumentError: An unknown role or transport.
        """
        self.start((role, transport))
        return self.host, self._ports[(role, transport)]

    def start(self, *servers: tuple[str, str]) -> ThriftServers:
        """Start the ``(role, transport)`` servers not running yet, together; wait for all.

        Raises:
            ServerStartError: No ``java`` or ``keytool``, or a JVM exited or did not
                answer (its log's tail quoted); what was started stays for :meth:`stop`.
            IllegalArgumentError: An unknown role or transport.
        """
        from hmodel.errors import IllegalArgumentError

        for role, transport in servers:
            if role not in ("thrift", "thrift2") or transport not in TRANSPORTS:
                raise IllegalArgumentError(
                    f"a Thrift server is thrift or thrift2 over {' or '.join(TRANSPORTS)}",
                    value=(role, transport),
                )
        missing = [key for key in dict.fromkeys(servers) if key not in self._ports]
        if not missing:
            return self
        java = self.java or find_java()
        if java is None:
            raise ServerStartError("no java: install a JDK 17 or set JAVA_HOME")
        began = time.monotonic()
        self._prepare()
        if any(transport == "https" for _, transport in missing) and self._keystore is None:
            assert self.work_dir is not None
            keystore, certificate, password = make_keystore(
                self.work_dir, hosts=(self.host, "localhost"), keytool=find_keytool(java)
            )
            self._keystore = (keystore, password)
            self.ca_file = certificate
        launched = [(key, *self._launch(java, *key)) for key in missing]
        self._write_state()
        for key, child, port in launched:
            self._wait(child, *key, port)
            self._ports[key] = port
            self.timings[f"{key[0]}/{key[1]}"] = time.monotonic() - began
        return self

    def _prepare(self) -> None:
        if self.work_dir is None:
            stop_stale()
            self.work_dir = Path(tempfile.mkdtemp(prefix="hmodel-thrift-", dir=self.base_dir))
            (self.work_dir / "logs").mkdir()
            self._jars = classpath(version=self.version, hbase_home=self.hbase_home)
            atexit.register(self.stop)

    def _launch(self, java: str, role: str, transport: str) -> tuple[_Child, int]:
        assert self.work_dir is not None and self._jars is not None
        name = f"{role}-{transport}"
        conf = self.work_dir / f"conf-{name}"
        conf.mkdir(exist_ok=True)
        zk_host, zk_port = self.zookeeper
        properties = {
            "hbase.zookeeper.quorum": zk_host,
            "hbase.zookeeper.property.clientPort": str(zk_port),
            "hbase.thrift.info.port": "-1",
            "hbase.regionserver.thrift.http": "true",
        }
        if transport == "https":
            assert self._keystore is not None
            keystore, password = self._keystore
            properties |= {
                "hbase.thrift.ssl.enabled": "true",
                "hbase.thrift.ssl.keystore.store": str(keystore),
                "hbase.thrift.ssl.keystore.password": password,
                "hbase.thrift.ssl.keystore.keypassword": password,
                "hbase.thrift.ssl.keystore.type": "pkcs12",
            }
        (conf / "hbase-site.xml").write_text(_site(properties))
        (conf / "log4j2.properties").write_text(_LOG4J2)
        port = free_port(self.host)
        log = self.work_dir / "logs" / f"{name}.log"
        command = [
            java,
            f"-Xmx{self.heap_mb}m",
            f"-D{MARKER}={self.run_id}",
            *JVM_FLAGS,
            f"-Dlog4j2.configurationFile={conf / 'log4j2.properties'}",
            f"-Dhmodel.log.file={log}",
            "-cp",
            os.pathsep.join([str(conf), *map(str, self._jars)]),
            _MAIN_CLASSES[role],
            "-b",
            self.host,
            "-p",
            str(port),
            "start",
        ]
        with log.with_suffix(".out").open("wb") as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.work_dir,
                start_new_session=True,
                preexec_fn=_die_with_parent,  # noqa: PLW1509
            )
        child = _Child(name, process, log)
        self._children[(role, transport)] = child
        return child, port

    def _wait(self, child: _Child, role: str, transport: str, port: int) -> None:
        from hmodel.backend.thrift import ThriftBackend
        from hmodel.backend.thrift2 import Thrift2Backend

        kind = ThriftBackend if role == "thrift" else Thrift2Backend
        url = f"{transport}://{self.host}:{port}/"
        options = self.client_options(transport)
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            code = child.process.poll()
            if code is not None:
                raise ServerStartError(
                    f"the HBase {child.role} JVM exited with status {code} while starting; "
                    f"the end of {child.log}:\n{_tail(child.log)}\n"
                    f"{_tail(child.log.with_suffix('.out'), 10)}"
                )
            try:
                with kind(self.host, port, timeout_ms=5_000, retries=0, **options) as backend:
                    backend.list_tables()
                return
            except BackendError as exc:
                if time.monotonic() >= deadline:
                    raise ServerStartError(
                        f"the HBase {child.role} server at {url} did not answer in "
                        f"{self.start_timeout_s:g} s ({exc}); the end of {child.log}:\n"
                        f"{_tail(child.log)}"
                    ) from exc
            time.sleep(0.5)

    def _write_state(self) -> None:
        directory = run_dir()
        directory.mkdir(parents=True, exist_ok=True)
        self._state_file = directory / f"{self.run_id}.json"
        state = {
            "run_id": self.run_id,
            "kind": "thrift-servers",
            "work_dir": str(self.work_dir),
            "pids": {child.role: child.process.pid for child in self._children.values()},
            "owner": os.getpid(),
        }
        self._state_file.write_text(json.dumps(state, indent=2))

    def stop(self) -> None:
        """Stop the JVMs started here and remove the temporary directory (idempotent)."""
        children, self._children = list(self._children.values()), {}
        self._ports.clear()
        alive = [c.process.pid for c in children if c.process.poll() is None]
        _stop_pids(alive, self.run_id, self.grace_s)
        for child in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=self.grace_s)
        if self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)
            self.work_dir = None
        if self._state_file is not None:
            self._state_file.unlink(missing_ok=True)
            self._state_file = None
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)

    def __enter__(self) -> ThriftServers:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
