"""hmodel: declare HBase schema-design patterns once, get them right on any backend."""

from hmodel.errors import HModelError

__all__ = ["HModelError"]
__version__ = "0.1.0.dev0"
