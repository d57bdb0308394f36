"""The ``hmodel`` command line: help, and ``fake-hbase`` serving happybase until a signal."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import happybase
import pytest

from hmodel.cli import build_parser, main


def test_help_lists_the_fake_hbase_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    assert "fake-hbase" in capsys.readouterr().out


def test_fake_hbase_help_lists_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["fake-hbase", "--help"])
    out = capsys.readouterr().out
    for option in (
        "--host",
        "--port",
        "--transport",
        "--protocol",
        "--scanner-lease-ms",
        "--thrift2-port",
        "--thrift2-scanner-lease-ms",
        "--read-timeout-ms",
        "--max-workers",
        "--max-queued",
        "--max-frame-bytes",
        "--max-message-bytes",
    ):
        assert option in out


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([])
    assert exited.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


def test_fake_hbase_defaults_are_hbase_defaults_on_loopback() -> None:
    args = build_parser().parse_args(["fake-hbase"])
    assert (args.host, args.port, args.transport, args.protocol) == (
        "127.0.0.1",
        9090,
        "buffered",
        "binary",
    )


def test_the_scanner_lease_defaults_to_hbase_2s_and_can_be_set() -> None:
    """2 x hbase.client.scanner.timeout.period (60 s), as HBase 2's Thrift1 handler uses."""
    assert build_parser().parse_args(["fake-hbase"]).scanner_lease_ms == 120_000
    args = build_parser().parse_args(["fake-hbase", "--scanner-lease-ms", "500"])
    assert args.scanner_lease_ms == 500


def test_the_bounds_default_to_the_servers_and_can_be_set() -> None:
    """The command's defaults are the fake server's, HBase's (not a second copy that drifts)."""
    import inspect

    from hmodel.testing.fake import FakeHBaseServer

    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(FakeHBaseServer).parameters.items()
    }
    args = build_parser().parse_args(["fake-hbase"])
    for name in (
        "read_timeout_ms",
        "max_workers",
        "max_queued",
        "max_frame_bytes",
        "max_message_bytes",
        "scanner_lease_ms",
        "thrift2_scanner_lease_ms",
    ):
        assert getattr(args, name) == defaults[name], name
    args = build_parser().parse_args(["fake-hbase", "--read-timeout-ms", "0", "--max-queued", "0"])
    assert (args.read_timeout_ms, args.max_queued) == (0, 0)


def test_a_bound_out_of_range_is_reported_with_exit_code_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["fake-hbase", "--port", "0", "--max-workers", "0"]) == 2
    assert "max_workers" in capsys.readouterr().err


def test_an_unknown_transport_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["fake-hbase", "--transport", "http"])
    assert exited.value.code == 2


@pytest.mark.parametrize(
    ("transport", "protocol", "stop_with"),
    [("buffered", "binary", signal.SIGTERM), ("framed", "compact", signal.SIGINT)],
)
def test_fake_hbase_serves_happybase_until_a_signal(
    transport: str, protocol: str, stop_with: signal.Signals
) -> None:
    command = [sys.executable, "-m", "hmodel.cli", "fake-hbase", "--port", "0"]
    command += ["--transport", transport, "--protocol", protocol]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"listening on (\S+):(\d+) ", line)
        assert found, line
        connection = happybase.Connection(
            found[1], int(found[2]), transport=transport, protocol=protocol
        )
        connection.create_table("t", {"f": {}})
        assert connection.tables() == [b"t"]
        connection.close()
        process.send_signal(stop_with)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_fake_hbase_serves_https_behind_a_gateway_path_and_credentials(tmp_path: Path) -> None:
    from hmodel.backend.thrift import ThriftBackend
    from hmodel.testing.certs import find_openssl, make_certificates

    if find_openssl() is None:
        pytest.skip("no openssl for test certificates")
    certs = make_certificates(tmp_path)
    command = [sys.executable, "-m", "hmodel.cli", "fake-hbase", "--port", "0", "--http"]
    command += ["--http-path", "/gateway/default/hbase", "--http-basic", "ann:pw"]
    command += ["--tls-cert", str(certs.cert_file), "--tls-key", str(certs.key_file)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"; (https://\S+)\)", line)
        assert found, line
        url = found[1].replace("https://", "https://ann:pw@")
        with ThriftBackend.from_url(url, tls=certs.client_tls()) as backend:
            assert backend.list_tables() == []
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--http-path", "/x"], "need --http"),
        (["--tls-key", "k.pem"], "needs --tls-cert"),
        (["--tls-cert", "/nonexistent.pem"], "cannot load the TLS certificate"),
    ],
)
def test_fake_hbase_refuses_inconsistent_transport_flags(
    arguments: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fake-hbase", "--port", "0", *arguments]) == 2
    assert says in capsys.readouterr().err


def test_a_busy_port_is_reported_with_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    from hmodel.testing import FakeHBaseServer

    with FakeHBaseServer() as busy:
        assert main(["fake-hbase", "--port", str(busy.port)]) == 2
    assert "cannot listen" in capsys.readouterr().err


def test_ddl_prints_the_create_statement_of_every_table_in_a_module(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "shop_schema.py").write_text(
        "from hmodel.schema import Family, Table\n"
        "from hmodel.schema.split import SaltSplits\n"
        "g = Family('g', versions=10, compression='GZ')\n"
        "goods = Table('goods', [g], splits=SaltSplits(2))\n"
        "customer = Table('customer', [Family('c')])\n"
    )
    monkeypatch.syspath_prepend(str(folder))
    assert main(["ddl", "shop_schema"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "create 'customer', {NAME => 'c'}"
    assert lines[1].startswith("create 'goods', {NAME => 'g', VERSIONS => 10, COMPRESSION => 'GZ'}")
    assert "SPLITS => ['\\x01']" in lines[1]


def test_ddl_of_a_module_without_tables_or_missing_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["ddl", "no_such_module_anywhere"]) == 2
    assert main(["ddl", "json"]) == 2
    assert "declares no Table" in capsys.readouterr().err


def test_hbase_help_lists_its_actions(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["hbase", "--help"])
    out = capsys.readouterr().out
    for word in ("start", "status", "stop", "--state", "--hbase-home", "HMODEL_TEST_HBASE"):
        assert word in out


def test_hbase_status_and_stop_without_a_run_say_not_running(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    state = f"{tmp_path}/none.json"
    assert main(["hbase", "status", "--state", state]) == 1
    assert main(["hbase", "stop", "--state", state]) == 0
    assert capsys.readouterr().out.count("not running") == 2
