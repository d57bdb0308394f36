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

__all__ = [
    "Backend",
    "Cell",
    "Delete",
    "Increment",
    "Mutation",
    "Put",
    "Region",
    "RowResult",
    "Scan",
    "prefix_stop",
]
