"""Repositories: typed CRUD, key-range scans, pages, counters, versions and locking."""

from hmodel.repository.condition import And, Comparison, Condition, Or, where
from hmodel.repository.event import Listener, QueryEvent
from hmodel.repository.explain import Explanation, PlannedCall
from hmodel.repository.page import Page
from hmodel.repository.plan import KeySpan, RowCursor, ScanPlan, execute, execute_op, open_rows
from hmodel.repository.query import Query
from hmodel.repository.repository import OnError, Repository
from hmodel.repository.store import Store
from hmodel.repository.unit_of_work import UnitOfWork

__all__ = [
    "And",
    "Comparison",
    "Condition",
    "Explanation",
    "KeySpan",
    "Listener",
    "OnError",
    "Or",
    "Page",
    "PlannedCall",
    "Query",
    "QueryEvent",
    "Repository",
    "RowCursor",
    "ScanPlan",
    "Store",
    "UnitOfWork",
    "execute",
    "execute_op",
    "open_rows",
    "where",
]
