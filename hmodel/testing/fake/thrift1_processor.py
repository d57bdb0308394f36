"""Dispatch of one Thrift1 call to the handler, with HBase's error replies."""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from typing import Any

from thriftpy2.thrift import TApplicationException, TException, TMessageType, TType

from hmodel.errors import HModelError
from hmodel.testing.fake.serving import CloseConnection
from hmodel.testing.fake.thrift1_error import internal_error, thrift_error
from hmodel.testing.fake.thrift1_handler import HBaseHandler
from hmodel.testing.fake.thrift1_idl import HBASE_THRIFT, method_name

__all__ = ["CallHook", "Drop", "DroppedConnectionError", "HBaseProcessor"]


class Drop(enum.Enum):
    """How a :data:`CallHook` makes the server drop a client's connection on a call.

    Attributes:
        BEFORE: Close the connection without running the call: it never happened.
        AFTER: Run the call, then close the connection instead of replying: it happened,
            and the client cannot know.
    """

    BEFORE = "before"
    AFTER = "after"


#: Called with each Thrift method name (``"scannerGetList"``) before the call runs; returns
#: a :class:`Drop` to lose the connection there, ``None`` to serve the call. For tests
#: of what a client does when the network fails at a chosen point.
CallHook = Callable[[str], "Drop | None"]


class DroppedConnectionError(CloseConnection):
    """A :data:`CallHook` asked to drop the connection; the server closes it quietly."""


logger = logging.getLogger(__name__)


class HBaseProcessor:
    """Reads one call from a protocol, runs the handler method, writes the reply.

    A declared Thrift exception raised by the handler goes back as that exception; an
    :class:`~hmodel.errors.HModelError` is translated by
    :func:`~hmodel.testing.fake.thrift1_error.thrift_error`; any other exception is a bug in the
    server, logged and answered with a ``TApplicationException`` (``INTERNAL_ERROR``), as
    Java Thrift does, so the connection keeps serving. An unknown method gets
    ``UNKNOWN_METHOD``. Only a request that cannot be decoded escapes (the caller then drops
    that one connection: the stream cannot be resynchronised).

    Args:
        handler: The ``Hbase`` service handler.
        hook: Asked before each call whether to drop the connection (see :data:`CallHook`);
            ``None`` serves every call.
    """

    def __init__(self, handler: HBaseHandler, *, hook: CallHook | None = None) -> None:
        self.handler = handler
        self.hook = hook
        self._service: Any = HBASE_THRIFT.Hbase

    def process(self, iprot: Any, oprot: Any) -> None:
        """Serve one request read from ``iprot`` and write its reply to ``oprot``."""
        api, _message_type, seqid = iprot.read_message_begin()
        if api not in self._service.thrift_services:
            iprot.skip(TType.STRUCT)
            iprot.read_message_end()
            error = TApplicationException(
                TApplicationException.UNKNOWN_METHOD, f"Invalid method name: '{api}'"
            )
            self._send(oprot, api, seqid, error, TMessageType.EXCEPTION)
            return
        args = getattr(self._service, f"{api}_args")()
        args.read(iprot)
        iprot.read_message_end()
        result = getattr(self._service, f"{api}_result")()
        declared = {key: spec for key, spec in result.thrift_spec.items() if key != 0}
        method = getattr(self.handler, method_name(api))
        values = [getattr(args, spec[1]) for spec in args.thrift_spec.values()]
        drop = self.hook(api) if self.hook is not None else None
        if drop is Drop.BEFORE:
            raise DroppedConnectionError(f"{api} dropped before it ran")
        try:
            result.success = method(*values)
        except TApplicationException as exc:
            if drop is Drop.AFTER:
                raise DroppedConnectionError(f"{api} ran; its reply was dropped") from exc
            self._send(oprot, api, seqid, exc, TMessageType.EXCEPTION)
            return
        except Exception as exc:  # every failure must become a reply
            reply = self._reply_for(api, exc, [spec[2] for spec in declared.values()])
            if drop is Drop.AFTER:
                raise DroppedConnectionError(f"{api} ran; its reply was dropped") from exc
            if isinstance(reply, TApplicationException):
                self._send(oprot, api, seqid, reply, TMessageType.EXCEPTION)
                return
            for spec in declared.values():
                if isinstance(reply, spec[2]):
                    setattr(result, spec[1], reply)
                    break
        if drop is Drop.AFTER:
            raise DroppedConnectionError(f"{api} ran; its reply was dropped")
        self._send(oprot, api, seqid, result, TMessageType.REPLY)

    @staticmethod
    def _reply_for(api: str, exc: Exception, declared: list[type[Exception]]) -> Exception:
        if isinstance(exc, TException) and isinstance(exc, tuple(declared)):
            return exc
        if isinstance(exc, HModelError):
            reply = thrift_error(exc, declared)
            if isinstance(reply, TApplicationException):
                # Java Thrift names the method of an undeclared exception first; the
                # cause follows, which HBase's reply leaves out.
                return internal_error(f"Internal error processing {api}: {reply.message}")
            return reply
        logger.exception("internal error processing %s", api)
        return internal_error(f"Internal error processing {api}: {type(exc).__name__}: {exc}")

    @staticmethod
    def _send(oprot: Any, api: str, seqid: int, payload: Any, message_type: int) -> None:
        oprot.write_message_begin(api, message_type, seqid)
        payload.write(oprot)
        oprot.write_message_end()
        oprot.trans.flush()
