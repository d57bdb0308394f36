from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest

from hmodel.errors import CheckConfigError, InputError, MonotonicKeyWarning
from hmodel.ops import CheckConfig, Inventory, Severity, TableVolume, check
from tests.ops.conftest import BAD_SCHEMA


@pytest.fixture
def bad(user_module: Callable[[str], str]) -> Inventory:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MIN_VERSIONS without TTL warns at declaration too
        return Inventory.from_modules([user_module(BAD_SCHEMA)])


def _found(report: object, code: str, subject: str) -> list[str]:
    return [
        f.message
        for f in report.findings  # type: ignore[attr-defined]
        if f.code == code and str(f.subject) == subject
    ]


def test_the_ecommerce_example_is_clean_without_numbers() -> None:
    report = check(Inventory.from_modules(["examples.ecommerce.schema"]), CheckConfig())
    assert report.findings == ()
    assert {t.full_name for t in report.inventory.tables} == {
        "customer",
        "goods",
        "order",
        "customer_order",
    }
    assert {m.name for m in report.inventory.models} >= {"Order", "Buyer", "Goods"}


def test_a_timestamp_leading_an_unsalted_key_is_an_error(bad: Inventory) -> None:
    report = check(bad, CheckConfig())
    (message,) = _found(report, "HM-K8", "model:Event")
    assert "'at', a timestamp" in message
    assert report.findings[0].severity is Severity.ERROR


def test_a_declared_monotonic_field_counts_as_k8(user_module: Callable[[str], str]) -> None:
    name = user_module(
        """
        from hmodel import Key, Int, model, field
        from hmodel.schema import Family, Table
        T = Table("seq", [Family("d")])
        @model(T, key=Key(Int("seq")))
        class Row:
            seq: int
            v: str = field("d:v")
        """
    )
    inventory = Inventory.from_modules([name])
    assert not _found(check(inventory, CheckConfig()), "HM-K8", "model:Row")
    config = CheckConfig(monotonic_fields=frozenset({"seq"}))
    assert _found(check(inventory, config), "HM-K8", "model:Row")


def test_uniform_byte_splits_over_a_salted_key_leave_regions_empty(bad: Inventory) -> None:
    (message,) = _found(check(bad, CheckConfig()), "HM-K11", "table:salted")
    assert "7 of 8 regions" in message


def test_hex_splits_over_binary_hashes_are_skewed(bad: Inventory) -> None:
    (message,) = _found(check(bad, CheckConfig()), "HM-K11", "table:hashed")
    assert "busiest of 4 regions" in message


def test_a_salted_key_on_an_unsplit_table_is_reported(bad: Inventory) -> None:
    (message,) = _found(check(bad, CheckConfig()), "HM-K11", "table:unsplit")
    assert "6 buckets" in message


def test_long_keys_families_names_and_versions(bad: Inventory) -> None:
    report = check(bad, CheckConfig())
    assert "121 bytes" in _found(report, "HM-K10", "model:Unsplit")[0]
    assert "4 families" in _found(report, "HM-F1", "table:wide")[0]
    assert any("'data' is 4 bytes" in m for m in _found(report, "HM-F2", "table:events"))
    assert any("'description'" in m for m in _found(report, "HM-F2", "model:Event"))
    versions = _found(report, "HM-F7", "table:events")
    assert any("MIN_VERSIONS 1 but no TTL" in m for m in versions)
    assert any("VERSIONS 50" in m for m in versions)


def test_sizing_needs_numbers_and_reports_them(bad: Inventory) -> None:
    assert not [f for f in check(bad, CheckConfig()).findings if f.code.startswith("HM-S")]
    config = CheckConfig(
        volumes={"unsplit": TableVolume(rows=10**9, row_bytes=200, cell_bytes=2_000_000)},
        region_servers=1,
        heap=1024**3,
    )
    report = check(bad, config)
    assert "needs about 19 regions" in _found(report, "HM-S3", "table:unsplit")[0]
    assert _found(report, "HM-S2", "cluster")
    assert "2,000,000 bytes" in _found(report, "HM-F11", "table:unsplit")[0]
    assert report.notes == ()


def test_ignored_codes_are_kept_apart_with_their_reason(bad: Inventory) -> None:
    config = CheckConfig(ignore={"model:Event": {"HM-K8": "a tiny audit table"}})
    report = check(bad, config)
    assert not _found(report, "HM-K8", "model:Event")
    assert [(i.finding.code, i.reason) for i in report.ignored] == [("HM-K8", "a tiny audit table")]


def test_fail_on_compares_severities(bad: Inventory) -> None:
    report = check(bad, CheckConfig(), select=["HM-F1"])
    assert {f.severity for f in report.findings} == {Severity.WARNING}
    assert report.fails(Severity.WARNING)
    assert not report.fails(Severity.ERROR)
    assert not report.fails(None)


def test_a_module_that_does_not_import_is_an_input_error() -> None:
    with pytest.raises(InputError, match="cannot import"):
        Inventory.from_modules(["no.such.module"])


def test_a_module_without_declarations_is_an_input_error() -> None:
    with pytest.raises(InputError, match="declares no hmodel Table"):
        Inventory.from_modules(["json"])


def test_config_is_read_from_a_pyproject_section() -> None:
    config = CheckConfig.from_mapping(
        {
            "region-servers": 4,
            "heap": "32GiB",
            "tables": {"order": {"rows": 100, "row-bytes": "1KB"}},
            "ignore": {"table:order": {"HM-S3": "archived monthly"}},
            "fail-on": "error",
        }
    )
    assert config.heap == 32 * 1024**3
    assert config.volume("order").data_bytes == 100_000
    assert config.ignored("table:order", "HM-S3") == "archived monthly"
    assert config.fail_on is Severity.ERROR


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"heap": "lots"}, "heap must be a size"),
        ({"bogus": 1}, "unknown"),
        ({"ignore": {"model:A": {"HM-K8": " "}}}, "give the reason"),
        ({"ignore": {"model:A": {"K8": "x"}}}, "not a code"),
        ({"fail-on": "fatal"}, "fail-on"),
        ({"key-spaces": {"A": "base64"}}, "hex"),
    ],
)
def test_bad_settings_are_config_errors(section: dict[str, object], message: str) -> None:
    with pytest.raises(CheckConfigError, match=message):
        CheckConfig.from_mapping(section)


def test_a_model_silences_a_code_beside_its_declaration(
    user_module: Callable[[str], str],
) -> None:
    source = """
        from datetime import datetime
        from hmodel import Key, Str, Timestamp, model, field
        from hmodel.schema import Family, Table
        T = Table("audit", [Family("d")])
        @model(T, key=Key(Timestamp("at"), Str("who")))
        class Audit:
            __hmodel_ignore__ = {"HM-K8": REASON}
            at: datetime
            who: str
            what: str = field("d:w")
        """
    quiet = Inventory.from_modules([user_module(source.replace("REASON", '"100 rows a day"'))])
    report = check(quiet, CheckConfig())
    assert report.findings == ()
    assert [(i.finding.code, i.reason) for i in report.ignored] == [("HM-K8", "100 rows a day")]
    # A blank reason silences nothing: @model warns at import (K8), the advisor refuses it.
    with pytest.warns(MonotonicKeyWarning):
        blank = Inventory.from_modules([user_module(source.replace("REASON", '""'))])
    with pytest.raises(CheckConfigError, match=r"Audit\.__hmodel_ignore__\.HM-K8: give the reason"):
        check(blank, CheckConfig())
