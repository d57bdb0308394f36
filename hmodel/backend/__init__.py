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
from hmodel.backend.forwarding import ForwardingBackend

__all__ = [
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
