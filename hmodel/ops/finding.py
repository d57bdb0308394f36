"""What the advisor reports: severities, the rules of the catalogue and their findings."""

from __future__ import annotations

import enum
from typing import Any

import attrs

__all__ = ["Finding", "Rule", "Severity", "Subject"]


class Severity(str, enum.Enum):
    """How serious a finding is; ``--fail-on`` compares against this order."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        """0 for info, 1 for warning, 2 for error."""
        return list(Severity).index(self)


@attrs.frozen(order=True)
class Subject:
    """What a finding is about: a model, a table, or the cluster as a whole.

    Attributes:
        kind: ``"model"``, ``"table"`` or ``"cluster"``.
        name: The model's name, the table's full name, or ``"cluster"``.
    """

    kind: str
    name: str

    def __str__(self) -> str:
        return self.name if self.kind == "cluster" else f"{self.kind}:{self.name}"


@attrs.frozen
class Rule:
    """One rule of the pattern catalogue, as the advisor checks it.

    Attributes:
        code: The finding code, ``HM-`` and the pattern id (``HM-K8``).
        pattern: The catalogue's pattern id (``K8``).
        sources: The sections of the HBase reference guide that teach the rule, by
            title (``("Monotonically Increasing Row Keys/Timeseries Data",)``).
        title: The rule in a few words.
        reason: Why the rule holds.
    """

    code: str
    pattern: str
    sources: tuple[str, ...]
    title: str
    reason: str


@attrs.frozen
class Finding:
    """One rule broken by one declaration.

    Attributes:
        rule: The rule broken.
        severity: How serious this instance is.
        subject: The model, table or cluster it concerns.
        message: What is wrong, with the numbers.
        fix: What to change.
        module: The module that declares the subject, if known.
    """

    rule: Rule
    severity: Severity
    subject: Subject
    message: str
    fix: str
    module: str | None = None

    @property
    def code(self) -> str:
        """The rule's code, e.g. ``HM-K8``."""
        return self.rule.code

    def as_dict(self) -> dict[str, Any]:
        """Return the finding as JSON-ready data."""
        return {
            "code": self.code,
            "severity": self.severity.value,
            "subject": str(self.subject),
            "kind": self.subject.kind,
            "name": self.subject.name,
            "module": self.module,
            "message": self.message,
            "fix": self.fix,
            "pattern": self.rule.pattern,
            "sources": list(self.rule.sources),
            "reason": self.rule.reason,
        }
