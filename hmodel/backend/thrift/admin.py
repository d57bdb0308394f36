"""Where a Thrift1 backend sends the DDL Thrift1 cannot carry: a Thrift2 server's createTable."""

from __future__ import annotations

from hmodel.backend.base import Backend
from hmodel.backend.sasl import Sasl
from hmodel.errors import IllegalArgumentError

__all__ = ["Admin", "admin_backend"]

#: A Thrift2 server's ``"host:port"``, its port on the Thrift1 server's host, or a backend.
Admin = Backend | str | int


def _port(text: object, admin: object) -> int:
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise IllegalArgumentError("admin's port must be an int", value=admin)
    try:
        port = int(text)
    except ValueError:
        raise IllegalArgumentError(
            'admin is "host:port" of a Thrift2 server, its port, or a backend', value=admin
        ) from None
    if not 0 < port <= 65_535:
        raise IllegalArgumentError("admin's port must be from 1 to 65535", value=admin)
    return port


def admin_backend(
    admin: Admin,
    *,
    host: str,
    timeout_ms: int | None,
    transport: str,
    protocol: str,
    table_prefix: str | None,
    table_prefix_separator: str,
    sasl: Sasl | None = None,
) -> Backend:
    """The backend that creates tables for a Thrift1 backend on ``host``.

    A :class:`~hmodel.backend.base.Backend` is used as given (its table prefix must be the
    Thrift1 backend's). A ``"host:port"`` string, or a port on the Thrift1 server's
    ``host``, opens a :class:`~hmodel.backend.thrift2.Thrift2Backend` with the Thrift1
    backend's transport, protocol, timeout, table prefix and SASL, and one connection. It does
    not connect until its first call.

    Raises:
        IllegalArgumentError: ``admin`` is none of these, or a backend with another table
            prefix.
    """
    if not isinstance(admin, (str, int)):
        if not isinstance(admin, Backend):
            raise IllegalArgumentError(
                'admin is "host:port" of a Thrift2 server, its port, or a backend', value=admin
            )
        prefix = getattr(admin, "table_prefix", table_prefix)
        if prefix != table_prefix:
            raise IllegalArgumentError(
                f"the admin backend's table_prefix {prefix!r} is not this backend's "
                f"{table_prefix!r}: tables would be created under other names",
                value=admin,
            )
        return admin
    if isinstance(admin, str) and ":" in admin:
        admin_host, _, port_text = admin.rpartition(":")
        port = _port(port_text, admin)
        admin_host = admin_host or host
    else:
        admin_host, port = host, _port(admin, admin)
    # The one import of the Thrift2 backend from the Thrift1 one (pyproject's import-linter
    # contract lists it): DDL only, when the caller names a Thrift2 address.
    from hmodel.backend.thrift2 import Thrift2Backend

    return Thrift2Backend(
        admin_host,
        port,
        timeout_ms=timeout_ms,
        transport=transport,
        protocol=protocol,
        table_prefix=table_prefix,
        table_prefix_separator=table_prefix_separator,
        pool_size=1,
        autoconnect=False,
        sasl=sasl,
    )
