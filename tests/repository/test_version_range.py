"""A version field holds a signed 64-bit long: values beyond it must be a typed error.

Known gap (issue 8 item 4): the version cell is encoded in ``hmodel/repository/version.py``
(``VersionCell.encode`` / ``VersionCell.pending``), which raise ``OverflowError``. The fix
belongs to the write-path work that owns that file; this test turns into a failure (strict
xfail) once it is made, so the marker is removed then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hmodel import Family, Key, Str, Table, field, model, version_field
from hmodel.errors import HModelError
from hmodel.repository import Repository

MakeRepo = Callable[..., Repository[Any]]


@model(Table("ledger", [Family("a")]), key=Key(Str("ledger_id")))
class Ledger:
    ledger_id: str
    owner: str = field("a:o")
    version: int = version_field("a:v")


@pytest.mark.xfail(
    strict=True,
    raises=OverflowError,
    reason="VersionCell.encode/pending in hmodel/repository/version.py (not this work's file)",
)
@pytest.mark.parametrize("version", [2**63 - 1, 2**63, 2**64, -(2**63) - 1])
def test_a_version_beyond_a_signed_long_is_a_typed_error(make_repo: MakeRepo, version: int) -> None:
    repo = make_repo(Ledger)
    with pytest.raises(HModelError) as caught:
        repo.save(Ledger(ledger_id="l1", owner="ann", version=version))
    assert caught.value.field == "version"
