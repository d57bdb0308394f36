"""The schema-design patterns as declarations, one module per pattern family (R1-R11, I1-I3, K9).

Each module uses only the public repository API (an import contract checks it):
``records`` (R1, R2), ``copies`` (R3, R7), ``relation`` (R6), ``taxonomy`` (R11), ``ids`` (K9),
``timebucket`` (R9), ``summary`` (I3: summary tables kept by counters), ``migration`` and
``revision`` (online data migrations and their revision table), ``index`` (I1-I3: the
declaration and its rows),
``index_repository`` (I1: the writes that keep indexes consistent), ``index_job``
(I2, I3: backfill, verify and rebuild), and ``guard`` (the row guard copies and
relations write through).
"""

from hmodel.patterns.copies import Copy, CopyCore, CopyReport, StaleCopy
from hmodel.patterns.guard import Outcome, RowGuard
from hmodel.patterns.ids import IdAllocator, id_table
from hmodel.patterns.index import Entry, Index
from hmodel.patterns.index_job import (
    Job,
    JobReport,
    Progress,
    Shard,
    ShardReport,
    plan_shards,
    process_batch,
    run_index_job,
    run_job,
    run_shard,
    run_shard_with,
)
from hmodel.patterns.index_repository import IndexedRepository, IndexStats, parse_result
from hmodel.patterns.migration import (
    DataMigration,
    MigratingRepository,
    MigrationReport,
    Migrator,
    VerifyReport,
)
from hmodel.patterns.records import Aggregate, RecordTypes, RecordTypesCore
from hmodel.patterns.relation import OneSidedLink, Relation, RelationCore
from hmodel.patterns.revision import (
    PHASES,
    REVISION_TABLE,
    RevisionState,
    RevisionTable,
    ordered_revisions,
)
from hmodel.patterns.summary import (
    Count,
    Sum,
    SummarizedRepository,
    Summary,
    SummaryReport,
    Tally,
    WrongGroup,
)
from hmodel.patterns.taxonomy import Taxonomy, TaxonomyCore
from hmodel.patterns.timebucket import Point, TimeBuckets, TimeSeries

__all__ = [
    "PHASES",
    "REVISION_TABLE",
    "Aggregate",
    "Copy",
    "CopyCore",
    "CopyReport",
    "Count",
    "DataMigration",
    "Entry",
    "IdAllocator",
    "Index",
    "IndexStats",
    "IndexedRepository",
    "Job",
    "JobReport",
    "MigratingRepository",
    "MigrationReport",
    "Migrator",
    "OneSidedLink",
    "Outcome",
    "Point",
    "Progress",
    "RecordTypes",
    "RecordTypesCore",
    "Relation",
    "RelationCore",
    "RevisionState",
    "RevisionTable",
    "RowGuard",
    "Shard",
    "ShardReport",
    "StaleCopy",
    "Sum",
    "SummarizedRepository",
    "Summary",
    "SummaryReport",
    "Tally",
    "Taxonomy",
    "TaxonomyCore",
    "TimeBuckets",
    "TimeSeries",
    "VerifyReport",
    "WrongGroup",
    "id_table",
    "ordered_revisions",
    "parse_result",
    "plan_shards",
    "process_batch",
    "run_index_job",
    "run_job",
    "run_shard",
    "run_shard_with",
]
