"""Schema-design patterns declared once, built on the public repository and backend API."""

from hmodel.patterns.ids import IdAllocator, id_table
from hmodel.patterns.timebucket import Point, TimeBuckets, TimeSeries

__all__ = ["IdAllocator", "Point", "TimeBuckets", "TimeSeries", "id_table"]
