"""What every advisor rule reads: the declarations and the settings."""

from __future__ import annotations

from typing import Any

import attrs

from hmodel.backend.base import Backend
from hmodel.model import ModelInfo
from hmodel.ops.config import CheckConfig
from hmodel.ops.finding import Finding, Rule, Severity, Subject
from hmodel.ops.inventory import Inventory
from hmodel.ops.locate import model_location, table_location
from hmodel.schema import Table, regions_for

__all__ = ["Context"]


@attrs.frozen
class Context:
    """The inventory and the settings, with the helpers rules share.

    Attributes:
        inventory: The tables and models checked.
        config: The numbers and silences.
        backend: A live cluster to sample rowkeys from when a key layout does not tell
            its split points (S3), or ``None``.
        memo: Results computed once per check and shared by the rules (the sizing plans).
    """

    inventory: Inventory
    config: CheckConfig
    backend: Backend | None = None
    memo: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)

    def for_model(
        self, rule: Rule, severity: Severity, info: ModelInfo, message: str, fix: str
    ) -> Finding:
        """Return a finding about model ``info``, at the line that declares it."""
        return Finding(
            rule,
            severity,
            Subject("model", info.name),
            message,
            fix,
            info.cls.__module__,
            location=model_location(info.cls),
        )

    def for_table(
        self, rule: Rule, severity: Severity, table: Table, message: str, fix: str
    ) -> Finding:
        """Return a finding about ``table``, at the line that declares it."""
        return Finding(
            rule,
            severity,
            Subject("table", table.full_name),
            message,
            fix,
            location=table_location(table),
        )

    def regions(self, table: Table) -> int:
        """The regions ``table`` is created with: its split points plus one."""
        return len(table.splits) + 1

    def needed_regions(self, table: Table) -> int | None:
        """The regions the expected volume asks for (S1, S3), or ``None`` without one."""
        data = self.config.volume(table.full_name).data_bytes
        if data is None:
            return None
        return regions_for(
            data, region_size=self.config.region_size, max_regions=self.config.max_regions
        )
