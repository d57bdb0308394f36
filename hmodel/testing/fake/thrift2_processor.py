"""Dispatch of one Thrift2 call to the handler, with HBase's error replies."""

from __future__ import annotations

import logging
import re
from typing import Any

from thriftpy2.thrift import TApplicationException, TException, TMessageType, TType

from hmodel.backend.thrift2.idl import HBASE2
from hmodel.errors import HModelError
from hmodel.testing.fake.thrift2_error import DATA_CALLS, internal_error, reply_for

__all__ = ["Thrift2Processor", "handler_name"]

logger = logging.getLogger(__name__)

_UPPER = re.compile(r"(?<!^)(?=[A-Z])")


def handler_name(api: str) -> str:
    """The handler method of a Thrift2 call: ``getScannerRows`` -> ``get_scanner_rows``.

    >>> handler_name("checkAndMutate")
    'check_and_mutate'
    """
    return _UPPER.sub("_", api).lower()


class Thrift2Processor:
    """Reads one ``THBaseService`` call, runs the handler method, writes the reply.

    A declared exception raised by the handler (``TIOError``, ``TIllegalArgument``) goes
    back as that exception, a ``TApplicationException`` as one; an
    :class:`~hmodel.errors.HModelError` is translated by
    :func:`~hmodel.testing.fake.thrift2_error.reply_for`; any other exception is a bug of
    the fake, logged and answered ``INTERNAL_ERROR``. An unknown call gets
    ``UNKNOWN_METHOD``. Only a request that cannot be decoded escapes (the server then
    drops that connection).

    Args:
        handler: The ``THBaseService`` handler.
    """

    def __init__(self, handler: Any) -> None:
        self.handler = handler
        self._service: Any = HBASE2.THBaseService

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
        method = getattr(self.handler, handler_name(api))
        values = [getattr(args, spec[1]) for spec in args.thrift_spec.values()]
        try:
            result.success = method(*values)
        except TApplicationException as exc:
            self._send(oprot, api, seqid, exc, TMessageType.EXCEPTION)
            return
        except Exception as exc:  # every failure must become a reply
            table = values[0] if api in DATA_CALLS and isinstance(values[0], bytes) else None
            reply = self._reply_for(api, exc, [spec[2] for spec in declared.values()], table)
            if isinstance(reply, TApplicationException):
                self._send(oprot, api, seqid, reply, TMessageType.EXCEPTION)
                return
            for spec in declared.values():
                if isinstance(reply, spec[2]):
                    setattr(result, spec[1], reply)
                    break
            else:
                self._send(oprot, api, seqid, internal_error(api), TMessageType.EXCEPTION)
                return
        self._send(oprot, api, seqid, result, TMessageType.REPLY)

    @staticmethod
    def _reply_for(
        api: str, exc: Exception, declared: list[type[Exception]], table: bytes | None
    ) -> Exception:
        if isinstance(exc, TException) and isinstance(exc, tuple(declared)):
            return exc
        if isinstance(exc, HModelError):
            return reply_for(exc, api=api, table=table)
        logger.exception("internal error processing %s", api)
        return internal_error(api)

    @staticmethod
    def _send(oprot: Any, api: str, seqid: int, payload: Any, message_type: int) -> None:
        oprot.write_message_begin(api, message_type, seqid)
        payload.write(oprot)
        oprot.write_message_end()
        oprot.trans.flush()
