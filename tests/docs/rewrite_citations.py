"""Rewrite the design-note citations and dead roles in files other branches also edit.

Run from the repository root: ``python tests/docs/rewrite_citations.py`` (``--check`` only
reports). Each rewrite replaces one exact text by its new form and is idempotent: a text
already rewritten is skipped, and a text found in neither form is reported (the file
changed under it: rewrite that place by hand, after the same rule). Then
``python -m pytest tests/docs tests/ops -q`` checks the result.

The rule, as for the rest of the package: cite pattern ids and the HBase reference guide's
sections by title, never the design notes ("seed 001 §37.2", "seeds 000"); the advisor's
rules carry ``sources`` (reference-guide section titles) instead of ``seeds``.
"""

# ruff: noqa: E501 (the rewrites quote whole lines of other files)

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_K8 = (
    "    (\n"
    '        "Monotonically Increasing Row Keys/Timeseries Data",\n'
    '        "Case Study - Log Data and Timeseries Data",\n'
    "    ),\n"
)

#: (path, old text, new text)
REWRITES: list[tuple[str, str, str]] = [
    # --- the advisor's rules: sources instead of seeds -----------------------------------
    (
        "hmodel/ops/finding.py",
        '        seeds: The source documents that teach the rule (``("000", "001 §37.2")``).\n'
        "        title: The rule in a few words.\n"
        "        reason: Why the rule holds, after the source documents.\n",
        "        sources: The sections of the HBase reference guide that teach the rule, by\n"
        '            title (``("Monotonically Increasing Row Keys/Timeseries Data",)``).\n'
        "        title: The rule in a few words.\n"
        "        reason: Why the rule holds.\n",
    ),
    ("hmodel/ops/finding.py", "    seeds: tuple[str, ...]\n", "    sources: tuple[str, ...]\n"),
    (
        "hmodel/ops/finding.py",
        '            "seeds": list(self.rule.seeds),\n',
        '            "sources": list(self.rule.sources),\n',
    ),
    (
        "hmodel/ops/report.py",
        "    ``verbose``, the reason with its pattern id and source documents.\n",
        "    ``verbose``, the reason with its pattern id and the HBase reference guide's\n"
        "    sections.\n",
    ),
    (
        "hmodel/ops/report.py",
        "            why = f\"why ({rule.pattern}, seeds {', '.join(rule.seeds)}): {rule.reason}\"\n",
        '            sections = ", ".join(f\'"{title}"\' for title in rule.sources)\n'
        '            why = f"why ({rule.pattern}; HBase reference guide: {sections}): "\n'
        "            why += rule.reason\n",
    ),
    ("hmodel/ops/rule_key.py", '    ("000", "001 §37.2", "001 §45.1"),\n', _K8),
    (
        "hmodel/ops/rule_key.py",
        '    ("001 §37.6", "002"),\n',
        '    ("Immutability of Rowkeys", "Try to minimize row and column sizes"),\n',
    ),
    (
        "hmodel/ops/rule_key.py",
        '    ("000", "001 §37.7", "004"),\n',
        '    ("Relationship Between RowKeys and Region Splits",),\n',
    ),
    (
        "hmodel/ops/rule_family.py",
        '    ("000", "001 §36", "003", "004"),\n',
        '    ("On the number of Column Families",),\n',
    ),
    (
        "hmodel/ops/rule_family.py",
        '    ("000", "001 §37.3", "004"),\n',
        '    ("Try to minimize row and column sizes",),\n',
    ),
    (
        "hmodel/ops/rule_family.py",
        '    ("001 §38", "001 §45.4.1"),\n',
        '    ("Number of Versions", \'Case Study - "Tall/Wide/Middle" Schema Design Smackdown\'),\n',
    ),
    (
        "hmodel/ops/rule_family.py",
        '    ("000", "004"),\n    "large cells",\n',
        '    ("Storing Medium-sized Objects (MOB)",),\n    "large cells",\n',
    ),
    (
        "hmodel/ops/rule_family.py",
        "#: Longest family name F2 accepts, in bytes (the documents say one letter).\n",
        "#: Longest family name F2 accepts, in bytes (F2 says one letter).\n",
    ),
    (
        "hmodel/ops/rule_sizing.py",
        '    ("000", "004"),\n    "region count and size",\n',
        '    ("Regionserver Sizing Rules of Thumb",),\n    "region count and size",\n',
    ),
    (
        "hmodel/ops/rule_sizing.py",
        '    ("000",),\n    "MemStore demand',
        '    ("Regionserver Sizing Rules of Thumb",),\n    "MemStore demand',
    ),
    (
        "hmodel/ops/rule_sizing.py",
        '    ("000",),\n    "not pre-split',
        '    ("Relationship Between RowKeys and Region Splits",),\n    "not pre-split',
    ),
    (
        "tests/ops/test_check_command.py",
        '    assert s3["seeds"] == ["000"]\n',
        '    assert s3["sources"] == ["Relationship Between RowKeys and Region Splits"]\n',
    ),
    (
        "tests/ops/test_check_command.py",
        '    assert "why (K8, seeds 000, 001 §37.2, 001 §45.1)" in out\n',
        "    assert 'why (K8; HBase reference guide: \"Monotonically Increasing Row Keys' in out\n"
        '    assert "seed" not in out\n',
    ),
    # --- the operations page -------------------------------------------------------------
    (
        "docs/operations.md",
        "A design with the mistakes the documents warn about (a module on the path):",
        "A design with the mistakes the patterns warn about (a module on the path):",
    ),
    (
        "docs/operations.md",
        '"""A click-stream design with the mistakes the documents warn about."""',
        '"""A click-stream design with the mistakes the patterns warn about."""',
    ),
    (
        "docs/operations.md",
        "`-v` adds each rule's reason, with its pattern id and the source documents (`seeds/000`...)\n"
        "that teach it;",
        "`-v` adds each rule's reason, with its pattern id and the sections of the HBase reference\n"
        "guide that teach it;",
    ),
    (
        "docs/operations.md",
        "`pattern`, `seeds` and `reason`.",
        "`pattern`, `sources` and `reason`.",
    ),
    # --- a role that names a parameter, not a method -------------------------------------
    (
        "hmodel/backend/thrift/scanner.py",
        "deferred to :meth:`defer_close`.",
        "deferred to ``defer_close``.",
    ),
]


def rewrite(root: Path, *, check: bool = False) -> list[str]:
    """Apply (or with ``check`` only look for) every rewrite; return what could not be done."""
    problems = []
    for path, old, new in REWRITES:
        file = root / path
        text = file.read_text(encoding="utf-8")
        if old in text:
            if check:
                problems.append(f"{path}: not rewritten yet: {old.strip()[:60]}")
            else:
                file.write_text(text.replace(old, new), encoding="utf-8")
        elif new not in text:
            problems.append(f"{path}: found in neither form: {old.strip()[:60]}")
    return problems


if __name__ == "__main__":
    left = rewrite(ROOT, check="--check" in sys.argv)
    print("\n".join(left) or "all rewrites in place")
    sys.exit(1 if left else 0)
