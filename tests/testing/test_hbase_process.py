"""HBaseProcess: jars from HBASE_HOME or Maven, start failures quoted, stale runs cleaned."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hmodel.backend.thrift import ThriftBackend
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.errors import IllegalArgumentError, ServerStartError
from hmodel.schema import Family, Table
from hmodel.testing.hbase_process import (
    MARKER,
    HBaseProcess,
    ThriftServers,
    classpath,
    find_java,
    find_keytool,
    make_keystore,
    run_dir,
    running_pids,
    stop_stale,
)

_USER_CACHE = os.environ.get("XDG_CACHE_HOME")


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """State files and resolved jars under the test's own directory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("HBASE_HOME", raising=False)
    return tmp_path / "cache"


def _script(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def _distribution(tmp_path: Path) -> Path:
    home = tmp_path / "hbase-2.6.1"
    for sub in ("lib", "lib/client-facing-thirdparty", "lib/jdk11"):
        (home / sub).mkdir(parents=True)
    for jar in (
        "lib/hbase-server-2.6.1.jar",
        "lib/client-facing-thirdparty/log4j-core-2.17.2.jar",
        "lib/client-facing-thirdparty/slf4j-log4j12-1.7.jar",
        "lib/client-facing-thirdparty/htrace-core-3.1.jar",
        "lib/jdk11/jaxws-api-2.3.1.jar",
    ):
        (home / jar).write_bytes(b"")
    return home


def test_a_distribution_gives_its_lib_jars_as_bin_hbase_does(tmp_path: Path) -> None:
    names = [jar.name for jar in classpath(hbase_home=_distribution(tmp_path))]
    assert names == ["hbase-server-2.6.1.jar", "log4j-core-2.17.2.jar", "jaxws-api-2.3.1.jar"]


def test_the_hbase_home_variable_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HBASE_HOME", str(_distribution(tmp_path)))
    assert len(classpath()) == 3


def test_a_distribution_without_lib_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ServerStartError, match="HBASE_HOME has no lib/"):
        classpath(hbase_home=tmp_path)


def test_without_maven_or_a_distribution_the_error_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(ServerStartError, match="install maven"):
        classpath(mvn=str(tmp_path / "no-mvn"), cache=tmp_path / "jars")


def test_a_failed_resolution_quotes_maven_and_is_tried_again_next_time(tmp_path: Path) -> None:
    failing = _script(
        tmp_path / "mvn", 'echo "Could not resolve org.apache.hbase:hbase-server"\nexit 1'
    )
    with pytest.raises(ServerStartError, match="Could not resolve org") as raised:
        classpath(mvn=failing, cache=tmp_path / "jars")
    assert "exit 1" in str(raised.value)
    assert not (tmp_path / "jars" / ".complete").exists()


def test_maven_resolves_once_into_the_cache_and_is_reused(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    fake = _script(
        tmp_path / "mvn",
        f'echo run >> {calls}\nfor a in "$@"; do case $a in -DoutputDirectory=*) '
        'd="${a#-DoutputDirectory=}"; mkdir -p "$d"; : > "$d/hbase-server-2.6.1.jar";; esac; done',
    )
    cache = tmp_path / "jars"
    first = classpath(mvn=fake, cache=cache)
    second = classpath(mvn=fake, cache=cache)
    assert [jar.name for jar in first] == [jar.name for jar in second] == ["hbase-server-2.6.1.jar"]
    assert calls.read_text().count("run") == 1
    pom = (cache / "pom.xml").read_text()
    assert "<artifactId>hbase-thrift</artifactId>" in pom and "<version>2.6.1</version>" in pom


def test_without_java_start_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(ServerStartError, match="no java"):
        HBaseProcess(hbase_home=_distribution(tmp_path)).start()


def test_a_jvm_that_dies_at_start_fails_with_its_log_and_leaves_nothing(tmp_path: Path) -> None:
    java = _script(tmp_path / "java", 'echo "Error: Could not find or load main class"\nexit 3')
    process = HBaseProcess(java=java, hbase_home=_distribution(tmp_path), base_dir=tmp_path)
    with pytest.raises(ServerStartError, match="exited with status 3") as raised:
        process.start()
    assert "Could not find or load main class" in str(raised.value)
    assert not process.running
    assert process.work_dir is not None and not process.work_dir.exists()
    assert list(run_dir().glob("*.json")) == []


def test_extra_thrift_servers_that_die_at_start_fail_with_their_log_and_stop_clean(
    tmp_path: Path,
) -> None:
    java = _script(tmp_path / "java", 'echo "Error: keystore was tampered with"\nexit 4')
    servers = ThriftServers(
        ("127.0.0.1", 2181), java=java, hbase_home=_distribution(tmp_path), base_dir=tmp_path
    )
    with pytest.raises(ServerStartError, match="exited with status 4") as raised:
        servers.address("thrift2", "http")
    assert "keystore was tampered with" in str(raised.value)
    assert "thrift2-http" in str(raised.value)
    assert servers.work_dir is not None
    site = (servers.work_dir / "conf-thrift2-http" / "hbase-site.xml").read_text()
    assert "<name>hbase.regionserver.thrift.http</name><value>true</value>" in site
    assert "<name>hbase.zookeeper.property.clientPort</name><value>2181</value>" in site
    assert len(list(run_dir().glob("*.json"))) == 1  # the state file of the started JVM
    work_dir = servers.work_dir
    servers.stop()
    assert not work_dir.exists()
    assert list(run_dir().glob("*.json")) == []


@pytest.mark.parametrize(("role", "transport"), [("thrift3", "http"), ("thrift", "socket")])
def test_extra_thrift_servers_are_thrift_or_thrift2_over_http_or_https(
    role: str, transport: str
) -> None:
    with pytest.raises(IllegalArgumentError, match="thrift or thrift2 over http or https"):
        ThriftServers(("127.0.0.1", 2181)).start((role, transport))


@pytest.mark.skipif(find_keytool() is None, reason="no keytool (it comes with a JDK)")
def test_the_keystore_holds_a_certificate_for_the_hosts_that_python_trusts(tmp_path: Path) -> None:
    import ssl

    keystore, certificate, password = make_keystore(tmp_path, hosts=("127.0.0.1", "localhost"))
    assert keystore.stat().st_size > 0 and len(password) == 32
    context = ssl.create_default_context(cafile=str(certificate))  # loads: one PEM cert
    assert context.cert_store_stats()["x509"] == 1
    listing = subprocess.run(
        [str(find_keytool()), "-list", "-v", "-keystore", str(keystore), "-storepass", password],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "DNSName: localhost" in listing and "IPAddress: 127.0.0.1" in listing


def _sleeper(run_id: str) -> subprocess.Popen[bytes]:
    """A process carrying the kit's marker, as a started JVM would, in its own group."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", f"-D{MARKER}={run_id}"],
        start_new_session=True,
    )
    cmdline = Path(f"/proc/{process.pid}/cmdline")
    while MARKER.encode() not in cmdline.read_bytes():  # until the fork has exec'd
        pass
    return process


def test_a_run_whose_owner_died_is_stopped_by_the_next_start(tmp_path: Path) -> None:
    owner = subprocess.Popen([sys.executable, "-c", "pass"])
    owner.wait()  # a pid that no longer runs: the crashed test session
    orphan = _sleeper("deadbeef0001")
    bystander = _sleeper("someone-else")  # same pid list, other run id: never touched
    directory = run_dir()
    directory.mkdir(parents=True)
    state = {
        "run_id": "deadbeef0001",
        "owner": owner.pid,
        "work_dir": str(tmp_path / "data"),
        "pids": {"master": orphan.pid, "thrift": bystander.pid},
    }
    (tmp_path / "data").mkdir()
    (directory / "deadbeef0001.json").write_text(json.dumps(state))
    try:
        assert stop_stale() == ["deadbeef0001"]
        assert orphan.wait(timeout=30) in (-signal.SIGTERM, -signal.SIGKILL)
        assert bystander.poll() is None
        assert not (tmp_path / "data").exists()
        assert list(directory.glob("*.json")) == []
    finally:
        bystander.kill()
        bystander.wait()


def test_a_detached_run_and_a_live_owners_run_are_left_alone(tmp_path: Path) -> None:
    directory = run_dir()
    directory.mkdir(parents=True)
    for run_id, owner in (("detached0001", None), ("liveowner001", os.getpid())):
        state = {"run_id": run_id, "owner": owner, "work_dir": "", "pids": {}}
        (directory / f"{run_id}.json").write_text(json.dumps(state))
    assert stop_stale() == []
    assert len(list(directory.glob("*.json"))) == 2


def test_running_pids_counts_only_the_runs_own_processes() -> None:
    mine = _sleeper("runabc000001")
    try:
        state = {"run_id": "runabc000001", "pids": {"master": mine.pid, "thrift": os.getpid()}}
        assert running_pids(state) == {"master": mine.pid}
    finally:
        mine.kill()
        mine.wait()


def _listening(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex((host, port)) == 0


@pytest.mark.hbase
@pytest.mark.skipif(find_java() is None, reason="no java: the real-HBase process cannot start")
def test_a_real_hbase_serves_both_thrift_apis_and_stop_leaves_nothing_listening(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if _USER_CACHE is None:  # the jars are shared with the session's HBase: no new resolution
        monkeypatch.delenv("XDG_CACHE_HOME")
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", _USER_CACHE)
    process = HBaseProcess()
    process.start()
    try:
        assert process.running
        with Thrift2Backend(*process.thrift2_address, table_prefix="hmodel_proc") as admin:
            admin.create_table(Table("t", [Family("f")]))
        with ThriftBackend(*process.thrift_address, table_prefix="hmodel_proc") as thrift1:
            assert thrift1.list_tables() == ["t"]
    finally:
        process.stop()
    assert not process.running
    for port in (process.thrift_port, process.thrift2_port, process.zookeeper_port):
        assert not _listening(process.host, port)
    assert process.work_dir is not None and not process.work_dir.exists()
