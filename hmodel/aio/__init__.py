"""The asyncio API: repositories, units of work, stores, the patterns, the async backends.

The same names, arguments, types and errors as the synchronous API, as coroutines (and
async iterators for scans), over an :class:`~hmodel.backend.aio.AsyncBackend`. Each
operation is the synchronous one's own sans-I/O operation (:mod:`hmodel.backend.op`),
run by an awaiting driver: no logic is written twice. See ``docs/async.md`` for what is
asynchronous so far.
"""

from hmodel.aio.copies import AsyncCopy
from hmodel.aio.ids import AsyncIdAllocator
from hmodel.aio.index import AsyncIndexedRepository
from hmodel.aio.records import AsyncRecordTypes
from hmodel.aio.relation import AsyncRelation
from hmodel.aio.repository import AsyncRepository
from hmodel.aio.store import AsyncStore
from hmodel.aio.summary import AsyncSummarizedRepository, AsyncSummary
from hmodel.aio.taxonomy import AsyncTaxonomy
from hmodel.aio.timebucket import AsyncTimeSeries
from hmodel.aio.unit_of_work import AsyncUnitOfWork
from hmodel.backend.aio import AsyncBackend, AsyncScanner, InProcessAsyncBackend
from hmodel.backend.memory import AsyncMemoryBackend
from hmodel.backend.thrift import AsyncThriftBackend
from hmodel.backend.thrift2 import AsyncThrift2Backend

__all__ = [
    "AsyncBackend",
    "AsyncCopy",
    "AsyncIdAllocator",
    "AsyncIndexedRepository",
    "AsyncMemoryBackend",
    "AsyncRecordTypes",
    "AsyncRelation",
    "AsyncRepository",
    "AsyncScanner",
    "AsyncStore",
    "AsyncSummarizedRepository",
    "AsyncSummary",
    "AsyncTaxonomy",
    "AsyncThrift2Backend",
    "AsyncThriftBackend",
    "AsyncTimeSeries",
    "AsyncUnitOfWork",
    "InProcessAsyncBackend",
]
