"""The HBase filter language (Thrift filter strings) for the in-memory engine (I4)."""

from hmodel.backend.memory.filter.comparator import CompareOp
from hmodel.backend.memory.filter.evaluator import (
    FilterProgram,
    FilterRun,
    RowVerdict,
    compile_filter,
)
from hmodel.backend.memory.filter.factory import SUPPORTED_FILTERS

__all__ = [
    "SUPPORTED_FILTERS",
    "CompareOp",
    "FilterProgram",
    "FilterRun",
    "RowVerdict",
    "compile_filter",
]
