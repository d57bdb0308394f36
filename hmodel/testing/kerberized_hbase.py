"""A real standalone HBase in secure mode: Kerberos RPC and SASL on both Thrift servers."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from hmodel.backend.sasl import Kerberos
from hmodel.errors import BackendError, ServerStartError
from hmodel.testing.hbase_process import HBaseProcess, _site
from hmodel.testing.kdc import LoopbackKdc

__all__ = ["HBASE_QOP", "KerberizedHBase"]

#: ``hbase.thrift.security.qop`` for each client QOP: the names HBase 2.6 prefers (it
#: also takes ``auth``, ``auth-int``, ``auth-conf``, with a deprecation warning).
HBASE_QOP = {"auth": "authentication", "auth-int": "integrity", "auth-conf": "privacy"}
#: The service principal of every server process; ``_HOST`` is ``localhost`` on loopback.
PRINCIPAL = "hbase/_HOST@{realm}"


class KerberizedHBase(HBaseProcess):
    """:class:`~hmodel.testing.hbase_process.HBaseProcess` secured with a loopback KDC.

    The master, region server and both Thrift servers run with
    ``hbase.security.authentication=kerberos`` (Hadoop's ``core-site.xml`` says
    ``kerberos`` too: Hadoop reads its security mode from there, not from
    ``hbase-site.xml``), each logged in as ``hbase/localhost`` from one keytab, and the
    Thrift servers require SASL GSSAPI with ``qop``. The JVMs find the realm through
    ``JAVA_TOOL_OPTIONS=-Djava.security.krb5.conf=...`` (Java does not read
    ``KRB5_CONFIG``). A client principal ``hmodel`` gets a ticket into its own cache:
    :meth:`sasl` is the client setting that authenticates as it.

    Args:
        kdc: A started :class:`~hmodel.testing.kdc.LoopbackKdc`.
        qop: The Thrift servers' quality of protection (``auth``, ``auth-int``,
            ``auth-conf``).
        **options: As :class:`~hmodel.testing.hbase_process.HBaseProcess`.
    """

    def __init__(self, kdc: LoopbackKdc, *, qop: str = "auth-conf", **options: Any) -> None:
        self.kdc = kdc
        self.qop = qop
        self.keytab = kdc.directory / "hbase-servers.keytab"
        principal = PRINCIPAL.format(realm=kdc.realm)
        self.hadoop_settings = {"hadoop.security.authentication": "kerberos"}
        settings = {
            "hbase.security.authentication": "kerberos",
            **self.hadoop_settings,
            **{
                f"hbase.{role}.kerberos.principal": principal
                for role in ("master", "regionserver", "thrift")
            },
            **{
                f"hbase.{role}.keytab.file": str(self.keytab)
                for role in ("master", "regionserver", "thrift")
            },
            "hbase.thrift.security.qop": HBASE_QOP[qop],
            **options.pop("settings", {}),
        }
        super().__init__(settings=settings, **options)
        self.ccache: Path | None = None

    def sasl(self, qop: str | None = None) -> Kerberos:
        """The client setting: Kerberos as ``hmodel`` to ``hbase/localhost``."""
        assert self.ccache is not None, "start() first"
        return Kerberos(host="localhost", qop=qop or self.qop, ccache=f"FILE:{self.ccache}")

    def start(self) -> KerberizedHBase:
        """Create the principals, get the client's ticket and start the secured JVMs."""
        if not self.keytab.exists():
            self.kdc.add_principal("hbase/localhost", keytab=self.keytab)
        self.ccache = self.kdc.kinit("hmodel")
        previous = os.environ.get("JAVA_TOOL_OPTIONS")
        os.environ["JAVA_TOOL_OPTIONS"] = f"-Djava.security.krb5.conf={self.kdc.krb5_config}"
        try:
            super().start()
        finally:
            if previous is None:
                os.environ.pop("JAVA_TOOL_OPTIONS", None)
            else:
                os.environ["JAVA_TOOL_OPTIONS"] = previous
        return self

    def _configure(self) -> Path:
        conf = super()._configure()
        (conf / "core-site.xml").write_text(_site(self.hadoop_settings))
        return conf

    def _wait(self) -> None:
        """Wait until both Thrift servers answer an authenticated table listing."""
        from hmodel.backend.thrift import ThriftBackend
        from hmodel.backend.thrift2 import Thrift2Backend

        deadline = time.monotonic() + self.start_timeout_s
        for kind, port in ((Thrift2Backend, self.thrift2_port), (ThriftBackend, self.thrift_port)):
            while True:
                self._check_alive()
                try:
                    with kind(self.host, port, timeout_ms=5_000, retries=0, sasl=self.sasl()) as b:
                        b.list_tables()
                    break
                except BackendError as exc:
                    if time.monotonic() > deadline:
                        raise ServerStartError(
                            f"the kerberized HBase did not answer on {self.host}:{port} in "
                            f"{self.start_timeout_s:g} s: {exc}"
                        ) from exc
                    time.sleep(1.0)
