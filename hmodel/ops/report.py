"""The advisor's report as text for people and JSON for CI."""

from __future__ import annotations

import json
import textwrap

from hmodel.ops.advisor import Report

__all__ = ["render_json", "render_text"]


def render_text(report: Report, *, verbose: bool = False) -> str:
    """Return the report as text: one block per finding, then a summary line.

    Each block is ``CODE severity subject: message``, then the fix and, with
    ``verbose``, the reason with its pattern id and the HBase reference guide's
    sections.
    """
    lines = []
    for finding in report.findings:
        lines.append(
            f"{finding.code} {finding.severity.value} {finding.subject}: {finding.message}"
        )
        lines.append(f"    fix: {finding.fix}")
        if verbose:
            rule = finding.rule
            sections = ", ".join(f'"{title}"' for title in rule.sources)
            why = f"why ({rule.pattern}; HBase reference guide: {sections}): "
            why += rule.reason
            lines += textwrap.wrap(why, 96, initial_indent="    ", subsequent_indent="      ")
    for item in report.ignored:
        if verbose:
            lines.append(f"ignored {item.finding.code} {item.finding.subject}: {item.reason}")
    lines += [f"note: {note}" for note in report.notes]
    counts = report.counts()
    inventory = report.inventory
    summary = ", ".join(f"{n} {severity}" for severity, n in reversed(counts.items()))
    lines.append(
        f"checked {len(inventory.tables)} tables, {len(inventory.models)} models: "
        f"{summary}; {len(report.ignored)} ignored"
    )
    return "\n".join(lines)


def render_json(report: Report) -> str:
    """Return the report as a JSON document (``findings``, ``ignored``, ``summary``...)."""
    inventory = report.inventory
    document = {
        "tables": [t.full_name for t in inventory.tables],
        "models": [m.name for m in inventory.models],
        "findings": [f.as_dict() for f in report.findings],
        "ignored": [{**i.finding.as_dict(), "ignore_reason": i.reason} for i in report.ignored],
        "notes": list(report.notes),
        "summary": {**report.counts(), "ignored": len(report.ignored)},
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
