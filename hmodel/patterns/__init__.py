"""The schema-design patterns as declarations, one module per pattern family (R1-R10, I1-I3, K9).

Each module uses only the public repository API (an import contract checks it):
``records`` (R1, R2), ``copies`` (R3, R7), ``relation`` (R6), ``ids`` (K9),
``timebucket`` (R9).
"""

from hmodel.patterns.copies import Copy, CopyReport, StaleCopy
from hmodel.patterns.ids import IdAllocator, id_table
from hmodel.patterns.records import Aggregate, RecordTypes
from hmodel.patterns.relation import OneSidedLink, Relation
from hmodel.patterns.timebucket import Point, TimeBuckets, TimeSeries

__all__ = [
    "Aggregate",
    "Copy",
    "CopyReport",
    "IdAllocator",
    "OneSidedLink",
    "Point",
    "RecordTypes",
    "Relation",
    "StaleCopy",
    "TimeBuckets",
    "TimeSeries",
    "id_table",
]
