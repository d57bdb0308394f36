"""Where a Thrift backend connects and how: socket or HTTP, with or without TLS (one for both)."""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import unquote, urlsplit

import attrs

from hmodel.errors import IllegalArgumentError

if TYPE_CHECKING:
    import ssl

    from hmodel.backend.sasl import Sasl

__all__ = [
    "HTTP",
    "SCHEMES",
    "TLS",
    "Endpoint",
    "HTTPOption",
    "SocketWrapper",
    "TLSOption",
    "as_http",
    "as_tls",
    "redact",
]

#: The URL schemes :meth:`Endpoint.from_url` reads, with the port each implies when the URL
#: names none: a plain socket (``thrift``, HBase's default port 9090), a socket inside TLS
#: (``thrift+tls``, for a TLS proxy in front of the server), HTTP and HTTPS (their usual
#: ports: give HBase's 9090 explicitly).
SCHEMES: Mapping[str, int] = {"thrift": 9090, "thrift+tls": 9090, "http": 80, "https": 443}

#: Wraps the opened socket transport (plain or TLS) of a socket-mode connection and returns
#: the transport Thrift's buffered or framed transport is then put on: the place for a SASL
#: transport (``hbase.thrift.security.qop``). Not used over HTTP.
SocketWrapper = Callable[[Any], Any]

# An HTTP header name is a token (RFC 9110, section 5.6.2).
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def _optional_path(name: str) -> Callable[[object, attrs.Attribute[Any], object], None]:
    def check(_instance: object, _attribute: attrs.Attribute[Any], value: object) -> None:
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise IllegalArgumentError(
                f"TLS {name} must be a path or None", field=name, value=value
            )

    return check


@attrs.frozen
class TLS:
    """How a connection is wrapped in TLS, and whom it trusts.

    Verification is on by default: the server's certificate must chain to a trusted CA
    (the system's, or ``ca_file``) and name the host connected to (or ``server_hostname``).
    Over HTTP this is HTTPS; over a socket it is Thrift inside TLS, which HBase's Thrift
    servers do not serve themselves (their ``hbase.thrift.ssl.*`` settings apply to the HTTP
    mode only) but a TLS proxy in front of them (stunnel, haproxy) does.

    Args:
        ca_file: A PEM file of the CA certificates to trust; ``None``: the system's CAs.
        cert_file: A PEM client certificate (with its chain) for servers that ask for one
            (mutual TLS); ``None``: none is sent.
        key_file: The client certificate's private key (PEM); ``None``: it is in
            ``cert_file``.
        key_password: The password of an encrypted ``key_file``.
        server_hostname: The name the server's certificate must carry (and the SNI sent),
            when it is not the host connected to (an IP address, say); ``None``: the host.
        verify: ``False`` checks neither the certificate nor the name: the connection is
            encrypted but the server is not authenticated. For throwaway test servers only.
        context: A ready ``ssl.SSLContext`` (for any setting not listed here); the other
            arguments must then be left unset, except ``server_hostname``.

    Raises:
        IllegalArgumentError: A setting of the wrong type, a key without a certificate, or
            ``context`` together with settings it would ignore; naming the setting.
    """

    ca_file: str | os.PathLike[str] | None = attrs.field(
        default=None, validator=_optional_path("ca_file")
    )
    cert_file: str | os.PathLike[str] | None = attrs.field(
        default=None, validator=_optional_path("cert_file")
    )
    key_file: str | os.PathLike[str] | None = attrs.field(
        default=None, validator=_optional_path("key_file")
    )
    key_password: str | None = attrs.field(default=None, repr=False)
    server_hostname: str | None = None
    verify: bool = True
    context: ssl.SSLContext | None = None

    def __attrs_post_init__(self) -> None:
        if self.key_file is not None and self.cert_file is None:
            raise IllegalArgumentError(
                "TLS key_file needs the cert_file it belongs to", field="key_file"
            )
        if self.key_password is not None and not isinstance(self.key_password, str):
            raise IllegalArgumentError("TLS key_password must be a str", field="key_password")
        if self.server_hostname is not None and (
            not isinstance(self.server_hostname, str) or not self.server_hostname
        ):
            raise IllegalArgumentError(
                "TLS server_hostname must be a non-empty str or None",
                field="server_hostname",
                value=self.server_hostname,
            )
        if not isinstance(self.verify, bool):
            raise IllegalArgumentError(
                "TLS verify must be a bool", field="verify", value=self.verify
            )
        if self.context is None:
            return
        import ssl

        if not isinstance(self.context, ssl.SSLContext):
            raise IllegalArgumentError(
                "TLS context must be an ssl.SSLContext", field="context", value=self.context
            )
        for name in ("ca_file", "cert_file", "key_file", "key_password"):
            if getattr(self, name) is not None:
                raise IllegalArgumentError(
                    f"TLS {name} cannot be combined with a ready context: set it on the context",
                    field=name,
                )
        if not self.verify:
            raise IllegalArgumentError(
                "TLS verify=False cannot be combined with a ready context: set the "
                "context's verify_mode and check_hostname",
                field="verify",
            )

    def ssl_context(self) -> ssl.SSLContext:
        """The client-side ``ssl.SSLContext`` these settings describe (``context`` if given).

        Raises:
            IllegalArgumentError: A file cannot be read or holds no certificate or key
                (naming the setting and the file).
        """
        if self.context is not None:
            return self.context
        import ssl

        try:
            context = ssl.create_default_context(
                cafile=None if self.ca_file is None else os.fspath(self.ca_file)
            )
        except (OSError, ssl.SSLError) as exc:
            raise IllegalArgumentError(
                f"TLS ca_file cannot be loaded: {exc}", field="ca_file", value=self.ca_file
            ) from exc
        if not self.verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        if self.cert_file is not None:
            try:
                context.load_cert_chain(
                    os.fspath(self.cert_file),
                    None if self.key_file is None else os.fspath(self.key_file),
                    self.key_password,
                )
            except (OSError, ssl.SSLError) as exc:
                raise IllegalArgumentError(
                    f"TLS cert_file/key_file cannot be loaded: {exc}",
                    field="cert_file",
                    value=self.cert_file,
                ) from exc
        return context


def _headers(value: object) -> tuple[tuple[str, str], ...]:
    """Check extra headers (a mapping or pairs) and freeze them as a tuple of pairs."""
    pairs: Any = value.items() if isinstance(value, Mapping) else value
    try:
        items = [(name, text) for name, text in pairs]
    except (TypeError, ValueError):
        raise IllegalArgumentError(
            "HTTP headers must be a mapping of str to str", field="headers", value=value
        ) from None
    for name, text in items:
        if not isinstance(name, str) or not _TOKEN.match(name):
            raise IllegalArgumentError(
                "an HTTP header name must be a non-empty token", field="headers", value=name
            )
        if not isinstance(text, str) or "\r" in text or "\n" in text:
            raise IllegalArgumentError(
                f"the HTTP header {name!r} must have a str value without CR or LF",
                field="headers",
            )
        if name.lower() in ("content-type", "content-length", "host", "transfer-encoding"):
            raise IllegalArgumentError(
                f"the HTTP header {name!r} is set by the transport", field="headers"
            )
    return tuple(items)


@attrs.frozen
class HTTP:
    """Thrift over HTTP: each call is one ``POST`` on a kept-alive connection.

    HBase's Thrift servers serve this with ``hbase.regionserver.thrift.http=true`` (both
    ``hbase thrift`` and ``hbase thrift2``), at any path, in the binary protocol only;
    gateways in front of them (Apache Knox and the like) route by a path prefix and ask
    for credentials, usually HTTP basic authentication.

    Args:
        path: The URL path the calls are posted to (``/`` for HBase itself; a gateway's
            route such as ``/gateway/default/hbase`` otherwise), with its query if any.
        headers: Extra request headers (a mapping, or ``(name, value)`` pairs), e.g. a
            bearer token. ``Content-Type``, ``Content-Length`` and ``Host`` are the
            transport's own.
        username: With ``password``: HTTP basic authentication (sent with every call; use
            HTTPS, basic credentials are not encrypted otherwise).
        password: The password of ``username``.

    Raises:
        IllegalArgumentError: A path that does not start with ``/``, a header that is not a
            token name with a one-line str value, or half a basic credential; naming it.
    """

    path: str = "/"
    headers: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_headers)
    username: str | None = None
    password: str | None = attrs.field(default=None, repr=False)

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path.startswith("/"):
            raise IllegalArgumentError(
                "HTTP path must start with '/'", field="path", value=self.path
            )
        if any(ch in self.path for ch in " \r\n\t"):
            raise IllegalArgumentError(
                "HTTP path must not contain whitespace (percent-encode it)",
                field="path",
                value=self.path,
            )
        if (self.username is None) != (self.password is None):
            raise IllegalArgumentError(
                "HTTP basic authentication needs both username and password", field="username"
            )
        for name in ("username", "password"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise IllegalArgumentError(f"HTTP {name} must be a str", field=name)
        if self.username is not None and ":" in self.username:
            raise IllegalArgumentError(
                "an HTTP basic username cannot contain ':'", field="username"
            )

    def request_headers(self) -> list[tuple[str, str]]:
        """The extra headers of every call: ``headers``, then ``Authorization`` if basic."""
        extra = list(self.headers)
        if self.username is not None and self.password is not None:
            token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode("ascii")
            extra.append(("Authorization", f"Basic {token}"))
        return extra


#: What a backend's ``tls`` argument takes: settings, a ready context, ``True`` for the
#: defaults (system CAs, verification on), or ``None``/``False`` for no TLS.
TLSOption: TypeAlias = "TLS | ssl.SSLContext | bool | None"
#: What a backend's ``http`` argument takes: settings, a path, ``True`` for ``HTTP()``,
#: or ``None``/``False`` for a plain socket.
HTTPOption: TypeAlias = "HTTP | str | bool | None"


def as_tls(value: object) -> TLS | None:
    """Normalise a ``tls`` argument (see :data:`TLSOption`).

    Raises:
        IllegalArgumentError: Not one of the accepted kinds, naming ``tls``.
    """
    if value is None or value is False:
        return None
    if value is True:
        return TLS()
    if isinstance(value, TLS):
        return value
    import ssl

    if isinstance(value, ssl.SSLContext):
        return TLS(context=value)
    raise IllegalArgumentError(
        "tls must be a TLS, an ssl.SSLContext, a bool or None", field="tls", value=value
    )


def as_http(value: object) -> HTTP | None:
    """Normalise an ``http`` argument (see :data:`HTTPOption`).

    Raises:
        IllegalArgumentError: Not one of the accepted kinds, naming ``http``.
    """
    if value is None or value is False:
        return None
    if value is True:
        return HTTP()
    if isinstance(value, HTTP):
        return value
    if isinstance(value, str):
        return HTTP(path=value)
    raise IllegalArgumentError(
        "http must be an HTTP, a path str, a bool or None", field="http", value=value
    )


def redact(url: str) -> str:
    """``url`` without the credentials it may carry (for messages and logs)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"***@{netloc}").geturl()


def _check_port(port: object, label: str = "port") -> int:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65_536:
        raise IllegalArgumentError(
            f"{label} must be an int from 1 to 65535", field=label, value=port
        )
    return port


@attrs.frozen
class Endpoint:
    """One Thrift server as a backend reaches it: address, framing, and the way there.

    Args:
        host: The server's (or proxy's, or gateway's) host name or address.
        port: Its port.
        timeout_ms: Connect and socket timeout in milliseconds; ``None``: wait forever.
        transport: ``"buffered"`` or ``"framed"`` (must match the server); over HTTP only
            ``"buffered"``: HTTP delimits each message itself.
        protocol: ``"binary"`` or ``"compact"`` (must match the server); over HTTP only
            ``"binary"``, the one HBase's Thrift servlet speaks.
        tls: TLS settings, or ``None`` for none.
        http: HTTP settings, or ``None`` for a plain Thrift socket.
        wrap_socket: See :data:`SocketWrapper`; socket mode only.
        sasl: Authenticate each connection with SASL (:class:`~hmodel.backend.sasl.Kerberos`
            or :class:`~hmodel.backend.sasl.Plain`), as a secured HBase Thrift server
            (``hbase.thrift.security.qop``) requires: the socket (inside TLS if ``tls``
            is set, after ``wrap_socket``) is wrapped in a SASL transport and
            authenticated when the connection opens. Buffered socket mode only, as in HBase.

    Raises:
        IllegalArgumentError: An option out of range, or a combination the server cannot
            serve (framed or compact over HTTP, a socket wrapper or SASL over HTTP, SASL
            with the framed transport), naming it.
    """

    host: str
    port: int
    timeout_ms: int | None = 10_000
    transport: str = "buffered"
    protocol: str = "binary"
    tls: TLS | None = None
    http: HTTP | None = None
    wrap_socket: SocketWrapper | None = None
    sasl: Sasl | None = None

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.host, str) or not self.host:
            raise IllegalArgumentError(
                "host must be a non-empty str", field="host", value=self.host
            )
        _check_port(self.port)
        timeout = self.timeout_ms
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1
        ):
            raise IllegalArgumentError(
                "timeout_ms must be a positive integer or None", field="timeout_ms", value=timeout
            )
        if self.transport not in ("buffered", "framed"):
            raise IllegalArgumentError(
                "transport must be 'buffered' or 'framed'", field="transport", value=self.transport
            )
        if self.protocol not in ("binary", "compact"):
            raise IllegalArgumentError(
                "protocol must be 'binary' or 'compact'", field="protocol", value=self.protocol
            )
        if self.tls is not None and not isinstance(self.tls, TLS):
            raise IllegalArgumentError("tls must be a TLS or None", field="tls", value=self.tls)
        if self.http is not None and not isinstance(self.http, HTTP):
            raise IllegalArgumentError(
                "http must be an HTTP or None", field="http", value=self.http
            )
        if self.sasl is not None:
            # Imported here: hmodel.backend.sasl loads thriftpy2, which importing
            # hmodel.backend (and the test kit's plugin) must not.
            from hmodel.backend.sasl import check_sasl

            check_sasl(self.sasl, self.transport)
        if self.http is None:
            return
        if self.sasl is not None:
            raise IllegalArgumentError(
                "sasl cannot be used over HTTP (HBase's Thrift HTTP servlet authenticates "
                "with SPNEGO, which hmodel does not speak yet)",
                field="sasl",
            )
        if self.transport != "buffered":
            raise IllegalArgumentError(
                "transport='framed' cannot be used over HTTP: each HTTP request carries one "
                "whole message (HBase's Thrift HTTP servlet reads no frames)",
                field="transport",
                value=self.transport,
            )
        if self.protocol != "binary":
            raise IllegalArgumentError(
                "protocol='compact' cannot be used over HTTP: HBase's Thrift HTTP servlet "
                "speaks the binary protocol only",
                field="protocol",
                value=self.protocol,
            )
        if self.wrap_socket is not None:
            raise IllegalArgumentError(
                "a socket wrapper (SASL) cannot be used over HTTP", field="wrap_socket"
            )

    @property
    def scheme(self) -> str:
        """``thrift``, ``thrift+tls``, ``http`` or ``https``."""
        if self.http is None:
            return "thrift+tls" if self.tls is not None else "thrift"
        return "https" if self.tls is not None else "http"

    @property
    def url(self) -> str:
        """Where calls go, as a URL for messages and logs (never with credentials)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        path = self.http.path if self.http is not None else ""
        return f"{self.scheme}://{host}:{self.port}{path}"

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        tls: TLSOption = None,
        headers: Mapping[str, str] | None = None,
        **options: Any,
    ) -> Endpoint:
        """The endpoint a URL names; ``options`` are the other :class:`Endpoint` fields.

        ``thrift://host:port`` is a plain socket, ``thrift+tls://host:port`` a socket in
        TLS, ``http://host:port/path`` and ``https://host:port/path`` Thrift over HTTP(S),
        with ``user:password@`` in the URL for HTTP basic authentication. A URL without a
        port means 9090 for the ``thrift`` schemes and 80/443 for ``http``/``https``.

        Args:
            url: The URL.
            tls: The TLS settings of a ``thrift+tls`` or ``https`` URL (default: verify
                against the system's CAs).
            headers: Extra HTTP headers of an ``http``/``https`` URL.
            **options: ``timeout_ms``, ``transport``, ``protocol``, ``wrap_socket``.

        Raises:
            IllegalArgumentError: An unknown scheme, no host, a bad port, credentials or
                a path on a socket URL, or ``tls``/``headers`` the scheme cannot use.
        """
        if not isinstance(url, str):
            raise IllegalArgumentError("url must be a str", field="url", value=url)
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            raise IllegalArgumentError(
                f"url scheme must be one of {', '.join(SCHEMES)}", field="url", value=redact(url)
            )
        try:
            port = parts.port or SCHEMES[scheme]
        except ValueError:
            raise IllegalArgumentError(
                "url has a bad port", field="url", value=redact(url)
            ) from None
        if not parts.hostname:
            raise IllegalArgumentError("url names no host", field="url", value=redact(url))
        secure = scheme in ("thrift+tls", "https")
        tls_settings = as_tls(True if tls is None and secure else tls)
        if secure and tls_settings is None:
            raise IllegalArgumentError(
                f"a {scheme}:// url needs TLS (tls=False given)", field="tls"
            )
        if tls_settings is not None and not secure:
            raise IllegalArgumentError(
                f"tls given for a {scheme}:// url (use thrift+tls:// or https://)", field="tls"
            )
        http: HTTP | None = None
        if scheme in ("http", "https"):
            path = parts.path or "/"
            if parts.query:
                path = f"{path}?{parts.query}"
            username = None if parts.username is None else unquote(parts.username)
            password = None if parts.password is None else unquote(parts.password)
            http = HTTP(path=path, headers=headers or {}, username=username, password=password)
        else:
            if headers:
                raise IllegalArgumentError(
                    f"HTTP headers given for a {scheme}:// url", field="headers"
                )
            if parts.username or parts.path not in ("", "/") or parts.query:
                raise IllegalArgumentError(
                    f"a {scheme}:// url is host:port only (no credentials, path or query)",
                    field="url",
                    value=redact(url),
                )
        return cls(parts.hostname, port, tls=tls_settings, http=http, **options)
