"""Schema-design patterns declared once, built on the public repository and backend API."""

from hmodel.patterns.ids import IdAllocator, id_table

__all__ = ["IdAllocator", "id_table"]
