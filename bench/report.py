"""Reporting: the results as a table, as JSON, and checked against the targets."""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from bench.harness import Result
from bench.targets import Target

__all__ = ["as_json", "misses", "table"]


def _number(value: float) -> str:
    """``value`` to about three significant digits, with thousands separators."""
    if value >= 100:
        return f"{value:,.0f}"
    if value == int(value):
        return f"{value:.0f}"
    return f"{value:.2f}"


def _status(result: Result, target: Target | None) -> tuple[str, str]:
    if target is None:
        return "", ""
    return target.describe(), "ok" if target.met(result.value) else "MISSED"


def table(results: Sequence[Result], targets: Mapping[str, Target]) -> str:
    """A plain-text table: one line per result with its unit, target, status and note."""
    header = ("benchmark", "value", "unit", "target", "", "what")
    rows = [header]
    for result in results:
        target, status = _status(result, targets.get(result.name))
        value = _number(result.value)
        if result.spread is not None:
            value += f" ({_number(result.spread[0])}-{_number(result.spread[1])})"
        rows.append((result.name, value, result.unit, target, status, result.note))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = []
    group = ""
    for index, row in enumerate(rows):
        if index and row[0].partition(".")[0] != group:
            group = row[0].partition(".")[0]
            lines.append("")
        cells = [
            row[0].ljust(widths[0]),
            row[1].rjust(widths[1]),
            row[2].ljust(widths[2]),
            row[3].rjust(widths[3]),
            row[4].ljust(widths[4]),
            row[5],
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def misses(results: Sequence[Result], targets: Mapping[str, Target]) -> list[str]:
    """One line per missed target; targets of benchmarks that did not run are skipped."""
    found = {result.name: result for result in results}
    problems = []
    for name, target in targets.items():
        result = found.get(name)
        if result is None:
            continue
        if not target.met(result.value):
            problems.append(
                f"{name}: {_number(result.value)} {result.unit}, target {target.describe()}"
            )
    return problems


def as_json(results: Sequence[Result], targets: Mapping[str, Target], *, quick: bool) -> str:
    """The results, their targets and the machine they ran on, as indented JSON."""
    document: dict[str, Any] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "quick": quick,
        "results": [
            {
                "name": r.name,
                "value": r.value,
                "unit": r.unit,
                "better": r.better,
                "note": r.note,
                "spread": None if r.spread is None else list(r.spread),
                "target": None if r.name not in targets else targets[r.name].describe(),
                "met": None if r.name not in targets else targets[r.name].met(r.value),
            }
            for r in results
        ],
    }
    return json.dumps(document, indent=2)
