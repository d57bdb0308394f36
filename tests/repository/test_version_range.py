"""A version field holds a signed 64-bit long: values beyond it must be a typed error (issue 8).

A version of exactly 2**63-1 is refused too: a save bumps the version, and 2**63 does not
fit the 8-byte long of the version cell.
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


@pytest.mark.parametrize(
    "version",
    [
        2**63,
        2**64,
        -(2**63) - 1,
        -1,
        2**63 - 1,
    ],
)
def test_a_version_a_save_cannot_store_is_a_typed_error_naming_the_field(
    make_repo: MakeRepo, version: int
) -> None:
    repo = make_repo(Ledger)
    with pytest.raises(HModelError) as caught:
        repo.save(Ledger(ledger_id="l1", owner="ann", version=version))
    assert (caught.value.field, caught.value.value) == ("version", version)
