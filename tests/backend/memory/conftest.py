"""Fixtures of the memory engine's own tests: an engine on a manual clock."""

from __future__ import annotations

import pytest

from hmodel.backend.memory import MemoryBackend
from hmodel.clock import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    """A clock that moves only when a test moves it."""
    return ManualClock(1_700_000_000_000)


@pytest.fixture
def engine(clock: ManualClock) -> MemoryBackend:
    """A fresh memory engine on the manual clock."""
    return MemoryBackend(clock=clock)
