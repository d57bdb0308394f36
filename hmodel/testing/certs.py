"""Throwaway TLS certificates for tests: a CA, a server and a client certificate, by openssl."""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
from collections.abc import Sequence
from pathlib import Path

import attrs

from hmodel.backend.endpoint import TLS
from hmodel.errors import BackendError

__all__ = ["Certificates", "find_openssl", "make_certificates"]

#: The names the server certificate carries by default: loopback by name and address.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
_DAYS = "2"  # the certificates outlive any test run, and nothing else


def find_openssl() -> str | None:
    """The ``openssl`` command on ``PATH``, or ``None`` (tests needing it skip then)."""
    return shutil.which("openssl")


@attrs.frozen
class Certificates:
    """A throwaway CA and the server and client certificates it signed (PEM files).

    Attributes:
        directory: Where the files are.
        ca_file: The CA's certificate: what a client (or a server asking for client
            certificates) trusts.
        cert_file: The server's certificate, for the names given (loopback by default).
        key_file: The server's private key (unencrypted).
        client_cert_file: A client certificate (``CN=hmodel-client``), for mutual TLS.
        client_key_file: Its private key (unencrypted).
    """

    directory: Path
    ca_file: Path
    cert_file: Path
    key_file: Path
    client_cert_file: Path
    client_key_file: Path

    def server_context(self, *, require_client_cert: bool = False) -> ssl.SSLContext:
        """A server-side context with the server certificate (for the fake servers' ``tls``).

        Args:
            require_client_cert: Refuse clients without a certificate signed by the CA.
        """
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert_file, self.key_file)
        if require_client_cert:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(self.ca_file)
        return context

    def client_tls(self, *, client_cert: bool = False, **settings: object) -> TLS:
        """Client TLS settings trusting the CA (with the client certificate if asked).

        Args:
            client_cert: Present the client certificate.
            **settings: Other :class:`~hmodel.backend.endpoint.TLS` settings
                (``server_hostname``...).
        """
        if client_cert:
            settings |= {"cert_file": self.client_cert_file, "key_file": self.client_key_file}
        return TLS(ca_file=self.ca_file, **settings)  # type: ignore[arg-type]


def _run(openssl: str, args: Sequence[str], directory: Path) -> None:
    result = subprocess.run(
        [openssl, *args], cwd=directory, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise BackendError(
            f"openssl {args[0]} failed (exit {result.returncode}): {result.stderr.strip()[-400:]}"
        )


def _names(hosts: Sequence[str]) -> str:
    return ",".join(
        f"IP:{host}" if host.replace(".", "").isdigit() or ":" in host else f"DNS:{host}"
        for host in hosts
    )


def make_certificates(
    directory: str | os.PathLike[str],
    *,
    hosts: Sequence[str] = LOOPBACK_NAMES,
    openssl: str | None = None,
) -> Certificates:
    """Make a CA, a server certificate for ``hosts`` and a client certificate in ``directory``.

    Each is a P-256 key and a certificate valid for 2 days, made by ``openssl`` (1.1.1 or
    later); nothing is trusted outside the files written. The server certificate names
    every host in ``hosts`` (DNS names and IP addresses) and is for server
    authentication only; the client one for client authentication only.

    Raises:
        BackendError: No ``openssl``, or it failed (its error quoted).
    """
    tool = openssl or find_openssl()
    if tool is None:
        raise BackendError("no openssl on PATH to make test certificates")
    where = Path(directory)
    where.mkdir(parents=True, exist_ok=True)
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _run(
        tool,
        [
            "req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", _DAYS,
            "-subj", "/CN=hmodel test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ],
        where,
    )  # fmt: skip
    for name, subject, usage, alt in (
        ("server", "/CN=localhost", "serverAuth", _names(hosts)),
        ("client", "/CN=hmodel-client", "clientAuth", None),
    ):
        extensions = [
            "basicConstraints=CA:FALSE",
            "keyUsage=critical,digitalSignature,keyEncipherment",
            f"extendedKeyUsage={usage}",
            "subjectKeyIdentifier=hash",
            "authorityKeyIdentifier=keyid",
        ]
        if alt:
            extensions.append(f"subjectAltName={alt}")
        (where / f"{name}.ext").write_text("\n".join(extensions) + "\n")
        _run(
            tool,
            ["req", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject],
            where,
        )
        _run(
            tool,
            [
                "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{name}.pem", "-days", _DAYS,
                "-extfile", f"{name}.ext",
            ],
            where,
        )  # fmt: skip
    return Certificates(
        directory=where,
        ca_file=where / "ca.pem",
        cert_file=where / "server.pem",
        key_file=where / "server.key",
        client_cert_file=where / "client.pem",
        client_key_file=where / "client.key",
    )
