"""The schema advisor: runs every rule over an inventory and applies the silences."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import attrs

from hmodel.backend.base import Backend
from hmodel.ops.config import IGNORE_ATTRIBUTE, CheckConfig, ignore_codes
from hmodel.ops.context import Context
from hmodel.ops.finding import Finding, Rule, Severity
from hmodel.ops.inventory import Inventory
from hmodel.ops.rule_family import F1, F2, F7, F11, check_f1, check_f2, check_f7, check_f11
from hmodel.ops.rule_key import K8, K10, K11, check_k8, check_k10, check_k11
from hmodel.ops.rule_sizing import S1, S2, S3, check_s1, check_s2, check_s3
from hmodel.ops.sizing import SizingPlan, plan_sizing

__all__ = ["RULES", "Ignored", "Report", "check"]

Checker = Callable[[Context], Iterator[Finding]]

#: Every rule the advisor knows, with its check, in catalogue order.
RULES: tuple[tuple[Rule, Checker], ...] = (
    (K8, check_k8),
    (K10, check_k10),
    (K11, check_k11),
    (F1, check_f1),
    (F2, check_f2),
    (F7, check_f7),
    (F11, check_f11),
    (S1, check_s1),
    (S2, check_s2),
    (S3, check_s3),
)


@attrs.frozen
class Ignored:
    """A finding silenced by the configuration, and why."""

    finding: Finding
    reason: str


@attrs.frozen
class Report:
    """What a check found.

    Attributes:
        inventory: What was checked.
        findings: The findings not silenced, most severe first.
        ignored: The findings silenced, with their reasons.
        notes: Rules that could not run for lack of numbers, and why.
        sizing: The regions, split points and MemStore budget of the tables with an
            expected volume (S1, S2, S3), or ``None`` when no table has one or no sizing
            rule ran.
    """

    inventory: Inventory
    findings: tuple[Finding, ...]
    ignored: tuple[Ignored, ...]
    notes: tuple[str, ...]
    sizing: SizingPlan | None = None

    def counts(self) -> dict[str, int]:
        """Findings per severity, every severity present (``{"error": 0, ...}``)."""
        return {s.value: sum(f.severity is s for f in self.findings) for s in Severity}

    def fails(self, threshold: Severity | None) -> bool:
        """Whether a finding is at or above ``threshold`` (never for ``None``)."""
        if threshold is None:
            return False
        return any(f.severity.rank >= threshold.rank for f in self.findings)


def _notes(config: CheckConfig, inventory: Inventory) -> list[str]:
    notes = []
    if config.heap is None or config.region_servers is None:
        notes.append("HM-S2 not checked: give the region servers' heap and count")
    if not any(config.volume(t.full_name).data_bytes is not None for t in inventory.tables):
        notes.append(
            "HM-S1/HM-S3 volume checks not run: give an expected volume per table "
            "(--volume TABLE=2TB, or --rows and --row-bytes)"
        )
    declared = {t.full_name for t in inventory.tables}
    for name in sorted(set(config.volumes) - declared):
        notes.append(
            f"a volume is given for table {name!r}, which the checked modules do not declare "
            f"(they declare {', '.join(sorted(declared))})"
        )
    return notes


def _in_code_ignores(inventory: Inventory) -> dict[str, dict[str, str]]:
    """The silences declared on model classes, by subject (``model:Name``).

    Raises:
        CheckConfigError: A class attribute that is not ``{code: reason}``.
    """
    found = {}
    for info in inventory.models:
        codes = info.cls.__dict__.get(IGNORE_ATTRIBUTE)
        if codes is not None:
            where = f"{info.cls.__qualname__}.{IGNORE_ATTRIBUTE}"
            found[f"model:{info.name}"] = ignore_codes(codes, where)
    return found


def _order(finding: Finding) -> tuple[int, str, str, str]:
    return (-finding.severity.rank, finding.code, str(finding.subject), finding.message)


def check(
    inventory: Inventory,
    config: CheckConfig,
    *,
    select: Iterable[str] | None = None,
    backend: Backend | None = None,
) -> Report:
    """Run the rules (all, or the codes in ``select``) and split off the silenced findings.

    A finding is silenced by ``config.ignore`` for its subject, or, for a model, by the
    class attribute ``__hmodel_ignore__ = {"HM-K8": "reason"}`` beside its declaration.
    When a sizing rule (HM-S1, HM-S2, HM-S3) runs, the report carries the sizing plan of
    the tables with an expected volume; with ``backend``, the tables whose key layout does
    not tell their split points are sampled there (keys only, at most
    ``config.sample_rows`` rows a table; nothing is written).

    Raises:
        CheckConfigError: A model's ``__hmodel_ignore__`` is not ``{code: reason}``.
        BackendError: A live table cannot be scanned.
    """
    wanted = None if select is None else set(select)
    context = Context(inventory, config, backend)
    in_code = _in_code_ignores(inventory)
    kept: list[Finding] = []
    ignored: list[Ignored] = []
    for rule, checker in RULES:
        if wanted is not None and rule.code not in wanted:
            continue
        for finding in checker(context):
            subject = str(finding.subject)
            reason = config.ignored(subject, finding.code)
            if reason is None:
                reason = in_code.get(subject, {}).get(finding.code)
            if reason is None:
                kept.append(finding)
            else:
                ignored.append(Ignored(finding, reason))
    sizing = None
    if wanted is None or wanted & {S1.code, S2.code, S3.code}:
        sizing = plan_sizing(context)
    return Report(
        inventory,
        tuple(sorted(kept, key=_order)),
        tuple(ignored),
        tuple(_notes(config, inventory)),
        sizing,
    )
