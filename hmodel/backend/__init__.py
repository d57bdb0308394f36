"""Backends: the bytes-level Backend protocol and its implementations."""

from hmodel.backend.base import (
    Backend,
    Cell,
    Delete,
    Increment,
    Mutation,
    Put,
    Region,
    RowResult,
    Scan,
    prefix_stop,
)
from hmodel.backend.endpoint import HTTP, TLS
from hmodel.backend.forwarding import ForwardingBackend

__all__ = [
    "HTTP",
    "TLS",
    "Backend",
    "Cell",
    "Delete",
    "ForwardingBackend",
    "Increment",
    "Mutation",
    "Put",
    "Region",
    "RowResult",
    "Scan",
    "prefix_stop",
]
