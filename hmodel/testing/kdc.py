"""A throwaway MIT Kerberos realm on loopback (a KDC process in a temp dir) for SASL tests."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType

from hmodel.errors import ServerStartError

__all__ = [
    "KDC_TOOLS",
    "REALM",
    "LoopbackKdc",
    "kdc_missing",
    "kerberos_environment",
]

#: The realm every loopback KDC serves (a name no real realm uses).
REALM = "HMODEL.TEST"
#: The MIT Kerberos programs the KDC needs (Debian: ``krb5-kdc``, ``krb5-admin-server``,
#: ``krb5-user``).
KDC_TOOLS = ("krb5kdc", "kdb5_util", "kadmin.local", "kinit")
#: Directories Debian installs the administrator tools in, often outside a user's PATH.
_SBIN = ("/usr/sbin", "/usr/local/sbin", "/sbin")
_START_TIMEOUT = 20.0  # seconds for krb5kdc to accept connections
_STOP_TIMEOUT = 5.0


def _tool(name: str) -> str | None:
    path = os.pathsep.join([os.environ.get("PATH", ""), *_SBIN])
    return shutil.which(name, path=path)


def kdc_missing() -> str | None:
    """Why a loopback KDC cannot run here (a reason to skip with), or ``None`` if it can.

    It needs the MIT Kerberos programs (:data:`KDC_TOOLS`) and the ``gssapi`` package
    (``pip install hmodel[kerberos]``).
    """
    missing = [name for name in KDC_TOOLS if _tool(name) is None]
    if missing:
        return (
            f"MIT Kerberos programs missing ({', '.join(missing)}): install krb5-kdc, "
            "krb5-admin-server and krb5-user"
        )
    try:
        import gssapi  # noqa: F401  # only checked for
    except ImportError:
        return "the gssapi package is missing: pip install 'hmodel[kerberos]'"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LoopbackKdc:
    """A Kerberos realm (:data:`REALM`) served by ``krb5kdc`` on a free loopback port.

    Everything lives in one temporary directory: the realm's ``krb5.conf`` and
    ``kdc.conf``, its database, the KDC's log, keytabs and credential caches. Clients in
    this process find the realm through :meth:`environment` (``KRB5_CONFIG``), which
    :func:`kerberos_environment` applies for a block. :meth:`stop` ends exactly the KDC
    process this object started and removes the directory.

    Args:
        directory: Where to keep the realm; a new temporary directory if ``None`` (then
            removed by :meth:`stop`).

    Example:
        >>> with LoopbackKdc() as kdc:  # doctest: +SKIP
        ...     keytab = kdc.add_principal("hbase/localhost")
        ...     kdc.add_principal("alice")
        ...     ccache = kdc.kinit("alice")

    Raises:
        ServerStartError: A tool is missing, or the realm or the KDC could not be set up
            (the message quotes the tool's output or the KDC's log).
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self._owns_directory = directory is None
        self.directory = Path(directory or tempfile.mkdtemp(prefix="hmodel-kdc-"))
        self.realm = REALM
        self.port = 0
        self.krb5_config = self.directory / "krb5.conf"
        self.kdc_profile = self.directory / "kdc.conf"
        self._process: subprocess.Popen[bytes] | None = None

    # --- lifecycle ------------------------------------------------------------------

    def start(self) -> LoopbackKdc:
        """Create the realm's database and start ``krb5kdc``; returns ``self``."""
        reason = [name for name in KDC_TOOLS if _tool(name) is None]
        if reason:
            raise ServerStartError(f"cannot start a KDC: {', '.join(reason)} not found")
        self.port = _free_port()
        self._write_profiles()
        self._run("kdb5_util", "create", "-s", "-r", self.realm, "-P", "hmodel-master-key")
        log = (self.directory / "krb5kdc.out").open("wb")
        try:
            self._process = subprocess.Popen(
                [_tool("krb5kdc") or "krb5kdc", "-n", "-r", self.realm],
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        finally:
            log.close()
        deadline = time.monotonic() + _START_TIMEOUT
        while not self._answers():
            if self._process.poll() is not None or time.monotonic() > deadline:
                tail = self._log_tail()
                self.stop()
                raise ServerStartError(f"krb5kdc did not start on 127.0.0.1:{self.port}: {tail}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        """Stop the KDC this object started and remove a directory it created."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(_STOP_TIMEOUT)
        if self._owns_directory:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> LoopbackKdc:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # --- principals and tickets -----------------------------------------------------

    def principal(self, name: str) -> str:
        """``name`` qualified with the realm (``alice`` -> ``alice@HMODEL.TEST``)."""
        return name if "@" in name else f"{name}@{self.realm}"

    def add_principal(self, name: str, *, keytab: str | os.PathLike[str] | None = None) -> Path:
        """Create a principal with a random key and export it to a keytab; returns its path.

        Args:
            name: The principal without the realm, e.g. ``"hbase/localhost"`` or ``"alice"``.
            keytab: The keytab file to add the key to; ``<directory>/<name>.keytab`` (with
                ``/`` as ``_``) if ``None``.
        """
        path = Path(keytab) if keytab is not None else self._keytab_path(name)
        self._run("kadmin.local", "-r", self.realm, "-q", f"addprinc -randkey {name}")
        self._run("kadmin.local", "-r", self.realm, "-q", f"ktadd -k {path} {name}")
        return path

    def expire_principal(self, name: str) -> None:
        """Set a principal's expiration in the past: the KDC refuses tickets for it."""
        self._run("kadmin.local", "-r", self.realm, "-q", f'modprinc -expire "2000-01-01" {name}')

    def kinit(
        self,
        name: str,
        *,
        keytab: str | os.PathLike[str] | None = None,
        ccache: str | os.PathLike[str] | None = None,
    ) -> Path:
        """Get a ticket-granting ticket for ``name`` from its keytab into a credential cache.

        Args:
            name: The principal (without the realm); added first if it has no keytab yet.
            keytab: Its keytab; the one :meth:`add_principal` wrote if ``None``.
            ccache: The credential cache file; ``<directory>/<name>.ccache`` if ``None``.

        Returns:
            The credential cache file (use it as ``FILE:<path>`` or ``KRB5CCNAME``).
        """
        keytab_path = Path(keytab) if keytab is not None else self._keytab_path(name)
        if not keytab_path.exists():
            self.add_principal(name, keytab=keytab_path)
        cache = Path(ccache) if ccache is not None else self._keytab_path(name, ".ccache")
        self._run(
            "kinit", "-k", "-t", str(keytab_path), "-c", f"FILE:{cache}", self.principal(name)
        )
        return cache

    @staticmethod
    def age_ccache(ccache: str | os.PathLike[str], seconds: int) -> None:
        """Make the tickets in a credential cache look ``seconds`` older, without waiting.

        A version-4 cache (what MIT's ``kinit`` writes) starts with the KDC's clock
        offset, which the library adds to the local clock when it uses the cache's
        tickets; setting it to ``seconds`` past the tickets' lifetime (one hour here)
        makes them expired for this client, deterministically.

        Raises:
            ServerStartError: The file is not a version-4 cache with a clock offset.
        """
        path = Path(ccache)
        data = bytearray(path.read_bytes())
        # 0x0504, header length, then tags: tag 1 (KDC clock offset), 8 bytes: s, us.
        if data[:2] != b"\x05\x04" or data[4:8] != b"\x00\x01\x00\x08":
            raise ServerStartError(f"{path} is not a version-4 cache with a clock offset")
        data[8:12] = seconds.to_bytes(4, "big", signed=True)
        path.write_bytes(bytes(data))

    def environment(self) -> dict[str, str]:
        """The variables that point MIT Kerberos at this realm (and keep it off the host).

        ``KRB5_CONFIG`` and ``KRB5_KDC_PROFILE`` name the realm's files; the replay cache
        is kept in the realm's directory.
        """
        return {
            **os.environ,
            "KRB5_CONFIG": str(self.krb5_config),
            "KRB5_KDC_PROFILE": str(self.kdc_profile),
            "KRB5RCACHEDIR": str(self.directory),
        }

    # --- internals ------------------------------------------------------------------

    def _keytab_path(self, name: str, suffix: str = ".keytab") -> Path:
        return self.directory / (name.replace("/", "_") + suffix)

    def _write_profiles(self) -> None:
        directory = self.directory
        self.krb5_config.write_text(
            "[libdefaults]\n"
            f"  default_realm = {self.realm}\n"
            "  dns_lookup_kdc = false\n"
            "  dns_lookup_realm = false\n"
            "  dns_canonicalize_hostname = false\n"
            "  rdns = false\n"
            "  udp_preference_limit = 1\n"
            "  forwardable = false\n"
            "[realms]\n"
            f"  {self.realm} = {{\n"
            f"    kdc = 127.0.0.1:{self.port}\n"
            "  }\n"
            "[domain_realm]\n"
            f"  localhost = {self.realm}\n"
            f"  127.0.0.1 = {self.realm}\n"
        )
        (directory / "kadm5.acl").write_text("")
        self.kdc_profile.write_text(
            "[kdcdefaults]\n"
            f"  kdc_ports = {self.port}\n"
            f"  kdc_tcp_ports = {self.port}\n"
            "[realms]\n"
            f"  {self.realm} = {{\n"
            f"    database_name = {directory}/principal\n"
            f"    key_stash_file = {directory}/stash\n"
            f"    acl_file = {directory}/kadm5.acl\n"
            "    max_life = 1h\n"
            "    supported_enctypes = aes256-cts-hmac-sha1-96:normal "
            "aes128-cts-hmac-sha1-96:normal\n"
            "  }\n"
            "[logging]\n"
            f"  kdc = FILE:{directory}/krb5kdc.log\n"
        )

    def _run(self, tool: str, *args: str) -> None:
        program = _tool(tool) or tool
        try:
            done = subprocess.run(
                [program, *args],
                env=self.environment(),
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ServerStartError(f"{tool} {' '.join(args)} failed: {exc}") from exc
        output = (done.stdout + done.stderr).decode(errors="replace").strip()
        # kadmin.local reports a failed query on stderr with a 0 exit status.
        if done.returncode != 0 or ("kadmin" in tool and "error" in output.lower()):
            raise ServerStartError(f"{tool} {' '.join(args)} failed: {output[-600:]}")

    def _answers(self) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 1):
            return True
        return False

    def _log_tail(self) -> str:
        texts = []
        for name in ("krb5kdc.out", "krb5kdc.log"):
            with contextlib.suppress(OSError):
                texts.append((self.directory / name).read_text(errors="replace")[-600:])
        return " | ".join(texts) or "no log"


@contextlib.contextmanager
def kerberos_environment(variables: Mapping[str, str]) -> Iterator[None]:
    """Set the Kerberos variables of :meth:`LoopbackKdc.environment` in ``os.environ``.

    MIT Kerberos, used in this process through ``gssapi``, reads ``KRB5_CONFIG`` and the
    others from the environment; the previous values are restored on exit.
    """
    names = ("KRB5_CONFIG", "KRB5_KDC_PROFILE", "KRB5RCACHEDIR", "KRB5CCNAME")
    saved = {name: os.environ.get(name) for name in names}
    for name in names:
        if name in variables:
            os.environ[name] = variables[name]
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
