"""The fake servers of the transport targets: TLS, HTTP and HTTPS, started on first use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hmodel.testing.certs import Certificates, make_certificates
from hmodel.testing.fake import FakeHBaseServer

__all__ = ["FAKE_TRANSPORTS", "FakeTransportServers"]

#: The transports of the fake servers: a socket in TLS (what a TLS proxy in front of HBase
#: serves), Thrift over HTTP and over HTTPS (HBase's ``hbase.regionserver.thrift.http``).
FAKE_TRANSPORTS = ("tls", "http", "https")


class FakeTransportServers:
    """One fake server (Thrift1, and Thrift2 over the same engine) per transport.

    Each is started the first time :meth:`server` asks for its transport; the TLS ones
    share a throwaway CA and server certificate made in ``directory``
    (:func:`~hmodel.testing.certs.make_certificates`, which needs ``openssl``).

    Args:
        directory: Where the certificates are written.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._certificates: Certificates | None = None
        self._servers: dict[str, FakeHBaseServer] = {}

    @property
    def certificates(self) -> Certificates:
        """The session's CA and certificates (made on first use).

        Raises:
            BackendError: No ``openssl``, or it failed.
        """
        if self._certificates is None:
            self._certificates = make_certificates(self.directory)
        return self._certificates

    def server(self, transport: str) -> FakeHBaseServer:
        """The running fake server of ``transport`` (``tls``, ``http`` or ``https``)."""
        server = self._servers.get(transport)
        if server is None:
            if transport not in FAKE_TRANSPORTS:
                raise ValueError(f"transport must be one of {FAKE_TRANSPORTS}: {transport!r}")
            tls = self.certificates.server_context() if transport != "http" else None
            server = FakeHBaseServer(thrift2_port=0, tls=tls, http=transport != "tls").start()
            self._servers[transport] = server
        return server

    def client_options(self, transport: str) -> dict[str, Any]:
        """The backend keyword arguments that reach the server of ``transport``."""
        options: dict[str, Any] = {}
        if transport in ("http", "https"):
            options["http"] = True
        if transport in ("tls", "https"):
            options["tls"] = self.certificates.client_tls()
        return options

    def close(self) -> None:
        """Stop every server started."""
        servers, self._servers = list(self._servers.values()), {}
        for server in servers:
            server.stop()
