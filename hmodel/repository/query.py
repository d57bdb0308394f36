"""A typed, frozen description of a key-range read: what to scan, not how."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from hmodel.errors import QueryError
from hmodel.repository.condition import Condition

__all__ = ["Query"]


def _prefix(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if value is None:
        return MappingProxyType({})
    if not isinstance(value, Mapping):
        raise QueryError("prefix maps leading key fields to values", value=value)
    return MappingProxyType(dict(value))


def _fields(value: Sequence[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise QueryError("fields is a collection of names, not one string", field=value)
    return tuple(value)


@attrs.frozen(hash=False)
class Query:
    """What a scan, a page or an explain reads (K1, K3, K6, R8, I4, I5).

    Built by the repository from its keyword arguments, or by the caller and reused
    (``repo.scan(query=q)``, ``repo.page(50, query=q)``): a query is a value; the same
    query gives the same plan, and page tokens are bound to it.

    Attributes:
        prefix: Values of a leading subset of the key fields (K1), e.g. all orders of one
            customer: ``{"customer_id": "c1"}``. Empty: the whole table.
        low: Logical lower bound on the key field that follows the prefix (``None``: none).
        high: Logical upper bound on that field (``None``: none).
        low_inclusive: Whether ``low`` itself is included (default: yes).
        high_inclusive: Whether ``high`` itself is included (default: no).
        reverse: Highest keys first.
        fields: Read only these fields (``None``: all).
        where: A server-side condition on non-key fields (I4).
        limit: At most this many models (``None``: all); rows of other record types
            sharing the range (R1) do not count.
    """

    prefix: Mapping[str, Any] = attrs.field(factory=dict, converter=_prefix)
    low: Any = None
    high: Any = None
    low_inclusive: bool = True
    high_inclusive: bool = False
    reverse: bool = False
    fields: tuple[str, ...] | None = attrs.field(default=None, converter=_fields)
    where: Condition | None = None
    limit: int | None = None

    def __attrs_post_init__(self) -> None:
        for name in ("low_inclusive", "high_inclusive", "reverse"):
            if not isinstance(getattr(self, name), bool):
                raise QueryError(f"{name} must be a bool", field=name, value=getattr(self, name))
        limit = self.limit
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
        ):
            raise QueryError("limit must be an int >= 0", field="limit", value=limit)
        if self.where is not None and not isinstance(self.where, Condition):
            raise QueryError(
                "where takes a condition built with where(...)", field="where", value=self.where
            )

    def replace(self, **changes: Any) -> Query:
        """A copy with some attributes changed."""
        return attrs.evolve(self, **changes)
