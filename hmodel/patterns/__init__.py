"""The schema-design patterns as declarations, one module per pattern family (R1-R10, I1-I3)."""

from hmodel.patterns.records import Aggregate, RecordTypes

__all__ = ["Aggregate", "RecordTypes"]
