"""The advisor's report for people (text) and for CI (JSON, GitHub, SARIF, JUnit).

The formats are ruff's: ``text`` prints ``file:line: CODE severity subject: message``;
``github`` prints workflow commands that annotate the declaration's line in a pull
request; ``sarif`` is SARIF 2.1.0 for code scanning; ``junit`` is a JUnit XML report,
one test case per finding.

The sizing plan (regions, split points, MemStore budget of the tables with an expected
volume; S1, S2, S3) is in every format: a ``sizing`` section of the text and of the JSON
document, ``notice`` annotations on GitHub, the run's ``properties.sizing`` in SARIF and
a passing test suite ``hmodel sizing`` in JUnit. It is never a finding: only findings
set the exit status.
"""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from hmodel import __version__
from hmodel.ops.advisor import RULES, Report
from hmodel.ops.finding import Finding, Severity
from hmodel.ops.locate import Location
from hmodel.ops.sizing import SizingPlan, SplitPlan, format_bytes

__all__ = [
    "FORMATS",
    "counted",
    "render",
    "render_github",
    "render_json",
    "render_junit",
    "render_sarif",
    "render_text",
    "use_colour",
]


def _display(location: Location) -> str:
    """The file as ruff shows it: relative to the working directory when under it."""
    path = Path(location.file)
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def _where(finding: Finding) -> str:
    location = finding.location
    return "" if location is None else f"{_display(location)}:{location.line}: "


def _decimal(size: int) -> str:
    """``size`` with a decimal unit, as volumes are given: ``2.0 TB``."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def _plan_heading(plan: SplitPlan) -> str:
    where = "" if plan.location is None else f"{_display(plan.location)}:{plan.location.line}: "
    return (
        f"{where}table:{plan.table}: {_decimal(plan.data_bytes)} "
        f"({format_bytes(plan.data_bytes)}) expected: {plan.needed} regions of "
        f"{format_bytes(plan.region_bytes)} (declared: {plan.declared})"
    )


def _plan_lines(plan: SplitPlan) -> list[str]:
    """The text of one table's plan: heading, split points as Python and shell, note."""
    lines = [_plan_heading(plan)]
    if plan.points is not None and plan.needed > 1:
        lines.append(
            f"    split points ({plan.layout}): {len(plan.points)}, "
            f"for {len(plan.points) + 1} regions"
        )
    if plan.declaration is not None:
        lines.append(f"    Table: {plan.declaration}")
    if plan.shell is not None:
        lines.append(f"    shell: {plan.shell}")
    if plan.note is not None:
        lines.append(f"    note: {plan.note}")
    return lines


def render_sizing(sizing: SizingPlan) -> list[str]:
    """Return the sizing plan as text lines: one block per table, then the MemStore sums."""
    lines = ["sizing (S1, S3; 10-50 GB a region, at most max-regions a table):"]
    for plan in sizing.tables:
        lines += ["  " + line for line in _plan_lines(plan)]
    if sizing.memstore is not None:
        lines.append(f"  memstore (S2): {sizing.memstore.advice}")
    return lines


#: ANSI colours of a terminal: the code bold, each severity in its colour (ruff's look).
_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_BOLD, _RESET = "\033[1m", "\033[0m"


def use_colour(stream: Any, environ: Mapping[str, str]) -> bool:
    """Whether to colour text written to ``stream``: a terminal, and colour not turned off.

    ``NO_COLOR`` (any value, https://no-color.org) turns it off; ``FORCE_COLOR``
    (any value) turns it on even when ``stream`` is not a terminal.
    """
    if "NO_COLOR" in environ:
        return False
    if "FORCE_COLOR" in environ:
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def render_text(report: Report, *, verbose: bool = False, colour: bool = False) -> str:
    """Return the report as text: one block per finding, the sizing plan, a summary line.

    Each block is ``file:line: CODE severity subject: message`` (no ``file:line`` for
    the cluster), then the fix and, with ``verbose``, the reason with its pattern id
    and public sources. With ``colour`` the code is bold and the severity coloured
    (ANSI escapes, for a terminal: see :func:`use_colour`).
    """
    lines = []
    for finding in report.findings:
        code, severity = finding.code, finding.severity.value
        if colour:
            code = f"{_BOLD}{code}{_RESET}"
            severity = f"{_COLOURS[severity]}{severity}{_RESET}"
        lines.append(f"{_where(finding)}{code} {severity} {finding.subject}: {finding.message}")
        lines.append(f"    fix: {finding.fix}")
        if verbose:
            rule = finding.rule
            why = f"why ({rule.pattern}; {'; '.join(rule.sources)}): {rule.reason}"
            lines += textwrap.wrap(why, 96, initial_indent="    ", subsequent_indent="      ")
    for item in report.ignored:
        if verbose:
            lines.append(f"ignored {item.finding.code} {item.finding.subject}: {item.reason}")
    if report.sizing is not None:
        lines += render_sizing(report.sizing)
    lines += [f"note: {note}" for note in report.notes]
    counts = report.counts()
    inventory = report.inventory
    summary = ", ".join(counted(n, f"{severity}") for severity, n in reversed(counts.items()))
    lines.append(
        f"checked {counted(len(inventory.tables), 'table')}, "
        f"{counted(len(inventory.models), 'model')}: {summary}; {len(report.ignored)} ignored"
    )
    return "\n".join(lines)


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless ``count`` is 1 (``info`` has no plural).

    >>> counted(1, "table"), counted(2, "warning"), counted(0, "error"), counted(3, "info")
    ('1 table', '2 warnings', '0 errors', '3 info')
    """
    return f"{count} {noun}" if count == 1 or noun == "info" else f"{count} {noun}s"


def render_json(report: Report) -> str:
    """Return the report as a JSON document (``findings``, ``ignored``, ``sizing``...).

    ``sizing`` is ``null`` without a volume, else ``{"tables": [...], "memstore": ...}``:
    per table the needed and declared regions, the key ``layout``, the ``points`` as
    shell literals, the ``declaration`` and ``shell`` text and a ``note``.
    """
    inventory = report.inventory
    document = {
        "tables": [t.full_name for t in inventory.tables],
        "models": [m.name for m in inventory.models],
        "findings": [f.as_dict() for f in report.findings],
        "ignored": [{**i.finding.as_dict(), "ignore_reason": i.reason} for i in report.ignored],
        "notes": list(report.notes),
        "sizing": None if report.sizing is None else report.sizing.as_dict(),
        "summary": {**report.counts(), "ignored": len(report.ignored)},
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    """Return one GitHub Actions workflow command per finding (``::error file=...``).

    Errors are ``error``, warnings ``warning`` and infos ``notice`` annotations; a
    finding with a location annotates its declaration's line. The sizing plan adds one
    ``notice`` per table (at the table's line) and one for the MemStore budget. Nothing
    else is printed, so a report without findings or sizing is an empty string.
    """
    lines = []
    for finding in report.findings:
        properties = [f"title={_escape_property(f'hmodel ({finding.code})')}"]
        if finding.location is not None:
            properties.append(f"file={_escape_property(_display(finding.location))}")
            properties.append(f"line={finding.location.line}")
        text = f"{_where(finding)}{finding.code} {finding.subject}: {finding.message}"
        text += f" (fix: {finding.fix})"
        lines.append(
            f"::{_GITHUB_LEVEL[finding.severity]} {','.join(properties)}::{_escape_data(text)}"
        )
    if report.sizing is not None:
        for plan in report.sizing.tables:
            properties = [f"title={_escape_property(f'hmodel sizing (table:{plan.table})')}"]
            if plan.location is not None:
                properties.append(f"file={_escape_property(_display(plan.location))}")
                properties.append(f"line={plan.location.line}")
            text = "\n".join(_plan_lines(plan))
            lines.append(f"::notice {','.join(properties)}::{_escape_data(text)}")
        if report.sizing.memstore is not None:
            title = _escape_property("hmodel sizing (memstore)")
            advice = _escape_data(report.sizing.memstore.advice)
            lines.append(f"::notice title={title}::{advice}")
    return "\n".join(lines)


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _artifact(location: Location) -> dict[str, str]:
    path = Path(location.file)
    try:
        return {"uri": path.relative_to(Path.cwd()).as_posix(), "uriBaseId": "%SRCROOT%"}
    except ValueError:
        return {"uri": path.as_uri()}


def render_sarif(report: Report) -> str:
    """Return the report as a SARIF 2.1.0 log, for GitHub code scanning and other tools.

    One run of the tool ``hmodel`` listing every rule (id, title, reason, pattern and
    sources); one result per finding, at its declaration's line when known. The sizing
    plan, when there is one, is the run's property ``sizing`` (as in the JSON document).
    """
    rules = [rule for rule, _ in RULES]
    index = {rule.code: i for i, rule in enumerate(rules)}
    results = []
    for finding in report.findings:
        result: dict[str, object] = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": _SARIF_LEVEL[finding.severity],
            "message": {"text": f"{finding.subject}: {finding.message} (fix: {finding.fix})"},
        }
        if finding.location is not None:
            result["locations"] = [
                {
                    "physicalLocation": {
                        "artifactLocation": _artifact(finding.location),
                        "region": {"startLine": finding.location.line},
                    }
                }
            ]
        results.append(result)
    driver = {
        "name": "hmodel",
        "version": __version__,
        "rules": [
            {
                "id": rule.code,
                "name": rule.title,
                "shortDescription": {"text": rule.title},
                "fullDescription": {"text": rule.reason},
                "help": {"text": f"{rule.reason} Sources: {'; '.join(rule.sources)}."},
                "helpUri": rule.sources[0],
                "properties": {"pattern": rule.pattern, "sources": list(rule.sources)},
            }
            for rule in rules
        ],
    }
    run: dict[str, object] = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "results": results,
    }
    if report.sizing is not None:
        run["properties"] = {"sizing": report.sizing.as_dict()}
    document = {"$schema": _SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False)


def render_junit(report: Report) -> str:
    """Return the report as JUnit XML: one test suite per file, one failing case per finding.

    Findings without a file (the cluster) form the suite ``hmodel``. A report without
    findings is one passing test case, so CI shows that the check ran. The sizing plan,
    when there is one, is the suite ``hmodel sizing``: one passing case per table (and
    one for the MemStore budget) whose ``system-out`` holds its text.
    """
    suites: dict[str, list[Finding]] = {}
    for finding in report.findings:
        name = "hmodel" if finding.location is None else _display(finding.location)
        suites.setdefault(name, []).append(finding)
    total = str(len(report.findings))
    root = ElementTree.Element("testsuites", name="hmodel", tests=total, failures=total, errors="0")
    if not suites:
        suite = ElementTree.SubElement(
            root, "testsuite", name="hmodel", tests="1", failures="0", errors="0"
        )
        ElementTree.SubElement(suite, "testcase", name="hmodel")
        root.set("tests", "1")
    for name, findings in suites.items():
        count = str(len(findings))
        suite = ElementTree.SubElement(
            root, "testsuite", name=name, tests=count, failures=count, errors="0"
        )
        for finding in findings:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                name=f"hmodel.{finding.code}",
                classname=os.path.splitext(name)[0].replace("/", "."),
            )
            if finding.location is not None:
                case.set("file", name)
                case.set("line", str(finding.location.line))
            failure = ElementTree.SubElement(
                case, "failure", message=f"{finding.subject}: {finding.message}"
            )
            where = "" if finding.location is None else f"line {finding.location.line}, "
            failure.text = (
                f"{where}{finding.severity.value} {finding.subject}: {finding.message}\n"
                f"fix: {finding.fix}"
            )
    if report.sizing is not None:
        _junit_sizing(root, report.sizing)
    ElementTree.indent(root)
    body = ElementTree.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}'


def _junit_sizing(root: ElementTree.Element, sizing: SizingPlan) -> None:
    cases = [(f"table:{plan.table}", "\n".join(_plan_lines(plan))) for plan in sizing.tables]
    if sizing.memstore is not None:
        cases.append(("memstore", sizing.memstore.advice))
    count = str(len(cases))
    suite = ElementTree.SubElement(
        root, "testsuite", name="hmodel sizing", tests=count, failures="0", errors="0"
    )
    for name, text in cases:
        case = ElementTree.SubElement(suite, "testcase", name=f"sizing {name}", classname="hmodel")
        ElementTree.SubElement(case, "system-out").text = text
    root.set("tests", str(int(root.get("tests", "0")) + len(cases)))


#: Every ``--output-format`` and its renderer (``verbose`` matters to ``text`` only).
FORMATS: dict[str, Callable[[Report, bool], str]] = {
    "text": lambda report, verbose: render_text(report, verbose=verbose),
    "json": lambda report, verbose: render_json(report),
    "github": lambda report, verbose: render_github(report),
    "sarif": lambda report, verbose: render_sarif(report),
    "junit": lambda report, verbose: render_junit(report),
}


def render(
    report: Report, output_format: str, *, verbose: bool = False, colour: bool = False
) -> str:
    """Return the report in ``output_format``, one of :data:`FORMATS`.

    ``colour`` colours the ``text`` format only (the others are for programs).
    """
    if output_format == "text":
        return render_text(report, verbose=verbose, colour=colour)
    return FORMATS[output_format](report, verbose)
