"""MemoryTable's derived state follows its declaration (for admin calls that change it)."""

from __future__ import annotations

from hmodel.backend.base import Cell, Put
from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock
from hmodel.schema import Family, Table


def test_redeclare_recomputes_versions_ttl_and_parsed_columns() -> None:
    """A new family TTL hides expired cells; a new VERSIONS keeps more; columns re-parse."""
    clock = ManualClock(100_000)
    engine = MemoryBackend(clock=clock)
    engine.create_table(Table("t", [Family("f")]))
    engine.mutate("t", [Put(b"r", b"f:q", b"old", timestamp=1_000)])
    assert engine.get("t", [b"r"], columns=[b"f"])[0].cells == {b"f:q": Cell(b"old", 1_000)}
    table = engine._tables["t"]  # the engine's own table object: no public admin call yet
    with table.lock:
        table.redeclare(Table("t", [Family("f", versions=2, ttl=10)]))
    assert engine.get("t", [b"r"]) == []  # 1,000 + 10 s < 100,000: expired
    assert engine.get("t", [b"r"], columns=[b"f"]) == []
    engine.mutate("t", [Put(b"r", b"f:q", b"a", timestamp=99_000)])
    engine.mutate("t", [Put(b"r", b"f:q", b"b", timestamp=99_500)])
    versions = engine.get_versions("t", b"r", b"f:q", max_versions=5)
    assert versions == [Cell(b"b", 99_500), Cell(b"a", 99_000)]
