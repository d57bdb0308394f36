"""SASL (Kerberos GSSAPI, PLAIN) for Thrift connections: Thrift's SASL transport, client side."""

from __future__ import annotations

import contextlib
import enum
import io
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import attrs
from thriftpy2.transport import TTransportBase, TTransportException

from hmodel.errors import AuthenticationError, IllegalArgumentError

if TYPE_CHECKING:
    import gssapi

__all__ = [
    "MAX_NEGOTIATION_BYTES",
    "QOPS",
    "Kerberos",
    "Plain",
    "Sasl",
    "SaslClientTransport",
    "SaslProtocolError",
    "Status",
    "check_sasl",
    "gss_error",
    "gss_text",
    "layer_of",
    "read_exactly",
    "read_message",
    "write_message",
]

#: The qualities of protection, as ``hbase.thrift.security.qop`` names them: ``auth``
#: (authentication only), ``auth-int`` (each frame signed), ``auth-conf`` (each frame
#: signed and encrypted).
QOPS = ("auth", "auth-int", "auth-conf")
#: RFC 4752's security-layer bits for each quality of protection.
_LAYERS = {"auth": 1, "auth-int": 2, "auth-conf": 4}
#: The largest negotiation message either side accepts (Thrift's Java transport: 100 MB).
MAX_NEGOTIATION_BYTES = 104_857_600
#: The largest wrapped frame this client says it can receive (RFC 4752: 3 bytes).
_MAX_RECEIVE = 0xFFFFFF


class Status(enum.IntEnum):
    """The status byte of a Thrift SASL negotiation message."""

    START = 1
    OK = 2
    BAD = 3
    ERROR = 4
    COMPLETE = 5


_STATUSES = frozenset(Status)


def layer_of(qop: str) -> int:
    """RFC 4752's security-layer bit of a quality of protection (``auth`` -> 1)."""
    return _LAYERS[qop]


def _qops(value: str | Sequence[str]) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else tuple(value)
    if not names or any(name not in QOPS for name in names) or len(set(names)) != len(names):
        raise IllegalArgumentError(
            "qop must be one of 'auth', 'auth-int', 'auth-conf' or a sequence of them",
            field="qop",
            value=value,
        )
    return names


def _text(value: Any, field: str, *, empty: bool = False) -> None:
    if not isinstance(value, str) or (not value and not empty):
        raise IllegalArgumentError(f"{field} must be a non-empty str", field=field, value=value)


@attrs.frozen
class Kerberos:
    """Kerberos authentication (SASL GSSAPI), as HBase's Thrift servers require it.

    HBase's Thrift1 and Thrift2 servers require it when ``hbase.thrift.security.qop`` is
    set (to ``auth``, ``auth-int`` or ``auth-conf``). The client needs a ticket:
    ``kinit`` first (into the credential cache ``KRB5CCNAME`` names, or ``ccache``). It
    authenticates to the service principal ``service/host@REALM``, the
    one the server runs as (``hbase.thrift.kerberos.principal``, e.g. ``hbase/_HOST@REALM``).

    Args:
        service: The service principal's first part (``hbase`` for ``hbase/_HOST@REALM``).
        host: The host part of the server's principal; ``None``: the host the backend
            connects to (use the server's canonical name, as in its principal, when
            connecting through an IP address or an alias).
        qop: The quality of protection to accept, one of :data:`QOPS` or several in order
            of preference; it must include the server's ``hbase.thrift.security.qop``.
            ``auth-conf`` (the default) signs and encrypts every frame, ``auth-int`` signs
            them, ``auth`` authenticates the connection only.
        principal: The client principal to use (``alice@EXAMPLE.COM``); ``None``: the
            credential cache's default principal.
        ccache: The credential cache (``FILE:/tmp/krb5cc_1000``); ``None``: the default
            one (``KRB5CCNAME``).

    Example:
        >>> Kerberos(qop=("auth-conf", "auth-int")).qop
        ('auth-conf', 'auth-int')
    """

    service: str = attrs.field(default="hbase")
    host: str | None = None
    qop: tuple[str, ...] = attrs.field(default=("auth-conf",), converter=_qops)
    principal: str | None = None
    ccache: str | None = None

    mechanism = "GSSAPI"

    def __attrs_post_init__(self) -> None:
        _text(self.service, "service")
        for field in ("host", "principal", "ccache"):
            if getattr(self, field) is not None:
                _text(getattr(self, field), field)


@attrs.frozen
class Plain:
    """SASL PLAIN (RFC 4616): a user name and password in clear, for gateways that take them.

    HBase's own Thrift servers accept only GSSAPI; some proxies in front of them take
    PLAIN. The password travels unprotected: use it only over TLS or loopback.

    Args:
        username: The user to authenticate as.
        password: Its password (not shown in ``repr``).
        authzid: The identity to act as; empty (the default): the user itself.
    """

    username: str
    password: str = attrs.field(repr=False)
    authzid: str = ""

    mechanism = "PLAIN"

    def __attrs_post_init__(self) -> None:
        _text(self.username, "username")
        _text(self.password, "password", empty=True)
        _text(self.authzid, "authzid", empty=True)


#: A SASL configuration a backend accepts as its ``sasl`` argument.
Sasl = Kerberos | Plain


def check_sasl(sasl: object, transport: str) -> None:
    """Refuse a ``sasl`` argument that is not a :data:`Sasl`, or SASL over ``framed``.

    HBase's Thrift servers serve SASL over the buffered transport only ("Thrift server
    authentication doesn't work with framed transport yet").

    Raises:
        IllegalArgumentError: Naming the argument.
    """
    if sasl is None:
        return
    if not isinstance(sasl, (Kerberos, Plain)):
        raise IllegalArgumentError(
            "sasl must be hmodel.backend.sasl.Kerberos or Plain", field="sasl", value=sasl
        )
    if transport != "buffered":
        raise IllegalArgumentError(
            "sasl needs transport='buffered' (HBase serves SASL over the buffered transport only)",
            field="transport",
            value=transport,
        )


# --- negotiation messages ----------------------------------------------------------------


def write_message(trans: Any, status: Status, payload: bytes) -> None:
    """Send one negotiation message: its status byte, 4-byte big-endian length, payload."""
    trans.write(struct.pack(">BI", status, len(payload)) + payload)
    trans.flush()


def read_exactly(trans: Any, size: int) -> bytes:
    """Read exactly ``size`` bytes from a transport whose ``read`` may return fewer.

    Raises:
        TTransportException: The peer closed the connection first (``END_OF_FILE``).
    """
    parts = []
    while size > 0:
        chunk = trans.read(size)
        if not chunk:
            raise TTransportException(
                TTransportException.END_OF_FILE, "the peer closed the connection"
            )
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


class SaslProtocolError(TTransportException):
    """A negotiation message with an unknown status byte or a length over the limit."""


def read_message(trans: Any) -> tuple[int, bytes]:
    """Read one negotiation message: ``(status byte, payload)``.

    The header is checked before the payload is read, as Thrift's Java transport does:
    bytes that are not a SASL message (a client speaking plain Thrift) are refused at
    once instead of being waited for.

    Raises:
        SaslProtocolError: An unknown status byte, or a message that declares more than
            :data:`MAX_NEGOTIATION_BYTES`.
        TTransportException: The connection ended.
    """
    status, length = struct.unpack(">BI", read_exactly(trans, 5))
    if status not in _STATUSES:
        raise SaslProtocolError(TTransportException.UNKNOWN, f"Invalid status {status}")
    if length > MAX_NEGOTIATION_BYTES:
        raise SaslProtocolError(
            TTransportException.UNKNOWN,
            f"Invalid payload header length: {length} (limit {MAX_NEGOTIATION_BYTES})",
        )
    return status, read_exactly(trans, length) if length else b""


# --- mechanisms --------------------------------------------------------------------------


class _Mechanism(Protocol):
    complete: bool
    layer: int

    def initial(self) -> bytes: ...

    def step(self, challenge: bytes) -> bytes: ...

    def wrap(self, data: bytes) -> bytes: ...

    def unwrap(self, data: bytes) -> bytes: ...

    def dispose(self) -> None: ...


class _RefusedError(Exception):
    """The client side of a mechanism cannot go on (the message says why)."""


class _PlainClient:
    def __init__(self, config: Plain) -> None:
        self._config = config
        self.complete = False
        self.layer = 1

    def initial(self) -> bytes:
        self.complete = True
        config = self._config
        return b"\0".join(
            text.encode() for text in (config.authzid, config.username, config.password)
        )

    def step(self, challenge: bytes) -> bytes:
        raise _RefusedError("PLAIN takes no challenge")

    def wrap(self, data: bytes) -> bytes:
        return data

    def unwrap(self, data: bytes) -> bytes:
        return data

    def dispose(self) -> None:
        pass


class _GssapiClient:
    """RFC 4752: a GSS-API context, then the security-layer exchange, wrapped."""

    def __init__(self, config: Kerberos, host: str) -> None:
        import gssapi  # optional: pip install 'hmodel[kerberos]'

        self._gssapi = gssapi
        self._config = config
        self.complete = False
        self.layer = 1
        self._established = False
        store: dict[bytes | str, bytes | str] | None = (
            {"ccache": config.ccache} if config.ccache is not None else None
        )
        name = (
            gssapi.Name(config.principal, gssapi.NameType.kerberos_principal)
            if config.principal is not None
            else None
        )
        self.credentials = gssapi.Credentials(name=name, usage="initiate", store=store)
        flags = (
            gssapi.RequirementFlag.mutual_authentication
            | gssapi.RequirementFlag.integrity
            | gssapi.RequirementFlag.confidentiality
        )
        target = gssapi.Name(f"{config.service}@{host}", gssapi.NameType.hostbased_service)
        self._context: gssapi.SecurityContext = gssapi.SecurityContext(
            name=target, creds=self.credentials, usage="initiate", flags=flags
        )

    def initial(self) -> bytes:
        token = self._context.step()
        return token or b""

    def step(self, challenge: bytes) -> bytes:
        if not self._established:
            token = self._context.step(challenge)
            self._established = self._context.complete
            return token or b""
        return self._choose_layer(challenge)

    def _choose_layer(self, challenge: bytes) -> bytes:
        offer = self._context.unwrap(challenge).message
        if len(offer) != 4:
            raise _RefusedError(f"the server's security-layer offer has {len(offer)} bytes, not 4")
        offered = [qop for qop in QOPS if offer[0] & _LAYERS[qop]]
        chosen = next((qop for qop in self._config.qop if qop in offered), None)
        if chosen is None:
            raise _RefusedError(
                f"the server offers qop {offered} (hbase.thrift.security.qop) and the "
                f"client accepts {list(self._config.qop)}"
            )
        self.layer = _LAYERS[chosen]
        # RFC 4752: the maximum size is 0 when no security layer is chosen; no
        # authorization identity (the server then authorizes the principal itself).
        size = 0 if chosen == "auth" else _MAX_RECEIVE
        reply = bytes([self.layer]) + size.to_bytes(3, "big")
        self.complete = True
        return bytes(self._context.wrap(reply, False).message)

    def wrap(self, data: bytes) -> bytes:
        return bytes(self._context.wrap(data, self.layer == _LAYERS["auth-conf"]).message)

    def unwrap(self, data: bytes) -> bytes:
        result = self._context.unwrap(data)
        if self.layer == _LAYERS["auth-conf"] and not result.encrypted:
            raise _RefusedError("a frame arrived unencrypted under qop auth-conf")
        return bytes(result.message)

    def dispose(self) -> None:
        pass  # the context's resources are freed with it


# --- the transport -----------------------------------------------------------------------


class SaslClientTransport(TTransportBase):
    """Thrift's SASL transport (client side) over another transport, usually a socket.

    :meth:`open` opens the transport under it if needed and negotiates: a ``START``
    message naming the mechanism, then challenges and responses until the server says
    ``COMPLETE`` (each message: a status byte, a 4-byte big-endian length, the payload).
    Afterwards every :meth:`flush` sends what was written as one frame (a 4-byte
    big-endian length, then the bytes, wrapped by the GSS-API security layer when the
    quality of protection is ``auth-int`` or ``auth-conf``), and :meth:`read` returns
    bytes of the received frames, unwrapped. This is the framing of Apache Thrift's
    ``TSaslClientTransport``, which HBase's Thrift servers serve when
    ``hbase.thrift.security.qop`` is set (with the buffered transport, never framed).

    :meth:`read` returns at most ``size`` bytes (those left in the current frame), as a
    socket does: put a buffered transport over it (``TBufferedTransport(sasl)``) for a
    protocol, as the Thrift1 and Thrift2 channels do.

    Args:
        trans: The transport to run over (a thriftpy2 ``TSocket``, opened or not).
        sasl: The mechanism and its settings.
        host: The server's host, for the Kerberos service principal when ``sasl.host``
            is ``None``, and for error messages.
        where: ``host:port`` for error messages; ``host`` if ``None``.

    Raises:
        AuthenticationError: From :meth:`open`: the server refused the authentication,
            the client has no valid ticket, or no common quality of protection.
        TTransportException: From any method: the connection failed (the backend retries
            or reports it as a lost connection).
    """

    def __init__(self, trans: Any, sasl: Sasl, *, host: str, where: str | None = None) -> None:
        if not isinstance(sasl, (Kerberos, Plain)):
            raise IllegalArgumentError(
                "sasl must be hmodel.backend.sasl.Kerberos or Plain", field="sasl", value=sasl
            )
        self._trans = trans
        self._sasl = sasl
        self._host = sasl.host if isinstance(sasl, Kerberos) and sasl.host else host
        self._where = where or host
        self._mechanism: _Mechanism | None = None
        self._write = io.BytesIO()
        self._frame = b""
        self._offset = 0

    @property
    def layer(self) -> str | None:
        """The negotiated quality of protection (``auth``...), ``None`` before :meth:`open`."""
        mechanism = self._mechanism
        if mechanism is None or not mechanism.complete:
            return None
        return next(qop for qop, bit in _LAYERS.items() if bit == mechanism.layer)

    def is_open(self) -> bool:
        """Whether the connection is open and authenticated."""
        mechanism = self._mechanism
        return bool(self._trans.is_open()) and mechanism is not None and mechanism.complete

    def open(self) -> None:
        """Open the transport under this one if needed and authenticate.

        Raises:
            AuthenticationError: The authentication failed (the connection is closed).
            TTransportException: The connection failed or is already open.
        """
        if self._mechanism is not None:
            raise TTransportException(TTransportException.ALREADY_OPEN, "SASL already opened")
        if not self._trans.is_open():
            self._trans.open()
        try:
            self._negotiate()
        except BaseException:
            self._trans.close()
            raise

    def close(self) -> None:
        """Close the connection; :meth:`open` may then authenticate a new one."""
        self._trans.close()
        mechanism, self._mechanism = self._mechanism, None
        if mechanism is not None:
            mechanism.dispose()
        self._write = io.BytesIO()
        self._frame, self._offset = b"", 0

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the current frame; reads (and unwraps) the next if empty."""
        if self._offset >= len(self._frame):
            self._read_frame()
        start = self._offset
        self._offset = min(start + size, len(self._frame))
        return self._frame[start : self._offset]

    def write(self, data: bytes) -> None:
        """Buffer ``data`` until :meth:`flush`."""
        self._write.write(data)

    def flush(self) -> None:
        """Send the buffered bytes as one frame (wrapped under ``auth-int``/``auth-conf``)."""
        data = self._write.getvalue()
        if not data:
            return
        self._write = io.BytesIO()
        mechanism = self._opened()
        if mechanism.layer != 1:
            data = self._protect(mechanism.wrap, data)
        self._trans.write(struct.pack(">I", len(data)) + data)
        self._trans.flush()

    # --- internals ------------------------------------------------------------------

    def _opened(self) -> _Mechanism:
        mechanism = self._mechanism
        if mechanism is None or not mechanism.complete:
            raise TTransportException(TTransportException.NOT_OPEN, "SASL not negotiated")
        return mechanism

    def _read_frame(self) -> None:
        mechanism = self._opened()
        while True:
            (length,) = struct.unpack(">I", read_exactly(self._trans, 4))
            data = read_exactly(self._trans, length) if length else b""
            if mechanism.layer != 1:
                data = self._protect(mechanism.unwrap, data)
            if data:  # an empty frame carries nothing: read the next
                self._frame, self._offset = data, 0
                return

    def _protect(self, operation: Any, data: bytes) -> bytes:
        """Wrap or unwrap ``data``; a failure breaks the connection (a transport error)."""
        try:
            result: bytes = operation(data)
        except (_RefusedError, gss_error()) as exc:
            raise TTransportException(
                TTransportException.UNKNOWN, f"SASL security layer with {self._where}: {exc}"
            ) from exc
        return result

    def _principal(self) -> str | None:
        sasl = self._sasl
        if isinstance(sasl, Plain):
            return sasl.username
        if sasl.principal is not None:
            return sasl.principal
        mechanism = self._mechanism
        credentials = getattr(mechanism, "credentials", None)
        if credentials is not None:
            try:
                return str(credentials.name)
            except Exception:  # an expired cache cannot name its principal
                return None
        return None

    def _refused(self, why: str, cause: BaseException | None = None) -> AuthenticationError:
        sasl = self._sasl
        principal = self._principal()
        target = f" to {sasl.service}/{self._host}" if isinstance(sasl, Kerberos) else ""
        who = principal or "the credential cache's default principal"
        error = AuthenticationError(
            f"SASL {sasl.mechanism} authentication with {self._where}{target} as {who} "
            f"failed: {why}",
            host=self._where,
            principal=principal,
        )
        error.__cause__ = cause
        return error

    def _start(self) -> _Mechanism:
        sasl = self._sasl
        if isinstance(sasl, Plain):
            return _PlainClient(sasl)
        try:
            from gssapi.raw.misc import GSSError
        except ImportError as exc:
            raise self._refused(
                "Kerberos needs the gssapi package: pip install 'hmodel[kerberos]'", exc
            ) from exc
        try:
            return _GssapiClient(sasl, self._host)
        except GSSError as exc:
            raise self._refused(gss_text(exc), exc) from exc

    def _negotiate(self) -> None:
        mechanism = self._mechanism = self._start()
        try:
            self._exchange(mechanism)
        except _RefusedError as exc:
            self._tell_server(Status.ERROR, str(exc))
            raise self._refused(str(exc), exc) from exc
        except AuthenticationError:
            raise
        except TTransportException:
            raise
        except Exception as exc:
            if not isinstance(exc, gss_error()):
                raise
            self._tell_server(Status.ERROR, gss_text(exc))
            raise self._refused(gss_text(exc), exc) from exc

    def _exchange(self, mechanism: _Mechanism) -> None:
        trans = self._trans
        write_message(trans, Status.START, self._sasl.mechanism.encode())
        response = mechanism.initial()
        write_message(trans, Status.COMPLETE if mechanism.complete else Status.OK, response)
        status: int | None = None
        while not mechanism.complete:
            status, payload = self._receive()
            response = mechanism.step(payload)
            if status == Status.COMPLETE:
                if not mechanism.complete:
                    raise _RefusedError("the server completed before the client")
                break
            write_message(trans, Status.COMPLETE if mechanism.complete else Status.OK, response)
        if status is None or status == Status.OK:
            status, _payload = self._receive()
            if status != Status.COMPLETE:
                raise _RefusedError(f"expected COMPLETE from the server, got status {status}")

    def _receive(self) -> tuple[int, bytes]:
        status, payload = read_message(self._trans)
        if status in (Status.BAD, Status.ERROR):
            text = payload.decode("utf-8", errors="replace") or "no reason given"
            raise self._refused(f"the server answered {Status(status).name}: {text}")
        if status not in (Status.OK, Status.COMPLETE):
            raise _RefusedError(f"unexpected SASL status {status} from the server")
        return status, payload

    def _tell_server(self, status: Status, why: str) -> None:
        """Tell the server why the client gives up (best effort: it may be gone)."""
        with contextlib.suppress(TTransportException, OSError):
            write_message(self._trans, status, why.encode()[:1000])


class _NoGssError(Exception):
    """Never raised: what :func:`gss_error` answers without the gssapi package."""


def gss_error() -> type[Exception]:
    """The gssapi package's error class (a class nothing raises without the package)."""
    try:
        from gssapi.raw.misc import GSSError
    except ImportError:
        return _NoGssError
    error: type[Exception] = GSSError  # a typed name: gssapi may be absent for mypy
    return error


def gss_text(exc: BaseException) -> str:
    """A GSSAPI error in one line (its major and minor messages)."""
    gen_message = getattr(exc, "gen_message", None)
    text = gen_message() if callable(gen_message) else str(exc)
    return " ".join(str(text).split())
