"""Schema diff and migration against a live cluster over Thrift2 (issue 12, F5)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hmodel.backend.base import Put
from hmodel.backend.thrift2 import Thrift2Backend
from hmodel.cli import main
from hmodel.errors import MigrationRefusedError
from hmodel.ops.migrate import migrate
from hmodel.schema import Family, Table

OLD = Table("mig_shop", [Family("a"), Family("b")])
NEW = Table("mig_shop", [Family("a", versions=3), Family("c", ttl=3600)])
FRESH = Table("mig_new", [Family("x")], splits=[b"m"])


@pytest.fixture
def live(fake_hbase_server: Any) -> Iterator[Thrift2Backend]:
    backend = Thrift2Backend(fake_hbase_server.host, fake_hbase_server.thrift2_port)
    for name in ("mig_shop", "mig_new"):
        if backend.table_exists(name):
            backend.delete_table(name)
    backend.create_table(OLD)
    try:
        yield backend
    finally:
        for name in ("mig_shop", "mig_new"):
            if backend.table_exists(name):
                backend.delete_table(name)
        backend.close()


def test_a_dry_run_reports_and_changes_nothing(live: Thrift2Backend) -> None:
    """Differences, statements and the families that hold data; nothing applied."""
    live.mutate("mig_shop", [Put(b"r", b"b:x", b"1")])
    done = migrate(live, [NEW, FRESH])
    assert [m.diff.table for m in done] == ["mig_shop", "mig_new"]
    shop, fresh = done
    assert not shop.applied and shop.dropped_with_data == ("b",)
    assert any("alter" in s for s in shop.diff.statements)
    assert fresh.diff.statements[0].startswith("create 'mig_new'")
    assert live.describe_table("mig_shop").families == OLD.families
    assert not live.table_exists("mig_new")


def test_dropping_a_family_with_cells_needs_permission(live: Thrift2Backend) -> None:
    """Refused without allow_drop (nothing of the table changes), applied with it."""
    live.mutate("mig_shop", [Put(b"r", b"b:x", b"1")])
    with pytest.raises(MigrationRefusedError):
        migrate(live, [NEW], apply=True)
    assert live.describe_table("mig_shop").families == OLD.families
    migrate(live, [NEW], apply=True, allow_drop=True)
    assert live.describe_table("mig_shop").families == NEW.families
    assert migrate(live, [NEW]) == []  # nothing differs any more


def test_an_empty_family_is_dropped_without_asking_and_new_tables_keep_their_splits(
    live: Thrift2Backend,
) -> None:
    """No cell in the dropped family: applied; a missing table is created pre-split."""
    done = migrate(live, [NEW, FRESH], apply=True)
    assert all(m.applied for m in done)
    assert live.describe_table("mig_shop").families == NEW.families
    assert [r.start for r in live.regions("mig_new")] == [b"", b"m"]


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    source = textwrap.dedent(
        """
        from hmodel.schema import Family, Table
        SHOP = Table("mig_shop", [Family("a", versions=3), Family("c", ttl=3600)])
        """
    )
    (tmp_path / "mig_schema.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "mig_schema"


def test_the_commands_diff_and_migrate_a_live_cluster(
    live: Thrift2Backend, module: str, fake_hbase_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """diff exits 1 with differences; migrate is a dry run until --apply; then no diff."""
    address = f"{fake_hbase_server.host}:{fake_hbase_server.thrift2_port}"
    assert main(["diff", module, "--hbase2", address, "--format", "json"]) == 1
    (table,) = json.loads(capsys.readouterr().out)
    assert table["table"] == "mig_shop" and table["destructive"]
    assert main(["migrate", module, "--hbase2", address]) == 1
    assert "dry run" in capsys.readouterr().out
    assert main(["migrate", module, "--hbase2", address, "--apply"]) == 0
    assert live.describe_table("mig_shop").families == NEW.families
    assert main(["diff", module, "--hbase2", address]) == 0
    assert "no differences" in capsys.readouterr().out
    assert main(["diff", module]) == 2  # neither --against nor --hbase2


def test_apply_does_not_claim_split_points_it_only_listed(
    live: Thrift2Backend,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_hbase_server: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Split points differ: --apply changes the rest, says so, and exits 1, not 0."""
    live.create_table(FRESH)  # split at b"m"
    (tmp_path / "mig_splits.py").write_text(
        "from hmodel.schema import Family, Table\n"
        "FRESH = Table('mig_new', [Family('x')], splits=[b'm', b't'])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    address = f"{fake_hbase_server.host}:{fake_hbase_server.thrift2_port}"
    (step,) = migrate(live, [Table("mig_new", [Family("x")], splits=[b"m", b"t"])], apply=True)
    assert not step.applied
    assert [d.what for d in step.left] == ["splits"]
    assert main(["migrate", "mig_splits", "--hbase2", address, "--apply"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("nothing applied; split points NOT changed for 'mig_new'")
    assert main(["migrate", "mig_splits", "--hbase2", address, "--apply", "--format=json"]) == 1
    (table,) = json.loads(capsys.readouterr().out)
    assert table["applied"] is False
    assert table["left"] == ["splits SPLITS: 2 regions -> 3 regions"]
    assert [r.start for r in live.regions("mig_new")] == [b"", b"m"]  # unchanged


def test_migrate_lists_the_pending_data_revisions_with_their_phase(
    live: Thrift2Backend, fake_hbase_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Data revisions of the module (or --migrations) not contracted are listed first."""
    from examples.ecommerce.migrations import ORDERS_SALT16
    from hmodel.patterns import PHASES, RevisionTable

    address = f"{fake_hbase_server.host}:{fake_hbase_server.thrift2_port}"
    revisions = RevisionTable(live)
    if live.table_exists(revisions.table):
        live.delete_table(revisions.table)
    try:
        assert main(["migrate", "examples.ecommerce.migrations", "--hbase2", address]) == 1
        out = capsys.readouterr().out.splitlines()
        assert out[:3] == [
            "data revisions pending (run their jobs; migrate never moves data):",
            "  2026_11_orders_salt16 [not begun]: orders: salt of 10 buckets to 16 (table order16)",
            "  2026_11_buyers_salt16 [not begun]: buyer copies: salt of 10 buckets to 16 "
            "(table order16)",
        ]
        assert "table order16:" in out
        revisions.create()
        for phase in PHASES:
            revisions.advance(ORDERS_SALT16, phase)
        assert main(["migrate", module_of_shop(), "--hbase2", address,
                     "--migrations", "examples.ecommerce.migrations"]) in (0, 1)  # fmt: skip
        out = capsys.readouterr().out.splitlines()
        assert out[:2] == [
            "data revisions pending (run their jobs; migrate never moves data):",
            "  2026_11_buyers_salt16 [not begun]: buyer copies: salt of 10 buckets to 16 "
            "(table order16)",
        ]
    finally:
        if live.table_exists(revisions.table):
            live.delete_table(revisions.table)


def module_of_shop() -> str:
    """A module of tables without data revisions: the e-commerce schema."""
    return "examples.ecommerce.schema"
