from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from hmodel.cli import main
from hmodel.errors import InputError
from hmodel.ops.diff import diff_table, diff_tables
from hmodel.schema import Family, SaltSplits, Table

OLD = Table("order", [Family("o"), Family("x")], splits=SaltSplits(4))
NEW = Table(
    "order",
    [Family("o", compression="GZ", versions=3), Family("c")],
    splits=SaltSplits(6),
    durability="ASYNC_WAL",
)


def test_identical_declarations_have_no_differences() -> None:
    assert diff_tables([OLD], [OLD]) == []


def test_family_and_option_changes_are_listed_and_scripted() -> None:
    diff = diff_table(OLD, NEW)
    assert [str(d) for d in diff.differences] == [
        "family option o.VERSIONS: 1 -> 3",
        "family option o.COMPRESSION: NONE -> GZ",
        "family c: added (new)",
        "family x: removed (was present)  [drops data]",
        "table option DURABILITY: USE_DEFAULT -> ASYNC_WAL",
        "splits SPLITS: 4 regions -> 6 regions",
    ]
    assert diff.destructive
    assert diff.statements == (
        "disable 'order'",
        "alter 'order', {NAME => 'x', METHOD => 'delete'}",
        "alter 'order', {NAME => 'o', VERSIONS => 3, COMPRESSION => 'GZ'}",
        "alter 'order', {NAME => 'c'}",
        "alter 'order', {DURABILITY => 'ASYNC_WAL'}",
        "enable 'order'",
        "split 'order', '\\x04'",
        "split 'order', '\\x05'",
    )


def test_removed_split_points_are_noted_not_scripted() -> None:
    diff = diff_table(
        NEW, Table("order", NEW.families, splits=SaltSplits(2), durability="ASYNC_WAL")
    )
    assert diff.statements == ()
    assert "merge those regions" in diff.notes[0]


def test_a_new_table_is_created_and_an_undeclared_one_left_alone() -> None:
    by_name = {d.table: d for d in diff_tables([Table("old", [Family("d")])], [OLD])}
    assert sorted(by_name) == ["old", "order"]
    assert by_name["order"].statements[0].startswith("create 'order', {NAME => 'o'}")
    assert by_name["old"].statements == ()
    assert "left alone" in by_name["old"].notes[0]


def test_diff_command_prints_json_and_exits_1_on_differences(
    capsys: pytest.CaptureFixture[str], user_module: Callable[[str], str]
) -> None:
    before = user_module(
        'from hmodel.schema import Family, Table\nT = Table("t", [Family("d"), Family("old")])\n'
    )
    after = user_module(
        'from hmodel.schema import Family, Table\nT = Table("t", [Family("d", ttl=86400)])\n'
    )
    assert main(["diff", after, "--against", before, "--format=json"]) == 1
    (table,) = json.loads(capsys.readouterr().out)
    assert table["destructive"] is True
    assert table["statements"][1] == "alter 't', {NAME => 'old', METHOD => 'delete'}"
    assert main(["diff", after, "--against", after]) == 0
    assert capsys.readouterr().out.strip() == "no differences"


def test_diff_command_refuses_a_module_without_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "json", "--against", "examples.ecommerce.schema"]) == 2
    assert "declares no hmodel Table" in capsys.readouterr().err


def test_two_different_tables_cannot_be_diffed() -> None:
    with pytest.raises(InputError, match="different tables"):
        diff_table(OLD, Table("other", [Family("d")]))
