"""The job runner: every bulk operation in resumable shards, on any executor.

A job is a :class:`Task` (what to do with rows: an index backfill, verify or rebuild;
a copy sync, verify or repair; a relation verify or repair; a summary table's
recount; a data migration's move or verify) and its shards (key ranges
of the task's tables, one or more per region). :func:`run_job` plans the shards,
records the plan and every shard's progress in a :class:`CheckpointStore` (a local
directory, or an HBase table of its own), runs the unfinished shards on an executor
(in-process, a process pool, Dask distributed, Spark) under a rate limit, and sums the
shards' records into a :class:`JobReport`. A job killed at any point resumes where it
stopped when run again with the same id. See ``docs/jobs.md``.
"""

from hmodel.jobs.checkpoints import (
    JOBS_TABLE,
    Checkpoint,
    CheckpointStore,
    DirectoryCheckpoints,
    Plan,
    TableCheckpoints,
)
from hmodel.jobs.executors import (
    DaskExecutor,
    Executor,
    InlineExecutor,
    ProcessExecutor,
    SparkExecutor,
)
from hmodel.jobs.limit import RateLimit, TokenBucket
from hmodel.jobs.model import (
    CheckpointConflictError,
    JobError,
    JobReport,
    Shard,
    ShardReport,
    ShardWork,
    Tally,
    Target,
    Task,
)
from hmodel.jobs.runner import Hook, Progress, ShardCall, job_status, run_job, run_shard
from hmodel.jobs.sharding import Sharding, plan_shards, split_range
from hmodel.jobs.summary_task import TALLIES_TABLE, SummaryTask, run_summary_job
from hmodel.jobs.tasks import CopyTask, IndexTask, MigrationTask, RelationTask

__all__ = [
    "JOBS_TABLE",
    "TALLIES_TABLE",
    "Checkpoint",
    "CheckpointConflictError",
    "CheckpointStore",
    "CopyTask",
    "DaskExecutor",
    "DirectoryCheckpoints",
    "Executor",
    "Hook",
    "IndexTask",
    "InlineExecutor",
    "JobError",
    "JobReport",
    "MigrationTask",
    "Plan",
    "ProcessExecutor",
    "Progress",
    "RateLimit",
    "RelationTask",
    "Shard",
    "ShardCall",
    "ShardReport",
    "ShardWork",
    "Sharding",
    "SparkExecutor",
    "SummaryTask",
    "TableCheckpoints",
    "Tally",
    "Target",
    "Task",
    "TokenBucket",
    "job_status",
    "plan_shards",
    "run_job",
    "run_shard",
    "run_summary_job",
    "split_range",
]
