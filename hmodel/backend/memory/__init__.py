"""The in-memory HBase engine: a fake in the fakeredis sense (see ``docs/engine.md``)."""

from hmodel.backend.memory.aio import AsyncMemoryBackend
from hmodel.backend.memory.backend import MemoryBackend
from hmodel.backend.memory.mutation import VersionDelete
from hmodel.backend.memory.store import CellKind, RawCell

__all__ = ["AsyncMemoryBackend", "CellKind", "MemoryBackend", "RawCell", "VersionDelete"]
