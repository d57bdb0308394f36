"""The server side of Thrift's SASL transport for the fake servers: GSSAPI (a keytab) and PLAIN."""

from __future__ import annotations

import contextlib
import io
import struct
import threading
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import attrs
from thriftpy2.transport import TCyBufferedTransport, TTransportBase, TTransportException

from hmodel.backend.sasl import (
    QOPS,
    SaslProtocolError,
    Status,
    gss_error,
    gss_text,
    layer_of,
    read_exactly,
    read_message,
    write_message,
)
from hmodel.errors import ValidationError

__all__ = ["SaslAcceptor", "SaslServerTransport"]

#: The largest wrapped frame the fake says it receives (RFC 4752: 3 bytes).
_MAX_RECEIVE = 0xFFFFFF


class _RefusalError(Exception):
    """The client's authentication is refused (the message goes back to it in a ``BAD``)."""


#: The largest SASL data frame read (libthrift 0.14's default maximum message size,
#: ``TConfiguration.DEFAULT_MAX_MESSAGE_SIZE``): a larger declared length closes the
#: connection before its bytes are received.
MAX_DATA_FRAME_BYTES = 100 * 1024 * 1024


def _qops(value: str | Sequence[str]) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else tuple(value)
    if not names or any(name not in QOPS for name in names):
        raise ValidationError(
            "qop must be one of 'auth', 'auth-int', 'auth-conf' or a sequence of them",
            field="qop",
            value=value,
        )
    return names


@attrs.frozen(eq=False)
class SaslAcceptor:
    """What a fake server requires of its clients: SASL, as a secured HBase Thrift server.

    Pass it as ``FakeHBaseServer(sasl=...)``: every connection must then authenticate
    first, with GSSAPI (Kerberos, when ``keytab`` is given) or PLAIN (when ``plain`` is),
    before its first call, exactly as HBase's Thrift servers do with
    ``hbase.thrift.security.qop`` set (they offer GSSAPI only). A refused client gets a
    ``BAD`` message saying why and its connection is closed.

    Args:
        keytab: The service's keytab (``hbase.thrift.keytab.file``): accept GSSAPI for
            the principals in it; ``None``: no GSSAPI.
        principal: Accept tickets for this service principal only
            (``hbase/localhost@REALM``, as ``hbase.thrift.kerberos.principal``); ``None``:
            any principal of the keytab.
        qop: The qualities of protection offered (``hbase.thrift.security.qop``; HBase
            offers exactly one).
        plain: Users and their passwords accepted with PLAIN; ``None``: no PLAIN.

    Attributes:
        users: Each authenticated client's identity (its Kerberos principal, or the PLAIN
            user), in order; for tests.
    """

    keytab: str | None = None
    principal: str | None = None
    qop: tuple[str, ...] = attrs.field(default=("auth-conf",), converter=_qops)
    plain: Mapping[str, str] | None = attrs.field(default=None, repr=False)
    users: list[str] = attrs.field(factory=list, init=False, repr=False)
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if self.keytab is None and not self.plain:
            raise ValidationError(
                "a SaslAcceptor needs a keytab (GSSAPI) or plain users", field="keytab"
            )

    @property
    def mechanisms(self) -> tuple[str, ...]:
        """The mechanism names accepted."""
        return (*(("GSSAPI",) if self.keytab else ()), *(("PLAIN",) if self.plain else ()))

    def get_transport(self, trans: Any) -> Any:
        """A buffered transport over a :class:`SaslServerTransport` over ``trans``."""
        return TCyBufferedTransport(SaslServerTransport(trans, self))

    def _authenticated(self, user: str) -> None:
        with self._lock:
            self.users.append(user)


class _PlainServer:
    def __init__(self, users: Mapping[str, str]) -> None:
        self._users = users
        self.complete = False
        self.layer = 1
        self.user = ""

    def step(self, response: bytes) -> bytes:
        parts = response.split(b"\0")
        if len(parts) != 3:
            raise _RefusalError("PLAIN response is not authzid NUL authcid NUL passwd")
        authzid, user, password = (part.decode("utf-8", errors="replace") for part in parts)
        if self._users.get(user) != password:
            raise _RefusalError(f"PLAIN: wrong user name or password for {user!r}")
        if authzid and authzid != user:
            raise _RefusalError(f"PLAIN: {user!r} may not act as {authzid!r}")
        self.user = user
        self.complete = True
        return b""

    def wrap(self, data: bytes) -> bytes:
        return data

    def unwrap(self, data: bytes) -> bytes:
        return data


class _GssapiServer:
    """RFC 4752, acceptor side: the context, then the security-layer offer and choice."""

    def __init__(self, acceptor: SaslAcceptor) -> None:
        import gssapi

        self._gssapi = gssapi
        name = (
            gssapi.Name(acceptor.principal, gssapi.NameType.kerberos_principal)
            if acceptor.principal is not None
            else None
        )
        credentials = gssapi.Credentials(
            name=name, usage="accept", store={"keytab": str(acceptor.keytab)}
        )
        self._context = gssapi.SecurityContext(creds=credentials, usage="accept")
        self._offer = sum(layer_of(qop) for qop in acceptor.qop)
        self._stage = 0
        self.complete = False
        self.layer = 1
        self.user = ""

    def step(self, response: bytes) -> bytes:
        context = self._context
        if self._stage == 0:
            token = context.step(response)
            if not context.complete:
                return token or b""
            self.user = str(context.initiator_name)
            self._stage = 1
            if token:
                return bytes(token)  # mutual authentication: the client answers empty
            response = b""
        if self._stage == 1:
            if response:
                raise _RefusalError("expected an empty response after the context was established")
            self._stage = 2
            offer = bytes([self._offer]) + _MAX_RECEIVE.to_bytes(3, "big")
            return bytes(context.wrap(offer, False).message)
        choice = context.unwrap(response).message
        if len(choice) < 4:
            raise _RefusalError("the security-layer choice is shorter than 4 bytes")
        layer = choice[0]
        if layer not in (1, 2, 4) or not layer & self._offer:
            raise _RefusalError(f"the client chose security layer {layer}, not offered")
        authzid = bytes(choice[4:]).decode("utf-8", errors="replace")
        if authzid and authzid != self.user:  # HBase: the authorization id must be the principal
            raise _RefusalError(f"{self.user} may not act as {authzid}")
        self.layer = layer
        self.complete = True
        return b""

    def wrap(self, data: bytes) -> bytes:
        return bytes(self._context.wrap(data, self.layer == layer_of("auth-conf")).message)

    def unwrap(self, data: bytes) -> bytes:
        result = self._context.unwrap(data)
        if self.layer == layer_of("auth-conf") and not result.encrypted:
            raise _RefusalError("a frame arrived unencrypted under qop auth-conf")
        return bytes(result.message)


class SaslServerTransport(TTransportBase):
    """Thrift's SASL transport, server side, over a client's socket.

    It authenticates the client when first read from (in the client's own thread, so a
    slow or failing client holds no one else up), then reads and writes frames as
    :class:`~hmodel.backend.sasl.SaslClientTransport` does, unwrapping and wrapping them
    under ``auth-int`` and ``auth-conf``. :meth:`read` returns at most the bytes left in
    the current frame: use it under a buffered transport
    (:meth:`SaslAcceptor.get_transport`).

    Raises:
        TTransportException: The client failed to authenticate (it was sent ``BAD`` with
            the reason), or broke the protocol, or went away.
    """

    def __init__(self, trans: Any, acceptor: SaslAcceptor) -> None:
        self._trans = trans
        self._acceptor = acceptor
        self._mechanism: _PlainServer | _GssapiServer | None = None
        self._write = io.BytesIO()
        self._frame = b""
        self._offset = 0

    def is_open(self) -> bool:
        """Whether the socket is open."""
        return bool(self._trans.is_open())

    def open(self) -> None:
        """Authenticate the client (done by the first :meth:`read` otherwise)."""
        if self._mechanism is None:
            self._negotiate()

    def close(self) -> None:
        """Close the connection."""
        self._trans.close()

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the current frame, the next frame read if it is used up."""
        mechanism = self._mechanism
        if mechanism is None or not mechanism.complete:
            self._negotiate()
            mechanism = self._mechanism
            assert mechanism is not None
        while self._offset >= len(self._frame):
            (length,) = struct.unpack(">I", read_exactly(self._trans, 4))
            if length > MAX_DATA_FRAME_BYTES:  # refused before a byte of it is buffered
                raise TTransportException(
                    TTransportException.UNKNOWN,
                    f"SASL frame of {length} bytes over the limit of {MAX_DATA_FRAME_BYTES}",
                )
            data = read_exactly(self._trans, length) if length else b""
            if mechanism.layer != 1:
                data = self._guard(mechanism.unwrap, data)
            self._frame, self._offset = data, 0
        start = self._offset
        self._offset = min(start + size, len(self._frame))
        return self._frame[start : self._offset]

    def write(self, data: bytes) -> None:
        """Buffer ``data`` until :meth:`flush`."""
        self._write.write(data)

    def flush(self) -> None:
        """Send the buffered bytes as one frame (wrapped under ``auth-int``/``auth-conf``)."""
        data = self._write.getvalue()
        mechanism = self._mechanism
        if not data or mechanism is None:
            return
        self._write = io.BytesIO()
        if mechanism.layer != 1:
            data = self._guard(mechanism.wrap, data)
        self._trans.write(struct.pack(">I", len(data)) + data)
        self._trans.flush()

    # --- internals ------------------------------------------------------------------

    def _guard(self, operation: Any, data: bytes) -> bytes:
        try:
            result: bytes = operation(data)
        except (_RefusalError, gss_error()) as exc:
            raise TTransportException(TTransportException.UNKNOWN, str(exc)) from exc
        return result

    def _negotiate(self) -> None:
        trans = self._trans
        try:
            status, payload = read_message(trans)
        except SaslProtocolError as exc:  # not SASL (plain Thrift?): say so, as HBase does
            self._refuse(str(exc.message), Status.ERROR)
        if status != Status.START:
            self._refuse(f"expected a START message, got status {status}")
        name = payload.decode("utf-8", errors="replace")
        if name not in self._acceptor.mechanisms:
            self._refuse(f"Unsupported mechanism type {name}")
        try:
            mechanism = self._mechanism = (
                _GssapiServer(self._acceptor)
                if name == "GSSAPI"
                else _PlainServer(self._acceptor.plain or {})
            )
            while not mechanism.complete:
                status, payload = read_message(trans)
                if status in (Status.BAD, Status.ERROR):
                    raise TTransportException(
                        TTransportException.UNKNOWN,
                        "the client gave up: " + payload.decode("utf-8", errors="replace"),
                    )
                if status not in (Status.OK, Status.COMPLETE):
                    raise _RefusalError(f"expected OK or COMPLETE, got status {status}")
                challenge = mechanism.step(payload)
                write_message(
                    trans, Status.COMPLETE if mechanism.complete else Status.OK, challenge
                )
        except _RefusalError as exc:
            self._refuse(str(exc))
        except TTransportException:
            raise
        except Exception as exc:
            if not isinstance(exc, gss_error()):
                raise
            self._refuse(gss_text(exc))
        self._acceptor._authenticated(mechanism.user)

    def _refuse(self, why: str, status: Status = Status.BAD) -> NoReturn:
        with contextlib.suppress(TTransportException, OSError):
            write_message(self._trans, status, why.encode()[:1000])
        raise TTransportException(TTransportException.UNKNOWN, f"SASL refused: {why}")
