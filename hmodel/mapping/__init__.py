"""Model instances <-> cells: pure translation to mutations and from rows, no I/O."""

from hmodel.mapping.mapper import Mapper, mapper_for

__all__ = ["Mapper", "mapper_for"]
